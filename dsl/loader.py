"""Which rules to run: the project config (baobei.yaml), the spec folder, the layers,
the edition. Flags override the config; the config overrides the defaults.
"""
from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field
from pathlib import Path

from .edition import Edition, load_edition
from .errors import ConfigError, Loc, SpecTypeError
from .layers import layer_files, load_layers
from .model import Spec
from .resolve import resolve
from .yamlfile import read_yaml

CONFIG_NAME = "baobei.yaml"
CONFIG_KEYS = {"spec", "layers", "edition", "variants"}
STANDARD_EDITION = Path("editions") / "standard.yaml"


def packaged_spec_dir() -> Path:
    found = importlib.util.find_spec("baobei.spec")
    if found is None or not found.submodule_search_locations:
        raise ConfigError("the packaged spec folder is missing; reinstall baobei")
    return Path(list(found.submodule_search_locations)[0])


@dataclass
class Config:
    spec_dir: Path
    layers: list[str]                      # the layers of the default variant
    edition: Path | None = None            # None: <spec>/editions/standard.yaml
    config_dir: Path | None = None
    variants: dict[str, list[str]] = field(default_factory=dict)

    def edition_path(self) -> Path:
        return self.edition or self.spec_dir / STANDARD_EDITION

    def layers_of(self, variant: str | None) -> list[str]:
        if variant is None:
            return self.layers
        if variant in self.variants:
            return self.variants[variant]
        return ["core", variant]

    @property
    def default_variant(self) -> str:
        return self.layers[-1]


def load_config(config_path: str | None = None, spec: str | None = None, edition: str | None = None,
                layers: list[str] | None = None, cwd: Path | None = None) -> Config:
    """The config file (if any) with the command line's flags applied on top."""
    cwd = cwd or Path.cwd()
    path = Path(config_path) if config_path else cwd / CONFIG_NAME
    data: dict = {}
    config_dir: Path | None = None
    if config_path or path.is_file():
        doc = read_yaml(path, ConfigError)
        data = doc.data or {}
        if not isinstance(data, dict):
            raise ConfigError("a config file is a mapping with keys " + ", ".join(sorted(CONFIG_KEYS)), Loc(str(path)))
        for key in data:
            if key not in CONFIG_KEYS:
                raise ConfigError(f"unknown key '{key}'; a config has {', '.join(sorted(CONFIG_KEYS))}",
                                  doc.loc(key))
        _check_config_types(data, doc)
        config_dir = path.parent.resolve()
    spec_dir = _path(spec, cwd) if spec else (config_dir / data["spec"] if "spec" in data else packaged_spec_dir())
    if not spec_dir.is_dir():
        raise ConfigError(f"no spec folder at {spec_dir}", Loc(str(path) if data else str(spec_dir)))
    config = Config(spec_dir=spec_dir, layers=list(layers or data.get("layers") or ["core", "fr"]),
                    config_dir=config_dir, variants={k: list(v) for k, v in (data.get("variants") or {}).items()})
    # the config's own layers are a variant named by their last layer (e.g. house)
    config.variants.setdefault(config.layers[-1], list(config.layers))
    if edition:
        config.edition = _path(edition, cwd)
    elif "edition" in data:
        config.edition = config_dir / data["edition"]
    return config


def _check_config_types(data: dict, doc) -> None:
    if "layers" in data and not (isinstance(data["layers"], list) and data["layers"]
                                 and all(isinstance(x, str) for x in data["layers"])):
        raise ConfigError("'layers' is a list of layer names, e.g. [core, de, house]", doc.loc("layers"))
    for key in ("spec", "edition"):
        if key in data and not isinstance(data[key], str):
            raise ConfigError(f"'{key}' is a path", doc.loc(key))
    variants = data.get("variants")
    if variants is not None and not (isinstance(variants, dict) and all(
            isinstance(k, str) and isinstance(v, list) and v and all(isinstance(x, str) for x in v)
            for k, v in variants.items())):
        raise ConfigError("'variants' maps a variant name to its layers, e.g. house: [core, de, house]",
                          doc.loc("variants"))


def _path(text: str, cwd: Path) -> Path:
    path = Path(text)
    return path if path.is_absolute() else cwd / path


_SPECS: dict[tuple, Spec] = {}
_EDITIONS: dict[tuple, Edition] = {}


def _fingerprint(paths) -> tuple:
    """Files change under a running process (tests, editors): the caches key on their stats."""
    stats = []
    for path in paths:
        try:
            info = path.stat()
            stats.append((str(path), info.st_mtime_ns, info.st_size))
        except OSError:
            stats.append((str(path), None, None))
    return tuple(stats)


def load_spec(config: Config, variant: str | None = None) -> Spec:
    layers = config.layers_of(variant)
    files = [f for layer in layers for f in layer_files(config.spec_dir, layer, config.config_dir)]
    rulebooks = sorted((config.spec_dir / "rulebooks").glob("*.txt"))
    key = (str(config.spec_dir.resolve()), tuple(layers), str(config.config_dir), _fingerprint(files + rulebooks))
    if key not in _SPECS:
        layered = load_layers(config.spec_dir, layers, config.config_dir)
        try:
            _SPECS[key] = resolve(layered, config.spec_dir)
        except RecursionError:
            raise SpecTypeError("an expression or a definition is nested too deeply to check",
                                Loc(str(config.spec_dir))) from None
    return _SPECS[key]


def spec_version(config: Config, variant: str | None = None) -> str:
    """A short fingerprint of the rules a variant runs: its layer files and its edition file."""
    import hashlib
    digest = hashlib.sha256()
    layers = config.layers_of(variant)
    files = [f for layer in layers for f in layer_files(config.spec_dir, layer, config.config_dir)]
    for path in files + [config.edition_path()]:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def load_edition_for(config: Config, spec: Spec) -> Edition:
    path = config.edition_path()
    key = (str(path.resolve()), id(spec), _fingerprint([path]))
    if key not in _EDITIONS:
        _EDITIONS[key] = load_edition(path, spec)
    return _EDITIONS[key]
