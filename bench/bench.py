"""Benchmark: random play per edition at 2, 4 and 6 players, spec loading, and `baobei --help`.

    python bench/bench.py [--games N] [--seed S] [--repeat R] [--variants fr,de] [--players 2,4,6]
                          [--profile FILE]

For each edition and number of players: games/s, turns/s and moves/s of `simulate` with random
agents (the fastest of R runs), turns per round, and the time of each phase (making rounds
ready: shuffle, deal, setup; playing them). Beside them, the hand-written reference engine's
figures the targets are stated against. Then loading the rules: cold (an empty cache folder:
parse, resolve, generate, compile) and cached, each in a fresh process, and `baobei --help`.
Prints figures; asserts nothing. `--profile FILE` runs each line once more under cProfile and
writes the profile (read it with `python -m pstats FILE`).

The machine may be shared: wall-clock figures are the best of R runs; turns per CPU second
(this process's CPU time) are printed too, as they depend less on other processes.
"""
from __future__ import annotations

import argparse
import cProfile
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The hand-written engine of the same rules, random play matched to the same turns per round and
# plucks per turn (the issue "A compiled engine at hand-written speed"): French edition.
REFERENCE = "hand-written engine, fr: 25,000-33,000 turns/s at ~21 turns/round"

LOAD = """
import time, sys
from pathlib import Path
from baobei.dsl.loader import load_config
from baobei.interpreter.rules import load_rules
import baobei.interpreter.engine, baobei.interpreter.game
config = load_config(cwd=Path(sys.argv[1]))
started = time.perf_counter()
load_rules(config, sys.argv[2])
print(time.perf_counter() - started)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3, help="runs per line; the fastest is printed")
    parser.add_argument("--variants", default="fr,de")
    parser.add_argument("--players", default="2,4,6")
    parser.add_argument("--profile", metavar="FILE", help="write a cProfile profile of one run of each line")
    args = parser.parse_args()

    from baobei.dsl.loader import load_config
    from baobei.interpreter.rules import load_rules
    from baobei.interpreter.simulate import simulate

    config = load_config(cwd=ROOT)
    print(f"seed {args.seed}, {args.games} games per line, random agents, best of {args.repeat} runs")
    print(f"reference: {REFERENCE}")
    print(f"{'variant':8}{'players':>8}{'games/s':>9}{'turns/s':>9}{'cpu t/s':>9}{'moves/s':>9}{'turns/rd':>9}"
          f"{'deal s':>8}{'play s':>8}")
    profile = cProfile.Profile() if args.profile else None
    for variant in args.variants.split(","):
        rules = load_rules(config, variant)
        for players in map(int, args.players.split(",")):
            best = None
            for _ in range(args.repeat):
                cpu = time.process_time()
                stats = simulate(rules, players, args.games, args.seed, ["random"])
                cpu = time.process_time() - cpu
                if best is None or stats.seconds < best[0].seconds:
                    best = (stats, cpu)
            stats, cpu = best
            print(f"{variant:8}{players:>8}{stats.games_per_second:>9.1f}{stats.turns_per_second:>9.0f}"
                  f"{stats.turns / cpu:>9.0f}{stats.moves_per_second:>9.0f}{stats.turns_per_round:>9.1f}"
                  f"{stats.deal_seconds:>8.2f}{stats.seconds - stats.deal_seconds:>8.2f}")
            if profile is not None:
                profile.enable()
                simulate(rules, players, args.games, args.seed, ["random"])
                profile.disable()
    if profile is not None:
        profile.dump_stats(args.profile)
        print(f"profile written to {args.profile}")
    loading(args.variants.split(","), args.repeat)
    print(f"baobei --help: {best_of(args.repeat, [sys.executable, '-m', 'baobei.cli', '--help']) * 1000:.0f} ms")


def loading(variants: list[str], repeat: int) -> None:
    """Loading a variant's rules in a fresh process: cold (nothing in the cache folder yet), then
    cached; the process's imports are not counted."""
    for variant in variants:
        with tempfile.TemporaryDirectory() as folder:
            env = {**os.environ, "BAOBEI_CACHE": folder}
            command = [sys.executable, "-c", LOAD, str(ROOT), variant]
            cold = float(subprocess.run(command, env=env, capture_output=True, text=True, check=True).stdout)
            cached = min(float(subprocess.run(command, env=env, capture_output=True, text=True, check=True).stdout)
                         for _ in range(repeat))
        print(f"loading the rules of {variant}: cold {cold * 1000:.0f} ms (parse, resolve, generate, compile), "
              f"cached {cached * 1000:.0f} ms")


def best_of(repeat: int, command: list[str]) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run(command, capture_output=True, check=True)
        times.append(time.perf_counter() - started)
    return min(times)


if __name__ == "__main__":
    main()
