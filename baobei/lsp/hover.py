"""What a hover says (Markdown): on a rule, its level and layer, its citations with the
rulebook paragraph around each, and the other variants' version when they differ; on a card,
its value, family and power; on a name in an expression, its type and its declaration."""
from __future__ import annotations

import copy
from pathlib import Path

from baobei.dsl import ast, schema, unparse
from baobei.dsl.errors import shown_path
from baobei.dsl.resolve import normalise_quotation

from .index import Index, Occurrence, declared
from .project import Analysis

PARAGRAPH_SHOWN = 700       # characters of a rulebook paragraph, at most


def hover_text(index: Index, occurrence: Occurrence) -> str | None:
    target = occurrence.target
    analysis = index.analysis
    if target.kind == "rule":
        return _versions(analysis, occurrence, _rule_section)
    if target.kind in ("card", "family", "power", "procedure", "claim", "invariant", "enum", "var", "player_var",
                       "define", "decision", "move"):
        text = _versions(analysis, occurrence, _declaration_section)
        return _typed(occurrence) + (text or f"`{target.name}`: no {target.kind} of that name")
    if target.kind == "enum_value":
        enum = next((v.spec.enums[v.spec.enum_of[target.name]] for v in analysis.variants
                     if target.name in v.spec.enum_of), None)
        where = f"a value of `enum {enum.name}` = {' | '.join(enum.values)}" if enum else "an enum value"
        return f"`{target.name}`: {where}"
    if target.kind == "global":
        type_, what = schema.GLOBALS.get(target.name, (occurrence.type, ""))
        return f"`{target.name} : {type_}` — {what} (given by the machinery)"
    if target.kind == "function":
        return _function(target.name, occurrence.type)
    if target.kind in ("attribute", "local"):
        return f"`{target.name} : {occurrence.type}`" + (" (a local name)" if target.kind == "local" else "")
    if target.kind == "type":
        return f"type `{target.name}`"
    return None


def _typed(occurrence: Occurrence) -> str:
    if occurrence.definition or occurrence.type is None:
        return ""
    return f"`{occurrence.target.name} : {occurrence.type}`\n\n"


def _versions(analysis: Analysis, occurrence: Occurrence, section) -> str | None:
    """The declaration the hover is about, then each different one another variant uses."""
    target = occurrence.target
    used: list[tuple[ast.Decl, list[str]]] = []        # a declaration and the variants using it
    for variant in analysis.variants:
        decl = declared(variant, target)
        if decl is None:
            continue
        same = next((entry for entry in used if entry[0].loc == decl.loc), None)
        if same is None:
            used.append((decl, [variant.variant.name]))
        else:
            same[1].append(variant.variant.name)
    if occurrence.decl is not None and not isinstance(occurrence.decl, ast.RemoveDecl) and \
            not any(decl.loc == occurrence.decl.loc for decl, _ in used):
        used.insert(0, (occurrence.decl, []))
    if not used:
        return None
    here = occurrence.decl.loc if occurrence.definition and occurrence.decl is not None else None
    used.sort(key=lambda entry: entry[0].loc != here)
    missing = [v.variant.name for v in analysis.variants if declared(v, target) is None]
    parts = [section(decl, names, analysis, first=index == 0) for index, (decl, names) in enumerate(used)]
    if missing and target.kind in ("rule", "card", "define", "procedure", "power", "decision"):
        parts.append(f"*not in {', '.join(missing)}*")
    return "\n\n---\n\n".join(parts)


def _used_by(decl: ast.Decl, variants: list[str]) -> str:
    where = f"layer {decl.layer}, " if decl.layer else ""
    using = f" — used by {', '.join(variants)}" if variants else " — used by no variant (replaced)"
    return f"{where}{shown_path(decl.loc.file)}:{decl.loc.line}{using}"


def _rule_section(decl: ast.RuleDecl, variants: list[str], analysis: Analysis, first: bool) -> str:
    title = f"**{decl.level_name}** `{decl.name}`" if first else f"**in {', '.join(variants)}**: {decl.level_name}"
    lines = [f"{title} · {_used_by(decl, variants)}", "", "```bao", unparse.declaration_text(_without_sources(decl)),
             "```"]
    return "\n".join(lines + _citations(decl, analysis))


def _declaration_section(decl: ast.Decl, variants: list[str], analysis: Analysis, first: bool) -> str:
    text = unparse.declaration_text(_without_sources(decl))
    title = f"**{decl.kind}** `{decl.name}`" if first else f"**in {', '.join(variants)}**"
    lines = [f"{title} · {_used_by(decl, variants)}", "", "```bao", text, "```"]
    if isinstance(decl, ast.CardDecl):
        lines += _card(decl, analysis)
    if isinstance(decl, ast.FamilyDecl):
        lines += _members(analysis, "family", decl.name)
    if isinstance(decl, ast.PowerDecl):
        lines += _members(analysis, "power", decl.name)
    return "\n".join(lines + _citations(decl, analysis))


def _without_sources(decl: ast.Decl) -> ast.Decl:
    """The declaration as printed in a hover: its citations come below, with their paragraphs."""
    bare = copy.copy(decl)
    bare.sources = []
    return bare


def _card(card: ast.CardDecl, analysis: Analysis) -> list[str]:
    power = next((v.spec.powers[card.power] for v in analysis.variants if card.power in v.spec.powers), None)
    said = f"power `{card.power}`: {power.description}" if power else "no power"
    return ["", f"value **{card.value}** · family `{card.family}` · {said}"]


def _members(analysis: Analysis, field: str, name: str) -> list[str]:
    cards = sorted({c.name for v in analysis.variants for c in v.spec.cards.values() if getattr(c, field) == name})
    return ["", "cards: " + (", ".join(f"`{c}`" for c in cards) if cards else "none")]


def _citations(decl: ast.Decl, analysis: Analysis) -> list[str]:
    lines = []
    for source in decl.sources:
        if isinstance(source, (ast.Assumed, ast.Reading)):
            lines += ["", f"*{'reading' if isinstance(source, ast.Reading) else 'assumed'}*: {source.text}"]
            continue
        lines += ["", f"**cite {source.edition}**: «{source.text}»"]
        paragraph = _paragraph(analysis, source)
        if paragraph:
            lines.append("> " + paragraph)
    return lines


def _paragraph(analysis: Analysis, cite: ast.Cite) -> str | None:
    """The rulebook paragraph a quotation comes from (paragraphs are separated by blank lines)."""
    if analysis.config is None:
        return None
    path = analysis.config.spec_dir / "rulebooks" / f"{cite.edition}.txt"
    quote = normalise_quotation(cite.text)
    for paragraph in _paragraphs(path):
        if quote in normalise_quotation(paragraph):
            text = " ".join(paragraph.split())
            return text if len(text) <= PARAGRAPH_SHOWN else text[:PARAGRAPH_SHOWN] + " …"
    return None


_BOOKS: dict[tuple, list[str]] = {}


def _paragraphs(path: Path) -> list[str]:
    try:
        info = path.stat()
    except OSError:
        return []
    key = (str(path), info.st_mtime_ns, info.st_size)
    if key not in _BOOKS:
        text = path.read_text(encoding="utf-8")
        _BOOKS[key] = [p for p in text.replace("\r\n", "\n").split("\n\n") if p.strip()]
    return _BOOKS[key]


def _function(name: str, result: str | None) -> str:
    if name in schema.FUNCTIONS:
        params, returned = schema.FUNCTIONS[name]
        shown = ", ".join("list" if p is None else str(p) for p in params)
        return f"`{name}({shown}) : {returned}` (given by the machinery)"
    return f"`{name}(...)`" + (f" : {result}" if result else "")

