"""What may be written at the cursor, read from the text before it on its line: a rule name
after `replace rule` or `remove rule`, an attribute after `.`, a move after `allow`, `refuse`,
`ask P:` or `on`, a family or power in a card, a HOW after `as`; anything else: the keywords
and every name of the project."""
from __future__ import annotations

import re
from dataclasses import dataclass

from baobei.dsl import schema
from baobei.dsl.ast import Type
from baobei.dsl.parser import keywords
from baobei.interpreter.moves import SHAPES

from .index import Index
from .project import Analysis


@dataclass(frozen=True)
class Suggestion:
    label: str
    kind: str           # keyword move rule card family power var define decision procedure enum_value
    detail: str = ""    # global function attribute


_CHANGED = re.compile(r"\b(?:replace|remove)\s+(rule|exception|default|family|card|enum|var|define|decision|claim"
                      r"|invariant|procedure|power|on)\s+[\w.]*$")
_ATTRIBUTE = re.compile(r"([a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)*)\.([a-z0-9_]*)$")
_MOVES = re.compile(r"(?:\b(?:allow|refuse)\s+(?:[a-z_]+\s*,\s*)*|\bask\b[^:]*:\s*(?:[a-z_]+\s*,\s*)*|^on\s+)[a-z_]*$")
_CARD_FIELD = re.compile(r"^\s*(?:replace\s+)?card\b.*\b(family|power)\s+[a-z0-9_]*$")
_AS_HOW = re.compile(r"\bas\s+[a-z_]*$")
_TABLES = {"rule": "rules", "exception": "rules", "default": "rules", "family": "families", "card": "cards",
           "enum": "enums", "var": "vars", "define": "defines", "decision": "decisions", "claim": "claims",
           "invariant": "invariants", "procedure": "procedures", "power": "powers", "on": "handlers"}


def spec_completions(index: Index, path: str, before: str) -> list[Suggestion]:
    """Suggestions in a .bao file; `before` is its line up to the cursor."""
    analysis = index.analysis
    changed = _CHANGED.search(before)
    if changed:
        kind = changed.group(1)
        return _names(analysis, _TABLES[kind], "rule" if kind in ("exception", "default") else kind)
    card_field = _CARD_FIELD.search(before)
    if card_field:
        field = card_field.group(1)
        return _names(analysis, "families" if field == "family" else "powers", field)
    attribute = _ATTRIBUTE.search(before)
    if attribute:
        return _attributes(index, path, attribute.group(1), analysis)
    if _MOVES.search(before):
        return [Suggestion(kind, "move") for kind in schema.MOVE_KINDS]
    if _AS_HOW.search(before):
        return _how_values(analysis)
    return _everything(analysis)


def scenario_completions(analysis: Analysis) -> list[Suggestion]:
    """In a scenario file: the cards and the moves."""
    return _names(analysis, "cards", "card") + [Suggestion(kind, "move") for kind in SHAPES]


def _names(analysis: Analysis, table: str, kind: str) -> list[Suggestion]:
    found = {}
    for variant in analysis.variants:
        for name, decl in getattr(variant.spec, table).items():
            found.setdefault(name, Suggestion(name, kind, f"{getattr(decl, 'level_name', kind)} · {decl.layer}"))
    return sorted(found.values(), key=lambda s: s.label)


def _how_values(analysis: Analysis) -> list[Suggestion]:
    values = {v for variant in analysis.variants if schema.HOW_ENUM in variant.spec.enums
              for v in variant.spec.enums[schema.HOW_ENUM].values}
    return [Suggestion(v, "enum_value", "how") for v in sorted(values)]


def _attributes(index: Index, path: str, chain: str, analysis: Analysis) -> list[Suggestion]:
    """The attributes of what the chain before the dot is, when that can be told."""
    first, *rest = chain.split(".")
    type_name = _type_of_name(index, path, first, analysis)
    for name in rest:
        type_name = _attribute_types(type_name, analysis).get(name) if type_name else None
    if type_name is None:       # unknown: every attribute of every kind of value
        table = {}
        for kind in ("player", "slot", "card", "reference"):
            table.update({name: f"{kind}.{name} : {t}" for name, t in _attribute_types(kind, analysis).items()})
        return [Suggestion(name, "attribute", detail) for name, detail in sorted(table.items())]
    return [Suggestion(name, "attribute", f"{type_name}.{name} : {t}")
            for name, t in sorted(_attribute_types(type_name, analysis).items())]


def _attribute_types(type_name: str, analysis: Analysis) -> dict[str, str]:
    table = {name: str(t) for name, t in schema.attributes(type_name, Type(schema.HOW_ENUM)).items()}
    if type_name == "player":
        for variant in analysis.variants:
            table.update({name: str(var.type) for name, var in variant.spec.player_vars.items()})
    return table


def _type_of_name(index: Index, path: str, name: str, analysis: Analysis) -> str | None:
    if name in schema.GLOBALS:
        return str(schema.GLOBALS[name][0])
    for variant in analysis.variants:
        spec = variant.spec
        if name in spec.vars:
            return str(spec.vars[name].type)
        if name in spec.decisions:
            return str(spec.decisions[name].type)
        if name in spec.defines and spec.defines[name].body is not None and spec.defines[name].body.type:
            return str(spec.defines[name].body.type)
        if name in spec.cards:
            return "card"
    # a local name: as it is typed where the file uses it
    typed = [o for o in index.by_file.get(path, []) if o.target.kind == "local" and o.target.name == name]
    return typed[-1].type if typed else None


def _everything(analysis: Analysis) -> list[Suggestion]:
    found = {word: Suggestion(word, "keyword") for word in keywords()}
    for name, (type_, what) in schema.GLOBALS.items():
        found[name] = Suggestion(name, "global", f"{type_}: {what}")
    for name in schema.FUNCTIONS:
        found[name] = Suggestion(name, "function", "given by the machinery")
    for table, kind in (("cards", "card"), ("families", "family"), ("powers", "power"), ("vars", "var"),
                        ("defines", "define"), ("decisions", "decision"), ("procedures", "procedure")):
        for suggestion in _names(analysis, table, kind):
            found.setdefault(suggestion.label, suggestion)
    for variant in analysis.variants:
        for value, enum in variant.spec.enum_of.items():
            found.setdefault(value, Suggestion(value, "enum_value", enum))
    return sorted(found.values(), key=lambda s: s.label)
