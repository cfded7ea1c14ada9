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
