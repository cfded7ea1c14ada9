"""A rules author changes one rule and sees, before printing, everything that changes."""
from __future__ import annotations

import json

from baobei.cli import main

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
                 "--slots", "4", "--games", str(ROOT / "tests" / "games" / "fr.jsonl"), "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 1 and data["changed"]
    (report,) = data["variants"]
    assert report["edition"] == ["deal at 2 players: 5 -> 6"]


def test_a_changed_procedure_body_is_never_no_difference(spec_copy, capsys):
    """What a procedure does is not a rule's decision: a negated `if` in one is listed as a change
    the comparison of decisions cannot reach, and diff exits 1."""
    edit(spec_copy / "core" / "pluck.bao", "  if count(held) > 0 then", "  if not (count(held) > 0) then")
    code = main(["diff", "--old", str(SPEC), "--new", str(spec_copy), "--variant", "fr", "--players", "2",
                 "--slots", "4", "--json"])
    data = json.loads(capsys.readouterr().out)
    (report,) = data["variants"]
    assert code == 1 and data["changed"]
    assert [entry.split(" ")[0] for entry in report["uncompared"]] == ["procedure"]
