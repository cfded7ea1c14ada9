"""Benchmark: random play per edition at 2, 4 and 6 players beside a hand-written engine, spec loading, `baobei --help`.

    python bench/bench.py [--games N] [--seed S] [--repeat R] [--variants fr,de] [--players 2,4,6]
                          [--profile FILE]

For each edition and number of players, `simulate` with random agents and the hand-written
reference engine (bench/reference_engine.py: the same rules written directly in Python, with a
random agent matched to baobei's), run in turn on the same seeds, R times each: turns/s and
moves/s (the best run), the time of each phase of baobei's games in wall-clock seconds (making
rounds ready: shuffle, deal, setup; playing them), the turns per round and plucks per turn of both (so a reader sees
that they play alike), and the ratio of baobei's turns/s to the reference's (the median of the
R runs' ratios, each of a run of baobei and the run of the reference right after it). Then loading the
rules: cold (an empty cache folder: parse, resolve, generate, compile) and cached, each in a
fresh process, and `baobei --help`. Prints figures; asserts nothing. `--profile FILE` runs each
line of baobei once more under cProfile and writes the profile (`python -m pstats FILE`).

The machine may be shared: turns/s and moves/s are per second of this process's CPU time, which
depends less on other processes than the wall clock (printed too, as `wall t/s`); the ratio is
of CPU figures, paired run by run, so that a change of load between runs counts less. For figures that do not move with the load, count instructions instead:
`valgrind --tool=callgrind python bench/reference_engine.py ...` against a simulate of the same
games.
"""
from __future__ import annotations

import argparse
import cProfile
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
import reference_engine  # noqa: E402  (the yardstick, beside this file)
from baobei.dsl import cache  # noqa: E402

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


class Run:
    """One engine's best run of one line: CPU and wall-clock seconds, and what was played."""

    def __init__(self):
        self.cpu = self.wall = float("inf")
        self.turns = self.moves = self.rounds = self.plucks = 0
        self.phases = (0.0, 0.0)  # wall-clock seconds making rounds ready and playing them (baobei's)
        self.last = 0.0           # turns per CPU second of the last run

    def keep(self, cpu: float, wall: float, turns: int, moves: int, rounds: int, phases=(0.0, 0.0)) -> None:
        self.last = turns / cpu
        if cpu < self.cpu:
            self.cpu, self.turns, self.moves, self.rounds, self.phases = cpu, turns, moves, rounds, phases
        self.wall = min(self.wall, wall)

    @property
    def turns_per_second(self) -> float:
        return self.turns / self.cpu

    def columns(self) -> str:
        return (f"{self.turns_per_second:>9.0f}{self.turns / self.wall:>9.0f}{self.moves / self.cpu:>9.0f}"
                f"{self.turns / self.rounds:>9.1f}{self.plucks / self.turns:>9.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3, help="runs per line and engine; the fastest is printed")
    parser.add_argument("--variants", default="fr,de")
    parser.add_argument("--players", default="2,4,6")
    parser.add_argument("--profile", metavar="FILE", help="write a cProfile profile of one run of each line")
    args = parser.parse_args()

    from baobei.dsl.loader import load_config
    from baobei.interpreter.rules import load_rules
    from baobei.interpreter.simulate import simulate

    config = load_config(cwd=ROOT)
    print(f"seed {args.seed}, {args.games} games per line, random agents, best of {args.repeat} runs of each engine; "
          f"turns/s and moves/s per CPU second, wall t/s per second of the wall clock")
    print(f"{'':16}{'baobei':-^61}  {'reference (bench/reference_engine.py)':-^45}")
    columns = f"{'turns/s':>9}{'wall t/s':>9}{'moves/s':>9}{'turns/rd':>9}{'plucks/t':>9}"
    print(f"{'variant':8}{'players':>8}{columns}{'deal s':>8}{'play s':>8}  {columns}{'ratio':>8}")
    profile = cProfile.Profile() if args.profile else None
    for variant in args.variants.split(","):
        rules = load_rules(config, variant)
        for players in map(int, args.players.split(",")):
            ours, theirs = Run(), Run()
            ratios = []
            for _ in range(args.repeat):     # in turn, so that both see the same load
                cpu, wall = time.process_time(), time.perf_counter()
                stats = simulate(rules, players, args.games, args.seed, ["random"])
                ours.keep(time.process_time() - cpu, time.perf_counter() - wall, stats.turns, stats.moves,
                          stats.rounds, (stats.deal_seconds, stats.seconds - stats.deal_seconds))
                cpu, wall = time.process_time(), time.perf_counter()
                counts = reference_engine.simulate(variant, players, args.games, args.seed)
                theirs.keep(time.process_time() - cpu, time.perf_counter() - wall, counts.turns, counts.moves,
                            counts.rounds)
                ratios.append(ours.last / theirs.last)
            ours.plucks = plucks(rules, players, args.games, args.seed)
            theirs.plucks = counts.plucks
            print(f"{variant:8}{players:>8}{ours.columns()}{ours.phases[0]:>8.2f}{ours.phases[1]:>8.2f}  "
                  f"{theirs.columns()}{statistics.median(ratios):>7.2f}x")
            if profile is not None:
                profile.enable()
                simulate(rules, players, args.games, args.seed, ["random"])
                profile.disable()
    if profile is not None:
        profile.dump_stats(args.profile)
        print(f"profile written to {args.profile}")
    loading(args.variants.split(","), args.repeat)
    # (-P: the installed package, not the checkout's folder `baobei/` that the current folder would put first)
    print(f"baobei --help: {best_of(args.repeat, [sys.executable, '-P', '-m', 'baobei.cli', '--help']) * 1000:.0f} ms")


def plucks(rules, players: int, games: int, seed: int) -> int:
    """The plucks baobei's random agents try in these games (played again, untimed)."""
    from baobei.interpreter.game import play_game
    from baobei.interpreter.simulate import game_seed
    found = [0]

    def on_round(rnd, record) -> None:
        found[0] += sum(move.kind == "pluck" for move in rnd.history)
    for index in range(games):
        play_game(rules, players, game_seed(seed, index), ["random"], on_round=on_round, copyable=False)
    return found[0]


def loading(variants: list[str], repeat: int) -> None:
    """Loading a variant's rules in a fresh process: cold (nothing in the cache folder yet), then
    cached; the process's imports are not counted."""
    for variant in variants:
        folder = cache.scratch_folder("baobei-bench-")
        try:
            env = {**os.environ, "BAOBEI_CACHE": str(folder)}
            command = [sys.executable, "-P", "-c", LOAD, str(ROOT), variant]
            cold = float(subprocess.run(command, env=env, capture_output=True, text=True, check=True).stdout)
            cached = min(float(subprocess.run(command, env=env, capture_output=True, text=True, check=True).stdout)
                         for _ in range(repeat))
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        print(f"loading the rules of {variant}: cold {cold * 1000:.0f} ms (parse, resolve, generate, compile), "
              f"cached {cached * 1000:.0f} ms")


def best_of(repeat: int, command: list[str]) -> float:
    """The fastest of `repeat` runs, with Python's bytecode kept as an installed package has it
    (pip writes it at install; a PYTHONDONTWRITEBYTECODE of the shell would compile every run)."""
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    times = []
    for _ in range(repeat + 1):     # (the first run writes the bytecode)
        started = time.perf_counter()
        subprocess.run(command, capture_output=True, check=True, env=env)
        times.append(time.perf_counter() - started)
    return min(times)


if __name__ == "__main__":
    main()
