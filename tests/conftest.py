"""Shared helpers for the unit tests (scenario files are collected by the baobei pytest plugin)."""
from __future__ import annotations

import functools
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from baobei.dsl.loader import load_config, load_edition_for, load_spec

# The tests keep what they derive from the rules (dsl/cache.py) in a folder of their own, removed
# when the session ends.
os.environ["BAOBEI_CACHE"] = tempfile.mkdtemp(prefix="baobei-test-cache-")

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "spec"          # the rules of this checkout: what every command run here reads


def pytest_sessionfinish(session, exitstatus):
    shutil.rmtree(os.environ["BAOBEI_CACHE"], ignore_errors=True)


@pytest.fixture
def spec_copy(tmp_path) -> Path:
    """A copy of the checkout's spec folder, to edit."""
    copy = tmp_path / "spec"
    shutil.copytree(SPEC, copy, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    return copy


@pytest.fixture
def config():
    return load_config(cwd=ROOT)


@functools.cache
def book_proofs(variant: str, bounds) -> list:
    """The invariant proofs of this checkout's own rules within `bounds` (once a session)."""
    from baobei.checker.proofs import prove_all
    book = load_config(cwd=ROOT)
    spec = load_spec(book, variant)
    return prove_all([(spec, load_edition_for(book, spec))], bounds, 20_000)[0]


def checked_copy(spec_dir: Path, variant: str, bounds):
    """check() of a copy of the spec, edited or not, under the invariants the books' rules prove
    (book_proofs): for the tests of what the checks find in an edit. Whether an edit keeps the
    invariants is tests/test_invariant_proofs.py's subject; proving every edited copy again cost
    each such test minutes."""
    from baobei.checker.check import check
    config = load_config(spec=str(spec_dir))
    spec = load_spec(config, variant)
    return check(spec, load_edition_for(config, spec), variant, bounds, 20_000, proofs=book_proofs(variant, bounds))


def edit(path: Path, old: str, new: str) -> None:
    """Replace one exact passage of a file (fails loudly if it is not there exactly once)."""
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times in {path}"
    path.write_text(text.replace(old, new), encoding="utf-8")


@pytest.fixture(scope="session")
def ray_cluster():
    """One real local Ray cluster (2 CPUs) for the whole test run, shut down at its end, started
    as baobei starts one. Ray is installed wherever the tests run (pip install '.[test,cluster]'):
    no skipping."""
    import ray

    from baobei.interpreter.workers import ray_init_options
    ray.init(num_cpus=2, **ray_init_options())
    yield ray
    ray.shutdown()
