"""The `baobei` command: one verb per step of a rules author's work."""
from __future__ import annotations

import argparse
import os
import sys
import time

from baobei.dsl.errors import BaobeiError
from baobei.dsl.loader import load_config


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--spec", metavar="DIR", help="run the rules of this spec folder (default: the packaged one)")
    parser.add_argument("--edition", metavar="FILE", help="the edition file: deck, deal, thresholds")
    parser.add_argument("--config", metavar="FILE", help="the project config (default: ./baobei.yaml if present)")


def _config(args):
    return load_config(args.config, args.spec, args.edition)


def cmd_scenario(args) -> int:
    from baobei.interpreter.scenario import run_file, scenario_files
    config = _config(args)
    passed = failed = 0
    for path in scenario_files(args.paths):
        for result in run_file(path, config):
            if args.variant and result.variant not in args.variant:
                continue
            if result.passed:
                passed += 1
                if not args.quiet:
                    print(f"PASS {path} [{result.variant}]")
            else:
                failed += 1
                print(f"FAIL {path} [{result.variant}] {result.message}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


def cmd_simulate(args) -> int:
    import json
    from baobei.interpreter.rules import load_rules
    from baobei.interpreter.simulate import simulate
    config = _config(args)
    rules = load_rules(config, args.variant)
    seed = args.seed if args.seed is not None else int(time.time()) % 1_000_000
    agents = [a.strip() for a in args.agents.split(",") if a.strip()]
    if not args.json:
        print(f"seed {seed}")
    stats = simulate(rules, args.players, args.games, seed, agents, check=args.check,
                     progress=not args.json and sys.stderr.isatty() or args.progress)
    if args.json:
        print(json.dumps(stats.as_json(), sort_keys=True))
    else:
        print("\n".join(stats.lines()))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="baobei", description="Rules-as-code for the card game BAO BEI.")
    verbs = parser.add_subparsers(dest="verb", metavar="COMMAND")

    scenario = verbs.add_parser("scenario", help="run scenario files under the variants they name")
    scenario.add_argument("paths", nargs="+", metavar="FILE_OR_DIR")
    scenario.add_argument("--variant", action="append", help="run only this variant (repeatable)")
    scenario.add_argument("-q", "--quiet", action="store_true", help="print failures and the summary only")
    _common(scenario)
    scenario.set_defaults(run=cmd_scenario)

    sim = verbs.add_parser("simulate", help="play seeded games with agents and report figures")
    sim.add_argument("--variant", help="the variant (default: the config's layers)")
    sim.add_argument("--players", type=int, default=4, choices=range(2, 7), metavar="N", help="2 to 6 (default 4)")
    sim.add_argument("--games", type=int, default=100, metavar="G", help="how many games (default 100)")
    sim.add_argument("--seed", type=int, metavar="S", help="the seed (printed; default: from the clock)")
    sim.add_argument("--agents", default="random", metavar="A,B,...",
                     help="agents per seat, repeated around the table (default: random)")
    sim.add_argument("--check", action="store_true", help="check the invariants after every move")
    sim.add_argument("--json", action="store_true", help="print one JSON object")
    sim.add_argument("--progress", action="store_true", help="show progress even when not on a terminal")
    _common(sim)
    sim.set_defaults(run=cmd_simulate)
    return parser


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
    except Exception as error:  # an internal bug: say so briefly, no traceback unless asked
        if os.environ.get("BAOBEI_DEBUG"):
            raise
        print(f"internal error: {type(error).__name__}: {error} (set BAOBEI_DEBUG=1 for details)", file=sys.stderr)
        return 3


if __name__ == "__main__":
    sys.exit(main())
