"""Code lens on rules: how many of the project's scenario steps each rule decided. The
scenarios run in the background (the server keeps answering), each (scenario file, variant)
once per content of the rules and of the file."""
from __future__ import annotations

import multiprocessing
import os
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from baobei.dsl.edition import load_edition
from baobei.dsl.errors import BaobeiError
from baobei.interpreter.program import program_of
from baobei.interpreter.rules import Rules
from baobei.interpreter.scenario import load_scenario, run_scenario

from .project import Analysis, Project, VariantAnalysis, resolved
from .yamlfiles import YAML_SUFFIXES

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
    """The latest tally of the project's scenario runs. The runs are made by a process of its own
    (the server's answers do not wait for the interpreter), asked by a thread of the server
    once the editor's texts have stopped changing for a moment."""

    DELAY = 0.4     # seconds without a new request before running: typing goes on first

    def __init__(self, config_path: Path, done: Callable[[], None]):
        self.config_path = config_path
        self.done = done
        self.tally: Tally | None = None
        self._wanted: dict[str, str] | None = None
        self._asked_at = 0.0
        self._ready = threading.Condition()
        self._talking = threading.Lock()        # one question to the runner at a time
        self._runner = None
        threading.Thread(target=self._work, name="baobei-scenarios", daemon=True).start()

    def request(self, texts: dict[str, str]) -> None:
        with self._ready:
            self._wanted = dict(texts)
            self._asked_at = time.monotonic()
            self._ready.notify()

    def run(self, texts: dict[str, str], paths: list[Path] | None = None) -> Tally:
        """Run the scenario files (all, or these) on the texts, in the runner, and wait."""
        with self._talking:
            if self._runner is None:
                context = multiprocessing.get_context("spawn")
                mine, theirs = context.Pipe()
                context.Process(target=_serve, args=(theirs, self.config_path), daemon=True,
                                name="baobei-scenario-runner").start()
                self._runner = mine
            self._runner.send((texts, paths))
            return self._runner.recv()

    def _work(self) -> None:
        while True:
            with self._ready:
                while self._wanted is None:
                    self._ready.wait()
                while (left := self.DELAY - (time.monotonic() - self._asked_at)) > 0:
                    self._ready.wait(left)
                texts, self._wanted = self._wanted, None
            self.tally = self.run(texts)
            self.done()


def _serve(connection, config_path: Path) -> None:
    """The runner process: answers each (texts, paths) with the tally of their runs."""
    os.dup2(2, 1)       # stdout is the server's channel to the editor: never write there
    sys.stdout = sys.stderr
    runner = ScenarioRunner(config_path)
    while True:
        try:
            texts, paths = connection.recv()
        except EOFError:        # the server is gone
            return
        connection.send(runner.run_all(texts, paths))


class ScenarioRunner:
    """Runs scenario files on the editor's texts; a run whose rules and file have not changed
    is not run again."""

    def __init__(self, config_path: Path):
        self.project = Project(config_path)
        self._cache: dict[tuple, Run] = {}
        self._scenarios: dict[str, tuple] = {}

    def run_all(self, texts: dict[str, str], paths: list[Path] | None = None) -> Tally:
        """Every scenario file of the project (or those given) under each of its variants."""
        analysis = self.project.analyse(texts)
        tally, kept, read = Tally(), {}, {}
        for path in scenario_files(self.project.folder) if paths is None else paths:
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


def rules_of(variant: VariantAnalysis, analysis: Analysis, texts: dict[str, str]) -> Rules | None:
    """The rules of a variant read without error, ready to play (built once per analysis)."""
    if variant.errors or analysis.config is None:
        return None
    if variant.rules is None:
        edition_path = analysis.config.edition_path()
        try:
            edition = load_edition(edition_path, variant.spec, texts.get(resolved(edition_path)))
        except BaobeiError:
            return None
        variant.rules = Rules(variant.variant.name, variant.spec, program_of(variant.spec), edition)
    return variant.rules
