"""Editions as layers: a shared core plus layers that add, replace or remove
declarations by name. Whatever a layer does not mention stays as the core has it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from . import ast
from .errors import BaobeiError, ConfigError, Loc, SpecLayerError

SPEC_SUFFIX = ".bao"


@dataclass
class Layered:
    """The merged declarations of some layers, by namespace, in source order."""

    layers: list[str]
    decls: dict[str, dict[str, ast.Decl]] = field(default_factory=dict)
    files: list[ast.SpecFile] = field(default_factory=list)     # as read, in layer order

    def namespace(self, kind: str) -> dict[str, ast.Decl]:
        return self.decls.setdefault(kind, {})

    def all(self) -> list[ast.Decl]:
        return [decl for names in self.decls.values() for decl in names.values()]


def layer_files(spec_dir: Path, layer: str, config_dir: Path | None = None) -> list[Path]:
    """The files of a layer: <spec>/<layer>.bao, every .bao under <spec>/<layer>/, or a path."""
    candidates = []
    as_path = Path(layer)
    if layer.endswith(SPEC_SUFFIX) or "/" in layer:
        base = config_dir or Path.cwd()
        candidates.append(as_path if as_path.is_absolute() else base / as_path)
    else:
        candidates += [spec_dir / (layer + SPEC_SUFFIX), spec_dir / layer]
        if config_dir is not None:
            candidates.append(config_dir / (layer + SPEC_SUFFIX))
    for candidate in candidates:
        if candidate.is_file():
            return [candidate]
        if candidate.is_dir():
            files = sorted(candidate.rglob("*" + SPEC_SUFFIX))
            if files:
                return files
    tried = ", ".join(str(c) for c in candidates)
    raise ConfigError(f"no spec files for layer '{layer}' (looked for {tried})", Loc(str(spec_dir)))


def load_layers(spec_dir: Path, layers: list[str], config_dir: Path | None = None,
                texts: dict[str, str] | None = None, errors: list[BaobeiError] | None = None) -> Layered:
    """The layers' declarations merged in order. `texts` (by resolved path) stand for the files
    of the same name, as an editor has them; with a list of `errors`, every error is collected
    there and what can be read is merged (the first error is raised otherwise)."""
    merged = Layered(list(layers))
    for layer in layers:
        try:
            paths = layer_files(spec_dir, layer, config_dir)
        except ConfigError as error:
            if errors is None:
                raise
            errors.append(error)
            continue
        for path in paths:
            spec_file = _read(path, texts, errors)
            merged.files.append(spec_file)
            if spec_file.layer is not None and spec_file.layer != layer and not layer.endswith(SPEC_SUFFIX):
                _complain(SpecLayerError(
                    f"this file says it belongs to layer '{spec_file.layer}' but was loaded as layer '{layer}'",
                    Loc(str(path), 1, 1)), errors)
            for decl in spec_file.decls:
                decl.layer = layer
                try:
                    _apply(merged, decl)
                except SpecLayerError as error:
                    _complain(error, errors)
    return merged


def _read(path: Path, texts: dict[str, str] | None, errors: list[BaobeiError] | None) -> ast.SpecFile:
    # the grammar is built only when a spec file is read (not when rules come from the cache)
    from .parser import parse_file, parse_file_recovering, parse_text, parse_text_recovering_cached
    text = (texts or {}).get(str(path.resolve()))
    if errors is None:
        return parse_file(path) if text is None else parse_text(text, str(path))
    spec_file, found = parse_file_recovering(path) if text is None else parse_text_recovering_cached(text, str(path))
    errors += found
    return spec_file


def _complain(error: BaobeiError, errors: list[BaobeiError] | None) -> None:
    if errors is None:
        raise error
    errors.append(error)


def _apply(merged: Layered, decl: ast.Decl) -> None:
    if isinstance(decl, ast.RemoveDecl):
        names = merged.namespace(decl.target_kind)
        if decl.name not in names:
            raise SpecLayerError(f"'remove {decl.target_kind} {decl.name}': no {decl.target_kind} of that name "
                                 f"in the layers before it", decl.loc)
        del names[decl.name]
        return
    names = merged.namespace(decl.kind)
    existing = names.get(decl.name)
    if decl.replace:
        if existing is None:
            raise SpecLayerError(f"'replace {decl.kind} {decl.name}': no {decl.kind} of that name to replace",
                                 decl.loc)
        names[decl.name] = decl
        return
    if existing is not None:
        raise SpecLayerError(
            f"{decl.kind} '{decl.name}' is already declared at {existing.loc}",
            decl.loc,
            notes=("a layer changes a declaration of an earlier layer with 'replace', or drops it with 'remove'",)
            if existing.layer != decl.layer else ())
    names[decl.name] = decl
