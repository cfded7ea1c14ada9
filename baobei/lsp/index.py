"""What each name written in the project denotes, and where: every declaration's name, every
name the resolver annotated in an expression, every name written outside expressions (a
move, a card's family, an `as HOW`, a set variable...), across the files of every variant."""
from __future__ import annotations

from dataclasses import dataclass, fields, is_dataclass

from baobei.dsl import ast
from baobei.dsl.errors import Loc

from .project import Analysis, VariantAnalysis, resolved


@dataclass(frozen=True)
class Target:
    """What a name denotes. Kinds: those of declarations (rule, card, family, power, enum, var,
    player_var, define, decision, claim, invariant, procedure, move: the `on` handler) and
    enum_value, global, function, attribute, local, type."""
    kind: str
    name: str


@dataclass
class Occurrence:
    file: str
    start: tuple[int, int]          # (line, column), 1-based, in characters
    end: tuple[int, int]            # the column after its last character
    target: Target
    definition: bool = False        # the name in its own declaration
    type: str | None = None         # an expression's type
    decl: ast.Decl | None = None    # for a definition: the declaration

    @property
    def key(self) -> tuple:
        return (self.file, self.start, self.end, self.target)


_NAMESPACES = {"rule": "rules", "card": "cards", "family": "families", "enum": "enums", "var": "vars",
               "player_var": "player_vars", "define": "defines", "decision": "decisions", "claim": "claims",
               "invariant": "invariants", "procedure": "procedures", "power": "powers", "move": "handlers"}
NAVIGABLE = frozenset(_NAMESPACES) | {"enum_value"}


def decl_target(decl: ast.Decl) -> Target:
    if isinstance(decl, ast.VarDecl):
        return Target("player_var" if decl.per_player else "var", decl.name)
    return Target("move" if decl.kind == "on" else decl.kind, decl.name)


def declared(variant: VariantAnalysis, target: Target) -> ast.Decl | None:
    """The declaration a variant uses for the target (after its layers replaced and removed)."""
    table = _NAMESPACES.get(target.kind)
    return getattr(variant.spec, table).get(target.name) if table else None


class Index:
    def __init__(self, analysis: Analysis):
        self.analysis = analysis
        self.by_file: dict[str, list[Occurrence]] = {}
        seen: set[tuple] = set()
        for variant in analysis.variants:
            if variant.occurrences is None:     # an unchanged variant keeps its own
                variant.occurrences = [o for spec_file in variant.files for o in _occurrences(spec_file, variant)]
            for occurrence in variant.occurrences:
                if occurrence.key not in seen:
                    seen.add(occurrence.key)
                    self.by_file.setdefault(occurrence.file, []).append(occurrence)
        for spec_file, _ in analysis.loose.values():
            for decl in spec_file.decls:
                if decl.name_loc is not None and not isinstance(decl, ast.RemoveDecl):
                    path = resolved(spec_file.path)
                    self.by_file.setdefault(path, []).append(_at(path, decl.name_loc, decl_target(decl),
                                                                 definition=True, decl=decl))
        for found in self.by_file.values():
            found.sort(key=lambda o: (o.start, o.end))

    def at(self, path: str, line: int, column: int) -> Occurrence | None:
        """The narrowest occurrence at a position (1-based); at the end of a name counts as on it."""
        here = (line, column)
        found = [o for o in self.by_file.get(path, []) if o.start <= here <= o.end]
        return min(found, key=lambda o: (o.end[0] - o.start[0], o.end[1] - o.start[1]), default=None)

    def definitions(self, target: Target) -> list[Occurrence]:
        return [o for found in self.by_file.values() for o in found if o.definition and o.target == target]

    def references(self, target: Target, with_definitions: bool) -> list[Occurrence]:
        return [o for found in self.by_file.values() for o in found
                if o.target == target and (with_definitions or not o.definition)]

    def go_to(self, occurrence: Occurrence) -> list[Occurrence]:
        """Where a name is defined: a use goes to the declaration each variant reading it uses;
        `replace X` (or `remove X`) to the X of the layers before it; a plain declaration is its own."""
        target = occurrence.target
        if occurrence.definition and not (occurrence.decl is not None and occurrence.decl.replace):
            return [occurrence]
        definitions = self.definitions(target)
        if occurrence.definition or isinstance(occurrence.decl, ast.RemoveDecl):
            return self._earlier(occurrence, definitions)
        used = []
        for variant in self.analysis.variants_with(occurrence.file) or self.analysis.variants:
            decl = declared(variant, target)
            used += [d for d in definitions if decl is not None and d.decl is not None and _same_place(d.decl, decl)]
        return _unique(used) or definitions

    def _earlier(self, occurrence: Occurrence, definitions: list[Occurrence]) -> list[Occurrence]:
        """The definitions in files read before the occurrence's, in the variants that read it."""
        found = []
        for variant in self.analysis.variants_with(occurrence.file):
            order = variant.variant.files
            before = order[:order.index(occurrence.file)]
            found += [d for d in definitions if d.file in before]
        return _unique(found)

    def symbols(self) -> list[Occurrence]:
        return [o for found in self.by_file.values() for o in found if o.definition and o.decl is not None]


def _same_place(a: ast.Decl, b: ast.Decl) -> bool:
    return a.loc == b.loc and a.name == b.name


def _unique(found: list[Occurrence]) -> list[Occurrence]:
    return list({o.key: o for o in found}.values())


def _at(file: str, loc: Loc, target: Target, **fields_) -> Occurrence:
    return Occurrence(file, (loc.line, loc.column), (loc.end_line or loc.line, loc.end_column or loc.column),
                      target, **fields_)


def _occurrences(spec_file: ast.SpecFile, variant: VariantAnalysis):
    spec, file = variant.spec, resolved(spec_file.path)
    for decl in spec_file.decls:
        if decl.name_loc is None:
            continue
        if isinstance(decl, ast.RemoveDecl):
            yield _at(file, decl.name_loc, _removed(decl, spec), decl=decl)
            continue
        yield _at(file, decl.name_loc, decl_target(decl), definition=True, decl=decl)
        for root in _expressions(decl):
            yield from _expression_occurrences(file, root)
    for mention in spec_file.mentions:
        yield _at(file, mention.loc, _mentioned(mention, spec), definition=mention.definition)


def _removed(decl: ast.RemoveDecl, spec) -> Target:
    if decl.target_kind == "var" and decl.name in spec.player_vars:
        return Target("player_var", decl.name)
    return Target("move" if decl.target_kind == "on" else decl.target_kind, decl.name)


def _mentioned(mention: ast.Mention, spec) -> Target:
    if mention.kind == "var" and mention.name not in spec.vars:
        return Target("global", mention.name)        # `set turn = ...`: the machinery's
    if mention.kind == "type":
        return Target("enum" if mention.name in spec.enums else "type", mention.name)
    return Target(mention.kind, mention.name)


def _expressions(node):
    """The expressions directly in a declaration or statement (not those inside them)."""
    for item in fields(node):
        if item.name in ("loc", "name_loc", "extent", "sources"):
            continue
        yield from _roots(getattr(node, item.name))


def _roots(value):
    if isinstance(value, ast.Expr):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _roots(item)
    elif is_dataclass(value) and not isinstance(value, (ast.Type, Loc)):
        yield from _expressions(value)


def _expression_occurrences(file: str, root: ast.Expr):
    for node in ast.walk(root):
        if node.type is None:        # not resolved: in a declaration with an error, or used by no variant
            continue
        loc = node.loc
        if isinstance(node, ast.Name) and node.ref is not None:
            yield _at(file, loc, _named(node), type=str(node.type))
        elif isinstance(node, ast.Call) and node.ref is not None:
            start = Loc(loc.file, loc.line, loc.column, loc.line, loc.column + len(node.name))
            yield _at(file, start, _called(node), type=str(node.type))
            if node.ref[0] == "legal":
                yield _at(file, node.args[0].loc, Target("move", node.ref[1]))
        elif isinstance(node, ast.Attr) and node.obj.type is not None and loc.end_line:
            name = Loc(loc.file, loc.end_line, loc.end_column - len(node.name), loc.end_line, loc.end_column)
            yield _at(file, name, _attribute(node), type=str(node.type))


def _named(node: ast.Name) -> Target:
    kind, detail = node.ref
    if kind == "const":
        return Target(detail if detail in ("card", "family", "power") else "enum_value", node.name)
    if kind in ("var", "define", "decision", "global"):
        return Target(kind, node.name)
    return Target("local", node.name)


def _called(node: ast.Call) -> Target:
    kind = node.ref[0]
    return Target(kind if kind in ("define", "decision") else "function", node.name)


def _attribute(node: ast.Attr) -> Target:
    owner = str(node.obj.type)
    if owner == "player" and node.name not in ("slots", "position"):
        return Target("player_var", node.name)
    return Target("attribute", f"{owner}.{node.name}")
