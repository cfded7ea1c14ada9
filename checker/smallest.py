"""The smallest witness: a model of an answered query on the smallest table that has one, with
as many of the wishes that make a table easy to read as Z3 can keep. Only witnesses use it, never
a verdict (nor a proof: proofs.py's code does not include this file)."""
from __future__ import annotations

import z3

from baobei.dsl import ast

from .symbolic import NONE, RefV, Situation, SlotV, new_solver

# The tables a witness is searched on, smallest first, as (players, slots per player); after
# them, the whole table of the bounds.
TABLES = ((2, 3), (3, 3), (3, 4), (4, 5))
EARLY = 3      # the turn a witness keeps to where it can


def small_table(situation: Situation) -> list:
    """At most three players with at most three slots each: where most situations a question asks
    for are found, in a fraction of the time the whole table takes."""
    return [situation.np <= 3] + [n <= 3 for n in situation.ns]


def smallness(situation: Situation) -> tuple[list[tuple[int, int]], list]:
    """For witnesses a person can read: the tables to try, smallest first ((players, slots)),
    and the wishes that hold on any of them (variables at their initial values, no card moved by
    a power, nothing held, layouts of one slot at most, no change in the running action, an
    early turn) to keep where possible; small_model adds the facts of a table that can occur
    (facts_of_a_round). A wish only chooses among the models of a query already answered: no
    verdict depends on one. (Made again for each search: kept, its terms would keep their ids in
    Z3, and Z3 would find other witnesses than the ones the same spec has given.)"""
    s = situation
    wishes = []
    for name, decl in s.spec.vars.items():
        init = decl.init
        value = s.vars[name]
        if isinstance(value, (SlotV, RefV)):
            if isinstance(init, ast.NoneLit):
                wishes.append(value.p == NONE if isinstance(value, SlotV) else value.how == NONE)
            continue
        if isinstance(init, ast.NoneLit):
            wishes.append(value == NONE)
        elif isinstance(init, (ast.BoolLit, ast.IntLit)):
            wishes.append(value == init.value)
    wishes += [s.mturn[i][j] == -1 for i in range(s.bounds.players) for j in range(s.bounds.slots)]
    wishes += [s.hc == 0]
    # a layout no longer than the witness needs: it reads more easily, and the play search that
    # makes a scenario of it starts from its table (nothing else keeps a model's layouts short)
    wishes += [n <= 1 for n in s.ns]
    wishes += [z3.Not(flag) for flag in s.changed]
    # early in the round: a witness at turn 17944 shows what an early turn shows as well
    wishes += [s.ints["turn"] <= EARLY]
    tables = [(players, slots) for players, slots in TABLES if players <= s.bounds.players]
    return tables + [(s.bounds.players, s.bounds.slots)], wishes


def facts_of_a_round(s: Situation, players: int, slots: int) -> list:
    """What every table of a round has and the proofs do not state, on a table of `players`
    players and `slots` slots: cards moved by powers in the order of the turns, and each slot
    variable naming no slot or a slot of its owner's layout (a layout never shrinks, so a slot a
    round names is on the table; the bounds alone allow one past any layout)."""
    values = list(s.vars.values()) + [value for each in s.pvars.values() for value in each]
    return [marks_in_turn_order(s, players, slots)] + \
        [z3.Or(value.p == NONE, s.slot_exists(value)) for value in values if isinstance(value, SlotV)]


def marks_in_turn_order(s: Situation, players: int | None = None, slots: int | None = None):
    """Cards moved by powers in the order of the turns, on the table's first `players` players
    and `slots` slots (default: all of them): one sequence of powers a turn, so two cards moved
    in one turn share a sequence and a later turn has a later one. The machinery keeps it; it is
    a wish rather than an invariant because its pairs of slots would cost the proofs ten times
    their time (the spec's invariants relate each card to the counters). Made with Z3's own
    functions, the term z3py would make (z3.And of (ta <= tb) == (qa <= qb) ...): z3py's checks
    of every operand cost most of the time of a witness's search at six players."""
    players = s.bounds.players if players is None else players
    slots = s.bounds.slots if slots is None else slots
    cells = [(s.mturn[i][j].as_ast(), s.mseq[i][j].as_ast()) for i in range(players) for j in range(slots)]
    ctx = s.np.ctx
    ref = ctx.ref()
    le, eq, mk_and, Bool = z3.Z3_mk_le, z3.Z3_mk_eq, z3.Z3_mk_and, z3.BoolRef
    pairs = []
    for k, (ta, qa) in enumerate(cells):
        for tb, qb in cells[k + 1:]:
            # (each term held by its wrapper until its parent holds it)
            t_ab, q_ab = Bool(le(ref, ta, tb), ctx), Bool(le(ref, qa, qb), ctx)
            before = Bool(eq(ref, t_ab.ast, q_ab.ast), ctx)
            t_ba, q_ba = Bool(le(ref, tb, ta), ctx), Bool(le(ref, qb, qa), ctx)
            after = Bool(eq(ref, t_ba.ast, q_ba.ast), ctx)
            array, size = z3.z3._to_ast_array([before, after])
            pairs.append(Bool(mk_and(ref, size, array), ctx))
    return z3.And(pairs)


# Z3's resource count, not a timeout, bounds the search for a smaller witness: the same spec
# then gives the same witness on a loaded machine as on an idle one (about 2 s here).
SMALL_MODEL_RLIMIT = 30_000_000


def small_model(base: list, assertions: list, situation: Situation, rlimit: int = SMALL_MODEL_RLIMIT):
    """A model of base + assertions on the smallest table, keeping as many wishes as Z3 can
    (unsatisfiable wishes are dropped by their unsat core). None when there is no model.
    The core is Z3's first, not a minimal one: minimizing it cost 40% of the search. A first
    core may hold wishes it need not, so the facts of a round (facts_of_a_round: a table without
    them cannot occur) are dropped only when a core holds no other wish, and then only on the
    whole table of the bounds: on a smaller one, the next table is tried instead."""
    tables, wishes = smallness(situation)
    s = situation
    for players, slots in tables:
        whole = (players, slots) == (s.bounds.players, s.bounds.slots)
        table = [] if whole else [s.np <= players] + [n <= slots for n in s.ns]
        here = wishes + facts_of_a_round(s, players, slots)
        solver = new_solver(*base, *assertions, *table, rlimit=rlimit)
        flags = [z3.Bool(f"wish_{i}") for i in range(len(here))]
        solver.add(*[z3.Implies(f, w) for f, w in zip(flags, here)])
        active, facts = list(flags), {str(f) for f in flags[len(wishes):]}
        for _ in range(16):
            result = solver.check(*active)
            if result == z3.sat:
                return solver.model()
            if result != z3.unsat:
                break
            core = {str(c) for c in solver.unsat_core()}
            if core - facts:
                core -= facts
            elif not whole:
                break       # (this table cannot have them: a larger one may)
            if not core:
                break
            active = [f for f in active if str(f) not in core]
    return None
