"""The rules language: syntax errors and semantic errors name file, line, column and what was expected."""
from __future__ import annotations

import pytest

from baobei.dsl import ast
from baobei.dsl.errors import (BaobeiError, SpecCitationError, SpecLayerError, SpecNameError, SpecSyntaxError,
                               SpecTypeError)
from baobei.dsl.loader import load_config, load_spec
from baobei.dsl.parser import parse_text

from conftest import edit


def parse_error(text: str) -> SpecSyntaxError:
    with pytest.raises(SpecSyntaxError) as caught:
        parse_text(text, "test.bao")
    return caught.value


def test_a_rule_parses_into_typed_nodes_with_positions():
    spec_file = parse_text('rule pluck.x\n  cite fr "a"\n  allow pluck when count(targets) == 1 and actor == active\n',
                           "test.bao")
    (rule,) = spec_file.decls
    assert isinstance(rule, ast.RuleDecl) and rule.name == "pluck.x" and rule.level == 1
    assert rule.body.moves == ["pluck"] and rule.body.allow is True
    assert rule.when.op == "and" and (rule.loc.line, rule.loc.column) == (1, 1)
    assert rule.when.loc.line == 3


def test_exceptions_and_defaults_have_their_levels():
    decls = parse_text('exception a.b assumed "x" refuse keep\ndefault c assumed "y" refuse keep, take\n', "t.bao").decls
    assert [d.level for d in decls] == [2, 0]
    assert decls[1].body.moves == ["keep", "take"]


def test_syntax_error_says_where_and_what_was_expected():
    error = parse_error("rule a.b\n  cite fr \"x\"\n  allow pluck when actor = active\n")
    assert (error.loc.line, error.loc.column) == (3, 26)
    assert "unexpected '='" in error.message and "==" in error.message
    rendered = error.render()
    assert "test.bao:3:26" in rendered and "allow pluck when actor = active" in rendered
    assert rendered.splitlines()[-1].strip() == "^"


def test_unexpected_end_of_file():
    error = parse_error("procedure p\n  ask active: draw\n")
    assert "end of the file" in error.message and "'end'" in error.message


def test_unknown_character():
    error = parse_error("rule r assumed \"x\" allow pluck when $\n")
    assert "unexpected character '$'" in error.message and error.loc.column == 37


def test_a_card_needs_a_value_and_a_family():
    assert "needs a family" in parse_error("card x value 3\n").message


@pytest.mark.parametrize("old,new,error_type,words", [
    ("card shoebill       value 13, family shoebill,", "card shoebill       value 13, family shoebil,",
     SpecNameError, "unknown family 'shoebil'"),
    ("allow pluck when count(targets) == 1 and reference.how == drawn and actor == reference.by",
     "allow pluck when count(targets) == 1 and reference.how == drawn and actor == reference.bye",
     SpecNameError, "no attribute 'bye'"),
    ("allow pluck when count(targets) == 1 and reference.how == drawn and actor == reference.by",
     "allow pluck when count(targets) == true and reference.how == drawn and actor == reference.by",
     SpecTypeError, "compares an int with a bool"),
    ("refuse pluck when not reference.open", "refuse plick when not reference.open",
     SpecNameError, "unknown move 'plick'"),
    ("cite fr \"Une carte de référence n'autorise qu'une seule tentative, réussie ou ratée.\"",
     "cite fr \"Une carte de référence autorise deux tentatives.\"", SpecCitationError, "not in the fr rulebook"),
])
def test_semantic_errors_name_the_place(spec_copy, old, new, error_type, words):
    path = spec_copy / "core" / ("cards.bao" if "shoebill" in old else "pluck.bao")
    edit(path, old, new)
    with pytest.raises(error_type) as caught:
        load_spec(load_config(spec=str(spec_copy)), "fr")
    error = caught.value
    assert words in error.message
    assert error.loc.file == str(path)
    line = path.read_text().splitlines()[error.loc.line - 1]
    assert new.split()[0] in line or new.split()[-1].strip('"') in line


def test_a_rule_must_cite_its_rulebook(spec_copy):
    path = spec_copy / "core" / "pluck.bao"
    edit(path, '''  cite fr "Une carte de référence n'autorise qu'une seule tentative, réussie ou ratée."
  cite de "Pro Referenzkarte ist nur ein Versuch erlaubt, ob richtig oder falsch."
  cite de "Mit dem Fehlversuch ist die einzige Möglichkeit für diese Referenz aufgebraucht"
  cite de "Nur ein Versuch pro Referenzkarte, einfach oder doppelt."
  cite fr "La tentative échouée met fin à la possibilité de Déplumage sur cette référence"
''', "")
    with pytest.raises(SpecNameError) as caught:
        load_spec(load_config(spec=str(spec_copy)), "fr")
    assert "cites no rulebook passage" in caught.value.message
    assert "pluck.one_attempt_per_reference" in caught.value.message


@pytest.mark.parametrize("layer_text,words", [
    ("replace rule pluck.nothing_like_this\n  assumed \"x\"\n  refuse pluck\n", "no rule of that name to replace"),
    ("remove rule pluck.nothing_like_this\n", "no rule of that name"),
    ("rule pluck.on_own_draw\n  assumed \"x\"\n  refuse pluck\n", "already declared"),
])
def test_layer_errors(spec_copy, layer_text, words):
    (spec_copy / "house.bao").write_text("layer house\n" + layer_text, encoding="utf-8")
    config = load_config(spec=str(spec_copy), layers=["core", "fr", "house"])
    with pytest.raises(SpecLayerError) as caught:
        load_spec(config)
    assert words in caught.value.message
    assert caught.value.loc.file.endswith("house.bao") and caught.value.loc.line == 2


def test_every_error_is_a_baobei_error_with_a_code():
    error = parse_error("rule")
    assert isinstance(error, BaobeiError) and error.code == "E100"


def test_both_editions_resolve_and_differ_only_by_their_layers(config):
    fr, de = load_spec(config, "fr"), load_spec(config, "de")
    assert fr.layers == ["core", "fr"] and de.layers == ["core", "de"]
    core_fr = {name: str(rule.loc) for name, rule in fr.rules.items() if rule.layer == "core"}
    core_de = {name: str(rule.loc) for name, rule in de.rules.items() if rule.layer == "core"}
    replaced = {"power.trigger.drawn_card_plucks", "power.trigger.first_removed", "power.trigger.drawn_then_discarded"}
    assert set(core_fr) - set(core_de) == replaced and set(core_de) <= set(core_fr)
    assert all(core_fr[name] == loc for name, loc in core_de.items())
    assert {de.rules[name].layer for name in replaced} == {"de"}
