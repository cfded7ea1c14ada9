"""`baobei mutate`: mutants made on the tree, and judged by the scenarios, games and checker."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from baobei import mutate
from baobei.cli import main
from baobei.dsl import unparse
from baobei.dsl.layers import load_layers
from baobei.dsl.loader import load_config, load_edition_for, load_spec
from baobei.dsl.mutations import apply_to_layers, mutations
from baobei.interpreter.scenario import load_scenario, run_scenario

from conftest import ROOT, edit

# the checker's tables stay small here: one proof, quick claims
SMALL = ["--players", "2", "--slots", "5"]


def _layers_and_mutations(config, variant: str):
    layered = load_layers(config.spec_dir, config.layers_of(variant), config.config_dir)
    edition = load_edition_for(config, load_spec(config, variant))
    return layered, mutations(layered, edition)


def _number(found, title_part: str) -> int:
    numbers = [m.number for m in found if title_part in m.title]
    assert len(numbers) == 1, (title_part, numbers)
    return numbers[0]


def _judged(capsys, *args) -> dict:
    code = main(["mutate", "--json", "--workers", "1", *SMALL, *args])
    out = capsys.readouterr().out
    assert code == 0, out
    return json.loads(out)


def test_mutants_are_numbered_the_same_every_time_and_cover_every_operator(config):
    first = _layers_and_mutations(config, "fr")[1]
    again = _layers_and_mutations(config, "fr")[1]
    assert [m.title for m in first] == [m.title for m in again]
    assert {m.operator for m in first} == {"negate", "drop", "compare", "constant", "verdict", "remove", "rank",
                                           "value", "family", "edition"}
    assert not any(m.decl_kind in ("claim", "invariant") for m in first)


def test_a_mutant_changes_one_declaration_of_a_copy(config):
    layered, found = _layers_and_mutations(config, "fr")
    before = {(d.kind, d.name): unparse.declaration(d) for d in layered.all()}
    mutation = next(m for m in found if m.operator == "drop")
    mutant = apply_to_layers(layered, mutation)
    after = {(d.kind, d.name): unparse.declaration(d) for d in mutant.all()}
    assert {(d.kind, d.name): unparse.declaration(d) for d in layered.all()} == before   # the original stays
    changed = [key for key in before if before[key] != after[key]]
    assert changed == [(mutation.decl_kind, mutation.decl_name)]


def test_a_swapped_verdict_is_killed_by_the_scenario_that_pins_it(config, capsys):
    found = _layers_and_mutations(config, "fr")[1]
    number = _number(found, "rule end.own_turn: `allow` -> `refuse`")
    report = _judged(capsys, "--mutant", str(number))
    verdict = report["mutants"][0]
    assert verdict["status"] == "killed" and verdict["by"].startswith("scenario tests/scenarios/")
    assert report["score"] == 1.0


def test_a_mutant_that_does_not_load_is_stillborn(config, capsys):
    found = _layers_and_mutations(config, "de")[1]
    number = _number(found, "rule deck.final_phase_one_last_turn_each: rule removed")
    verdict = _judged(capsys, "--variant", "de", "--mutant", str(number))["mutants"][0]
    assert verdict["status"] == "stillborn" and "deck.final_phase_one_last_turn_each" in verdict["by"]


def test_removing_a_rule_another_one_repeats_is_equivalent(spec_copy, capsys):
    edit(spec_copy / "core" / "round.bao", "rule end.own_turn\n",
         'rule end.own_turn_again\n  assumed "the same as end.own_turn"\n  allow end when actor == active\n\n'
         "rule end.own_turn\n")
    config = load_config(spec=str(spec_copy))
    number = _number(_layers_and_mutations(config, "fr")[1], "rule end.own_turn_again: rule removed")
    report = _judged(capsys, "--spec", str(spec_copy), "--mutant", str(number))
    assert report["mutants"][0]["status"] == "equivalent"
    assert report["score"] is None       # nothing both loads and changes behaviour


def test_every_emitted_scenario_passes_on_the_spec_and_fails_on_its_mutant(tmp_path, capsys):
    """With no scenario and no game to judge them, mutants survive: each gets its missing test."""
    (tmp_path / "none").mkdir()
    (tmp_path / "none.jsonl").write_text("", encoding="utf-8")
    report = _judged(capsys, "--scenarios", str(tmp_path / "none"), "--games", str(tmp_path / "none.jsonl"),
                     "--sample", "20", "--seed", "2", "--workers", "2", "--emit", str(tmp_path / "missing"))
    surviving = [v for v in report["mutants"] if v["status"] == "surviving"]
    assert surviving and all(v["by"] for v in surviving)
    emitted = [v for v in surviving if v["scenario"]]
    assert emitted, surviving
    config = load_config(cwd=ROOT)
    suite = mutate.suite_for(mutate.Options(config, "fr", (), (), 2, 5, 20_000, ()))
    for verdict in emitted:
        scenario = load_scenario(Path(verdict["scenario"]))
        assert run_scenario(scenario, suite.rules).passed, verdict
        mutant = mutate.mutant_rules(suite, suite.mutations[verdict["number"] - 1])
        assert not run_scenario(scenario, mutant).passed, verdict
        assert f"mutant {verdict['number']}:" in Path(verdict["scenario"]).read_text(encoding="utf-8")


def test_min_score_gates_and_the_text_names_each_survivor(tmp_path, capsys):
    (tmp_path / "none").mkdir()
    args = ["mutate", "--workers", "1", *SMALL, "--scenarios", str(tmp_path / "none"), "--sample", "6",
            "--seed", "4"]
    assert main(args + ["--min-score", "100"]) in (0, 1)
    out = capsys.readouterr().out
    survivors = out.count("\n  mutant ")
    assert ("score below --min-score 100%" in out) == (survivors > 0)
    assert main(args + ["--min-score", "0"]) == 0
    assert "score:" in capsys.readouterr().out


def test_two_workers_give_the_verdicts_of_one(capsys):
    args = ["--sample", "6", "--seed", "5"]
    one = _judged(capsys, *args)
    code = main(["mutate", "--json", "--workers", "2", *SMALL, *args])
    two = json.loads(capsys.readouterr().out)
    assert code == 0
    assert [(v["number"], v["status"], v["by"]) for v in one["mutants"]] == \
        [(v["number"], v["status"], v["by"]) for v in two["mutants"]]


@pytest.mark.parametrize("args, message", [(["--mutant", "100000"], "the spec has mutants 1 to"),
                                           (["--variant", "xx"], "xx")])
def test_bad_input_is_an_error_with_exit_2(args, message, capsys):
    assert main(["mutate", *SMALL, *args]) == 2
    assert message in capsys.readouterr().err


def test_a_ray_cluster_gives_the_verdicts_of_this_process(ray_cluster, capsys):
    args = ["--sample", "3", "--seed", "6"]
    here = _judged(capsys, *args)
    code = main(["mutate", "--json", *SMALL, *args, "--ray", "auto"])
    on_ray = json.loads(capsys.readouterr().out)
    assert code == 0
    assert [(v["number"], v["status"], v["by"]) for v in here["mutants"]] == \
        [(v["number"], v["status"], v["by"]) for v in on_ray["mutants"]]


def test_a_mutant_check_would_report_is_killed_by_the_check(config, capsys):
    """Dropping `p == bao` from the failed-BAO score makes it overlap the ordinary score: no
    scenario's outcome changes, but `check` reports the overlap, so the mutant is killed."""
    number = _number(_layers_and_mutations(config, "fr")[1],
                     "rule score.bao_failure: `p == bao and not bao_succeeds` -> `not bao_succeeds`")
    verdict = _judged(capsys, "--mutant", str(number))["mutants"][0]
    assert verdict["status"] == "killed" and verdict["by"].startswith("check: overlap"), verdict
