"""Progress on every long run (issue 12 §6): each phase of check and diff shows its steps and the
time left on stderr, on a terminal or with --progress, and nothing when neither."""
from __future__ import annotations

from baobei.checker import parallel
from baobei.cli import main
from baobei.interpreter.progress import Phase


def test_a_phase_shows_its_steps_the_time_left_and_what_it_did(capsys):
    phase = Phase("comparing", "decisions", enabled=True, planned=2, every=0)
    phase.progress(0, 1)
    phase.progress(2, 1)        # a worker plans two more steps as it goes
    shown = capsys.readouterr().err
    assert "comparing: 1/2 decisions, about" in shown and "comparing: 2/4 decisions, about" in shown
    assert "left" in shown
    phase.finish("4 decisions")
    assert "comparing: 4 decisions in " in capsys.readouterr().err


def test_a_phase_that_is_not_shown_prints_nothing(capsys):
    phase = Phase("comparing", "decisions", enabled=False, planned=2, every=0)
    phase.progress(0, 1)
    phase.finish()
    assert capsys.readouterr().err == ""


def _planned_job(steps: int) -> int:
    parallel.plan(steps)
    for _ in range(steps):
        parallel.step()
    return steps


def test_forked_workers_report_their_plans_and_steps_while_they_run():
    heard = []
    results = parallel.in_forked_workers(_planned_job, [(2,), (3,)],
                                         on_progress=lambda planned, done: heard.append((planned, done)))
    assert results == [2, 3]
    assert sum(p for p, _ in heard) == 5 and sum(d for _, d in heard) == 5


def _timed(seconds: float) -> tuple[float, float]:
    import time
    started = time.monotonic()
    time.sleep(seconds)
    return started, time.monotonic()


def test_a_job_waits_for_the_one_it_starts_after_while_a_free_core_takes_the_next(monkeypatch):
    """Job 2 starts after job 0 (a house variant's questions after its base's): when job 1 ends
    first, its core takes job 3, and job 2 starts only once job 0 has ended."""
    monkeypatch.setattr(parallel.os, "cpu_count", lambda: 2)
    ran = parallel.in_forked_workers(_timed, [(1.0,), (0.05,), (0.0,), (0.0,)], after={2: 0})
    (_, base_ended), _, (house_started, _), (next_started, _) = ran
    assert house_started >= base_ended
    assert next_started < base_ended


class _Terms:
    """Stands for what a job made (a checker's Z3 terms and solvers)."""


def _kept_after_the_job_lets_go() -> bool:
    import weakref
    made = _Terms()
    alive = weakref.ref(made)
    parallel.keep_until_exit(made)
    del made
    return alive() is not None


def test_a_worker_keeps_what_it_is_told_until_it_ends_and_this_process_keeps_nothing():
    assert parallel.in_forked_workers(_kept_after_the_job_lets_go, [()]) == [True]
    assert _kept_after_the_job_lets_go() is False


def test_work_done_here_reports_to_the_phase_it_runs_in():
    phase = Phase("here", "steps", enabled=False)
    with parallel.reporting_to(phase):
        _planned_job(4)
    _planned_job(1)     # outside the block: heard by nobody
    assert (phase.planned, phase.done) == (4, 4)


def test_diff_shows_each_phase_with_progress_and_nothing_without(capsys):
    args = ["diff", "fr", "de", "--players", "2", "--slots", "4"]
    assert main(args + ["--progress"]) == 1
    err = capsys.readouterr().err
    assert "proving the invariants" in err and "table sizes proved here" in err
    assert "comparing the decisions: " in err and " decisions, " in err and " queries in " in err
    assert main(args) == 1
    assert capsys.readouterr().err == ""    # not a terminal, no --progress


def test_check_shows_its_checks_as_they_are_made(capsys):
    assert main(["check", "--variant", "fr", "--players", "2", "--slots", "4", "--games", "1", "--progress"]) == 0
    err = capsys.readouterr().err
    # (its checks made here, or answered from the cache an earlier test of the session filled)
    assert "checking fr" in err and (" checks in " in err or " answers from the cache in " in err)
    # another seed: every answer from the cache, and only the play pass played, shown as such
    assert main(["check", "--variant", "fr", "--players", "2", "--slots", "4", "--games", "1", "--seed", "9173",
                 "--progress"]) == 0
    err = capsys.readouterr().err
    assert " answers from the cache in " in err and "playing fr: 1 table sizes in " in err and " checks" not in err
