"""Compile the spec's procedures, powers and move handlers into statement functions.

Each statement becomes a function `run(R, F)` of the round `R` and the running
frame `F`; it returns an `Ask` when the game must wait for a decision. Control
flow (if, for, while, calls) pushes frames; the primitives are methods of the
round (engine.py), implemented once.
"""
from __future__ import annotations

from dataclasses import dataclass

from baobei.dsl import ast
from baobei.dsl.model import Spec

from .compile import Compiled


def _simple(fn):
    """Mark a statement function that never waits for a move and never pushes a frame."""
    fn.simple = True
    return fn


def _simple_result(method):
    def wrapper(self, *args):
        return _simple(method(self, *args))
    wrapper.__name__ = method.__name__
    return wrapper


def _fuse(fns: list):
    if len(fns) == 1:
        return fns[0]
    fns = tuple(fns)

    def run(R, F):
        for fn in fns:
            fn(R, F)
    return _simple(run)


class Ask:
    """The game waits: these players may make these moves."""

    __slots__ = ("clauses", "C", "label")

    def __init__(self, clauses, C, label: str):
        self.clauses = clauses          # [(Player or None for anyone, (kind, ...))]
        self.C = C                      # the context of the asking procedure (user, power, ...)
        self.label = label              # where in the spec it asks, for messages

    def kinds(self) -> set[str]:
        return {kind for _, kinds in self.clauses for kind in kinds}


@dataclass
class Block:
    code: list                # statement functions
    where: str                # procedure, power or handler it belongs to


class Program:
    """The executable form of a spec: compiled expressions and statement blocks."""

    def __init__(self, spec: Spec):
        self.spec = spec
        self.compiled = Compiled(spec)
        from .enumerate import Staged
        staged = Staged(self.compiled)
        self.staged = staged.generators
        self.checks = staged.checks
        self.procedures = {name: (decl, self.block(decl.body, {p.name: f"L[{p.name!r}]" for p in decl.params},
                                                   f"procedure {name}"))
                           for name, decl in spec.procedures.items()}
        self.powers = {name: self.block(decl.body, {}, f"power {name}") for name, decl in spec.powers.items()}
        self.handlers = {kind: self.block(decl.body, {}, f"on {kind}") for kind, decl in spec.handlers.items()}
        self.anytime = frozenset(kind for kind, decl in spec.handlers.items() if decl.anytime)

    # -- statements --------------------------------------------------------------------
    def block(self, body: list[ast.Stmt], scope: dict[str, str], where: str) -> Block:
        """The statements of a body; runs of statements that never wait nor push a frame are
        fused into one function, so the decision loop steps once for the whole run."""
        scope = dict(scope)
        code: list = []
        run: list = []
        for stmt in body:
            fn = self.stmt(stmt, scope, where)
            if getattr(fn, "simple", False):
                run.append(fn)
                continue
            if run:
                code.append(_fuse(run))
                run = []
            code.append(fn)
        if run:
            code.append(_fuse(run))
        return Block(code, where)

    def simple_block(self, body: list[ast.Stmt], scope: dict[str, str], where: str):
        """The body as one function when all of it is simple, else None."""
        block = self.block(body, scope, where)
        if not block.code:
            return _simple(lambda R, F: None)
        if len(block.code) == 1 and getattr(block.code[0], "simple", False):
            return block.code[0]
        return None

    def fn(self, expr: ast.Expr, scope: dict[str, str]):
        return self.compiled.lambda_(expr, scope)

    def stmt(self, stmt: ast.Stmt, scope: dict[str, str], where: str):
        method = getattr(self, "s_" + type(stmt).__name__)
        return method(stmt, scope, where)

    def s_Ask(self, stmt: ast.Ask, scope, where):
        askers = [(self.fn(a.asker, scope) if a.asker is not None else None, tuple(a.kinds)) for a in stmt.asked]
        label = f"{where} ({stmt.loc})"

        def run(R, F):
            clauses = [(asker(R, F.C, F.L) if asker is not None else None, kinds) for asker, kinds in askers]
            return Ask(clauses, F.C, label)
        return run

    def s_ResolvePowers(self, stmt, scope, where):
        return lambda R, F: R.resolve_powers(F)

    def s_If(self, stmt: ast.If, scope, where):
        simple = [self.simple_block(body, scope, where) for _, body in stmt.branches] + \
            [self.simple_block(stmt.otherwise, scope, where)]
        if all(fn is not None for fn in simple):
            conditions = [self.fn(cond, scope) for cond, _ in stmt.branches]
            bodies, otherwise_fn = simple[:-1], simple[-1]

            def run_inline(R, F):
                for cond, body in zip(conditions, bodies):
                    if cond(R, F.C, F.L):
                        return body(R, F)
                return otherwise_fn(R, F)
            return _simple(run_inline)
        branches = [(self.fn(cond, scope), self.block(body, scope, where)) for cond, body in stmt.branches]
        otherwise = self.block(stmt.otherwise, scope, where) if stmt.otherwise else None

        def run(R, F):
            for cond, block in branches:
                if cond(R, F.C, F.L):
                    R.push_block(block, F)
                    return None
            if otherwise is not None:
                R.push_block(otherwise, F)
            return None
        return run

    def s_For(self, stmt: ast.For, scope, where):
        domain = self.fn(stmt.domain, scope)
        inner = dict(scope)
        inner[stmt.var] = f"L[{stmt.var!r}]"
        body = self.block(stmt.body, inner, where)
        var = stmt.var

        def run(R, F):
            items = list(domain(R, F.C, F.L))
            if items:
                R.push_loop(body, F, var, items)
            return None
        return run

    def s_While(self, stmt: ast.While, scope, where):
        cond = self.fn(stmt.cond, scope)
        body = self.block(stmt.body, scope, where)

        def run(R, F):
            if cond(R, F.C, F.L):
                R.push_while(body, F, cond)
            return None
        return run

    @_simple_result
    def s_Set(self, stmt: ast.Set, scope, where):
        value = self.fn(stmt.value, scope)
        name = stmt.target
        if stmt.owner is not None:
            owner = self.fn(stmt.owner, scope)

            def run(R, F):
                player = owner(R, F.C, F.L)
                if player is not None:
                    player.vars[name] = value(R, F.C, F.L)
            return run
        if name in self.spec.vars:
            def run(R, F):
                R.vars[name] = value(R, F.C, F.L)
            return run

        def run(R, F):  # a settable machinery name (active, turn)
            setattr(R, name, value(R, F.C, F.L))
        return run

    @_simple_result
    def s_Let(self, stmt: ast.Let, scope, where):
        value = self.fn(stmt.value, scope)
        scope[stmt.name] = f"L[{stmt.name!r}]"
        name = stmt.name

        def run(R, F):
            F.L[name] = value(R, F.C, F.L)
        return run

    def s_CallProc(self, stmt: ast.CallProc, scope, where):
        args = [self.fn(arg, scope) for arg in stmt.args]
        name = stmt.name

        def run(R, F):
            R.call(name, [arg(R, F.C, F.L) for arg in args], F.C)
            return None
        return run

    @_simple_result
    def s_Draw(self, stmt: ast.Draw, scope, where):
        count, player = self.fn(stmt.count, scope), self.fn(stmt.player, scope)
        seen, how = stmt.seen, stmt.how
        return lambda R, F: R.draw(count(R, F.C, F.L), player(R, F.C, F.L), seen, how, F.C)

    @_simple_result
    def s_Flip(self, stmt: ast.Flip, scope, where):
        how = stmt.how
        return lambda R, F: R.flip(how)

    @_simple_result
    def s_Discard(self, stmt: ast.Discard, scope, where):
        how = stmt.how
        if stmt.source is None:
            return lambda R, F: R.discard_held(how, F.C)
        slot = self.fn(stmt.source, scope)
        return lambda R, F: R.discard_slot(slot(R, F.C, F.L), how, F.C)

    @_simple_result
    def s_Bury(self, stmt: ast.Bury, scope, where):
        if stmt.source is None:
            return lambda R, F: R.bury_held()
        slot = self.fn(stmt.source, scope)
        return lambda R, F: R.bury_slot(slot(R, F.C, F.L), F.C)

    def viewer(self, viewer, scope):
        if isinstance(viewer, str):
            return viewer
        return self.fn(viewer, scope)

    @_simple_result
    def s_Place(self, stmt: ast.Place, scope, where):
        slot, viewer = self.fn(stmt.slot, scope), self.viewer(stmt.viewer, scope)
        if isinstance(viewer, str):
            return lambda R, F: R.place(slot(R, F.C, F.L), viewer, F.C)
        return lambda R, F: R.place(slot(R, F.C, F.L), viewer(R, F.C, F.L), F.C)

    @_simple_result
    def s_TakeTop(self, stmt, scope, where):
        return lambda R, F: R.take_top()

    @_simple_result
    def s_Swap(self, stmt: ast.Swap, scope, where):
        first, second = self.fn(stmt.first, scope), self.fn(stmt.second, scope)
        return lambda R, F: R.swap(first(R, F.C, F.L), second(R, F.C, F.L), F.C)

    @_simple_result
    def s_Move(self, stmt: ast.Move, scope, where):
        source, dest = self.fn(stmt.source, scope), self.fn(stmt.dest, scope)
        return lambda R, F: R.move(source(R, F.C, F.L), dest(R, F.C, F.L), F.C)

    @_simple_result
    def s_Reveal(self, stmt: ast.Reveal, scope, where):
        slot, viewer, how = self.fn(stmt.slot, scope), self.viewer(stmt.viewer, scope), stmt.how
        if isinstance(viewer, str):
            return lambda R, F: R.reveal(slot(R, F.C, F.L), viewer, how, F.C)
        return lambda R, F: R.reveal(slot(R, F.C, F.L), viewer(R, F.C, F.L), how, F.C)

    @_simple_result
    def s_CloseReference(self, stmt, scope, where):
        return lambda R, F: R.close_reference()

    @_simple_result
    def s_Shuffle(self, stmt, scope, where):
        return lambda R, F: R.shuffle_into_deck()

    @_simple_result
    def s_Deal(self, stmt: ast.Deal, scope, where):
        count = self.fn(stmt.count, scope)
        return lambda R, F: R.deal(count(R, F.C, F.L))
