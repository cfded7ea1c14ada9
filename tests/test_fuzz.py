"""Damaged input never crashes baobei: a damaged spec, scenario or edition file either works
or gives a clear error (file, line, column, an error code), never a traceback, never a hang.

Hypothesis damages real files: lines dropped, duplicated or swapped, characters cut, junk
inserted. BAOBEI_FUZZ=10 (a multiplier) runs ten times as many cases.
"""
from __future__ import annotations

import os
import shutil
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baobei.dsl.edition import load_edition
from baobei.dsl.errors import BaobeiError
from baobei.dsl.loader import load_config, load_spec
from baobei.interpreter.rules import load_rules
from baobei.interpreter.scenario import load_scenario, run_scenario

from conftest import ROOT, SPEC

SCALE = int(os.environ.get("BAOBEI_FUZZ", "1"))
JUNK = list("(){}[]:,.=<>!-+*#\"'\\\n\t _") + ["rule", "allow", "refuse", "when", "end", "if", "then", "ask",
                                                  "card", "none", "and", "not", "count", "all", "0", "-1", "é"]
SCENARIO = ROOT / "tests" / "scenarios" / "pluck" / "pluck-offensive-on-discard-give.yaml"

damage = st.one_of(
    st.tuples(st.just("drop"), st.integers(0, 10**6)),
    st.tuples(st.just("duplicate"), st.integers(0, 10**6)),
    st.tuples(st.just("swap"), st.integers(0, 10**6), st.integers(0, 10**6)),
    st.tuples(st.just("cut"), st.integers(0, 10**7), st.integers(1, 12)),
    st.tuples(st.just("junk"), st.integers(0, 10**7), st.lists(st.sampled_from(JUNK), min_size=1, max_size=4)),
)


def damaged(text: str, damages) -> str:
    for operation, *args in damages:
        lines = text.split("\n")
        if operation == "drop" and lines:
            del lines[args[0] % len(lines)]
        elif operation == "duplicate" and lines:
            i = args[0] % len(lines)
            lines.insert(i, lines[i])
        elif operation == "swap" and lines:
            i, j = args[0] % len(lines), args[1] % len(lines)
            lines[i], lines[j] = lines[j], lines[i]
        if operation in ("drop", "duplicate", "swap"):
            text = "\n".join(lines)
        elif operation == "cut" and text:
            start = args[0] % len(text)
            text = text[:start] + text[start + args[1]:]
        elif operation == "junk":
            at = args[0] % (len(text) + 1)
            text = text[:at] + " ".join(args[1]) + text[at:]
    return text


def assert_clear(error: BaobeiError, path: Path) -> None:
    assert error.code.startswith("E") and len(error.code) == 4
    assert error.message
    rendered = error.render()
    assert "Traceback" not in rendered
    if error.loc is not None and error.loc.line:
        assert error.loc.line >= 1 and error.loc.column >= 0


FUZZ = settings(max_examples=700 * SCALE, deadline=timedelta(seconds=10), derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def spec_dir(tmp_path_factory) -> Path:
    target = tmp_path_factory.mktemp("fuzz") / "spec"
    shutil.copytree(SPEC, target, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    return target


SPEC_FILES = sorted(p.relative_to(SPEC) for p in SPEC.rglob("*.bao"))


@FUZZ
@given(file=st.sampled_from(SPEC_FILES), damages=st.lists(damage, min_size=1, max_size=3),
       variant=st.sampled_from(["fr", "de"]))
def test_a_damaged_spec_loads_or_says_where_it_is_broken(spec_dir, file, damages, variant):
    path = spec_dir / file
    original = (SPEC / file).read_text(encoding="utf-8")
    path.write_text(damaged(original, damages), encoding="utf-8")
    try:
        load_spec(load_config(spec=str(spec_dir)), variant)
    except BaobeiError as error:
        assert_clear(error, path)
        if error.code in ("E100", "E200", "E210", "E220", "E230"):
            assert error.loc is not None and error.loc.file
    finally:
        path.write_text(original, encoding="utf-8")


@settings(max_examples=60 * SCALE, deadline=timedelta(seconds=20), derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(file=st.sampled_from(SPEC_FILES), damages=st.lists(damage, min_size=1, max_size=2))
def test_a_damaged_spec_that_loads_also_runs_or_fails_clearly(spec_dir, file, damages):
    path = spec_dir / file
    original = (SPEC / file).read_text(encoding="utf-8")
    path.write_text(damaged(original, damages), encoding="utf-8")
    try:
        rules = load_rules(load_config(spec=str(spec_dir)), "de")
        result = run_scenario(load_scenario(SCENARIO), rules)
        assert result.passed or result.message
    except BaobeiError as error:
        assert_clear(error, path)
    finally:
        path.write_text(original, encoding="utf-8")


def damaged_copy(tmp_path_factory, source: Path, damages) -> Path:
    path = tmp_path_factory.mktemp("damaged") / source.name
    path.write_text(damaged(source.read_text(encoding="utf-8"), damages), encoding="utf-8")
    return path


def assert_located_in(error: BaobeiError, path: Path) -> None:
    assert_clear(error, path)
    assert error.loc is not None and error.loc.file == str(path)


@FUZZ
@given(damages=st.lists(damage, min_size=1, max_size=3))
def test_a_damaged_scenario_runs_or_says_where_it_is_broken(tmp_path_factory, damages):
    path = damaged_copy(tmp_path_factory, SCENARIO, damages)
    rules = load_rules(load_config(cwd=ROOT), "fr")
    try:
        result = run_scenario(load_scenario(path), rules)
        assert result.passed or result.message
    except BaobeiError as error:
        assert_located_in(error, path)


EDITION = SPEC / "editions" / "standard.yaml"


@FUZZ
@given(damages=st.lists(damage, min_size=1, max_size=3))
def test_a_damaged_edition_loads_or_says_where_it_is_broken(tmp_path_factory, damages):
    path = damaged_copy(tmp_path_factory, EDITION, damages)
    spec = load_spec(load_config(cwd=ROOT), "fr")
    try:
        edition = load_edition(path, spec)
        assert edition.size > 0
    except BaobeiError as error:
        assert_located_in(error, path)
