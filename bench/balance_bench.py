"""Benchmark: games/s of a balance study on 1 worker, on 2 worker processes, and on a local Ray
cluster of this machine's cores.

    python bench/balance_bench.py [--games N] [--players P] [--agents A] [--variants fr,de] [--seed S]

--games is per variant (default 10000: a study of 20,000 games). Prints figures; asserts nothing.
Loading the rules is done once before timing; starting Ray is timed apart. On a machine other
work shares, the figures move from run to run: compare runs made back to back.
"""
from __future__ import annotations

import argparse
import json
import time

from baobei.balance import Side, Study, as_json, run_study
from baobei.dsl.loader import load_config
from baobei.interpreter.rules import load_rules
from baobei.interpreter.workers import cores, ray_init_options


def timed(study: Study, **where) -> tuple[float, dict]:
    started = time.perf_counter()
    figures = as_json(run_study(study, **where))
    seconds = time.perf_counter() - started
    figures.pop("seconds")
    return seconds, figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000, help="games per variant (default 10000)")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--agents", default="random")
    parser.add_argument("--variants", default="fr,de")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-ray", action="store_true", help="skip the Ray run")
    args = parser.parse_args()
    config = load_config()
    a, b = (Side.of(v, load_rules(config, v)) for v in args.variants.split(","))
    study = Study(a, b, args.games, args.players, tuple(args.agents.split(",")), args.seed)
    total = 2 * args.games
    print(f"balance study {a.label} vs {b.label}: {total} games ({args.games} per variant), {args.players} players, "
          f"agents {args.agents}, seed {args.seed}, {study.batch} games per batch, {cores()} cores")
    runs = {}
    for label, where in (("1 worker", dict(workers=1)), ("2 workers", dict(workers=2))):
        runs[label] = timed(study, **where)
    if not args.no_ray:
        import ray
        started = time.perf_counter()
        ray.init(num_cpus=cores(), **ray_init_options())
        print(f"Ray started in {time.perf_counter() - started:.1f} s ({cores()} CPUs)")
        runs["Ray"] = timed(study, ray="auto")
        ray.shutdown()
    print(f"{'run':12}{'seconds':>10}{'games/s':>10}{'vs 1 worker':>13}")
    single = runs["1 worker"][0]
    for label, (seconds, _) in runs.items():
        print(f"{label:12}{seconds:>10.1f}{total / seconds:>10.1f}{single / seconds:>12.2f}x")
    if "Ray" in runs:
        print(f"Ray / 2-worker pool time: {runs['Ray'][0] / runs['2 workers'][0]:.2f}")
    same = len({json.dumps(figures, sort_keys=True) for _, figures in runs.values()}) == 1
    print(f"identical figures on every run: {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()
