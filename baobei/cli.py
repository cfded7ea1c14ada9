"""The `baobei` command: one verb per step of a rules author's work."""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from baobei.dsl.errors import BaobeiError, ConfigError

# Every command imports what it needs when it runs: `baobei --help` imports no parser, no
# interpreter and no Z3.


def load_config(*args, **kwargs):
    from baobei.dsl.loader import load_config
    return load_config(*args, **kwargs)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--spec", metavar="DIR", help="run the rules of this spec folder (default: the packaged one)")
    parser.add_argument("--edition", metavar="FILE", help="the edition file: deck, deal, thresholds")
    parser.add_argument("--config", metavar="FILE", help="the project config (default: ./baobei.yaml if present)")


def _config(args):
    """The project's config with the flags on top; said once, in text output, which rules it reads."""
    config = load_config(args.config, args.spec, args.edition)
    if not getattr(args, "json", False):
        print(config.describe())
    return config


def cmd_scenario(args) -> int:
    import json
    from baobei.interpreter.scenario import load_scenario, run_scenario, scenario_files, variant_rules
    config = _config(args)
    passed = failed = 0
    decided: dict[str, set] = {}
    for path in scenario_files(args.paths):
        scenario = load_scenario(path)
        for variant in scenario.variants:
            rules = variant_rules(scenario, variant, config)
            shown = not args.variant or variant in args.variant
            trace = _scenario_trace(args, path, scenario, rules) if args.trace and shown else None
            result = run_scenario(scenario, rules, trace)
            if result.round is not None:
                decided.setdefault(result.variant, set()).update(result.round.decided)
            if not shown:
                continue
            passed += result.passed
            failed += not result.passed
            if args.json:
                print(json.dumps({"scenario": str(path), "variant": variant, "passed": result.passed,
                                  "step": result.step, "message": result.message}))
            elif result.passed:
                if not args.quiet:
                    print(f"PASS {path} [{result.variant}]")
            else:
                print(f"FAIL {path} [{result.variant}] {result.message}")
    if args.coverage:
        _coverage(config, decided)
    print(json.dumps({"passed": passed, "failed": failed}) if args.json else f"{passed} passed, {failed} failed")
    return 1 if failed else 0


def _scenario_trace(args, path, scenario, rules):
    """Prints every step of one (scenario, variant) as it is played: text, or JSON lines."""
    import json
    from baobei.interpreter.tracing import StepView
    view = StepView(rules.spec, args.all_citations)
    if not args.json:
        print(f"== {path} [{rules.variant}] {scenario.title}")

    def shown(step) -> None:
        if args.json:
            print(json.dumps({"scenario": str(path), "variant": rules.variant, **view.json(step)},
                             ensure_ascii=False))
        else:
            print("\n".join(view.lines(step)))
    return shown


def cmd_why(args) -> int:
    import json
    from baobei.interpreter.explain import Explainer
    from baobei.interpreter.scenario import explain_as_a_step, load_scenario, run_scenario, variant_rules
    config = _config(args)
    scenario = load_scenario(args.file)
    count = len(scenario.steps)
    number = count if args.step is None else args.step
    if not 0 <= number <= count:
        from baobei.dsl.errors import ScenarioError
        raise ScenarioError(f"--step {number}: the file has {count} steps; --step takes 0 (the table before the "
                            f"first step) to {count}", scenario.doc.loc("steps"))
    text = " ".join(args.move)
    for variant in args.variant or scenario.variants:
        rules = variant_rules(scenario, variant, config)
        result = run_scenario(scenario, rules, until=number)
        found = explain_as_a_step(result.round, _read_move(text, result.round))
        explainer = Explainer(rules.spec, args.all_citations)
        where = f"after step {number}" if number else "before the first step"
        if args.json:
            print(json.dumps({"scenario": str(args.file), "variant": variant, "step": number,
                              "stopped": None if result.passed else result.message, **explainer.json(found)},
                             ensure_ascii=False))
            continue
        print(f"why {found.move}  [{variant}] {where} of {args.file}")
        if not result.passed:
            print(f"(the scenario stops at {result.message}: explained in the state there)")
        print("\n".join(explainer.lines(found)))
    return 0


def _progress_shown(args, quiet_for_json: bool = False) -> bool:
    """Progress goes to stderr on a terminal, or anywhere with --progress (with --json on a
    terminal too, unless the command keeps quiet for JSON)."""
    return (sys.stderr.isatty() and not (quiet_for_json and args.json)) or args.progress


def _read_move(text: str, rnd):
    """A move written 'PLAYER: MOVE' on the command line; one that cannot be read is an error at
    its word (E410)."""
    from baobei.dsl.errors import Loc, MoveError
    from baobei.interpreter.moves import parse_move
    actor, colon, body = text.partition(":")
    try:
        if not colon:
            raise MoveError(f"write the move as PLAYER: MOVE, e.g. '{rnd.players[0].name}: draw'")
        return parse_move(actor.strip(), body.strip(), rnd.by_name)
    except MoveError as error:
        error.loc = Loc("<MOVE>", 1, _column(text, error.message))
        error.source_line = text
        raise


def _column(text: str, message: str) -> int:
    """Where in the move the word a message quotes last is (1: the move's start): the most
    specific ("'pluck': unknown player 'Zed' in 'Zed.2'")."""
    import re
    for quoted in reversed(re.findall(r"'([^']+)'", message)):
        at = text.find(quoted)
        if at >= 0 and quoted != text:
            return at + 1
    return 1


def _agent_names(text: str) -> list[str]:
    """`--agents random,memory`: one agent per seat, repeated round the table. An unknown name is
    an error here, before any game is played in a worker."""
    from baobei.interpreter.agents import make_agent
    from baobei.interpreter.state import Rng
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise ConfigError("--agents names at least one agent, e.g. --agents random,memory")
    for name in names:
        make_agent(name, "P1", Rng(0))
    return names


def _coverage(config, decided: dict[str, set]) -> None:
    """Rules that decided no step of the scenarios: legality and trigger rules never exercised."""
    from baobei.dsl import ast
    from baobei.dsl.loader import load_spec
    for variant, names in sorted(decided.items()):
        spec = load_spec(config, variant)
        judged = [r for r in spec.rules.values() if isinstance(r.body, (ast.Verdict, ast.Fire))]
        missing = [r for r in judged if r.name not in names]
        print(f"coverage {variant}: {len(judged) - len(missing)}/{len(judged)} legality and trigger rules decided "
              f"a step")
        for rule in missing:
            print(f"  never decided: {rule.name} ({rule.loc})")


def cmd_simulate(args) -> int:
    import json
    from baobei.interpreter.rules import load_rules
    from baobei.interpreter.simulate import simulate
    config = _config(args)
    rules = load_rules(config, args.variant)
    seed = args.seed if args.seed is not None else int(time.time()) % 1_000_000
    agents = _agent_names(args.agents)
    workers = _workers(args)
    if not args.json:
        print(f"seed {seed}")
    from baobei.interpreter.failures import SimulationFailed
    record = open(args.record, "w", encoding="utf-8") if args.record else None
    try:
        stats = simulate(rules, args.players, args.games, seed, agents, check=args.check,
                         progress=_progress_shown(args, quiet_for_json=True), record=record,
                         workers=workers, ray=args.ray, failures=args.failures)
    except SimulationFailed as failed:
        # a broken invariant is a finding of --check; a gap met in play (E500) is a spec no rule
        # completes, bad input as everywhere else: both say where and leave a scenario to replay
        broken = failed.failure.code == "E510"
        _failure(args, seed, failed.failure, sys.stdout if broken else sys.stderr)
        return 1 if broken else 2
    finally:
        if record is not None:
            record.close()
    if args.json:
        print(json.dumps({**stats.as_json(), "rules": config.as_json()}, sort_keys=True))
    else:
        print("\n".join(stats.lines()))
        print(f"played {_where(workers, args.ray)}")
    return 0


def _failure(args, seed: int, failure, out) -> None:
    """Where random play failed, and how to play it again."""
    import json
    from baobei.dsl.errors import shown_path
    if args.json:
        print(json.dumps({"failure": {**failure.as_json(), "record": args.record}}, sort_keys=True), file=out)
        return
    print(f"FAIL (seed {seed}): {failure.text()}", file=out)
    if failure.path:
        flags = "".join(f" --{flag} {getattr(args, flag)}" for flag in ("spec", "config", "edition")
                        if getattr(args, flag))
        print(f"  the failing round, as a scenario: {shown_path(failure.path)}", file=out)
        print(f"  play it again: baobei scenario{flags} {shown_path(failure.path)}", file=out)
    if args.record:
        print(f"  the games before it and the failing one up to its failing move: {args.record}", file=out)


def _workers(args) -> int:
    """--workers N (default: every core); --ray needs Ray installed. Checked before any work."""
    from baobei.interpreter.workers import cores, ray_module
    if args.ray:
        if args.workers is not None:
            raise ConfigError("--workers counts this machine's processes, --ray plays on a cluster's CPUs: "
                              "give one of them")
        ray_module()
    if args.workers is not None and args.workers < 1:
        raise ConfigError(f"--workers {args.workers}: at least 1")
    return args.workers or cores()


def _where(workers: int, ray: str | None) -> str:
    from baobei.interpreter.workers import where
    return where(workers, ray)


def cmd_balance(args) -> int:
    import json
    from baobei.balance import Study, run_study, as_json, text_lines
    workers = _workers(args)
    agents = _agent_names(args.agents)
    if args.games < 2:
        raise ConfigError(f"--games {args.games}: a study needs at least 2 games per side")
    if not 0 < args.alpha < 1:
        raise ConfigError(f"--alpha {args.alpha}: a level between 0 and 1, e.g. 0.05")
    a, b, rules_read = _balance_sides(args)
    seed = args.seed if args.seed is not None else int(time.time()) % 1_000_000
    if not args.json:
        print(f"seed {seed}")
    study = Study(a, b, args.games, args.players, tuple(agents), seed, args.alpha, args.margin,
                  args.until_significant)
    checkpoint = Path(args.checkpoint) if args.checkpoint else None
    try:
        findings = run_study(study, workers=workers, ray=args.ray, checkpoint=checkpoint,
                             progress=_progress_shown(args, quiet_for_json=True))
    except KeyboardInterrupt:
        if checkpoint:
            print(f"the games played are kept in {checkpoint}: the same command resumes the study", file=sys.stderr)
        raise
    if args.json:
        print(json.dumps({**as_json(findings), "rules": rules_read}, indent=1))
    else:
        print("\n".join(text_lines(findings)))
        rate = 2 * findings.played_now / findings.seconds if findings.seconds else 0.0
        print(f"played {2 * findings.played_now} games in {findings.seconds:.1f} s ({rate:.0f} games/s) "
              f"{_where(workers, args.ray)}" +
              (f"; {findings.played - findings.played_now} per side came from {checkpoint}"
               if findings.played_now < findings.played else ""))
    return 0


def _balance_sides(args):
    """The two sides of a study: two variants, one variant and its base (a house layer without
    its last layer), or one variant under two spec folders (--old, --new)."""
    from baobei.balance import Side, base_variant
    from baobei.interpreter.rules import load_rules
    if args.old or args.new:
        if not (args.old and args.new):
            raise ConfigError("--old DIR and --new DIR go together")
        if args.a or args.b:
            raise ConfigError("with --old and --new, name the variant with --variant, not as an argument")
        old = load_config(args.config, args.old, args.edition)
        new = load_config(args.config, args.new, args.edition)
        if not args.json:
            print(f"old: {old.describe()}\nnew: {new.describe()}")
        sides = (Side.of("old", load_rules(old, args.variant)), Side.of("new", load_rules(new, args.variant)))
        return sides + ({"old": old.as_json(), "new": new.as_json()},)
    config = _config(args)
    if args.a is None:
        raise ConfigError("balance compares two variants (baobei balance fr de), a house variant with its base "
                          "(baobei balance house) or two spec folders (baobei balance --old DIR --new DIR)")
    if args.b is None:
        base_config, base = base_variant(config, args.a)
        sides = (Side.of(base, load_rules(base_config, base)), Side.of(args.a, load_rules(config, args.a)))
    else:
        sides = (Side.of(args.a, load_rules(config, args.a)), Side.of(args.b, load_rules(config, args.b)))
    return sides + (config.as_json(),)


def _variants(config, requested: str | None) -> list[str]:
    if requested and requested != "all":
        return [requested]
    variants = ["fr", "de"] + [v for v in config.variants if v not in ("fr", "de")]
    if config.default_variant not in variants:
        variants.append(config.default_variant)
    return variants


def _questions(config, variant: str, bounds, args, proofs, only_cached: bool = False, backwards: bool = False):
    """One variant's questions: (its report, its layers). `only_cached`: from the cache alone, else
    NotCached (checker/answers.py). `backwards`: its questions from the last to the first
    (Checker.run)."""
    from baobei.checker.answers import Answers
    from baobei.checker.check import check
    from baobei.dsl.loader import load_edition_for, load_spec
    spec = load_spec(config, variant)
    edition = load_edition_for(config, spec)
    answers = Answers(enabled=not args.no_cache, only_cached=only_cached)
    report = check(spec, edition, variant, bounds, args.timeout, proofs, answers=answers, backwards=backwards)
    return report, spec.layers


def _play(config, variant: str, bounds, args, only_cached: bool = False):
    """One variant's random-play pass: (what it played, its findings). From the cache when it was
    played before; `only_cached`: else NotCached."""
    from baobei.checker.check import Report
    from baobei.checker.parallel import plan
    from baobei.checker.play import cached_play, play_key, play_pass
    from baobei.dsl.loader import load_edition_for, load_spec
    from baobei.interpreter.rules import load_rules
    if args.games <= 0:
        return "none (--games 0)", []
    plan(bounds.players - 1)        # a step per table size
    report = Report(variant, str(bounds))
    spec = load_spec(config, variant)
    key = play_key(spec, load_edition_for(config, spec), bounds.players, args.games, args.seed) \
        if not args.no_cache else None
    if not cached_play(report, key, bounds.players, only_cached):
        play_pass(report, load_rules(config, variant), bounds.players, args.games, args.seed, args.failures, key)
    return report.play, report.findings


def _checked(config, variant: str, questions, played, args):
    """A variant's report: its questions' and its play pass's findings, the failing ones written as
    scenario files when --emit asks for them."""
    report, layers = questions
    report.play, findings = played
    report.findings += findings
    if args.emit and report.findings:
        from baobei.checker.scenarios import emit_findings
        from baobei.interpreter.rules import load_rules
        emit_findings(report, load_rules(config, variant), args.emit)
    return report, layers


def _variant_job(job: str, config, variant: str, bounds, args, proofs=None, backwards: bool = False):
    """A worker's job: a variant's questions ("questions") or its play pass ("play")."""
    if job == "questions":
        return _questions(config, variant, bounds, args, proofs, backwards=backwards)
    return _play(config, variant, bounds, args)


def _import_for_workers() -> None:
    """What every worker of check would import on its own (the engine, which the questions deal
    tables with and the play passes play on; the effects' checks), imported once before the forks
    that share it: 15-20 ms once rather than in each of up to six workers."""
    import baobei.checker.concrete  # noqa: F401
    import baobei.checker.effects  # noqa: F401
    import baobei.interpreter.simulate  # noqa: F401


def _found_in_the_cache(config, variants: list[str], bounds, args, proofs) -> list[list]:
    """For each variant, [its questions, its play pass] as the cache holds them (None where it
    does not hold all of it): read here, without starting a worker or building a formula."""
    from baobei.checker.answers import NotCached

    def cached(read):
        try:
            return read()
        except NotCached:
            return None
    if args.no_cache:
        return [[None, None] for _ in variants]
    return [[cached(lambda: _questions(config, variant, bounds, args, proof, only_cached=True)),
             cached(lambda: _play(config, variant, bounds, args, only_cached=True))]
            for variant, proof in zip(variants, proofs)]


def cmd_check(args) -> int:
    import json
    from baobei.checker.proofs import prove_all
    from baobei.checker.report import check_text
    from baobei.checker.symbolic import Bounds
    from baobei.dsl.loader import load_edition_for, load_spec
    config = _config(args)
    bounds = Bounds(args.players, args.slots)
    started = time.perf_counter()
    variants = _variants(config, args.variant)
    specs = []
    for variant in variants:  # load every spec first: bad input fails before any proof starts
        spec = load_spec(config, variant)
        specs.append((spec, load_edition_for(config, spec)))
    from baobei.coverage import coverage
    # text only, no Z3: a broken uncited file fails here too, before any proof
    passages = coverage(config, use_cache=not args.no_cache)
    if not args.json:
        print(f"proving the invariants of {', '.join(variants)} at 2 to {bounds.players} players; random play "
              f"from seed {args.seed}", flush=True)
    shown = _progress_shown(args)
    proofs = prove_all(specs, bounds, args.timeout, use_cache=not args.no_cache, progress=shown)
    from baobei.checker.parallel import in_forked_workers
    from baobei.interpreter.progress import Phase
    from baobei.variants import built_on
    found = _found_in_the_cache(config, variants, bounds, args, proofs)
    answered = [index for index, (questions, _) in enumerate(found) if questions is not None]
    if answered:
        phase = Phase(f"checking {', '.join(variants[index] for index in answered)}", "answers", enabled=shown)
        phase.finish(f"{sum(found[index][0][0].answers for index in answered)} answers from the cache")
    # what the cache lacks, in workers: a variant's questions, or its play pass after an edit that
    # changed no question (a comment, a citation)
    asked = [index for index, (questions, _) in enumerate(found) if questions is None]
    unplayed = [index for index, (_, played) in enumerate(found) if played is None]
    if asked or unplayed:
        if asked:
            phase = Phase(f"checking {', '.join(v for index, v in enumerate(variants) if index in asked + unplayed)}",
                          "checks", enabled=shown)
        else:
            phase = Phase(f"playing {', '.join(variants[index] for index in unplayed)}", "table sizes", enabled=shown)
        # side by side, every other variant from its last question to its first (Checker.run); a
        # house variant's questions after its base's; the play passes after all the questions,
        # each by whichever worker is free first
        jobs = [("questions", config, variants[index], bounds, args, proofs[index], position % 2 == 1)
                for position, index in enumerate(asked)]
        jobs += [("play", config, variants[index], bounds, args) for index in unplayed]
        _import_for_workers()
        made = in_forked_workers(_variant_job, jobs, on_progress=phase.progress,
                                 after=built_on(config, [variants[index] for index in asked]))
        phase.finish()
        for position, index in enumerate(asked):
            found[index][0] = made[position]
        for position, index in enumerate(unplayed):
            found[index][1] = made[len(asked) + position]
    results = [_checked(config, variant, questions, played, args)
               for variant, (questions, played) in zip(variants, found)]
    failed = any(not report.ok or any(status != "holds" for _, status, _ in report.claims)
                 or any(status != "proved" for _, status, _ in report.invariants)
                 for report, _ in results) or not passages.ok
    seconds = time.perf_counter() - started
    if args.json:
        print(json.dumps({"ok": not failed, "seconds": round(seconds, 2), "rules": config.as_json(), "seed": args.seed,
                          "variants": [
            {"variant": report.variant, "layers": layers, "edition": report.edition, "assumed": report.assumed,
             "bounds": report.bounds, "queries": report.queries, "answers": report.answers, "cached": report.cached,
             "seconds": round(report.seconds, 2),
             "invariants": [{"name": n, "status": st, "loc": loc} for n, st, loc in report.invariants],
             "proofs": report.proofs, "play": report.play,
             "claims": [{"name": n, "status": st, "loc": loc} for n, st, loc in report.claims],
             "readings": [r.__dict__ for r in report.readings],
             "findings": [f.as_json() for f in report.findings]} for report, layers in results],
            "rulebooks": passages.as_json()}, indent=1))
    else:
        for report, layers in results:
            print(check_text(report, layers))
        # every rulebook passage is cited by a rule or a scenario, or explained (spec/rulebooks/uncited.yaml)
        print("rulebook coverage (baobei rulebook --coverage):")
        print("\n".join(f"  {line}" for line in passages.lines()))
        answers, cached = sum(report.answers for report, _ in results), sum(report.cached for report, _ in results)
        print(f"{'all holds' if not failed else 'FINDINGS'}: {len(variants)} variant(s) checked in {seconds:.1f} s "
              f"({cached} of {answers} answers from the cache)")
    return 1 if failed else 0


def cmd_mutate(args) -> int:
    import json
    from baobei import mutate
    from baobei.checker.proofs import prove_all, proved_everywhere
    from baobei.checker.symbolic import Bounds
    from baobei.dsl.loader import load_edition_for, load_spec
    config = _config(args)
    workers = _workers(args)
    variant = args.variant or config.default_variant
    # absolute: a worker may run in another folder (on a Ray node)
    scenarios = tuple(str(Path(p).resolve()) for p in args.scenarios) if args.scenarios is not None else \
        _project_tests(config, "scenarios")
    games = tuple(str(Path(p).resolve()) for p in args.games) if args.games is not None else \
        _project_tests(config, "games", "*.jsonl")
    total = mutate.count_mutants(config, variant)
    numbers = mutate.choose(total, args.sample, args.seed, args.mutant)
    spec = load_spec(config, variant)
    bounds = Bounds(args.players, args.slots)
    shown = _progress_shown(args) and not args.json
    say = (lambda line: print(f"  {line}", file=sys.stderr, flush=True)) if shown else None
    if not args.json:
        print(f"mutants of {variant}: {total}; judging {len(numbers)} (seed {args.seed}) against "
              f"{_listed(scenarios)} scenario folder(s)/file(s) and {_listed(games)} recorded game file(s)", flush=True)
    proofs = prove_all([(spec, load_edition_for(config, spec))], bounds, args.timeout, progress=shown)[0]
    options = mutate.Options(config, variant, scenarios, games, args.players, args.slots, args.timeout,
                             tuple(proved_everywhere(spec, proofs)),
                             str(Path(args.emit).resolve()) if args.emit else None, str(Path.cwd()))
    report = mutate.run(options, numbers, total, workers, args.ray, progress=say)
    if args.json:
        print(json.dumps(mutate.as_json(report, args.seed, args.sample), indent=1))
    else:
        print("\n".join(mutate.text_lines(report, args.seed, args.sample)))
    if args.min_score is not None and (report.score is None or 100 * report.score < args.min_score):
        if not args.json:
            print(f"score below --min-score {args.min_score:g}%")
        return 1
    return 0


def _project_tests(config, folder: str, pattern: str | None = None) -> tuple[str, ...]:
    """The project's own tests/<folder> (its files matching `pattern`), when it has one."""
    base = Path(config.config_dir or Path.cwd()).resolve() / "tests" / folder
    if not base.is_dir():
        return ()
    return (str(base),) if pattern is None else tuple(str(p) for p in sorted(base.glob(pattern)))


def _listed(paths: tuple[str, ...]) -> str:
    from baobei.dsl.errors import shown_path
    return f"{len(paths)} ({', '.join(shown_path(p) for p in paths)})" if paths else "no"


def cmd_rulebook(args) -> int:
    from baobei.dsl.errors import shown_path
    config = _config(args)
    if args.coverage:
        return _rulebook_coverage(config)
    from baobei.rulebook import build_document, compare, phrasebook_for, write
    variants = args.variant.split(",") if args.variant else _variants(config, "all")
    if args.compare:
        from baobei.checker.symbolic import Bounds
        from baobei.dsl.loader import load_spec
        load_spec(config, args.compare)           # a misspelt variant fails before any document
    book = phrasebook_for(config)
    for variant in variants:
        document = build_document(config, variant, book)
        if args.compare and args.compare != variant:
            print(f"comparing {variant} with {args.compare} (baobei diff; cached after the first time)", flush=True)
            compare(document, config, args.compare, Bounds(args.players, args.slots), args.timeout)
        path = write(document, Path(args.out), args.format)
        missing = document.missing
        print(f"{variant}: {len(document.entries())} declarations in {len(document.sections)} sections, "
              f"{len(missing)} without a phrase -> {shown_path(path.resolve())}")
        for note in missing:
            print(f"  {note}")
    return 0


def _rulebook_coverage(config) -> int:
    """Which passages of each rulebook are cited, explained, or neither (exit 1)."""
    from baobei.coverage import coverage
    found = coverage(config)
    print("\n".join(found.lines()))
    return 0 if found.ok else 1


def _load(config, variant):
    from baobei.dsl.loader import load_edition_for, load_spec
    load_edition_for(config, load_spec(config, variant))


def cmd_diff(args) -> int:
    import json
    from baobei.checker.diff import diff
    from baobei.checker.report import diff_text
    from baobei.checker.symbolic import Bounds
    from baobei.dsl.loader import load_edition_for, load_spec
    started = time.perf_counter()
    if args.old or args.new:
        return _diff_versions(args, load_config(args.config, args.spec, args.edition), started)
    config = _config(args)
    if not (args.a and args.b):
        raise ConfigError("diff compares two variants (baobei diff fr de) or two spec folders "
                          "(baobei diff --old DIR --new DIR)")
    spec_a, spec_b = load_spec(config, args.a), load_spec(config, args.b)
    edition = load_edition_for(config, spec_a)
    shown = _progress_shown(args)

    def compared(spares: int = 0):
        return diff((args.a, spec_a), (args.b, spec_b), edition, Bounds(args.players, args.slots), args.timeout,
                    use_cache=not args.no_cache, progress=shown, witnesses=args.witnesses, spares=spares)
    report = compared()
    if args.emit:
        from baobei.checker.scenarios import SPARE_WITNESSES, emit_witnesses
        from baobei.interpreter.rules import load_rules
        emit_witnesses(report, load_rules(config, args.a), load_rules(config, args.b), args.emit, progress=shown,
                       use_cache=not args.no_cache, spares=lambda: compared(SPARE_WITNESSES))
    seconds = time.perf_counter() - started
    if args.json:
        print(json.dumps({"a": args.a, "b": args.b, "seconds": round(seconds, 2), "rules": config.as_json(),
                          "bounds": report.bounds,
                          "added": report.added, "removed": report.removed, "changed": report.changed,
                          "differences": [f.as_json() for f in report.findings], "unknown": report.unknown,
                          "answers": report.answers, "cached": report.cached, "queries": report.queries,
                          "unproved": report.unproved, "uncompared": report.uncompared},
                         indent=1))
    else:
        print(diff_text(report))
        print(f"{len(report.findings)} difference(s) in {seconds:.1f} s")
    return 1 if report.findings or report.unknown else 0


def _diff_versions(args, config, started: float) -> int:
    import json
    from baobei.checker.report import diff_text
    from baobei.checker.symbolic import Bounds
    from baobei.checker.versions import compare_versions
    if not (args.old and args.new):
        raise ConfigError("--old DIR and --new DIR go together")
    old = load_config(args.config, args.old, args.edition)
    new = load_config(args.config, args.new, args.edition)
    if not args.json:
        print(f"old: {old.describe()}\nnew: {new.describe()}")
    variants = [args.variant] if args.variant else _variants(config, "all")
    shown = _progress_shown(args)
    reports = [compare_versions(old, new, variant, Bounds(args.players, args.slots), args.timeout,
                                args.scenarios or [], args.games or [], args.emit, progress=shown,
                                use_cache=not args.no_cache)
               for variant in variants]
    seconds = time.perf_counter() - started
    if args.json:
        print(json.dumps({"old": old.as_json(), "new": new.as_json(), "seconds": round(seconds, 2),
                          "changed": any(r.changes_behaviour for r in reports),
                          "variants": [r.as_json() for r in reports]}, indent=1))
    else:
        for report in reports:
            print(f"== {report.variant}: {args.old} -> {args.new}")
            print(diff_text(report.diff))
            if report.edition:
                print("  edition values that changed:")
                for line in report.edition:
                    print(f"    {line}")
            if report.claims:
                print("  claims whose status changed:")
                for name, before, after in report.claims:
                    print(f"    {name}: {before} -> {after}")
            if report.scenarios:
                print("  scenarios whose outcome changed:")
                for path, before, after in report.scenarios:
                    print(f"    {path}: {before} -> {after}")
            if report.games:
                print("  recorded games that change:")
                for line in report.games:
                    print(f"    {line}")
            for path in report.witnesses:
                print(f"  witness (passes under old, fails under new): {path}")
        changed = any(r.changes_behaviour for r in reports)
        print(f"{'behaviour changes' if changed else 'no change in behaviour'}: compared in {seconds:.1f} s")
    return 1 if any(r.changes_behaviour for r in reports) else 0


def cmd_replay(args) -> int:
    import json
    from baobei.interpreter.record import read_games, replay_file
    from baobei.interpreter.rules import load_rules
    config = _config(args)
    games = read_games(args.file)
    variant = args.variant or (games[0]["variant"] if games else None)
    rules = load_rules(config, variant)
    report = replay_file(rules, args.file, _replay_trace(args, rules) if args.trace else None)
    if args.json:
        print(json.dumps({"games": report.games, "moves": report.moves, "spec_version": rules.version,
                          "rules": config.as_json(),
                          "divergences": [d.__dict__ for d in report.divergences]},
                         indent=None if args.trace else 1))      # with the trace's lines: one line too
    else:
        recorded = {g.get("spec_version") for g in games}
        print(f"replay {args.file} under {rules.variant} (spec {rules.version}; recorded with {', '.join(sorted(map(str, recorded)))})")
        for d in report.divergences:
            print(f"  game {d.game}, round {d.round}, move {d.move} ({d.text}): {d.problem}")
        print(f"{report.games} games, {report.moves} moves replayed, {len(report.divergences)} diverged")
    return 1 if report.divergences else 0


def _replay_trace(args, rules):
    """Prints every replayed move as a step of the trace: text under a heading per round, or JSON lines."""
    import json
    from baobei.interpreter.tracing import StepView
    view = StepView(rules.spec, args.all_citations)
    last = [None]

    def shown(game: int, round_number: int, step) -> None:
        if args.json:
            print(json.dumps({"game": game, "round": round_number, **view.json(step)}, ensure_ascii=False))
            return
        if last[0] != (game, round_number):
            last[0] = (game, round_number)
            print(f"== game {game}, round {round_number}")
        print("\n".join(view.lines(step)))
    return shown


def cmd_report(args) -> int:
    from baobei.report import build
    config = _config(args)
    variants = args.variant.split(",") if args.variant else ["fr", "de"]
    for variant in variants:
        _load(config, variant)
    seed = args.seed if args.seed is not None else int(time.time()) % 1_000_000
    print(f"seed {seed}")
    from baobei.checker.symbolic import Bounds
    path = build(config, variants, Path(args.out), args.format, args.games, args.players, seed,
                 _agent_names(args.agents),
                 progress=_progress_shown(args), bounds=Bounds(args.check_players, args.check_slots),
                 balance_games=args.balance_games)
    from baobei.dsl.errors import shown_path
    print(f"report written to {shown_path(path.resolve())}")
    return 0


def cmd_lsp(args) -> int:
    try:
        from baobei.lsp.server import serve
    except ImportError as error:
        if (error.name or "").split(".")[0] not in ("pygls", "lsprotocol"):
            raise
        print(f"baobei lsp needs the language server packages ({error.name} is missing): "
              "pip install 'baobei[lsp]'", file=sys.stderr)
        return 2
    serve()
    return 0


# What each command's exit status says, so that a rules author's CI can stop on it.
EXIT_CODES = {
    "scenario": "0 every scenario passed, 1 one failed, 2 bad input",
    "simulate": "0 the games were played (with --check: every invariant held after every move), "
                "1 with --check: an invariant broke, 2 bad input (a gap in the rules met in play too); a failing "
                "round is written as a scenario",
    "balance": "0 the study ran, whatever its verdicts (they are in the output and in --json), 2 bad input, "
               "130 interrupted (with --checkpoint, the same command resumes)",
    "replay": "0 every recorded game replayed identically, 1 one diverged, 2 bad input",
    "why": "0 the move was explained (legal or refused), 2 bad input (a broken scenario, a step number out of "
           "range, a move that cannot be read)",
    "report": "0 the report was written, 2 bad input",
    "rulebook": "0 the documents were written (with --coverage: every rulebook passage is cited or explained), "
                "1 with --coverage: a passage neither cited nor explained, or a stale entry, 2 bad input",
    "check": "0 all holds (every claim proved, no finding, every rulebook passage cited or explained), 1 a finding "
             "or an undecided query, 2 bad input",
    "diff": "0 no difference in behaviour, 1 a difference (or a query Z3 could not decide), 2 bad input",
    "mutate": "0 the mutants were judged (and with --min-score: the score reaches it), 1 below --min-score, "
              "2 bad input",
}
EXIT_HELP = "exit codes:\n" + "\n".join(f"  {verb:9} {text}" for verb, text in EXIT_CODES.items()) + \
    "\n  any       3 an internal error (a bug: please report it; BAOBEI_DEBUG=1 shows its traceback)"


# check's random-play pass (checker/play.py): a few seconds of concrete play behind the proofs
GAMES_PER_TABLE = 6
PLAY_SEED = 1


def _verb(verbs, name: str, help_text: str):
    return verbs.add_parser(name, help=help_text, epilog=f"exit codes: {EXIT_CODES[name]}")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="baobei", description="Rules-as-code for the card game BAO BEI.",
                                     epilog=EXIT_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    verbs = parser.add_subparsers(dest="verb", metavar="COMMAND")

    scenario = _verb(verbs, "scenario", "run scenario files under the variants they name")
    scenario.add_argument("paths", nargs="+", metavar="FILE_OR_DIR")
    scenario.add_argument("--variant", action="append", help="run only this variant (repeatable)")
    scenario.add_argument("-q", "--quiet", action="store_true", help="print failures and the summary only")
    scenario.add_argument("--coverage", action="store_true",
                          help="list the legality and trigger rules that decided no step")
    scenario.add_argument("--trace", action="store_true",
                          help="print every step: the rule that allowed or refused it, what it did, what the "
                               "game then waits for (docs/trace.md)")
    scenario.add_argument("--json", action="store_true",
                          help="JSON lines: each step with --trace, each result, the totals")
    _citations(scenario)
    _common(scenario)
    scenario.set_defaults(run=cmd_scenario)

    why = _verb(verbs, "why", "explain one move on a scenario's table: every rule of its kind, the part of its "
                              "condition that holds or fails, what settles it, the citations")
    why.add_argument("file", metavar="FILE", help="a scenario file: its table and steps")
    why.add_argument("move", nargs="+", metavar="MOVE", help="the move, as PLAYER: MOVE (e.g. 'Ben: pluck Ana.2')")
    why.add_argument("--step", type=int, metavar="N",
                     help="explain in the state after step N (0: the table before the first step; default: "
                          "after the last)")
    why.add_argument("--variant", action="append", help="explain under this variant (repeatable; default: the "
                                                        "file's)")
    why.add_argument("--json", action="store_true", help="one JSON object per variant")
    _citations(why)
    _common(why)
    why.set_defaults(run=cmd_why)

    sim = _verb(verbs, "simulate", "play seeded games with agents and report figures")
    sim.add_argument("--variant", help="the variant (default: the config's layers)")
    sim.add_argument("--players", type=int, default=4, choices=range(2, 7), metavar="N", help="2 to 6 (default 4)")
    sim.add_argument("--games", type=int, default=100, metavar="G", help="how many games (default 100)")
    sim.add_argument("--seed", type=int, metavar="S", help="the seed (printed; default: from the clock)")
    sim.add_argument("--agents", default="random", metavar="A,B,...",
                     help="agents per seat, repeated around the table (default: random)")
    sim.add_argument("--check", action="store_true", help="check the invariants after every move")
    sim.add_argument("--json", action="store_true", help="print one JSON object")
    sim.add_argument("--progress", action="store_true", help="show progress even when not on a terminal")
    sim.add_argument("--record", metavar="FILE", help="write each game as one JSON line (see replay); a game "
                                                      "that fails is written up to its failing move")
    sim.add_argument("--failures", default=".", metavar="DIR",
                     help="where a failing round is written as a scenario file (default: the current folder)")
    _parallel(sim)
    _common(sim)
    sim.set_defaults(run=cmd_simulate)

    bal = _verb(verbs, "balance", "what a rule change does to play: figures of two variants with confidence "
                                  "intervals and significance tests")
    _two_sides(bal, "a variant, e.g. fr (alone: a house variant, compared with its base)")
    bal.add_argument("--variant", help="with --old/--new: the variant to compare (default: the config's layers)")
    bal.add_argument("--games", type=int, default=2000, metavar="N", help="games per side (default 2000)")
    bal.add_argument("--players", type=int, default=4, choices=range(2, 7), metavar="N", help="2 to 6 (default 4)")
    bal.add_argument("--agents", default="random", metavar="A,B,...",
                     help="agents per seat, repeated around the table (default: random)")
    bal.add_argument("--seed", type=int, metavar="S", help="the seed (printed; default: from the clock)")
    bal.add_argument("--alpha", type=float, default=0.05, help="familywise error rate of the verdicts (default 0.05)")
    bal.add_argument("--margin", type=float, default=1.0, metavar="M",
                     help="a difference within M points (rates) or M%% of the first side's value (means) is "
                          "negligible (default 1)")
    bal.add_argument("--until-significant", action="store_true",
                     help="look at the figures after 1/8, 1/4 and 1/2 of the games too, and stop once every "
                          "metric is settled (significant or negligible); alpha is split over the looks")
    bal.add_argument("--checkpoint", metavar="FILE",
                     help="keep the games played in FILE; a study interrupted resumes from it")
    bal.add_argument("--json", action="store_true", help="print one JSON object")
    bal.add_argument("--progress", action="store_true", help="show progress even when not on a terminal")
    _parallel(bal)
    _common(bal)
    bal.set_defaults(run=cmd_balance)

    rep = _verb(verbs, "replay", "replay recorded games; report the first move that changed")
    rep.add_argument("file", metavar="FILE", help="recorded games (simulate --record)")
    rep.add_argument("--variant", help="the variant to replay under (default: the recorded one)")
    rep.add_argument("--json", action="store_true", help="print one JSON object (with --trace: JSON lines)")
    rep.add_argument("--trace", action="store_true", help="print every move replayed as a step of the trace "
                                                          "(docs/trace.md)")
    _citations(rep)
    _common(rep)
    rep.set_defaults(run=cmd_replay)

    rpt = _verb(verbs, "report", "one document: rules side by side, differences, claims, simulation figures "
                                 "with plots")
    rpt.add_argument("--variant", help="comma-separated variants (default: fr,de)")
    rpt.add_argument("--format", choices=("md", "html"), default="html")
    rpt.add_argument("--out", default="report", metavar="DIR", help="where to write it (default: ./report)")
    rpt.add_argument("--games", type=int, default=300, help="simulated games per edition (default 300)")
    rpt.add_argument("--balance-games", type=int, metavar="G",
                     help="games per variant of the balance study of the first two variants (default: --games; "
                          "0: none)")
    rpt.add_argument("--players", type=int, default=4, choices=range(2, 7), metavar="N")
    rpt.add_argument("--agents", default="memory", metavar="A,B,...", help="agents per seat (default: memory)")
    rpt.add_argument("--seed", type=int, metavar="S")
    rpt.add_argument("--progress", action="store_true", help="show progress even when not on a terminal")
    rpt.add_argument("--check-players", type=int, default=6, choices=range(2, 7), metavar="N",
                     help="largest table the claims and differences reason about (default 6)")
    rpt.add_argument("--check-slots", type=int, default=6, choices=range(2, 11), metavar="N",
                     help="most slots per player they reason about (default 6)")
    _common(rpt)
    rpt.set_defaults(run=cmd_report)

    rbk = _verb(verbs, "rulebook", "the rules as a document to read: plain-English sentences from the syntax "
                                   "trees, citations, house rules marked; --coverage: which rulebook passages "
                                   "the spec cites")
    rbk.add_argument("--variant", help="comma-separated variants (default: every variant)")
    rbk.add_argument("--format", choices=("html", "md"), default="html")
    rbk.add_argument("--out", default="rulebook", metavar="DIR", help="where to write it (default: ./rulebook)")
    rbk.add_argument("--compare", metavar="Y", help="mark every declaration that differs from variant Y, with "
                                                    "the differences baobei diff finds")
    rbk.add_argument("--coverage", action="store_true",
                     help="count each rulebook's passages cited, explained (spec/rulebooks/uncited.yaml) and "
                          "unaccounted; write no document")
    _solver_options(rbk)        # the bounds of --compare's diff
    _common(rbk)
    rbk.set_defaults(run=cmd_rulebook)

    chk = _verb(verbs, "check", "prove the claims and invariants; find overlaps, gaps and dead rules (Z3)")
    chk.add_argument("--variant", help="fr, de or all (default: all)")
    chk.add_argument("--json", action="store_true", help="print one JSON object")
    chk.add_argument("--emit", metavar="DIR", help="write a scenario file that plays into each overlap or gap")
    chk.add_argument("--games", type=int, default=GAMES_PER_TABLE, metavar="N",
                     help=f"games of seeded random play per table size, invariants after every move (default "
                          f"{GAMES_PER_TABLE}; 0: none)")
    chk.add_argument("--seed", type=int, default=PLAY_SEED, help=f"the random play's seed (default {PLAY_SEED})")
    chk.add_argument("--failures", default=".", metavar="DIR",
                     help="where a round random play failed in is written as a scenario file (default: the "
                          "current folder)")
    chk.add_argument("--no-cache", action="store_true",
                     help="prove, solve and play everything again, not from the cache (checker/answers.py)")
    chk.add_argument("--progress", action="store_true",
                     help="report each proof made on stderr (the default on a terminal)")
    _solver_options(chk)
    _common(chk)
    chk.set_defaults(run=cmd_check)

    dif = _verb(verbs, "diff", "every class of situations two variants, or two versions of the spec, decide "
                               "differently (Z3)")
    _two_sides(dif, "a variant, e.g. fr")
    dif.add_argument("--variant", help="with --old/--new: the variant to compare (default: all)")
    dif.add_argument("--scenarios", action="append", metavar="DIR",
                     help="with --old/--new: scenario files whose outcome to compare (repeatable)")
    dif.add_argument("--games", action="append", metavar="FILE",
                     help="with --old/--new: recorded games to replay under the new spec (repeatable)")
    dif.add_argument("--json", action="store_true", help="print one JSON object")
    dif.add_argument("--emit", metavar="DIR", help="write each witness as a scenario file into DIR")
    dif.add_argument("--progress", action="store_true",
                     help="show each phase's progress on stderr (the default on a terminal)")
    dif.add_argument("--no-cache", action="store_true",
                     help="prove and solve everything again, not from the cache (checker/answers.py)")
    dif.add_argument("--witnesses", type=int, default=1, choices=range(1, 11), metavar="N",
                     help="up to N (1 to 10) distinct witnesses of each class, each on the smallest table that "
                          "shows it (default 1); --emit plays from the first one the search reaches")
    _solver_options(dif)
    _common(dif)
    dif.set_defaults(run=cmd_diff)

    mut = _verb(verbs, "mutate", "which rule changes the tests notice: mutants of the spec judged by the "
                                 "scenarios, recorded games and claims; the surviving ones with a witness")
    mut.add_argument("--variant", help="the variant whose rules are mutated (default: the config's)")
    mut.add_argument("--scenarios", action="append", metavar="DIR",
                     help="scenario files or folders that judge the mutants (repeatable; default: the project's "
                          "tests/scenarios)")
    mut.add_argument("--games", action="append", metavar="FILE",
                     help="recorded games (simulate --record) that judge them (repeatable; default: the "
                          "project's tests/games/*.jsonl)")
    mut.add_argument("--sample", type=int, metavar="N", help="judge a seeded sample of N mutants (default: all)")
    mut.add_argument("--seed", type=int, default=1, metavar="S", help="the sample's seed (default 1)")
    mut.add_argument("--mutant", type=int, action="append", metavar="NUMBER",
                     help="judge this mutant only (repeatable; the numbers the report shows)")
    mut.add_argument("--min-score", type=float, metavar="PERCENT",
                     help="exit 1 when the score is below PERCENT (default: report only)")
    mut.add_argument("--emit", metavar="DIR",
                     help="write, for each surviving mutant, a scenario file that passes on the spec and fails "
                          "on the mutant")
    mut.add_argument("--json", action="store_true", help="print one JSON object")
    mut.add_argument("--progress", action="store_true", help="show progress even when not on a terminal")
    mut.add_argument("--workers", type=int, metavar="N", help="processes judging mutants side by side (default: "
                                                              "every core)")
    mut.add_argument("--ray", metavar="ADDRESS", help="judge them on the Ray cluster at ADDRESS instead")
    _solver_options(mut, players=4)
    _common(mut)
    mut.set_defaults(run=cmd_mutate)

    lsp = verbs.add_parser("lsp", help="a language server for editors (stdio): diagnostics, hover, "
                                       "definitions, completion, formatting")
    lsp.set_defaults(run=cmd_lsp)
    return parser


def _citations(parser) -> None:
    parser.add_argument("--all-citations", action="store_true",
                        help="show every edition's citations (default: the variant's edition's, the others' "
                             "where it has none)")


def _parallel(parser) -> None:
    parser.add_argument("--workers", type=int, metavar="N",
                        help="processes playing games side by side (default: every core); the figures are the "
                             "same for any N")
    parser.add_argument("--ray", metavar="ADDRESS",
                        help="play on the Ray cluster at ADDRESS instead ('auto': the cluster Ray finds, or one "
                             "started on this machine); needs pip install 'baobei[cluster]'")


def _two_sides(parser, first_help: str) -> None:
    """What a comparison compares: two variants, or two versions of the spec folder."""
    parser.add_argument("a", nargs="?", help=first_help)
    parser.add_argument("b", nargs="?", help="another variant, e.g. de")
    parser.add_argument("--old", metavar="DIR", help="the spec folder before a change")
    parser.add_argument("--new", metavar="DIR", help="the spec folder after it")


def _solver_options(parser, players: int = 6) -> None:
    parser.add_argument("--players", type=int, default=players, choices=range(2, 7), metavar="N",
                        help=f"largest table to reason about (default {players})")
    parser.add_argument("--slots", type=int, default=6, choices=range(2, 11), metavar="N",
                        help="most slots per player to reason about (default 6)")
    parser.add_argument("--timeout", type=int, default=20_000, metavar="MS",
                        help="time limit of each Z3 query; an undecided query is reported (default 20000)")


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    try:
        return args.run(args)
    except BaobeiError as error:
        print(error.render(), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:     # the reader stopped early (| head): no complaint, as if ended by SIGPIPE
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except Exception as error:  # an internal bug: say so briefly, no traceback unless asked
        if os.environ.get("BAOBEI_DEBUG"):
            raise
        print(f"internal error: {type(error).__name__}: {error} (set BAOBEI_DEBUG=1 for details)", file=sys.stderr)
        return 3


def run() -> None:
    """The `baobei` command: main(), then the process ends at once. The interpreter's own ending
    would free every object one by one (the parsed specs, the compiled rules, Z3's terms): 40 to
    50 ms a command, as long as a warm `check`'s whole search of the cache. Handlers registered
    to run at exit still run, and a command that left a thread running ends the usual way."""
    import threading
    code = main()
    if threading.active_count() > 1:
        sys.exit(code)
    try:
        sys.stdout.flush()
    except BrokenPipeError:     # the reader stopped before the last lines: as in main()
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 141
    sys.stderr.flush()
    import atexit
    atexit._run_exitfuncs()
    os._exit(code or 0)


if __name__ == "__main__":
    run()
