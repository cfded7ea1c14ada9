"""Traces: every step of the project's scenario files names what decided it, with its place and
its citations in the variant's language; what a move did and what the game then waits for; one
JSON schema for scenario traces, replays and recorded games (docs/trace.md)."""
from __future__ import annotations

import json
import re

import pytest

from baobei.cli import main
from baobei.interpreter.citations import language_of
from baobei.interpreter.record import read_games
from baobei.interpreter.rules import load_rules
from baobei.interpreter.scenario import load_scenario, run_scenario, scenario_files, variant_rules
from baobei.interpreter.simulate import simulate
from baobei.interpreter.tracing import RECORD_FIELDS, StepView

from conftest import ROOT

SPEC_PLACE = re.compile(r"^(spec|examples)/.+\.bao:\d+:\d+$")   # a rule of the spec, or of a house layer
STEP_FIELDS = {"step", "move", "legal", "decided_by", "rule", "loc", "cites", "effects", "set", "revealed", "shown",
               "waiting", "waiting_at", "after"}


def traced(config, path):
    """(variant, scenario, its steps as JSON, language) for each variant of a file."""
    scenario = load_scenario(path)
    for variant in scenario.variants:
        rules = variant_rules(scenario, variant, config)
        view = StepView(rules.spec)
        steps: list[dict] = []
        result = run_scenario(scenario, rules, trace=lambda step: steps.append(view.json(step)))
        assert result.passed, result.message
        yield variant, scenario, steps, language_of(rules.spec)


def test_every_step_of_the_projects_scenarios_names_what_decided_it_with_place_and_citation(config):
    decided: dict[str, int] = {}
    for path in scenario_files([str(ROOT / "tests" / "scenarios")]):
        for variant, scenario, steps, language in traced(config, path):
            played = {s.index for s in scenario.steps if s.variants is None or variant in s.variants}
            assert {s["step"] for s in steps if s["move"] and not s.get("implicit")} == played, path
            assert steps[0]["step"] == 0 and steps[0]["move"] is None and steps[0]["waiting"]
            for step in steps[1:]:
                where = f"{path} [{variant}] step {step['step']} ({step['move']})"
                decided[step["decided_by"]] = decided.get(step["decided_by"], 0) + 1
                assert STEP_FIELDS <= set(step), where
                if step["decided_by"] in ("slot", "notation"):      # the contract refuses it before any rule
                    assert not step["legal"] and step["reason"] and step["contract"].startswith(
                        "docs/scenario-format.md#"), where
                    continue
                assert step["decided_by"] in ("rule", "ask", "round"), where
                assert SPEC_PLACE.match(step["loc"]), where
                assert step["cites"] and all(c.get("text") or c.get("assumed") or c.get("reading")
                                             for c in step["cites"]), where
                editions = {c["edition"] for c in step["cites"] if "edition" in c}
                assert editions == {language} or language not in editions, where   # the variant's language first
                if step["legal"]:
                    assert step["decided_by"] == "rule" and step["level"] in ("rule", "exception"), where
                if step["decided_by"] == "rule":
                    assert step["rule"] and step["level"] in ("default", "rule", "exception"), where
    assert decided["rule"] > 2000 and decided["ask"] > 200


def test_the_text_trace_names_a_rule_with_its_place_and_citation_for_every_step(capsys):
    path = ROOT / "tests" / "scenarios" / "double" / "double-de-powers-on-a-discard-plucker-then-active-player.yaml"
    assert main(["scenario", "--trace", str(path)]) == 0
    out = capsys.readouterr().out
    blocks = re.split(r"\n(?=step \d+ )", out.split("\nstep 1 ", 1)[1])
    assert len(blocks) == len(load_scenario(path).steps)
    for block in blocks:
        verdict, citation = block.splitlines()[1:3]
        assert re.match(r"  (allowed|refused)( by (default|rule|exception) \S+ \(spec/\S+\.bao:\d+:\d+\)|: )",
                        verdict), block
        assert re.match(r'    (de: ".+"|the game waits at .+\(spec/\S+:\d+:\d+\))', citation), block
    # the powers a double pluck fires, in the order they are played, each with the rule that fired it
    assert re.search(r"1\. white_pelican \(look_one\) for Ben, rank 3: rule power\.trigger\.second_removed "
                     r"\(spec/core/powers\.bao:\d+:\d+\)\n\s+de: \"", out)
    assert re.search(r"2\. brown_pelican \(show_one\) for Ana, rank 4: rule power\.trigger\.drawn_then_discarded "
                     r"\(spec/de\.bao:\d+:\d+\)", out)
    assert "power look_one (white_pelican) played by Ben" in out
    assert "refused: Ben cannot show now; the game waits for Ben: look" in out
    assert "then waits for Ana: show  (power show_one (spec/core/powers.bao:" in out
    assert "everyone learns Ben.3 is bird4" in out


def test_a_json_trace_is_one_object_per_step_then_the_results(capsys):
    path = ROOT / "tests" / "scenarios" / "pluck" / "pluck-one-attempt-after-failure.yaml"
    assert main(["scenario", "--trace", "--json", "--variant", "fr", str(path)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    steps = [line for line in lines if "move" in line]
    assert [s["step"] for s in steps] == list(range(8)) and all(s["variant"] == "fr" for s in steps)
    pluck = steps[3]
    assert pluck["move"] == "Ben: pluck Ben.1" and pluck["rule"] == "pluck.on_a_regular_discard"
    assert pluck["level"] == "rule" and pluck["cites"][0]["edition"] == "fr"
    assert {"event": "revealed", "card": "bird3", "slot": "Ben.1", "to": "everyone"} in pluck["effects"]
    assert pluck["shown"] == ["bird3"] and pluck["revealed"]["Cy"] == {"Ben.1": "bird3"}
    assert pluck["waiting"] == [{"who": "Ben", "moves": ["place"]}]
    assert pluck["waiting_at"].startswith("procedure penalty (spec/core/pluck.bao:")
    refused = steps[5]
    assert refused["legal"] is False and refused["decided_by"] == "ask" and refused["rule"] is None
    assert refused["reason"].startswith("Cy cannot pluck now") and refused["loc"].startswith("spec/core/round.bao:")
    assert lines[-2] == {"scenario": str(path), "variant": "fr", "passed": True, "step": None, "message": ""}
    assert lines[-1] == {"passed": 1, "failed": 0}


def test_every_citation_with_the_flag_and_the_variants_language_first(config):
    path = ROOT / "tests" / "scenarios" / "contract" / "pluck-defensive-own-draw-discard-order.yaml"
    scenario = load_scenario(path)
    rules = variant_rules(scenario, "de", config)
    found = {}
    for every in (False, True):
        view = StepView(rules.spec, every)
        steps = []
        run_scenario(scenario, rules, trace=steps.append)
        found[every] = view.json(steps[1])["cites"]          # Ana: draw, by draw.active_player
    assert [c["edition"] for c in found[False]] == ["de"]
    assert [c["edition"] for c in found[True]] == ["de", "fr"]


def test_a_recorded_game_keeps_its_moves_as_steps_of_the_trace_and_replay_prints_their_trace(config, tmp_path,
                                                                                          capsys):
    rules = load_rules(config, "fr")
    path = tmp_path / "games.jsonl"
    with open(path, "w", encoding="utf-8") as out:
        simulate(rules, 3, 2, 41, ["random"], record=out)
    games = read_games(path)
    moves = [m for game in games for r in game["rounds"] for m in r["moves"]]
    assert games[0]["format"] == "baobei-game/2"
    assert all(set(m) <= set(RECORD_FIELDS) and m["rule"] in rules.spec.rules for m in moves)
    assert main(["replay", "--trace", "--json", str(path)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    steps, report = lines[:-1], lines[-1]
    assert report["moves"] == len(moves) == len(steps) and report["divergences"] == []
    assert [(s["move"], s["rule"], s["after"]) for s in steps] == [(m["move"], m["rule"], m["after"]) for m in moves]
    assert all(STEP_FIELDS <= set(s) and SPEC_PLACE.match(s["loc"]) and s["cites"] for s in steps)
    assert {(s["game"], s["round"]) for s in steps} == {(g, r) for g, game in enumerate(games, start=1)
                                                        for r in range(1, len(game["rounds"]) + 1)}


def test_replay_prints_the_trace_of_the_recorded_corpus_under_each_round(capsys):
    assert main(["replay", "--trace", str(ROOT / "tests" / "games" / "de.jsonl")]) == 0
    out = capsys.readouterr().out
    assert "== game 1, round 1\nstep 1  " in out and re.search(r"step 1  P\d: peek \d \d\n  allowed by rule "
                                                               r"peek\.two_own_cards_once_at_setup", out)
    assert out.splitlines()[-1].endswith("0 diverged")


def test_a_game_recorded_in_the_first_format_still_replays(tmp_path, capsys):
    games = read_games(ROOT / "tests" / "games" / "fr.jsonl")[:2]
    for game in games:
        game["format"] = "baobei-game/1"
        for recorded in game["rounds"]:
            for move in recorded["moves"]:
                del move["rule"]
    path = tmp_path / "old.jsonl"
    path.write_text("".join(json.dumps(game) + "\n" for game in games), encoding="utf-8")
    assert main(["replay", str(path)]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("2 games")


@pytest.mark.parametrize("variant", ["fr", "de"])
def test_a_trace_changes_nothing_a_record_shows(config, tmp_path, variant):
    """The same seed records the same games whether or not a trace is gathered (simulate --record
    gathers one)."""
    rules = load_rules(config, variant)
    path = tmp_path / "games.jsonl"
    with open(path, "w", encoding="utf-8") as out:
        recorded = simulate(rules, 4, 3, 9, ["random", "memory"], record=out)
    plain = simulate(rules, 4, 3, 9, ["random", "memory"])
    assert (recorded.rounds, recorded.turns, recorded.moves, recorded.wins) == \
        (plain.rounds, plain.turns, plain.moves, plain.wins)
