"""Benchmark: `baobei check`, `diff fr de`, `diff fr de --emit` and `report`, cold and warm.

    python bench/check_bench.py [--repeat R] [--only check,diff,emit,report] [--keep DIR]

Each command runs in a fresh process of the installed baobei (this checkout's code when it is
installed editable) on this checkout's project, in a cache folder of its own inside the user's
(where the files it makes take the time they take in the user's: cache.scratch_folder). It
starts with what the user's cache folder holds but the answers: the invariant proofs (made there
when they are missing: minutes, not measured, and then kept in the user's folder too, as `baobei
check` would), the resolved specs and generated modules. "Cold" is the first run there (every
question solved, every play pass played, every witness searched), "warm" the next ones (from the
answers kept by the first). `report` runs with its defaults and `--seed 1`. After `check`'s runs,
`check` of a copy of the spec after an author's edit (a comment, a claim: EDITS), in its warm folder.
For each: wall-clock seconds (the fastest of R warm runs) and CPU seconds of the process and
its workers, which depend less on other processes on a shared machine. The checkout's Python
bytecode is written first and read by every run of an editable install, as an installed package
has it (pip writes it at install). Prints figures; asserts nothing.
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# -P: the installed package (an editable install's is this checkout), not the checkout's folder
# `baobei/` that the current folder would put first on the path (it holds the CLI alone)
BAOBEI = [sys.executable, "-P", "-m", "baobei.cli"]


def commands(out: Path) -> dict[str, list[str]]:
    return {"check": ["check"], "diff": ["diff", "fr", "de"],
            "emit": ["diff", "fr", "de", "--emit", str(out / "witnesses")],
            "report": ["report", "--seed", "1", "--out", str(out / "report")]}


# an author's edits, each in a copy of the spec: (the file, the text, what it becomes)
# a line of comment added at the top of a file moves every declaration and statement below it
EDITS = {"a comment": ("core/bao.bao", "# Calling BAO, the last turns and the BAO shield.",
                       "# Calling BAO, the last turns and the BAO shield.\n# (a line an author added)"),
         "a claim": ("core/scoring.bao", "holds bao != none and points(bao) < 0 implies bao_succeeds",
                     "holds bao != none and points(bao) < 0 implies (bao_succeeds and true)")}


def timed(arguments: list[str], folder: Path) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds of the command and its workers, exit code)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(BAOBEI + arguments, cwd=ROOT, env={**READING_BYTECODE, "BAOBEI_CACHE": str(folder)},
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode not in (0, 1):
        print(f"  {' '.join(arguments)}: exit {done.returncode}\n{done.stderr}", file=sys.stderr)
    return wall, cpu, done.returncode


PACKAGES = ("baobei", "checker", "dsl", "interpreter")
# the environment of every timed run: a PYTHONDONTWRITEBYTECODE of the shell would have each run
# compile every module (0.15-0.25 s), which an installed package never does
READING_BYTECODE = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
ANSWERS = ("answer-", "play-", "search-")     # what the answers cache keeps (checker/answers.py, play.py, scenarios.py)


def proofs_folder(user: Path, folder: Path) -> None:
    """A cache folder with what the user's holds but the answers: the invariant proofs, the
    resolved specs and generated modules (the proofs and modules are made there when they are
    missing: a user's cache made before the generator changed has none of the new ones, and a
    "cold" run would otherwise also generate and compile one in every worker)."""
    folder.mkdir(parents=True, exist_ok=True)
    if user.is_dir():
        for path in user.iterdir():
            if path.is_file() and not path.name.startswith(ANSWERS + (".tmp-",)):
                shutil.copy(path, folder / path.name)
    previous = os.environ.get("BAOBEI_CACHE")
    os.environ["BAOBEI_CACHE"] = str(folder)
    try:
        from baobei.checker.proofs import prove_all
        from baobei.checker.symbolic import Bounds
        from baobei.cli import _variants
        from baobei.dsl.loader import load_config, load_edition_for, load_spec
        from baobei.interpreter.rules import load_rules
        config = load_config(cwd=ROOT)
        variants = _variants(config, "all")
        specs = [load_spec(config, variant) for variant in variants]
        prove_all([(spec, load_edition_for(config, spec)) for spec in specs], Bounds(), 20_000)
        for variant in variants:
            load_rules(config, variant)
    finally:
        if previous is None:
            del os.environ["BAOBEI_CACHE"]
        else:
            os.environ["BAOBEI_CACHE"] = previous
    for path in folder.iterdir():
        if path.name.startswith(ANSWERS):
            shutil.rmtree(path) if path.is_dir() else path.unlink()     # (check's: a folder per question)
        elif path.is_file() and not (user / path.name).exists():
            user.mkdir(parents=True, exist_ok=True)
            shutil.copy(path, user / path.name)     # what `baobei check` would have kept there


def file_creation_ms(folder: Path, files: int = 50) -> float:
    """CPU milliseconds to create a file in a new subfolder here, as a check keeps an answer. On
    ext4 without a journal (this machine's), the inodes freed in the last minute are skipped one
    by one when a file is created: for a minute after many files were deleted nearby (by an
    earlier run of this benchmark too), this takes 0.3-1.4 ms instead of 0.02-0.1 ms, and a cold
    `check`, which keeps some 400 files, 0.1-0.3 s more. Printed, so that such a run is seen."""
    probe = folder / "probe"
    started = time.thread_time()
    for index in range(files):
        (probe / str(index)).mkdir(parents=True)
        (probe / str(index) / "answer.json").write_bytes(b"{}")
    # (left there until the folder goes: deleting them would slow the runs that follow)
    return (time.thread_time() - started) / (2 * files) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="warm runs per command; the fastest is printed")
    parser.add_argument("--only", default="check,diff,emit,report")
    parser.add_argument("--keep", metavar="DIR", help="keep the cache folders here (default: a temporary folder)")
    args = parser.parse_args()
    from baobei.dsl import cache
    # inside the user's cache folder, where a user's answers are written
    base = Path(args.keep) if args.keep else cache.scratch_folder("baobei-check-bench-", inside=True)
    proofs = base / "proofs"
    proofs_folder(cache.folder(), proofs)
    # the bytecode of this checkout's modules, as pip writes it at install (no run pays for it)
    subprocess.run([sys.executable, "-m", "compileall", "-q", *(str(ROOT / d) for d in PACKAGES)], check=True)
    print(f"creating a file in the runs' cache folders: {file_creation_ms(base):.2f} ms")
    print(f"{'command':28} {'cold wall':>10} {'cold cpu':>9} {'warm wall':>10} {'warm cpu':>9}")
    for name in args.only.split(","):
        folder = base / name
        shutil.rmtree(folder, ignore_errors=True)
        shutil.copytree(proofs, folder)
        arguments = commands(base / f"{name}-out")[name]
        cold = timed(arguments, folder)
        warm = min((timed(arguments, folder) for _ in range(args.repeat)), key=lambda run: run[0])
        print(f"{'baobei ' + ' '.join(a for a in arguments if not a.startswith(str(base))):28} "
              f"{cold[0]:9.1f}s {cold[1]:8.1f}s {warm[0]:9.2f}s {warm[1]:8.2f}s", flush=True)
        if name == "check":
            after_edits(base, folder)
    if not args.keep:
        shutil.rmtree(base, ignore_errors=True)


def after_edits(base: Path, folder: Path) -> None:
    """`check` of a copy of the spec after each of EDITS, in the warm folder: what an author waits
    for after an edit (a line of comment re-solves and replays nothing; a claim is solved again in each
    variant it is in). The copy is checked once unedited first (its files are parsed anew)."""
    copy = base / "spec-copy"
    shutil.copytree(ROOT / "spec", copy, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    timed(["check", "--spec", str(copy)], folder)
    for what, (path, old, new) in EDITS.items():
        text = (copy / path).read_text(encoding="utf-8")
        assert text.count(old) == 1, f"{path} no longer holds {old!r}: update EDITS"
        (copy / path).write_text(text.replace(old, new), encoding="utf-8")
        wall, cpu, _ = timed(["check", "--spec", str(copy)], folder)
        print(f"  {'after ' + what + ' edited':26} {wall:9.2f}s {cpu:8.2f}s", flush=True)


if __name__ == "__main__":
    main()
