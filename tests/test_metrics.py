"""What a game measured (interpreter/metrics.py) is what the rules decided: scripted rounds from
the scenario files give known plucks and powers, and whole games agree with their records."""
from __future__ import annotations

import pytest

from baobei.interpreter.game import play_game
from baobei.interpreter.metrics import WATCHED, MetricsCollector, play_measured
from baobei.interpreter.rules import load_rules
from baobei.interpreter.scenario import load_scenario, run_scenario, same_move
from baobei.interpreter.table import round_from_table

from conftest import ROOT

SCENARIOS = ROOT / "tests" / "scenarios"


def measured_steps(config, path, variant: str) -> MetricsCollector:
    """The moves a scenario played (it passes), played again from its table, each watched one
    followed by the collector's hook, and the round's end hook, as play_measured calls them."""
    scenario = load_scenario(path)
    rules = load_rules(config, variant)
    played = run_scenario(scenario, rules)
    assert played.passed, played.message
    rnd = round_from_table(rules, scenario.table, start=False)
    rnd.start(["turns"])
    collector = MetricsCollector()
    for move in played.round.history:
        move = same_move(rnd, move)
        rnd.apply(move)
        if move.kind in WATCHED:
            collector.on_move(rnd, move)
    collector.on_round(rnd, None)
    return collector


@pytest.mark.parametrize("path,variant,plucks,powers", [
    # fr: the drawn brown pelican's power, then the first removed (white pelican), then the second (brown)
    ("double/double-fr-powers-reference-then-first-then-second.yaml", "fr", {"double own": [1, 1]},
     {"brown_pelican": 2, "white_pelican": 1}),
    # de: only the second removed card's power
    ("double/double-de-powers-only-the-second-removed.yaml", "de", {"double own": [1, 1]}, {"white_pelican": 1}),
    ("pluck/pluck-failed-others-turn.yaml", "fr", {"single offensive": [1, 0]}, {}),
])
def test_plucks_and_powers_are_the_ones_the_rules_decided(config, path, variant, plucks, powers):
    collector = measured_steps(config, SCENARIOS / path, variant)
    assert collector.plucks == plucks
    assert dict(collector.powers) == powers


@pytest.mark.parametrize("variant", ["fr", "de"])
def test_a_game_measured_agrees_with_its_record(config, variant):
    rules = load_rules(config, variant)
    for seed in range(6):
        measured = play_measured(rules, 3, seed, ["memory", "random"])
        record = play_game(rules, 3, seed, ["memory", "random"])
        assert measured.rounds == len(record.rounds) and measured.seats == 3
        assert sum(measured.round_scores) == sum(measured.final_totals) == sum(record.totals.values())
        assert len(measured.cards_at_end) == sum(len(r.players) for r in record.rounds)
        seats = record.rounds[0].players
        opener = seats.index(record.rounds[0].first)
        assert seats[(opener + measured.winner_seat - 1) % 3] == record.winner
        assert measured.bao_scored <= measured.bao_calls and measured.bao_successes <= measured.bao_scored
        assert len(measured.bao_scores) == measured.bao_scored
        assert all(0 <= won <= tried for tried, won in measured.plucks.values())
