"""A rules author changes one rule and sees, before printing, everything that changes."""
from __future__ import annotations

import json

from pathlib import Path

from baobei.checker.diff import Differ
from baobei.checker.symbolic import Bounds
from baobei.cli import main
from baobei.dsl.loader import load_config, load_edition_for, load_spec

from conftest import ROOT, SPEC, edit


def test_diff_of_two_spec_versions_names_the_rule_and_what_changes(spec_copy, tmp_path, capsys):
    # the German placement becomes the French one: a new slot, never an emptied one
    edit(spec_copy / "de.bao", "allow place when target.empty", "allow place when target.new")
    code = main(["diff", "--old", str(SPEC), "--new", str(spec_copy), "--variant", "de",
                 "--players", "3", "--slots", "4", "--scenarios", str(ROOT / "tests" / "scenarios"),
                 "--games", str(ROOT / "tests" / "games" / "de.jsonl"), "--emit", str(tmp_path / "w"), "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 1 and data["changed"]
    (report,) = data["variants"]
    assert [c.split(" ")[:2] for c in report["changed"]] == [["rule", "place.freed_slot"]]
    (difference,) = report["differences"]
    assert difference["title"] == "legal place"
    witness = difference["classes"][0]["witness"]
    assert witness["move"].split(": ")[1].startswith("place")
    changed = {s["file"].split("tests/scenarios/")[1] for s in report["scenarios"]}
    assert "pluck/de-pluck-penalty-emptied-slot-first.yaml" in changed
    assert all(s["old"] == "PASS" and s["new"].startswith("FAIL") for s in report["scenarios"])
    assert report["games"] and "now illegal" in " ".join(report["games"])
    (witness_file,) = report["witnesses"]
    assert main(["scenario", witness_file]) == 0
    capsys.readouterr()
    assert main(["scenario", "--spec", str(spec_copy), witness_file]) == 1


def test_identical_versions_change_nothing(spec_copy, capsys):
    """Every scenario file of both editions and the recorded games of both, each under its own
    variants only: with the same rules nothing is reported and diff exits 0, like diff(1)."""
    code = main(["diff", "--old", str(SPEC), "--new", str(spec_copy), "--players", "3", "--slots", "4",
                 "--scenarios", str(ROOT / "tests" / "scenarios"), "--games", str(ROOT / "tests" / "games" / "fr.jsonl"),
                 "--games", str(ROOT / "tests" / "games" / "de.jsonl")])
    out = capsys.readouterr().out
    assert code == 0, out
    assert out.splitlines()[-1].startswith("no change in behaviour") and "now illegal" not in out


def test_a_deal_changed_in_the_edition_file_is_a_change(spec_copy, capsys):
    edit(spec_copy / "editions" / "standard.yaml", "deal: {2: 5,", "deal: {2: 6,")
    code = main(["diff", "--old", str(SPEC), "--new", str(spec_copy), "--variant", "fr", "--players", "2",
                 "--slots", "6", "--games", str(ROOT / "tests" / "games" / "fr.jsonl"), "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 1 and data["changed"]
    (report,) = data["variants"]
    assert report["edition"] == ["deal at 2 players: 5 -> 6"]
    # and what it changes in play: the setup deals another layout
    (difference,) = report["differences"]
    assert difference["title"] == "body procedure setup" and difference["causes"] == ["edition deal"]
    assert any("round of 2 players" in c["message"] and "has 5 slots in old and 6 in new" in c["message"]
               for c in difference["classes"])


def test_a_negated_if_in_a_procedure_is_a_difference_with_its_witness(spec_copy, capsys):
    """What a procedure does is compared like a rule's decision: a negated `if` in the penalty
    shows where the two versions go on differently, with the table it starts from, and diff
    exits 1."""
    edit(spec_copy / "core" / "pluck.bao", "  if count(held) > 0 then", "  if not (count(held) > 0) then")
    code = main(["diff", "--old", str(SPEC), "--new", str(spec_copy), "--variant", "fr", "--players", "2",
                 "--slots", "4", "--json"])
    data = json.loads(capsys.readouterr().out)
    (report,) = data["variants"]
    assert code == 1 and data["changed"]
    (difference,) = report["differences"]
    assert difference["title"] == "body procedure penalty" and difference["causes"] == ["procedure penalty"]
    messages = [c["message"] for c in difference["classes"]]
    assert any("in old it ends, in new it asks" in m for m in messages), messages
    assert any("in old it asks Ana: place, in new it ends" in m for m in messages), messages
    assert all(c["witness"]["layouts"] for c in difference["classes"])
    assert not any(entry.startswith("procedure") for entry in report["uncompared"])


def _compared(old: Path, new: Path, variant: str = "fr", bounds: Bounds = Bounds(3, 5), spares: int = 0):
    """The diff of two spec folders, without proofs (the comparison itself is what is tested)."""
    configs = [load_config(cwd=ROOT, spec=str(folder)) for folder in (old, new)]
    specs = [load_spec(config, variant) for config in configs]
    editions = [load_edition_for(config, spec) for config, spec in zip(configs, specs)]
    return Differ(("old", specs[0]), ("new", specs[1]), editions[0], bounds, edition_b=editions[1],
                  spares=spares).run()


def _classes(report, title: str) -> list:
    found = [f for f in report.findings if f.title == title]
    assert found, [f.title for f in report.findings]
    return found[0].classes


def test_a_card_family_changed_changes_what_plucks_succeed(spec_copy):
    """barn_owl joins the macaws: a pluck that failed now succeeds (on pluck's branch reads the
    families through `matches`), though no rule's text changed."""
    edit(spec_copy / "core" / "cards.bao", "card barn_owl       value 11, family owl,",
         "card barn_owl       value 11, family macaw,")
    report = _compared(SPEC, spec_copy)
    classes = _classes(report, "body on pluck")
    assert report.findings[0].causes == ["card barn_owl"]
    assert all(c.witness["move"].split(": ")[1].startswith("pluck") for c in classes)
    shown = [c for c in classes if "in old it asks" in c.message and "place" in c.message]
    assert shown, [c.message for c in classes]
    cards = {card for c in shown for cards in c.witness["layouts"].values() for card in cards}
    reference = {c.witness["reference"]["card"] for c in shown}
    assert {"barn_owl", "macaw"} & (cards | reference)


def test_a_definition_only_a_procedure_reads_is_compared_by_what_the_procedure_does(spec_copy):
    """The tie-break deal for two players, read by procedure setup alone: the setup now deals
    another layout, at the start of a tie-break round."""
    edit(spec_copy / "core" / "round.bao", "if count(players) == 2 then 5 else 4", "if count(players) == 2 then 6 else 4")
    report = _compared(SPEC, spec_copy, bounds=Bounds(2, 6))
    classes = _classes(report, "body procedure setup")
    assert report.findings[0].causes == ["define deal_size"]
    assert any("tie-break round of 2 players" in c.message and "has 5 slots in old and 6 in new" in c.message
               for c in classes), [c.message for c in classes]


def test_a_change_inside_a_power_is_a_difference(spec_copy):
    edit(spec_copy / "core" / "powers.bao", "  if looked1 != none then", "  if looked1 == none then")
    report = _compared(SPEC, spec_copy)
    classes = _classes(report, "body power look_and_swap")
    assert any("in old it asks" in c.message and "swap, leave" in c.message for c in classes)


def test_an_edition_threshold_changes_when_a_game_ends(spec_copy):
    edit(spec_copy / "editions" / "standard.yaml", "threshold: {2: 100,", "threshold: {2: 90,")
    report = _compared(SPEC, spec_copy)
    messages = [c.message for f in report.findings for c in f.classes]
    assert "game_over is false in old and true in new" in messages, messages
    assert all(f.causes == ["edition threshold"] for f in report.findings)


def test_a_rewrite_that_does_the_same_is_no_difference(spec_copy, capsys):
    """The comparison can also say "no difference": `> 0` and `>= 1` are the same on counts."""
    edit(spec_copy / "core" / "pluck.bao", "  if count(held) > 0 then", "  if count(held) >= 1 then")
    report = _compared(SPEC, spec_copy)
    assert report.changed and not report.findings and not report.uncompared and not report.unknown
    code = main(["diff", "--old", str(SPEC), "--new", str(spec_copy), "--variant", "fr", "--players", "2",
                 "--slots", "4"])
    out = capsys.readouterr().out
    assert code == 0 and out.splitlines()[-1].startswith("no change in behaviour"), out


def test_who_sees_a_card_is_named_as_not_compared(spec_copy):
    """What players know is not on the symbolic table: a change of it is never 'no difference'."""
    edit(spec_copy / "core" / "round.bao", "    reveal t to actor\n  end\n  set actor.peeked = true",
         "    reveal t to everyone\n  end\n  set actor.peeked = true")
    report = _compared(SPEC, spec_copy)
    assert any(entry.startswith("on peek: who comes to see which card") for entry in report.uncompared), \
        report.uncompared


def test_a_regression_witness_is_played_from_spare_witnesses_only_when_the_shown_one_is_not(spec_copy, tmp_path,
                                                                                            monkeypatch, capsys):
    """diff --old/--new --emit compares once without spare witnesses; only when the play search
    reaches no scenario from a difference's shown witnesses (here made to miss them all) does it
    compare again with spares, and the regression file then comes from one of them."""
    from baobei.checker import scenarios
    from baobei.checker.versions import emit_regressions
    from baobei.interpreter.rules import load_rules
    edit(spec_copy / "de.bao", "allow place when target.empty", "allow place when target.new")
    bounds = Bounds(3, 4)
    report = _compared(SPEC, spec_copy, "de", bounds)
    rules_old, rules_new = (load_rules(load_config(cwd=ROOT, spec=str(folder)), "de") for folder in (SPEC, spec_copy))
    asked = []

    def spares():
        asked.append("spares")
        return _compared(SPEC, spec_copy, "de", bounds, spares=scenarios.SPARE_WITNESSES)
    assert len(emit_regressions(report, rules_old, rules_new, tmp_path / "shown", spares)) == 1 and not asked
    shown = [item.witness for finding in report.findings for item in finding.classes]
    real_realize = scenarios.realize
    monkeypatch.setattr(scenarios, "realize", lambda item, rules_a, rules_b:
                        None if item.witness in shown else real_realize(item, rules_a, rules_b))
    (witness_file,) = emit_regressions(report, rules_old, rules_new, tmp_path / "spares", spares)
    assert asked == ["spares"]
    assert main(["scenario", witness_file]) == 0
    capsys.readouterr()
    assert main(["scenario", "--spec", str(spec_copy), witness_file]) == 1
