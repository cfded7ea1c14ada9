"""Rules live in spec/: editing a copy of spec/ changes what the interpreter does, with no
Python edit (`--spec COPY`). A house layer mixes the editions in a few lines of spec."""
from __future__ import annotations

import textwrap

from baobei.cli import main
from baobei.dsl.loader import load_config
from baobei.interpreter.rules import load_rules
from baobei.interpreter.simulate import simulate

from conftest import edit

SCORE = textwrap.dedent("""\
    title: BAO caller 2 against 1
    variants: [fr]
    players: [Ana, Ben]
    layouts: {Ana: [bird2], Ben: [bird1]}
    deck: [bird6]
    discard: [bird10]
    active: Ben
    bao: Ana
    steps:
      - Ben: draw
      - Ben: discard
      - Ben: end
    expect:
      round_over: true
      scores: {Ana: 5, Ben: 1}
    """)

PLUCK = textwrap.dedent("""\
    title: a shoebill drawn plucks a toco toucan? (it does not, by the rulebooks)
    variants: [fr]
    players: [Ana, Ben]
    layouts: {Ana: [toco_toucan, bird4], Ben: [bird5, bird6]}
    deck: [shoebill, bird1, bird2]
    discard: [bird10]
    active: Ana
    steps:
      - Ana: draw
      - Ana: pluck Ana.1
      - Ana: place 3
    expect:
      layouts: {Ana: [toco_toucan, bird4, bird1]}
    """)


def run(tmp_path, capsys, spec, text) -> tuple[int, str]:
    path = tmp_path / "scenario.yaml"
    path.write_text(text, encoding="utf-8")
    code = main(["scenario", "--spec", str(spec), str(path)])
    return code, capsys.readouterr().out


def test_changing_a_card_value_changes_the_score(spec_copy, tmp_path, capsys):
    assert run(tmp_path, capsys, spec_copy, SCORE)[0] == 0
    edit(spec_copy / "core" / "cards.bao", "card bird2  value 2,  family bird2", "card bird2  value 0,  family bird2")
    code, out = run(tmp_path, capsys, spec_copy, SCORE)
    assert code == 1 and "scores.Ana: expected 5, got 0" in out
    success = SCORE.replace("scores: {Ana: 5, Ben: 1}", "scores: {Ana: 0, Ben: 1}")
    assert run(tmp_path, capsys, spec_copy, success)[0] == 0


def test_changing_a_family_changes_what_plucks(spec_copy, tmp_path, capsys):
    assert run(tmp_path, capsys, spec_copy, PLUCK)[0] == 0  # failed pluck: a penalty card
    edit(spec_copy / "core" / "cards.bao", "card shoebill       value 13, family shoebill,",
         "card shoebill       value 13, family toucan,")
    assert run(tmp_path, capsys, spec_copy, PLUCK)[0] == 1
    plucked = PLUCK.replace("  - Ana: place 3\n", "").replace("layouts: {Ana: [toco_toucan, bird4, bird1]}",
                                                                 "layouts: {Ana: [_, bird4]}")
    assert run(tmp_path, capsys, spec_copy, plucked)[0] == 0


def test_changing_a_legality_condition_changes_what_is_legal(spec_copy, tmp_path, capsys):
    window = textwrap.dedent("""\
        title: the active player plucks on his own discard
        variants: [fr]
        players: [Ana, Ben]
        layouts: {Ana: [bird8, bird4], Ben: [bird5, bird6]}
        deck: [bird8, bird1]
        discard: [bird10]
        active: Ana
        steps:
          - Ana: draw
          - Ana: discard
          - Ana: pluck Ana.1
            expect: illegal
        """)
    assert run(tmp_path, capsys, spec_copy, window)[0] == 0
    edit(spec_copy / "core" / "pluck.bao",
         "allow pluck when count(targets) == 1 and reference.how in {discarded, replaced} and actor != active",
         "allow pluck when count(targets) == 1 and reference.how in {discarded, replaced}")
    code, out = run(tmp_path, capsys, spec_copy, window)
    assert code == 1 and "expected the move to be refused, but it was accepted" in out


def test_changing_a_deal_size_changes_the_deal(spec_copy):
    edit(spec_copy / "editions" / "standard.yaml", "deal: {2: 5,", "deal: {2: 7,")
    rules = load_rules(load_config(spec=str(spec_copy)), "fr")
    from baobei.interpreter.game import new_round
    from baobei.interpreter.state import Rng
    rnd = new_round(rules, ["A", "B"], Rng(3), first=0, totals={})
    assert [len(p.layout) for p in rnd.players] == [7, 7]
    assert len(rnd.deck) == 66 - 14 - 1


def test_changing_the_tiebreak_deal_in_the_spec(spec_copy):
    edit(spec_copy / "core" / "round.bao", "(if count(players) == 2 then 5 else 4)",
         "(if count(players) == 2 then 6 else 4)")
    rules = load_rules(load_config(spec=str(spec_copy)), "fr")
    from baobei.interpreter.game import new_round
    from baobei.interpreter.state import Rng
    rnd = new_round(rules, ["A", "B"], Rng(3), first=0, totals={}, tiebreak=True)
    assert [len(p.layout) for p in rnd.players] == [6, 6]


def test_who_opens_a_game_is_the_spec_s(spec_copy):
    """By the rulebooks the first player is drawn at random; a house rule "the first seat
    opens" is one line of spec."""
    from baobei.interpreter.game import play_game

    def openers(config) -> set[str]:
        rules = load_rules(config, "fr")
        return {play_game(rules, 4, seed, ["random"]).rounds[0].first for seed in range(12)}
    assert len(openers(load_config(spec=str(spec_copy)))) > 1
    edit(spec_copy / "core" / "scoring.bao", "opening_player = lot", "opening_player = first p in players: true")
    assert openers(load_config(spec=str(spec_copy))) == {"P1"}


HOUSE = """layer house
# The German double pluck with the French placement of added cards.
remove rule place.freed_slot
remove rule place.new_slot_when_none_is_free

rule place.new_slot
  cite fr "Carte ajoutée par pénalité ou par Toucan : son propriétaire choisit un nouvel emplacement libre et distinct"
  allow place when target.new
"""

HOUSE_SCENARIO = textwrap.dedent("""\
    title: house rules - de double pluck on a discard, fr placement of the penalty
    variants: [house]
    players: [Ana, Ben]
    layouts: {Ana: [bird3, bird7, bird4], Ben: [bird9, bird9, _]}
    deck: [bird9, bird1, bird2]
    discard: [bird10]
    active: Ana
    steps:
      - Ana: draw
      - Ana: discard
      - Ben: pluck Ana.1 Ben.2
      - Ben: place 3
        expect: illegal
      - Ben: place 4
    expect:
      layouts: {Ana: [bird3, bird7, bird4], Ben: [bird9, bird9, _, bird1]}
    """)


def test_a_house_layer_takes_de_double_pluck_and_fr_placement(spec_copy, tmp_path, capsys):
    (tmp_path / "house.bao").write_text(HOUSE, encoding="utf-8")
    (tmp_path / "baobei.yaml").write_text(f"spec: {spec_copy}\nlayers: [core, de, house]\n"
                                          "variants: {house: [core, de, house]}\n", encoding="utf-8")
    path = tmp_path / "house.yaml"
    path.write_text(HOUSE_SCENARIO, encoding="utf-8")
    code = main(["scenario", "--config", str(tmp_path / "baobei.yaml"), str(path)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert len(HOUSE.strip().splitlines()) <= 10


def test_simulation_runs_under_a_spec_copy(spec_copy):
    rules = load_rules(load_config(spec=str(spec_copy)), "de")
    stats = simulate(rules, 3, 3, 7, ["random"])
    assert stats.games == 3 and stats.rounds >= 3
