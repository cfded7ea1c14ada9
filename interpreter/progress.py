"""Progress of a long run on stderr: games done, rate, and an estimate of the time left; or,
for a run made of phases (proofs, comparisons, searches), each phase's steps as they go."""
from __future__ import annotations

import sys
import time


class Progress:
    def __init__(self, total: int, *, enabled: bool, label: str = "games", every: float = 1.0):
        self.total = total
        self.enabled = enabled
        self.label = label
        self.every = every
        self.started = time.perf_counter()
        self.shown = 0.0
        self.first = 0       # done before this run started (a resumed study)

    def start_at(self, done: int) -> None:
        self.first = done

    def update(self, done: int) -> None:
        now = time.perf_counter()
        if not self.enabled or now - self.shown < self.every:
            return
        self.shown = now
        rate = (done - self.first) / max(now - self.started, 1e-9)
        left = (self.total - done) / rate if rate > 0 else float("inf")
        print(f"\r  {done}/{self.total} {self.label}  {rate:.0f} {self.label}/s  about {_duration(left)} left   ",
              end="", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.enabled and self.shown:
            print("\r" + " " * 78 + "\r", end="", file=sys.stderr, flush=True)


class Phase:
    """One phase of a long run: while it goes, the steps done of those planned and the time
    left; when it ends, one line that says what it did and how long it took. The number of
    steps may grow as the workers plan theirs (checker/parallel.py's plan and step)."""

    def __init__(self, title: str, unit: str, *, enabled: bool, planned: int = 0, every: float = 0.5):
        self.title = title
        self.unit = unit
        self.enabled = enabled
        self.planned = planned
        self.done = 0
        self.every = every
        self.started = self.shown = time.perf_counter()
        if enabled:
            print(f"\r  {title} ...", end="", file=sys.stderr, flush=True)

    def progress(self, planned: int = 0, done: int = 0) -> None:
        """More steps planned, more done (the signature of in_forked_workers' on_progress)."""
        self.planned += planned
        self.done += done
        now = time.perf_counter()
        if not self.enabled or now - self.shown < self.every or not self.done:
            return
        self.shown = now
        rate = self.done / (now - self.started)
        left = max(self.planned - self.done, 0) / rate
        print(f"\r  {self.title}: {self.done}/{max(self.planned, self.done)} {self.unit}, about {_duration(left)} left   ",
              end="", file=sys.stderr, flush=True)

    def finish(self, summary: str = "") -> None:
        if self.enabled:
            seconds = time.perf_counter() - self.started
            print(f"\r  {self.title}: {summary or f'{self.done} {self.unit}'} in {seconds:.1f} s" + " " * 20,
                  file=sys.stderr, flush=True)


def _duration(seconds: float) -> str:
    if seconds == float("inf"):
        return "?"
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
