"""The rules of one variant, ready to play: resolved spec, compiled program, edition."""
from __future__ import annotations

from dataclasses import dataclass

from baobei.dsl.edition import Edition
from baobei.dsl.loader import Config, load_edition_for, load_spec, spec_version
from baobei.dsl.model import Spec

from .program import Program


@dataclass
class Rules:
    variant: str
    spec: Spec
    program: Program
    edition: Edition
    version: str = ""


_PROGRAMS: dict[int, Program] = {}


def load_rules(config: Config, variant: str | None = None) -> Rules:
    spec = load_spec(config, variant)
    if id(spec) not in _PROGRAMS:
        _PROGRAMS[id(spec)] = Program(spec)
    edition = load_edition_for(config, spec)
    return Rules(variant or config.default_variant, spec, _PROGRAMS[id(spec)], edition,
                 spec_version(config, variant))
