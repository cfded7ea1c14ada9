"""A rules project as an editor sees it: its baobei.yaml, its variants, the texts open in
the editor (which stand for their files) and, for each variant, the rules read from them
with every error collected."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from baobei.dsl import ast
from baobei.dsl.errors import BaobeiError, ConfigError
from baobei.dsl.layers import SPEC_SUFFIX, layer_files, load_layers
from baobei.dsl.loader import Config, find_project, load_config
from baobei.dsl.model import Spec
from baobei.dsl.parser import parse_text_recovering_cached
from baobei.dsl.resolve import resolve

EDITIONS = ("fr", "de")          # analysed in every project where their layers exist


@dataclass
class Variant:
    name: str
    layers: list[str]
    files: list[str]               # resolved paths, in layer order


@dataclass
class VariantAnalysis:
    variant: Variant
    spec: Spec                     # partly annotated where there are errors
    files: list[ast.SpecFile]      # as read: every declaration, the replaced ones too
    errors: list[BaobeiError]
    key: tuple = ()                # what it was read from
    rules: object | None = field(default=None, repr=False)    # ready to play, once asked for (lens.rules_of)
    occurrences: list | None = field(default=None, repr=False)  # its names, once indexed (index.Index)


@dataclass
class Analysis:
    config: Config | None
    config_error: BaobeiError | None
    variants: list[VariantAnalysis] = field(default_factory=list)
    loose: dict[str, tuple[ast.SpecFile, list[BaobeiError]]] = field(default_factory=dict)   # in no variant

    def variants_with(self, path: str) -> list[VariantAnalysis]:
        return [v for v in self.variants if path in v.variant.files]

    def variant(self, name: str) -> VariantAnalysis | None:
        return next((v for v in self.variants if v.variant.name == name), None)

    def spec_files(self) -> set[str]:
        return {path for v in self.variants for path in v.variant.files}


def resolved(path: str | Path) -> str:
    return str(Path(path).resolve())


class Project:
    """One baobei.yaml and everything below it."""

    def __init__(self, config_path: Path):
        self.config_path = config_path.resolve()
        self.folder = self.config_path.parent
        self._cache: dict[str, VariantAnalysis] = {}
        self.last: Analysis | None = None

    def config(self, texts: dict[str, str]) -> Config:
        return load_config(str(self.config_path), cwd=self.folder, text=texts.get(str(self.config_path)))

    def analyse(self, texts: dict[str, str]) -> Analysis:
        """Every variant read on the editor's texts; an unchanged variant is not read again."""
        try:
            config = self.config(texts)
        except BaobeiError as error:     # while baobei.yaml is being edited, the rules read last stay
            previous = self.last or Analysis(None, None)
            self.last = Analysis(previous.config, error, previous.variants,
                                 _loose(texts, self.folder, previous.spec_files()))
            return self.last
        analysis = Analysis(config, None)
        for variant in variants(config):
            key = _key(config, variant, texts)
            cached = self._cache.get(variant.name)
            if cached is None or cached.key != key:
                cached = _analyse(config, variant, texts, key)
                self._cache[variant.name] = cached
            analysis.variants.append(cached)
        analysis.loose = _loose(texts, self.folder, analysis.spec_files())
        self.last = analysis
        return analysis


def project_of(path: Path) -> Path | None:
    """The baobei.yaml a file belongs to: its folder's or the nearest parent's."""
    return find_project(path.parent)


def variants(config: Config) -> list[Variant]:
    """The editions and the config's own variants whose layers all exist."""
    named = {name: config.layers_of(name) for name in EDITIONS}
    named.update(config.variants)
    found = []
    for name, layers in named.items():
        try:
            files = [resolved(f) for layer in layers for f in layer_files(config.spec_dir, layer, config.config_dir)]
        except ConfigError:
            continue
        found.append(Variant(name, list(layers), files))
    return found


def _key(config: Config, variant: Variant, texts: dict[str, str]) -> tuple:
    """What a variant's analysis depends on: its files' texts (or their state on disk), the rulebooks
    and the edition."""
    parts = []
    rulebooks = sorted(resolved(p) for p in (config.spec_dir / "rulebooks").glob("*.txt"))
    for path in variant.files + rulebooks + [resolved(config.edition_path())]:
        if path in texts:
            parts.append((path, hashlib.sha1(texts[path].encode("utf-8")).hexdigest()))
        else:
            try:
                info = Path(path).stat()
                parts.append((path, info.st_mtime_ns, info.st_size))
            except OSError:
                parts.append((path, None))
    return (tuple(variant.layers), tuple(parts))


def _analyse(config: Config, variant: Variant, texts: dict[str, str], key: tuple) -> VariantAnalysis:
    errors: list[BaobeiError] = []
    layered = load_layers(config.spec_dir, variant.layers, config.config_dir, texts=texts, errors=errors)
    try:
        spec = resolve(layered, config.spec_dir, errors)
    except RecursionError:      # the resolver collects per declaration; this is the spec as a whole
        spec = Spec(layers=variant.layers, spec_dir=str(config.spec_dir))
    return VariantAnalysis(variant, spec, layered.files, errors, key)


def _loose(texts: dict[str, str], folder: Path, known: set[str]) -> dict:
    """Open .bao files of the project that no variant reads: only their syntax can be checked."""
    return {path: parse_text_recovering_cached(text, path) for path, text in texts.items()
            if path.endswith(SPEC_SUFFIX) and path not in known and Path(path).is_relative_to(folder)}
