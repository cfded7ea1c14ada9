"""`baobei mutate`: which rule changes the author's tests would notice.

Each mutant (dsl/mutations.py: one change on the syntax tree, or one edition value) is judged
by what the rules author has, cheapest first, and stops at the first that notices it:

1. it does not load or type-check: **stillborn**;
2. a scenario file's outcome changes (pass, fail, or an error) or a recorded game no longer
   replays the same: **killed** by that file;
3. `baobei check` would notice: its seeded random play breaks an invariant or gets stuck, or a
   claim's status changes (claims are judged as `check` judges them, assuming the invariants the
   unchanged spec proves: a mutant that breaks one of those is seen by the random play, or by
   `check`'s proofs, which mutate does not repeat), or, asked last, `check` finds an overlap, a
   gap, a dead or masked rule, or a move never allowed that the spec does not have: **killed**
   by the check;
4. otherwise the checker compares the mutant with the spec (checker/diff.py): its decisions on
   the tables where the spec's proved invariants hold, and what the procedures, handlers and
   powers it touches do (checker/bodies.py) — a mutant that decides and acts there as the spec
   does plays the same rounds from the same setup, so it never meets another table: nothing
   differs within the bounds — **equivalent**; something does — **surviving**, with the diff's
   witness, and with `--emit` a scenario file that passes on the spec and fails on the mutant
   (the missing test). A change no comparison reaches (who sees which card, a body whose runs
   leave the bounds) is never called equivalent: unnoticed, it is surviving.

The score is killed / (killed + surviving). Mutants are judged side by side in worker
processes (the pool of `simulate --workers`, or a Ray cluster); each process parses the spec
once and judges its mutants from copies of that tree.
"""
from __future__ import annotations

import contextlib
import pickle
import random
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path

from baobei.dsl import cache
from baobei.dsl.errors import BaobeiError, ConfigError, Loc, RuleRuntimeError, shown_path
from baobei.dsl.loader import Config, load_edition_for, load_spec
from baobei.dsl.mutations import Mutation, apply_to_edition, apply_to_layers, mutations
from baobei.interpreter.rules import Rules, load_rules

STATUSES = ("killed", "surviving", "equivalent", "stillborn")
PLAY_GAMES = 6             # what `baobei check` plays, per table size
PLAY_SEED = 1
SECONDS_PER_MUTANT = 120   # a scenario or game that no longer ends kills its mutant after this


@dataclass(frozen=True)
class Options:
    """What every worker needs to judge a mutant: plain, picklable data."""

    config: Config
    variant: str
    scenarios: tuple[str, ...]
    games: tuple[str, ...]
    players: int
    slots: int
    timeout_ms: int
    proved: tuple[str, ...]         # the invariants the unchanged spec proves (claims assume them)
    emit: str | None = None
    cwd: str = "."                  # where the command runs: the paths it prints are relative to it


@dataclass
class Verdict:
    number: int
    decl: str                        # "rule pluck.own_draw", "edition"
    change: str
    where: str                       # file:line:col
    status: str = "killed"           # one of STATUSES
    by: str = ""                     # what killed it, why it is stillborn, what the checker found
    difference: str = ""             # surviving: how the decisions differ
    witness: str = ""                # surviving: the diff's witness table
    scenario: str | None = None      # surviving, --emit: the scenario that would kill it
    seconds: float = 0.0

    def as_json(self) -> dict:
        return dict(self.__dict__)


@dataclass
class MutationReport:
    variant: str
    total: int                       # mutants of the spec (before --sample)
    verdicts: list[Verdict] = field(default_factory=list)
    seconds: float = 0.0
    workers: int = 1
    where: str = "in this process"       # or on N worker processes, on a Ray cluster

    def count(self, status: str) -> int:
        return sum(v.status == status for v in self.verdicts)

    @property
    def score(self) -> float | None:
        judged = self.count("killed") + self.count("surviving")
        return self.count("killed") / judged if judged else None

    def by_group(self, key) -> list[tuple[str, int, int]]:
        """(group, killed, killed + surviving) per file or per declaration, in first-seen order."""
        groups: dict[str, list[int]] = {}
        for verdict in self.verdicts:
            if verdict.status in ("killed", "surviving"):
                counts = groups.setdefault(key(verdict), [0, 0])
                counts[0] += verdict.status == "killed"
                counts[1] += 1
        return [(name, killed, judged) for name, (killed, judged) in groups.items()]


# ---- the spec and what judges its mutants, once per process ----------------------------------

@dataclass
class Suite:
    """The unchanged spec and the outcomes the author's tests have on it."""

    layered: object
    rules: Rules
    mutations: list[Mutation]
    scenarios: list[tuple[str, object, str]]       # (path, scenario, outcome on the spec)
    games: list[tuple[str, int, dict]]             # (path, number, game) that replay on the spec
    claims: dict[str, str] | None = None           # claim -> status on the spec, when first needed
    findings: dict | None = None                   # what check finds in the spec's rules, when first needed


_SUITES: dict = {}


def suite_for(options: Options) -> Suite:
    key = pickle.dumps((options.config, options.variant, options.scenarios, options.games))
    if key not in _SUITES:
        _SUITES.clear()
        _SUITES[key] = _load_suite(options)
    return _SUITES[key]


def _load_suite(options: Options) -> Suite:
    from baobei.dsl.layers import load_layers
    from baobei.interpreter.record import read_games
    from baobei.interpreter.scenario import load_scenario, scenario_files
    config, variant = options.config, options.variant
    rules = load_rules(config, variant)
    layered = load_layers(config.spec_dir, config.layers_of(variant), config.config_dir)
    scenarios = []
    for path in scenario_files(list(options.scenarios)) if options.scenarios else []:
        scenario = load_scenario(path)
        if variant in scenario.variants:
            scenarios.append((str(path), scenario, _outcome(scenario, rules)))
    games = [(path, number, game) for path in options.games
             for number, game in enumerate(read_games(path), start=1)
             if game.get("variant") == variant and _replayed(rules, game, number) is None]
    return Suite(layered, rules, mutations(layered, rules.edition), scenarios, games)


def _outcome(scenario, rules: Rules) -> str:
    from baobei.interpreter.scenario import run_scenario
    try:
        result = run_scenario(scenario, rules)
    except BaobeiError as error:
        return f"error: {error.message}"
    except (_OutOfTime, RecursionError):
        raise
    except Exception as error:  # noqa: BLE001 - a mutant's rules may break the engine: the scenario notices
        return f"error: {type(error).__name__}: {error}"
    return "pass" if result.passed else "fail"


def _replayed(rules: Rules, game: dict, number: int) -> str | None:
    from baobei.interpreter.record import replay_game
    try:
        _, divergence = replay_game(rules, game, number)
    except RuleRuntimeError as problem:
        return f"the rules cannot go on: {problem.message}"
    except (_OutOfTime, RecursionError):
        raise
    except Exception as error:  # noqa: BLE001 - a mutant's rules may break the engine: the game notices
        return f"the rules cannot go on: {type(error).__name__}: {error}"
    return None if divergence is None else f"round {divergence.round}, move {divergence.move}: {divergence.problem}"


# ---- judging one mutant -----------------------------------------------------------------------

def judge(job: tuple[Options, int]) -> Verdict:
    """One mutant's verdict (run in a worker: plain data in, plain data out)."""
    options, number = job
    started = time.perf_counter()
    suite = suite_for(options)
    mutation = suite.mutations[number - 1]
    verdict = Verdict(number, _decl_title(mutation), mutation.change, _place(mutation.loc, options.cwd))
    try:
        mutant = mutant_rules(suite, mutation)
    except BaobeiError as error:
        verdict.status = "stillborn"
        verdict.by = f"{_place(error.loc, options.cwd)}: {error.message}" if error.loc else error.message
        return _timed(verdict, started)
    found = (_noticed_in_play(suite, mutant, options.cwd) or _noticed_by_check(suite, mutant, options)
             or _found_by_check(suite, mutant, options))
    if found:
        verdict.by = found
    else:
        _compare(suite, mutant, mutation, options, verdict)
    return _timed(verdict, started)


def _timed(verdict: Verdict, started: float) -> Verdict:
    verdict.seconds = round(time.perf_counter() - started, 3)
    return verdict


def _decl_title(mutation: Mutation) -> str:
    return "edition" if mutation.decl_kind == "edition" else f"{mutation.decl_kind} {mutation.decl_name}"


def mutant_rules(suite: Suite, mutation: Mutation) -> Rules:
    """The rules of a mutant. An edition value keeps the spec's compiled program; a change of the
    tree is resolved (types, citations) and compiled from a copy of the parsed tree."""
    from baobei.dsl.resolve import resolve
    from baobei.interpreter.program import program_of
    base = suite.rules
    if mutation.decl_kind == "edition":
        return Rules(base.variant, base.spec, base.program, apply_to_edition(base.edition, mutation), base.version)
    spec = resolve(apply_to_layers(suite.layered, mutation), Path(base.spec.spec_dir))
    spec.key = cache.digest(base.spec.key, mutation.title)
    spec.content = ""                 # never reuses a proof made for the spec's own files
    try:
        program = program_of(spec)
    except BaobeiError:
        raise
    except Exception as error:  # noqa: BLE001 - the generator cannot compile this tree: said, not raised
        raise ConfigError(f"the rules could not be compiled ({type(error).__name__}: {error})", mutation.loc) from None
    return Rules(base.variant, spec, program, base.edition, f"{base.version}+m{mutation.number}")


class _OutOfTime(Exception):
    pass


@contextlib.contextmanager
def _time_limit(seconds: int):
    """A mutant can make a round endless (a `while` that never stops): after `seconds`, the play
    running is stopped. Only in a process's main thread, where signals arrive."""
    def stop(signum, frame):
        raise _OutOfTime()
    try:
        previous = signal.signal(signal.SIGALRM, stop)
    except ValueError:        # not the main thread: no limit
        yield
        return
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _noticed_in_play(suite: Suite, mutant: Rules, cwd: str) -> str | None:
    """The first scenario file or recorded game whose outcome the mutant changes."""
    doing = "the scenarios"
    try:
        with _time_limit(SECONDS_PER_MUTANT):
            for path, scenario, before in suite.scenarios:
                doing = f"scenario {_shown(path, cwd)}"
                after = _outcome(scenario, mutant)
                if after != before:
                    return f"scenario {_shown(path, cwd)} ({before} -> {after})"
            for path, number, game in suite.games:
                doing = f"game {number} of {_shown(path, cwd)}"
                problem = _replayed(mutant, game, number)
                if problem is not None:
                    return f"game {number} of {_shown(path, cwd)} ({problem})"
    except _OutOfTime:
        return f"{doing} (does not end within {SECONDS_PER_MUTANT} s)"
    except RecursionError:
        return f"{doing} (the rules recurse without end)"
    return None


def _noticed_by_check(suite: Suite, mutant: Rules, options: Options) -> str | None:
    """What `baobei check` would report that it does not for the spec: random play that fails,
    a claim whose status changes."""
    from baobei.interpreter.failures import SimulationFailed
    from baobei.interpreter.simulate import simulate
    try:
        with _time_limit(SECONDS_PER_MUTANT):
            for players in range(2, options.players + 1):
                simulate(mutant, players, PLAY_GAMES, PLAY_SEED, ["random"], check=True)
    except SimulationFailed as stopped:
        return f"check: random play at {players} players ({stopped.failure.message})"
    except RuleRuntimeError as problem:
        return f"check: random play at {players} players ({problem.message})"
    except _OutOfTime:
        return f"check: random play at {players} players (a game does not end within {SECONDS_PER_MUTANT} s)"
    except RecursionError:
        return f"check: random play at {players} players (the rules recurse without end)"
    except Exception as error:  # noqa: BLE001 - a mutant's rules may break the engine: check notices
        return f"check: random play at {players} players ({type(error).__name__}: {error})"
    if suite.claims is None:
        suite.claims = _claims(suite.rules, options)
    for name, status in _claims(mutant, options).items():
        before = suite.claims.get(name, "absent")
        if status != before:
            return f"check: claim {name} ({before} -> {status})"
    return None


def _found_by_check(suite: Suite, mutant: Rules, options: Options) -> str | None:
    """An overlap, gap, dead or masked rule, or a move never allowed, that `check` reports in
    the mutant's rules and not in the spec's. (Asked of the mutants nothing else notices: the
    checks of every decision cost a few seconds.)"""
    if suite.findings is None:
        suite.findings = _findings(suite.rules, options)
    found = _findings(mutant, options)
    new = [found[key] for key in sorted(set(found) - set(suite.findings))]
    return f"check: {new[0]}" if new else None


def _checker(rules: Rules, options: Options):
    from baobei.checker.check import Checker
    from baobei.checker.symbolic import Bounds
    proved = [name for name in options.proved if name in rules.spec.invariants]
    return Checker(rules.spec, rules.edition, Bounds(options.players, options.slots), options.timeout_ms,
                   rules.variant, proved)


def _claims(rules: Rules, options: Options) -> dict[str, str]:
    checker = _checker(rules, options)
    for claim in rules.spec.claims.values():
        checker.check_claim(claim)
    return {name: status for name, status, _ in checker.report.claims}


def _findings(rules: Rules, options: Options) -> dict[tuple, str]:
    """What check finds in these rules' decisions, by (kind, decision, rules), as it says it. A
    query Z3 could not decide is left out: no verdict rests on it."""
    checker = _checker(rules, options)
    for stage in checker.stages(claims=False):
        stage()
    return {(f.kind, f.decision, tuple(r.name for r in f.rules)): f"{f.kind} in {f.decision}: {f.message}"
            for f in checker.report.findings if f.kind != "unknown"}


def _compare(suite: Suite, mutant: Rules, mutation: Mutation, options: Options, verdict: Verdict) -> None:
    from baobei.checker.diff import Differ
    from baobei.checker.report import witness_line
    from baobei.checker.symbolic import Bounds
    verdict.status = "surviving"
    bounds = Bounds(options.players, options.slots)
    # Both sides assume the invariants the spec proves: where every decision of the mutant is the
    # spec's on the tables they allow, the two play the same rounds from the same setup, so they
    # only ever meet such tables (the mutant's other changes are never called equivalent).
    proved = [name for name in options.proved if name in mutant.spec.invariants]
    report = Differ(("spec", suite.rules.spec), ("mutant", mutant.spec), suite.rules.edition, bounds,
                    options.timeout_ms, (proved, proved), edition_b=mutant.edition).run()
    if report.findings:
        item = report.findings[0].classes[0]
        verdict.by = "the checker finds decisions that differ; no scenario, game or claim notices"
        verdict.difference, verdict.witness = item.message, witness_line(item.witness)
        if options.emit:
            verdict.scenario = _emit(report, suite, mutant, mutation, Path(options.emit), options.cwd)
    elif report.unknown:
        verdict.by = f"the checker could not decide whether a decision differs ({report.unknown[0]})"
    elif report.uncompared:
        verdict.by = ("a change the checker does not compare by its effect on play (" + report.uncompared[0] +
                      "), and no scenario, game or claim notices")
    else:
        verdict.status = "equivalent"
        verdict.by = f"no decision and no body differs ({bounds})"


def _emit(report, suite: Suite, mutant: Rules, mutation: Mutation, folder: Path, cwd: str) -> str | None:
    """A scenario file that passes on the spec and fails on the mutant, or None when the play
    search finds none."""
    from baobei.checker.versions import regression_scenarios
    name = f"mutant-{mutation.number:04d}.yaml"
    header = (f"# The missing test for {mutation.title}\n# at {mutation.loc}: passes on the spec, "
              "fails on the mutant.\n")
    for path in regression_scenarios(report, suite.rules, mutant, folder / suite.rules.variant, header, name):
        return _shown(path, cwd)
    return None


def _place(loc: Loc, cwd: str) -> str:
    where = _shown(loc.file, cwd)
    return f"{where}:{loc.line}:{loc.column}" if loc.line else where


def _shown(path: str | Path, cwd: str) -> str:
    """A path as the command's user reads it (a worker may run elsewhere: on a Ray node)."""
    return shown_path(Path(path).resolve(), cwd)


# ---- the whole run ---------------------------------------------------------------------------

def choose(total: int, sample: int | None, seed: int, only: list[int] | None) -> list[int]:
    """The mutants to judge: those named, a seeded sample, or all."""
    if only:
        wrong = [n for n in only if not 1 <= n <= total]
        if wrong:
            raise ConfigError(f"--mutant {wrong[0]}: the spec has mutants 1 to {total}", Loc("--mutant"))
        return sorted(set(only))
    numbers = list(range(1, total + 1))
    if sample is None or sample >= total:
        return numbers
    return sorted(random.Random(seed).sample(numbers, sample))


def run(options: Options, numbers: list[int], total: int, workers: int = 1, ray: str | None = None,
        progress=None) -> MutationReport:
    from baobei.interpreter.workers import in_order, where
    report = MutationReport(options.variant, total, workers=workers, where=where(workers, ray))
    started = time.perf_counter()
    if workers > 1 and ray is None:
        # the pool's workers are forked from here: they start with the suite loaded and the
        # spec's claims and findings judged, instead of each doing it again
        suite = suite_for(options)
        suite.claims = _claims(suite.rules, options)
        suite.findings = _findings(suite.rules, options)
    for index, verdict in in_order(judge, [(options, n) for n in numbers], workers=workers, ray=ray):
        report.verdicts.append(verdict)
        if progress is not None:
            progress(f"judged {index + 1} of {len(numbers)} mutants in {time.perf_counter() - started:.0f} s")
    report.seconds = time.perf_counter() - started
    return report


def text_lines(report: MutationReport, seed: int, sample: int | None) -> list[str]:
    judged = len(report.verdicts)
    chosen = f"a sample of {judged} (seed {seed})" if sample is not None and judged < report.total else f"{judged}"
    lines = [f"mutants of {report.variant}: {report.total}; judged {chosen} in {report.seconds:.1f} s "
             f"{report.where}",
             "  " + ", ".join(f"{report.count(s)} {s}" for s in STATUSES)]
    score = report.score
    lines.append(f"  score: {_percent(report.count('killed'), report.count('killed') + report.count('surviving'))}"
                 + ("" if score is not None else " (no mutant both loads and changes behaviour)"))
    files = report.by_group(_file)
    if files:
        lines.append("  per file:")
        lines += [f"    {name}: {_percent(killed, judged)}" for name, killed, judged in files]
    missed = [(name, killed, judged) for name, killed, judged in report.by_group(_declaration) if killed < judged]
    if missed:     # every declaration is in --json; here only those a mutant of survives
        lines.append("  declarations with a surviving mutant:")
        lines += [f"    {name}: {_percent(killed, judged)}" for name, killed, judged in missed]
    surviving = [v for v in report.verdicts if v.status == "surviving"]
    if surviving:
        lines.append(f"surviving: {len(surviving)}")
    for v in surviving:
        lines.append(f"  mutant {v.number}  {v.where}  {v.decl}: {v.change}")
        lines.append(f"    {v.by}")
        if v.difference:
            lines.append(f"    difference: {v.difference}")
            lines.append(f"    witness: {v.witness}")
        if v.scenario:
            lines.append(f"    scenario: {v.scenario}")
    return lines


def _file(verdict: Verdict) -> str:
    return verdict.where.split(":")[0]


def _declaration(verdict: Verdict) -> str:
    return verdict.decl


def _percent(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.0f}%)" if whole else "none judged"


def as_json(report: MutationReport, seed: int, sample: int | None) -> dict:
    return {"variant": report.variant, "total": report.total, "sample": sample, "seed": seed,
            "counts": {s: report.count(s) for s in STATUSES}, "score": report.score,
            "seconds": round(report.seconds, 2), "workers": report.workers,
            "per_file": [{"file": n, "killed": k, "judged": j} for n, k, j in report.by_group(_file)],
            "per_declaration": [{"declaration": n, "killed": k, "judged": j} for n, k, j in
                                report.by_group(_declaration)],
            "mutants": [v.as_json() for v in report.verdicts]}


def count_mutants(config: Config, variant: str) -> int:
    """How many mutants the spec has (the workers number them the same way)."""
    from baobei.dsl.layers import load_layers
    edition = load_edition_for(config, load_spec(config, variant))   # a broken spec or edition: an error now
    return len(mutations(load_layers(config.spec_dir, config.layers_of(variant), config.config_dir), edition))
