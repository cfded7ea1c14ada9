"""Progress of a long run on stderr: games done, rate, and an estimate of the time left."""
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


def _duration(seconds: float) -> str:
    if seconds == float("inf"):
        return "?"
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
