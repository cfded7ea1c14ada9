"""The terms the checker builds directly (checker/symbolic.py: if_, and_, or_, not_, eq_, ge_) mean
what z3py's would (arith_ and sum_ are the very terms z3py makes, and so is a witness's wish of
turn order, checker/smallest.py), and fold only what is plain; the symbolic execution runs every power a queued
card can have (checker/execute.py: next_power)."""
from __future__ import annotations

import itertools

import z3

from baobei.checker.execute import Executor, Frame, derived
from baobei.checker.smallest import marks_in_turn_order, small_model
from baobei.checker.symbolic import (NONE, Bounds, Situation, SlotV, and_, arith_, eq_, ge_, if_, int_, not_, number, or_,
                                     sum_, truth)
from baobei.dsl.loader import load_config, load_edition_for, load_spec

from conftest import ROOT, edit


def _equivalent(a, b) -> bool:
    solver = z3.Solver()
    solver.add(a != b)
    return solver.check() == z3.unsat


def test_built_terms_mean_what_z3py_terms_mean():
    c, d = z3.Bools("c d")
    x, y = z3.Ints("x y")
    true, false = z3.BoolVal(True), z3.BoolVal(False)
    for cond, a, b in itertools.product([c, true, false, z3.And(c, d)], [x, int_(3), y + 1], [y, x, int_(3)]):
        assert _equivalent(if_(cond, a, b), z3.If(cond, a, b))
    for terms in itertools.product([c, d, true, false, x > 2], repeat=3):
        assert _equivalent(and_(list(terms)), z3.And(list(terms)))
        assert _equivalent(or_(list(terms)), z3.Or(list(terms)))
    for term in (c, true, false, x > y):
        assert _equivalent(not_(term), z3.Not(term))
    for a, b in itertools.product([x, int_(2), int_(3), 2, y], repeat=2):
        assert _equivalent(eq_(a, b), z3.IntVal(a) == b if isinstance(a, int) else a == b)
    for a, n in itertools.product([x, int_(2), int_(3)], [2, 3]):
        assert _equivalent(ge_(a, n), a >= n)


PYTHON_OPERATORS = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
                    ">=": lambda a, b: a >= b, "+": lambda a, b: a + b, "-": lambda a, b: a - b,
                    "*": lambda a, b: a * b}


def test_arithmetic_is_the_very_term_z3py_makes():
    """The same term, not only an equivalent one: the proofs' queries, and so their answers and
    times, stay what they were (Python asks a numeral on the right first: z3py makes 0 < x of
    x > 0, and 3 < x is x > 3)."""
    x, y = z3.Ints("x y")
    for op, a, b in itertools.product(PYTHON_OPERATORS, [x, int_(2), 3], [y, int_(4), z3.IntVal(5), 6]):
        if isinstance(a, int) and isinstance(b, int):
            continue
        made, expected = arith_(op, a, b), PYTHON_OPERATORS[op](a, b)
        assert made.eq(expected), (op, a, b, made, expected)
    r = z3.Real("r")
    assert arith_("<", x, r).eq(x < r) and arith_("+", r, x).eq(r + x)
    assert sum_([x, y, int_(1)]).eq(z3.Sum([x, y, int_(1)])) and sum_([x]).eq(z3.Sum([x]))
    assert number(int_(7)) == 7 and number(z3.IntVal(-8)) == -8 and number(z3.simplify(x - x)) == 0
    assert number(x) is None and number(x + 1) is None and number(z3.BoolVal(True)) is None


def test_what_is_plain_is_folded_and_nothing_else():
    c = z3.Bool("c")
    x, y = z3.Ints("x y")
    assert if_(z3.BoolVal(True), x, y).eq(x) and if_(z3.BoolVal(False), x, y).eq(y) and if_(c, x, x).eq(x)
    assert truth(eq_(int_(2), 2)) is True and truth(eq_(int_(2), 3)) is False and truth(eq_(x, 2)) is None
    assert truth(ge_(int_(2), 3)) is False and truth(ge_(x, 3)) is None
    assert truth(and_([c, z3.BoolVal(False)])) is False and and_([c, z3.BoolVal(True)]).eq(c)
    assert truth(or_([c, z3.BoolVal(True)])) is True and or_([]).eq(z3.BoolVal(False)) and and_([]).eq(z3.BoolVal(True))
    assert if_(c, x, y).eq(z3.If(c, x, y)) and and_([c, x > 1]).eq(z3.And(c, x > 1))
    # a Python int or an int and a real go where z3py reconciles them
    assert _equivalent(if_(c, x, 1), z3.If(c, x, 1))
    r = z3.Real("r")
    assert _equivalent(if_(c, x, r), z3.If(c, x, r))


def test_a_witness_wish_is_the_very_term_z3py_makes():
    """The wish that cards moved by powers keep the order of the turns (checker/smallest.py) is
    made with Z3's functions directly: the very term z3py makes, on the whole table or on the
    first players and slots a witness search tries."""
    config = load_config(cwd=ROOT)
    spec = load_spec(config, "fr")
    state = Situation(spec, load_edition_for(config, spec), Bounds(3, 4))
    cells = [(state.mturn[i][j], state.mseq[i][j]) for i in range(3) for j in range(4)]
    expected = z3.And([z3.And((ta <= tb) == (qa <= qb), (tb <= ta) == (qb <= qa))
                       for k, (ta, qa) in enumerate(cells) for tb, qb in cells[k + 1:]])
    made = marks_in_turn_order(state)
    assert made.eq(expected) and made.num_args() == 12 * 11 // 2
    corner = [(state.mturn[i][j], state.mseq[i][j]) for i in range(2) for j in range(3)]
    expected = z3.And([z3.And((ta <= tb) == (qa <= qb), (tb <= ta) == (qb <= qa))
                       for k, (ta, qa) in enumerate(corner) for tb, qb in corner[k + 1:]])
    made = marks_in_turn_order(state, 2, 3)
    assert made.eq(expected) and made.num_args() == 6 * 5 // 2


def test_a_witness_names_only_slots_of_its_table():
    """A question that puts a slot variable on a fourth slot gets a witness whose variable names
    a slot of its owner's layout, on a table with four slots (the smaller tables tried first have
    three): the bounds alone allow a slot one past any layout, and a table a round cannot have is
    no witness (checker/smallest.py: facts_of_a_round)."""
    config = load_config(cwd=ROOT)
    spec = load_spec(config, "fr")
    state = Situation(spec, load_edition_for(config, spec), Bounds(3, 4))
    for name in ("looked1", "looked2", "freed"):
        slot = state.vars[name]
        model = small_model(state.constraints(), [slot.p != NONE, slot.n == 4], state)
        owner = model.eval(slot.p, model_completion=True).as_long()
        number = model.eval(slot.n, model_completion=True).as_long()
        size = model.eval(state.ns[owner], model_completion=True).as_long()
        assert 1 <= number <= size, (name, owner, number, size)


def test_a_cell_is_read_without_its_layout_size_only_where_the_constraints_empty_it():
    """A read of a situation's own cell needs no guard on its owner's layout size: the
    well-formed tables (constraints()) empty every cell a layout does not have, so the plain
    read means the guarded one on each of them. Under another layout (the list of sizes an
    effect made) a read keeps its guard."""
    config = load_config(cwd=ROOT)
    spec = load_spec(config, "fr")
    state = Situation(spec, load_edition_for(config, spec), Bounds(3, 3))
    other_sizes = derived(state, ns=list(state.ns))        # the same sizes, as another layout's
    wherever = SlotV(z3.Int("p"), z3.Int("n"))
    for table, empty in ((state.card, NONE), (state.mturn, -1), (state.mseq, -1), (state.mby, NONE)):
        assert state.at(SlotV(int_(1), int_(2)), table, int_(empty)).eq(table[1][1])
        plain, guarded = state.at(wherever, table, int_(empty)), other_sizes.at(wherever, table, int_(empty))
        assert not plain.eq(guarded)
        solver = z3.Solver()
        solver.add(*state.constraints(), plain != guarded)
        assert solver.check() == z3.unsat


def test_the_card_value_floors_leave_out_no_table_and_name_each_negative_card(spec_copy):
    """checker/check.py value_floors, given to the solver beside the constraints: each holds
    whatever card its place holds (so no verdict can change), and it floors the place's value at
    exactly that card's value where it is negative, at 0 elsewhere: the golden toucan in the
    books' deck, and a bird made negative too in a copy of the spec."""
    from baobei.checker.check import value_floors
    from baobei.checker.translate import Translator
    edit(spec_copy / "core" / "cards.bao", "card bird1  value 1,", "card bird1  value -1,")
    for config, negative in ((load_config(cwd=ROOT), {"golden_toucan": -5}),
                             (load_config(spec=str(spec_copy)), {"golden_toucan": -5, "bird1": -1})):
        spec = load_spec(config, "fr")
        state = Situation(spec, load_edition_for(config, spec), Bounds(3, 3))
        floors = value_floors(Translator(spec, state))
        places = [cell for row in state.card for cell in row] + list(state.held) + [state.top]
        assert len(floors) == len(places)
        for place, floor in zip(places, floors):
            solver = z3.Solver()
            solver.add(z3.Not(floor))
            assert solver.check() == z3.unsat
            for index, name in enumerate(state.ix.cards):
                at = z3.simplify(z3.substitute(floor.arg(1), (place, int_(index))))
                assert number(at) == negative.get(name, 0), (name, at)


def test_a_queued_card_runs_whichever_power_it_has():
    """A fired role whose card is any card: one run per power (and one where it does not fire),
    each running that power's body."""
    config = load_config(cwd=ROOT)
    spec = load_spec(config, "fr")
    edition = load_edition_for(config, spec)
    state = Situation(spec, edition, Bounds(2, 6), tag="queued_")
    executor = Executor(spec, state.bounds)
    power, user = z3.Int("queued_power"), z3.Int("queued_user")
    queue = Frame("procedure resolve", (), kind="queue", items=((z3.Bool("fires"), power, user),), position=-1)
    results = executor.next_power((), queue, state, [])
    played = sorted(frames[-1].where for frames, _, _ in results if frames[-1].kind == "body")
    assert played == sorted(f"power {name}" for name in spec.powers) and len(spec.powers) >= 5
    assert len(results) == len(spec.powers) + 1        # ... and the run where it does not fire


def test_the_ways_of_a_branch_cover_everything_only_when_plain():
    from baobei.checker.execute import covers_everything
    c, d = z3.Bools("c d")
    x = z3.Int("x")
    assert covers_everything([c, not_(c)])
    assert covers_everything([and_([c, d]), and_([c, not_(d)]), not_(c)])        # nested ifs
    assert covers_everything([and_([and_([c, x > 1]), d]), and_([c, x > 1, not_(d)]), not_(c),
                              and_([c, not_(x > 1)])])
    assert not covers_everything([and_([c, d]), not_(c)])                          # a way left out
    assert not covers_everything([x > 1, x < 1])                                   # x == 1: no way
    assert covers_everything([z3.BoolVal(True), c]) and not covers_everything([])


def test_every_ask_of_every_power_waits_for_a_move_somewhere():
    """A move the symbolic shapes could not name would make its ask never wait and its handler never
    run in a proof (`add P` once required a slot it does not name, so no proof ran `on add`): every
    ask of every power of both editions has a table where one of its moves is legal, and every
    handler it leads to is reached."""
    from baobei.checker.induction import POWER, Turns
    config = load_config(cwd=ROOT)
    for variant in ("fr", "de"):
        spec = load_spec(config, variant)
        turns = Turns(spec, load_edition_for(config, spec), Bounds(2, 6), 2)
        for name in spec.powers:
            frames, state, constraints, ctx = turns.power_start(name)
            graph = turns.graph(name, frames, state, constraints, POWER, ctx)
            assert graph.decisions, (variant, name)
            for decision in graph.decisions.values():
                solver = z3.Solver()
                solver.add(*constraints)
                solver.add(decision.waits)
                assert solver.check() == z3.sat, (variant, name, decision.stop.where)
