"""The command line: exit codes, messages with file and line, no traceback."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from baobei.cli import main

from conftest import ROOT

PASSING = textwrap.dedent("""\
    title: a discard, then the next player
    variants: [fr, de]
    players: [Ana, Ben]
    layouts: {Ana: [bird3, bird4], Ben: [bird5, bird6]}
    deck: [bird8, bird1]
    discard: [bird10]
    active: Ana
    steps:
      - Ana: draw
      - Ana: discard
      - Ana: end
    expect:
      active: Ben
      discard: [bird10, bird8]
    """)


def run_cli(capsys, *args) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path: Path, text: str, name: str = "s.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_passing_scenario_exits_0_with_a_summary(tmp_path, capsys):
    code, out, _ = run_cli(capsys, "scenario", str(write(tmp_path, PASSING)))
    assert code == 0
    assert out.splitlines()[-1] == "2 passed, 0 failed"
    assert "PASS" in out and "[fr]" in out and "[de]" in out


def test_failing_scenario_exits_1_and_names_step_expected_and_got(tmp_path, capsys):
    text = PASSING.replace("discard: [bird10, bird8]", "discard: [bird10, bird1]")
    code, out, _ = run_cli(capsys, "scenario", str(write(tmp_path, text)))
    assert code == 1
    assert "FAIL" in out and "expected [bird10, bird1], got [bird10, bird8]" in out
    assert out.splitlines()[-1] == "0 passed, 2 failed"


def test_an_illegal_step_fails_with_the_reason(tmp_path, capsys):
    text = PASSING.replace("  - Ana: discard\n", "  - Ben: discard\n")
    code, out, _ = run_cli(capsys, "scenario", str(write(tmp_path, text)))
    assert code == 1 and "step 2 (Ben: discard): refused: Ben cannot discard now" in out


@pytest.mark.parametrize("change,words,line", [
    (("expect:", "colour: red\nexpect:"), "unknown key 'colour'", 12),
    (("[bird3, bird4]", "[bird3, dodo]"), "unknown card 'dodo'", 4),
    (("variants: [fr, de]", "variants: [fr, xx]"), "unknown variant 'xx'", 2),
    (("  active: Ben", "  activ: Ben"), "unknown check 'activ'", 13),
    (("players: [Ana, Ben]", "players: [Ana, Ben"), "not valid YAML", 4),
    (("active: Ana\n", "active: Zoe\n"), "'active' is 'Zoe'", 7),
    (("  discard: [bird10, bird8]", "  discard_top: macow"), "unknown card 'macow'", 14),
    (("  discard: [bird10, bird8]", "  discard: [bird10, bird88]"), "unknown card 'bird88'", 14),
])
def test_invalid_scenario_exits_2_naming_file_and_line(tmp_path, capsys, change, words, line):
    path = write(tmp_path, PASSING.replace(*change))
    code, out, err = run_cli(capsys, "scenario", str(path))
    assert code == 2
    assert words in err and f"{path}:{line}:" in err
    assert "Traceback" not in err and "Traceback" not in out


def test_bad_reshuffle_is_rejected_with_exit_2(capsys):
    path = ROOT / "tests" / "bad_scenarios" / "reshuffle-not-a-permutation.yaml"
    code, _, err = run_cli(capsys, "scenario", str(path))
    assert code == 2 and "not a permutation" in err and "tests/bad_scenarios/reshuffle-not-a-permutation.yaml" in err


def test_broken_spec_exits_2_with_location(spec_copy, tmp_path, capsys):
    (spec_copy / "fr.bao").write_text("layer fr\nrule x.y\n  assumed \"z\"\n  allow pluck when\n", encoding="utf-8")
    code, _, err = run_cli(capsys, "scenario", "--spec", str(spec_copy), str(write(tmp_path, PASSING)))
    assert code == 2
    assert f"{spec_copy / 'fr.bao'}:4:" in err and "expected" in err and "Traceback" not in err


def test_simulate_json_and_the_same_seed_gives_the_same_games(capsys):
    runs = []
    for _ in range(2):
        code, out, _ = run_cli(capsys, "simulate", "--variant", "de", "--players", "3", "--games", "4",
                               "--seed", "11", "--json")
        assert code == 0
        data = json.loads(out)
        for key in ("games", "rounds", "turns", "seconds"):
            assert key in data
        for key in [k for k in data if k.endswith(("seconds", "per_second"))]:   # timings differ
            data.pop(key)
        runs.append(data)
    assert runs[0] == runs[1] and runs[0]["games"] == 4 and runs[0]["turns"] > 0


def test_simulate_prints_its_seed(capsys):
    code, out, _ = run_cli(capsys, "simulate", "--variant", "fr", "--players", "2", "--games", "2", "--seed", "5")
    assert code == 0 and "seed 5" in out.splitlines() and "games 2" in out


def test_the_installed_command_has_help_and_never_shows_a_traceback(tmp_path):
    command = shutil.which("baobei", path=str(Path(sys.executable).parent)) or shutil.which("baobei")
    assert command, "the console script 'baobei' is installed beside python"
    help_text = subprocess.run([command, "--help"], capture_output=True, text=True, cwd=tmp_path)
    assert help_text.returncode == 0 and "scenario" in help_text.stdout and "simulate" in help_text.stdout
    broken = write(tmp_path, "title: [unclosed\n")
    result = subprocess.run([command, "scenario", str(broken)], capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr and "s.yaml:2:1: error[E400]" in result.stderr


def test_the_command_ends_with_its_output_whole_and_the_handlers_registered_to_run_at_exit(tmp_path):
    # run() ends the process without the interpreter's teardown: what is buffered for a pipe and
    # what waits for the exit must still happen
    program = ("import atexit, sys\n"
               "from baobei.cli import run\n"
               "atexit.register(lambda: print('handler ran'))\n"
               "sys.argv = ['baobei', 'simulate', '--variant', 'fr', '--players', '2', '--games', '3',"
               " '--seed', '5', '--json']\n"
               "run()\n")
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    report, _, handler = result.stdout.rstrip("\n").rpartition("\n")
    assert handler == "handler ran" and json.loads(report)["games"] == 3
    missing = program.replace("'--json'", "'--json', '--spec', 'no-such-folder'")
    failing = subprocess.run([sys.executable, "-c", missing], capture_output=True, text=True, cwd=tmp_path)
    assert failing.returncode == 2 and "no-such-folder" in failing.stderr and failing.stdout == "handler ran\n"


def test_scenario_coverage_lists_the_rules_no_step_exercised(tmp_path, capsys):
    code = main(["scenario", "--coverage", "-q", str(write(tmp_path, PASSING))])
    out = capsys.readouterr().out
    assert code == 0
    assert "coverage fr:" in out and "coverage de:" in out
    assert "never decided: pluck.on_a_regular_discard" in out   # nobody plucked in this scenario
    assert "never decided: draw.active_player" not in out
