"""The symbolic execution runs every power a queued card can have (checker/execute.py: next_power)."""
from __future__ import annotations

import z3

from baobei.checker.execute import Executor, Frame
from baobei.checker.symbolic import Bounds, Situation
from baobei.dsl.loader import load_config, load_edition_for, load_spec

from conftest import ROOT


def test_a_queued_card_runs_whichever_power_it_has():
    """A fired role whose card is any card: one run per power (and one where it does not fire),
    each running that power's body."""
    config = load_config(cwd=ROOT)
    spec = load_spec(config, "fr")
    edition = load_edition_for(config, spec)
    state = Situation(spec, edition, Bounds(2, 6), tag="queued_")
    executor = Executor(spec, state.bounds)
    power, user = z3.Int("queued_power"), z3.Int("queued_user")
    queue = Frame("procedure resolve", (), kind="queue", items=((z3.Bool("fires"), power, user),), position=-1)
    results = executor.next_power((), queue, state, [])
    played = sorted(frames[-1].where for frames, _, _ in results if frames[-1].kind == "body")
    assert played == sorted(f"power {name}" for name in spec.powers) and len(spec.powers) >= 5
    assert len(results) == len(spec.powers) + 1        # ... and the run where it does not fire
