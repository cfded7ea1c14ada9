"""Editions as layers: a shared core plus layers that add, replace or remove
declarations by name. Whatever a layer does not mention stays as the core has it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from . import ast
from .errors import ConfigError, Loc, SpecLayerError

SPEC_SUFFIX = ".bao"


@dataclass
class Layered:
    """The merged declarations of some layers, by namespace, in source order."""

    layers: list[str]
    decls: dict[str, dict[str, ast.Decl]] = field(default_factory=dict)

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


def load_layers(spec_dir: Path, layers: list[str], config_dir: Path | None = None) -> Layered:
    from .parser import parse_file     # the grammar is built only when a spec is read
    merged = Layered(list(layers))
    for layer in layers:
        for path in layer_files(spec_dir, layer, config_dir):
            spec_file = parse_file(path)
            if spec_file.layer is not None and spec_file.layer != layer and not layer.endswith(SPEC_SUFFIX):
                raise SpecLayerError(
                    f"this file says it belongs to layer '{spec_file.layer}' but was loaded as layer '{layer}'",
                    Loc(str(path), 1, 1))
            for decl in spec_file.decls:
                decl.layer = layer
                _apply(merged, decl)
    return merged


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
