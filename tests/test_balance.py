"""Balance studies: the same figures on one worker, two, or a Ray cluster; a study interrupted
and resumed from its checkpoint ends as if never interrupted; a rule change with an obvious
effect is found significant while what it does not touch is not; bad input exits 2."""
from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
from pathlib import Path

from baobei.balance import Side, Study, as_json, run_study
from baobei.cli import main
from baobei.interpreter.rules import load_rules

from conftest import SPEC, edit

# A failed BAO scores at least 20 instead of 5 (the README's example of a house rule).
HOUSE = """layer house
replace rule score.bao_failure
  assumed "house rule: a failed BAO scores twice the total, at least 20"
  score(p) = max(2 * points(p), 20) when p == bao and not bao_succeeds
"""


def run(capsys, *args) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def figures(out: str) -> list[str]:
    """The output without its timing line."""
    return [line for line in out.splitlines() if not line.startswith("played ")]


def figures_json(out: str) -> dict:
    data = json.loads(out)
    data.pop("seconds")
    return data


def verdicts(data: dict) -> dict[str, str]:
    return {metric["key"]: metric["verdict"] for metric in data["metrics"]}


def test_one_worker_and_two_print_the_same_figures(capsys):
    outputs = []
    for workers in ("1", "2"):
        code, out, _ = run(capsys, "balance", "fr", "de", "--games", "60", "--players", "3", "--seed", "7",
                           "--workers", workers)
        assert code == 0
        outputs.append(out)
    assert figures(outputs[0]) == figures(outputs[1])
    assert "balance fr vs de: 60 games each, 3 players, agents random, seed 7" in outputs[0]
    assert "in this process" in outputs[0] and "on 2 worker processes" in outputs[1]
    assert "seed 7" in outputs[0].splitlines()
    # the edition difference the rules are about: only de double-plucks an opponent's card
    assert "in de, double offensive plucks are tried" in outputs[0]


def test_a_ray_cluster_gives_the_figures_of_the_run_in_this_process(ray_cluster, capsys):
    args = ["balance", "fr", "de", "--games", "100", "--players", "4", "--seed", "3", "--json"]
    here = run(capsys, *args, "--workers", "1")
    on_ray = run(capsys, *args, "--ray", "auto")
    assert here[0] == on_ray[0] == 0
    assert figures_json(here[1]) == figures_json(on_ray[1])
    assert ray_cluster.is_initialized()   # the study used the cluster it found and left it running


def test_simulate_gives_the_same_games_on_any_number_of_workers_and_on_ray(ray_cluster, tmp_path, capsys):
    outputs, records = [], []
    for option in (["--workers", "1"], ["--workers", "2"], ["--ray", "auto"]):
        record = tmp_path / f"games{len(records)}.jsonl"
        code, out, _ = run(capsys, "simulate", "--variant", "de", "--players", "3", "--games", "40", "--seed", "5",
                           "--agents", "memory,random", "--record", str(record), *option)
        assert code == 0
        outputs.append([line for line in figures(out) if not line.startswith("seconds ")])
        records.append(record.read_text(encoding="utf-8"))
    assert outputs[0] == outputs[1] == outputs[2]
    assert records[0] == records[1] == records[2] and records[0].count("\n") == 40


def test_an_interrupted_study_resumes_from_its_checkpoint_to_the_same_figures(config, tmp_path):
    fr, de = Side.of("fr", load_rules(config, "fr")), Side.of("de", load_rules(config, "de"))
    study = Study(fr, de, 50, 2, ("random",), 11)
    whole = as_json(run_study(study, workers=2))
    checkpoint = tmp_path / "study.json"
    interrupted = run_study(study, workers=2, checkpoint=checkpoint, batch_limit=2)
    assert not interrupted.finished and interrupted.played == 20 and checkpoint.exists()
    resumed = run_study(study, workers=1, checkpoint=checkpoint)
    assert resumed.finished and resumed.played_now == 30
    whole.pop("seconds")
    done = as_json(resumed)
    done.pop("seconds")
    assert done == whole
    again = run_study(study, checkpoint=checkpoint)    # a finished study is read back, not played again
    assert again.played_now == 0 and as_json(again)["metrics"] == whole["metrics"]


def test_a_checkpoint_of_another_study_is_refused(tmp_path, capsys):
    checkpoint = tmp_path / "study.json"
    assert run(capsys, "balance", "fr", "de", "--games", "20", "--players", "2", "--seed", "1",
               "--checkpoint", str(checkpoint))[0] == 0
    code, _, err = run(capsys, "balance", "fr", "de", "--games", "20", "--players", "3", "--seed", "1",
                       "--checkpoint", str(checkpoint))
    assert code == 2 and f"{checkpoint}: error[E310]" in err and "players 2 (this study: 3)" in err
    checkpoint.write_text("{not json", encoding="utf-8")
    code, _, err = run(capsys, "balance", "fr", "de", "--games", "20", "--checkpoint", str(checkpoint))
    assert code == 2 and "not a balance checkpoint" in err


def test_a_house_rule_shows_its_effect_and_only_its_effect(spec_copy, tmp_path, capsys):
    (tmp_path / "house.bao").write_text(HOUSE, encoding="utf-8")
    (tmp_path / "baobei.yaml").write_text(f"spec: {spec_copy}\nlayers: [core, de, house]\n", encoding="utf-8")
    code, out, _ = run(capsys, "balance", "house", "--config", str(tmp_path / "baobei.yaml"), "--games", "120",
                       "--players", "3", "--agents", "memory", "--seed", "1", "--json")
    assert code == 0
    data = json.loads(out)
    assert (data["a"], data["b"]) == ("de", "house")
    found = verdicts(data)
    for key in ("bao_score.mean", "bao_score.distribution", "round_score.distribution"):
        assert found[key] == "significant", key
    unrelated = [key for key in found if key.startswith(("round_length.", "bao.", "pluck.", "power.",
                                                         "cards_at_round_end.", "win_rate."))]
    assert len(unrelated) > 15 and all(found[key] != "significant" for key in unrelated)
    sentences = [m["sentence"] for m in data["metrics"] if "sentence" in m]
    assert any(s.startswith("in house, a BAO caller scores") and "more than in de" in s for s in sentences)


def test_the_same_rules_on_both_sides_differ_in_nothing(capsys):
    code, out, _ = run(capsys, "balance", "fr", "fr", "--games", "200", "--players", "4", "--seed", "2", "--json")
    data = json.loads(out)
    assert code == 0 and data["played"] == 200
    assert "significant" not in verdicts(data).values()
    assert min(m["p"] for m in data["metrics"] if m["p"] is not None) < 0.5   # the sides did play different games


def test_until_significant_stops_at_a_look_once_every_metric_is_settled(capsys):
    args = ["balance", "fr", "fr", "--players", "2", "--seed", "4", "--json", "--margin", "100"]
    code, out, _ = run(capsys, *args, "--games", "800", "--until-significant")
    stopped = json.loads(out)
    assert code == 0 and stopped["stopped_early"] and stopped["looks"] == [100, 200, 400, 800]
    assert stopped["played"] in (100, 200, 400)
    assert stopped["level"] == 0.05 / 4 and set(verdicts(stopped).values()) <= {"negligible", "n/a"}
    code, out, _ = run(capsys, *args, "--games", str(stopped["played"]))
    plain = json.loads(out)
    assert [m.get("a") for m in plain["metrics"]] == [m.get("a") for m in stopped["metrics"]]


def test_two_versions_of_the_spec(spec_copy, capsys):
    edit(spec_copy / "core" / "scoring.bao", "score(p) = max(2 * points(p), 5) when p == bao and not bao_succeeds",
         "score(p) = max(4 * points(p), 5) when p == bao and not bao_succeeds")
    code, out, _ = run(capsys, "balance", "--old", str(SPEC), "--new",
                       str(spec_copy), "--variant", "fr", "--games", "40", "--players", "2", "--seed", "1")
    assert code == 0 and "balance old vs new: 40 games each" in out
    assert "in new, the spread of round scores is" in out and "wider than in old" in out


def test_bad_input_exits_2_with_what_was_expected(capsys, monkeypatch):
    for args, words in ((["balance", "fr"], "variant fr (core, fr) has no base"),
                        (["balance", "fr", "xx"], "no spec files for layer 'xx'"),
                        (["balance", "fr", "de", "--agents", "clever"], "unknown agent 'clever'"),
                        (["balance", "fr", "de", "--games", "1"], "at least 2 games"),
                        (["balance", "fr", "de", "--workers", "0"], "--workers 0: at least 1"),
                        (["balance", "fr", "de", "--workers", "2", "--ray", "auto"], "give one of them"),
                        (["balance", "--old", "spec"], "--old DIR and --new DIR go together")):
        code, _, err = run(capsys, *args)
        assert code == 2 and words in err and "Traceback" not in err, (args, err)
    monkeypatch.setitem(sys.modules, "ray", None)    # as where the cluster extra is not installed
    for verb in (["balance", "fr", "de"], ["simulate"]):
        code, _, err = run(capsys, *verb, "--ray", "auto")
        assert code == 2 and "pip install 'baobei[cluster]'" in err


def test_progress_shows_the_games_the_rate_and_the_time_left(capsys):
    code, _, err = run(capsys, "balance", "fr", "de", "--games", "20", "--players", "2", "--seed", "1", "--progress")
    assert code == 0 and "/40 games" in err and "games/s" in err and "left" in err


def test_an_interrupted_command_keeps_its_games_and_the_same_command_resumes(tmp_path, capsys):
    """Ctrl-C once the first games are in (its progress line shows): exit 130, the checkpoint
    holds what was played, and the same command finishes the study."""
    checkpoint = tmp_path / "study.json"
    # enough games that the study is still running when the first progress line (after a second) shows
    args = ["balance", "fr", "de", "--games", "2000", "--players", "2", "--seed", "6", "--checkpoint",
            str(checkpoint), "--json"]
    command = shutil.which("baobei", path=str(Path(sys.executable).parent)) or shutil.which("baobei")
    # Ctrl-C as at a terminal: a pytest started in the background (`cmd &`) ignores SIGINT, and a
    # Python started with SIGINT ignored would never raise KeyboardInterrupt
    process = subprocess.Popen([command, *args, "--progress"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    shown = b""
    while b"games/s" not in shown:
        chunk = process.stderr.read1(200)
        assert chunk, f"the study ended before it showed progress: {shown!r}"
        shown += chunk
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert b"the same command resumes the study" in err and b"Traceback" not in err
    kept = json.loads(checkpoint.read_text(encoding="utf-8"))
    assert 10 <= kept["played"] < 2000 and not kept["finished"]
    code, out, _ = run(capsys, *args)
    resumed = json.loads(out)
    assert code == 0 and resumed["played"] == 2000 and resumed["finished"]
