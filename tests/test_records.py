"""Recorded games: a corpus under tests/games replays move for move (the regression suite);
a change of the rules is caught at the first move it changes. Regenerate the corpus after an
intended rule change with:
    baobei simulate --variant fr --players 3 --games 8 --seed 2026 --agents memory,random,memory \\
        --record tests/games/fr.jsonl        (and the same for de)
and the other table sizes (one game each, so that every deal size is played; see baobei mutate):
    for p in 2 4 5 6; do baobei simulate --variant fr --players $p --games 1 --seed 2026 \\
        --agents memory,random --record /tmp/fr-$p.jsonl; done; cat /tmp/fr-?.jsonl > tests/games/fr-tables.jsonl
and games that end in a tie-break round (whose deal is 5 cards at 2 players, 4 otherwise; a
game's seed is game_seed(seed, index) = seed * 1000003 + index: these are games 7000382 and
13000159):
    baobei simulate --variant fr --players 3 --games 362 --seed 7 --agents random \\
        --record /tmp/fr.jsonl; tail -1 /tmp/fr.jsonl > tests/games/fr-tiebreak.jsonl
    (de: --games 775, game 7000795)
    baobei simulate --variant fr --players 5 --games 121 --seed 13 --agents random \\
        --record /tmp/fr.jsonl; tail -1 /tmp/fr.jsonl >> tests/games/fr-tiebreak.jsonl
"""
from __future__ import annotations

import json
import re

import pytest

from baobei.cli import main
from baobei.interpreter.record import read_games, replay_file
from baobei.interpreter.rules import load_rules
from baobei.interpreter.simulate import simulate

from conftest import ROOT, edit


@pytest.mark.parametrize("variant", ["fr", "de"])
def test_the_recorded_corpus_replays_identically(config, variant):
    path = ROOT / "tests" / "games" / f"{variant}.jsonl"
    games = read_games(path)
    assert len(games) == 8 and all(g["variant"] == variant for g in games)
    report = replay_file(load_rules(config, variant), path)
    assert report.divergences == []
    assert report.moves == sum(len(r["moves"]) for g in games for r in g["rounds"])


@pytest.mark.parametrize("variant", ["fr", "de"])
def test_the_games_at_every_other_table_size_replay_identically(config, variant):
    path = ROOT / "tests" / "games" / f"{variant}-tables.jsonl"
    games = read_games(path)
    assert sorted(len(g["rounds"][0]["players"]) for g in games) == [2, 4, 5, 6]
    assert replay_file(load_rules(config, variant), path).divergences == []


# each game's rounds as (players, tie-break): a tie-break at 2 players, and (fr) one at 3
TIEBREAK_GAMES = {"fr": [[(3, False), (2, True)], [(5, False), (3, True)]], "de": [[(3, False), (2, True)]]}


@pytest.mark.parametrize("variant", ["fr", "de"])
def test_the_games_with_a_tie_break_round_replay_identically(config, variant):
    path = ROOT / "tests" / "games" / f"{variant}-tiebreak.jsonl"
    games = read_games(path)
    assert [[(len(r["players"]), r["tiebreak"]) for r in g["rounds"]] for g in games] == TIEBREAK_GAMES[variant]
    for game in games:
        last = game["rounds"][-1]
        assert len({last["totals"][p] for p in last["players"]}) == 1     # the tied lowest total
    report = replay_file(load_rules(config, variant), path)
    assert report.divergences == []
    assert report.moves == sum(len(r["moves"]) for g in games for r in g["rounds"])


def test_a_record_holds_seed_edition_version_moves_and_what_they_revealed(config, tmp_path):
    rules = load_rules(config, "de")
    path = tmp_path / "games.jsonl"
    with open(path, "w", encoding="utf-8") as out:
        simulate(rules, 2, 3, 77, ["random", "memory"], record=out)
    games = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(games) == 3
    game = games[0]
    assert game["seed"] == 77 * 1_000_003 and game["variant"] == "de" and game["edition"] == "standard"
    assert game["spec_version"] == rules.version and len(rules.version) == 12
    first = game["rounds"][0]
    assert len(first["deck"]) == 66 and first["first"] in first["players"]
    peeks = [m for m in first["moves"] if ": peek " in m["move"]]
    assert peeks and all(len(next(iter(m["revealed"].values()))) == 2 for m in peeks)
    assert all(len(m["after"]) == 10 for r in game["rounds"] for m in r["moves"])
    assert replay_file(rules, path).divergences == []


def test_a_rule_change_is_reported_at_the_first_move_it_changes(config, spec_copy, capsys):
    path = ROOT / "tests" / "games" / "de.jsonl"
    edit(spec_copy / "core" / "cards.bao", "card bird5  value 5,  family bird5", "card bird5  value 4,  family bird5")
    code = main(["replay", str(path), "--spec", str(spec_copy)])
    out = capsys.readouterr().out
    assert code == 1 and " 0 diverged" not in out.splitlines()[-1]
    assert "(the scores): the scores changed" in out or "its result changed" in out
    assert re.search(r"game \d+, round \d+, move \d+ \(", out)     # where, in the game, it first shows


def test_bad_record_files_are_refused_with_their_line(tmp_path, capsys):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"format": "baobei-game/1", "rounds": []}\n{oops\n', encoding="utf-8")
    assert main(["replay", str(path)]) == 2
    assert f"{path}:2:" in capsys.readouterr().err


def test_memory_agents_beat_random_agents(config):
    rules = load_rules(config, "fr")
    stats = simulate(rules, 2, 60, 5, ["memory", "random"])
    assert stats.wins.get("memory", 0) >= 50


@pytest.mark.parametrize("old, new, problem", [
    ("3: 100, 4: 100", "3: 60, 4: 100", "the end of the game"),                # a threshold
    ("barn_owl: 4", "barn_owl: 3", "the recorded deck is not this edition's deck"),
    ("6: 4}", "6: 5}", "its result changed"),                               # the deal at 6 players
])
def test_an_edition_change_shows_in_the_recorded_games(spec_copy, capsys, old, new, problem):
    edit(spec_copy / "editions" / "standard.yaml", old, new)
    games = ROOT / "tests" / "games" / ("fr.jsonl" if "6:" not in old else "fr-tables.jsonl")
    assert main(["replay", str(games), "--spec", str(spec_copy)]) == 1
    assert problem in capsys.readouterr().out
