"""`baobei diff --old DIR --new DIR`: what a change of the rules changes, before printing.

For each variant: the declarations added, removed or changed by name; every class
of situations the two versions decide differently (checker/diff.py), with its
witness; the claims whose status changed; the scenario files whose outcome changed;
the recorded games that no longer replay the same.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from baobei.dsl.errors import BaobeiError, RuleRuntimeError
from baobei.dsl.loader import Config, load_edition_for, load_spec
from baobei.interpreter.record import read_games, replay_game
from baobei.interpreter.rules import Rules, load_rules
from baobei.interpreter.scenario import load_scenario, run_scenario, scenario_files

from .check import check
from .diff import DiffReport, diff
from .parallel import reporting_to, step
from .symbolic import Bounds


@dataclass
class VersionReport:
    variant: str
    diff: DiffReport
    claims: list[tuple[str, str, str]] = field(default_factory=list)      # (claim, old status, new status)
    scenarios: list[tuple[str, str, str]] = field(default_factory=list)   # (file, old outcome, new outcome)
    games: list[str] = field(default_factory=list)                        # divergences of recorded games
    edition: list[str] = field(default_factory=list)                      # the edition's values that changed
    witnesses: list[str] = field(default_factory=list)

    @property
    def changes_behaviour(self) -> bool:
        """Anything a rules author would see change in play or in a proof (or could not rule out)."""
        d = self.diff
        return bool(d.findings or d.unknown or d.uncompared or self.claims or self.scenarios or self.games
                    or self.edition)

    def as_json(self) -> dict:
        d = self.diff
        return {"variant": self.variant, "added": d.added, "removed": d.removed, "changed": d.changed,
                "differences": [f.as_json() for f in d.findings], "unknown": d.unknown, "uncompared": d.uncompared,
                "claims": [{"claim": c, "old": o, "new": n} for c, o, n in self.claims],
                "scenarios": [{"file": f, "old": o, "new": n} for f, o, n in self.scenarios],
                "games": self.games, "edition": self.edition, "witnesses": self.witnesses}


def compare_versions(old: Config, new: Config, variant: str, bounds: Bounds, timeout_ms: int,
                     scenarios: list[str] = (), games: list[str] = (), emit: str | None = None,
                     progress: bool = False, use_cache: bool = True) -> VersionReport:
    """`progress`: show each phase's progress on stderr; `use_cache`: take the proofs and answers
    of questions asked before from the cache (checker/answers.py)."""
    from .answers import Answers
    from baobei.interpreter.progress import Phase
    spec_old, spec_new = load_spec(old, variant), load_spec(new, variant)
    edition, old_edition = load_edition_for(new, spec_new), load_edition_for(old, spec_old)
    from .scenarios import SPARE_WITNESSES

    def compared(spares: int = 0) -> DiffReport:
        return diff(("old", spec_old), ("new", spec_new), old_edition, bounds, timeout_ms, use_cache,
                    progress=progress, edition_b=edition, spares=spares)
    report = VersionReport(variant, compared())
    report.edition = edition_changes(old_edition, edition)
    phase = Phase("checking the claims of both versions", "checks", enabled=progress)
    with reporting_to(phase):
        old_claims = {n: s for n, s, _ in check(spec_old, old_edition, variant, bounds, timeout_ms,
                                                answers=Answers(enabled=use_cache)).claims}
        new_claims = {n: s for n, s, _ in check(spec_new, edition, variant, bounds, timeout_ms,
                                                answers=Answers(enabled=use_cache)).claims}
    phase.finish()
    for name in sorted(set(old_claims) | set(new_claims)):
        if old_claims.get(name) != new_claims.get(name):
            report.claims.append((name, old_claims.get(name, "absent"), new_claims.get(name, "absent")))
    rules_old, rules_new = load_rules(old, variant), load_rules(new, variant)
    files = scenario_files(list(scenarios)) if scenarios else []
    phase = Phase("playing the scenarios under both versions", "files", enabled=progress and bool(files),
                  planned=len(files))
    for path in files:
        scenario = load_scenario(path)
        if variant in scenario.variants:
            before, after = _outcome(scenario, rules_old), _outcome(scenario, rules_new)
            if before != after:
                report.scenarios.append((str(path), before, after))
        phase.progress(0, 1)
    phase.finish()
    phase = Phase("replaying the recorded games under both versions", "games", enabled=progress and bool(games))
    for path in games:     # the games recorded under this variant, each replayed by both versions
        for number, game in enumerate(read_games(path), start=1):
            if game.get("variant") != variant:
                continue
            before, after = _replayed(rules_old, game, number), _replayed(rules_new, game, number)
            if before != after:
                report.games.append(f"{path}: game {number}: old: {before or 'replays'}; new: {after or 'replays'}")
            phase.progress(1, 1)
    phase.finish()
    if emit:
        phase = Phase("searching play for regression witnesses", "differences", enabled=progress,
                      planned=len(report.diff.findings))
        with reporting_to(phase):
            report.witnesses = emit_regressions(report.diff, rules_old, rules_new, Path(emit) / variant,
                                                lambda: compared(SPARE_WITNESSES))
        phase.finish(f"{len(report.witnesses)} witness file(s)")
    return report


def edition_changes(old, new) -> list[str]:
    """The edition's values that differ: card counts, deal sizes, thresholds."""
    changes = []
    for title, before, after in (("cards of", old.deck, new.deck), ("deal at", old.deal, new.deal),
                                 ("threshold at", old.threshold, new.threshold)):
        for key in sorted(set(before) | set(after), key=str):
            if before.get(key) != after.get(key):
                where = f"{key} players" if isinstance(key, int) else key
                changes.append(f"{title} {where}: {before.get(key, 'none')} -> {after.get(key, 'none')}")
    return changes


def _replayed(rules: Rules, game: dict, number: int) -> str | None:
    """Where a recorded game stops replaying the same (None: it replays as recorded)."""
    try:
        _, divergence = replay_game(rules, game, number)
    except RuleRuntimeError as problem:
        return f"the rules cannot go on: {problem.message}"
    if divergence is None:
        return None
    return f"round {divergence.round}, move {divergence.move} ({divergence.text}): {divergence.problem}"


def _outcome(scenario, rules: Rules) -> str:
    try:
        result = run_scenario(scenario, rules)
    except BaobeiError as error:
        return f"ERROR {error.message}"
    return "PASS" if result.passed else f"FAIL {result.message}"


def emit_regressions(report: DiffReport, rules_old: Rules, rules_new: Rules, folder: Path, spares=None) -> list[str]:
    """Witness scenarios of a version change: each passes under the old rules and fails under the
    new ones at the step that shows the change (run it with --spec NEW to see it). `spares`: the
    comparison again with spare witnesses (scenarios.emit_witnesses)."""
    return list(regression_scenarios(report, rules_old, rules_new, folder,
                                     "# passes under the old rules; under the new ones it fails where they changed\n",
                                     spares=spares))


def regression_scenarios(report: DiffReport, rules_old: Rules, rules_new: Rules, folder: Path, header: str,
                         name: str | None = None, spares=None):
    """For each difference found, the first of its classes the play search realizes, written to
    `folder` (as `name`, or numbered by difference and class) and kept only when it passes under
    the old rules and fails under the new ones: the paths, as they are written. `spares`: makes
    the comparison again with spare witnesses of every class, asked only when some difference's
    shown witnesses reach no such scenario; its classes are then searched from their spares."""
    import copy

    from .scenarios import played_by_search, with_spares
    folder.mkdir(parents=True, exist_ok=True)
    old, new = copy.copy(rules_old), copy.copy(rules_new)
    old.variant, new.variant = report.a, report.b        # the sides' names, as the classes know them
    missed = []
    for number, finding in enumerate(report.findings, start=1):
        path = _first_regression(list(enumerate(finding.classes, start=1)), number, old, new, rules_old, rules_new,
                                 report, folder, header, name)
        if path is not None:
            yield path
        elif any(played_by_search(item) and not item.spares for item in finding.classes):
            missed.append((number, finding))
        step()      # a difference searched (progress)
    if missed and spares is not None:
        fuller = spares()
        for number, finding in missed:
            retried = [(position + 1, item) for position, item in with_spares(finding.classes, fuller)]
            path = _first_regression(retried, number, old, new, rules_old, rules_new, report, folder, header, name)
            if path is not None:
                yield path


def _first_regression(classes: list, number: int, old: Rules, new: Rules, rules_old: Rules, rules_new: Rules,
                      report: DiffReport, folder: Path, header: str, name: str | None) -> str | None:
    """The first of these (index, class) the play search realizes as a scenario that passes under
    the old rules and fails under the new ones, written; None if none does."""
    from .scenarios import _dump, _slug, realize_any
    for index, item in classes:
        scenario = realize_any(item, old, new)
        if scenario is None:
            continue
        scenario = _only_side(scenario, report.a, rules_old.variant)
        path = folder / (name or f"{number:02d}-{index:02d}-{_slug(item.decision)}.yaml")
        path.write_text(header + _dump(scenario, item), encoding="utf-8")
        loaded = load_scenario(path)
        if run_scenario(loaded, rules_old).passed and not run_scenario(loaded, rules_new).passed:
            return str(path)
        path.unlink()
    return None


def _only_side(scenario: dict, side: str, variant: str) -> dict:
    """The scenario as one side (the old rules) plays it, for the variant both sides share."""
    steps = []
    for step in scenario["steps"]:
        scoped = step.pop("variants", None)
        checks = step.pop("then_variants", None)
        if scoped is not None and side not in scoped:
            continue
        if checks and side in checks:
            step["then"] = checks[side]
        steps.append(step)
    expect = scenario.pop("expect_variants", None)
    if expect and side in expect:
        scenario["expect"] = expect[side]
    scenario["steps"] = steps
    scenario["variants"] = [variant]
    return scenario
