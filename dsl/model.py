"""A resolved spec: the checked declarations of some layers, ready for both backends."""
from __future__ import annotations

from dataclasses import dataclass, field

from . import ast


@dataclass
class Spec:
    layers: list[str]
    spec_dir: str
    families: dict[str, ast.FamilyDecl] = field(default_factory=dict)
    cards: dict[str, ast.CardDecl] = field(default_factory=dict)
    enums: dict[str, ast.EnumDecl] = field(default_factory=dict)
    enum_of: dict[str, str] = field(default_factory=dict)            # constant -> enum name
    vars: dict[str, ast.VarDecl] = field(default_factory=dict)       # table-wide variables
    player_vars: dict[str, ast.VarDecl] = field(default_factory=dict)
    defines: dict[str, ast.DefineDecl] = field(default_factory=dict)
    decisions: dict[str, ast.DecisionDecl] = field(default_factory=dict)
    rules: dict[str, ast.RuleDecl] = field(default_factory=dict)
    claims: dict[str, ast.ClaimDecl] = field(default_factory=dict)
    invariants: dict[str, ast.InvariantDecl] = field(default_factory=dict)
    procedures: dict[str, ast.ProcedureDecl] = field(default_factory=dict)
    powers: dict[str, ast.PowerDecl] = field(default_factory=dict)
    handlers: dict[str, ast.HandlerDecl] = field(default_factory=dict)
    precedences: dict[str, ast.PrecedenceDecl] = field(default_factory=dict)

    # -- which rule decides first -------------------------------------------------------
    def first_match(self, rules: list[ast.RuleDecl]) -> list[ast.RuleDecl]:
        """The order in which rules are tried, the first that applies deciding: exceptions,
        then rules, then defaults; within a level a rule some precedence puts over another
        comes before it; otherwise the order they are written in."""
        ordered = []
        for level in (2, 1, 0):
            waiting = [r for r in rules if r.level == level]
            while waiting:
                ready = next(r for r in waiting if not any(self.preferred(other, r) for other in waiting
                                                           if other is not r))
                ordered.append(ready)
                waiting.remove(ready)
        return ordered

    def preferred(self, higher: ast.RuleDecl, lower: ast.RuleDecl) -> bool:
        """Whether precedences (followed through) put `higher` over `lower`."""
        seen, frontier = set(), [higher.name]
        while frontier:
            name = frontier.pop()
            for decl in self.precedences.values():
                if decl.higher == name and decl.lower not in seen:
                    if decl.lower == lower.name:
                        return True
                    seen.add(decl.lower)
                    frontier.append(decl.lower)
        return False

    def settled(self, a: ast.RuleDecl, b: ast.RuleDecl) -> bool:
        """Whether a precedence says which of two rules decides where both apply."""
        return self.preferred(a, b) or self.preferred(b, a)

    def stronger(self, rule: ast.RuleDecl, rules: list[ast.RuleDecl]) -> list[ast.RuleDecl]:
        """The rules that decide before this one where both apply: a higher level, or a precedence."""
        return [r for r in rules if r is not rule and (r.level > rule.level or
                                                        r.level == rule.level and self.preferred(r, rule))]

    def readings(self) -> list[ast.Decl]:
        """Every declaration that records a reading: the choice the spec makes where the texts
        leave room (precedences included)."""
        tables = (self.rules, self.precedences, self.defines, self.decisions, self.claims, self.invariants,
                  self.procedures, self.powers, self.handlers, self.cards, self.families, self.vars,
                  self.player_vars)
        return [decl for table in tables for decl in table.values()
                if isinstance(decl, ast.PrecedenceDecl) or any(isinstance(s, ast.Reading) for s in decl.sources)]
    key: str = ""          # a hash of the files it was read from (the loader's), naming what is derived from it
    content: str = ""      # a hash of their contents alone: a copy elsewhere has the same

    # -- the decisions, grouped ------------------------------------------------------
    def legality_rules(self, kind: str) -> list[ast.RuleDecl]:
        return [r for r in self.rules.values() if isinstance(r.body, ast.Verdict) and kind in r.body.moves]

    def fire_rules(self) -> list[ast.RuleDecl]:
        return [r for r in self.rules.values() if isinstance(r.body, ast.Fire)]

    def value_rules(self, decision: str) -> list[ast.RuleDecl]:
        return [r for r in self.rules.values() if isinstance(r.body, ast.Value) and r.body.decision == decision]

    def decision_keys(self) -> list[tuple[str, str]]:
        """Every decision the rules make: ("legal", kind), ("fire", role text), ("value", name)."""
        keys: list[tuple[str, str]] = []
        for rule in self.rules.values():
            for key in rule_keys(rule):
                if key not in keys and key[0] != "fire-default":
                    keys.append(key)
        for name in self.decisions:
            if ("value", name) not in keys:
                keys.append(("value", name))
        return keys

    @property
    def how_values(self) -> list[str]:
        return self.enums["how"].values


def rule_keys(rule: ast.RuleDecl) -> list[tuple[str, str]]:
    """The decisions a rule takes part in."""
    body = rule.body
    if isinstance(body, ast.Verdict):
        return [("legal", move) for move in body.moves]
    return [rule_key(rule)]


def rule_key(rule: ast.RuleDecl) -> tuple[str, str]:
    body = rule.body
    if isinstance(body, ast.Verdict):
        return ("legal", body.moves[0])
    if isinstance(body, ast.Fire):
        if isinstance(body.role, ast.NoneLit):
            return ("fire-default", "")
        return ("fire", expr_text(body.role))
    assert isinstance(body, ast.Value)
    return ("value", body.decision)


def expr_text(expr: ast.Expr) -> str:
    """A canonical text of an expression: how rules name the same role."""
    if isinstance(expr, ast.Name):
        return expr.name
    if isinstance(expr, ast.Attr):
        return f"{expr_text(expr.obj)}.{expr.name}"
    if isinstance(expr, ast.IntLit):
        return str(expr.value)
    if isinstance(expr, ast.NoneLit):
        return "none"
    if isinstance(expr, ast.Call):
        return f"{expr.name}({', '.join(expr_text(a) for a in expr.args)})"
    return f"<{type(expr).__name__}>"
