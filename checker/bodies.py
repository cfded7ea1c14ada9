"""What procedures, move handlers and powers do, compared between two rule sets.

A body's behaviour is what the table shows of it: the decisions it waits for (who is asked
which moves), the moments it resolves powers, and the table it leaves. Both versions of a
body run from one entry (the same table, the same move or power, the same arguments) on the
checker's symbolic executor (execute.py), each to its next stop: an ask, `resolve powers`, the
loop where turns repeat, or the end of the body. At every pair of stops Z3 looks for a table
where the two differ: a stop of another kind, other players asked or other moves offered, or
another table (a card, a slot, a mark, a counter, a variable). That is a class of the diff like
a rule's decision, with the table it starts from as its witness.

After a pair of stops that agree, play goes on outside the body (a move's handler, the powers),
which the other comparisons judge; both versions then go on from one table, any well-formed
table (not only those play reaches: nothing is missed), or, at an ask nothing may answer, from
where they are. Both draw the same cards (the pile is one). What the executor does not model —
what players know — is named as not compared when a change touches it, and so are runs that
leave the bounds, loops that run longer than the executor follows, and bodies with more paths
than it follows: never "no difference" for what was not compared.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field, fields

import z3

from baobei.dsl import ast
from baobei.dsl.model import Spec
from baobei.dsl.unparse import declaration, expr

from .execute import Ctx, Executor, Stop, body_frame, derived, stack_key
from .symbolic import NONE, RefV, Situation, SlotV, new_solver, none_slot
from .witness import Reader

MAX_SEGMENTS = 160           # stretches of play followed per body; beyond, the body is not fully compared
MAX_STEPS = 20_000           # statements run for one stretch of one side (its runs multiply with its branches)
MAX_CLASSES_PER_PAIR = 6     # kinds of difference reported for one pair of stops
MAX_CLASSES_PER_BODY = 12    # classes reported for one body (the rest are alike, elsewhere in it)
COUNTERS = ("turn", "sequence", "deck_size", "discard_size", "under_size")
EDITION_GLOBALS = {"threshold": "edition threshold", "edition_deal": "edition deal"}


# ---- which bodies to compare: what a body's behaviour is made of ------------------------------

def statement_exprs(stmt) -> list:
    """The expressions a statement holds itself (not those of the statements inside it)."""
    found = []

    def collect(value):
        if isinstance(value, ast.Expr):
            found.append(value)
        elif isinstance(value, (list, tuple)):
            for item in value:
                collect(item)
        elif isinstance(value, ast.Asked):
            collect(value.asker)
    for item in fields(stmt):
        collect(getattr(stmt, item.name))
    return found


def bodies(spec: Spec) -> dict[str, ast.Decl]:
    """Every body of statements, by the name a diff gives it: `procedure X`, `on K`, `power P`."""
    found = {f"procedure {n}": d for n, d in spec.procedures.items()}
    found.update({f"on {k}": d for k, d in spec.handlers.items()})
    found.update({f"power {n}": d for n, d in spec.powers.items()})
    return found


def signature(spec: Spec, decl: ast.Decl, edition, roots: list | None = None) -> dict[str, str]:
    """What a body's behaviour is made of, declaration by declaration, as text: the body itself,
    the definitions its expressions read (through one another), each card when it reads what a
    card is worth, matches or does, and the edition values it reads. The rules' decisions it
    reads are compared as decisions, and the procedures it calls as bodies of their own.
    `roots`: the expressions to follow (a body's statements' by default)."""
    found = {f"{decl.kind} {decl.name}": declaration(decl)}
    exprs = list(roots) if roots is not None else \
        [e for stmt in ast.walk_statements(decl.body) for e in statement_exprs(stmt)]
    seen: set[str] = set()
    while exprs:
        for node in ast.walk(exprs.pop()):
            ref = getattr(node, "ref", None)
            if ref and ref[0] == "define" and node.name not in seen:
                seen.add(node.name)
                define = spec.defines[node.name]
                found[f"define {node.name}"] = declaration(define)
                exprs.append(define.body)
            elif ref and ref[0] == "global" and node.name in EDITION_GLOBALS:
                table = edition.threshold if node.name == "threshold" else edition.deal
                found[EDITION_GLOBALS[node.name]] = repr(sorted(table.items()))
            elif (ref and ref[1] == "card") or (isinstance(node, ast.Attr) and node.obj.type is not None
                                                 and node.obj.type.name == "card"):
                found.update({f"card {n}": declaration(c) for n, c in spec.cards.items()})
    return found


def knowledge(decl: ast.Decl | None) -> list[str]:
    """Who comes to see which card, statement by statement: what the symbolic table does not
    model (no rule reads it), so a change of it is named as not compared."""
    if decl is None:
        return []
    found = []
    for stmt in ast.walk_statements(decl.body):
        if isinstance(stmt, ast.Reveal):
            found.append(f"reveal {expr(stmt.slot)} to {_viewer(stmt.viewer)}")
        elif isinstance(stmt, ast.Place):
            found.append(f"place into {expr(stmt.slot)} known to {_viewer(stmt.viewer)}")
        elif isinstance(stmt, ast.Draw):
            found.append(f"draw for {expr(stmt.player)} {'seen' if stmt.seen else 'unseen'}")
    return found


def _viewer(viewer) -> str:
    return viewer if isinstance(viewer, str) else expr(viewer)


# ---- one side's executor -------------------------------------------------------------------------

class Pile:
    """The draw pile both versions draw from: the card at one depth of the pile in one epoch (a
    recycle makes a new pile) is the same card on both sides, and so is the card under the
    discard's top."""

    def __init__(self, cards: int):
        self.cards = cards
        self.top = z3.Function("pile_card", z3.IntSort(), z3.IntSort(), z3.IntSort())
        self.under = z3.Function("under_discard_top", z3.IntSort(), z3.IntSort(), z3.IntSort())

    def drawn(self, state: Situation):
        return self.a_card(self.top(state.ints["epoch"], state.ints["deck_size"])), []

    def below_top(self, state: Situation):
        return self.a_card(self.under(state.ints["epoch"], state.ints["discard_size"]))

    def a_card(self, value):
        """Some card id, whatever the function's value (a path condition would leave runs out)."""
        return z3.If(z3.And(value >= 0, value < self.cards), value, 0)


class TooManyPaths(Exception):
    """A stretch of a body branches into more runs than the comparison follows."""


class Runner(Executor):
    """One side's executor for the comparison: an ask and `resolve powers` are stops (the moves
    and powers that follow are judged by the other comparisons), the pile is shared."""

    def __init__(self, spec: Spec, bounds, pile: Pile):
        super().__init__(spec, bounds)
        self.pile = pile

    def drawn_card(self, state):
        return self.pile.drawn(state)

    def card_below_top(self, state):
        return self.pile.below_top(state)

    def s_Ask(self, stmt: ast.Ask, frames, frame, state, path):
        clauses = [(self.value(a.asker, state, frame) if a.asker is not None else None, tuple(a.kinds))
                   for a in stmt.asked]
        return [Stop("ask", frames, state, path, clauses, frame.ctx, f"{frame.where} ({stmt.loc})")]

    def s_ResolvePowers(self, stmt, frames, frame, state, path):
        return [Stop("resolve", frames, state, path, ctx=frame.ctx, where=f"{frame.where} ({stmt.loc})")]

    def s_Shuffle(self, stmt, frames, frame, state, path):
        (frames, after, path), = super().s_Shuffle(stmt, frames, frame, state, path)
        return [(frames, derived(after, ints={**after.ints, "epoch": after.ints["epoch"] + 1}), path)]

    def statement(self, stmt, frames: tuple, state: Situation, path: list) -> list:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise TooManyPaths()
        return super().statement(stmt, frames, state, path)

    def runs(self, frames: tuple, state: Situation) -> tuple[list[Stop], list]:
        """The stops of every run from here to the end of the body, and the paths on which a
        while loop would run longer than the executor follows."""
        before = len(self.obligations)
        self.steps = 0
        stops = self.run(frames, state, [], depth=0)
        cut = [o.path for o in self.obligations[before:] if z3.is_false(o.holds)]
        del self.obligations[before:]
        return stops, cut


# ---- comparing two stops -------------------------------------------------------------------------

@dataclass
class Aspect:
    """Something two stops may show differently: what it is, when the two differ, and how a
    model shows each side's value."""

    group: str                       # classes are told apart by it: layouts, reference, variable x, ...
    differ: object                   # a Z3 condition, or True when they always differ
    show: object                     # (reader) -> text of both sides' values
    cell: tuple | None = None        # the slot (seat, index) it is about, for a card or its marks


def _differ(a, b):
    if a is None or b is None:
        return z3.BoolVal(a is not b)
    if isinstance(a, SlotV):
        return z3.Or(a.p != b.p, a.n != b.n)
    if isinstance(a, RefV):
        return z3.Or(a.card != b.card, a.how != b.how, a.by != b.by, a.open != b.open)
    return a != b


def stop_text(stop: Stop, read) -> str:
    """What a stop is, as a player sees it."""
    if stop.what == "ask":
        asked = "; ".join(f"{'anyone' if asker is None else read.shown(asker, ast.PLAYER)}: {', '.join(kinds)}"
                          for asker, kinds in stop.clauses)
        return f"asks {asked}"
    return {"resolve": "resolves powers", "cut": "starts the next turn", "returned": "ends"}[stop.what]


def aspects(a: Stop, b: Stop, spec_a: Spec, spec_b: Spec, names: tuple[str, str]) -> list[Aspect]:
    """Everything the two stops may show differently (the table and variables at them; for two
    asks, who is asked what; for two stops of different kinds, that alone)."""
    na, nb = names
    if a.what != b.what:
        return [Aspect("what happens", z3.BoolVal(True),
                       lambda r: f"in {na} it {stop_text(a, r)}, in {nb} it {stop_text(b, r)}")]
    found: list[Aspect] = []
    if a.what == "ask":
        shapes_a = [kinds for _, kinds in a.clauses]
        shapes_b = [kinds for _, kinds in b.clauses]
        if shapes_a != shapes_b or any((x is None) != (y is None) for (x, _), (y, _) in zip(a.clauses, b.clauses)):
            return [Aspect("decision asked", z3.BoolVal(True),
                           lambda r: f"in {na} it {stop_text(a, r)}, in {nb} it {stop_text(b, r)}")]
        askers = [_differ(x, y) for (x, _), (y, _) in zip(a.clauses, b.clauses) if x is not None]
        if askers:
            found.append(Aspect("decision asked", z3.Or(askers),
                                lambda r: f"in {na} it {stop_text(a, r)}, in {nb} it {stop_text(b, r)}"))
    if a.what in ("ask", "resolve"):
        ua, ub = a.ctx.user, b.ctx.user
        found.append(Aspect("who acts", z3.Or(_differ(ua, ub), _differ(a.ctx.power, b.ctx.power)),
                            lambda r: f"the power's user is {r.shown(ua, ast.PLAYER)} in {na} and "
                                      f"{r.shown(ub, ast.PLAYER)} in {nb}"))
    return found + state_aspects(a.state, b.state, spec_a, spec_b, names)


def state_aspects(x: Situation, y: Situation, spec_a: Spec, spec_b: Spec, names: tuple[str, str]) -> list[Aspect]:
    na, nb = names
    found: list[Aspect] = []
    P, S = x.bounds.players, x.bounds.slots

    def seat(r, i) -> str:
        return r.names[i] if i < len(r.names) else f"seat {i + 1}"

    def slot(r, i, j) -> str:
        return f"{seat(r, i)}.{j + 1}"

    for i in range(P):
        found.append(Aspect("layouts", x.ns[i] != y.ns[i],
                            lambda r, i=i: f"{seat(r, i)} has {r.int(x.ns[i])} slots in {na} and "
                                           f"{r.int(y.ns[i])} in {nb}"))
        for j in range(S):
            found.append(Aspect("layouts", x.card[i][j] != y.card[i][j],
                                lambda r, i=i, j=j: f"{slot(r, i, j)} holds {r.shown(x.card[i][j], ast.CARD)} in "
                                                    f"{na} and {r.shown(y.card[i][j], ast.CARD)} in {nb}", (i, j)))
            for table, what in (("mturn", "turn"), ("mseq", "sequence"), ("mby", "by")):
                ta, tb = getattr(x, table)[i][j], getattr(y, table)[i][j]
                show = (lambda r, ta=ta, tb=tb, i=i, j=j: f"the card at {slot(r, i, j)} is marked moved by "
                        f"{r.shown(ta, ast.PLAYER)} in {na} and by {r.shown(tb, ast.PLAYER)} in {nb}") \
                    if what == "by" else \
                    (lambda r, ta=ta, tb=tb, i=i, j=j, what=what: f"the card at {slot(r, i, j)} is marked moved in "
                     f"{what} {r.int(ta)} in {na} and {r.int(tb)} in {nb}")
                found.append(Aspect("movement marks", ta != tb, show, (i, j)))
        found.append(Aspect("changes in the running action", x.changed[i] != y.changed[i],
                            lambda r, i=i: f"{seat(r, i)}'s layout was changed by another player in the "
                                           f"running action in {na if r.bool(x.changed[i]) else nb} only"))
    found.append(Aspect("held cards", x.hc != y.hc,
                        lambda r: f"{r.int(x.hc)} card(s) held in {na} and {r.int(y.hc)} in {nb}"))
    for k in range(len(x.held)):
        found.append(Aspect("held cards", z3.And(x.hc > k, x.held[k] != y.held[k]),
                            lambda r, k=k: f"held card {k + 1} is {r.shown(x.held[k], ast.CARD)} in {na} and "
                                           f"{r.shown(y.held[k], ast.CARD)} in {nb}"))
    found.append(Aspect("discard", x.top != y.top,
                        lambda r: f"the discard shows {r.shown(x.top, ast.CARD)} in {na} and "
                                  f"{r.shown(y.top, ast.CARD)} in {nb}"))
    found.append(Aspect("reference", _differ(x.ref, y.ref),
                        lambda r: f"the reference is {r.shown(x.ref, ast.REFERENCE)} in {na} and "
                                  f"{r.shown(y.ref, ast.REFERENCE)} in {nb}"))
    for name in COUNTERS:
        found.append(Aspect(name.replace("_", " "), x.ints[name] != y.ints[name],
                            lambda r, name=name: f"{name} is {r.int(x.ints[name])} in {na} and "
                                                 f"{r.int(y.ints[name])} in {nb}"))
    found.append(Aspect("active player", x.active != y.active,
                        lambda r: f"the active player is {r.shown(x.active, ast.PLAYER)} in {na} and "
                                  f"{r.shown(y.active, ast.PLAYER)} in {nb}"))
    for name, decl in spec_a.vars.items():
        other = spec_b.vars.get(name)
        if other is None or other.type != decl.type:
            continue
        va, vb = x.vars[name], y.vars[name]
        found.append(Aspect(f"variable {name}", _differ(va, vb),
                            lambda r, va=va, vb=vb, name=name, t=decl.type: f"{name} is {r.shown(va, t)} in {na} "
                                                                           f"and {r.shown(vb, t)} in {nb}"))
    for name, decl in spec_a.player_vars.items():
        other = spec_b.player_vars.get(name)
        if other is None or other.type != decl.type:
            continue
        for i in range(P):
            va, vb = x.pvars[name][i], y.pvars[name][i]
            found.append(Aspect(f"variable {name}", _differ(va, vb),
                                lambda r, va=va, vb=vb, i=i, name=name, t=decl.type:
                                f"{seat(r, i)}.{name} is {r.shown(va, t)} in {na} and {r.shown(vb, t)} in {nb}"))
    return found


# ---- the comparison of one body ---------------------------------------------------------------------

@dataclass
class Segment:
    """Both versions from one point on: their frames and tables, what holds there, and the table
    a witness shows (the entry's, or the one play left after a stop)."""

    frames: tuple
    states: tuple
    path: list
    table: Situation
    after: str = ""                  # "" at the entry; else the stop play went on from
    kind: str | None = None          # the move a handler's entry judges (for the witness)
    likely: list = field(default_factory=list)   # what a witness should show where it can (the invariants)
    counts: list = field(default_factory=list)   # the deck's counts on a table after a stop: every real table
                                                 # has them, a witness must; asked only of a difference found
    origin: int = 0                  # which start it comes from (a round's start is one per table size)
    start: str = ""                  # what that start is, when it is not the body's entry anywhere


@dataclass
class BodyClass:
    """Where two versions of a body differ: at which stops, what differs, on which table."""

    body: str
    message: str
    model: object
    table: Situation
    kind: str | None                 # the move judged at the entry, when the witness is a handler's entry


@dataclass
class BodyReport:
    classes: list[BodyClass] = field(default_factory=list)
    incomplete: list[str] = field(default_factory=list)      # why the body is not fully compared
    unknown: list[str] = field(default_factory=list)
    queries: int = 0


class BodyComparer:
    """Compares bodies of two rule sets over one symbolic table (the Differ's situation, as each
    side reads it: `tables`, with its edition's values and its translator)."""

    def __init__(self, specs: tuple[Spec, Spec], names: tuple[str, str], tables: tuple[Situation, Situation],
                 translators: tuple, editions: tuple, bounds, timeout_ms: int, proved: tuple, wellformed: list):
        self.specs = specs
        self.names = names
        self.tables = tables
        self.translators = translators
        self.editions = editions
        self.bounds = bounds
        self.timeout_ms = timeout_ms
        self.proved = proved                  # the invariants each side proved: they hold where a move is judged
        self.wellformed = wellformed          # what holds of any table (the edition's counts, ranges)
        self.pile = Pile(len(tables[0].ix.cards))
        self.runners = tuple(Runner(spec, bounds, self.pile) for spec in specs)
        self.epoch = z3.Int("pile_epoch")
        self._tables = itertools.count()
        self.arguments: list = []             # a procedure's arguments at the entry (shown with its classes)

    def invariants(self, tables: tuple) -> list:
        """The proved invariants of both sides on these tables."""
        from .translate import Translator
        return [Translator(spec, table).expr(spec.invariants[name].expr)
                for spec, table, names in zip(self.specs, tables, self.proved) for name in names]

    # -- entries -------------------------------------------------------------------------------
    def entry(self, name: str, sites: tuple) -> tuple[tuple, list, str | None]:
        """The frames each side starts from, what holds at the entry, and the move kind (for a
        handler): a handler runs on a move legal in both versions where that kind is asked (a
        decision: the proved invariants hold), a power for a player, a procedure anywhere, with
        any arguments."""
        from .sites import kind_context
        s = self.tables[0]
        kind, _, which = name.partition(" ")
        ctx = Ctx(s.actor, s.user, s.power, s.tc, tuple(s.targets), s.chosen)
        env: tuple = ()
        holds: list = []
        move = None
        if kind == "on":
            move = which
            holds = s.move_shape(which) + [kind_context(s, site, which) for site in sites]
            holds += [tr.legal(which)[0] for tr in self.translators] + self.invariants(self.tables)
        elif kind == "power":
            index = s.ix.power[which]
            ctx = Ctx(s.user, s.user, z3.IntVal(index), z3.IntVal(0), (none_slot(), none_slot()), z3.IntVal(NONE))
            holds = [s.user >= 0, s.user < s.np, s.power == index]
        else:
            decl = self.specs[0].procedures[which]
            args, holds = s.decision_arguments(decl, f"call_{which}")
            env = tuple((p.name, a) for p, a in zip(decl.params, args))
            self.arguments = [(a, p.type) for p, a in zip(decl.params, args)]
        frames = []
        for spec in self.specs:
            decl = bodies(spec).get(name)
            body = decl.body if decl is not None else []
            frames.append((body_frame(name, body, ctx=ctx, env=env),))
        return tuple(frames), holds, move

    def start(self) -> tuple:
        """The entry table of each side, with the pile's epoch."""
        return tuple(derived(t, ints={**t.ints, "epoch": self.epoch}) for t in self.tables)

    def table_after(self) -> tuple[tuple, list, Situation]:
        """Any well-formed table, the same for both versions, with the entry's players, round and
        edition values: where play goes on after a stop."""
        s0 = self.tables[0]
        n = next(self._tables)
        fresh = Situation(self.specs[0], self.editions[0], self.bounds, tag=f"after{n}_")
        fresh.with_variables_of(self.specs[1])
        keep = dict(np=s0.np, first=s0.first, lot=s0.lot, tiebreak=s0.tiebreak, actor=s0.actor, user=s0.user,
                    power=s0.power, chosen=s0.chosen, tc=s0.tc, targets=s0.targets)
        ints = {**fresh.ints, "threshold": s0.ints["threshold"], "edition_deal": s0.ints["edition_deal"],
                "epoch": z3.Int(f"after{n}_epoch")}
        a = derived(fresh, ints=ints, **keep)
        b = derived(a, ints={**ints, "threshold": self.tables[1].ints["threshold"],
                             "edition_deal": self.tables[1].ints["edition_deal"]})
        return (a, b), a.constraints(counts=False), a

    # -- the comparison --------------------------------------------------------------------------
    def starts(self, name: str, sites: tuple) -> list[Segment]:
        """Where the comparison of a body begins: the round's start for procedure setup (the game
        loop starts every round with it, as the proofs do), the body's entry otherwise."""
        if name == "procedure setup":
            return self.round_starts(name)
        frames, holds, move = self.entry(name, sites)
        starts = self.start()
        return [Segment(frames, starts, self.wellformed + holds, self.tables[0], kind=move,
                        likely=self.invariants(starts))]

    def round_starts(self, name: str) -> list[Segment]:
        """A round before its setup, for every number of players and for a tie-break round: no
        card dealt, the edition's deck in the pile, the variables at their first values (each
        side's), the game's totals as earlier rounds left them."""
        from .execute import empty_ctx
        from .induction import Turns
        found = []
        for players in range(2, self.bounds.players + 1):
            for tiebreak in (False, True):
                (_, a, facts), (_, b, _) = (Turns(spec, edition, self.bounds, players).round_start(tiebreak)
                                            for spec, edition in zip(self.specs, self.editions))
                a = derived(a, ints={**a.ints, "epoch": self.epoch}, power=z3.IntVal(NONE), user=z3.IntVal(NONE))
                pvars = {n: a.pvars[n] if decl.game else b.pvars[n] for n, decl in self.specs[1].player_vars.items()}
                b = derived(a, ints={**b.ints, "epoch": self.epoch}, vars=b.vars, pvars=pvars)
                frames = tuple((body_frame(name, bodies(spec)[name].body, ctx=empty_ctx()),) for spec in self.specs)
                start = f"at the start of a {'tie-break ' if tiebreak else ''}round of {players} players"
                found.append(Segment(frames, (a, b), facts, a, origin=len(found), start=start))
        return found

    def compare(self, name: str, sites: tuple) -> BodyReport:
        report = BodyReport()
        try:
            self.follow(name, sites, report)
        except TooManyPaths:
            report.incomplete.append(f"{name}: a stretch of it branches into more runs than the checker follows")
        return report

    def follow(self, name: str, sites: tuple, report: BodyReport) -> None:
        work = self.starts(name, sites)
        followed: dict = {}
        found_groups: set = set()
        segments = 0
        while work:
            segment = work.pop(0)
            segments += 1
            if segments > MAX_SEGMENTS:
                report.incomplete.append(f"{name}: more than {MAX_SEGMENTS} stretches of play to follow")
                break
            runs = [runner.runs(f, s) for runner, f, s in zip(self.runners, segment.frames, segment.states)]
            base = segment.path
            self.covered(name, segment, runs, report)
            for a in runs[0][0]:
                for b in runs[1][0]:
                    if self.check(report, base + a.path + b.path)[0] == z3.unsat:
                        continue
                    agree = self.differences(name, segment, a, b, report, found_groups)
                    for following in self.following(segment, a, b, agree):
                        key = (following.origin, stack_key(following.frames[0]), stack_key(following.frames[1]),
                               following.after)
                        followed[key] = followed.get(key, 0) + 1
                        if followed[key] <= 2:
                            work.append(following)
                        elif followed[key] == 3:
                            note = f"{name}: the play after {following.after} repeats beyond what is followed"
                            if note not in report.incomplete:
                                report.incomplete.append(note)

    def check(self, report: BodyReport, assertions: list):
        """One query, on a solver of its own (Z3 preprocesses a query it sees whole)."""
        report.queries += 1
        solver = new_solver(*assertions, timeout_ms=self.timeout_ms)
        result = solver.check()
        return result, (solver.model() if result == z3.sat else None)

    def covered(self, name: str, segment: Segment, runs, report: BodyReport) -> None:
        """Runs the executor dropped (a layout beyond the bounds' slots, a loop longer than it
        follows) leave part of the body uncompared: said, never passed over."""
        for side, (stops, long_loops) in zip(self.names, runs):
            reached = z3.Or([z3.And(stop.path) if stop.path else z3.BoolVal(True) for stop in stops]) \
                if stops else z3.BoolVal(False)
            result, _ = self.check(report, segment.path + [z3.Not(reached)])
            if result == z3.sat:
                why = "a while loop runs longer than the checker follows" if long_loops else \
                    f"a layout grows beyond the bounds' {self.bounds.slots} slots"
                note = f"{name} ({side}): {why}"
                if note not in report.incomplete:
                    report.incomplete.append(note)
            elif result == z3.unknown:
                report.unknown.append(f"{name} ({side}): whether every run stays within the bounds")

    def differences(self, name: str, segment: Segment, a: Stop, b: Stop, report: BodyReport,
                    found_groups: set) -> list | None:
        """The classes at one pair of stops: one per kind of difference, each blocked once found.
        Returns what holds where the two agree, for the play that follows (None: they never agree,
        as two stops of different kinds)."""
        found = aspects(a, b, self.specs[0], self.specs[1], self.names)
        always = [aspect for aspect in found if z3.is_true(aspect.differ)]
        pending = always or list(found)
        for _ in range(MAX_CLASSES_PER_PAIR):
            if not pending:
                break
            result, model = self.check(report, segment.path + a.path + b.path +
                                       [z3.Or([aspect.differ for aspect in pending])])
            if result == z3.unknown:
                report.unknown.append(f"{name}: whether both versions agree where it {a.what}s ({a.where})")
                break
            if model is None:
                break
            if segment.counts:      # what every real table has, asked only where a difference is found
                result, model = self.check(report, segment.path + a.path + b.path + segment.counts +
                                           [z3.Or([aspect.differ for aspect in pending])])
                if model is None:   # only on tables with more copies of a card than the deck: none
                    break
            model = self.readable_model(segment, a, b, pending) or model
            shown = [aspect for aspect in pending if z3.is_true(model.eval(aspect.differ, model_completion=True))]
            moved = {aspect.cell for aspect in shown if aspect.group == "layouts"}
            shown = [aspect for aspect in shown if aspect.group != "movement marks" or aspect.cell not in moved] \
                or shown   # a card that left or came shows its marks going with it: the card says it
            groups = list(dict.fromkeys(aspect.group for aspect in shown))
            self.add_class(name, segment, a, b, shown, groups, model, report, found_groups)
            pending = [aspect for aspect in pending if aspect.group not in groups]
        return None if always else [z3.Not(aspect.differ) for aspect in found]

    def add_class(self, name: str, segment: Segment, a: Stop, b: Stop, shown: list[Aspect], groups: list[str],
                  model, report: BodyReport, found_groups: set) -> None:
        key = (segment.after, a.where, b.where, tuple(groups))
        if key in found_groups or len(report.classes) >= MAX_CLASSES_PER_BODY:
            return
        found_groups.add(key)
        read = Reader(segment.table, model)
        where = "it goes on differently" if a.what != b.what else f"where it {stop_text(a, read)}"
        details = "; ".join(aspect.show(read) for aspect in shown[:3]) + ("; ..." if len(shown) > 3 else "")
        after = f" ({segment.start})" if segment.start else ""
        after += f" (after {segment.after})" if segment.after else ""
        call = f"{name}({', '.join(read.typed(value, type_) for value, type_ in self.arguments)})" \
            if self.arguments else name
        report.classes.append(BodyClass(name, f"{call}{after}: {where}: {details}", model, segment.table,
                                        segment.kind))

    def readable_model(self, segment: Segment, a: Stop, b: Stop, pending: list[Aspect]):
        """A model of the same difference on the smallest table, where the invariants hold when it
        can (a witness a round can show; the difference itself is not narrowed to them)."""
        from .smallest import small_model
        context = segment.path + segment.counts + a.path + b.path + [z3.Or([x.differ for x in pending])]
        if segment.likely:
            model = small_model([], context + segment.likely, segment.table)
            if model is not None:
                return model
        return small_model([], context, segment.table)

    def following(self, segment: Segment, a: Stop, b: Stop, agree: list) -> list[Segment]:
        """The play after a pair of stops that agree: after a move, the powers, or the next turn,
        from any table, the same for both (what happened in between is judged elsewhere). It
        covers an ask nobody may answer too: the two then go on from the table they agree on."""
        if agree is None or a.what == "returned":
            return []
        path = segment.path + a.path + b.path + agree
        text = {"ask": "the move asked at", "resolve": "the powers resolved at", "cut": "the turn that ends at"}
        states, facts, table = self.table_after()
        return [Segment((a.frames, b.frames), states, path + facts, table, f"{text[a.what]} {a.where}",
                        likely=self.invariants(states), counts=table.deck_counts(), origin=segment.origin,
                        start=segment.start)]
