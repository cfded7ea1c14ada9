"""The checker's answers kept in the cache by what each question reads (checker/answers.py): a
second check answers from it, an edit re-solves only the questions that read what it changed,
the questions two editions share are solved once (under the same invariants, or where one's
answer implies the other's), and no answer is ever reused for a question that reads anything
else, nor kept when Z3 could not decide it."""
from __future__ import annotations

import json
import os
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from baobei.checker.answers import Answers, Cone, Question
from baobei.checker.check import Checker
from baobei.checker.diff import Differ
from baobei.checker.proofs import prove_all, proved_everywhere
from baobei.checker.scenarios import search_key
from baobei.checker.symbolic import Bounds
from baobei.cli import main
from baobei.dsl import cache
from baobei.dsl.loader import load_config, load_edition_for, load_spec
from baobei.interpreter.rules import load_rules
from baobei.variants import built_on

from conftest import checked_copy, edit

BOUNDS = Bounds(2, 4)
SESSION_CACHE = os.environ[cache.ENV]      # the tests' cache folder (conftest.py): the proofs are kept there


class Recording(Checker):
    """A checker that notes each question it asks: its shape, its cone, and whether the cache
    answered it."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.asked: list[tuple] = []
        self.undecided_questions: list[bool] = []

    def ask(self, shape, cone, compute, assume_all=False):
        cached, undecided = self.answers.cached, self.undecided
        found = super().ask(shape, cone, compute, assume_all)
        self.asked.append((shape, cone, self.answers.cached > cached))
        self.undecided_questions.append(self.undecided > undecided)
        return found


def _loaded(config, variant: str):
    spec = load_spec(config, variant)
    return spec, load_edition_for(config, spec)


def _proved(config, variant: str, bounds: Bounds = BOUNDS) -> list[str]:
    """The invariants a spec proves, kept in the tests' own cache folder (a test whose answers
    start from an empty folder does not prove them again)."""
    folder = os.environ.get(cache.ENV)
    os.environ[cache.ENV] = SESSION_CACHE
    try:
        spec, edition = _loaded(config, variant)
        return proved_everywhere(spec, prove_all([(spec, edition)], bounds, 20_000)[0])
    finally:
        os.environ[cache.ENV] = folder


def _checker(config, variant: str, proved: list[str], answers: Answers, bounds: Bounds = BOUNDS,
             timeout_ms: int = 20_000) -> Recording:
    spec, edition = _loaded(config, variant)
    return Recording(spec, edition, bounds, timeout_ms, variant, proved, answers)


def _verdicts(report) -> tuple:
    """What a check says, without how long it took or where its answers came from (nor its
    witnesses: another solver may find another table that shows the same)."""
    return (sorted(report.claims),
            [(f.kind, f.decision, f.message, [r.name for r in f.rules]) for f in report.findings],
            [(r.where, r.what, r.status) for r in report.effects])


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch) -> Path:
    """A cache folder of the test's own, empty, for the answers (the proofs stay in the tests' folder)."""
    folder = tmp_path / "answers"
    monkeypatch.setenv(cache.ENV, str(folder))
    return folder


def test_a_second_check_takes_every_answer_from_the_cache(config, capsys):
    args = ["check", "--variant", "fr", "--players", "2", "--slots", "4", "--games", "1", "--json"]
    assert main(args) == 0
    first = json.loads(capsys.readouterr().out)["variants"][0]
    assert main(args) == 0
    second = json.loads(capsys.readouterr().out)["variants"][0]
    assert second["answers"] == first["answers"] > 50
    assert second["cached"] == second["answers"] and second["queries"] == 0
    for key in ("claims", "findings", "invariants", "play"):
        assert second[key] == first[key]
    assert "seed 1" in second["play"]
    main(args[:-1])
    out = capsys.readouterr().out
    assert f"({second['answers']} of {second['answers']} answers from the cache)" in out
    # another seed plays other games: its pass is not the one kept for seed 1
    assert main(args + ["--seed", "2"]) == 0
    assert "seed 2" in json.loads(capsys.readouterr().out)["variants"][0]["play"]
    # --no-cache solves every question again, to the same verdicts (with Z3; not a query each: a
    # situation found for an earlier question may show a rule deciding, Checker.shown_before)
    assert main(args + ["--no-cache"]) == 0
    again = json.loads(capsys.readouterr().out)["variants"][0]
    assert again["cached"] == 0 and again["answers"] == first["answers"] and again["queries"] > again["answers"] / 2
    assert again["claims"] == first["claims"] and again["findings"] == first["findings"]


def test_an_edit_of_a_comment_plays_nothing_again_and_another_seed_only_the_play_pass(spec_copy, capsys,
                                                                                        monkeypatch):
    """A comment edited: every answer and the play pass still come from the cache (they are kept
    by what the declarations say), read by the command itself, with no worker. Another seed: the
    play pass is played again, the one job a worker gets."""
    from baobei import cli
    from baobei.checker import parallel
    args = ["check", "--spec", str(spec_copy), "--variant", "fr", "--players", "2", "--slots", "4", "--games", "1",
            "--seed", "7", "--json"]
    assert main(args) == 0
    first = json.loads(capsys.readouterr().out)["variants"][0]
    edit(spec_copy / "core" / "bao.bao", "# Calling BAO, the last turns and the BAO shield.",
         "# Calling BAO, the last turns and the BAO shield (edited).")
    jobs = []
    real = parallel.in_forked_workers

    def recorded(function, argument_lists, *rest, **options):
        if function is cli._variant_job:
            jobs.extend((arguments[0], arguments[2]) for arguments in argument_lists)
        return real(function, argument_lists, *rest, **options)
    monkeypatch.setattr(parallel, "in_forked_workers", recorded)
    assert main(args) == 0
    second = json.loads(capsys.readouterr().out)["variants"][0]
    assert second["cached"] == second["answers"] == first["answers"] and second["queries"] == 0
    assert jobs == []
    # (the copy's own folder name in the seed: a pass no other test's cache holds)
    assert main(args[:-2] + [str(8 + sum(map(ord, spec_copy.parent.name))), "--json"]) == 0
    third = json.loads(capsys.readouterr().out)["variants"][0]
    assert third["cached"] == third["answers"] and third["queries"] == 0
    assert jobs == [("play", "fr")]
    for key in ("claims", "findings", "play"):
        assert second[key] == first[key]
    assert third["play"] != first["play"]


def test_a_line_added_above_a_handler_keeps_every_answer_and_the_report_shows_the_new_place(spec_copy, fresh_cache):
    """The effects' answer names the statements of the handlers by their order, not by their place:
    a line added above a handler asks no question again, and a precondition that fails is reported
    at the place its statement has now."""
    handlers = spec_copy / "core" / "round.bao"     # on take, and the legality rule edited below
    edit(handlers, "discard_size > 0 and target.owner == actor and target.occupied",
         "discard_size > 0 and target.owner == actor")
    first = checked_copy(spec_copy, "fr", BOUNDS)
    [broken] = [result.where for result in first.effects if result.status == "violated"]
    handlers.write_text("# a line above every handler of the file\n" + handlers.read_text(encoding="utf-8"),
                        encoding="utf-8")
    second = checked_copy(spec_copy, "fr", BOUNDS)
    assert second.queries == 0 and second.cached == second.answers == first.answers
    move, place = broken.split(": ")
    path, line, column = place.rsplit(":", 2)
    assert move == "on take" and path.endswith("round.bao")
    assert [result.where for result in second.effects if result.status == "violated"] == \
        [f"{move}: {path}:{int(line) + 1}:{column}"]
    assert any(f"{path}:{int(line) + 1}:{column}: " in finding.message for finding in second.findings)


def test_no_cache_solves_every_question_and_keeps_none(config, fresh_cache):
    proved = _proved(config, "de")
    checker = _checker(config, "de", proved, Answers(enabled=False))
    report = checker.run()
    assert report.cached == 0 and report.answers == len(checker.asked) > 50
    assert not list(fresh_cache.glob("answer-*"))


def test_an_edit_of_one_rule_resolves_only_the_questions_that_read_it(spec_copy, fresh_cache):
    config = load_config(spec=str(spec_copy))
    proved = _proved(config, "fr")      # the edit below touches no invariant, nor what one reads
    before = _checker(config, "fr", proved, Answers())
    baseline = before.run()
    assert baseline.cached == 0
    edit(spec_copy / "core" / "bao.bao", "refuse bao when bao != none", "refuse bao when bao != none and true")
    config = load_config(spec=str(spec_copy))
    after = _checker(config, "fr", proved, Answers())
    report = after.run()
    reads = [cached for _, cone, cached in after.asked
             if any(entry.startswith("rule bao.once_per_round:") for entry in cone.entries)]
    others = [cached for _, cone, cached in after.asked
              if not any(entry.startswith("rule bao.once_per_round:") for entry in cone.entries)]
    assert reads and not any(reads)              # every question that reads the rule is solved again
    assert others and all(others)                # and only those
    assert report.answers - report.cached == len(reads) < report.answers / 4
    # the same verdicts as solving everything (the edit changes nothing the rules decide)
    assert _verdicts(report) == _verdicts(_checker(config, "fr", proved, Answers(enabled=False)).run())
    assert _verdicts(report) == _verdicts(baseline)


def test_the_questions_two_variants_share_are_solved_once(config, fresh_cache):
    """fr, then its house variant with optional powers: every question the house layer does not
    concern is answered from fr's answers. (fr and de ask no question under the same invariants,
    since the core's machinery invariants read variables that fr's own invariant reads: every
    question of fr assumes it. Where one's answer implies the other's: the tests after this one.)"""
    house = "optional-powers"
    proved = {variant: _proved(config, variant) for variant in ("fr", house)}
    fr = _checker(config, "fr", proved["fr"], Answers()).run()
    assert fr.cached == 0
    house_checker = _checker(config, house, proved[house], Answers())
    report = house_checker.run()
    shared = [shape for shape, _, cached in house_checker.asked if cached]
    assert report.cached == len(shared) >= 20 and report.cached < report.answers
    # a shared question reads fr's rules alone (no rule of the house layer)
    spec, _ = _loaded(config, house)
    layered = {f"rule {name}:" for name, rule in spec.rules.items() if rule.layer not in ("core", "fr")}
    assert layered
    for shape, cone, cached in house_checker.asked:
        if cached:
            assert not any(entry.startswith(prefix) for entry in cone.entries for prefix in layered), shape
    assert _verdicts(report) == _verdicts(_checker(config, house, proved[house], Answers(enabled=False)).run())


def test_a_house_variant_is_checked_after_the_variant_it_builds_on(config):
    """`check` and `report` start a variant's questions after those of the longest variant listed
    before it whose layers its own start with (parallel.in_forked_workers' `after`), and only then."""
    assert built_on(config, ["fr", "de", "optional-powers"]) == {2: 0}
    assert built_on(config, ["optional-powers", "fr", "de"]) == {}
    house = replace(config, variants={**config.variants, "fr-house": ["core", "fr", "house"],
                                      "de-house": ["core", "de", "house"], "deeper": ["core", "de", "house", "more"]})
    assert built_on(house, ["fr", "de", "de-house", "fr-house", "deeper"]) == {2: 1, 3: 0, 4: 2}


def test_a_cold_check_of_every_variant_solves_the_house_variants_shared_questions_once(config, tmp_path, monkeypatch,
                                                                                    capsys):
    """With no answer kept, `check` of every variant solves as many of optional-powers' questions as
    checking fr first and the house variant then: whichever of fr and de ends first, the house
    variant's questions wait for fr's answers rather than solving them a second time beside fr."""
    for variant in ("fr", "de", "optional-powers"):
        _proved(config, variant)            # kept in the session's cache folder, copied below

    def cold(*variants: str) -> dict:
        folder = tmp_path / "-".join(variants)
        shutil.copytree(SESSION_CACHE, folder, ignore=shutil.ignore_patterns("answer-*", "play-*", "search-*"))
        monkeypatch.setenv(cache.ENV, str(folder))
        checked = {}
        for variant in variants:
            main(["check", "--variant", variant, "--players", "2", "--slots", "4", "--games", "1", "--json"])
            checked.update({found["variant"]: found for found in json.loads(capsys.readouterr().out)["variants"]})
        return checked
    one_after_the_other = cold("fr", "optional-powers")["optional-powers"]
    every_variant = cold("all")["optional-powers"]
    assert 0 < one_after_the_other["answers"] - one_after_the_other["cached"] < one_after_the_other["answers"] / 4
    assert every_variant["answers"] - every_variant["cached"] == \
        one_after_the_other["answers"] - one_after_the_other["cached"]
    for key in ("claims", "findings", "invariants"):
        assert every_variant[key] == one_after_the_other[key]


def _under(question: str, *invariants: str) -> Question:
    return Question.of(question, Cone({f"invariant {name}: holds {name}" for name in invariants}))


def test_an_answer_under_other_invariants_is_reused_only_where_it_implies_this_one(fresh_cache):
    """No situation while assuming fewer invariants: none while assuming more. A situation while
    assuming more: one while assuming fewer, unless its witness must be shown (a witness must
    satisfy every invariant of its own check). A masked rule (it applies, another decides) says
    neither."""
    answers = Answers()
    answers.keep_answer(_under("a", "i1"), {"status": "unsat", "witnessed": False})
    assert answers.answer(_under("a", "i1", "i2")) == {"status": "unsat", "witnessed": False}
    assert answers.answer(_under("a")) is None and answers.answer(_under("a", "i2")) is None
    # the implied answer is kept under its own invariants
    assert json.loads(cache.read(f"answer-{_under('a', 'i1', 'i2').key}.json"))["status"] == "unsat"
    # another question: nothing of these answers it
    assert answers.answer(_under("b", "i1", "i2")) is None

    answers.keep_answer(_under("c", "i1", "i2"), {"status": "sat", "witnessed": False})
    assert answers.answer(_under("c", "i1"))["status"] == "sat" and answers.answer(_under("c"))["status"] == "sat"
    assert answers.answer(_under("c", "i1", "i2", "i3")) is None and answers.answer(_under("c", "i3")) is None
    answers.keep_answer(_under("w", "i1", "i2"), {"status": "sat", "witnessed": True})
    assert answers.answer(_under("w", "i1")) is None
    answers.keep_answer(_under("d", "i1"), {"status": "dead"})
    assert answers.answer(_under("d", "i1", "i2")) == {"status": "dead"} and answers.answer(_under("d")) is None
    answers.keep_answer(_under("m", "i1"), {"status": "masked"})
    assert answers.answer(_under("m", "i1", "i2")) is None and answers.answer(_under("m")) is None
    answers.keep_answer(_under("e", "i1", "i2"), {"status": "decides"})
    assert answers.answer(_under("e", "i1")) == {"status": "decides"} and answers.answer(_under("e", "i3")) is None


@pytest.mark.parametrize("first, then", [("fr", "de"), ("de", "fr")])
def test_an_edition_takes_the_answers_the_other_editions_answers_imply(config, fresh_cache, first, then):
    """de assumes fewer invariants than fr for the questions both ask (fr's own invariant reads the
    core's machinery): de's `unsat` answers fr's, fr's `sat` answers de's, and the verdicts are
    those of solving everything."""
    proved = {variant: _proved(config, variant) for variant in (first, then)}
    assert _checker(config, first, proved[first], Answers()).run().cached == 0
    checker = _checker(config, then, proved[then], Answers())
    report = checker.run(backwards=True)
    taken = [shape for shape, _, cached in checker.asked if cached]
    assert len(taken) >= 10 and report.cached == len(taken) < report.answers
    kinds = {shape[0] for shape in taken}
    assert ("dead or masked" in kinds) if then == "de" else ("claim" in kinds)
    assert _verdicts(report) == _verdicts(_checker(config, then, proved[then], Answers(enabled=False)).run())


def test_an_undecided_answer_is_never_kept(config, fresh_cache):
    proved = _proved(config, "fr", Bounds(3, 6))
    first = _checker(config, "fr", proved, Answers(), Bounds(3, 6), timeout_ms=1)
    report = first.run()
    assert any(f.kind == "unknown" for f in report.findings) and any(first.undecided_questions)
    second = _checker(config, "fr", proved, Answers(), Bounds(3, 6), timeout_ms=1)
    second.run()
    assert len(second.asked) == len(first.asked)
    for (shape, _, _), undecided, (_, _, cached) in zip(first.asked, first.undecided_questions, second.asked):
        assert cached != undecided, shape    # an undecided question is asked of Z3 again, a decided one is not
    kept_files = list(fresh_cache.glob("answer-*.json")) + list(fresh_cache.glob("answer-*/*.json"))
    assert kept_files
    for path in kept_files:
        kept = json.loads(path.read_text(encoding="utf-8"))
        assert kept.get("status") != "unknown" and "unknown" not in {r["status"] for r in kept.get("results", [])}


STALE = [
    # a legality rule a claim reads through legal(pluck)
    ("core/pluck.bao", "refuse pluck when any t in targets: protected(t)\n",
     "refuse pluck when any t in targets: protected(t) and t.number > 1\n",
     ("claim", "bao.shield_stops_opponent_plucks")),
    # a definition a claim reads through another definition
    ("core/scoring.bao", "p == bao or points(bao) < points(p)", "p == bao or points(bao) <= points(p)",
     ("claim", "score.tie_fails_bao")),
    # a value rule of a decision a claim reads
    ("core/scoring.bao", "max(2 * points(p), 5)", "max(2 * points(p), 4)", ("claim", "score.bao_failure_at_least_5")),
    # the edition's deck, which every question's tables read
    ("editions/standard.yaml", "golden_toucan: 1", "golden_toucan: 2", ("claim", "score.negative_bao_always_succeeds")),
    # a procedure: where a move is asked (sites.py), which limits where its rules are judged
    ("core/round.bao", "  ask active: draw, take\n", "  ask user: draw, take\n", ("never", "legal draw")),
]


@pytest.mark.parametrize("path, old, new, changed", STALE, ids=["rule", "define", "decision", "edition", "procedure"])
def test_an_answer_is_never_reused_when_anything_it_reads_changes(spec_copy, path, old, new, changed):
    config = load_config(spec=str(spec_copy))
    proved = _proved(load_config(spec=str(spec_copy)), "fr")
    baseline = _checker(config, "fr", proved, Answers()).run()
    assert baseline.findings == [] and {status for _, status, _ in baseline.claims} == {"holds"}
    edit(spec_copy / path, old, new)
    config = load_config(spec=str(spec_copy))
    checker = _checker(config, "fr", proved, Answers())
    report = checker.run()
    if path.startswith("editions/"):
        assert report.cached == 0                # every question's tables read the deck
    else:
        assert report.cached > 0                 # the questions that read none of it come from the cache
    kind, what = changed
    if kind == "claim":
        assert (what, "fails") in {(name, status) for name, status, _ in report.claims}
    else:
        assert (kind, what) in {(f.kind, f.decision) for f in report.findings}
    assert _verdicts(report) == _verdicts(_checker(config, "fr", proved, Answers(enabled=False)).run())


def test_an_answer_is_never_reused_for_other_invariants_bounds_or_timeout(config, fresh_cache):
    proved = _proved(config, "fr")
    assert _checker(config, "fr", proved, Answers()).run().claims
    # a claim that holds only because an invariant is proved fails when it is not assumed
    without = [name for name in proved if name != "bao.shield_belongs_to_a_caller"]
    checker = _checker(config, "fr", without, Answers())
    report = checker.run()
    assert ("bao.shield_stops_opponent_replacements", "fails") in {(n, s) for n, s, _ in report.claims}
    assert 0 < report.cached < report.answers    # the questions that never read that invariant: cached
    # other tables or another timeout: another question each time
    assert _checker(config, "fr", proved, Answers(), Bounds(3, 4)).run().cached == 0
    assert _checker(config, "fr", proved, Answers(), timeout_ms=30_000).run().cached == 0


def test_invariants_that_cannot_hold_are_assumed_by_every_question(spec_copy, fresh_cache):
    """A question leaves out the invariants of variables it never reads only when those can
    always hold; invariants that cannot (here: never true) make every question unsatisfiable,
    and each says so (a move never legal, every rule dead) instead of answering without them."""
    path = spec_copy / "core" / "pluck.bao"
    path.write_text(path.read_text(encoding="utf-8") + '\ninvariant pluck.never\n  assumed "a contradiction '
                    'for the test"\n  holds pluck_success and not pluck_success\n', encoding="utf-8")
    config = load_config(spec=str(spec_copy))
    spec, edition = _loaded(config, "fr")
    checker = Checker(spec, edition, BOUNDS, 20_000, "fr", list(spec.invariants), Answers())
    report = checker.run()
    never = {f.decision for f in report.findings if f.kind == "never"}
    assert never == {f"legal {kind}" for kind in checker.asked_kinds()}
    assert {status for _, status, _ in report.claims} == {"holds"}


def test_a_second_diff_takes_its_classes_from_the_cache_and_an_edit_resolves_its_decision(spec_copy, fresh_cache):
    config = load_config(spec=str(spec_copy))
    sides = {variant: load_spec(config, variant) for variant in ("fr", "de")}
    edition = load_edition_for(config, sides["fr"])
    proved = (_proved(config, "fr"), _proved(config, "de"))

    def compared(use_cache: bool = True):
        differ = Differ(("fr", sides["fr"]), ("de", sides["de"]), edition, BOUNDS, 20_000, proved,
                        answers=Answers(enabled=use_cache))
        return differ.run()
    first = compared()
    second = compared()
    assert second.answers == first.answers > 5 and second.cached == second.answers and second.queries == 0
    assert [f.as_json() for f in second.findings] == [f.as_json() for f in first.findings]
    # diff --emit keeps each class's play search under what it reads: the class, both rules, the code
    rules = (load_rules(config, "fr"), load_rules(config, "de"))
    classes = [item for finding in first.findings for item in finding.classes]
    keys = [search_key(item, *rules) for item in classes]
    assert len(set(keys)) == len(keys) and keys == [search_key(item, *rules) for item in classes]
    moved = replace(classes[0], witness={**classes[0].witness, "active": "someone else"})
    assert search_key(moved, *rules) not in keys and search_key(classes[0], *reversed(rules)) not in keys
    edit(spec_copy / "de.bao", "allow place when target.new and not (any s in actor.slots: s.empty)",
         "allow place when target.new and not (any s in actor.slots: s.empty) and true")
    config = load_config(spec=str(spec_copy))
    sides = {variant: load_spec(config, variant) for variant in ("fr", "de")}
    third = compared()
    assert third.answers - third.cached == 1     # the legality of place, alone, read the rule
    assert _classes(third) == _classes(compared(use_cache=False))


def _classes(report) -> list:
    """What a diff finds, without its witnesses and in no order (a solver in another state may find
the same classes in another order, with other tables)."""
    return sorted((f.title, f.causes, sorted((c.decision, sorted((side, [r.name for r in rules])
                                                                 for side, rules in c.rules.items()))
                                             for c in f.classes)) for f in report.findings)
