"""Where the rulebooks contradict themselves, the spec writes both passages as the rules they
are and settles them with a cited precedence marked as a reading: `check` shows the
contradiction without it, lists the reading with it, and the interpreter follows the choice."""
from __future__ import annotations

import textwrap

from baobei.checker.symbolic import Bounds
from baobei.cli import main

from conftest import checked_copy, edit

SMALL = Bounds(3, 4)
PRECEDENCE = "precedence deck.final_phase_one_last_turn_each over bao.caller_plays_no_further_turn"
REVERSED = "precedence bao.caller_plays_no_further_turn over deck.final_phase_one_last_turn_each"

# de: Ana takes the discard and calls BAO; Ben's draw needs the second recycle, which starts the
# final phase.
FINAL_PHASE = textwrap.dedent("""\
    title: does the BAO caller play a last turn in the final phase?
    variants: [de]
    players: [Ana, Ben, Cy]
    layouts: {Ana: [bird1, bird2], Ben: [bird9, bird8], Cy: [bird4, bird6]}
    deck: []
    discard: [bird10, bird3, bird5, bird6]
    active: Ana
    recycles: 1
    reshuffle: [[bird3, bird10, bird5]]
    steps:
      - Ana: take 1
      - Ana: bao
      - Ben: draw
        then: {final_phase: true, bao: null}
      - Ben: discard
      - Ben: end
      - Cy: draw
      - Cy: discard
      - Cy: end
    expect:
      ROUND_END
    """)


def test_the_shipped_german_spec_lists_its_reading_and_checks_clean(spec_copy):
    report = checked_copy(spec_copy, "de", SMALL)
    assert report.ok
    (precedence,) = [r for r in report.readings if r.level == "precedence"]
    assert precedence.name == "deck.final_phase_one_last_turn_each over bao.caller_plays_no_further_turn"
    assert any("Ihr erhaltet keinen weiteren normalen Zug" in c for c in precedence.cites)
    assert any("Jede andere Person erhält genau einen letzten Zug" in c for c in precedence.cites)
    assert any(c.startswith("reading ") for c in precedence.cites)


def test_without_its_precedence_the_german_contradiction_is_an_overlap(spec_copy):
    path = spec_copy / "de.bao"
    text = path.read_text(encoding="utf-8")
    start = text.index(PRECEDENCE)
    path.write_text(text[:start] + text[text.index("\n\n", start):], encoding="utf-8")
    report = checked_copy(spec_copy, "de", SMALL)
    overlaps = [f for f in report.findings if f.kind == "overlap"]
    assert overlaps and overlaps[0].decision == "value plays_last_turns"
    assert {r.name for r in overlaps[0].rules} == {"deck.final_phase_one_last_turn_each",
                                                   "bao.caller_plays_no_further_turn"}


def test_the_french_rules_never_meet_the_contradiction(spec_copy):
    report = checked_copy(spec_copy, "fr", SMALL)
    assert report.ok and not [r for r in report.readings if r.level == "precedence"]


def test_the_interpreter_follows_the_precedence(spec_copy, tmp_path, capsys):
    scenario = tmp_path / "final-phase.yaml"
    caller_plays = FINAL_PHASE.replace("ROUND_END", "{round_over: false, active: Ana}")
    caller_skipped = FINAL_PHASE.replace("ROUND_END", "{round_over: true}")
    scenario.write_text(caller_plays, encoding="utf-8")
    assert main(["scenario", "--spec", str(spec_copy), str(scenario)]) == 0
    edit(spec_copy / "de.bao", PRECEDENCE, REVERSED)
    assert main(["scenario", "--spec", str(spec_copy), str(scenario)]) == 1
    scenario.write_text(caller_skipped, encoding="utf-8")
    assert main(["scenario", "--spec", str(spec_copy), str(scenario)]) == 0
    capsys.readouterr()


def test_a_precedence_between_rules_of_different_levels_is_an_error(spec_copy, capsys):
    path = spec_copy / "de.bao"
    path.write_text(path.read_text(encoding="utf-8") +
                    '\nprecedence pluck.double.own_draw over pluck.one_attempt_per_reference\n'
                    '  reading "x"\n', encoding="utf-8")
    assert main(["check", "--variant", "de", "--spec", str(spec_copy)]) == 2
    err = capsys.readouterr().err
    assert "error[E210]" in err and "their levels already say which decides" in err and "de.bao:" in err
