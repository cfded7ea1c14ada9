"""Code lens on rules: how many of the project's scenario steps each rule decided. The
scenarios run in a background thread (the server keeps answering), each (scenario file,
variant) once per content of the rules and of the file."""
from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from baobei.dsl.errors import BaobeiError
from baobei.interpreter.scenario import load_scenario, run_scenario

from .project import Analysis
from .yamlfiles import YAML_SUFFIXES, rules_of

SKIPPED_FOLDERS = {"node_modules", "site-packages", "__pycache__"}


@dataclass
class Run:
    """One scenario file under one variant."""
    path: str
    variant: str
    passed: bool
    message: str
    step_rules: dict[int, list[str]]


@dataclass
class Tally:
    runs: list[Run] = field(default_factory=list)

    def steps(self, rule: str, variants: list[str]) -> dict[str, int]:
        """Per variant, how many steps the rule decided."""
        counts = {variant: 0 for variant in variants}
        for run in self.runs:
            if run.variant in counts:
                counts[run.variant] += sum(rule in rules for rules in run.step_rules.values())
        return counts

    def deciding(self, rule: str) -> list[Run]:
        return [run for run in self.runs if any(rule in rules for rules in run.step_rules.values())]


def scenario_files(folder: Path) -> list[Path]:
    """The YAML files under folders named `scenarios` (as the pytest plugin collects them)."""
    found = []
    for root, folders, files in os.walk(folder):
        folders[:] = sorted(f for f in folders if not f.startswith(".") and f not in SKIPPED_FOLDERS)
        if "scenarios" in Path(root).relative_to(folder).parts:
            found += [Path(root) / f for f in sorted(files) if f.endswith(YAML_SUFFIXES)]
    return found


class ScenarioRuns:
    """Keeps the latest tally of the project's scenario runs, computed in the background."""

    DELAY = 0.4     # seconds without a new request before running: typing goes on first

    def __init__(self, folder: Path, done: Callable[[], None]):
        self.folder = folder
        self.done = done
        self.tally: Tally | None = None
        self._cache: dict[tuple, Run] = {}
        self._scenarios: dict[str, tuple] = {}
        self._wanted: tuple[Analysis, dict[str, str]] | None = None
        self._asked_at = 0.0
        self._ready = threading.Condition()
        threading.Thread(target=self._work, name="baobei-scenarios", daemon=True).start()

    def request(self, analysis: Analysis, texts: dict[str, str]) -> None:
        with self._ready:
            self._wanted = (analysis, dict(texts))
            self._asked_at = time.monotonic()
            self._ready.notify()

    def _work(self) -> None:
        while True:
            with self._ready:
                while self._wanted is None:
                    self._ready.wait()
                while (left := self.DELAY - (time.monotonic() - self._asked_at)) > 0:
                    self._ready.wait(left)
                analysis, texts = self._wanted
                self._wanted = None
            self.tally = self.run_all(analysis, texts)
            self.done()

    def run_all(self, analysis: Analysis, texts: dict[str, str], paths: list[Path] | None = None) -> Tally:
        """Every scenario file (or those given) under each of its variants; a run whose rules
        and file have not changed is not run again."""
        tally, kept, read = Tally(), {}, {}
        for path in scenario_files(self.folder) if paths is None else paths:
            scenario, state = self._scenario(path)
            if scenario is None:
                continue
            read[str(path)] = (state, scenario)
            for name in scenario.variants:
                variant = analysis.variant(name)
                rules = rules_of(variant, analysis, texts) if variant is not None else None
                if rules is None:
                    continue
                key = (str(path), state, name, variant.key)
                kept[key] = self._cache.get(key) or _run(scenario, rules, str(path), name)
                tally.runs.append(kept[key])
        if paths is None:
            self._cache, self._scenarios = kept, read
        return tally

    def _scenario(self, path: Path):
        """The scenario file as read, and the state of the file it was read in (read again when it changes)."""
        try:
            info = path.stat()
        except OSError:
            return None, None
        state = (info.st_mtime_ns, info.st_size)
        known = self._scenarios.get(str(path))
        if known is not None and known[0] == state:
            return known[1], state
        try:
            return load_scenario(path), state
        except BaobeiError:
            return None, state


def _run(scenario, rules, path: str, variant: str) -> Run:
    try:
        result = run_scenario(scenario, rules)
    except BaobeiError as error:
        return Run(path, variant, False, error.message, {})
    return Run(path, variant, result.passed, result.message, result.step_rules)
