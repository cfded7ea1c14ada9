"""The rules of one variant, ready to play: resolved spec, its program, edition."""
from __future__ import annotations

from dataclasses import dataclass, field

from baobei.dsl.edition import Edition
from baobei.dsl.loader import Config, load_edition_for, load_spec, spec_version
from baobei.dsl.model import Spec

from .program import Program, program_of


@dataclass
class Rules:
    variant: str
    spec: Spec
    program: Program
    edition: Edition
    version: str = ""
    source: "RulesSource | None" = None   # how another process loads the same rules
    _deck: list | None = field(default=None, repr=False, compare=False)

    def deck(self) -> list[str]:
        """The edition's cards, one id per physical card (edition.cards(), kept: every round needs them)."""
        if self._deck is None:
            self._deck = self.edition.cards()
        return self._deck


@dataclass(frozen=True)
class RulesSource:
    """What a worker process needs to load a variant's rules itself: compiled code does not
    travel between processes, the config's paths and the variant's name do (the worker finds
    the generated module in the cache folder)."""

    config: Config
    variant: str | None

    def load(self) -> Rules:
        return load_rules(self.config, self.variant)


def load_rules(config: Config, variant: str | None = None) -> Rules:
    spec = load_spec(config, variant)
    edition = load_edition_for(config, spec)
    return Rules(variant or config.default_variant, spec, program_of(spec), edition,
                 spec_version(config, variant), RulesSource(config, variant))
