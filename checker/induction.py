"""Invariants proved, not assumed: every invariant holds at every decision of every round.

A round is its setup, then turns, each an iteration of the loop that asks for moves (the
*cut point*). From the start of a round, and from any state at the cut point, the spec's
statements are run symbolically (execute.py) through every decision the game can wait for,
up to the next cut point or the end of the round. The runs are merged per decision (the same
frames, the same place in the spec): the state at a decision is exactly a state the rules
reach from the start of the turn, whatever the moves made before it.

What holds at the cut point is found, not assumed: a set of candidate facts (the spec's
invariants, facts about each variable and about the machinery's table) is narrowed until it
is inductive (Houdini): it holds at the first cut point of every round and at the next cut
point after any turn that started from it. Then each invariant must hold at every decision
reached from the start of a round or from such a cut point. An invariant that does not is a
finding, with the decision, the moves that lead there and the table; a query Z3 cannot decide
is a finding too. Only the invariants proved may be assumed by the other checks.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace

import z3

from baobei.dsl import ast, schema
from baobei.interpreter.moves import SHAPES

from .execute import Ctx, Executor, Obligation, Stop, body_frame, derived, empty_ctx, in_context
from .symbolic import NONE, ListV, RefV, Situation, SlotV, ite, new_solver, none_slot

_ids = itertools.count()
PRUNE_TIMEOUT_MS = 2_000      # a pruning query undecided in time keeps its path


# ---- merging the runs that reach one decision -------------------------------------------------

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
        merged = z3.If(cond, value, merged)
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


# ---- abstract copies, for finding which decisions follow which ---------------------------------

def abstract_value(value):
    if value is None:
        return None
    if isinstance(value, SlotV):
        return SlotV(z3.FreshInt("a"), z3.FreshInt("a"))
    if isinstance(value, RefV):
        return RefV(z3.FreshInt("a"), z3.FreshInt("a"), z3.FreshInt("a"), z3.FreshBool("a"))
    if isinstance(value, ListV):
        return ListV([(z3.FreshBool("a"), abstract_value(item)) for _, item in value.items])
    if isinstance(value, tuple):
        return tuple(abstract_value(v) for v in value)
    if z3.is_bool(value):
        return z3.FreshBool("a")
    return z3.FreshInt("a")


def abstract_stop(stop: Stop, fresh_state: Situation) -> Stop:
    frames = tuple(replace(f, env=tuple((n, abstract_value(v)) for n, v in f.env),
                           ctx=Ctx(*(abstract_value(getattr(f.ctx, k)) for k in
                                     ("actor", "user", "power", "tc", "targets", "chosen")))
                           if not _constant_ctx(f.ctx) else f.ctx,
                           items=tuple(abstract_value(i) for i in f.items)) for f in stop.frames)
    clauses = [(abstract_value(a) if a is not None else None, kinds) for a, kinds in stop.clauses]
    return Stop(stop.what, frames, fresh_state, [], clauses, stop.ctx, stop.where)


def _constant_ctx(ctx: Ctx) -> bool:
    """A power frame's context stays concrete: which power runs decides the statements."""
    return ctx.power is not None and z3.is_int_value(z3.simplify(ctx.power))


# ---- the decisions of a turn ---------------------------------------------------------------------

@dataclass
class Decision:
    """One place the game waits for a move, with every run that reaches it merged."""

    key: tuple
    stop: Stop                         # the merged frames and state
    reach: object                      # some run reaches it
    waits: object = None               # ... and some asked move is legal there
    moves: list = field(default_factory=list)   # (kind, condition, Ctx) of each move made there


@dataclass
class Graph:
    """The decisions from one start to the next cut point or the end of the round."""

    start: str
    decisions: dict = field(default_factory=dict)      # key -> Decision, in order
    ends: dict = field(default_factory=dict)           # "cut" / "over" -> (reach, merged stop)
    obligations: list = field(default_factory=list)    # (condition, Obligation)
    anytime: list = field(default_factory=list)        # (condition, state after) of moves allowed anytime


class Turns:
    """Builds the graphs of the setup and of a turn at a table of `players`, and proves what must
    hold there. One table size at a time: the deal, the turn order and every loop over the
    players are then concrete, and the runs do not multiply with them."""

    def __init__(self, spec, edition, bounds, players: int):
        from .symbolic import Bounds
        self.spec = spec
        self.edition = edition
        self.players = players
        self.bounds = Bounds(players, bounds.slots, bounds.held)
        self.executor = Executor(spec, self.bounds)

    def situation(self, stem: str) -> Situation:
        s = Situation(self.spec, self.edition, self.bounds, tag=f"{stem}{next(_ids)}_")
        return derived(s, np=z3.IntVal(self.players))

    # -- starts -------------------------------------------------------------------------------
    def round_start(self, tiebreak: bool) -> tuple[tuple, Situation, list]:
        """A round before its setup: empty layouts, the whole deck in the pile, the spec's variables
        at their initial values (game variables as earlier rounds left them)."""
        s = self.situation("start")
        s = derived(s, tiebreak=z3.BoolVal(tiebreak))
        from .translate import Translator
        tr = Translator(self.spec, s)
        variables = {name: _or_default(tr, tr.expr(decl.init), decl.type) for name, decl in self.spec.vars.items()}
        pvars = {name: ([_or_default(tr, tr.expr(decl.init), decl.type)] * self.bounds.players if not decl.game
                        else list(s.pvars[name])) for name, decl in self.spec.player_vars.items()}
        ints = dict(s.ints)
        ints.update(turn=z3.IntVal(0), sequence=z3.IntVal(0), deck_size=z3.IntVal(self.edition.size),
                    discard_size=z3.IntVal(0), under_size=z3.IntVal(0),
                    threshold=z3.IntVal(self.edition.threshold[self.players]),
                    edition_deal=z3.IntVal(self.edition.deal[self.players]))
        P, S = self.bounds.players, self.bounds.slots
        state = derived(s, ns=[z3.IntVal(0)] * P, card=[[z3.IntVal(NONE)] * S for _ in range(P)],
                        mturn=[[z3.IntVal(-1)] * S for _ in range(P)], mseq=[[z3.IntVal(-1)] * S for _ in range(P)],
                        mby=[[z3.IntVal(NONE)] * S for _ in range(P)], changed=[z3.BoolVal(False)] * P,
                        held=[z3.IntVal(NONE)] * self.bounds.held, hc=z3.IntVal(0), top=z3.IntVal(NONE),
                        ref=RefV(z3.IntVal(NONE), z3.IntVal(NONE), z3.IntVal(NONE), z3.BoolVal(False)),
                        vars=variables, pvars=pvars, ints=ints, active=s.first)
        constraints = [s.first >= 0, s.first < s.np, s.lot >= NONE, s.lot < s.np]
        frames = tuple(body_frame(f"procedure {name}", self.spec.procedures[name].body) for name in ("turns", "setup"))
        return frames, state, constraints

    def cut_start(self, cut: Stop) -> tuple[tuple, Situation, list]:
        """Any state at the cut point: a fresh symbolic table (its facts are assumed by the caller)."""
        for frame in cut.frames:
            if frame.env or frame.items:
                from baobei.dsl.errors import SolverError
                raise SolverError(f"the loop that asks for moves ({frame.where}) keeps local values from one "
                                  f"iteration to the next: the checker cannot start its induction there")
        s = self.situation("cut")
        return cut.frames, s, s.constraints()

    # -- the graph ----------------------------------------------------------------------------
    def graph(self, name: str, frames: tuple, state: Situation, constraints: list) -> Graph:
        """The decisions from this start: `constraints` say which starts can be (they prune the
        runs that cannot happen; what the graph then proves assumes them)."""
        graph = Graph(name)
        self.base = list(constraints)
        reach = z3.BoolVal(True)
        first_stops = self.runs(graph, reach, frames, state, [])
        order = self.discover(first_stops)
        incoming: dict = {}
        self.collect(graph, incoming, reach, first_stops)
        for key in order:
            runs = incoming.get(key)
            if not runs:
                continue
            conds = [cond for cond, _ in runs]
            stops = [stop for _, stop in runs]
            merged = Stop("ask", merge_frames(conds, [s.frames for s in stops]), merge_states(conds, [s.state for s in stops]),
                          [], [(merge_value(conds, [s.clauses[k][0] for s in stops]), stops[0].clauses[k][1])
                               for k in range(len(stops[0].clauses))], merge_ctx(conds, [s.ctx for s in stops]),
                          stops[0].where)
            decision = Decision(key, merged, z3.Or(conds))
            graph.decisions[key] = decision
            self.moves_at(graph, incoming, decision)
        for end in ("cut", "over"):
            runs = incoming.get(("end", end))
            if runs:
                conds = [cond for cond, _ in runs]
                stops = [stop for _, stop in runs]
                graph.ends[end] = (z3.Or(conds), Stop(end, stops[0].frames, merge_states(conds, [s.state for s in stops]),
                                                      []))
        return graph

    def runs(self, graph: Graph, cond, frames, state, path, base=None) -> list[Stop]:
        """The runs from here; the obligations they meet are the graph's, under `cond`. A run that
        cannot happen under the graph's constraints is pruned (a solver says so)."""
        executor = self.executor
        solver = new_solver(*(self.base if base is None else base), cond, timeout_ms=PRUNE_TIMEOUT_MS)

        def feasible(extra: list) -> bool:
            solver.push()
            solver.add(*extra)
            result = solver.check()
            solver.pop()
            return result != z3.unsat          # unknown: kept (sound)
        executor.feasible = feasible
        before = len(executor.obligations)
        stops = executor.run(frames, state, path)
        executor.feasible = None
        graph.obligations += [(cond, o) for o in executor.obligations[before:]]
        del executor.obligations[before:]
        return stops

    def collect(self, graph: Graph, incoming: dict, reach, stops: list[Stop]) -> None:
        for stop in stops:
            cond = z3.And([reach] + stop.path) if stop.path else reach
            key = stop.key if stop.what == "ask" else ("end", stop.what)
            incoming.setdefault(key, []).append((cond, stop))

    def discover(self, first_stops: list[Stop]) -> list:
        """Which decisions follow which (abstract runs from each decision): the decisions in an
        order where every one comes after those that lead to it."""
        scratch = Graph("abstract")
        edges: dict = {}
        representative: dict = {}
        work = [s for s in first_stops if s.what == "ask"]
        starts = {s.key for s in work}
        while work:
            stop = work.pop()
            if stop.key in representative:
                continue
            representative[stop.key] = stop
            fresh_state = self.situation("abstract")
            abstract = abstract_stop(stop, fresh_state)
            following = set()
            for kind, move, asker in self.offered(abstract):
                legal = self.legal(abstract.state, kind, move, asker)
                for after in self.runs(scratch, legal, *self.executor.apply(abstract, kind, move)[0],
                                       base=fresh_state.constraints()):
                    if after.what == "ask":
                        following.add(after.key)
                        work.append(after)
            edges[stop.key] = following
        return _topological(starts, edges)

    def offered(self, stop: Stop):
        """(kind, move context, asker) of each move an ask offers (anytime moves apart)."""
        for asker, kinds in stop.clauses:
            for kind in kinds:
                yield kind, self.fresh_move(stop, kind, asker), asker

    def fresh_move(self, stop: Stop, kind: str, asker) -> Ctx:
        n = next(_ids)
        actor = z3.Int(f"m{n}_actor")
        targets = (SlotV(z3.Int(f"m{n}_t0_player"), z3.Int(f"m{n}_t0_number")),
                   SlotV(z3.Int(f"m{n}_t1_player"), z3.Int(f"m{n}_t1_number")))
        ctx = stop.ctx or empty_ctx()
        return Ctx(actor, ctx.user, ctx.power, z3.Int(f"m{n}_count"), targets, z3.Int(f"m{n}_chosen"))

    def moves_at(self, graph: Graph, incoming: dict, decision: Decision) -> None:
        stop = decision.stop
        choice = z3.Int(f"choice{next(_ids)}")
        options = []
        index = 0
        for asker, kinds in stop.clauses:
            for kind in kinds:
                move = self.fresh_move(stop, kind, asker)
                legal = self.legal(stop.state, kind, move, asker)
                cond = z3.And(decision.reach, choice == index, legal)
                index += 1
                options.append(z3.And(decision.reach, legal))
                decision.moves.append((kind, cond, move))
                self.collect(graph, incoming, cond, self.runs(graph, cond, *self.executor.apply(stop, kind, move)[0]))
        decision.waits = z3.Or(options) if options else z3.BoolVal(False)
        self.anytime_moves(graph, decision)

    def legal(self, state: Situation, kind: str, move: Ctx, asker):
        situation = in_context(state, move)
        shape = situation.move_shape(kind)
        who = [move.actor == asker] if asker is not None else [move.actor >= 0, move.actor < state.np]
        from .translate import Translator
        verdict = Translator(self.spec, situation).legal(kind)[0]
        return z3.And(shape + who + [verdict])

    def anytime_moves(self, graph: Graph, decision: Decision) -> None:
        """Moves the rules may allow at any decision (the setup peeks). What they change is, from
        here on, any value (an over-approximation: any number of them may have been played), and
        each one played from here must keep the invariants."""
        offered = {kind for _, kinds in decision.stop.clauses for kind in kinds}
        for kind in sorted(self.executor.anytime - offered):
            move = self.fresh_move(decision.stop, kind, None)
            cond = z3.And(decision.reach, self.legal(decision.stop.state, kind, move, None))
            decision.stop.state = self.havoc(decision.stop.state, kind, cond)
            for after in self.runs(graph, cond, *self.executor.apply(decision.stop, kind, move)[0]):
                graph.anytime.append((z3.And([cond] + after.path), after))

    def havoc(self, state: Situation, kind: str, possible) -> Situation:
        """The variables an anytime handler sets, as any value where it may have been played."""
        body = self.spec.handlers[kind].body
        if any(isinstance(stmt, (ast.Draw, ast.Discard, ast.Bury, ast.Place, ast.TakeTop, ast.Swap, ast.Move,
                                 ast.Flip, ast.Shuffle, ast.Deal)) for stmt in ast.walk_statements(body)):
            from baobei.dsl.errors import SolverError
            raise SolverError(f"'on {kind} anytime' moves cards: the checker's induction cannot follow it",
                              self.spec.handlers[kind].loc)
        variables, pvars = dict(state.vars), dict(state.pvars)
        for stmt in ast.walk_statements(body):
            if isinstance(stmt, ast.Set) and stmt.owner is not None:
                pvars[stmt.target] = [ite(possible, abstract_value(v), v) for v in pvars[stmt.target]]
            elif isinstance(stmt, ast.Set) and stmt.target in variables:
                variables[stmt.target] = ite(possible, abstract_value(variables[stmt.target]),
                                             variables[stmt.target])
        return derived(state, vars=variables, pvars=pvars)


def _or_default(tr, value, type_):
    return value if value is not None else tr.default(type_)


def _topological(starts: set, edges: dict) -> list:
    """Decisions ordered so that each comes after every decision that leads to it."""
    order, state = [], {}

    def visit(key):
        if state.get(key) == "done":
            return
        if state.get(key) == "visiting":
            from baobei.dsl.errors import SolverError
            raise SolverError("the decisions of a turn lead back to one another outside a loop: the checker "
                              "cannot order them")
        state[key] = "visiting"
        for following in edges.get(key, ()):
            visit(following)
        state[key] = "done"
        order.append(key)
    for key in sorted(starts, key=str):
        visit(key)
    return list(reversed(order))
