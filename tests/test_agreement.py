"""The two meanings agree: every rule condition, evaluated on states reached in random play,
gives the same answer in the interpreter (compiled Python) and in the checker (its Z3 term
with the concrete state substituted)."""
from __future__ import annotations

import pytest

from baobei.checker.concrete import Evaluator, OutOfBounds, move_substitution, substitution
from baobei.checker.symbolic import Bounds, Situation
from baobei.checker.translate import Translator
from baobei.dsl import ast
from baobei.interpreter.engine import Ctx
from baobei.interpreter.game import new_round
from baobei.interpreter.rules import load_rules
from baobei.interpreter.state import Rng

GAMES = 6
MOVES_PER_STATE = 6


@pytest.mark.parametrize("variant", ["fr", "de"])
def test_interpreter_and_z3_agree_on_every_rule(config, variant):
    rules = load_rules(config, variant)
    spec = rules.spec
    situation = Situation(spec, rules.edition, Bounds(players=6, slots=14, held=2))
    tr = Translator(spec, situation)
    program = rules.program
    conditions = {id(rule): (rule, program.lambda_(rule.when), tr.condition(rule))
                  for rule in spec.rules.values() if rule.when is not None and not isinstance(rule.body, ast.Value)}
    legality = {kind: tr.legal(kind)[0] for kind in {k for r in spec.rules.values()
                                                      if isinstance(r.body, ast.Verdict) for k in r.body.moves}}
    compared = 0
    for game in range(GAMES):
        rng = Rng(500 + game)
        rnd = new_round(rules, [f"P{i}" for i in range(2 + game % 4)], rng, first=0, totals={})
        while rnd.pending is not None:
            ask = rnd.pending
            moves = rnd.legal_moves()
            candidates = list(moves)
            for kind in ask.kinds():
                pool = rnd.brute_force_candidates(kind)
                candidates += [pool[rng.randrange(len(pool))] for _ in range(min(3, len(pool)))]
            try:
                z = Evaluator(substitution(situation, rnd, ctx=Ctx()))
            except OutOfBounds:
                rnd.apply(rng.choice(moves))
                continue
            for move in candidates[:MOVES_PER_STATE] + candidates[MOVES_PER_STATE::7]:
                ctx = rnd.context(move, ask)
                z.update(move_substitution(situation, rnd, ctx))
                for rule, here, there in conditions.values():
                    if isinstance(rule.body, ast.Verdict) and move.kind not in rule.body.moves:
                        continue
                    assert bool(here(rnd, ctx, {})) == z(there), \
                        f"{rule.name} ({rule.loc}) on '{move}'"
                    compared += 1
                expected = rnd.is_legal(move) if not rnd._slot_problem(move) else None
                if expected is not None:
                    assert z(legality[move.kind]) == expected, f"legality of '{move}'"
            z.update(move_substitution(situation, rnd, Ctx()))
            for player in rnd.players:  # a decision with a parameter, read at any time
                got = z(tr.decision("score", [situation.players().items[player.index][1]]))
                assert got == program.decision("score")(rnd, Ctx(), player)
            rnd.apply(rng.choice(moves))
    assert compared > 2000
