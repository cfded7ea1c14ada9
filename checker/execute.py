"""Symbolic execution of the spec's procedures: from one decision of a round to the next.

The interpreter runs the spec's statements on a concrete table (interpreter/engine.py);
here the very same statements run on a symbolic one (symbolic.py's Situation, the
expressions translated by translate.py), so that Z3 can reason about every table at once.
The machinery is the engine's, statement for statement: frames for blocks, loops and
calls; a move's handler pushed on the frame that asked for it; `resolve powers` queueing
the fired powers by rank; `procedure recycle` when a draw meets an empty pile;
`procedure action_end` after every complete action. A run stops where the game waits for
a move (an `ask` with a possible move), at a cut point (a loop whose body asks, where
induction takes over), or at the end of the round. For induction (`cut_powers`), a run
also stops where a queued power is about to be played (`power`: the frames of the turn,
the queue moved on to that power), and a power played on its own (`power_frames`) stops
once it and its `action_end` are over (`played`): induction.py proves the powers apart.

Branches of `if` become path conditions. Every primitive's precondition becomes a proof
obligation on its path. Two things are over-approximated, which is sound for proofs: the
draw pile's order (a drawn card is any card the edition's counts allow), and, for asks
whose possible moves are too many to list (two targets anywhere on the table), the
possibility that no move is possible and the ask is skipped.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace

import z3

from baobei.dsl import ast, schema
from baobei.dsl.model import Spec

from .symbolic import NONE, ListV, RefV, Situation, SlotV, and_, eq_, ge_, if_, int_, ite, none_slot, not_, or_, truth
from .translate import Translator

# Moves whose every possible form can be listed when asking "is any move possible here":
# the others (two slots anywhere) are over-approximated.
_LISTED_SHAPES = ("none", "own", "player")
WHILE_BOUND_EXTRA = 2          # a while loop may run players + this many times in one run

_fresh_names = itertools.count()


def fresh(stem: str):
    return f"x{next(_fresh_names)}_{stem}"


# ---- frames --------------------------------------------------------------------------

@dataclass(frozen=True)
class Ctx:
    """Who acts in a frame: the move's actor and arguments, the power being played."""

    actor: object = None
    user: object = None
    power: object = None
    tc: object = None
    targets: tuple = ()
    chosen: object = None


def empty_ctx() -> Ctx:
    return Ctx(z3.IntVal(NONE), z3.IntVal(NONE), z3.IntVal(NONE), z3.IntVal(0), (none_slot(), none_slot()),
               z3.IntVal(NONE))


@dataclass(frozen=True)
class Frame:
    """One running body: where it is, its locals and its context (the engine's Frame)."""

    where: str
    body: tuple
    index: int = 0
    code: int = 0                # which body of the spec this is (stable: the syntax tree's list)
    kind: str = "body"           # body (of a procedure, handler or power), block (an if's branch, sharing
                                 # its locals with the frame below), merge (likewise), for, while, queue, reset
    env: tuple = ()              # locals: ((name, value), ...)
    ctx: Ctx = field(default_factory=empty_ctx)
    action: bool = False         # popping it ends an action (the engine runs action_end)
    var: str | None = None       # for: the loop variable
    items: tuple = ()            # for: ((guard, item), ...); queue: ((fired, power, user), ...)
    position: int = 0            # for and queue: the item running
    cond: object = None          # while: the condition (an expression)
    iterations: int = 0          # while: the body runs so far

    def key(self) -> tuple:
        return (self.where, self.code, self.index, self.kind, self.position)

    def locals(self) -> dict:
        return dict(self.env)

    def with_env(self, **values) -> "Frame":
        env = dict(self.env)
        env.update(values)
        return replace(self, env=tuple(env.items()))


def body_frame(where: str, body: list, **fields) -> Frame:
    """A frame running a body of the spec (its key names that body)."""
    return Frame(where, tuple(body), code=id(body), **fields)


def stack_key(frames: tuple) -> tuple:
    return tuple(frame.key() for frame in frames)


# ---- the symbolic state ----------------------------------------------------------------

def derived(s: Situation, **changes) -> Situation:
    """A copy of a situation with some of its terms replaced (the table after an effect)."""
    copy = object.__new__(Situation)
    copy.__dict__.update(s.__dict__)         # the reads' memory is shared: its keys name what a read reads
    copy.__dict__.pop("_translator", None)     # a translator reads the situation it was made for
    copy.__dict__.pop("_contexts", None)       # ... and so do the situations in a frame's context
    copy.__dict__.update(changes)
    return copy


def in_context(s: Situation, ctx: Ctx) -> Situation:
    return derived(s, actor=ctx.actor, user=ctx.user, power=ctx.power, tc=ctx.tc, targets=list(ctx.targets),
                   chosen=ctx.chosen)


def set_cell(s: Situation, table, slot: SlotV, value, only=None):
    """The table with the cell at the slot set (where `only` holds, when given): a cell the slot
    plainly is not keeps its term."""
    rows = []
    for i, row in enumerate(table):
        player = eq_(slot.p, i) if only is None else and_([only, eq_(slot.p, i)])
        if truth(player) is False:
            rows.append(list(row))
            continue
        rows.append([if_(and_([player, eq_(slot.n, j + 1)]), value, old) for j, old in enumerate(row)])
    return rows


def shift_held(s: Situation):
    """The held cards without the first."""
    some = ge_(s.hc, 1)
    held = [if_(some, following, int_(NONE)) for following in s.held[1:]] + [int_(NONE)]
    return held, if_(some, s.hc - 1, int_(0))


# ---- merging runs: the value of the run whose condition holds ------------------------------------

def merge_value(conds: list, values: list, default=None):
    """One value for several runs: the value of the run whose condition holds."""
    present = [v for v in values if v is not None]
    if not present:
        return None
    sample = present[0]
    if all(_same(v, sample) for v in values):
        return sample
    if isinstance(sample, SlotV):
        filled = [v if v is not None else none_slot() for v in values]
        return SlotV(merge_value(conds, [v.p for v in filled]), merge_value(conds, [v.n for v in filled]))
    if isinstance(sample, RefV):
        filled = [v if v is not None else RefV(z3.IntVal(NONE), z3.IntVal(NONE), z3.IntVal(NONE),
                                               z3.BoolVal(False)) for v in values]
        return RefV(*(merge_value(conds, [getattr(v, f) for v in filled]) for f in ("card", "how", "by", "open")))
    if isinstance(sample, ListV):
        length = max(len(v.items) for v in present)
        rows = []
        for k in range(length):
            guards = [v.items[k][0] if v is not None and k < len(v.items) else z3.BoolVal(False) for v in values]
            items = [v.items[k][1] if v is not None and k < len(v.items) else None for v in values]
            rows.append((merge_value(conds, guards), merge_value(conds, items)))
        return ListV(rows)
    if isinstance(sample, tuple):
        return tuple(merge_value(conds, [v[k] for v in values]) for k in range(len(sample)))
    filled = [v if v is not None else (z3.BoolVal(False) if z3.is_bool(sample) else z3.IntVal(NONE))
              for v in values]
    merged = filled[-1]
    for cond, value in zip(reversed(conds[:-1]), reversed(filled[:-1])):
        merged = if_(cond, value, merged)
    return merged


def _same(a, b) -> bool:
    if a is b:
        return True
    if isinstance(a, z3.AstRef) and isinstance(b, z3.AstRef):
        return a.eq(b)
    if isinstance(a, (SlotV, RefV)) and type(a) is type(b):
        return all(_same(getattr(a, f), getattr(b, f)) for f in a.__slots__)
    if isinstance(a, ListV) and isinstance(b, ListV):
        return len(a.items) == len(b.items) and all(_same(x[0], y[0]) and _same(x[1], y[1])
                                                    for x, y in zip(a.items, b.items))
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return False


STATE_FIELDS = ("card", "ns", "mturn", "mseq", "mby", "changed", "held", "hc", "top", "active")


def merge_states(conds: list, states: list[Situation]) -> Situation:
    first = states[0]
    if len(states) == 1:
        return first
    changes = {}
    for name in STATE_FIELDS:
        values = [getattr(s, name) for s in states]
        if name in ("card", "mturn", "mseq", "mby"):
            changes[name] = [[merge_value(conds, [v[i][j] for v in values]) for j in range(len(values[0][i]))]
                             for i in range(len(values[0]))]
        elif name in ("ns", "changed", "held"):
            changes[name] = [merge_value(conds, [v[k] for v in values]) for k in range(len(values[0]))]
        else:
            changes[name] = merge_value(conds, values)
    changes["ref"] = merge_value(conds, [s.ref for s in states])
    changes["ints"] = {k: merge_value(conds, [s.ints[k] for s in states]) for k in first.ints}
    changes["vars"] = {k: merge_value(conds, [s.vars[k] for s in states]) for k in first.vars}
    changes["pvars"] = {k: [merge_value(conds, [s.pvars[k][i] for s in states]) for i in range(len(first.pvars[k]))]
                        for k in first.pvars}
    return derived(first, **changes)


def merge_ctx(conds: list, contexts: list[Ctx]) -> Ctx:
    return Ctx(*(merge_value(conds, [getattr(c, f) for c in contexts]) for f in
                 ("actor", "user", "power", "tc", "targets", "chosen")))


def merge_frames(conds: list, stacks: list[tuple]) -> tuple:
    merged = []
    for position, frame in enumerate(stacks[0]):
        frames = [stack[position] for stack in stacks]
        names = [name for name, _ in frame.env]
        env = tuple((name, merge_value(conds, [dict(f.env).get(name) for f in frames])) for name in names)
        items = tuple(merge_value(conds, [f.items[k] for f in frames]) for k in range(len(frame.items)))
        merged.append(replace(frame, env=env, ctx=merge_ctx(conds, [f.ctx for f in frames]), items=items))
    return tuple(merged)


def merge_outcomes(outcomes: list, path: list):
    """Runs that went different ways from one point and all came back to the same frames, as one:
    (frames, state, path) where each value is the one of the way whose conditions hold."""
    if len(outcomes) == 1:
        extra, frames, state = outcomes[0]
        return frames, state, path + extra
    conds = [and_(extra) for extra, _, _ in outcomes]
    frames = merge_frames(conds, [f for _, f, _ in outcomes])
    state = merge_states(conds, [s for _, _, s in outcomes])
    return frames, state, path if covers_everything(conds) else path + [or_(conds)]


def covers_everything(conds: list) -> bool:
    """Whether one of these conditions plainly always holds: each a conjunction of conditions a
    branch took, so that the ways of an `if` (c, not c) or of nested ones cover everything. Decided
    on the terms (a case split on each condition in turn), not by Z3's simplifier, which rewrote
    the whole of every term each time; when not plain, the caller keeps the disjunction in the
    path (true, and sound either way)."""
    cubes = []
    for cond in conds:
        known = truth(cond)
        if known is True:
            return True
        if known is False:
            continue
        cubes.append(frozenset(_literal(c) for c in _conjuncts(cond)))
    return _tautology(cubes, [200])


def _conjuncts(term) -> list:
    if not z3.is_and(term):
        return [term]
    return [c for child in term.children() for c in _conjuncts(child)]


def _literal(term) -> tuple:
    """(the id of the condition, whether it holds or its negation does)."""
    if z3.is_not(term):
        return term.arg(0).get_id(), False
    return term.get_id(), True


def _tautology(cubes: list, budget: list) -> bool:
    """Whether some cube holds whatever the conditions are (Shannon expansion on one condition of
    the first cube); False when the budget of splits runs out (not plain)."""
    if any(not cube for cube in cubes):
        return True
    if not cubes or budget[0] <= 0:
        return False
    budget[0] -= 1
    condition, _ = next(iter(cubes[0]))
    holds, fails = (condition, True), (condition, False)
    return _tautology([c - {holds} for c in cubes if fails not in c], budget) and \
        _tautology([c - {fails} for c in cubes if holds not in c], budget)


# ---- outcomes ---------------------------------------------------------------------------

@dataclass
class Stop:
    """Where a run ends: `ask` (the game waits), `cut` (a loop head), `over` (the round ended);
    with `cut_powers`, `power` (a queued power about to be played) and `played` (a power played
    on its own is over)."""

    what: str
    frames: tuple
    state: Situation
    path: list
    clauses: list = field(default_factory=list)     # for an ask: [(asker term or None, kinds)]
    ctx: Ctx | None = None                          # for an ask: the asking frame's context
    where: str = ""

    @property
    def key(self) -> tuple:
        return (self.what, stack_key(self.frames))


@dataclass
class Obligation:
    """Something that must hold on a path: a primitive's precondition, a bound of the execution."""

    path: list
    holds: object
    what: str
    where: str


class Executor:
    """Runs the spec's statements on symbolic states of one rule set."""

    def __init__(self, spec: Spec, bounds):
        self.spec = spec
        self.bounds = bounds
        self.obligations: list[Obligation] = []
        self.anytime = {kind for kind, decl in spec.handlers.items() if decl.anytime}
        # whether a path can happen (a solver's answer); None: every path is kept
        self.feasible = None
        # induction: a queued power is not played where it is queued; the run stops there (`power`)
        self.cut_powers = False
        self._plain: dict = {}       # term id -> (decided value, the term, kept alive with its id)
        self._asking: dict = {}      # id of a statement -> (whether it can reach an ask, the statement)

    # -- translation -------------------------------------------------------------------
    def tr(self, s: Situation) -> Translator:
        found = s.__dict__.get("_translator")
        if found is None:
            found = Translator(self.spec, s)
            s.__dict__["_translator"] = found
        return found

    def value(self, expr, s: Situation, frame: Frame):
        return self.tr(self.in_context(s, frame.ctx)).expr(expr, frame.locals())

    @staticmethod
    def in_context(s: Situation, ctx: Ctx) -> Situation:
        """in_context(s, ctx), made once per context (with its translator, which remembers what it
        translated: the frames of a run share their context, and the same expressions recur)."""
        contexts = s.__dict__.setdefault("_contexts", {})
        found = contexts.get(id(ctx))
        if found is None:
            found = contexts[id(ctx)] = (in_context(s, ctx), ctx)     # the context kept alive: its id stays its own
        return found[0]

    def default(self, type_) -> object:
        return Translator.default(None, type_)

    # -- running ----------------------------------------------------------------------------
    def run(self, frames: tuple, state: Situation, path: list, depth: int = -1) -> list[Stop]:
        """Every way the run can go from here to where it stops; with `depth`, also where the
        frames above that depth have all returned (a statement run on its own, then merged)."""
        stops: list[Stop] = []
        work = [(tuple(frames), state, list(path))]
        while work:
            frames, state, path = work.pop()
            if len(frames) == depth:
                stops.append(Stop("returned", frames, state, path))
                continue
            if not frames:
                stops.append(Stop("over", (), state, path))
                continue
            frame = frames[-1]
            if frame.index < len(frame.body):
                stmt = frame.body[frame.index]
                advanced = frames[:-1] + (replace(frame, index=frame.index + 1),)
                results = self.merged(stmt, advanced, state, path) if self.mergeable(stmt, frame) else \
                    self.statement(stmt, advanced, state, path)
                for result in results:
                    if isinstance(result, Stop):
                        stops.append(result)
                    else:
                        work.append(result)
            else:
                for result in self.end_of_frame(frames, state, path):
                    if isinstance(result, Stop):
                        stops.append(result)
                    else:
                        work.append(result)
        return stops

    # -- merging the branches of a statement that cannot ask ----------------------------------------
    def mergeable(self, stmt, frame: Frame) -> bool:
        """A statement that branches but never reaches an ask: its branches are run to their end and
        merged there, so that the runs do not multiply with every `if` on the way."""
        if frame.kind == "merge" or not isinstance(stmt, (ast.If, ast.For, ast.While, ast.CallProc, ast.Draw,
                                                           ast.Flip, ast.Deal)):
            return False
        return not self.may_ask([stmt])

    def may_ask(self, body: list) -> bool:
        return any(self.asks_here(stmt) for stmt in ast.walk_statements(body))

    def asks_here(self, stmt) -> bool:
        """Whether a statement asks, resolves powers, or calls a procedure that can (remembered per
        statement of the spec's syntax trees, which live as long as the spec)."""
        key = id(stmt)
        if key not in self._asking:
            self._asking[key] = (False, stmt)        # guards a recursion (the resolver refuses one anyway)
            found = isinstance(stmt, (ast.Ask, ast.ResolvePowers)) or \
                isinstance(stmt, ast.CallProc) and self.may_ask(self.spec.procedures[stmt.name].body)
            self._asking[key] = (found, stmt)
        return self._asking[key][0]

    def merged(self, stmt, frames: tuple, state: Situation, path: list):
        """The statement run on its own to its end, every way it can go merged into one state."""
        frame = frames[-1]
        alone = Frame(frame.where, (stmt,), env=frame.env, ctx=frame.ctx, kind="merge")
        returned = self.run(frames + (alone,), state, path, depth=len(frames))
        prefix = len(path)
        if not returned:
            return []        # no way through (every one left the bounds)
        return [merge_outcomes([(r.path[prefix:], r.frames, r.state) for r in returned], path)]

    def end_of_frame(self, frames: tuple, state: Situation, path: list) -> list:
        frame = frames[-1]
        below = frames[:-1]
        if frame.kind in ("merge", "block") and below:      # these share their locals with the frame below
            below = below[:-1] + (replace(below[-1], env=frame.env),)
            frame = replace(frame, kind="popped")
        if frame.kind == "for":
            return self.next_item(below, frame, state, path)
        if frame.kind == "while":
            return self.loop_again(below, frame, state, path)
        if frame.kind == "queue":
            return self.next_power(below, frame, state, path)
        if frame.kind == "played":  # below a power played on its own: it and its action_end are over
            return [Stop("played", below, state, path, where=frame.where)]
        if frame.kind == "reset":   # after action_end: the running action's changes are forgotten
            return [(below, derived(state, changed=[z3.BoolVal(False)] * len(state.changed)), path)]
        if frame.action:            # a complete action: the machinery runs procedure action_end
            decl = self.spec.procedures["action_end"]
            return [(below + (Frame("reset", ()), body_frame("procedure action_end", decl.body)), state, path)]
        return [(below, state, path)]

    # -- statements ----------------------------------------------------------------------------
    def statement(self, stmt, frames: tuple, state: Situation, path: list) -> list:
        frame = frames[-1]
        method = getattr(self, "s_" + type(stmt).__name__)
        return method(stmt, frames, frame, state, path)

    def branch(self, path: list, condition) -> list | None:
        """The path with a condition added; None when the condition is plainly false."""
        plain = self.plainly(condition)
        if plain is False:
            return None
        return path if plain is True else path + [condition]

    def plainly(self, condition):
        """True or False when simplification decides the condition, else None (remembered per term:
        Z3 shares equal terms, and the same conditions come back on many paths)."""
        constant = truth(condition)
        if constant is not None:
            return constant
        key = condition.get_id()
        known = self._plain.get(key)
        if known is None:
            simple = z3.simplify(condition)
            known = (True if z3.is_true(simple) else False if z3.is_false(simple) else None, condition)
            self._plain[key] = known
        return known[0]

    def s_If(self, stmt: ast.If, frames, frame, state, path):
        results = []
        taken = []
        for cond, body in stmt.branches:
            value = self.value(cond, state, frame)
            branch = self.branch(path, and_([not_(t) for t in taken] + [value]))
            if branch is not None:
                results.append((frames + (self.block(frame, body),), state, branch))
            taken.append(value)
        otherwise = self.branch(path, and_([not_(t) for t in taken])) if taken else path
        if otherwise is not None:
            results.append((frames + (self.block(frame, stmt.otherwise),), state, otherwise))
        return results

    @staticmethod
    def block(parent: Frame, body) -> Frame:
        """An if's branch: the engine runs it with the locals of the frame it is in."""
        return body_frame(parent.where, body, env=parent.env, ctx=parent.ctx, kind="block")

    def s_For(self, stmt: ast.For, frames, frame, state, path):
        domain = self.value(stmt.domain, state, frame)
        loop = body_frame(frame.where, stmt.body, kind="for", env=frame.env, ctx=frame.ctx, var=stmt.var,
                          items=tuple(domain.items), position=-1)
        return self.next_item(frames, loop, state, path)

    def next_item(self, below: tuple, loop: Frame, state, path) -> list:
        """The next item of a loop's list: where its guard holds the body runs with it, where it
        does not the item is not in the list and the loop goes on to the next."""
        position = loop.position + 1
        if position >= len(loop.items):
            return [(below, state, path)]
        guard, item = loop.items[position]
        results = []
        more = self.branch(path, guard)
        if more is not None:
            running = replace(loop, index=0, position=position).with_env(**{loop.var: item})
            results.append((below + (running,), state, more))
        absent = self.branch(path, not_(guard))
        if absent is not None:
            results.append((below + (replace(loop, index=len(loop.body), position=position),), state, absent))
        return results

    def s_While(self, stmt: ast.While, frames, frame, state, path):
        loop = body_frame(frame.where, stmt.body, kind="while", env=frame.env, ctx=frame.ctx, cond=stmt.cond,
                          iterations=0, index=len(stmt.body))
        return self.loop_again(frames, loop, state, path, first=True)

    def loop_again(self, below: tuple, loop: Frame, state, path, first: bool = False) -> list:
        value = self.value(loop.cond, state, loop)
        results = []
        done = self.branch(path, not_(value))
        if done is not None:     # the engine runs a while loop with the locals of its frame
            after = below[:-1] + (replace(below[-1], env=loop.env),) if below else below
            results.append((after, state, done))
        more = self.branch(path, value)
        if more is None:
            return results
        if self.is_cut(loop):
            results.append(Stop("cut", below + (replace(loop, index=0, iterations=0),), state, more,
                                where=loop.where))
            return results
        if loop.iterations >= self.bounds.players + WHILE_BOUND_EXTRA:
            # the execution would have to follow the loop further than it does: said, not assumed
            self.obligations.append(Obligation(more, z3.BoolVal(False), "a while loop runs at most "
                                               f"{loop.iterations} times", loop.where))
            return results
        results.append((below + (replace(loop, index=0, iterations=loop.iterations + 1),), state, more))
        return results

    def is_cut(self, loop: Frame) -> bool:
        """A loop whose body asks for moves is where a run stops and induction takes over."""
        return any(isinstance(stmt, (ast.Ask, ast.ResolvePowers)) or
                   isinstance(stmt, ast.CallProc) and self.asks(stmt.name, set())
                   for stmt in ast.walk_statements(list(loop.body)))

    def asks(self, procedure: str, seen: set) -> bool:
        if procedure in seen:
            return False
        seen.add(procedure)
        body = self.spec.procedures[procedure].body
        return any(isinstance(stmt, (ast.Ask, ast.ResolvePowers)) or
                   isinstance(stmt, ast.CallProc) and self.asks(stmt.name, seen)
                   for stmt in ast.walk_statements(body))

    def s_Set(self, stmt: ast.Set, frames, frame, state, path):
        value = self.value(stmt.value, state, frame)
        name = stmt.target
        if stmt.owner is not None:
            owner = self.value(stmt.owner, state, frame)
            decl = self.spec.player_vars[name]
            value = value if value is not None else self.default(decl.type)
            pvars = dict(state.pvars)
            pvars[name] = [ite(owner == i, value, old) for i, old in enumerate(state.pvars[name])]
            return [(frames, derived(state, pvars=pvars), path)]
        if name in self.spec.vars:
            value = value if value is not None else self.default(self.spec.vars[name].type)
            variables = dict(state.vars)
            variables[name] = value
            return [(frames, derived(state, vars=variables), path)]
        if name == "active":
            return [(frames, derived(state, active=value if value is not None else z3.IntVal(NONE)), path)]
        ints = dict(state.ints)
        ints[name] = value
        return [(frames, derived(state, ints=ints), path)]

    def s_Let(self, stmt: ast.Let, frames, frame, state, path):
        value = self.value(stmt.value, state, frame)
        return [(frames[:-1] + (frame.with_env(**{stmt.name: value}),), state, path)]

    def s_CallProc(self, stmt: ast.CallProc, frames, frame, state, path):
        decl = self.spec.procedures[stmt.name]
        env = {p.name: self.value(a, state, frame) for p, a in zip(decl.params, stmt.args)}
        called = body_frame(f"procedure {stmt.name}", decl.body, env=tuple(env.items()), ctx=frame.ctx)
        return [(frames + (called,), state, path)]

    def s_Ask(self, stmt: ast.Ask, frames, frame, state, path):
        clauses = [(self.value(a.asker, state, frame) if a.asker is not None else None, tuple(a.kinds))
                   for a in stmt.asked]
        stop = Stop("ask", frames, state, path, clauses, frame.ctx, f"{frame.where} ({stmt.loc})")
        nothing = self.nothing_possible(clauses, frame.ctx, state)
        skipped = self.branch(path, nothing)
        if skipped is not None and self.feasible is not None and not self.feasible(skipped):
            skipped = None      # some asked move is always possible here: the ask is never skipped
        return [stop] + ([(frames, state, skipped)] if skipped is not None else [])

    def nothing_possible(self, clauses, ctx: Ctx, state: Situation):
        """That no asked move is legal (where every form can be listed; else not assumed)."""
        from baobei.interpreter.moves import SHAPES
        refusals = []
        for asker, kinds in clauses:
            actors = [asker] if asker is not None else [z3.IntVal(i) for i in range(self.bounds.players)]
            for kind in kinds:
                shape = SHAPES[kind].args
                if shape not in _LISTED_SHAPES:
                    continue
                for actor in actors:
                    exists = actor < state.np if asker is None else z3.BoolVal(True)
                    refusals.append(or_([not_(exists), not_(self.some_form(kind, actor, ctx, state))]))
        return and_(refusals)

    def some_form(self, kind: str, actor, ctx: Ctx, state: Situation):
        """Some move of this kind by this actor is legal (the forms listed one by one)."""
        from baobei.interpreter.moves import SHAPES
        shape, counts = SHAPES[kind].args, SHAPES[kind].counts
        options = []
        for targets, chosen in self.forms(shape, counts, actor, state, kind):
            move = Ctx(actor, ctx.user, ctx.power, z3.IntVal(len(targets)),
                       tuple(targets) + (none_slot(),) * (2 - len(targets)), chosen)
            options.append(self.tr(in_context(state, move)).legal(kind)[0])
        return or_(options)

    def forms(self, shape: str, counts, actor, state: Situation, kind: str):
        nothing = z3.IntVal(NONE)
        if shape == "none":
            yield (), nothing
        elif shape == "player":
            for i in range(self.bounds.players):
                yield (), z3.IntVal(i)
        elif shape == "own":
            top = self.bounds.slots + (1 if kind == "place" else 0)
            own = [SlotV(actor, z3.IntVal(n)) for n in range(1, top + 1)]
            for count in counts:
                for slots in itertools.permutations(own, count):
                    yield slots, nothing

    def s_ResolvePowers(self, stmt, frames, frame, state, path):
        """The fired powers, in the order of their ranks (the engine's resolve_powers)."""
        tr = self.tr(self.in_context(state, frame.ctx))
        fired = []
        for role in self.roles():
            winner, rules = tr.fire(role)
            for index, rule in enumerate(rules):
                if isinstance(rule.body.role, ast.NoneLit):
                    continue
                card, user = tr.expr(rule.body.role), tr.expr(rule.body.user)
                card = card if card is not None else z3.IntVal(NONE)
                user = user if user is not None else z3.IntVal(NONE)
                power = tr.card_attr(card, "power")
                fires = and_([eq_(winner, index), not_(eq_(power, NONE)), not_(eq_(user, NONE))])
                fired.append((fires, rule.body.rank, power, user))
        # two powers at one rank stop the engine with an error: a gap `check` reports apart
        ties = [and_([a[0], b[0]]) for a, b in itertools.combinations(fired, 2) if a[1] == b[1]]
        ordered = sorted(fired, key=lambda item: item[1])
        queue = tuple((fires, power, user) for fires, _, power, user in ordered)
        path = self.branch(path, not_(or_(ties))) if ties else path
        if path is None:
            return []
        anything = or_([f for f, _, _ in queue])
        ints = dict(state.ints)
        ints["sequence"] = if_(anything, state.ints["sequence"] + 1, state.ints["sequence"])
        return [(frames + (Frame(frame.where, (), kind="queue", items=queue, position=-1),),
                 derived(state, ints=ints), path)]

    def roles(self) -> list[str]:
        from baobei.dsl.model import expr_text
        found = []
        for rule in self.spec.fire_rules():
            if not isinstance(rule.body.role, ast.NoneLit) and expr_text(rule.body.role) not in found:
                found.append(expr_text(rule.body.role))
        return found

    def next_power(self, below: tuple, queue: Frame, state, path) -> list:
        """The next fired power of the queue starts: one run per power it can be (with
        `cut_powers`: the run stops there, the queue moved on to that power)."""
        position = queue.position + 1
        if position >= len(queue.items):
            return [(below, state, path)]
        fires, power, user = queue.items[position]
        results = []
        skip = self.branch(path, not_(fires))
        moved = replace(queue, position=position)
        if skip is not None:
            results.append((below + (moved,), state, skip))
        if self.cut_powers:
            fired = self.branch(path, fires)
            if fired is not None:
                results.append(Stop("power", below + (moved,), state, fired, where=queue.where))
            return results
        for index, name in enumerate(self.tr(state).ix.powers):
            runs = self.branch(path, and_([fires, eq_(power, index)]))
            if runs is None:
                continue
            results.append((below + (moved, self.power_frame(name, user)), state, runs))
        return results

    def power_frame(self, name: str, user) -> Frame:
        """A power played by `user`: a complete action (action_end runs after it)."""
        index = list(self.spec.powers).index(name)      # the power's number (symbolic.py's Indexes)
        ctx = Ctx(user, user, z3.IntVal(index), z3.IntVal(0), (none_slot(), none_slot()), z3.IntVal(NONE))
        return body_frame(f"power {name}", self.spec.powers[name].body, ctx=ctx, action=True)

    def power_frames(self, name: str, user) -> tuple:
        """The frames of a power played on its own, from any table (induction.py): the run stops
        (`played`) once the power and its action_end are over."""
        return Frame(f"power {name} ({self.spec.powers[name].loc})", (), kind="played"), self.power_frame(name, user)

    # -- moves ---------------------------------------------------------------------------------
    def apply(self, stop: Stop, kind: str, move: Ctx) -> list:
        """The runs that follow a move at an ask (the engine's apply): its handler on top of the
        asking frame, an action when no action runs and no power is being played."""
        frames = stop.frames
        handler = self.spec.handlers.get(kind)
        if handler is None:
            return [(frames, stop.state, list(stop.path))]
        running = any(f.action and f.where.startswith("on ") for f in frames)
        no_power = z3.simplify(move.power == NONE)
        action = not running and z3.is_true(no_power)
        frame = body_frame(f"on {kind}", handler.body, ctx=move, action=action)
        return [(frames + (frame,), stop.state, list(stop.path))]

    # -- the primitives ---------------------------------------------------------------------------
    def within_bounds(self, path: list, inside):
        """A layout grows beyond the bounds' slots: that run leaves the tables reasoned about (the
        proofs hold for every run that stays within the bounds, as the report says)."""
        return self.branch(path, inside)

    def require(self, path: list, holds, what: str, stmt) -> None:
        if self.plainly(holds) is not True:
            self.obligations.append(Obligation(list(path), holds, what, str(stmt.loc)))

    def agent(self, ctx: Ctx):
        return if_(not_(eq_(ctx.power, NONE)), ctx.user, ctx.actor)

    def changed(self, state: Situation, owner, ctx: Ctx) -> list:
        agent = self.agent(ctx)
        return [or_([flag, and_([eq_(owner, i), not_(eq_(agent, i))])]) for i, flag in enumerate(state.changed)]

    def marked(self, state: Situation, slot: SlotV, ctx: Ctx):
        """The movement marks a power leaves on a card it moves into a slot."""
        by_power = not_(eq_(ctx.power, NONE))
        cells = {}
        for name, value in (("mturn", state.ints["turn"]), ("mseq", state.ints["sequence"]), ("mby", ctx.user)):
            cells[name] = set_cell(state, getattr(state, name), slot, value, only=by_power)
        return cells

    def card_at(self, state: Situation, slot: SlotV):
        return state.at(slot, state.card, z3.IntVal(NONE))

    def cleared(self, state: Situation, slot: SlotV) -> dict:
        """A slot emptied: no card, no marks."""
        return {"card": set_cell(state, state.card, slot, int_(NONE)),
                "mturn": set_cell(state, state.mturn, slot, int_(-1)),
                "mseq": set_cell(state, state.mseq, slot, int_(-1)),
                "mby": set_cell(state, state.mby, slot, int_(NONE))}

    def reference(self, state: Situation, card, how: str | None, by, previous=None) -> RefV:
        if how is None:
            return previous if previous is not None else state.ref
        value = self.tr(state).ix.enum_value[how]
        return RefV(card, z3.IntVal(value), by, z3.BoolVal(True))

    # A card from the pile is drawn one at a time; an empty pile runs `procedure recycle`
    # first, and a pile still empty after it gives no card (the draw is skipped).
    def s_Draw(self, stmt: ast.Draw, frames, frame, state, path):
        count = self.value(stmt.count, state, frame)
        steps = tuple(_Need(("held",), k < count, stmt.loc) for k in range(self.bounds.held))
        steps += (_DrawnReference(stmt.how, state.hc, stmt.loc),) if stmt.how is not None else ()
        return [(frames + (Frame(frame.where, steps, env=frame.env, ctx=frame.ctx),), state, path)]

    def s_Flip(self, stmt: ast.Flip, frames, frame, state, path):
        return [(frames + (Frame(frame.where, (_Need(("flip", stmt.how), z3.BoolVal(True), stmt.loc),),
                                 env=frame.env, ctx=frame.ctx),), state, path)]

    def s_Deal(self, stmt: ast.Deal, frames, frame, state, path):
        count = self.value(stmt.count, state, frame)
        # one round more than the bounds' slots: a deal that would not fit leaves the tables reasoned about
        steps = tuple(_Need(("deal", p), and_([k < count, p < state.np]), stmt.loc)
                      for k in range(self.bounds.slots + 1) for p in range(self.bounds.players))
        return [(frames + (Frame(frame.where, steps, env=frame.env, ctx=frame.ctx),), state, path)]

    def s__Need(self, step: "_Need", frames, frame, state, path):
        results = []
        skipped = self.branch(path, not_(step.guard))
        if skipped is not None:
            results.append((frames, state, skipped))
        wanted = self.branch(path, step.guard)
        if wanted is None:
            return results
        some = state.ints["deck_size"] > 0
        has = self.branch(wanted, some)
        if has is not None:
            results.append(self.put(step, frames, frame, state, has))
        results = [r for r in results if r is not None]
        empty = self.branch(wanted, not_(some))
        if empty is not None:
            decl = self.spec.procedures["recycle"]
            after = Frame(frame.where, (_Take(step.into, step.loc),), env=frame.env, ctx=frame.ctx)
            results.append((frames + (after, body_frame("procedure recycle", decl.body, ctx=frame.ctx)),
                            state, empty))
        return results

    def s__Take(self, step: "_Take", frames, frame, state, path):
        results = []
        some = state.ints["deck_size"] > 0
        has = self.branch(path, some)
        if has is not None and (put := self.put(step, frames, frame, state, has)) is not None:
            results.append(put)
        none = self.branch(path, not_(some))
        if none is not None:
            results.append((frames, state, none))
        return results

    def drawn_card(self, state: Situation):
        """The top card of the pile and what is known of it: any card (the pile's order is not
        followed)."""
        card = z3.Int(fresh("drawn"))
        return card, [card >= 0, card < len(self.tr(state).ix.cards)]

    def card_below_top(self, state: Situation):
        """The card under the discard's top: any card."""
        return z3.Int(fresh("below_top"))

    def put(self, step, frames, frame, state: Situation, path: list):
        """The top card of the pile (any card the counts allow) where the draw puts it."""
        card, known = self.drawn_card(state)
        path = path + known
        ints = dict(state.ints)
        ints["deck_size"] = state.ints["deck_size"] - 1
        state = derived(state, ints=ints)
        where = step.into[0]
        if where == "held":
            held = [if_(eq_(state.hc, k), card, h) for k, h in enumerate(state.held)]
            return frames, derived(state, held=held, hc=state.hc + 1), path
        if where == "flip":
            ints["discard_size"] = state.ints["discard_size"] + 1
            ref = self.reference(state, card, step.into[1], z3.IntVal(NONE))
            return frames, derived(state, ints=ints, top=card, ref=ref), path
        player = step.into[1]
        path = self.within_bounds(path, state.ns[player] < self.bounds.slots)
        if path is None:
            return None
        slot = SlotV(z3.IntVal(player), state.ns[player] + 1)
        ns = list(state.ns)
        ns[player] = state.ns[player] + 1
        return frames, derived(state, card=set_cell(state, state.card, slot, card), ns=ns), path

    def s__DrawnReference(self, step: "_DrawnReference", frames, frame, state, path):
        """The first card a draw statement drew becomes the reference (when it drew any)."""
        first = z3.IntVal(NONE)
        for k in reversed(range(len(state.held))):
            first = if_(eq_(step.before, k), state.held[k], first)
        drawn = self.reference(state, first, step.how, frame.ctx.actor)
        ref = RefV(*(if_(state.hc > step.before, new, old) for new, old in
                     ((drawn.card, state.ref.card), (drawn.how, state.ref.how), (drawn.by, state.ref.by),
                      (drawn.open, state.ref.open))))
        return [(frames, derived(state, ref=ref), path)]

    def s_Discard(self, stmt: ast.Discard, frames, frame, state, path):
        ctx = frame.ctx
        ints = dict(state.ints)
        ints["discard_size"] = state.ints["discard_size"] + 1
        if stmt.source is None:
            self.require(path, state.hc >= 1, "discard held: a card is held", stmt)
            card = state.held[0]
            held, hc = shift_held(state)
            ref = self.reference(state, card, stmt.how, ctx.actor)
            return [(frames, derived(state, held=held, hc=hc, ints=ints, top=card, ref=ref), path)]
        slot = self.value(stmt.source, state, frame)
        card = self.card_at(state, slot)
        self.require(path, card != NONE, f"discard {_text(stmt.source)}: the slot holds a card", stmt)
        ref = self.reference(state, card, stmt.how, ctx.actor)
        cells = self.cleared(state, slot)
        return [(frames, derived(state, **cells, ints=ints, top=card, ref=ref,
                                 changed=self.changed(state, slot.p, ctx)), path)]

    def s_Bury(self, stmt: ast.Bury, frames, frame, state, path):
        ints = dict(state.ints)
        ints["under_size"] = state.ints["under_size"] + 1
        if stmt.source is None:
            self.require(path, state.hc >= 1, "bury held: a card is held", stmt)
            held, hc = shift_held(state)
            return [(frames, derived(state, held=held, hc=hc, ints=ints), path)]
        slot = self.value(stmt.source, state, frame)
        self.require(path, self.card_at(state, slot) != NONE, f"bury {_text(stmt.source)}: the slot holds a card",
                     stmt)
        return [(frames, derived(state, **self.cleared(state, slot), ints=ints,
                                 changed=self.changed(state, slot.p, frame.ctx)), path)]

    def free(self, state: Situation, slot: SlotV):
        """An emptied slot, or the next new one."""
        new = and_([slot.p >= 0, slot.p < state.np, eq_(slot.n, state.slot_count(slot.p) + 1)])
        return or_([and_([state.slot_exists(slot), eq_(self.card_at(state, slot), NONE)]), new]), new

    def grown(self, state: Situation, slot: SlotV, new) -> list:
        self_ns = list(state.ns)
        return [if_(and_([new, eq_(slot.p, i)]), n + 1, n) for i, n in enumerate(self_ns)]

    def s_Place(self, stmt: ast.Place, frames, frame, state, path):
        slot = self.value(stmt.slot, state, frame)
        free, new = self.free(state, slot)
        self.require(path, z3.And(state.hc >= 1, free),
                     f"place held into {_text(stmt.slot)}: a card is held and the slot is free", stmt)
        path = self.within_bounds(path, z3.Implies(new, state.slot_count(slot.p) < self.bounds.slots))
        if path is None:
            return []
        ns = self.grown(state, slot, new)
        grown = derived(state, ns=ns)
        card = state.held[0]
        held, hc = shift_held(state)
        cells = self.marked(grown, slot, frame.ctx)
        cells["card"] = set_cell(grown, grown.card, slot, card)
        return [(frames, derived(grown, **cells, held=held, hc=hc,
                                 changed=self.changed(state, slot.p, frame.ctx)), path)]

    def s_TakeTop(self, stmt, frames, frame, state, path):
        self.require(path, state.ints["discard_size"] >= 1, "take top: the discard holds a card", stmt)
        ints = dict(state.ints)
        ints["discard_size"] = state.ints["discard_size"] - 1
        held = [state.top] + list(state.held[:-1])
        below = self.card_below_top(state)   # the card under the top (none when the discard is then empty)
        top = z3.If(ints["discard_size"] >= 1, below, z3.IntVal(NONE))
        return [(frames, derived(state, held=held, hc=state.hc + 1, ints=ints, top=top),
                 path + [z3.Implies(ints["discard_size"] >= 1, z3.And(below >= 0,
                                                                      below < len(self.tr(state).ix.cards)))])]

    def s_Swap(self, stmt: ast.Swap, frames, frame, state, path):
        a, b = self.value(stmt.first, state, frame), self.value(stmt.second, state, frame)
        ca, cb = self.card_at(state, a), self.card_at(state, b)
        self.require(path, z3.And(ca != NONE, cb != NONE),
                     f"swap {_text(stmt.first)} with {_text(stmt.second)}: both slots hold a card", stmt)
        swapped = derived(state, card=set_cell(state, set_cell(state, state.card, a, cb), b, ca))
        marks = self.marked(derived(swapped, **self.marked(swapped, a, frame.ctx)), b, frame.ctx)
        changed = self.changed(derived(state, changed=self.changed(state, a.p, frame.ctx)), b.p, frame.ctx)
        return [(frames, derived(swapped, **marks, changed=changed), path)]

    def s_Move(self, stmt: ast.Move, frames, frame, state, path):
        a, b = self.value(stmt.source, state, frame), self.value(stmt.dest, state, frame)
        card = self.card_at(state, a)
        free, new = self.free(state, b)
        self.require(path, card != NONE, f"move {_text(stmt.source)} to {_text(stmt.dest)}: a card to move", stmt)
        self.require(path, free, f"move {_text(stmt.source)} to {_text(stmt.dest)}: the destination is free", stmt)
        path = self.within_bounds(path, z3.Implies(new, state.slot_count(b.p) < self.bounds.slots))
        if path is None:
            return []
        emptied = derived(state, **self.cleared(state, a))
        grown = derived(emptied, ns=self.grown(emptied, b, new))
        cells = self.marked(grown, b, frame.ctx)
        cells["card"] = set_cell(grown, grown.card, b, card)
        changed = self.changed(derived(state, changed=self.changed(state, a.p, frame.ctx)), b.p, frame.ctx)
        return [(frames, derived(grown, **cells, changed=changed), path)]

    def s_Reveal(self, stmt: ast.Reveal, frames, frame, state, path):
        if stmt.how is None:
            return [(frames, state, path)]   # what players know is not modelled: no rule reads it
        slot = self.value(stmt.slot, state, frame)
        card = self.card_at(state, slot)
        shown = self.reference(state, card, stmt.how, frame.ctx.actor)
        ref = RefV(*(if_(not_(eq_(card, NONE)), new, old) for new, old in
                     ((shown.card, state.ref.card), (shown.how, state.ref.how), (shown.by, state.ref.by),
                      (shown.open, state.ref.open))))
        return [(frames, derived(state, ref=ref), path)]

    def s_CloseReference(self, stmt, frames, frame, state, path):
        ref = state.ref
        return [(frames, derived(state, ref=RefV(ref.card, ref.how, ref.by, z3.BoolVal(False))), path)]

    def s_Shuffle(self, stmt, frames, frame, state, path):
        """The discard but its top card, and the cards under it, become the pile."""
        ints = dict(state.ints)
        discard = state.ints["discard_size"]
        ints["deck_size"] = state.ints["deck_size"] + z3.If(discard >= 1, discard - 1, 0) + state.ints["under_size"]
        ints["discard_size"] = z3.If(discard >= 1, 1, 0)
        ints["under_size"] = z3.IntVal(0)
        return [(frames, derived(state, ints=ints), path)]


# Micro-statements of the primitives that draw: one card at a time.

@dataclass(frozen=True, eq=False)
class _Need:
    """A card is needed from the pile (when `guard` holds): into the held cards, onto the
    discard (flip, with its `how`), or into a new slot of a player (deal)."""

    into: tuple
    guard: object
    loc: object


@dataclass(frozen=True, eq=False)
class _Take:
    """After a recycle: the card, if the pile now has one."""

    into: tuple
    loc: object


@dataclass(frozen=True, eq=False)
class _DrawnReference:
    how: str
    before: object          # the number of held cards before the draw
    loc: object


def _text(expr) -> str:
    from baobei.dsl.unparse import expr as unparse
    return unparse(expr)
