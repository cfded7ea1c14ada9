"""Failures of random play you can replay: the message names the game, its seed, the round and the
move; --record keeps every finished game and the failing one; the failing round is a scenario file
that `baobei scenario` plays into the same failure."""
from __future__ import annotations

import json
import re
import textwrap

import pytest
import yaml

from baobei.cli import main
from baobei.interpreter.record import read_games

from conftest import ROOT, edit

WHERE = re.compile(r"FAIL \(seed (\d+)\): game (\d+) \(seed (\d+)\), round (\d+), move (\d+) '([^']+)': "
                   r"error\[(E\d+)\]: (.+)")


def broken_invariant(spec_copy, holds: str) -> str:
    with open(spec_copy / "core" / "bao.bao", "a", encoding="utf-8") as out:
        out.write(f'\ninvariant test.broken_by_play\n  assumed "broken on purpose"\n  holds {holds}\n')
    return "invariant test.broken_by_play"


def run(capsys, *args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_broken_invariant_leaves_a_scenario_that_fails_the_same_way(spec_copy, tmp_path, capsys):
    invariant = broken_invariant(spec_copy, "bao == none")
    record, folder = tmp_path / "games.jsonl", tmp_path / "failures"
    code, out, _ = run(capsys, "simulate", "--spec", spec_copy, "--variant", "fr", "--players", "3", "--games", "6",
                       "--seed", "5", "--check", "--record", record, "--failures", folder)
    found = WHERE.search(out)
    assert code == 1 and found, out
    seed, game, game_seed, round_number, move, text, error, message = found.groups()
    assert (seed, error, text) == ("5", "E510", text) and text.endswith(": bao") and invariant in message
    path = folder / f"failure-seed5-game{game}.yaml"
    assert f"the failing round, as a scenario: {path}" in out
    assert f"play it again: baobei scenario --spec {spec_copy} {path}" in out
    scenario = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert scenario["variants"] == ["fr"] and scenario["invariants"] is True and scenario["seed"] == int(game_seed)
    assert len(scenario["steps"]) == int(move) and scenario["steps"][0][next(iter(scenario["steps"][0]))][:4] == "peek"
    # the file plays into the same failure, at the same move
    code, out, _ = run(capsys, "scenario", "--spec", spec_copy, path)
    assert code == 1
    assert f"step {move} ({text}): an invariant broke: after '{text}': {invariant}" in out
    # the record: every game before it, finished, and the failing one up to its failing move
    games = read_games(record)
    assert len(games) == int(game) and all("winner" in g for g in games[:-1])
    failed = games[-1]["failed"]
    assert (failed["round"], failed["move"], failed["move_text"]) == (int(round_number), int(move), text)
    assert len(games[-1]["rounds"]) == int(round_number) and len(games[-1]["rounds"][-1]["moves"]) == int(move)
    assert run(capsys, "replay", "--spec", spec_copy, record)[0] == 0


def test_a_house_invariant_broken_in_a_later_round_replays_from_that_rounds_table(tmp_path, capsys):
    """A round after the first: its first player, the totals so far, the recycles' piles."""
    (tmp_path / "house.bao").write_text(textwrap.dedent('''\
        layer house
        invariant house.two_turns_after_the_first_round
          assumed "broken on purpose: the third turn of a round after the first"
          holds (all p in players: p.total == 0) or turn < 3 or round_over
        '''), encoding="utf-8")
    (tmp_path / "baobei.yaml").write_text(f"spec: {ROOT / 'spec'}\nlayers: [core, de, house]\n", encoding="utf-8")
    config = tmp_path / "baobei.yaml"
    code, out, _ = run(capsys, "simulate", "--config", config, "--players", "4", "--games", "4", "--seed", "4",
                       "--check", "--failures", tmp_path)
    found = WHERE.search(out)
    assert code == 1 and found and "invariant house.two_turns_after_the_first_round" in out
    _, game, _, round_number, move, text, _, _ = found.groups()
    path = tmp_path / f"failure-seed4-game{game}.yaml"
    scenario = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert int(round_number) > 1 and scenario["variants"] == ["house"] and any(scenario["totals"].values())
    code, out, _ = run(capsys, "scenario", "--config", config, path)
    assert code == 1 and f"step {move} ({text}): an invariant broke: " in out
    assert "house.two_turns_after_the_first_round" in out


def test_rules_stuck_in_play_leave_a_scenario_that_gets_stuck_the_same_way(spec_copy, tmp_path, capsys):
    edit(spec_copy / "fr.bao", "  limited(s) = s.moved_sequence == sequence and s.moved_by == user",
         "  limited(s) = true when s.moved_sequence == sequence and s.moved_by == user")
    code, _, err = run(capsys, "simulate", "--spec", spec_copy, "--variant", "fr", "--players", "3", "--games", "30",
                       "--seed", "3", "--failures", tmp_path)
    found = WHERE.search(err)
    assert code == 2 and found and found.group(7) == "E500" and "no rule decides 'limited'" in err
    path = tmp_path / f"failure-seed3-game{found.group(2)}.yaml"
    code, out, _ = run(capsys, "scenario", "--spec", spec_copy, path)
    assert code == 1 and f"step {found.group(5)} ({found.group(6)}): the rules cannot go on: no rule decides " \
                         f"'limited'" in out


def test_the_same_failure_on_any_number_of_workers(spec_copy, tmp_path, capsys):
    broken_invariant(spec_copy, "not final_phase")
    found = []
    for workers in ("1", "2"):
        folder = tmp_path / workers
        code, out, _ = run(capsys, "simulate", "--spec", spec_copy, "--variant", "de", "--players", "3", "--games",
                           "60", "--seed", "8", "--check", "--workers", workers, "--failures", folder, "--json")
        failure = json.loads(out)["failure"]
        assert code == 1 and failure["code"] == "E510"
        found.append((failure["game"], failure["round"], failure["move"],
                      (folder / f"failure-seed8-game{failure['game']}.yaml").read_text(encoding="utf-8")))
    assert found[0] == found[1] and "reshuffle:" in found[0][3]      # a final phase needs two recycles


def test_a_scenario_can_ask_for_the_invariants_after_every_step(tmp_path, spec_copy, capsys):
    invariant = broken_invariant(spec_copy, "not pluck_success")
    text = textwrap.dedent("""\
        title: a successful pluck breaks the invariant
        variants: [fr]
        invariants: true
        players: [Ana, Ben]
        first: Ben
        layouts: {Ana: [bird5, bird7], Ben: [bird3, bird9]}
        deck: [bird5, bird1]
        discard: [bird10]
        active: Ana
        steps:
          - Ana: draw
          - Ana: pluck Ana.1
        """)
    path = tmp_path / "s.yaml"
    path.write_text(text, encoding="utf-8")
    code, out, _ = run(capsys, "scenario", "--spec", spec_copy, path)
    assert code == 1 and f"step 2 (Ana: pluck Ana.1): an invariant broke: after 'Ana: pluck Ana.1': {invariant}" in out
    path.write_text(text.replace("invariants: true\n", ""), encoding="utf-8")
    assert run(capsys, "scenario", "--spec", spec_copy, path)[0] == 0       # not asked for: not checked
    path.write_text(text.replace("first: Ben", "first: Zoe"), encoding="utf-8")
    code, _, err = run(capsys, "scenario", "--spec", spec_copy, path)
    assert code == 2 and "'first' is 'Zoe', not one of the players" in err and f"{path}:5:" in err


def test_play_stops_on_a_card_in_two_places_or_a_card_lost(config):
    """The machinery's own checks after every move of random play (interpreter/invariants.py):
    each names the move it follows."""
    from baobei.interpreter.invariants import InvariantBroken, Watch
    from baobei.interpreter.rules import load_rules
    from baobei.interpreter.table import round_from_table
    rules = load_rules(config, "fr")
    table = {"players": ["Ana", "Ben"], "layouts": {"Ana": ["bird5", "bird7"], "Ben": ["bird3", "bird9"]},
             "deck": ["bird5", "bird1"], "discard": ["bird10"], "active": "Ana"}
    rnd = round_from_table(rules, table)
    watch = Watch(rnd, rules, 7)
    watch.after(rnd, "Ana: draw")                      # seven cards, each in one place
    rnd.deck.append(rnd.players[1].layout[0])          # Ben's first card also in the pile
    with pytest.raises(InvariantBroken, match="^after 'Ana: draw': 8 cards on the table, not 7$"):
        watch.after(rnd, "Ana: draw")
    rnd.deck.pop(0)
    with pytest.raises(InvariantBroken, match="^after 'Ana: draw': a card is in two places$"):
        watch.after(rnd, "Ana: draw")
