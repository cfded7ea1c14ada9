"""Compile the rules' expressions into Python functions, once per spec.

Each condition of the spec becomes Python source (a closure over the state `S`,
the move context `C` and the procedure locals `L`) so that evaluating a rule is
one function call, not a walk of the tree. The meaning is the one the checker
gives the same trees in Z3: total, side-effect free, none for missing values.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

from baobei.dsl import ast
from baobei.dsl.errors import RuleRuntimeError
from baobei.dsl.model import Spec, expr_text

from .state import CardKind

# Default of each type where a value is missing (an attribute of none).
DEFAULTS = {"int": "0", "bool": "False", "list": "()"}


def default_of(type_: ast.Type) -> str:
    return DEFAULTS.get(type_.name, "None")


# ---- runtime helpers the generated code calls -----------------------------------------

def _cardobj(s):
    if s is None:
        return None
    layout = s[0].layout
    n = s[1]
    return layout[n - 1] if 0 < n <= len(layout) else None


def _card(s):
    c = _cardobj(s)
    return c.kind if c is not None else None


def _occupied(s):
    return _cardobj(s) is not None


def _empty(s):
    if s is None:
        return False
    layout = s[0].layout
    n = s[1]
    return 0 < n <= len(layout) and layout[n - 1] is None


def _new(s):
    return s is not None and s[1] == len(s[0].layout) + 1


def _owner(s):
    return s[0] if s is not None else None


def _number(s):
    return s[1] if s is not None else 0


def _mturn(s):
    c = _cardobj(s)
    return c.moved_turn if c is not None else -1


def _mseq(s):
    c = _cardobj(s)
    return c.moved_sequence if c is not None else -1


def _mby(s):
    c = _cardobj(s)
    return c.moved_by if c is not None else None


def _value(k):
    return k.value if k is not None else 0


def _family(k):
    return k.family if k is not None else None


def _kpower(k):
    return k.power if k is not None else None


def _slots(p):
    return p.slots() if p is not None else ()


def _position(p):
    return p.index + 1 if p is not None else 0


def _pv(p, name, default):
    return p.vars[name] if p is not None else default


def _rcard(r):
    return r.card if r is not None else None


def _rhow(r):
    return r.how if r is not None else None


def _rby(r):
    return r.by if r is not None else None


def _ropen(r):
    return r.open if r is not None else False


def _fires(result):
    """A trigger decision: a rule fires the role (a default decides that nothing fires)."""
    return result is not None and result[0] is not None


def _allows(rule):
    """A legality verdict: the deciding rule allows (no rule deciding is a refusal)."""
    return rule is not None and rule.allow


HELPERS = {name: value for name, value in globals().items() if name.startswith("_") and callable(value)
           and name not in ("__import__",)}

GLOBAL_CODE = {
    "players": "S.players", "order": "S.order", "slots": "S.all_slots()", "active": "S.active",
    "actor": "C.actor", "user": "C.user", "power": "C.power", "chosen": "C.chosen",
    "targets": "C.targets", "target": "C.target", "second": "C.second",
    "held": "S.held_kinds()", "reference": "S.ref", "turn": "S.turn", "sequence": "S.sequence",
    "deck_size": "len(S.deck)", "discard_size": "len(S.discard)", "under_size": "len(S.under)",
    "threshold": "S.threshold", "edition_deal": "S.edition_deal", "tiebreak": "S.tiebreak",
    "lot": "S.lot",
}
SLOT_ATTRS = {"owner": "_owner", "number": "_number", "card": "_card", "occupied": "_occupied",
              "empty": "_empty", "new": "_new", "moved_turn": "_mturn", "moved_sequence": "_mseq",
              "moved_by": "_mby"}
CARD_ATTRS = {"value": "_value", "family": "_family", "power": "_kpower"}
REF_ATTRS = {"card": "_rcard", "how": "_rhow", "by": "_rby", "open": "_ropen"}
# A quantifier's variable over `p.slots` or `slots` is always an existing slot: read it directly.
VALID_SLOT_ATTRS = {"occupied": "({s}[0].layout[{s}[1] - 1] is not None)",
                    "empty": "({s}[0].layout[{s}[1] - 1] is None)",
                    "owner": "{s}[0]", "number": "{s}[1]", "new": "False"}


def _invoke(kind: str, name: str, args: list[str]) -> str:
    """The call of a compiled definition (D_) or decision (X_)."""
    prefix = "D_" if kind == "define" else "X_"
    return f"{prefix}{name}(S, C{''.join(', ' + a for a in args)})"


def _existing_slots(domain) -> bool:
    return (isinstance(domain, ast.Attr) and domain.name == "slots" and domain.obj.type.name == "player") or \
        (isinstance(domain, ast.Name) and domain.ref == ("global", "slots"))


@dataclass
class RuleRef:
    """A compiled rule: its verdict or value and where it is written."""

    decl: ast.RuleDecl
    allow: bool | None = None

    @property
    def name(self) -> str:
        return self.decl.name


class Compiled:
    """Every function the spec compiles to, sharing one namespace."""

    def __init__(self, spec: Spec):
        self.spec = spec
        self.kinds = {name: CardKind(name, decl.value, decl.family, decl.power) for name, decl in spec.cards.items()}
        self.ns: dict = dict(HELPERS)
        self.ns["RuleRuntimeError"] = RuleRuntimeError
        for name, kind in self.kinds.items():
            self.ns["K_" + name] = kind
        self._counter = itertools.count()
        self.sources: list[str] = []
        self.valid_slots: set[str] = set()
        for name in spec.defines:
            self._define(name)
        for name in spec.decisions:
            self._decision(name)
        self.legal = {}
        self.legal_all = {}
        from baobei.dsl.schema import MOVE_KINDS
        for kind in MOVE_KINDS:
            self.legal[kind], self.legal_all[kind] = self._legality(kind)
        self.fire_groups = self._fire_groups()
        self.var_init = {name: self.lambda_(decl.init) for name, decl in spec.vars.items()}
        self.player_var_init = {name: self.lambda_(decl.init) for name, decl in spec.player_vars.items()}
        self.ns["LEGAL"] = self.legal
        self.ns["FIRES"] = {role: fn for role, fn in self.fire_groups}

    # -- code generation -------------------------------------------------------------------
    def fresh(self, stem: str) -> str:
        return f"{stem}{next(self._counter)}"

    def code(self, expr: ast.Expr, scope: dict[str, str]) -> str:
        if isinstance(expr, ast.IntLit):
            return repr(expr.value)
        if isinstance(expr, ast.BoolLit):
            return repr(expr.value)
        if isinstance(expr, ast.NoneLit):
            return "None"
        if isinstance(expr, ast.Name):
            return self.name_code(expr, scope)
        if isinstance(expr, ast.Attr):
            return self.attr_code(expr, scope)
        if isinstance(expr, ast.Call):
            return self.call_code(expr, scope)
        if isinstance(expr, ast.Unary):
            inner = self.code(expr.operand, scope)
            return f"(not {inner})" if expr.op == "not" else f"(-{inner})"
        if isinstance(expr, ast.Binary):
            return self.binary_code(expr, scope)
        if isinstance(expr, ast.Quant):
            return self.quant_code(expr, scope)
        if isinstance(expr, ast.IfExpr):
            return f"({self.code(expr.then, scope)} if {self.code(expr.cond, scope)} else " \
                   f"{self.code(expr.other, scope)})"
        raise TypeError(f"cannot compile {type(expr).__name__}")  # pragma: no cover

    def name_code(self, expr: ast.Name, scope: dict[str, str]) -> str:
        kind, detail = expr.ref
        if kind == "local":
            return scope[expr.name]
        if kind == "var":
            return f"S.vars[{expr.name!r}]"
        if kind in ("define", "decision"):
            return _invoke(kind, expr.name, [])
        if kind == "global":
            return GLOBAL_CODE[expr.name]
        if detail == "card":
            return "K_" + expr.name
        return repr(expr.name)  # enum values, families, powers are their names

    def attr_code(self, expr: ast.Attr, scope: dict[str, str]) -> str:
        obj_type = expr.obj.type.name
        name = expr.name
        if obj_type == "reference" and isinstance(expr.obj, ast.Name) and expr.obj.name == "reference":
            return f"S.ref.{name}"  # the current reference always exists
        obj = self.code(expr.obj, scope)
        if obj_type == "slot":
            if obj in self.valid_slots:
                fast = VALID_SLOT_ATTRS.get(name)
                if fast is not None:
                    return fast.format(s=obj)
            return f"{SLOT_ATTRS[name]}({obj})"
        if obj_type == "card":
            return f"{CARD_ATTRS[name]}({obj})"
        if obj_type == "reference":
            return f"{REF_ATTRS[name]}({obj})"
        if obj_type == "player":
            if name == "slots":
                return f"_slots({obj})"
            if name == "position":
                return f"_position({obj})"
            var = self.spec.player_vars[name]
            return f"_pv({obj}, {name!r}, {default_of(var.type)})"
        raise TypeError(f"no attribute {name} on {obj_type}")  # pragma: no cover

    def call_code(self, expr: ast.Call, scope: dict[str, str]) -> str:
        kind, detail = expr.ref
        args = [self.code(arg, scope) for arg in expr.args]
        if kind in ("define", "decision"):
            return _invoke(kind, expr.name, args)
        if kind == "legal":
            return f"_allows(LEGAL[{detail!r}](S, C))"
        if kind == "effects":
            return "True"  # proved by the checker (checker/effects.py), checked in play by the invariants
        if kind == "fires":
            role = expr_text(expr.args[0])
            return f"_fires(FIRES[{role!r}](S, C))" if role in dict(self.fire_groups) else "False"
        if expr.name == "count":
            return f"len({args[0]})"
        if expr.name in ("min", "max"):
            return f"{expr.name}({args[0]}, {args[1]})"
        return f"S.{expr.name}({', '.join(args)})"

    def binary_code(self, expr: ast.Binary, scope: dict[str, str]) -> str:
        op = expr.op
        left = self.code(expr.left, scope)
        if op == "in" and isinstance(expr.right, ast.SetLit):
            items = ", ".join(self.code(item, scope) for item in expr.right.items)
            return f"({left} in ({items},))"
        right = self.code(expr.right, scope)
        if op == "implies":
            return f"((not {left}) or {right})"
        if op in ("and", "or"):
            return f"({left} {op} {right})"
        return f"({left} {op} {right})"

    def quant_code(self, expr: ast.Quant, scope: dict[str, str]) -> str:
        var = self.fresh("q")
        domain = self.code(expr.domain, scope)
        if _existing_slots(expr.domain):
            self.valid_slots.add(var)   # a slot of a layout's own list: no bounds to check
        body = self.code(expr.body, {**scope, expr.var: var})
        if expr.kind == "all":
            return f"all({body} for {var} in {domain})"
        if expr.kind == "any":
            return f"any({body} for {var} in {domain})"
        if expr.kind == "count":
            return f"sum(1 for {var} in {domain} if {body})"
        if expr.kind == "sum":
            return f"sum({body} for {var} in {domain})"
        return f"next(({var} for {var} in {domain} if {body}), None)"

    def function(self, name: str, params: list[str], body_lines: list[str]) -> object:
        source = f"def {name}({', '.join(params)}):\n" + "\n".join("    " + line for line in body_lines) + "\n"
        self.sources.append(source)
        exec(compile(source, f"<spec:{name}>", "exec"), self.ns)
        return self.ns[name]

    def lambda_(self, expr: ast.Expr, scope: dict[str, str] | None = None):
        """A function (S, C, L) -> value for an expression inside a procedure."""
        return self.function(self.fresh("E_"), ["S", "C", "L"], [f"return {self.code(expr, scope or {})}"])

    # -- definitions, decisions, legality, triggers -----------------------------------------
    def _define(self, name: str) -> None:
        decl = self.spec.defines[name]
        scope = {p.name: "a_" + p.name for p in decl.params}
        self.function("D_" + name, ["S", "C"] + list(scope.values()), [f"return {self.code(decl.body, scope)}"])

    def _decision(self, name: str) -> None:
        decl = self.spec.decisions[name]
        rules = self.spec.value_rules(name)
        params = ["a_" + p.name for p in decl.params]
        lines = []
        for rule in self.spec.first_match(rules):
            scope = dict(zip(rule.body.params, params))
            cond = self.code(rule.when, scope) if rule.when is not None else "True"
            lines.append(f"if {cond}:")
            lines.append(f"    return {self.code(rule.body.value, scope)}")
        self.ns["GAP_" + name] = f"no rule decides '{name}' here (rules: " + \
            ", ".join(r.name for r in rules) + ")"
        lines.append(f"raise RuleRuntimeError(GAP_{name})")
        self.function("X_" + name, ["S", "C"] + params, lines)

    def _legality(self, kind: str):
        """(first-match function, all-applicable function) for a move kind.

        The first returns the deciding RuleRef (or None when no rule decides);
        exceptions are tried before rules, rules before defaults.
        """
        rules = self.spec.first_match(self.spec.legality_rules(kind))
        refs = [RuleRef(rule, rule.body.allow) for rule in rules]
        table = self.fresh(f"R_{kind}_")
        self.ns[table] = refs
        first, every = [], ["found = []"]
        for index, rule in enumerate(rules):
            cond = self.code(rule.when, {}) if rule.when is not None else "True"
            first += [f"if {cond}:", f"    return {table}[{index}]"]
            every += [f"if {cond}:", f"    found.append({table}[{index}])"]
        first.append("return None")
        every.append("return found")
        decide = self.function(f"L_{kind}", ["S", "C"], first)
        applicable = self.function(f"A_{kind}", ["S", "C"], every)
        return decide, applicable

    def _fire_groups(self):
        """[(role text, function)] each returning (card kind or None, user, rank, deciding rule),
        or None when no rule decides."""
        groups: dict[str, list[ast.RuleDecl]] = {}
        defaults = []
        for rule in self.spec.fire_rules():
            if isinstance(rule.body.role, ast.NoneLit):
                defaults.append(rule)
            else:
                groups.setdefault(expr_text(rule.body.role), []).append(rule)
        result = []
        for role, rules in groups.items():
            table = self.fresh("F_")
            ordered = self.spec.first_match(rules + defaults)
            self.ns[table] = ordered
            lines = []
            for index, rule in enumerate(ordered):
                cond = self.code(rule.when, {}) if rule.when is not None else "True"
                lines.append(f"if {cond}:")
                if isinstance(rule.body.role, ast.NoneLit):  # a default: nothing fires, by this rule
                    lines.append(f"    return (None, None, 0, {table}[{index}])")
                else:
                    card = self.code(rule.body.role, {})
                    user = self.code(rule.body.user, {})
                    lines.append(f"    return ({card}, {user}, {rule.body.rank}, {table}[{index}])")
            lines.append("return None")
            result.append((role, self.function(self.fresh("FIRE_"), ["S", "C"], lines)))
        return result
