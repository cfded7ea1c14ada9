"""Random play: the invariants hold after every move, rounds end, tables round-trip,
and the staged legal-move generators agree with judging every candidate one by one."""
from __future__ import annotations

import pytest

from baobei.interpreter.agents import RandomAgent
from baobei.interpreter.game import new_round, play_round
from baobei.interpreter.rules import load_rules
from baobei.interpreter.simulate import simulate
from baobei.interpreter.state import Rng
from baobei.interpreter.table import round_from_table, same_table, table_from_round

GAMES_PER_EDITION = 500


@pytest.mark.parametrize("variant", ["fr", "de"])
def test_random_games_keep_every_invariant(config, variant):
    rules = load_rules(config, variant)
    checked = 0
    for players in range(2, 7):
        stats = simulate(rules, players, GAMES_PER_EDITION // 5, seed=100 + players, agents=["random"], check=True)
        assert stats.games == GAMES_PER_EDITION // 5
        assert stats.checked_moves == stats.moves > 0
        assert stats.round_trips > 0
        checked += stats.checked_moves
    assert checked > 1000


@pytest.mark.parametrize("variant", ["fr", "de"])
def test_staged_legal_moves_equal_judging_every_candidate(config, variant):
    rules = load_rules(config, variant)
    decisions = 0
    for game in range(12):
        rng = Rng(game)
        rnd = new_round(rules, [f"P{i}" for i in range(2 + game % 5)], rng, first=game % 2, totals={})
        while rnd.pending is not None and decisions < 100_000:
            fast = sorted(map(str, rnd.legal_moves()))
            slow = sorted(map(str, rnd.brute_force_moves()))
            assert fast == slow, rnd.describe_pending()
            decisions += 1
            rnd.apply(rng.choice(rnd.legal_moves()))
    assert decisions > 200


def test_a_table_reads_back_equal(config):
    rules = load_rules(config, "de")
    rnd = new_round(rules, ["A", "B", "C"], Rng(4), first=1, totals={"A": 3, "B": 0, "C": 9})
    while rnd.pending is not None and "draw" not in rnd.pending.kinds():
        rnd.apply(rnd.legal_moves()[0])
    table = table_from_round(rnd)
    again = round_from_table(rules, table)
    assert same_table(table, table_from_round(again))
    assert table["totals"] == {"A": 3, "B": 0, "C": 9}
    assert again.describe_pending() == rnd.describe_pending()


def test_checked_play_leaves_no_round_to_the_cyclic_garbage_collector(config):
    """Every turn's table is read back into a round that is never played: it is closed, so it is
    freed at once. Left running, each such round is a reference cycle (its waiting procedure
    refers to it), tens of thousands of objects a game for the collector to find."""
    import gc
    rules = load_rules(config, "fr")
    gc.collect()
    gc.disable()
    try:
        stats = simulate(rules, 4, 6, seed=7, agents=["random"], check=True)
        left = gc.collect()
    finally:
        gc.enable()
    assert stats.round_trips > 50
    assert left < stats.round_trips      # read-back rounds left to it: about 100 objects each


def test_the_same_seed_plays_the_same_games(config):
    rules = load_rules(config, "fr")
    first = simulate(rules, 4, 5, 99, ["random"])
    second = simulate(rules, 4, 5, 99, ["random"])
    assert (first.rounds, first.turns, first.moves, first.bao_calls) == \
        (second.rounds, second.turns, second.moves, second.bao_calls)
    other = simulate(rules, 4, 5, 98, ["random"])
    assert (other.turns, other.moves) != (first.turns, first.moves)


class _AskedOneByOne(RandomAgent):
    """A random agent the decision loop asks through its choose (any agent but the plain random
    one is), not through the random table's plans."""


@pytest.mark.parametrize("variant", ["fr", "de"])
def test_a_table_of_random_agents_plays_the_moves_its_agents_would(config, variant):
    """The loop draws a random table's moves from the random agent's plans directly (windows
    included); asking each agent's choose, or judging every move again, plays the same moves."""
    rules = load_rules(config, variant)
    windows = 0
    for seed in range(30):
        names = [f"P{i + 1}" for i in range(2 + seed % 5)]
        histories = []
        for agent, trusted in ((RandomAgent, True), (_AskedOneByOne, True), (RandomAgent, False)):
            rng = Rng(seed)
            rnd = new_round(rules, names, rng, first=seed % len(names), totals={})
            play_round(rnd, {name: agent(name, rng) for name in names}, rng, trusted=trusted)
            histories.append([str(move) for move in rnd.history])
        assert histories[0] == histories[1] == histories[2], f"seed {seed}"
        windows += sum(move.split()[1] in ("pluck", "pass") for move in histories[0] if " " in move)
    assert windows > 100


def test_only_de_makes_a_bao_void_by_a_second_recycle(config):
    """de: a second recycle during the last turns replaces the BAO; fr: it never does. Both count
    the call; the success rate is over the calls that were scored."""
    played = {variant: simulate(load_rules(config, variant), 3, 300, 7, ["random"]) for variant in ("fr", "de")}
    assert played["fr"].bao_cancelled == 0 and played["fr"].final_phase_rounds > 0
    assert played["de"].bao_cancelled > 0
    de = played["de"]
    assert de.bao_success_rate == de.bao_successes / (de.bao_calls - de.bao_cancelled)


def _snapshot(rnd) -> tuple:
    return (repr(table_from_round(rnd)), [sorted((k, v.name) for k, v in known.items()) for known in rnd.known],
            sorted((k, repr(v)) for k, v in rnd.vars.items()), rnd.describe_pending(), rnd.position(),
            (rnd.ref.card, rnd.ref.how, rnd.ref.by, rnd.ref.open), len(rnd.history))


def test_an_illegal_move_is_refused_with_a_reason_and_changes_nothing(config):
    from baobei.interpreter.engine import IllegalMove
    rules = load_rules(config, "de")
    refused = 0
    for seed in range(12, 30):
        rng = Rng(seed)
        rnd = new_round(rules, ["A", "B", "C"], rng, first=0, totals={})
        while rnd.pending is not None:
            legal = {str(m) for m in rnd.legal_moves()}
            for kind in rnd.pending.kinds():
                for move in rnd.brute_force_candidates(kind)[:5]:
                    if str(move) in legal:
                        continue
                    before = _snapshot(rnd)
                    with pytest.raises(IllegalMove) as caught:
                        rnd.apply(move)
                    assert caught.value.reason and _snapshot(rnd) == before
                    refused += 1
            rnd.apply(rng.choice(rnd.legal_moves()))
    assert refused >= 100
