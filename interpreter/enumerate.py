"""Legal moves, fast: each kind's legality rules compiled into staged loops.

The rules of a move kind are specialised for each number of targets (count(targets)
becomes a number, quantifiers over the targets are unrolled), split into their
conjuncts, and each conjunct is evaluated at the outermost loop where all it reads
is known: the actor first, then the first target (or the chosen player), then the
second. A loop level is skipped as soon as no allowing rule can still apply, or an
exception that comes before every allowing rule already applies. The verdict for
each move is exactly the first-match verdict of compile.py; only the work differs.
"""
from __future__ import annotations

from baobei.dsl import ast
from baobei.dsl.ast import BOOL, INT, NONE, SLOT
from baobei.dsl.schema import MOVE_KINDS

from .compile import Compiled
from .moves import SHAPES

T1, T2, CH = "target", "second", "chosen"


# ---- specialising an expression to a number of targets ---------------------------------------

def _name(name: str, type_) -> ast.Name:
    node = ast.Name(ast.Loc("<staged>"), name)
    node.type = type_
    node.ref = ("global", name)
    return node


def _typed(node, type_):
    node.type = type_
    return node


def _bool(value: bool) -> ast.BoolLit:
    return _typed(ast.BoolLit(ast.Loc("<staged>"), value), BOOL)


def _is_targets(expr) -> bool:
    return isinstance(expr, ast.Name) and expr.ref == ("global", "targets")


def _substitute(expr, var: str, replacement):
    """expr with the local `var` replaced (quantifier variables are never shadowed in practice,
    and we stop at a quantifier that rebinds the same name)."""
    if isinstance(expr, ast.Name):
        if expr.name == var and expr.ref and expr.ref[0] == "local":
            return replacement
        return expr
    return _map(expr, lambda e: _substitute(e, var, replacement),
                stop=lambda e: isinstance(e, ast.Quant) and e.var == var)


def _map(expr, fn, stop=lambda e: False):
    """A copy of expr with fn applied to its direct sub-expressions."""
    if stop(expr):
        copy = _clone(expr)
        if isinstance(expr, ast.Quant):
            copy.domain = fn(expr.domain)
        return copy
    copy = _clone(expr)
    if isinstance(expr, ast.Attr):
        copy.obj = fn(expr.obj)
    elif isinstance(expr, ast.Call):
        copy.args = [fn(a) for a in expr.args]
    elif isinstance(expr, ast.Unary):
        copy.operand = fn(expr.operand)
    elif isinstance(expr, ast.Binary):
        copy.left, copy.right = fn(expr.left), fn(expr.right)
    elif isinstance(expr, ast.SetLit):
        copy.items = [fn(i) for i in expr.items]
    elif isinstance(expr, ast.Quant):
        copy.domain, copy.body = fn(expr.domain), fn(expr.body)
    elif isinstance(expr, ast.IfExpr):
        copy.cond, copy.then, copy.other = fn(expr.cond), fn(expr.then), fn(expr.other)
    return copy


def _clone(expr):
    copy = object.__new__(type(expr))
    copy.__dict__.update(expr.__dict__)
    return copy


def specialise(expr, arity: int):
    """expr for moves with exactly `arity` targets."""
    slots = [_name(T1, SLOT), _name(T2, SLOT)][:arity]

    def walk(e):
        if isinstance(e, ast.Name) and e.ref and e.ref[0] == "global":
            if e.name == T1 and arity < 1 or e.name == T2 and arity < 2:
                return _typed(ast.NoneLit(e.loc), NONE)
            return e
        if isinstance(e, ast.Call) and e.name == "count" and len(e.args) == 1 and _is_targets(e.args[0]):
            return _typed(ast.IntLit(e.loc, arity), INT)
        if isinstance(e, ast.Binary) and e.op == "in" and _is_targets(e.right):
            left = walk(e.left)
            return _any([_typed(ast.Binary(e.loc, "==", left, slot), BOOL) for slot in slots])
        if isinstance(e, ast.Quant) and _is_targets(e.domain):
            bodies = [walk(_substitute(e.body, e.var, slot)) for slot in slots]
            if e.kind == "all":
                return _all(bodies)
            if e.kind == "any":
                return _any(bodies)
            if e.kind in ("count", "sum"):
                terms = bodies if e.kind == "sum" else [
                    _typed(ast.IfExpr(e.loc, b, _typed(ast.IntLit(e.loc, 1), INT), _typed(ast.IntLit(e.loc, 0), INT)),
                           INT) for b in bodies]
                total = _typed(ast.IntLit(e.loc, 0), INT)
                for term in terms:
                    total = _typed(ast.Binary(e.loc, "+", total, term), INT)
                return total
            return _map(e, walk)  # `first` over targets: rare, keep the loop
        return _map(e, walk)
    return fold(walk(expr))


def _join(op: str, items: list, empty: bool):
    if not items:
        return _bool(empty)
    expr = items[0]
    for item in items[1:]:
        expr = _typed(ast.Binary(item.loc, op, expr, item), BOOL)
    return expr


def _all(items):
    return _join("and", items, True)


def _any(items):
    return _join("or", items, False)


def fold(expr):
    """Constant folding of what specialisation made constant."""
    expr = _map(expr, fold)
    if isinstance(expr, ast.Unary) and expr.op == "not" and isinstance(expr.operand, ast.BoolLit):
        return _bool(not expr.operand.value)
    if isinstance(expr, ast.Binary):
        left, right = expr.left, expr.right
        lb, rb = isinstance(left, ast.BoolLit), isinstance(right, ast.BoolLit)
        if expr.op == "and":
            if lb:
                return right if left.value else _bool(False)
            if rb:
                return left if right.value else _bool(False)
        if expr.op == "or":
            if lb:
                return _bool(True) if left.value else right
            if rb:
                return _bool(True) if right.value else left
        if isinstance(left, ast.IntLit) and isinstance(right, ast.IntLit):
            a, b = left.value, right.value
            ops = {"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}
            if expr.op in ops:
                return _bool(ops[expr.op])
            if expr.op == "+":
                return _typed(ast.IntLit(expr.loc, a + b), INT)
    return expr


# ---- what an expression reads -------------------------------------------------------------

class Dependencies:
    """Which of target, second, chosen an expression reads, through definitions too."""

    def __init__(self, compiled: Compiled):
        self.spec = compiled.spec
        self.memo: dict[tuple, frozenset] = {}

    def of(self, expr) -> frozenset:
        found: set = set()
        self._walk(expr, found)
        return frozenset(found)

    def _walk(self, expr, found: set) -> None:
        if isinstance(expr, ast.Name) and expr.ref:
            kind, _ = expr.ref
            if kind == "global":
                if expr.name in (T1, T2, CH):
                    found.add(expr.name)
                elif expr.name == "targets":
                    found.update((T1, T2))
            elif kind in ("define", "decision"):
                found.update(self._body(kind, expr.name))
            return
        if isinstance(expr, ast.Call) and expr.ref:
            kind, detail = expr.ref
            if kind in ("define", "decision"):
                found.update(self._body(kind, expr.name))
            elif kind in ("legal", "fires"):
                found.update((T1, T2, CH))
        for child in ast.children(expr):
            self._walk(child, found)

    def _body(self, kind: str, name: str) -> frozenset:
        key = (kind, name)
        if key not in self.memo:
            self.memo[key] = frozenset()  # no recursion in specs; guards anyway
            found: set = set()
            if kind == "define":
                self._walk(self.spec.defines[name].body, found)
            else:
                for rule in self.spec.value_rules(name):
                    self._walk(rule.body.value, found)
                    if rule.when is not None:
                        self._walk(rule.when, found)
            self.memo[key] = frozenset(found)
        return self.memo[key]


def _split(expr, op: str) -> list:
    if isinstance(expr, ast.Binary) and expr.op == op:
        return _split(expr.left, op) + _split(expr.right, op)
    return [expr]


# ---- the staged generators --------------------------------------------------------------------

class Staged:
    """Per move kind and number of targets, a generator of the legal argument tuples."""

    def __init__(self, compiled: Compiled):
        self.compiled = compiled
        self.deps = Dependencies(compiled)
        self.generators: dict[tuple[str, int], object] = {}
        self.checks: dict[tuple[str, int], object] = {}
        for kind in MOVE_KINDS:
            shape, counts = SHAPES[kind]
            for arity in counts:
                pseudo = self._pseudo_rules(kind, shape, arity)
                self.generators[(kind, arity)] = self._build(kind, shape, arity, pseudo)
                self.checks[(kind, arity)] = self._check(kind, arity, pseudo)

    def _stage(self, expr, shape: str) -> int:
        deps = self.deps.of(expr)
        if T2 in deps:
            return 2
        if T1 in deps or CH in deps:
            return 1
        return 0

    def _pseudo_rules(self, kind: str, shape: str, arity: int) -> list:
        compiled = self.compiled
        rules = compiled.spec.first_match(compiled.spec.legality_rules(kind))
        # pseudo-rules: (allow, [conjuncts by stage 0..2]); an `or` splits a rule into alternatives
        pseudo = []
        for rule in rules:
            cond = specialise(rule.when, arity) if rule.when is not None else _bool(True)
            for alternative in _split(cond, "or"):
                if isinstance(alternative, ast.BoolLit) and not alternative.value:
                    continue
                stages: list[list] = [[], [], []]
                for conjunct in _split(alternative, "and"):
                    if isinstance(conjunct, ast.BoolLit) and conjunct.value:
                        continue
                    stages[self._stage(conjunct, shape)].append(conjunct)
                pseudo.append((rule.body.allow, stages))
        return pseudo

    def _check(self, kind: str, arity: int, pseudo: list):
        """Whether one move with these arguments (already in C) is legal: the first pseudo-rule
        that applies decides."""
        lines = []
        for allow, stages in pseudo:
            parts = [self.compiled.code(c, {}) for stage in stages for c in stage]
            lines.append(f"if {' and '.join(parts) if parts else 'True'}:")
            lines.append(f"    return {allow}")
        lines.append("return False")
        return self.compiled.function(self.compiled.fresh(f"K_{kind}{arity}_"), ["S", "C"], lines)

    def _build(self, kind: str, shape: str, arity: int, pseudo: list):
        compiled = self.compiled
        depth = 0 if shape == "none" or arity == 0 else (2 if arity == 2 else 1)
        name = compiled.fresh(f"G_{kind}{arity}_")
        # a kind no rule allows has no `yield`: the last line keeps it a generator all the same
        lines = self._code(pseudo, depth, shape) + ["yield from ()"]
        return compiled.function(name, ["S", "C", "domain", "first"], lines)

    def _code(self, pseudo, depth: int, shape: str) -> list[str]:
        code = self.compiled.code
        first_allow = next((i for i, (allow, _) in enumerate(pseudo) if allow), len(pseudo))
        lines: list[str] = []

        def known(i, stage) -> bool:
            return not any(pseudo[i][1][s] for s in range(stage + 1, 3))

        def flag(i, stage) -> str:
            return f"p{i}_{stage}"

        def stage_lines(stage: int, indent: str) -> list[str]:
            """Flags of every pseudo-rule at this stage, allowing rules first: when none of
            them can apply any more the loop level is skipped before the exceptions are computed."""
            out = []
            allows = [i for i, (allow, _) in enumerate(pseudo) if allow]
            refuses = [i for i, (allow, _) in enumerate(pseudo) if not allow]
            for group in (allows, refuses):
                for i in group:
                    parts = [code(c, {}) for c in pseudo[i][1][stage]]
                    if stage > 0:
                        parts = [flag(i, stage - 1)] + parts
                    out.append(f"{indent}{flag(i, stage)} = {' and '.join(parts) if parts else 'True'}")
                if group is allows:
                    flags = " or ".join(flag(i, stage) for i in allows) or "False"
                    out.append(f"{indent}if not ({flags}):")
                    out.append(f"{indent}    {skip(stage)}")
            # an exception placed before every allowing rule that surely applies decides for all
            sure = [flag(i, stage) for i in range(first_allow) if known(i, stage)]
            if sure:
                out.append(f"{indent}if {' or '.join(sure)}:")
                out.append(f"{indent}    {skip(stage)}")
            return out

        def skip(stage: int) -> str:
            return "return" if stage == 0 else "continue"

        def decide_lines(stage: int, indent: str, item: str) -> list[str]:
            out = []
            for i, (allow, stages) in enumerate(pseudo):
                if allow:
                    out.append(f"{indent}if {flag(i, stage)}:")
                    out.append(f"{indent}    yield {item}")
                    out.append(f"{indent}    {'continue' if stage else 'return'}")
                else:
                    out.append(f"{indent}if {flag(i, stage)}:")
                    out.append(f"{indent}    {'continue' if stage else 'return'}")
            return out

        if depth == 0:
            lines += stage_lines(0, "")
            lines += decide_lines(0, "", "()")
            return lines
        lines += stage_lines(0, "")
        target_attr = "chosen" if shape == "player" else "target"
        lines.append("for a in first:")
        lines.append(f"    C.{target_attr} = a")
        if shape != "player":
            lines.append("    C.targets = (a,)")
        if depth == 1:
            lines += stage_lines(1, "    ")
            lines += decide_lines(1, "    ", "(a,)")
            return lines
        lines += stage_lines(1, "    ")
        lines.append("    for b in domain:")
        lines.append("        if b == a:")
        lines.append("            continue")
        lines.append("        C.second = b")
        lines.append("        C.targets = (a, b)")
        lines += stage_lines(2, "        ")
        lines += decide_lines(2, "        ", "(a, b)")
        return lines
