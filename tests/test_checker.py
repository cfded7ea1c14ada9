"""The Z3 checker: what it proves, what it finds, and that an undecided query is never a pass."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from baobei.checker.answers import Answers
from baobei.checker.check import check
from baobei.checker.diff import diff
from baobei.checker.report import diff_text, witness_line
from baobei.checker.symbolic import Bounds, Situation
from baobei.cli import main
from baobei.dsl.loader import load_config, load_edition_for, load_spec

from conftest import SPEC, book_proofs, checked_copy, edit
from witness_facts import impossible_facts

SMALL = Bounds(players=3, slots=4)


def checked(config, variant, bounds=SMALL, timeout_ms=20_000):
    spec = load_spec(config, variant)
    return check(spec, load_edition_for(config, spec), variant, bounds, timeout_ms)


@pytest.mark.parametrize("variant", ["fr", "de"])
def test_the_editions_have_no_finding_and_every_claim_holds(config, variant):
    report = checked(config, variant)
    assert report.findings == []
    assert len(report.claims) >= 20
    assert {status for _, status, _ in report.claims} == {"holds"}
    names = {name for name, _, _ in report.claims}
    for claim in ("score.negative_bao_always_succeeds", "score.bao_failure_at_least_5",
                  "score.bao_success_at_most_0", "score.tie_fails_bao", "score.zero_cards_count_zero",
                  "pluck.removed_card_never_opens_a_pluck", "pluck.shown_card_never_opens_a_pluck",
                  "bao.shield_stops_opponent_plucks"):
        assert claim in names


def test_a_contradictory_rule_is_an_overlap_with_its_location(spec_copy):
    path = spec_copy / "core" / "pluck.bao"
    text = path.read_text(encoding="utf-8")
    path.write_text(text + '\nrule pluck.not_on_own_draw\n  assumed "a contradiction for the test"\n'
                           '  refuse pluck when reference.how == drawn\n', encoding="utf-8")
    report = checked_copy(spec_copy, "fr", SMALL)
    overlaps = [f for f in report.findings if f.kind == "overlap"]
    assert overlaps and all(f.decision == "legal pluck" for f in overlaps)
    names = {r.name for f in overlaps for r in f.rules}
    assert "pluck.not_on_own_draw" in names and "pluck.on_own_draw" in names
    added = [r for f in overlaps for r in f.rules if r.name == "pluck.not_on_own_draw"][0]
    assert added.loc.endswith(f"pluck.bao:{len(text.splitlines()) + 2}:1")
    witness = overlaps[0].witness
    assert witness["reference"]["how"] == "drawn" and witness["move"].split(":")[1].strip().startswith("pluck")


def test_a_rule_that_can_never_apply_is_dead(spec_copy):
    path = spec_copy / "core" / "round.bao"
    path.write_text(path.read_text(encoding="utf-8") + '\nrule draw.by_nobody\n  assumed "never"\n'
                    '  allow draw when actor != actor\n', encoding="utf-8")
    report = checked_copy(spec_copy, "de", SMALL)
    dead = [f for f in report.findings if f.kind == "dead"]
    assert [r.name for f in dead for r in f.rules] == ["draw.by_nobody"]
    assert "round.bao" in dead[0].rules[0].loc


def test_a_missing_fallback_is_a_placement_gap(spec_copy):
    edit(spec_copy / "de.bao", "rule place.new_slot_when_none_is_free",
         "rule place.new_slot_when_none_is_free_but_never")
    edit(spec_copy / "de.bao", "allow place when target.new and not (any s in actor.slots: s.empty)",
         "allow place when target.new and false")
    report = checked_copy(spec_copy, "de", SMALL)
    gaps = [f for f in report.findings if f.kind == "gap" and f.decision == "legal place"]
    assert gaps, [f.message for f in report.findings]
    layout = gaps[0].witness["layouts"]
    mover = gaps[0].witness["move"].split(":")[0]
    assert "_" not in layout[mover]


def test_an_edition_with_two_negative_cards_breaks_the_claim(spec_copy):
    edit(spec_copy / "editions" / "standard.yaml", "golden_toucan: 1", "golden_toucan: 2")
    report = checked_copy(spec_copy, "fr", SMALL)
    failed = [name for name, status, _ in report.claims if status == "fails"]
    assert failed == ["score.negative_bao_always_succeeds"]
    finding = [f for f in report.findings if f.kind == "claim"][0]
    layouts = finding.witness["layouts"]
    assert sum(cards.count("golden_toucan") for cards in layouts.values()) == 2


def test_a_quantifier_over_slots_counts_an_empty_cell_only_where_the_layout_has_it(spec_copy, monkeypatch):
    """A cell no layout has is empty (constraints()), so cards(p) need not ask whether a slot
    exists (an empty cell is not occupied), but a count of the slots without a card must: the
    guard on a slot's existence is left out only where an empty cell leaves the result alone."""
    path = spec_copy / "core" / "round.bao"
    path.write_text(path.read_text(encoding="utf-8") + '\nclaim test.a_slot_holds_a_card_or_none\n'
                    '  assumed "a test of the checker"\n'
                    '  holds all p in players: cards(p) + (count s in p.slots: s.card == none) == count(p.slots)\n',
                    encoding="utf-8")
    config = load_config(spec=str(spec_copy))
    spec = load_spec(config, "fr")

    def claimed():
        report = check(spec, load_edition_for(config, spec), "fr", SMALL, proofs=book_proofs("fr", SMALL),
                       answers=Answers(enabled=False))
        return {name: status for name, status, _ in report.claims}
    assert claimed()["test.a_slot_holds_a_card_or_none"] == "holds"
    # the claim does read the guard: with every slot's existence left out, the missing slots count
    monkeypatch.setattr(Situation, "leaves_alone_when_empty", lambda self, quantifier, body, slot: True)
    assert claimed()["test.a_slot_holds_a_card_or_none"] == "fails"


def test_a_precondition_that_can_fail_is_found_among_those_that_hold(spec_copy):
    """The effects' obligations are asked together (Checker.solve_together): the one an edit
    breaks is violated, with a table where it fails, and every other keeps its verdict."""
    before = {(r.where, r.what): r.status for r in checked_copy(spec_copy, "fr", SMALL).effects}
    edit(spec_copy / "core" / "round.bao", "discard_size > 0 and target.owner == actor and target.occupied",
         "discard_size > 0 and target.owner == actor")
    report = checked_copy(spec_copy, "fr", SMALL)
    after = {(r.where, r.what): r for r in report.effects}
    broken = [key for key, r in after.items() if r.status == "violated"]
    assert [what for _, what in broken] == ["discard target: the slot holds a card"]
    assert broken[0][0].startswith("on take")
    assert {key: r.status for key, r in after.items() if key not in broken} == \
        {key: status for key, status in before.items() if key not in broken}
    assert set(before.values()) == {"proved", "in play"}
    witness = after[broken[0]].witness
    assert "take" in witness["move"] and "_" in witness["layouts"][witness["move"].split(":")[0]], witness
    assert [name for name, status, _ in report.claims if status == "fails"] == ["cards.each_in_one_place"]


def test_the_primitives_keep_every_card_and_a_primitive_that_loses_one_is_violated():
    """checker/effects.py part 1: each primitive keeps every card id's count; one that takes a
    card from the pile and puts it nowhere is found."""
    from baobei.checker.effects import conserve, primitive_moves
    sane, before, cases = primitive_moves(4)
    statuses = {result.what: result.status for result in conserve(sane, before, cases, 20000)}
    assert len(statuses) == 12 and set(statuses.values()) == {"proved"}
    precondition, (pile_after, *_) = cases["draw (pile -> held)"]
    _, (_, *unchanged) = cases["move a card to a free slot"]        # every zone but the pile as before
    lost = {"draw into nowhere": (precondition, [pile_after, *unchanged])}
    assert [result.status for result in conserve(sane, before, lost, 20000)] == ["violated"]


def test_an_undecided_query_is_reported_not_passed(config):
    report = checked(config, "fr", Bounds(3, 6), timeout_ms=1)
    unknown = [f for f in report.findings if f.kind == "unknown"]
    assert unknown and not report.ok
    assert all(f.query for f in unknown)


def test_only_a_proof_is_taken_from_the_solver_kept_for_a_base(spec_copy):
    """Checker.proved_quickly decides questions in a solver that keeps what it learned of their
    base, within a resource budget: it settles many of them, and the verdicts and findings are
    those of fresh solvers alone (budget 1: every question goes to a fresh one), for claims that
    hold and for one that fails, whose witness is a fresh solver's in both. (Each run in a
    process forked from the same state. Which witness Z3 gives depends on the terms made before,
    in the same process too: only that it shows the failure is compared.)"""
    from baobei.checker import check as checking
    from baobei.checker.answers import Answers
    from baobei.checker.parallel import in_forked_workers
    edit(spec_copy / "editions" / "standard.yaml", "golden_toucan: 1", "golden_toucan: 2")
    config = load_config(spec=str(spec_copy))
    spec, proofs = load_spec(config, "fr"), book_proofs("fr", SMALL)

    def report(budget: int):
        checking.QUICK_RLIMIT = budget
        proved, quickly = [], checking.Checker.proved_quickly
        checking.Checker.proved_quickly = lambda self, assertions: proved.append(quickly(self, assertions)) or proved[-1]
        found = check(spec, load_edition_for(config, spec), "fr", SMALL, proofs=proofs, answers=Answers(enabled=False))
        findings = [{**f.as_json(), "witness": None} for f in found.findings]
        layouts = [f.witness["layouts"] for f in found.findings if f.kind == "claim"]
        return (found.claims, findings, [(r.where, r.what, r.status) for r in found.effects]), layouts, proved
    (kept, layouts, proved), (fresh, fresh_layouts, none) = in_forked_workers(report, [(checking.QUICK_RLIMIT,), (1,)])
    assert proved.count(True) >= 10 and none and not any(none)
    assert fresh == kept
    assert [name for name, status, _ in kept[0] if status == "fails"] == ["score.negative_bao_always_succeeds"]
    for shown in layouts + fresh_layouts:
        assert sum(cards.count("golden_toucan") for cards in shown.values()) == 2


def test_one_kept_solver_assumes_for_each_question_only_the_invariants_that_question_assumes(config):
    """The solvers kept across questions (proved_quickly, on_a_small_table) hold each proved
    invariant under a literal of its own, and a question assumes only its invariants' literals: a
    table where an invariant fails is ruled out for a question that assumes it and found for one
    that does not, in the same solver, before and after."""
    import z3
    from baobei.checker.check import Checker
    from baobei.checker.proofs import proved_everywhere
    spec = load_spec(config, "fr")
    checker = Checker(spec, load_edition_for(config, spec), SMALL, 20_000, "fr",
                      proved_everywhere(spec, book_proofs("fr", SMALL)), Answers(enabled=False))
    name = "bao.shield_belongs_to_a_caller"
    fails = [z3.Not(checker.invariant_terms[name])]
    for assumed in ([], [name], []):
        checker._assumed = assumed
        assert checker.proved_quickly(fails) == bool(assumed)
        model = checker.on_a_small_table(fails)
        assert (model is None) == bool(assumed)
        if model is not None:
            assert z3.is_false(model.eval(checker.invariant_terms[name], model_completion=True))
    assert len(checker._kept_solvers) == 2


def test_a_situation_found_for_another_question_settles_only_the_rules_it_shows(spec_copy):
    """Checker.shown_before takes a situation found for an earlier question as a model of a rule
    that decides in it, for the rule's own decision and for the others (their context checked):
    it settles many rules without a query, and the verdicts and findings, a dead rule's among
    them, are those of the same decision's situations alone. The dead rule holds in other
    decisions' situations (a player other than the active one acts), never where a draw is asked
    (of the active player). (Each run in a process forked from the same state.)"""
    import z3
    from baobei.checker import check as checking
    from baobei.checker.answers import Answers
    from baobei.checker.parallel import in_forked_workers
    path = spec_copy / "core" / "round.bao"
    path.write_text(path.read_text(encoding="utf-8") + '\nrule draw.by_another_player\n  assumed "never"\n'
                    '  allow draw when actor != active\n', encoding="utf-8")
    config = load_config(spec=str(spec_copy))
    spec, proofs = load_spec(config, "fr"), book_proofs("fr", SMALL)

    def own_decision_only(self, decision, term, context):
        assumed = z3.And(term, *[self.invariant_terms[name] for name in self._assumed])
        return any(z3.is_true(model.eval(assumed, model_completion=True)) for model in self.models.get(decision, []))

    def report(cross: bool):
        if not cross:
            checking.Checker.shown_before = own_decision_only
        settled, shown = [], checking.Checker.shown_before
        checking.Checker.shown_before = lambda self, *args: settled.append(shown(self, *args)) or settled[-1]
        found = check(spec, load_edition_for(config, spec), "fr", SMALL, proofs=proofs, answers=Answers(enabled=False))
        return found.claims, [f.as_json() for f in found.findings], settled.count(True)
    (claims, findings, settled), (own_claims, own_findings, own_settled) = in_forked_workers(report, [(True,), (False,)])
    assert settled >= own_settled + 10
    assert (claims, findings) == (own_claims, own_findings)
    assert [(f["kind"], f["decision"]) for f in findings] == [("dead", "legal draw")]
    assert "draw.by_another_player" in findings[0]["message"]


def test_a_dealt_table_shows_invariants_can_hold_only_where_z3_finds_them_true(config):
    """Checker.free asks whether a group of invariants can hold at every table size: the table the
    rules deal at a size answers it without a query when Z3 evaluates the well-formed tables'
    constraints and the invariants true on it. Where the situation cannot hold that table (five
    cards dealt at two players, four slots), or where it does not satisfy a term (an empty deck),
    the solver is asked and finds another table; a term no table satisfies is refused."""
    from baobei.checker.answers import Answers
    from baobei.checker.check import Checker
    from baobei.checker.proofs import proved_everywhere
    spec = load_spec(config, "fr")
    checker = Checker(spec, load_edition_for(config, spec), SMALL, 20_000, "fr",
                      proved_everywhere(spec, book_proofs("fr", SMALL)), Answers(enabled=False))
    sizes = range(2, SMALL.players + 1)
    invariants = [checker.invariant_terms[name] for name in checker.proved]
    assert invariants and checker.shown_by_a_dealt_table(3, invariants)
    assert not checker.shown_by_a_dealt_table(2, invariants)
    assert checker._satisfiable_everywhere(checker.proved) is True
    assert checker.report.queries == 1         # two players: by the solver
    s = checker.situation
    checker.invariant_terms.update({"empty deck": s.ints["deck_size"] == 0, "too many": s.np > SMALL.players})
    assert not any(checker.shown_by_a_dealt_table(players, [s.ints["deck_size"] == 0]) for players in sizes)
    assert checker._satisfiable_everywhere(["empty deck"]) is True
    assert checker.report.queries == 1 + len(sizes)
    assert checker._satisfiable_everywhere(["too many"]) is False


def test_check_command_exit_codes_and_json(spec_copy, capsys):
    code = main(["check", "--variant", "fr", "--players", "3", "--slots", "4", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["ok"] and data["variants"][0]["variant"] == "fr"
    assert data["variants"][0]["assumed"] == ["deck", "threshold"]
    path = spec_copy / "core" / "round.bao"
    path.write_text(path.read_text(encoding="utf-8") + '\nrule draw.by_nobody\n  assumed "never"\n'
                    '  allow draw when actor != actor\n', encoding="utf-8")
    code = main(["check", "--variant", "fr", "--players", "3", "--slots", "4", "--spec", str(spec_copy)])
    out = capsys.readouterr().out
    assert code == 1 and "DEAD legal draw" in out and "draw.by_nobody" in out
    (spec_copy / "fr.bao").write_text("layer fr\nrule\n", encoding="utf-8")
    assert main(["check", "--variant", "fr", "--spec", str(spec_copy)]) == 2


def test_diff_finds_every_difference_between_the_editions(config):
    spec_fr, spec_de = load_spec(config, "fr"), load_spec(config, "de")
    report = diff(("fr", spec_fr), ("de", spec_de), load_edition_for(config, spec_fr), SMALL)
    causes = {cause.split(" ", 1)[1] for finding in report.findings for cause in finding.causes}
    assert causes == {"pluck.double.own_draw", "pluck.double.on_a_regular_discard", "place.new_slot",
                      "place.freed_slot", "power.movement_limit.same_player_same_sequence",
                      "power.movement_limit.whole_turn", "power.trigger.drawn_card_plucks",
                      "power.trigger.first_removed", "power.trigger.drawn_then_discarded",
                      "deck.no_final_phase_after_bao", "deck.final_phase_even_after_bao"}
    assert len(report.findings) == 7
    titles = [f.title for f in report.findings]
    assert "legal pluck" in titles and "legal place" in titles
    movement = [f for f in report.findings if "value limited" in f.title][0]
    assert "legal swap" in movement.title and "legal replace" in movement.title
    assert not report.unknown


def test_diff_reports_the_same_on_one_core_as_on_several_and_whatever_the_cache_held(tmp_path):
    """Each decision is compared in a forked worker of its own, all from the same state, side by
    side when there are cores for it: neither how many cores there are nor which other decisions'
    classes the cache held may change a witness. (Each run in a fresh process, as from the command
    line: Z3's state carries over within one; the proofs come from a copy of the session's cache.)"""
    import os
    import shutil
    import subprocess
    import sys
    cache = tmp_path / "cache"
    shutil.copytree(os.environ["BAOBEI_CACHE"], cache)

    def compared(entry: Path) -> bool:      # a decision's classes, kept by diff (checker/answers.py; check's
        # answers are kept one folder per question)
        return entry.name.startswith("answer-") and entry.is_file() and '"classes"' in entry.read_text()

    def run(cores: int, keep) -> list:
        entries = sorted(entry for entry in cache.iterdir() if compared(entry))
        for entry in entries:
            if not keep(entries.index(entry)):
                entry.unlink()
        code = (f"import os; os.cpu_count = lambda: {cores}\n"
                "from baobei.cli import main\n"
                "raise SystemExit(main(['diff', 'fr', 'de', '--players', '3', '--slots', '4', '--json']))")
        # -P: the installed package, not the source folder of the working directory
        done = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True,
                              env={**os.environ, "BAOBEI_CACHE": str(cache)})
        assert done.returncode == 1, done.stderr     # the editions differ: exit 1, like diff(1)
        return json.loads(done.stdout)
    side_by_side = run(2, keep=lambda index: False)          # every decision compared here
    assert side_by_side["cached"] == 0 and side_by_side["differences"]
    one_core = run(1, keep=lambda index: index % 2 == 0)     # every other one from the cache
    assert 0 < one_core["cached"] < one_core["answers"]
    assert one_core["differences"] == side_by_side["differences"]


def test_diff_asks_no_query_of_a_move_both_editions_make_legal_alike(config):
    """Where the two sides' legality of a move is one term (the same rules, read alike), no
    situation can tell them apart: diff asks nothing of it. Where they differ (a pluck), it asks
    and finds the difference."""
    from baobei.checker.diff import Differ
    fr, de = load_spec(config, "fr"), load_spec(config, "de")
    differ = Differ(("fr", fr), ("de", de), load_edition_for(config, fr), SMALL)
    assert differ.tr_a.legal("draw")[0].eq(differ.tr_b.legal("draw")[0])
    differ.legality("draw")
    assert differ.report.queries == 0 and not differ.report.differences
    differ.legality("pluck")
    assert differ.report.queries > 0 and differ.report.differences


def test_a_class_the_small_table_cannot_show_is_found_on_the_whole_table(spec_copy, monkeypatch):
    """After a first class, diff looks for the next on a small table (at most three slots) and
    ends on the whole one. de's double pluck on a discard made to need four cards: that class
    is only on the whole table, and diff finds the same classes as it does without the small
    table, the small table having been asked."""
    from baobei.checker import diff as diff_module
    edit(spec_copy / "de.bao", "reference.how in {discarded, replaced} and actor != active",
         "reference.how in {discarded, replaced} and actor != active and cards(actor) >= 4")
    config = load_config(spec=str(spec_copy))
    fr, de = load_spec(config, "fr"), load_spec(config, "de")
    edition = load_edition_for(config, fr)

    def classes() -> tuple[set, list]:
        differ = diff_module.Differ(("fr", fr), ("de", de), edition, SMALL)
        differ.legality("pluck")
        found = {(d.message, tuple(r.name for side in ("fr", "de") for r in d.rules[side]))
                 for d in differ.report.differences}
        return found, differ.report.differences

    asked = []
    on_a_small_table = diff_module.Differ.on_a_small_table
    monkeypatch.setattr(diff_module.Differ, "on_a_small_table",
                        lambda self, solver: asked.append(on_a_small_table(self, solver)) or asked[-1])
    with_small, differences = classes()
    assert asked, "the small table was never asked"
    monkeypatch.setattr(diff_module, "SMALL_CLASS_RLIMIT", 1)      # the small table answers nothing
    without_small, _ = classes()
    assert with_small == without_small
    on_a_discard = [d for d in differences
                    if any(r.name == "pluck.double.on_a_regular_discard" for r in d.rules["de"])]
    assert on_a_discard, [d.message for d in differences]
    for difference in on_a_discard:
        actor = difference.witness["move"].split(":")[0]
        assert len([card for card in difference.witness["layouts"][actor] if card != "_"]) >= 4


def test_making_de_like_fr_removes_that_difference(spec_copy):
    edit(spec_copy / "de.bao", '''rule place.freed_slot
  cite de "Der Besitzer legt sie auf einen durch eine entfernte Karte freigewordenen Platz, falls einer vorhanden ist. Gibt es mehrere freie Plätze, wählt er einen davon."
  cite de "5. Legt diese unbekannte Strafkarte verdeckt auf einen bereits freien Platz eurer Wahl."
  allow place when target.empty
''', "")
    edit(spec_copy / "de.bao", "allow place when target.new and not (any s in actor.slots: s.empty)",
         "allow place when target.new")
    config = load_config(spec=str(spec_copy))
    spec_fr, spec_de = load_spec(config, "fr"), load_spec(config, "de")
    # under the invariants the books' rules prove, as in conftest.checked_copy
    report = diff(("fr", spec_fr), ("de", spec_de), load_edition_for(config, spec_fr), SMALL, 20_000,
                  proofs=(book_proofs("fr", SMALL), book_proofs("de", SMALL)))
    titles = [f.title for f in report.findings]
    assert "legal place" not in titles and len(report.findings) == 6


@pytest.fixture(scope="module")
def fr_de_witnesses(tmp_path_factory):
    """`diff fr de --emit` once for the tests that read what it wrote: (exit code, JSON, folder)."""
    import contextlib
    import io
    folder = tmp_path_factory.mktemp("diff-emit") / "witnesses"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["diff", "fr", "de", "--players", "3", "--slots", "4", "--emit", str(folder), "--json"])
    return code, json.loads(out.getvalue()), folder


def test_diff_emits_witness_scenarios_that_pass_under_both_editions(fr_de_witnesses, capsys):
    code, data, folder = fr_de_witnesses
    assert code == 1 and len(data["differences"]) == 7
    # the play search starts from each class's witnesses in turn, the spare ones last: every
    # difference gets a scenario
    shown = [d for d in data["differences"] if any(c["scenario"] for c in d["classes"])]
    assert len(shown) == len(data["differences"])
    for difference in data["differences"]:
        for item in difference["classes"]:
            direction = re.search(r"legal in \w+ and refused in \w+", item["message"])
            if item["scenario"] and direction:   # the file shows the class's direction, not its mirror
                assert direction.group(0) in yaml.safe_load(Path(item["scenario"]).read_text())["title"]
    # only `value limited` has none: a decision only the movement limit's rules read, whose
    # classes (the swaps and replacements it limits) show it
    missing = [c["decision"] for d in data["differences"] for c in d["classes"] if not c["scenario"]]
    assert missing == ["value limited"]
    files = sorted(folder.glob("*.yaml"))
    assert len(files) >= 6
    assert main(["scenario", str(folder)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == f"{2 * len(files)} passed, 0 failed"
    shows_refusal = [f for f in files if "expect: illegal" in f.read_text()]
    shows_waiting = [f for f in files if "waiting" in f.read_text()]
    assert shows_refusal and shows_waiting


def test_diff_emits_a_passing_scenario_for_each_replace_class_and_the_final_phase(fr_de_witnesses, config):
    from baobei.interpreter.rules import load_rules
    from baobei.interpreter.scenario import load_scenario, run_scenario
    _, data, _ = fr_de_witnesses
    classes = [c for d in data["differences"] for c in d["classes"]]
    # the shoebill's replace classes differ only through the movement limit (fr: the same player in
    # one sequence, de: anyone in the whole turn), so each file must play two powers in one turn
    replace = [c for c in classes if c["decision"] == "legal replace"]
    final = [c for c in classes if c["decision"] == "value final_phase_after_bao"]
    assert len(replace) == 4 and len(final) == 1
    editions = [load_rules(config, "fr"), load_rules(config, "de")]
    for item in replace + final:
        assert item["scenario"], f"no scenario for {item['message']}"
        scenario = load_scenario(Path(item["scenario"]))
        for rules in editions:
            result = run_scenario(scenario, rules)
            assert result.passed, f"{item['scenario']} [{rules.variant}]"
    for item in replace:
        text = yaml.safe_load(Path(item["scenario"]).read_text())
        steps = [next(iter(step.items())) for step in text["steps"]]
        users = {actor for actor, move in steps if move.startswith("replace")}
        assert len(users) == 2 and any(step.get("expect") == "illegal" for step in text["steps"])
    shown = yaml.safe_load(Path(final[0]["scenario"]).read_text())
    assert shown["bao"] and shown["recycles"] == 1 and shown["deck"] == []
    checks = shown["steps"][-1]["then_variants"]
    assert checks["fr"]["final_phase"] is False and checks["de"]["final_phase"] is True


def test_the_play_search_does_not_depend_on_the_layouts_z3_picked(config, tmp_path):
    """diff --emit plays from what a class's witness says (its move, power, reference and
    variables), not from the layouts Z3 happened to pick: with every witness's layouts emptied (the
    spare ones' too), each class but `value limited` still gets a scenario that passes under both
    editions."""
    from dataclasses import replace

    from baobei.checker.scenarios import SPARE_WITNESSES, emit_witnesses
    from baobei.interpreter.rules import load_rules

    def emptied(witness: dict) -> dict:
        return {**witness, "layouts": {name: [] for name in witness["layouts"]}}
    spec_fr, spec_de = load_spec(config, "fr"), load_spec(config, "de")
    report = diff(("fr", spec_fr), ("de", spec_de), load_edition_for(config, spec_fr), SMALL, spares=SPARE_WITNESSES)
    for finding in report.findings:
        finding.classes = [replace(item, witness=emptied(item.witness),
                                   spares=[(message, emptied(witness)) for message, witness in item.spares])
                           for item in finding.classes]
    written = emit_witnesses(report, load_rules(config, "fr"), load_rules(config, "de"), str(tmp_path))
    missing = [item.decision for finding in report.findings for item in finding.classes if not item.scenario]
    assert missing == ["value limited"] and len(written) == 14


@pytest.mark.parametrize("plays", [("lockstep", 1), ("split", 2, "short"), ("split", 1, "long")])
def test_the_play_search_prefers_lockstep_then_short_searches_alone_on_every_table(monkeypatch, plays):
    """A move's class is shown by the same moves in both variants wherever a short lockstep play
    exists, even on a later table than a split play; where none plays in lockstep, each table is
    also searched variant by variant, shortly, before the next table is searched in lockstep,
    and only then each table alone at length (the movement limit's classes: no table plays in
    lockstep, and the first tables are often far from the class on one side)."""
    from types import SimpleNamespace

    from baobei.checker import scenarios
    calls = []
    short, long = scenarios.NODES_ALONE

    def lockstep(table, rules_a, rules_b, item, budget, most, probe=None):
        calls.append(("lockstep", table, most))
        return "lockstep" if plays == ("lockstep", table) else None

    def split(table, rules_a, rules_b, item, budget, most):
        calls.append(("split", table, most))
        return "split" if plays[:2] == ("split", table) and most == (short if plays[2] == "short" else long) \
            else None
    monkeypatch.setattr(scenarios, "tables", lambda witness, rules: [0, 1, 2])
    monkeypatch.setattr(scenarios, "_lockstep", lockstep)
    monkeypatch.setattr(scenarios, "_split", split)
    item = SimpleNamespace(decision="legal place", kind="place", witness={})
    found = scenarios.realize(item, None, None)
    first, lockstep_nodes = scenarios.NODES_LOCKSTEP_FIRST, scenarios.NODES_LOCKSTEP["move"]
    assert found == plays[0]
    firsts = [("lockstep", t, first) for t in (0, 1, 2)]
    if plays[0] == "lockstep":
        assert calls == firsts[:2]
        return
    tables_short = [call for t in (0, 1, 2) for call in (("lockstep", t, lockstep_nodes), ("split", t, short))]
    if plays[2] == "short":
        assert calls == firsts + tables_short
    else:
        assert calls == firsts + tables_short + [("split", 0, long), ("split", 1, long)]


def test_spare_witnesses_are_asked_for_only_when_a_shown_one_reaches_no_play(config, tmp_path, monkeypatch):
    """diff --emit asks Z3 for spare witnesses only for a class whose shown witness the play
    search cannot play, and plays that class from them (here the search is made to miss the
    first `legal swap` witness); classes that play from their shown witness ask for none."""
    from baobei.checker import scenarios
    from baobei.interpreter.rules import load_rules
    from baobei.interpreter.scenario import load_scenario, run_scenario
    from dataclasses import replace
    spec_fr, spec_de = load_spec(config, "fr"), load_spec(config, "de")
    edition = load_edition_for(config, spec_fr)
    rules = load_rules(config, "fr"), load_rules(config, "de")

    def compared(spares=0):
        return diff(("fr", spec_fr), ("de", spec_de), edition, SMALL, spares=spares)
    report = compared()
    # the findings whose every shown witness plays (which ones do depends on the models Z3 gives,
    # and those on every term made before in the process)
    playing = [finding for finding in report.findings
               if all(item.witness is not None and scenarios.realize(item, *rules) is not None
                      for item in finding.classes)]
    assert playing
    written = scenarios.emit_witnesses(replace(report, findings=playing), *rules, str(tmp_path / "shown"),
                                       use_cache=False, spares=lambda: pytest.fail("spares asked for"))
    assert len(written) == sum(len(finding.classes) for finding in playing)
    missed = next(item for finding in report.findings for item in finding.classes if item.decision == "legal swap")
    real_realize = scenarios.realize
    monkeypatch.setattr(scenarios, "realize", lambda item, a, b: None if item.witness == missed.witness
                        else real_realize(item, a, b))
    asked = []
    scenarios.emit_witnesses(report, *rules, str(tmp_path / "spares"), use_cache=False,
                             spares=lambda: asked.append(1) or compared(scenarios.SPARE_WITNESSES))
    assert asked == [1] and missed.spares and missed.scenario
    assert all(run_scenario(load_scenario(Path(missed.scenario)), side).passed for side in rules)


def test_check_emits_a_scenario_that_plays_into_an_overlap(spec_copy, tmp_path, capsys):
    path = spec_copy / "core" / "pluck.bao"
    path.write_text(path.read_text(encoding="utf-8") + '\nrule pluck.not_on_own_draw\n  assumed "a contradiction"\n'
                    '  refuse pluck when reference.how == drawn\n', encoding="utf-8")
    code = main(["check", "--variant", "fr", "--players", "3", "--slots", "4", "--spec", str(spec_copy),
                 "--emit", str(tmp_path / "w")])
    out = capsys.readouterr().out
    assert code == 1 and "scenario:" in out
    files = sorted((tmp_path / "w" / "fr").glob("*.yaml"))
    assert files
    assert main(["scenario", "--spec", str(spec_copy), str(files[0])]) == 1
    out = capsys.readouterr().out
    assert "rules disagree" in out and "pluck.not_on_own_draw" in out


@pytest.mark.parametrize("pelicans", [3, 1])
def test_no_witness_of_diff_shows_an_impossible_table(spec_copy, pelicans):
    """The standard deck, and an edition file with a single white pelican: no witness holds more
    copies of a card than the edition has, or shows anything else a round cannot have
    (tests/witness_facts.py)."""
    edit(spec_copy / "editions" / "standard.yaml", "white_pelican: 3", f"white_pelican: {pelicans}")
    config = load_config(spec=str(spec_copy))
    spec_fr, spec_de = load_spec(config, "fr"), load_spec(config, "de")
    edition = load_edition_for(config, spec_fr)
    assert edition.deck["white_pelican"] == pelicans
    report = diff(("fr", spec_fr), ("de", spec_de), edition, SMALL if pelicans == 3 else Bounds(2, 4))
    witnesses = [item.witness for finding in report.findings for item in finding.classes]
    assert len(witnesses) >= 7
    for witness in witnesses:
        assert impossible_facts(witness, spec_fr, edition) == [], witness


# A second movement limit written at the level of the French swaps: where a card another
# player's power moved this turn is swapped, the French rule allows and this one refuses (an
# overlap), so that check's witnesses play a power and show cards powers moved.
HOUSE_LIMIT = """layer house
rule power.blind_swap.not_twice_in_a_turn
  assumed "house rule: no card is swapped twice in one turn"
  refuse swap when power == blind_swap and (target.moved_turn == turn or second.moved_turn == turn)
"""


@pytest.mark.parametrize("copies", [None, 2])
def test_no_witness_of_check_shows_an_impossible_table(tmp_path, copies):
    """check on a house layer with findings, under the standard deck and under an edition file
    with at most two copies of every card (`copies`; one copy deals to no 4 players): each witness is a
    table a round can have."""
    (tmp_path / "house.bao").write_text(HOUSE_LIMIT, encoding="utf-8")
    config_text = f"spec: {SPEC}\nlayers: [core, fr, house]\n"
    if copies is not None:
        deck = yaml.safe_load((SPEC / "editions" / "standard.yaml").read_text(encoding="utf-8"))
        deck["deck"] = {card: min(count, copies) for card, count in deck["deck"].items()}
        (tmp_path / "fewer.yaml").write_text(yaml.safe_dump(deck), encoding="utf-8")
        config_text += "edition: fewer.yaml\n"
    (tmp_path / "baobei.yaml").write_text(config_text, encoding="utf-8")
    config = load_config(cwd=tmp_path)
    spec = load_spec(config, "house")
    edition = load_edition_for(config, spec)
    assert copies is None or max(edition.deck.values()) == copies
    report = check(spec, edition, "house", SMALL, 20_000)
    witnesses = [f.witness for f in report.findings if f.witness]
    assert any(f.kind == "overlap" and "power.blind_swap.not_twice_in_a_turn" in {r.name for r in f.rules}
               for f in report.findings)
    # the overlap needs a card a power moved this turn: its witness plays a power and shows it
    assert any(w.get("power") == "blind_swap" and w.get("moved_by_powers") for w in witnesses)
    for witness in witnesses:
        assert impossible_facts(witness, spec, edition) == [], witness_line(witness)


def test_more_witnesses_per_class_are_distinct_tables_that_can_occur(config):
    """diff --witnesses N: up to N witnesses of each class, each another table, each one the
    proved invariants allow (a drawn reference names a card) with no more copies than the deck."""
    spec_fr, spec_de = load_spec(config, "fr"), load_spec(config, "de")
    edition = load_edition_for(config, spec_fr)
    report = diff(("fr", spec_fr), ("de", spec_de), edition, SMALL, witnesses=3)
    classes = [item for finding in report.findings for item in finding.classes]
    assert sum(bool(item.more) for item in classes) >= len(classes) // 2
    for item in classes:
        shown = [witness_line(w) for w in [item.witness] + [w for _, w in item.more]]
        assert len(item.more) <= 2 and len(set(shown)) == len(shown), shown
        for alternative in item.alternatives():
            witness = alternative.witness
            if item.kind is not None:       # the same kind of move, in every witness of a legality class
                assert witness["move"].split(": ")[1].split()[0] == item.kind
            assert impossible_facts(witness, spec_fr, edition) == [], witness_line(witness)
            reference = witness.get("reference") or {}
            assert reference.get("how") != "drawn" or reference.get("card"), witness
    text = diff_text(report)
    assert "witness 2: " in text and "witness 3: " in text
