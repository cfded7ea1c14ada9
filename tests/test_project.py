"""A rules project runs the rules it holds: every command, run inside it, reads its own
spec folder (not the copy installed with the package), says so, and prints paths
relative to where it runs. A broken baobei.yaml is an error at its line for every command."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, SPEC, edit

SCENARIO = ROOT / "tests" / "scenarios" / "scoring" / "score-bao-fail-minimum-5.yaml"
# A failed BAO scores at least 4 instead of 5: the scenario and the claim about it must notice.
MINIMUM = ("score(p) = max(2 * points(p), 5) when p == bao and not bao_succeeds",
           "score(p) = max(2 * points(p), 4) when p == bao and not bao_succeeds")


def baobei() -> str:
    command = shutil.which("baobei", path=str(Path(sys.executable).parent)) or shutil.which("baobei")
    assert command, "the console script 'baobei' is installed beside python"
    return command


def run(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([baobei(), *args], capture_output=True, text=True, cwd=cwd)


@pytest.fixture
def project(tmp_path) -> Path:
    """A rules project as a rules author has one: baobei.yaml, spec/ and scenario files."""
    root = tmp_path / "rules"
    root.mkdir()
    shutil.copytree(SPEC, root / "spec", ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    (root / "baobei.yaml").write_text("layers: [core, fr]\n", encoding="utf-8")
    (root / "scenarios").mkdir()
    shutil.copy(SCENARIO, root / "scenarios" / SCENARIO.name)
    return root


def test_an_edit_of_the_project_spec_changes_what_every_command_does(project):
    scenario = f"scenarios/{SCENARIO.name}"
    before = run(project, "scenario", scenario)
    assert before.returncode == 0, before.stdout + before.stderr
    assert "rules spec/ (beside baobei.yaml)" in before.stdout
    simulated = json.loads(run(project, "simulate", "--players", "3", "--games", "20", "--seed", "4",
                               "--json", "--agents", "memory").stdout)
    assert simulated["rules"]["spec"] == "spec"
    original = project.parent / "original"
    shutil.copytree(project / "spec", original)

    edit(project / "spec" / "core" / "scoring.bao", *MINIMUM)
    after = run(project, "scenario", scenario)
    assert after.returncode == 1 and "scores.Ana: expected 5, got 4" in after.stdout
    checked = run(project, "check", "--variant", "fr", "--players", "3", "--slots", "4")
    failing = [line.split() for line in checked.stdout.splitlines() if "score.bao_failure_at_least_5" in line]
    assert checked.returncode == 1 and failing and failing[0][0] == "fails"
    assert failing[0][2].startswith("(spec/core/scoring.bao:")
    assert "site-packages" not in checked.stdout
    changed = run(project, "diff", "--old", str(original), "--new", "spec", "--variant", "fr", "--players", "3",
                  "--slots", "4")
    assert changed.returncode == 1 and "rule score.bao_failure" in changed.stdout
    resimulated = json.loads(run(project, "simulate", "--players", "3", "--games", "20", "--seed", "4",
                                 "--json", "--agents", "memory").stdout)
    assert resimulated["final_totals"] != simulated["final_totals"]
    tested = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "scenarios"],
                            capture_output=True, text=True, cwd=project)
    assert tested.returncode == 1 and "scores.Ana: expected 5, got 4" in tested.stdout
    assert "baobei: rules spec/ (beside baobei.yaml)" in tested.stdout
    assert f"scenarios/{SCENARIO.name} [fr]" in tested.stdout


def test_a_subfolder_of_the_project_reads_the_project_rules(project):
    edit(project / "spec" / "core" / "scoring.bao", *MINIMUM)
    done = run(project / "scenarios", "scenario", SCENARIO.name)
    assert done.returncode == 1 and f"rules {project / 'spec'}/" in done.stdout
    assert "scores.Ana: expected 5, got 4" in done.stdout


def test_outside_any_project_the_packaged_rules_run(tmp_path):
    shutil.copy(SCENARIO, tmp_path / SCENARIO.name)
    done = run(tmp_path, "scenario", SCENARIO.name)
    assert done.returncode == 0 and "the packaged spec" in done.stdout


@pytest.mark.parametrize("config,words,line", [
    ("layers: [core, frr]\n", "no spec files for layer 'frr'", 1),
    ("layers: [core, fr]\nvariants:\n  house: [core, dee]\n", "no spec files for layer 'dee'", 3),
    ("layers: [core, fr]\nedition: missing.yaml\n", "'edition: missing.yaml': no such file", 2),
    ("spec: rules\nlayers: [core, fr]\n", "'spec: rules': no folder of .bao files", 1),
])
def test_a_broken_config_is_an_error_at_its_line_for_every_command(project, config, words, line):
    (project / "baobei.yaml").write_text(config, encoding="utf-8")
    for args in (["scenario", f"scenarios/{SCENARIO.name}"], ["check", "--variant", "fr"],
                 ["simulate", "--games", "1"], ["diff", "fr", "de"]):
        done = run(project, *args)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert f"baobei.yaml:{line}:" in done.stderr and words in done.stderr and "Traceback" not in done.stderr
    tested = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "scenarios"],
                            capture_output=True, text=True, cwd=project)
    assert tested.returncode != 0 and f"baobei.yaml:{line}:" in tested.stdout and words in tested.stdout
