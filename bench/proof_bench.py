"""Benchmark: the cold invariant proofs (checker/proofs.py), per variant and table size.

    python bench/proof_bench.py [--variants fr,de,optional-powers] [--players 2,3,4,5,6] [--jobs N]
                                [--config DIR] [--out FILE] [--profile]

Each proof runs in a process of its own with an empty cache folder (nothing warm: no facts found
before, no answers kept). For each: wall seconds, CPU seconds of that process, the CPU seconds spent
in Z3's `check` (the rest is Python building terms, and Z3 building them), Z3's work, the checks
(the proof's queries and the pruning queries of the symbolic execution) and the proof's queries,
then the invariants proved and the failures. `--out FILE` writes every result (proved, failures with their moves and witnesses) as JSON, to compare two
versions of the checker (the same answers are expected). `--profile` prints the top of a cProfile
of each proof. The machine may be shared: CPU seconds depend less on other processes than wall
seconds, and the load is printed; Z3's work (its `rlimit count`, in millions) does not depend on
them at all, so two versions of the checker can be compared on a busy machine by it.
"""
from __future__ import annotations

import argparse
import cProfile
import io
import json
import multiprocessing
import os
import pstats
import sys
import tempfile
import time
from multiprocessing.connection import wait
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def one_proof(config_dir: str, variant: str, players: int, profile: bool) -> dict:
    """One cold proof in this (fresh) process."""
    os.environ["BAOBEI_CACHE"] = tempfile.mkdtemp(prefix="proof-bench-")
    import z3
    from baobei.checker.check import DEFAULT_TIMEOUT_MS
    from baobei.checker.proofs import prove_table
    from baobei.checker.symbolic import Bounds
    from baobei.dsl.loader import load_config, load_edition_for, load_spec
    config = load_config(cwd=Path(config_dir))
    spec = load_spec(config, variant)
    edition = load_edition_for(config, spec)
    solving = {"seconds": 0.0, "checks": 0}
    check = z3.Solver.check

    def timed_check(self, *assumptions):
        started = time.process_time()        # Z3's CPU time: only Z3 runs during a check
        try:
            return check(self, *assumptions)
        finally:
            solving["seconds"] += time.process_time() - started
            solving["checks"] += 1
    z3.Solver.check = timed_check
    profiler = cProfile.Profile() if profile else None
    work = z3_work()
    cpu, wall = time.process_time(), time.perf_counter()
    if profiler:
        profiler.enable()
    proof = prove_table(spec, edition, Bounds(), players, DEFAULT_TIMEOUT_MS)
    if profiler:
        profiler.disable()
    result = {"variant": variant, "players": players, "wall": time.perf_counter() - wall,
              "cpu": time.process_time() - cpu, "z3": solving["seconds"], "checks": solving["checks"],
              "work": z3_work() - work,
              "queries": proof.queries, "proved": proof.proved,
              "failures": [vars(f) for f in proof.failures]}
    if profiler:
        text = io.StringIO()
        pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(25)
        result["profile"] = text.getvalue()
    return result


def z3_work() -> int:
    """Z3's resource counter so far in this process (`rlimit count`, the same for every solver of
    the context): the work of the checks, counted the same on an idle or a busy machine."""
    import z3
    solver = z3.Solver()
    solver.check()
    return solver.statistics().get_key_value("rlimit count")


def _worker(arguments, queue):
    try:
        queue.put(one_proof(*arguments))
    except BaseException:
        import traceback
        queue.put({"error": traceback.format_exc(), "variant": arguments[1], "players": arguments[2]})
        raise


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", default="fr,de,optional-powers")
    parser.add_argument("--players", default="2,3,4,5,6")
    parser.add_argument("--jobs", type=int, default=1, help="proofs side by side (each in its own process)")
    parser.add_argument("--config", default=str(ROOT), help="the folder whose baobei.yaml names the variants")
    parser.add_argument("--out", help="write every result as JSON")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args(argv)
    jobs = [(args.config, v, int(p), args.profile) for v in args.variants.split(",") for p in args.players.split(",")]
    jobs.sort(key=lambda job: -job[2])           # the largest tables first: no core idles at the end
    context = multiprocessing.get_context("spawn")   # a fresh interpreter each: nothing warm
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; {len(jobs)} proofs, "
          f"{args.jobs} at a time", flush=True)
    results, running, waiting = [], [], list(jobs)
    started = time.perf_counter()
    while waiting or running:
        while waiting and len(running) < args.jobs:
            queue = context.Queue()
            process = context.Process(target=_worker, args=(waiting.pop(0), queue))
            process.start()
            running.append((process, queue))
        ended = wait([process.sentinel for process, _ in running])      # whichever ends first
        process, queue = next(item for item in running if item[0].sentinel in ended)
        running.remove((process, queue))
        try:
            result = queue.get(timeout=10)
        except Exception:  # noqa: BLE001 - a worker that died without a word
            result = {"error": f"exit code {process.exitcode}", "variant": "?", "players": "?"}
        process.join()
        if "error" in result:
            print(f"{result['variant']} {result['players']} players failed:\n{result['error']}", flush=True)
            continue
        results.append(result)
        print(f"{result['variant']:>16} {result['players']} players: {result['wall']:6.1f} s wall "
              f"{result['cpu']:6.1f} s CPU ({result['z3']:5.1f} s of it in Z3 check, {result['work'] / 1e6:.1f}M of Z3 "
              f"work, {result['checks']} checks, "
              f"{result['queries']} proof queries), {len(result['proved'])} proved, "
              f"{len(result['failures'])} failures", flush=True)
        if args.profile:
            print(result["profile"])
    total_cpu = sum(r["cpu"] for r in results)
    total_z3 = sum(r["z3"] for r in results)
    print(f"total: {time.perf_counter() - started:.1f} s wall, {total_cpu:.1f} s CPU in the proofs "
          f"({total_z3:.1f} s in Z3 check); load average now {os.getloadavg()[0]:.1f}")
    for variant in args.variants.split(","):
        mine = [r for r in results if r["variant"] == variant]
        print(f"  {variant}: {sum(r['cpu'] for r in mine):.1f} s CPU")
    if args.out:
        results.sort(key=lambda r: (r["variant"], r["players"]))
        Path(args.out).write_text(json.dumps([{k: v for k, v in r.items() if k != "profile"} for r in results],
                                             indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
