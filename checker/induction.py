"""Invariants proved, not assumed: every invariant holds at every decision of every round.

A round is its setup, then turns, each an iteration of the loop that asks for moves. The runs
are cut at two kinds of places, the *cut points*:

- CUT, the head of the loop that plays turns (a loop whose body asks);
- POWER, where a power of the queue `resolve powers` made is about to be played, and where a
  power played from there is over (its `action_end` included).

From the start of a round, and from any state at a cut point, the spec's statements are run
symbolically (execute.py) through every decision the game can wait for, up to the next cut
point or the end of the round: one *graph* per start. The graphs are: the setup (of a round and
of a tie-break round); a turn from the loop's head; each power of the spec, played by any player
of the table from any state at POWER; and, for each place of a queue the other graphs reach, the
turn going on after the power played there (the next queued power, or the rest of the turn),
from any state at POWER with abstract copies of the frames at that place (every value that is
not a constant is any value: the queue's powers and users were computed at `resolve powers`,
from a state no longer followed). Within a graph the runs are merged per decision (the same
frames, the same place in the spec): the state at a decision is exactly a state the rules reach
from the graph's start, whatever the moves made before it. A power is never merged into the
turn's states, so the terms stay the size of one turn's part, or of one power.

What holds at each cut point is found, not assumed: a set of candidate facts (the spec's
invariants, facts about each variable and about the machinery's table) is narrowed, for both
cut points at once, until each set is inductive (Houdini): F, the facts at CUT, hold after every
setup and at every CUT end of a graph that started where its own facts held; G, the facts at
POWER, likewise at every POWER end. Then each invariant must hold at every decision of every
graph, from a start where its facts hold (the primitives' preconditions on their paths too).

This is sound: every run of a round is a run of the setup's graph, then of the turn's graph up
to its first queued power, then runs of a power's graph and of the graph of that place of the
queue, in turn, up to the next turn; each of these runs starts in a state the facts of its cut
point describe (by induction over the cut points it passed), and every value its graph left
free (the table, the power's user, the queue's later powers) is one of those it reasons about.
An invariant that does not hold is a finding, with the graph, the decision, the moves that lead
there and the table; a query Z3 cannot decide is a finding too. Only the invariants proved may
be assumed by the other checks.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace

import z3

from baobei.dsl import ast, schema
from baobei.interpreter.moves import SHAPES

from .execute import (Ctx, Executor, Obligation, Stop, body_frame, derived, empty_ctx, in_context, merge_ctx,
                      merge_frames, merge_states, merge_value, stack_key)
from .symbolic import NONE, ListV, RefV, Situation, SlotV, and_, eq_, ite, new_solver, none_slot, not_, or_

_ids = itertools.count()
PRUNE_TIMEOUT_MS = 2_000      # a pruning query undecided in time keeps its path


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
                           ctx=Ctx(*(abstract_value(getattr(f.ctx, k)) for k in CTX_FIELDS))
                           if not _constant_ctx(f.ctx) else f.ctx,
                           items=tuple(abstract_value(i) for i in f.items)) for f in stop.frames)
    clauses = [(abstract_value(a) if a is not None else None, kinds) for a, kinds in stop.clauses]
    return Stop(stop.what, frames, fresh_state, [], clauses, stop.ctx, stop.where)


CTX_FIELDS = ("actor", "user", "power", "tc", "targets", "chosen")


def abstract_frames(frames: tuple) -> tuple[tuple, tuple]:
    """The frames with every value that is not a constant made any value (fresh), and which
    constants were kept (the signature: two stacks of one key and one signature have the same
    abstract copy). Any value over-approximates the value a run had, and a constant is the value
    of every run with that signature: the copy covers each run it was made from."""
    kept: list = []

    def value(v):
        if v is None:
            kept.append("-")
            return None
        if isinstance(v, SlotV):
            return SlotV(value(v.p), value(v.n))
        if isinstance(v, RefV):
            return RefV(value(v.card), value(v.how), value(v.by), value(v.open))
        if isinstance(v, (ListV, tuple)):
            items = v.items if isinstance(v, ListV) else v
            kept.append(f"[{len(items)}")
            copy = [value(item) for item in items]
            return ListV(copy) if isinstance(v, ListV) else tuple(copy)
        if z3.is_int_value(v) or z3.is_true(v) or z3.is_false(v):
            kept.append(str(v))
            return v
        kept.append("*")
        return z3.FreshBool("q") if z3.is_bool(v) else z3.FreshInt("q")
    copies = []
    for f in frames:
        env = tuple((name, value(v)) for name, v in f.env)
        ctx = Ctx(*(value(getattr(f.ctx, k)) for k in CTX_FIELDS))
        copies.append(replace(f, env=env, ctx=ctx, items=tuple(value(item) for item in f.items)))
    return tuple(copies), tuple(kept)


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


# The two cut points, and the ends of a graph at each: what holds there is found apart (F, G).
CUT, POWER = "cut", "power"
_POINT_NAMES = {CUT: "at the start of a turn", POWER: "where a queued power is played"}
END_POINTS = {"cut": CUT, "power": POWER, "played": POWER}
ENDS = ("cut", "over", "power", "played")


@dataclass
class Graph:
    """The decisions from one start to the next cut point or the end of the round."""

    start: str
    start_state: Situation = None
    assumes: str | None = None        # the cut point it starts from (its facts are assumed), None: a round
    context: Ctx | None = None        # the power played from the start (shown with a witness)
    decisions: dict = field(default_factory=dict)      # key -> Decision, in order
    ends: dict = field(default_factory=dict)           # cut / over / power / played -> (reach, merged stop)
    queued: list = field(default_factory=list)         # (condition, stop) where a queued power is about to be played
    obligations: list = field(default_factory=list)    # (condition, Obligation)
    anytime: list = field(default_factory=list)        # (condition, state after) of moves allowed anytime

    def shown_state(self) -> Situation:
        """The start as a witness shows it: with the power played from it, if any."""
        return self.assumed_states()[-1]

    def assumed_states(self) -> list[Situation]:
        """The start, in the contexts its facts are assumed in. A fact may read a move's context
        (who acts, the power played): Houdini shows each for any context (the state's own free
        terms, which no run changes), so it may be assumed in the context of the power played too."""
        if self.context is None:
            return [self.start_state]
        if getattr(self, "_in_context", None) is None:
            self._in_context = in_context(self.start_state, self.context)
        return [self.start_state, self._in_context]


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
        self.executor.cut_powers = True       # a queued power is a cut point of its own

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
        return cut.frames, s, well_formed(s)

    def power_start(self, name: str) -> tuple[tuple, Situation, list, Ctx]:
        """Any state where a queued power is about to be played (its facts are assumed by the
        caller), the power `name` played by any player of the table."""
        s = self.situation("power")
        user = z3.Int(f"power{next(_ids)}_user")
        frames = self.executor.power_frames(name, user)
        return frames, s, well_formed(s) + [user >= 0, user < s.np], frames[-1].ctx

    def queue_start(self, frames: tuple) -> tuple[tuple, Situation, list]:
        """Any state after a queued power was played (its facts are assumed by the caller), the turn
        going on from the queue: `frames` are abstract copies (abstract_frames)."""
        s = self.situation("queue")
        return frames, s, well_formed(s)

    # -- the graph ----------------------------------------------------------------------------
    def graph(self, name: str, frames: tuple, state: Situation, constraints: list, assumes: str | None = None,
              context: Ctx | None = None) -> Graph:
        """The decisions from this start: `constraints` say which starts can be (they prune the
        runs that cannot happen; what the graph then proves assumes them). Decisions are merged
        in the order the statements run in; a run that comes back to a decision already merged
        (a spec whose order the statements do not show) has the graph built again in the order
        found by exploring every decision (discover)."""
        graph = self._graph(name, frames, state, constraints, None)
        if graph is None:
            graph = self._graph(name, frames, state, constraints, self.discover)
        graph.assumes, graph.context = assumes, context
        return graph

    def _graph(self, name, frames, state, constraints, discover) -> Graph | None:
        graph = Graph(name, state)
        self.base = list(constraints)
        reach = z3.BoolVal(True)
        first_stops = self.runs(graph, reach, frames, state, [])
        incoming: dict = {}
        self.collect(graph, incoming, reach, first_stops)
        order = iter(discover(first_stops)) if discover else None
        merged: dict = {}                   # key -> how many runs it had when merged
        while True:
            if order is not None:
                key = next(order, None)
            else:
                waiting = [k for k in incoming if k[0] != "end" and k not in merged]
                key = min(waiting, key=_execution_order) if waiting else None
            if key is None:
                break
            runs = incoming.get(key)
            merged[key] = len(runs or ())
            if not runs:
                continue
            conds = [cond for cond, _ in runs]
            stops = [stop for _, stop in runs]
            merged_stop = Stop("ask", merge_frames(conds, [s.frames for s in stops]),
                               merge_states(conds, [s.state for s in stops]), [],
                               [(merge_value(conds, [s.clauses[k][0] for s in stops]), stops[0].clauses[k][1])
                                for k in range(len(stops[0].clauses))], merge_ctx(conds, [s.ctx for s in stops]),
                               stops[0].where)
            decision = Decision(key, merged_stop, or_(conds))
            graph.decisions[key] = decision
            self.moves_at(graph, incoming, decision)
        if any(len(incoming.get(key, ())) != count for key, count in merged.items()):
            return None                     # a run came back to a decision merged before it
        for end in ENDS:
            runs = incoming.get(("end", end))
            if runs:
                conds = [cond for cond, _ in runs]
                stops = [stop for _, stop in runs]
                graph.ends[end] = (or_(conds), Stop(end, stops[0].frames, merge_states(conds, [s.state for s in stops]),
                                                      [], where=stops[0].where))
        graph.queued = list(incoming.get(("end", "power"), ()))
        return graph

    def runs(self, graph: Graph, cond, frames, state, path, base=None) -> list[Stop]:
        """The runs from here; the obligations they meet are the graph's, under `cond`. A run that
        cannot happen under the graph's constraints is pruned (a solver says so)."""
        executor = self.executor
        solver = self.pruning_solver(base)
        solver.push()
        solver.add(cond)

        def feasible(extra: list) -> bool:
            solver.push()
            solver.add(*extra)
            result = solver.check()
            solver.pop()
            return result != z3.unsat          # unknown: kept (sound)
        executor.feasible = feasible
        before = len(executor.obligations)
        try:
            stops = executor.run(frames, state, path)
        finally:
            executor.feasible = None
            solver.pop()
        graph.obligations += [(cond, o) for o in executor.obligations[before:]]
        del executor.obligations[before:]
        return stops

    def pruning_solver(self, base) -> z3.Solver:
        """One solver per set of constraints, kept: each run pushes its own condition on it."""
        terms = self.base if base is None else base
        if getattr(self, "_pruning", None) is None or self._pruning[0] is not terms:
            self._pruning = (terms, new_solver(*terms, timeout_ms=PRUNE_TIMEOUT_MS))
        return self._pruning[1]

    def collect(self, graph: Graph, incoming: dict, reach, stops: list[Stop]) -> None:
        for stop in stops:
            cond = and_([reach] + stop.path) if stop.path else reach
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
        """A move of this kind at this ask, any the notation can write: the asked player plays it
        (anyone, for an ask of anyone), with what its shape lets it name. What the shape fixes is
        written as constants, so that conditions on it simplify away."""
        n = next(_ids)
        shape, counts = SHAPES[kind].args, SHAPES[kind].counts
        actor = asker if asker is not None else z3.Int(f"m{n}_actor")
        nothing = none_slot()
        if shape == "player":       # `add P`: one player named, no slot (count(targets) is 0)
            counts = (0,)
        count = z3.IntVal(counts[0]) if len(counts) == 1 else z3.Int(f"m{n}_count")
        if shape == "own":
            targets = tuple(SlotV(actor, z3.Int(f"m{n}_t{k}_number")) for k in range(2))
        elif shape == "slots":
            targets = tuple(SlotV(z3.Int(f"m{n}_t{k}_player"), z3.Int(f"m{n}_t{k}_number")) for k in range(2))
        else:
            targets = (nothing, nothing)
        if len(counts) == 1:        # the slots a fixed number of targets leaves unnamed are none
            targets = targets[:counts[0]] + (nothing,) * (2 - counts[0])
        chosen = z3.Int(f"m{n}_chosen") if shape == "player" else z3.IntVal(NONE)
        ctx = stop.ctx or empty_ctx()
        return Ctx(actor, ctx.user, ctx.power, count, targets, chosen)

    def moves_at(self, graph: Graph, incoming: dict, decision: Decision) -> None:
        stop = decision.stop
        choice = z3.Int(f"choice{next(_ids)}")
        options = []
        index = 0
        for asker, kinds in stop.clauses:
            for kind in kinds:
                move = self.fresh_move(stop, kind, asker)
                legal = self.legal(stop.state, kind, move, asker)
                cond = and_([decision.reach, eq_(choice, index), legal])
                index += 1
                options.append(and_([decision.reach, legal]))
                decision.moves.append((kind, cond, move))
                self.collect(graph, incoming, cond, self.runs(graph, cond, *self.executor.apply(stop, kind, move)[0]))
        decision.waits = or_(options)
        self.anytime_moves(graph, decision)

    def legal(self, state: Situation, kind: str, move: Ctx, asker):
        situation = in_context(state, move)
        shape = situation.move_shape(kind)
        who = [] if asker is not None else [move.actor >= 0, move.actor < state.np]
        from .translate import Translator
        verdict = Translator(self.spec, situation).legal(kind)[0]
        return and_(shape + who + [verdict])

    def anytime_moves(self, graph: Graph, decision: Decision) -> None:
        """Moves the rules may allow at any decision (the setup peeks). What they change is, from
        here on, any value (an over-approximation: any number of them may have been played), and
        each one played from here must keep the invariants."""
        offered = {kind for _, kinds in decision.stop.clauses for kind in kinds}
        for kind in sorted(self.executor.anytime - offered):
            move = self.fresh_move(decision.stop, kind, None)
            cond = and_([decision.reach, self.legal(decision.stop.state, kind, move, None)])
            decision.stop.state = self.havoc(decision.stop.state, kind, cond)
            for after in self.runs(graph, cond, *self.executor.apply(decision.stop, kind, move)[0]):
                graph.anytime.append((and_([cond] + after.path), after))

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


def well_formed(s: Situation) -> list:
    """What a graph that starts at a cut point assumes of its table: well-formed, but without the
    edition's count of each card. Houdini's facts are then shown for more tables than can occur,
    which is as sound, and its queries do not reason about a sum over every cell of the table for
    each card (fr at 4 players: Houdini 82 -> 39 s in Z3). The obligations assume the counts too
    (start_terms): an invariant fails only on a table the deck allows."""
    return s.constraints(counts=False)


def _or_default(tr, value, type_):
    return value if value is not None else tr.default(type_)


def _execution_order(key: tuple):
    """Where a decision lies in the order the statements run in: frame by frame, the loop's item
    (for a loop or a queue of powers), then the statement (a frame's index is past the statement
    it runs)."""
    return tuple((frame[4], frame[2], frame[0], frame[3]) for frame in key[1])


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


# ---- what holds at the cut point, and every obligation ------------------------------------------

@dataclass
class Fact:
    """A candidate fact about a state at the cut point (or an invariant of the spec)."""

    name: str
    holds: object            # (state) -> Z3 term
    invariant: object = None  # the spec's InvariantDecl, when it is one


def candidate_facts(spec, executor: Executor) -> list[Fact]:
    """The spec's invariants, and simple facts about each variable and about the machinery's
    table, from which Houdini keeps those that are inductive at the cut point."""
    from .translate import Translator
    facts = [Fact(f"invariant {inv.name}", lambda s, e=inv.expr: Translator(spec, s).expr(e), inv)
             for inv in spec.invariants.values()]
    hows = list(spec.enums[schema.HOW_ENUM].values)
    for name, decl in spec.vars.items():
        kind = decl.type.name
        if kind == "bool":
            facts += [Fact(f"{name}", lambda s, n=name: s.vars[n]),
                      Fact(f"not {name}", lambda s, n=name: z3.Not(s.vars[n]))]
        elif kind == "int":
            facts += [Fact(f"{name} == 0", lambda s, n=name: s.vars[n] == 0),
                      Fact(f"{name} >= 0", lambda s, n=name: s.vars[n] >= 0)]
        elif kind == "slot":
            facts.append(Fact(f"{name} == none", lambda s, n=name: s.vars[n].p == NONE))
        elif kind == "reference":
            facts.append(Fact(f"{name} == none", lambda s, n=name: s.vars[n].how == NONE))
            facts.append(Fact(f"{name} is the reference", lambda s, n=name: z3.And(
                s.vars[n].card == s.ref.card, s.vars[n].how == s.ref.how, s.vars[n].by == s.ref.by)))
        elif kind != "list":
            facts += [Fact(f"{name} == none", lambda s, n=name: s.vars[n] == NONE)]
            if kind == "player":
                facts += [Fact(f"{name} != none", lambda s, n=name: s.vars[n] != NONE),
                          Fact(f"{name} == active", lambda s, n=name: s.vars[n] == s.active)]
    facts += [Fact("nothing held", lambda s: s.hc == 0),
              Fact("the reference is closed", lambda s: z3.Not(s.ref.open)),
              Fact("no change in the running action", lambda s: z3.Not(z3.Or(s.changed))),
              Fact("the reference has no card without how", lambda s: z3.Implies(s.ref.how == NONE, s.ref.card == NONE))]
    discarded = [i for i, how in enumerate(hows) if how not in ("drawn", "shown")]
    facts.append(Fact("a discarded reference is the visible card", lambda s: z3.Implies(
        z3.Or([s.ref.how == i for i in discarded]), s.ref.card == s.top)))
    for i, how in enumerate(hows):
        facts.append(Fact(f"the reference is not {how}", lambda s, i=i: s.ref.how != i))
    return facts


class Prover:
    """Houdini at the cut point, then every obligation of the setup and of a turn."""

    def __init__(self, turns: Turns, solve, invariants):
        self.turns = turns
        self.solve = solve                  # (assertions, what, witness, base) -> (status, model)
        self.invariants = invariants

    def state_terms(self, state: Situation, ctx: Ctx | None):
        return in_context(state, ctx) if ctx is not None else state

    def invariant_terms(self, state: Situation, ctx: Ctx | None) -> list:
        from .translate import Translator
        tr = Translator(self.turns.spec, self.state_terms(state, ctx or empty_ctx()))
        return [tr.expr(inv.expr) for inv in self.invariants]

    # -- the cut points: Houdini ------------------------------------------------------------------
    def houdini(self, graphs: list, candidates: dict) -> tuple[dict, bool]:
        """The largest subsets of the candidates (per cut point: CUT, POWER) that hold at every end
        at their cut point: after the setup (from any round start), and after any graph that
        started where the facts of its own cut point all held; and whether a fact was dropped
        because Z3 could not decide it (then what fails for want of it is undecided, not false)."""
        active = {point: list(facts) for point, facts in candidates.items()}
        undecided = False
        bases: dict = {}                    # what the queries about each end of a graph start from
        terms: dict = {}                    # (fact, state) -> the fact's term there, translated once
        shown: dict = {}                    # (graph, end) -> (start facts, facts) its end was shown to keep

        def holds(fact: Fact, state: Situation):
            key = (id(fact), id(state))
            if key not in terms:
                terms[key] = fact.holds(state)
            return terms[key]
        changed = True
        while changed:
            changed = False
            for graph, constraints in graphs:
                for end, point in END_POINTS.items():
                    if end not in graph.ends or not active[point]:
                        continue
                    assumed = active[graph.assumes] if graph.assumes else []
                    # asked before with these assumptions for these facts or more: the same answer
                    known = shown.get((id(graph), end))
                    now = ({id(f) for f in assumed}, {id(f) for f in active[point]})
                    if known is not None and now[0] == known[0] and now[1] <= known[1]:
                        continue
                    reach, stop = graph.ends[end]
                    base = bases.setdefault((id(graph), end), constraints + [reach])
                    what = f"what holds {_POINT_NAMES[point]} ({graph.start})"
                    same = graph.assumes == point       # back to the cut point it started from
                    kept, unknown = self.narrow(active[point], stop.state, graph, None if same else assumed, base,
                                                what, holds)
                    undecided |= unknown
                    shown[(id(graph), end)] = ({id(f) for f in (kept if same else assumed)}, {id(f) for f in kept})
                    if len(kept) != len(active[point]):
                        active[point], changed = kept, True
        return active, undecided

    def narrow(self, facts: list, state: Situation, graph: Graph, assumed: list | None, base: list, what: str,
               holds) -> tuple[list, bool]:
        """The facts that hold in `state` (an end of the graph) whenever the `assumed` facts held at
        its start (None: the facts kept themselves, for an end at the cut point the graph starts
        from), and whether one was dropped because Z3 could not decide it."""
        active, undecided = list(facts), False
        while active:
            start = [holds(f, s) for f in (active if assumed is None else assumed) for s in graph.assumed_states()]
            goal = and_([holds(f, state) for f in active])
            status, model = self.solve(start + [not_(goal)], what, False, base)
            if status == "unsat":
                break
            if status == "sat":
                kept = [f for f in active if z3.is_true(model.eval(holds(f, state), model_completion=True))]
                if len(kept) == len(active):   # pragma: no cover - the model breaks the goal
                    kept = []
            else:                     # undecided as a whole: fact by fact, each a smaller question
                kept = []
                for fact in active:
                    alone, _ = self.solve(start + [not_(holds(fact, state))], what, False, base)
                    if alone == "unsat":
                        kept.append(fact)
                    undecided |= alone == "unknown"
                if len(kept) == len(active):   # each one proved on its own: all of them hold
                    break
            active = kept
        return active, undecided

    # -- obligations ----------------------------------------------------------------------------------
    def obligations(self, graph: Graph, constraints: list, facts: list[Fact]) -> list["Failure"]:
        """Every invariant at every decision of the graph and at the end of the round, every
        primitive's precondition on its path: what does not hold, with a model."""
        start = self.start_terms(graph, constraints, facts)
        failures = self.invariants_at(graph, self.places(graph), start)
        for cond, obligation in graph.obligations:
            path = and_([cond] + obligation.path)
            status, model = self.solve([path, not_(obligation.holds)],
                                       f"{obligation.where}: {obligation.what}", True, start)
            if status != "unsat":
                failures.append(Failure(None, obligation.where, model, graph, status if status == "unknown" else
                                        "fails", what=obligation.what))
        return failures

    def breaking_steps(self, graph: Graph, constraints: list, facts: list[Fact], failing: set) -> list["Failure"]:
        """Where each `failing` invariant breaks though every invariant held at the graph's start:
        the step of the rules that breaks it, rather than every place it fails at only because,
        once broken, it is not known to hold at any start. At the graph's decisions, else where it
        hands the table on to a cut point (a power's end, the next turn)."""
        start = self.start_terms(graph, constraints, facts)
        failures = self.invariants_at(graph, self.places(graph), start, failing)
        left = failing - {f.invariant.name for f in failures}
        if left:
            failures += self.invariants_at(graph, self.handovers(graph), start, left)
        return failures

    def start_terms(self, graph: Graph, constraints: list, facts: list[Fact]) -> list:
        counts = graph.start_state.deck_counts() if graph.assumes is not None else []
        return constraints + counts + [f.holds(s) for f in facts for s in graph.assumed_states()]

    @staticmethod
    def places(graph: Graph) -> list[tuple]:
        """(where, reach, state, context, decision) of every place the invariants must hold at."""
        places = [(d.stop.where, d.waits, d.stop.state, d.stop.ctx, d) for d in graph.decisions.values()]
        if "over" in graph.ends:
            reach, over = graph.ends["over"]
            places.append(("the end of the round", reach, over.state, None, None))
        places += [(f"{after.where} (after a move allowed at any time)", cond, after.state, after.ctx, None)
                   for cond, after in graph.anytime]
        return places

    @staticmethod
    def handovers(graph: Graph) -> list[tuple]:
        """The graph's ends at a cut point, as places."""
        names = {"cut": "the start of the next turn", "power": "where a queued power is about to be played",
                 "played": "once the power and its action_end are over"}
        return [(f"{stop.where}: {names[end]}", reach, stop.state, None, None)
                for end, (reach, stop) in graph.ends.items() if end in names]

    def invariants_at(self, graph: Graph, places: list, start: list, only: set | None = None) -> list["Failure"]:
        """The invariants (those named in `only`, else all) that do not hold at these places, or
        could not be decided there."""
        failures = []
        for where, reach, state, ctx, decision in places:
            terms = self.invariant_terms(state, ctx)
            pending = [i for i in range(len(terms)) if only is None or self.invariants[i].name in only]
            while pending:
                goal = and_([terms[i] for i in pending])
                status, model = self.solve([reach, not_(goal)], f"invariants at {where}", True, start)
                if status != "sat":
                    if status == "unknown":
                        failures += self.one_by_one(graph, where, reach, terms, pending, start, decision)
                    break
                broken = [i for i in pending if not z3.is_true(model.eval(terms[i], model_completion=True))]
                failures += [Failure(self.invariants[i], where, model, graph, "fails", decision) for i in broken]
                pending = [i for i in pending if i not in broken]
        return failures

    def one_by_one(self, graph: Graph, where: str, reach, terms: list, pending: list, start: list,
                   decision) -> list["Failure"]:
        """The invariants Z3 could not decide together at a place, each on its own: smaller
        questions, and one that stays undecided leaves the others decided."""
        if len(pending) == 1:
            return [Failure(self.invariants[pending[0]], where, None, graph, "unknown")]
        failures = []
        for i in pending:
            status, model = self.solve([reach, z3.Not(terms[i])], f"invariant {self.invariants[i].name} at {where}",
                                       True, start)
            if status == "sat":
                failures.append(Failure(self.invariants[i], where, model, graph, "fails", decision))
            elif status == "unknown":
                failures.append(Failure(self.invariants[i], where, None, graph, "unknown"))
        return failures


@dataclass
class Failure:
    """An invariant (or a primitive's precondition) that does not hold somewhere, or could not be
    decided there."""

    invariant: object
    where: str
    model: object
    graph: Graph
    status: str                     # fails, unknown
    decision: Decision | None = None
    what: str = ""

    def moves(self) -> list[str]:
        """The moves that lead there in the model: the kind chosen at each decision on the way."""
        if self.model is None:
            return []
        found = []
        for decision in self.graph.decisions.values():
            for kind, cond, move in decision.moves:
                if z3.is_true(self.model.eval(cond, model_completion=True)):
                    found.append(f"{kind} at {decision.stop.where}")
        return found


def prove_at(spec, edition, bounds, players: int, solve, dropped: dict | None = None, own: bool = False):
    """(the invariants proved at a table of `players`, the failures, the names of the candidate
    facts not found at each cut point: {CUT: [...], POWER: [...]}): the setup (of a round and of a
    tie-break round), a turn from any state at the first cut point, each power from any state at
    the second, and the rest of a turn after each place of a queue of powers, from states where
    the facts found hold. `dropped`: the facts an earlier proof (of this table or another, of this
    spec or another) did not find; Houdini starts from the other candidates, which is as sound and
    much quicker, and from every candidate when that is not enough. The spec's invariants stay
    candidates unless `own`: `dropped` is then this variant's own at this table, whose invariants
    not found at a cut point (some hold at every decision but are not inductive alone) would only
    be dropped again, a round of Houdini's largest queries (a quarter of a proof's time)."""
    invariants = list(spec.invariants.values())
    turns = Turns(spec, edition, bounds, players)
    starts = [turns.round_start(tiebreak) for tiebreak in (False, True)]
    setups = [(turns.graph(f"the setup{' of a tie-break round' if tb else ''} ({players} players)", f, s, c), c)
              for tb, (f, s, c) in zip((False, True), starts)]
    prover = Prover(turns, solve, invariants)
    failures: list[Failure] = []
    for graph, c in setups:
        failures += prover.obligations(graph, c, [])
    cuts = [graph.ends["cut"][1] for graph, _ in setups if "cut" in graph.ends]
    candidates = candidate_facts(spec, turns.executor)
    everything = {CUT: candidates, POWER: candidates}
    kept: dict = {CUT: [], POWER: []}
    if not cuts:          # every run of the setup left the bounds: nothing would be proved
        failures += [Failure(inv, "the setup", None, setups[0][0], "unknown",
                             what="no round starts within the bounds") for inv in invariants]
    else:
        frames, state, constraints = turns.cut_start(cuts[0])
        turn = turns.graph(f"a turn ({players} players)", frames, state, constraints, CUT)
        graphs = setups + [(turn, constraints)]
        graphs += power_graphs(turns, graphs)
        subset = everything if dropped is None else \
            {point: [f for f in candidates if f.name not in dropped.get(point, ())
                     or (f.invariant is not None and not own)] for point in everything}
        found, kept = _graph_obligations(prover, graphs, subset)
        if found and any(len(subset[point]) < len(candidates) for point in subset):
            found, kept = _graph_obligations(prover, graphs, everything)
        failures += found
    failed = {f.invariant.name for f in failures if f.invariant is not None}
    return [inv.name for inv in invariants if inv.name not in failed], failures, \
        {point: [f.name for f in candidates if f.name not in kept[point]] for point in everything}


MAX_QUEUE_GRAPHS = 64       # places of queues of powers followed (a spec with more is refused)


def power_graphs(turns: Turns, graphs: list) -> list:
    """The graphs from the second cut point, where a queued power is about to be played: each
    power of the spec played on its own (by any player, from any state there), and the turn
    going on after each place of a queue that a graph reaches (the next queued power, or the rest
    of the turn), from abstract copies of the frames there (the queue's powers and users are any
    value: they were computed from the state at `resolve powers`, which is no longer followed).
    Each run of a turn is a run of the turn's graph up to its first queued power, then runs of a
    power's graph and of the graph of its place in the queue, in turn: all of them covered."""
    queued = [stop for graph, _ in graphs for _, stop in graph.queued]
    if not queued:
        return []
    players = turns.players
    found = []
    for name in turns.spec.powers:
        frames, state, constraints, ctx = turns.power_start(name)
        graph = turns.graph(f"the power {name} ({players} players)", frames, state, constraints, POWER, ctx)
        found.append((graph, constraints))
    seen: set = set()
    while queued:
        stop = queued.pop(0)
        frames, signature = abstract_frames(stop.frames)
        key = (stack_key(stop.frames), signature)
        if key in seen:
            continue
        if len(seen) >= MAX_QUEUE_GRAPHS:
            from baobei.dsl.errors import SolverError
            raise SolverError(f"more than {MAX_QUEUE_GRAPHS} places of queues of powers ({stop.where}): the "
                              f"checker's induction does not follow them")
        seen.add(key)
        queue = frames[-1]
        frames, state, constraints = turns.queue_start(frames)
        graph = turns.graph(f"a turn after queued power {queue.position + 1} of {len(queue.items)} "
                            f"({queue.where}) ({players} players)", frames, state, constraints, POWER)
        found.append((graph, constraints))
        queued += [stop for _, stop in graph.queued]
    return found


def _graph_obligations(prover, graphs, candidates: dict) -> tuple[list[Failure], dict]:
    """Houdini at both cut points, then the obligations of every graph that starts from one."""
    facts, undecided = prover.houdini(graphs, candidates)
    found = []
    for graph, constraints in graphs:
        if graph.assumes is not None:
            found += prover.obligations(graph, constraints, facts[graph.assumes])
    failing = {f.invariant.name for f in found if f.invariant is not None and f.status == "fails"}
    if failing and not undecided:
        invariants = [f for f in candidates[CUT] if f.invariant is not None]
        steps = [failure for graph, constraints in graphs if graph.assumes is not None
                 for failure in prover.breaking_steps(graph, constraints, facts[graph.assumes] + invariants, failing)]
        found = _at_the_breaking_steps(found, steps)
    if undecided:           # it may fail only for want of a fact Z3 could not decide
        found = [replace(f, status="unknown", what=f.what or "a fact it needs was undecided") for f in found]
    return found, {point: [f.name for f in kept] for point, kept in facts.items()}


def _at_the_breaking_steps(found: list[Failure], steps: list[Failure]) -> list[Failure]:
    """An invariant that fails is shown where a step of the rules breaks it (`steps`), when one
    does; else at every place it fails (it then breaks for want of a fact the proof did not find)."""
    broken = {f.invariant.name for f in steps if f.status == "fails"}
    kept = [f for f in found if f.invariant is None or f.invariant.name not in broken or f.status != "fails"]
    return kept + [f for f in steps if f.status == "fails"]
