"""What a trace or an explanation says about a declaration: where it is written, its level, and
the rulebook passages it cites, in the variant's language first.

A variant's language is its last edition layer (`fr` for core+fr, `de` for core+de+house); a
rule's citations of that edition are shown, the other editions' only where it has none (or
when every citation is asked for). `assumed` and `reading` are always shown: they say what the
spec chose.
"""
from __future__ import annotations

from baobei.dsl import ast
from baobei.dsl.model import Spec


def editions_cited(spec: Spec) -> set[str]:
    tables = (spec.rules, spec.procedures, spec.handlers, spec.powers, spec.precedences, spec.defines)
    return {source.edition for table in tables for decl in table.values() for source in decl.sources
            if isinstance(source, ast.Cite)}


def language_of(spec: Spec) -> str | None:
    """The edition a variant's citations are shown in: its last layer that is an edition."""
    editions = editions_cited(spec)
    return next((layer for layer in reversed(spec.layers) if layer in editions), None)


def shown_sources(decl: ast.Decl, language: str | None, every: bool = False) -> list[ast.Source]:
    """The citations to show: the language's (all editions' where it has none, or with `every`, the
    language's first), then what the spec assumed or read."""
    cites = [s for s in decl.sources if isinstance(s, ast.Cite)]
    own = [c for c in cites if c.edition == language]
    if every or not own:
        own += [c for c in cites if c not in own]
    return own + [s for s in decl.sources if not isinstance(s, ast.Cite)]


def source_json(source: ast.Source) -> dict:
    if isinstance(source, ast.Cite):
        return {"edition": source.edition, "text": source.text}
    if isinstance(source, ast.Reading):
        return {"reading": source.text}
    return {"assumed": source.text}


def source_text(source: ast.Source) -> str:
    if isinstance(source, ast.Cite):
        return f'{source.edition}: "{source.text}"'
    if isinstance(source, ast.Reading):
        return f"reading: {source.text}"
    return f"assumed: {source.text}"


def rule_title(rule: ast.RuleDecl) -> str:
    """'exception pluck.one_attempt_per_reference (spec/core/pluck.bao:25:1)'"""
    return f"{rule.level_name} {rule.name} ({rule.loc})"


class Citer:
    """The citations of one variant's declarations, as a trace or an explanation shows them."""

    def __init__(self, spec: Spec, every: bool = False):
        self.spec = spec
        self.language = language_of(spec)
        self.every = every

    def sources(self, decl: ast.Decl) -> list[ast.Source]:
        return shown_sources(decl, self.language, self.every)

    def json(self, decl: ast.Decl) -> list[dict]:
        return [source_json(s) for s in self.sources(decl)]

    def lines(self, decl: ast.Decl, indent: str) -> list[str]:
        return [indent + source_text(s) for s in self.sources(decl)]

    def rule_json(self, rule: ast.RuleDecl) -> dict:
        return {"rule": rule.name, "level": rule.level_name, "loc": str(rule.loc), "cites": self.json(rule)}
