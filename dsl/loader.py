"""Which rules to run: the project config (baobei.yaml), the spec folder, the layers,
the edition. Flags override the config; the config overrides the defaults.
"""
from __future__ import annotations

import importlib.util
import pickle
from dataclasses import dataclass, field
from pathlib import Path

from . import cache
from .edition import Edition, load_edition
from .errors import ConfigError, Loc, SpecTypeError, shown_path
from .layers import SPEC_SUFFIX, layer_files, load_layers
from .model import Spec
from .yamlfile import parse_yaml, read_yaml

CONFIG_NAME = "baobei.yaml"
CONFIG_KEYS = {"spec", "layers", "edition", "variants", "phrasebook"}
STANDARD_EDITION = Path("editions") / "standard.yaml"
DEFAULT_LAYERS = ["core", "fr"]


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
    config_path: Path | None = None        # the baobei.yaml read, if any
    spec_from: str = "packaged"            # why this spec folder: "--spec", "spec:", "beside", "packaged"
    phrasebook: Path | None = None         # a house phrasebook over the spec's own (baobei rulebook)

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

    def describe(self) -> str:
        """Which rules a command reads, said once at its start."""
        where = {"--spec": "--spec", "spec:": f"'spec:' of {shown_path(self.config_path)}",
                 "beside": f"beside {shown_path(self.config_path)}",
                 "packaged": "the packaged spec: no baobei.yaml here or above"}[self.spec_from]
        return f"rules {shown_path(self.spec_dir)}/ ({where}), edition {shown_path(self.edition_path())}"

    def as_json(self) -> dict:
        return {"spec": shown_path(self.spec_dir), "edition": shown_path(self.edition_path()),
                "config": shown_path(self.config_path) if self.config_path else None}


def find_project(cwd: Path) -> Path | None:
    """The baobei.yaml of the rules project the folder is in: the folder's own, or its
    nearest parent's (like git finds its repository)."""
    for folder in [cwd, *cwd.parents]:
        candidate = folder / CONFIG_NAME
        if candidate.is_file():
            return candidate
    return None


def _holds_spec(folder: Path) -> bool:
    return folder.is_dir() and next(folder.rglob("*" + SPEC_SUFFIX), None) is not None


def load_config(config_path: str | None = None, spec: str | None = None, edition: str | None = None,
                layers: list[str] | None = None, cwd: Path | None = None, text: str | None = None) -> Config:
    """The project config with the command line's flags applied on top.

    Inside a rules project (a baobei.yaml in the folder or above) the rules are the
    project's: its `spec:` folder, or the spec/ folder beside the config when it holds
    .bao files. The packaged spec is read only outside any project (or with --spec).
    `text` stands for the config file's text (an editor's, not saved yet)."""
    cwd = (cwd or Path.cwd()).resolve()
    path = _path(config_path, cwd) if config_path else find_project(cwd)
    data: dict = {}
    doc = None
    config_dir: Path | None = None
    if path is not None:
        if text is None and not path.is_file():
            raise ConfigError("no such config file", Loc(str(path)))
        doc = read_yaml(path, ConfigError) if text is None else parse_yaml(text, str(path), ConfigError)
        data = doc.data or {}
        if not isinstance(data, dict):
            raise ConfigError("a config file is a mapping with keys " + ", ".join(sorted(CONFIG_KEYS)),
                              Loc(str(path), 1, 1))
        for key in data:
            if key not in CONFIG_KEYS:
                raise ConfigError(f"unknown key '{key}'; a config has {', '.join(sorted(CONFIG_KEYS))}",
                                  doc.loc(key))
        _check_config_types(data, doc)
        config_dir = path.parent.resolve()
    if spec:
        spec_dir, spec_from = _path(spec, cwd), "--spec"
        if not spec_dir.is_dir():
            raise ConfigError(f"--spec {spec}: no such folder", Loc(str(spec_dir)))
    elif "spec" in data:
        spec_dir, spec_from = config_dir / data["spec"], "spec:"
        if not _holds_spec(spec_dir):
            raise ConfigError(f"'spec: {data['spec']}': no folder of .bao files at {shown_path(spec_dir)}",
                              doc.loc("spec"))
    elif config_dir is not None and _holds_spec(config_dir / "spec"):
        spec_dir, spec_from = config_dir / "spec", "beside"
    else:
        spec_dir, spec_from = packaged_spec_dir(), "packaged"
    config = Config(spec_dir=spec_dir, layers=list(layers or data.get("layers") or DEFAULT_LAYERS),
                    config_dir=config_dir, variants={k: list(v) for k, v in (data.get("variants") or {}).items()},
                    config_path=path, spec_from=spec_from)
    if edition:
        config.edition = _path(edition, cwd)
        if not config.edition.is_file():
            raise ConfigError(f"--edition {edition}: no such file", Loc(str(config.edition)))
    elif "edition" in data:
        config.edition = config_dir / data["edition"]
        if not config.edition.is_file():
            raise ConfigError(f"'edition: {data['edition']}': no such file ({shown_path(config.edition)})",
                              doc.loc("edition"))
    if "phrasebook" in data:
        config.phrasebook = config_dir / data["phrasebook"]
        if not config.phrasebook.is_file():
            raise ConfigError(f"'phrasebook: {data['phrasebook']}': no such file ({shown_path(config.phrasebook)})",
                              doc.loc("phrasebook"))
    if doc is not None:
        _check_layers_exist(config, data, doc, use_file_layers=layers is None)
    # the config's own layers are a variant named by their last layer (e.g. house)
    config.variants.setdefault(config.layers[-1], list(config.layers))
    return config


def _check_layers_exist(config: Config, data: dict, doc, use_file_layers: bool) -> None:
    """Every layer the config names has its files: a misspelt layer is an error where it is written."""
    named = []
    if use_file_layers:
        named += [(layer, ("layers", i)) for i, layer in enumerate(data.get("layers") or [])]
    for variant, layers in (data.get("variants") or {}).items():
        named += [(layer, ("variants", variant, i)) for i, layer in enumerate(layers)]
    for layer, where in named:
        try:
            layer_files(config.spec_dir, layer, config.config_dir)
        except ConfigError as error:
            raise ConfigError(error.message, doc.loc(*where)) from None


def _check_config_types(data: dict, doc) -> None:
    if "layers" in data and not (isinstance(data["layers"], list) and data["layers"]
                                 and all(isinstance(x, str) for x in data["layers"])):
        raise ConfigError("'layers' is a list of layer names, e.g. [core, de, house]", doc.loc("layers"))
    for key in ("spec", "edition", "phrasebook"):
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
    """Files change under a running process (tests, editors), sometimes within one tick of the
    clock and keeping their size: the caches key on their contents."""
    import hashlib
    stamps = []
    for path in paths:
        try:
            stamps.append((str(path), hashlib.sha1(path.read_bytes()).hexdigest()))
        except OSError:
            stamps.append((str(path), None))
    return tuple(stamps)


def load_spec(config: Config, variant: str | None = None) -> Spec:
    layers = config.layers_of(variant)
    files = [f for layer in layers for f in layer_files(config.spec_dir, layer, config.config_dir)]
    rulebooks = sorted((config.spec_dir / "rulebooks").glob("*.txt"))
    key = (str(config.spec_dir.resolve()), tuple(layers), str(config.config_dir), _fingerprint(files + rulebooks))
    if key not in _SPECS:
        spec = _cached_spec(config, layers, key)
        stamps = key[3][:len(files)]
        spec.content = cache.digest(cache.language_version(), repr(layers),
                                    repr([(Path(p).name, h) for p, h in stamps]))
        _SPECS[key] = spec
    return _SPECS[key]


def _cached_spec(config: Config, layers: list[str], files: tuple) -> Spec:
    """The resolved spec of these layers: read back from the cache folder when it was resolved
    before from the same files (paths and contents, `files`) by the same code, else parsed and
    resolved now."""
    key = cache.digest(cache.language_version(), repr(files))
    name = f"spec-{key}.pickle"
    data = cache.read(name)
    if data is not None:
        try:
            spec = pickle.loads(data)
            if isinstance(spec, Spec) and spec.key == key:
                return spec
        except Exception:  # noqa: BLE001 - a damaged entry is made again
            pass
    from .resolve import resolve      # read back from the cache, a spec needs no resolving
    layered = load_layers(config.spec_dir, layers, config.config_dir)
    try:
        spec = resolve(layered, config.spec_dir)
    except RecursionError:
        raise SpecTypeError("an expression or a definition is nested too deeply to check",
                            Loc(str(config.spec_dir))) from None
    spec.key = key
    try:
        data = pickle.dumps(spec, protocol=pickle.HIGHEST_PROTOCOL)
    except RecursionError:   # too deep to store: it is resolved again next time
        return spec
    cache.write(name, data)
    return spec


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
        _EDITIONS[key] = _cached_edition(path, spec, key)
    return _EDITIONS[key]


def _cached_edition(path: Path, spec: Spec, key: tuple) -> Edition:
    """The edition as read before for the same spec from the same file, else read now (reading its
    YAML with positions takes longer than the rest of loading rules from the cache)."""
    if not spec.key:
        return load_edition(path, spec)
    name = f"edition-{cache.digest(cache.language_version(), spec.key, repr(key[0]), repr(key[2]))}.pickle"
    data = cache.read(name)
    if data is not None:
        try:
            edition = pickle.loads(data)
            if isinstance(edition, Edition):
                return edition
        except Exception:  # noqa: BLE001 - a damaged entry is made again
            pass
    edition = load_edition(path, spec)
    cache.write(name, pickle.dumps(edition, protocol=pickle.HIGHEST_PROTOCOL))
    return edition
