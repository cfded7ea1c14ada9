"""Benchmark: games/s, turns/s and moves/s of random play, per edition, at 2 and 4 players.

    python bench/bench.py [--games N] [--seed S]

Prints figures; asserts nothing. Loading and compiling the spec is timed apart.
"""
from __future__ import annotations

import argparse
import time

from baobei.dsl.loader import load_config
from baobei.interpreter.rules import load_rules
from baobei.interpreter.simulate import simulate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--variants", default="fr,de")
    parser.add_argument("--players", default="2,4")
    parser.add_argument("--repeat", type=int, default=3, help="runs per line; the fastest is printed")
    args = parser.parse_args()
    config = load_config()
    print(f"seed {args.seed}, {args.games} games per line, random agents, best of {args.repeat} runs")
    print(f"{'variant':8}{'players':>8}{'load s':>8}{'games/s':>10}{'turns/s':>10}{'moves/s':>10}")
    for variant in args.variants.split(","):
        started = time.perf_counter()
        rules = load_rules(config, variant)
        loaded = time.perf_counter() - started
        for players in map(int, args.players.split(",")):
            stats = min((simulate(rules, players, args.games, args.seed, ["random"]) for _ in range(args.repeat)),
                        key=lambda s: s.seconds)
            print(f"{variant:8}{players:>8}{loaded:>8.2f}{stats.games_per_second:>10.1f}"
                  f"{stats.turns_per_second:>10.0f}{stats.moves_per_second:>10.0f}")
            loaded = 0.0


if __name__ == "__main__":
    main()
