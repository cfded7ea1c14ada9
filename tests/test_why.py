"""why: every rule of a move's kind, the part of its condition that holds or fails with the
values read, what settles it, the citations; a step that names the rule that must decide it
(refused_by, allowed_by); the short explanation in a failed step's message."""
from __future__ import annotations

import json
import textwrap

import pytest

from baobei.cli import main

from conftest import ROOT, edit

SCENARIOS = ROOT / "tests" / "scenarios"
NOT_ACTIVE = SCENARIOS / "pluck" / "pluck-window-discard-not-active.yaml"     # Ana discards bird5 (step 2)
ZERO_CARDS = SCENARIOS / "pluck" / "pluck-zero-cards-refused.yaml"            # Ben has [_, _]


def why(capsys, *args) -> tuple[int, str, str]:
    code = main(["why", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def test_why_a_refused_move_names_every_rule_and_the_part_of_its_condition_that_fails(capsys):
    code, out, _ = why(capsys, NOT_ACTIVE, "--step", 2, "--variant", "fr", "Ana: pluck Ana.2")
    assert code == 0
    assert "REFUSED by default pluck.only_with_a_reference (spec/core/pluck.bao:7:1)" in out
    assert 'fr: "Quand une carte vous sert de référence' in out
    assert "the rules of pluck, in the order they are tried (exceptions, then rules, then defaults):" in out
    assert "7. rule pluck.on_a_regular_discard (spec/core/pluck.bao:21:1): does not apply" in out
    assert "actor != active: fails (actor is Ana, active is Ana)" in out
    assert "reference.how in {discarded, replaced}: holds (reference.how is discarded)" in out
    assert "9. default pluck.only_with_a_reference (spec/core/pluck.bao:7:1): applies: refuses   <- decides" in out


def test_why_shows_the_level_that_settles_it_and_a_quantifiers_element(capsys):
    code, out, _ = why(capsys, ZERO_CARDS, "--step", 2, "--variant", "fr", "Ben: pluck Ana.1")
    assert code == 0
    assert "REFUSED by exception pluck.a_card_to_give_for_each_opponent_card (spec/core/pluck.bao:52:1)" in out
    assert ("exception pluck.a_card_to_give_for_each_opponent_card decides before rule pluck.on_a_regular_discard, "
            "which applies too (allows): an exception comes before a rule") in out
    _, out, _ = why(capsys, ZERO_CARDS, "--step", 2, "--variant", "fr", "Ben: pluck Ben.1")
    assert "any t in targets: not t.occupied: holds (targets is [Ben.1]); for example t = Ben.1" in out


def test_why_a_legal_move_names_the_rules_that_allow_it_and_opens_a_definition(capsys):
    code, out, _ = why(capsys, NOT_ACTIVE, "--step", 2, "--variant", "de", "Cy: pluck Cy.2")
    assert code == 0
    assert "LEGAL: allowed by rule pluck.on_a_regular_discard (spec/core/pluck.bao:21:1)" in out
    assert 'de: "Wenn die aktive Person regulär eine Karte offen' in out
    path = SCENARIOS / "contract" / "pluck-defensive-own-draw-discard-order.yaml"
    _, out, _ = why(capsys, path, "--step", 2, "--variant", "fr", "Ana: add Ben")
    assert "LEGAL: allowed by rule power.add_card.any_opponent" in out
    assert "    a_card_to_draw: holds\n      deck_size > 0 or discard_size > 1 or under_size > 0: holds\n" \
           "        deck_size > 0: holds (deck_size is 2)" in out


def test_why_a_move_the_decision_does_not_ask_shows_the_ask_and_the_rules_were_it_asked(capsys):
    path = SCENARIOS / "pluck" / "pluck-one-attempt-after-failure.yaml"
    code, out, _ = why(capsys, path, "--variant", "fr", "Ben: pluck Ben.2")
    assert code == 0
    assert "REFUSED before any rule is read: Ben cannot pluck now; the game waits for Ben: draw, take" in out
    assert "the game waits at procedure turn (spec/core/round.bao:" in out
    assert "were it asked now, the rules of pluck" in out


def test_why_in_json_and_for_every_variant_of_the_file(capsys):
    code, out, _ = why(capsys, NOT_ACTIVE, "--step", 2, "--json", "Ana: pluck Ana.2")
    found = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [f["variant"] for f in found] == ["fr", "de"]
    fr = found[0]
    assert fr["legal"] is False and fr["rule"] == "pluck.only_with_a_reference" and fr["decided_by"] == "rule"
    deciding = [r for r in fr["rules"] if r["decides"]]
    assert [r["rule"] for r in deciding] == ["pluck.only_with_a_reference"] and deciding[0]["condition"] is None
    regular = next(r for r in fr["rules"] if r["rule"] == "pluck.on_a_regular_discard")
    assert regular["applies"] is False and regular["level"] == "rule" and regular["cites"][0]["edition"] == "fr"
    parts = regular["condition"]["parts"]
    assert parts[2] == {"text": "actor != active", "value": False,
                        "reads": [{"text": "actor", "value": "Ana"}, {"text": "active", "value": "Ana"}]}


def test_why_a_closed_pluck_window_is_closed_first_as_a_step_does(capsys):
    code, out, _ = why(capsys, NOT_ACTIVE, "--step", 2, "--variant", "fr", "Ana: end")
    assert code == 0 and "(judged as a step plays it: after Ana: pass closes the pluck window)" in out
    assert "LEGAL: allowed by rule end.own_turn" in out


def test_why_shows_the_precedence_and_its_reading_that_settle_two_rules_of_one_level(spec_copy, capsys):
    with open(spec_copy / "fr.bao", "a", encoding="utf-8") as out:
        out.write(textwrap.dedent('''
            rule house.no_draw_on_the_first_turn
              assumed "for the test: a rule that disagrees with draw.active_player"
              refuse draw when turn == 1

            precedence house.no_draw_on_the_first_turn over draw.active_player
              assumed "for the test"
              reading "the first turn is a take"
            '''))
    path = SCENARIOS / "contract" / "pluck-defensive-own-draw-discard-order.yaml"
    code, out, _ = why(capsys, path, "--spec", spec_copy, "--step", 0, "--variant", "fr", "Ana: draw")
    assert code == 0
    assert "REFUSED by rule house.no_draw_on_the_first_turn" in out
    assert ("rule house.no_draw_on_the_first_turn decides before rule draw.active_player, which applies too "
            "(allows): precedence house.no_draw_on_the_first_turn over draw.active_player (") in out
    assert "reading: the first turn is a take" in out


@pytest.mark.parametrize("args,words,where", [
    (["--step", "99", "Ana: end"], "--step 99: the file has 6 steps", "pluck-window-discard-not-active.yaml:14:1:"),
    (["Ana: plock Ana.2"], "error[E410]: unknown move 'plock'", "<MOVE>:1:6:"),
    (["Ana: pluck Zed.2"], "unknown player 'Zed'", "<MOVE>:1:12:"),
    (["Ana pluck"], "write the move as PLAYER: MOVE", "<MOVE>:1:1:"),
])
def test_why_refuses_bad_input_with_its_place(capsys, args, words, where):
    code, out, err = why(capsys, NOT_ACTIVE, *args)
    assert code == 2 and words in err and where in err and "Traceback" not in err + out


# ---- refused_by, allowed_by -----------------------------------------------------------------

TABLE = textwrap.dedent("""\
    title: Ana discards bird5; Ben's second slot is empty
    variants: [fr, de]
    players: [Ana, Ben]
    layouts: {Ana: [bird3, bird7], Ben: [bird5, _]}
    deck: [bird5, bird1]
    discard: [bird10]
    active: Ana
    steps:
      - Ana: draw
      - Ana: discard
      - Ben: pluck Ben.2
        expect: illegal
        refused_by: pluck.a_face_down_card
      - Ben: pluck Ben.1
        allowed_by: pluck.on_a_regular_discard
    """)


def scenario(tmp_path, capsys, text: str) -> tuple[int, str, str]:
    path = tmp_path / "s.yaml"
    path.write_text(text, encoding="utf-8")
    code = main(["scenario", str(path)])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_step_passes_when_the_rule_it_names_decides(tmp_path, capsys):
    code, out, _ = scenario(tmp_path, capsys, TABLE)
    assert code == 0 and out.splitlines()[-1] == "2 passed, 0 failed"


def test_refused_by_fails_the_step_when_another_rule_refused_it_and_says_why(tmp_path, capsys):
    text = TABLE.replace("refused_by: pluck.a_face_down_card", "refused_by: pluck.one_attempt_per_reference")
    code, out, _ = scenario(tmp_path, capsys, text)
    assert code == 1 and out.splitlines()[-1] == "0 passed, 2 failed"
    assert ("step 3 (Ben: pluck Ben.2): expected the move to be refused by pluck.one_attempt_per_reference, but: "
            "refused by exception pluck.a_face_down_card (spec/core/pluck.bao:40:1): any t in targets: not "
            "t.occupied holds (targets is [Ben.2]); exception pluck.one_attempt_per_reference "
            "(spec/core/pluck.bao:32:1) does not apply: not reference.open fails (reference.open is true)") in out


def test_refused_by_fails_a_step_refused_before_any_rule(tmp_path, capsys):
    text = TABLE.replace("  - Ben: pluck Ben.2\n", "  - Ana: end\n  - Ben: pluck Ben.2\n")
    code, out, _ = scenario(tmp_path, capsys, text)
    assert code == 1
    assert ("step 4 (Ben: pluck Ben.2): expected the move to be refused by pluck.a_face_down_card, but: refused: "
            "Ben cannot pluck now; the game waits for Ben: draw, take (asked at procedure turn") in out


def test_allowed_by_fails_the_step_when_another_rule_allowed_it(tmp_path, capsys):
    text = TABLE.replace("allowed_by: pluck.on_a_regular_discard", "allowed_by: pluck.on_own_draw")
    code, out, _ = scenario(tmp_path, capsys, text)
    assert code == 1
    assert ("step 4 (Ben: pluck Ben.1): expected the move to be allowed by pluck.on_own_draw, but: allowed by rule "
            "pluck.on_a_regular_discard (spec/core/pluck.bao:21:1): ") in out
    assert ("rule pluck.on_own_draw (spec/core/pluck.bao:13:1) does not apply: reference.how == drawn fails "
            "(reference.how is discarded); actor == reference.by fails (actor is Ben, reference.by is Ana)") in out


def test_a_step_the_rules_refuse_says_which_rule_and_what_it_read(tmp_path, capsys):
    text = TABLE.replace("  - Ben: pluck Ben.2\n    expect: illegal\n    refused_by: pluck.a_face_down_card\n",
                         "  - Ben: pluck Ben.2\n")
    code, out, _ = scenario(tmp_path, capsys, text)
    assert code == 1 and ("step 3 (Ben: pluck Ben.2): refused by exception pluck.a_face_down_card "
                          "(spec/core/pluck.bao:40:1): any t in targets: not t.occupied holds (targets is [Ben.2])") in out


def test_a_step_accepted_against_its_expectation_says_which_rule_allowed_it(tmp_path, capsys):
    text = TABLE.replace("  - Ben: pluck Ben.1\n    allowed_by: pluck.on_a_regular_discard\n",
                         "  - Ben: pluck Ben.1\n    expect: illegal\n")
    code, out, _ = scenario(tmp_path, capsys, text)
    assert code == 1 and ("step 4 (Ben: pluck Ben.1): expected the move to be refused, but it was accepted: allowed "
                          "by rule pluck.on_a_regular_discard (spec/core/pluck.bao:21:1): ") in out


@pytest.mark.parametrize("change,words", [
    (("refused_by: pluck.a_face_down_card", "refused_by: pluck.a_face_down_crd"),
     "unknown rule 'pluck.a_face_down_crd' (variant fr)"),
    (("refused_by: pluck.a_face_down_card", "refused_by: bao.once_per_round"),
     "rule 'bao.once_per_round' decides whether bao is legal, not this step's 'pluck'"),
    (("refused_by: pluck.a_face_down_card", "refused_by: pluck.on_own_draw"),
     "rule 'pluck.on_own_draw' allows pluck: refused_by names a rule that refuses it"),
    (("    expect: illegal\n    refused_by", "    refused_by"), "'refused_by' goes with 'expect: illegal'"),
    (("refused_by: pluck.a_face_down_card", "refused_by: [x]"), "'refused_by' names a rule"),
    (("allowed_by: pluck.on_a_regular_discard", "allowed_by: pluck.only_with_a_reference"),
     "rule 'pluck.only_with_a_reference' refuses pluck: allowed_by names a rule that allows it"),
])
def test_a_rule_a_step_names_must_be_a_legality_rule_of_its_kind(tmp_path, capsys, change, words):
    code, out, err = scenario(tmp_path, capsys, TABLE.replace(*change))
    assert code == 2 and words in err and "Traceback" not in err + out
    assert f"{tmp_path / 's.yaml'}:1" in err and "error[E400]" in err


def test_an_unknown_rule_suggests_the_closest(tmp_path, capsys):
    _, _, err = scenario(tmp_path, capsys, TABLE.replace("refused_by: pluck.a_face_down_card",
                                                         "refused_by: pluck.a_face_down_crd"))
    assert f"{tmp_path / 's.yaml'}:13:5:" in err and "note: did you mean 'pluck.a_face_down_card'?" in err


def test_the_projects_refusals_that_more_than_one_rule_could_make_name_their_rule(config):
    from baobei.interpreter.rules import load_rules
    from baobei.interpreter.scenario import load_scenario, scenario_files
    rules = {v: load_rules(config, v).spec for v in ("fr", "de")}
    named = 0
    for path in scenario_files([str(SCENARIOS)]):
        for step in load_scenario(path).steps:
            if step.refused_by is not None:
                named += 1
                kind = step.move.split()[0]
                assert all(len([r for r in spec.legality_rules(kind) if not r.body.allow]) > 1
                           for spec in rules.values()), (path, step.index)
    assert named >= 89


def test_a_project_step_fails_when_another_rule_refuses_it(tmp_path, capsys):
    text = ZERO_CARDS.read_text(encoding="utf-8")
    path = tmp_path / "zero.yaml"
    path.write_text(text, encoding="utf-8")
    edit(path, "  - Ben: pluck Ben.1\n    expect: illegal\n    refused_by: pluck.a_face_down_card",
         "  - Ben: pluck Ben.1\n    expect: illegal\n    refused_by: pluck.not_on_a_shielded_layout")
    assert main(["scenario", str(path)]) == 1
    out = capsys.readouterr().out
    assert "expected the move to be refused by pluck.not_on_a_shielded_layout, but: refused by exception " \
           "pluck.a_face_down_card" in out
