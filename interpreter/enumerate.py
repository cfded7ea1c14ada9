"""Legal moves, fast: each kind's legality rules as staged loops, for one ask site.

At an ask site the rules of a move kind are specialised for each number of targets
(count(targets) becomes a number, quantifiers over the targets are unrolled) and for
what the site fixes (inside a power's body, `power` is that power), folded, split
into their conjuncts, and each conjunct is evaluated at the outermost loop where all
it reads is known: the actor first, then the first target (or the chosen player),
then the second. A loop level is skipped as soon as no allowing rule can still
apply, or an exception that comes before every allowing rule already applies. The
verdict for each move is exactly the first-match verdict of the rules; only the
work differs.

This module writes source text: for each (site, kind, number of targets) whether a
legal move exists (`X...`), the list of the legal argument tuples (`E...`), a judge
of one candidate (`J...`) and, where the candidates are many, one legal argument
tuple drawn uniformly (`R...`: by rejection over the candidates, the judge written
into the loop, then from the list).
"""
from __future__ import annotations

from dataclasses import dataclass

from baobei.dsl import ast
from baobei.dsl.ast import BOOL, INT, NONE, POWER, SLOT
from baobei.dsl.model import Spec

from .expressions import Code, Compiler, Env, View, indent
from .moves import SHAPES

T1, T2, CH = "target", "second", "chosen"
PICKED = "one legal move drawn uniformly, made (None: there is none)"


# a picker's last step: one argument tuple of E's list `legal` drawn uniformly into `args`
DRAWN_FROM_LEGAL = ["if not legal:", "    return None",
                    "args = legal[0] if len(legal) == 1 else legal[int(uniform() * len(legal))]"]


def _from_list(listing: str) -> list[str]:
    """One argument tuple of a listing drawn uniformly into `args` (None returned when it is empty)."""
    return [f"legal = {listing}"] + DRAWN_FROM_LEGAL


def _made(kind: str, shape, arity: int | None) -> list[str]:
    """The Move of `actor` with the arguments `args` (of `arity` items; None: as many as it has),
    made without a Python __init__ frame, returned."""
    if shape.args == "player":
        targets, target, second, chosen = "()", "None", "None", "args[0]"
    elif arity == 0:
        targets, target, second, chosen = "()", "None", "None", "None"
    elif arity is None:
        targets, target, second, chosen = "args", "args[0] if args else None", \
            "args[1] if len(args) > 1 else None", "None"
    else:
        targets, target, second, chosen = "args", "args[0]", "args[1]" if arity > 1 else "None", "None"
    # (its user and power are the ask's, set where it is played)
    return ["move = MadeMove()", "move.actor = actor", f"move.kind = {kind!r}", f"move.targets = {targets}",
            f"move.target = {target}", f"move.second = {second}", f"move.chosen = {chosen}", "return move"]


# ---- specialising an expression to a site and a number of targets -------------------------

def _loc() -> ast.Loc:
    return ast.Loc("<staged>")


def _name(name: str, type_, ref) -> ast.Name:
    node = ast.Name(_loc(), name)
    node.type = type_
    node.ref = ref
    return node


def _typed(node, type_):
    node.type = type_
    return node


def _bool(value: bool) -> ast.BoolLit:
    return _typed(ast.BoolLit(_loc(), value), BOOL)


def _int(value: int) -> ast.IntLit:
    return _typed(ast.IntLit(_loc(), value), INT)


def _is_targets(expr) -> bool:
    return isinstance(expr, ast.Name) and expr.ref == ("global", "targets")


def _clone(expr):
    copy = object.__new__(type(expr))
    copy.__dict__.update(expr.__dict__)
    return copy


def _map(expr, fn, stop=lambda e: False):
    """A copy of expr with fn applied to its direct sub-expressions."""
    copy = _clone(expr)
    if stop(expr):
        if isinstance(expr, ast.Quant):
            copy.domain = fn(expr.domain)
        return copy
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


def _substitute(expr, var: str, replacement):
    """expr with the local `var` replaced (stopping at a quantifier that rebinds the name)."""
    if isinstance(expr, ast.Name):
        if expr.name == var and expr.ref and expr.ref[0] == "local":
            return replacement
        return expr
    return _map(expr, lambda e: _substitute(e, var, replacement),
                stop=lambda e: isinstance(e, ast.Quant) and e.var == var)


def specialise(expr, arity: int, power: str | None = None, asker: ast.Name | None = None):
    """expr for moves with exactly `arity` targets, asked where the power played is `power`
    (None: not known here), of the one player a global such as `active` names (`asker`; None:
    not known here): that global is the actor there."""
    slots = [_name(T1, SLOT, ("global", T1)), _name(T2, SLOT, ("global", T2))][:arity]

    def walk(e):
        if isinstance(e, ast.Name) and e.ref and e.ref[0] == "global":
            if e.name == T1 and arity < 1 or e.name == T2 and arity < 2:
                return _typed(ast.NoneLit(e.loc), e.type)     # a none slot: its attributes read as none's
            if e.name == "power" and power is not None:
                return _name(power, POWER, ("const", "power"))
            if asker is not None and e.name == asker.name:
                return _name("actor", e.type, ("global", "actor"))
            return e
        if isinstance(e, ast.Call) and e.name == "count" and len(e.args) == 1 and _is_targets(e.args[0]):
            return _int(arity)
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
                    _typed(ast.IfExpr(e.loc, b, _int(1), _int(0)), INT) for b in bodies]
                total = _int(0)
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


def _constant(expr):
    """A constant's identity for folding: ('none',) or ('const', name); None when not constant."""
    if isinstance(expr, ast.NoneLit):
        return ("none",)
    if isinstance(expr, ast.Name) and expr.ref and expr.ref[0] == "const":
        return ("const", expr.name)
    return None


def fold(expr):
    """Constant folding of what specialisation made constant."""
    expr = _map(expr, fold)
    if isinstance(expr, ast.Unary) and expr.op == "not" and isinstance(expr.operand, ast.BoolLit):
        return _bool(not expr.operand.value)
    if isinstance(expr, ast.IfExpr) and isinstance(expr.cond, ast.BoolLit):
        return expr.then if expr.cond.value else expr.other
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
        if expr.op == "implies":
            if lb:
                return right if left.value else _bool(True)
            if rb and right.value:
                return _bool(True)
        if isinstance(left, ast.IntLit) and isinstance(right, ast.IntLit):
            a, b = left.value, right.value
            ops = {"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}
            if expr.op in ops:
                return _bool(ops[expr.op])
            if expr.op == "+":
                return _int(a + b)
        if expr.op == "+" and isinstance(left, ast.IntLit) and left.value == 0:
            return right
        ca, cb = _constant(left), _constant(right)
        if ca is not None and cb is not None and expr.op in ("==", "!="):
            return _bool((ca == cb) == (expr.op == "=="))
        if expr.op in ("==", "!=") and _same_global(left, right):    # e.g. `active == active`
            return _bool(expr.op == "==")
    return expr


def _same_global(a, b) -> bool:
    """Both sides name the same global of the state (one value wherever it is read)."""
    return isinstance(a, ast.Name) and isinstance(b, ast.Name) and a.ref is not None and a.ref[0] == "global" \
        and a.ref == b.ref and a.name not in (T1, T2, CH, "targets")


# ---- what an expression reads ---------------------------------------------------------------

class Dependencies:
    """Which of target, second, chosen an expression reads, through definitions too."""

    def __init__(self, spec: Spec):
        self.spec = spec
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
            kind, _ = expr.ref
            if kind in ("define", "decision"):
                found.update(self._body(kind, expr.name))
            elif kind in ("legal", "fires"):
                found.update((T1, T2, CH))
        for child in ast.children(expr):
            self._walk(child, found)

    def _body(self, kind: str, name: str) -> frozenset:
        key = (kind, name)
        if key not in self.memo:
            self.memo[key] = frozenset()  # definitions cannot refer to themselves; guards anyway
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


def _owned_by_actor(conjunct, name: str) -> bool:
    """Whether a conjunct is `NAME.owner == actor` (or the other way round)."""
    if not (isinstance(conjunct, ast.Binary) and conjunct.op == "=="):
        return False
    sides = (conjunct.left, conjunct.right)
    return any(isinstance(a, ast.Attr) and a.name == "owner" and isinstance(a.obj, ast.Name) and
               a.obj.ref == ("global", name) and isinstance(b, ast.Name) and b.ref == ("global", "actor")
               for a, b in (sides, sides[::-1]))


def _wants_new(rule, name: str) -> bool:
    """Whether a pseudo-rule applies only where the argument `name` is a layout's next new slot
    (a conjunct `NAME.new`)."""
    return any(isinstance(c, ast.Attr) and c.name == "new" and isinstance(c.obj, ast.Name) and
               c.obj.ref == ("global", name) for stage in rule.stages for c in stage)


def _split(expr, op: str) -> list:
    if isinstance(expr, ast.Binary) and expr.op == op:
        return _split(expr.left, op) + _split(expr.right, op)
    return [expr]


# ---- the staged functions of one ask site ---------------------------------------------------------

@dataclass
class Pseudo:
    """One alternative (an `or` branch) of a rule, its conjuncts by the loop level that knows them."""

    allow: bool
    rule: ast.RuleDecl
    stages: list[list]

    def complete_at(self, stage: int) -> bool:
        return not any(self.stages[s] for s in range(stage + 1, len(self.stages)))


class Staged:
    """Writes the legal-move functions of ask sites."""

    def __init__(self, spec: Spec, compiler: Compiler):
        self.spec = spec
        self.compiler = compiler
        self.deps = Dependencies(spec)

    def pseudo_rules(self, kind: str, arity: int, depth: int, power: str | None,
                     asker: ast.Name | None = None) -> list[Pseudo]:
        """The rules of a kind in first-match order, specialised; those that can no longer change
        the verdict left out (after a rule that always applies; refusals after the last allow)."""
        rules = self.spec.first_match(self.spec.legality_rules(kind))
        pseudo: list[Pseudo] = []
        for rule in rules:
            cond = specialise(rule.when, arity, power, asker) if rule.when is not None else _bool(True)
            always = False
            for alternative in _split(cond, "or"):
                if isinstance(alternative, ast.BoolLit) and not alternative.value:
                    continue
                stages: list[list] = [[] for _ in range(depth + 1)]
                for conjunct in _split(alternative, "and"):
                    if isinstance(conjunct, ast.BoolLit) and conjunct.value:
                        continue
                    stages[min(self._stage(conjunct), depth)].append(conjunct)
                pseudo.append(Pseudo(rule.body.allow, rule, stages))
                if not any(stages):
                    always = True
                    break
            if always:
                break
        while pseudo and not pseudo[-1].allow:
            pseudo.pop()
        return pseudo

    def _stage(self, expr) -> int:
        deps = self.deps.of(expr)
        if T2 in deps:
            return 2
        if T1 in deps or CH in deps:
            return 1
        return 0

    # -- the functions -----------------------------------------------------------------------------
    def always_legal(self, kind: str, power: str | None, asker: ast.Name | None = None) -> bool:
        """Whether a move of this kind with no argument is legal whatever the state (a rule that
        allows it with no condition, and no rule before it), where the global `asker` names the
        one player asked (`actor == active` holds in `ask active: ...`)."""
        if 0 not in SHAPES[kind].counts:
            return False
        pseudo = self.pseudo_rules(kind, 0, 0, power, asker)
        return bool(pseudo) and pseudo[0].allow and not any(pseudo[0].stages)

    def checks(self, site: str, kind: str, power: str | None, asker: ast.Name | None, ctx: str,
               actor: str) -> list[tuple]:
        """(cost, call, arity) for each form of a kind asked at a site that some rule may allow: whether
        the player `actor` (code) has a legal move of it in the context `ctx` (code), as the site's
        functions below find it (J for a form without arguments, X for the others); the cost as
        Form.cost."""
        shape = SHAPES[kind]
        found = []
        for arity in shape.counts:
            depth = 0 if arity == 0 else (1 if shape.args == "player" else arity)
            pseudo = self.pseudo_rules(kind, arity, depth, power, asker)
            if not any(rule.allow for rule in pseudo):
                continue
            if arity == 0:
                found.append((0, f"J{site}_{kind}0(S, {ctx}, {actor})", arity))
                continue
            sources = self._sources(shape, arity, pseudo)
            cost = 1 if arity == 1 and not sources[0].endswith("all") else 2
            found.append((cost, f"X{site}_{kind}{arity}(S, {ctx}, {actor}, ask)", arity))
        return found

    def site_forms(self, site: str, kind: str, power: str | None, label: str,
                   asker: ast.Name | None = None, shared: int | None = None) -> tuple[list[str], str, str]:
        """Source lines of one kind's functions at one site, and its table: for each number of
        arguments, (arity, X: whether a legal move exists, E: every legal argument tuple,
        J: whether one candidate is legal, where each argument's candidates come from). `asker`:
        the global naming the one player asked there, if one does (their `actor`)."""
        shape = SHAPES[kind]
        lines: list[str] = []
        table = []
        for arity in shape.counts:
            depth = 0 if arity == 0 else (1 if shape.args == "player" else arity)
            pseudo = self.pseudo_rules(kind, arity, depth, power, asker)
            sources = self._sources(shape, arity, pseudo)
            rules = ", ".join(dict.fromkeys(p.rule.name for p in pseudo)) or "none allows"
            doc = f"{kind} with {arity} argument(s) at {label}: {rules}"
            judge = f"J{site}_{kind}{arity}"
            lines += self._judge(judge, pseudo, arity, shape, self._env(sources, power, in_loops=False), doc)
            if arity == 0:
                table.append(f"(0, {judge}, None, {judge}, ())")
                continue
            exists, every = f"X{site}_{kind}{arity}", f"E{site}_{kind}{arity}"
            env = self._env(sources, power, in_loops=True)
            lines += self._staged(exists, pseudo, depth, sources, env, doc, find_all=False)
            lines += self._staged(every, pseudo, depth, sources, env, doc, find_all=True)
            pick = "None"
            if arity == 2 or sources[0].lstrip("_") == "all":    # many candidates (Form.cost 2)
                pick = f"R{site}_{kind}{arity}"
                lines += self._sampler(pick, pseudo, arity, sources, self._env(sources, power, in_loops=False), doc,
                                       every)
            table.append(f"({arity}, {exists}, {every}, {judge}, {sources!r}, {pick})")
        picker = f"P{site}_{kind}"
        lines += self._picker(picker, site, kind, power, label, asker, shared)
        return lines, "(" + "".join(entry + ", " for entry in table) + ")", picker

    def _picker(self, name: str, site: str, kind: str, power: str | None, label: str,
                asker: ast.Name | None, shared: int | None = None) -> list[str]:
        """P: one legal move of this kind drawn uniformly for the random agent, made, or None when
        there is none: a form at random among those with a legal move (as the agent draws
        its kinds), then one of its moves (its candidates listed where they are few, drawn by rejection
        where many). One form: its rules written in; several: their functions above called."""
        shape = SHAPES[kind]
        forms = []
        for arity in shape.counts:
            depth = 0 if arity == 0 else (1 if shape.args == "player" else arity)
            pseudo = self.pseudo_rules(kind, arity, depth, power, asker)
            sources = self._sources(shape, arity, pseudo)
            cost = 0 if arity == 0 else (1 if arity == 1 and not sources[0].endswith("all") else 2)
            forms.append((arity, depth, pseudo, sources, cost))
        doc = f"{kind} at {label}"
        if len(forms) > 1:
            out = [f"def {name}(S, C, actor, ask, uniform):", f'    """{doc}: {PICKED}"""']
            out += indent(self._form_tree(site, kind, forms))
            return out + ["    if args is None:", "        return None"] + indent(_made(kind, shape, None)) + [""]
        arity, depth, pseudo, sources, cost = forms[0]
        made = _made(kind, shape, arity)
        if cost == 0:
            self.compiler.reset()
            out = [f"def {name}(S, C, actor, ask, uniform):", f'    """{doc}: {PICKED}"""']
            env = self._env(sources, power, in_loops=False)
            return out + indent(self._verdicts(pseudo, env, made, "return None")) + [""]
        if cost == 1 and shared == arity:    # the ask listed them to see whether any is legal
            return [f"def {name}(S, C, actor, ask, uniform):", f'    """{doc}: {PICKED}"""',
                    "    known = ask.known",
                    f"    legal = known.get((actor, F{site}_{kind}{arity})) if known is not None else None",
                    "    if legal is None:", f"        legal = E{site}_{kind}{arity}(S, C, actor, ask)",
                    "    if not legal:", "        return None",
                    "    args = legal[0] if len(legal) == 1 else legal[int(uniform() * len(legal))]"] + \
                indent(made) + [""]
        if cost == 1:
            return self._staged(name, pseudo, depth, sources, self._env(sources, power, in_loops=True), doc,
                                find_all=True, made=made)
        return self._sampler(name, pseudo, arity, sources, self._env(sources, power, in_loops=False), doc,
                             f"E{site}_{kind}{arity}", tail=made)

    def kinds_picker(self, name: str, site: str, kinds: tuple, label: str) -> list[str]:
        """Q: one legal move of any kind asked at a site, drawn as the random agent draws (a kind
        at random among those with a legal move, then its picker), or None where none has one."""
        out = [f"def {name}(S, C, actor, ask, uniform):", f'    """every kind at {label}: {PICKED}"""']
        return out + indent(self._kinds_tree(site, list(kinds))) + ["    return move", ""]

    def _kinds_tree(self, site: str, kinds: list) -> list[str]:
        """`move` set to a move of one of `kinds` (None: none has one): a kind drawn uniformly, the
        others drawn among in turn where it has none (a kind alone is not drawn)."""
        if len(kinds) == 1:
            return [f"move = P{site}_{kinds[0]}(S, C, actor, ask, uniform)"]
        out = [f"i = int(uniform() * {len(kinds)})"]
        for index, kind in enumerate(kinds):
            test = "if" if index == 0 else "else" if index == len(kinds) - 1 else "elif"
            out.append(f"{test} i == {index}:" if test != "else" else "else:")
            rest = kinds[:index] + kinds[index + 1:]
            out += indent(self._kinds_tree(site, [kind]) + ["if move is None:"] + indent(self._kinds_tree(site, rest)))
        return out

    def _form_tree(self, site: str, kind: str, forms: list) -> list[str]:
        """`args` set to a legal argument tuple of one of `forms` (None: none has one): a form drawn
        uniformly, the others drawn among in turn where it has none (a form alone is not drawn)."""
        if len(forms) == 1:
            arity, _, pseudo, _, cost = forms[0]
            if cost == 0:
                return [f"args = () if J{site}_{kind}0(S, C, actor) else None"]
            if cost == 1:
                return [f"legal = E{site}_{kind}{arity}(S, C, actor, ask)",
                        "args = (legal[0] if len(legal) == 1 else legal[int(uniform() * len(legal))]) if legal "
                        "else None"]
            return [f"args = R{site}_{kind}{arity}(S, C, actor, ask, uniform)"]
        out = [f"i = int(uniform() * {len(forms)})"]
        for index, form in enumerate(forms):
            test = "if" if index == 0 else "else" if index == len(forms) - 1 else "elif"
            out.append(f"{test} i == {index}:" if test != "else" else "else:")
            rest = forms[:index] + forms[index + 1:]
            out += indent(self._form_tree(site, kind, [form]) + ["if args is None:"] +
                          indent(self._form_tree(site, kind, rest)))
        return out

    def _sources(self, shape, arity: int, pseudo: list[Pseudo]) -> tuple[str, ...]:
        """Where each argument's candidates come from: players, own (the actor's slots), own+new
        (and the next new slot), new (that one only: every allowing rule wants `target.new`), all
        (every slot); `_` first when it may be the placeholder. A slot every allowing rule wants to
        be the actor's own is looked for among the actor's slots only."""
        found = []
        for position in range(arity if shape.args != "player" else min(arity, 1)):
            if shape.args == "player":
                source = "players"
            elif shape.args == "own":
                source = "own+new" if shape.new_slot else "own"
                allows = [rule for rule in pseudo if rule.allow]
                if shape.new_slot and allows and all(_wants_new(rule, (T1, T2)[position]) for rule in allows):
                    source = "new"
            else:
                allows = [rule for rule in pseudo if rule.allow]
                name = (T1, T2)[position]
                own = bool(allows) and not shape.placeholder(arity, position) and \
                    all(any(_owned_by_actor(c, name) for stage in rule.stages for c in stage) for rule in allows)
                source = "own" if own else "all"
            found.append(("_" if shape.placeholder(arity, position) else "") + source)
        return tuple(found)

    def _env(self, sources: tuple[str, ...], power: str | None, in_loops: bool) -> Env:
        """How the move's arguments read: in X and E (in_loops) the loops give each slot's owner
        where they know it; J gets each argument with its card."""
        context = {"actor": View("actor", none=False), "user": View("C.user"),
                   "power": View(repr(power), none=False) if power else View("C.power"),
                   "chosen": View("None"), "target": View("None"), "second": View("None"),
                   "targets": View("()", none=False)}
        targets: list[View] = []
        if sources and sources[0] == "players":
            context["chosen"] = View("a", none=False)
        for position, source in enumerate(sources if sources and sources[0] != "players" else ()):
            name, key = (("a", T1), ("b", T2))[position]
            plain = source.lstrip("_")
            if plain in ("own", "own+new", "new") and source == plain:     # (the placeholder has no owner)
                owner = "actor"
            elif in_loops and self._loops(position, sources)[0].startswith("for p_"):
                owner = f"p_{name}"
            else:
                owner = None
            new = plain in ("own+new", "new")
            # the candidates are the layouts' own slot values (a new slot is another value than any)
            view = View(name, none=source.startswith("_"), new=new, card=name + "_c", owner=owner, canonical=True,
                        size="size" if in_loops and new else None)
            context[key] = view
            targets.append(view)
        return Env(context=context, targets=targets, ctx=None)

    def _conjunction(self, prefix: str, conjuncts: list, env: Env) -> Code:
        """prefix and conjunct1 and ...: lines and value, each conjunct computed only if needed."""
        lines: list[str] = []
        value = prefix
        for conjunct in conjuncts:
            code = self.compiler.expr(conjunct, env)
            if code.value == "True" and not code.lines:
                continue
            if not code.lines:
                value = code.value if value == "True" else f"{value} and {code.value}"
                continue
            if value != "True":
                flag = self.compiler.fresh("_c")
                lines.append(f"{flag} = {value}")
                lines.append(f"if {flag}:")
                lines += indent(code.lines + [f"{flag} = {code.value}"])
                value = flag
            else:
                lines += code.lines
                value = code.value
        return Code(lines, value)

    @staticmethod
    def _loops(position: int, sources: tuple[str, ...]) -> list[str]:
        """The for-statements over the candidates for one argument, nested when they run over
        every player's slots."""
        var = "ab"[position]
        source = sources[position]
        plain = source.lstrip("_")
        if plain == "players":
            return [f"for {var} in S.players:"]
        if plain == "own":
            code = "zip(actor.places, actor.layout)"
        elif plain == "own+new":
            code = "own_and_new(actor)"
        elif plain == "new":
            code = "new_of(actor)"
        elif len(sources) == 2 or source != plain:
            code = "entries"      # every slot with its card, listed once for both arguments
        else:
            return [f"for p_{var} in S.players:", f"    for {var}, {var}_c in zip(p_{var}.places, p_{var}.layout):"]
        if source != plain:
            code = f"with_placeholder({code})"
        return [f"for {var}, {var}_c in {code}:"]

    def _staged(self, name: str, pseudo: list[Pseudo], depth: int, sources: tuple[str, ...], env: Env,
                doc: str, find_all: bool, made: list[str] | None = None) -> list[str]:
        """E (find_all: the list of every legal argument tuple) or X (whether there is one). With
        `made`, a picker: E's list made, one of its tuples drawn, then `made` run on it (None
        returned where there is none)."""
        self.compiler.reset()
        what = "every legal argument tuple" if find_all else "whether one is legal"
        if made is None:
            out = [f"def {name}(S, C, actor, ask):", f'    """{doc}: {what}"""']
            nothing = "return legal" if find_all else "return False"
        else:
            out = [f"def {name}(S, C, actor, ask, uniform):", f'    """{doc}: {PICKED}"""']
            nothing = "return None"
        if not any(rule.allow for rule in pseudo):
            return out + ["    return None" if made is not None else "    return []" if find_all else "    return False",
                          ""]
        flags = ["True"] * len(pseudo)
        alive = list(range(len(pseudo)))
        prefix = "    "
        args = "(a,)" if depth == 1 else "(a, b)"
        found = [f"legal.append({args})", "continue"] if find_all else ["return True"]
        if find_all:
            out.append("    legal = []")
        if any("entries" in self._loops(p, sources)[0] for p in range(len(sources))):
            out.append("    entries = ask.slot_entries()")
        if "own+new" in sources or "new" in sources:
            out.append("    size = len(actor.layout)")
        for stage in range(depth + 1):
            skip = "continue" if stage else nothing
            body: list[str] = []
            allows = [i for i in alive if pseudo[i].allow]
            before = [flags[i] for i in allows]
            for i in allows:
                flags[i] = self._flag(i, stage, flags[i], pseudo[i], env, body)
            if "True" not in (flags[i] for i in allows) and (stage == 0 or before != [flags[i] for i in allows]):
                body.append(f"if not ({' or '.join(flags[i] for i in allows)}):")
                body.append(f"    {skip}")
                if len(allows) == 1:   # past this test the only allowing rule still applies
                    flags[allows[0]] = "True"
            first_allow = allows[0]
            for j in list(alive):
                rule = pseudo[j]
                if rule.allow:
                    continue
                if j < first_allow and rule.complete_at(stage):
                    # an exception before every allowing rule, known here: it refuses them all
                    code = self._conjunction(flags[j], rule.stages[stage], env)
                    body += code.lines
                    body.append(f"if {code.value}:  # {rule.rule.level_name} {rule.rule.name}")
                    body.append(f"    {skip}")
                    alive.remove(j)
                elif stage < depth:
                    flags[j] = self._flag(j, stage, flags[j], rule, env, body)
            if stage == depth:   # the first rule that applies decides
                for i in alive:
                    rule = pseudo[i]
                    if rule.allow and flags[i] == "True":     # it applies: the rules after it never decide
                        body.append(f"# {rule.rule.level_name} {rule.rule.name} ({rule.rule.loc})")
                        body += found
                        break
                    if rule.allow:
                        body.append(f"if {flags[i]}:  # {rule.rule.level_name} {rule.rule.name} ({rule.rule.loc})")
                        body += indent(found)
                    else:
                        code = self._conjunction(flags[i], rule.stages[stage], env)
                        body += code.lines
                        body.append(f"if {code.value}:  # {rule.rule.level_name} {rule.rule.name} ({rule.rule.loc})")
                        body.append(f"    {skip}")
            out += indent(body, prefix)
            if stage == 0 and depth == 1:
                chain = self._chain(pseudo, alive, flags, env)
                if chain is not None:    # one test per candidate, in a comprehension (E) or one loop (X)
                    return out + indent(self._one_test(sources, chain, find_all, made)) + [""]
            if stage < depth:
                loops = self._loops(stage, sources)
                out += indent(loops, prefix)
                prefix += "    " * len(loops)
                if stage == 1:
                    out.append(f"{prefix}if b is a:")
                    out.append(f"{prefix}    continue")
        if made is not None:
            return out + indent(DRAWN_FROM_LEGAL + made) + [""]
        out.append("    return legal" if find_all else "    return False")
        return out + [""]

    def _chain(self, pseudo: list[Pseudo], alive: list[int], flags: list[str], env: Env) -> str | None:
        """The first-match verdict of the rules still alive on one candidate (the last stage of
        one argument) as one expression, their flags of the stage before read as they are; None
        when a condition needs statements first."""
        terms = []
        for i in alive:
            code = self._conjunction(flags[i], pseudo[i].stages[1], env)
            if code.lines:
                return None
            terms.append((code.value, pseudo[i].allow))
        verdict = "False"
        for value, allow in reversed(terms):
            if value == "True":
                verdict = str(allow)
            elif allow:
                verdict = value if verdict == "False" else f"({value}) or ({verdict})"
            else:
                verdict = f"not ({value})" if verdict == "True" else \
                    "False" if verdict == "False" else f"not ({value}) and ({verdict})"
        return verdict

    def _one_test(self, sources: tuple[str, ...], chain: str, find_all: bool, made: list[str] | None) -> list[str]:
        """The candidates for one argument, each judged by one expression: listed for E, looked
        through for X, and for a picker (`made`: see _staged) listed, one drawn, then `made`. (A
        plain loop: for the few candidates of one layout, a comprehension's function costs more
        than it saves.)"""
        loops = self._loops(0, sources)
        if chain == "(a_c is not None)" and sources[0] == "own":
            # the occupied slots of one's own layout, found in C (an empty slot holds None)
            if made is not None:
                # a picker draws one slot: the same draw from the slots themselves, no tuple made for each
                return ["slots = list(compress(actor.places, actor.layout))", "if not slots:", "    return None",
                        "args = (slots[0] if len(slots) == 1 else slots[int(uniform() * len(slots))],)"] + made
            if find_all:
                return ["legal = list(zip(compress(actor.places, actor.layout)))", "return legal"]
            return ["return len(actor.layout) != actor.layout.count(None)"]
        inner = "    " * len(loops)
        found = ["legal.append((a,))"] if find_all or made is not None else ["return True"]
        body = found if chain == "True" else [f"if {chain}:"] + indent(found)
        if sources[0] == "own+new":
            # one's own slots, then the next new one: the same candidates in the same order, no list made
            out = ["for a, a_c in zip(actor.places, actor.layout):"] + indent(body) + \
                ["a, a_c = (actor, size + 1), None"] + body
        else:
            out = loops + indent(body, inner)
        if made is not None:
            return out + DRAWN_FROM_LEGAL + made
        return out + (["return legal"] if find_all else ["return False"])

    def _flag(self, index: int, stage: int, flag: str, rule: Pseudo, env: Env, body: list[str]) -> str:
        """The pseudo-rule's flag after this stage's conjuncts (a new local when it has some)."""
        if not rule.stages[stage]:
            return flag
        code = self._conjunction(flag, rule.stages[stage], env)
        name = f"f{index}_{stage}"
        body += code.lines
        body.append(f"{name} = {code.value}")
        return name

    def _judge(self, name: str, pseudo: list[Pseudo], arity: int, shape, env: Env, doc: str) -> list[str]:
        """J: whether one candidate is legal (its arguments as the candidates of E come: a player,
        or a (slot, card) pair)."""
        self.compiler.reset()
        params = ["ea", "eb"][:arity]
        out = [f"def {name}(S, C, actor{''.join(', ' + p for p in params)}):", f'    """{doc}"""']
        if arity and shape.args == "player":
            out.append("    a = ea")
        elif arity:
            out.append("    a, a_c = ea")
            if arity == 2:
                out.append("    b, b_c = eb")
        out += indent(self._verdicts(pseudo, env, "return True", "return False"))
        return out + [""]

    def _verdicts(self, pseudo: list[Pseudo], env: Env, allow, refuse) -> list[str]:
        """The rules tried in first-match order on one candidate: `allow` or `refuse` (a statement,
        or a list of them that ends the chain) where the first that applies says so, `refuse`
        where none does."""
        allow = [allow] if isinstance(allow, str) else allow
        refuse = [refuse] if isinstance(refuse, str) else refuse
        out: list[str] = []
        for rule in pseudo:
            code = self._conjunction("True", [c for stage in rule.stages for c in stage], env)
            out += code.lines
            verdict = allow if rule.allow else refuse
            comment = f"  # {rule.rule.level_name} {rule.rule.name} ({rule.rule.loc})"
            if code.value == "True":      # it applies: the rules after it never decide
                return out + [verdict[0] + comment] + verdict[1:]
            out.append(f"if {code.value}:{comment}")
            out += indent(verdict)
        return out + refuse

    def _sampler(self, name: str, pseudo: list[Pseudo], arity: int, sources: tuple[str, ...], env: Env, doc: str,
                 every: str, tail: list[str] | None = None) -> list[str]:
        """R: one legal argument tuple drawn uniformly, None when there is none: unless the tests
        that refuse every candidate at once do (X's first stage), up to TRIES candidates drawn
        uniformly and judged (J's rules written into the loop; drawn only when there are more than
        SMALL), else one of E's list. X itself is not asked: where candidates are many, most
        decisions that get this far have legal ones, and a draw finds one sooner than X's scan."""
        self.compiler.reset()
        what = PICKED if tail is not None else "a legal argument tuple drawn uniformly (None: there is none)"
        out = [f"def {name}(S, C, actor, ask, uniform):", f'    """{doc}: {what}"""']
        if not any(rule.allow for rule in pseudo):
            return out + ["    return None", ""]
        out += indent(self._refused_at_once(pseudo, env, "return None"))
        found = "(a,)" if arity == 1 else "(a, b)"
        if tail is None:
            judged = self._verdicts(pseudo, env, f"return {found}", "continue")
        else:     # a picker: the arguments found end the draws, and the move is made below
            out.append("    args = None")
            judged = self._verdicts(pseudo, env, [f"args = {found}", "break"], "continue")
        if arity == 1:       # one slot anywhere on the table, drawn from the layouts without listing them
            blank = int(sources[0].startswith("_"))
            out += [f"    total = {blank}", "    for p_a in S.players:", "        total += len(p_a.layout)",
                    "    if total > SMALL:", "        for _ in range(TRIES):",
                    "            index = int(uniform() * total)" + (" - 1" if blank else "")]
            if blank:
                out += ["            if index < 0:", "                a = a_c = None", "            else:"]
            out += indent(_slot_at_index("a"), "                " if blank else "            ")
            out += indent(judged, "            ")
        elif sources == ("all", "all"):     # two slots anywhere: drawn as from the list of every slot, not listed
            out += ["    total = 0", "    for p_a in S.players:", "        total += len(p_a.layout)",
                    "    if total * total > SMALL:", "        for _ in range(TRIES):"]
            for var in "ab":
                out += ["            index = int(uniform() * total)"] + indent(_slot_at_index(var), "            ")
            out += ["            if a is b:", "                continue"]
            out += indent(judged, "            ")
        else:
            out.append(f"    da = {self._domain(sources[0])}")     # (both drawn from one list where they can be)
            out.append(f"    db = {'da' if sources[1] == sources[0] else self._domain(sources[1])}")
            out += ["    n, m = len(da), len(db)", "    if n * m > SMALL:", "        for _ in range(TRIES):",
                    "            a, a_c = da[int(uniform() * n)]", "            b, b_c = db[int(uniform() * m)]",
                    "            if a is b:", "                continue"]
            out += indent(judged, "            ")
        if tail is None:
            return out + [f"    legal = {every}(S, C, actor, ask)",
                          "    if not legal:",
                          "        return None",
                          "    return legal[0] if len(legal) == 1 else legal[int(uniform() * len(legal))]", ""]
        return out + ["    if args is None:"] + indent(indent(_from_list(f"{every}(S, C, actor, ask)"))) + \
            indent(tail) + [""]

    def _refused_at_once(self, pseudo: list[Pseudo], env: Env, skip: str) -> list[str]:
        """The tests that refuse every candidate before any is looked at, as X and E begin: no
        allowing rule's conditions on the state alone hold, or an exception before them all does."""
        body: list[str] = []
        allows = [i for i, rule in enumerate(pseudo) if rule.allow]
        flags = [self._flag(i, 0, "True", pseudo[i], env, body) for i in allows]
        if "True" not in flags:
            body += [f"if not ({' or '.join(flags)}):", f"    {skip}"]
        for rule in pseudo[:allows[0]]:
            if rule.complete_at(0):
                code = self._conjunction("True", rule.stages[0], env)
                body += code.lines + [f"if {code.value}:  # {rule.rule.level_name} {rule.rule.name}", f"    {skip}"]
        return body

    @staticmethod
    def _domain(source: str) -> str:
        """The candidates for one argument as a list of (slot, card) pairs (Ask.domain)."""
        plain = source.lstrip("_")
        code = {"own": "list(zip(actor.places, actor.layout))", "own+new": "own_and_new(actor)",
                "new": "new_of(actor)", "all": "ask.slot_entries()"}[plain]
        return f"[(None, None)] + {code}" if source != plain else code


def _slot_at_index(var: str) -> list[str]:
    """`var` and `var_c`: the slot `index` counts to in the players' layouts, one after another (the
    order of Ask.slot_entries)."""
    return [f"for p_{var} in S.players:", f"    layout = p_{var}.layout", "    if index < len(layout):",
            f"        {var}, {var}_c = p_{var}.places[index], layout[index]", "        break",
            "    index -= len(layout)"]
