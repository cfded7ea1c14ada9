"""For an editor, the loader can collect every error instead of stopping at the first: a
syntax error drops only its declaration, each declaration's first resolution error is
kept, and texts not yet saved stand for their files. The command line still stops at the
first error, the same one."""
from __future__ import annotations

import pytest

from baobei.dsl.errors import BaobeiError
from baobei.dsl.layers import load_layers
from baobei.dsl.parser import parse_text_recovering
from baobei.dsl.resolve import resolve

from conftest import edit

LAYERS = ["core", "de"]


def _collect(spec_dir, texts=None):
    errors: list[BaobeiError] = []
    spec = resolve(load_layers(spec_dir, LAYERS, texts=texts, errors=errors), spec_dir, errors)
    return spec, errors


def line_of(path, words: str) -> int:
    """The line of a file that holds these words (so that the tests follow edits of the spec)."""
    (number,) = [n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1) if words in line]
    return number


def _where(error: BaobeiError):
    loc = error.loc
    return (error.code, loc.file.rsplit("/", 1)[-1], loc.line, loc.column, loc.end_line, loc.end_column)


def test_syntax_errors_of_several_declarations_are_all_found_and_the_others_read():
    text = ("layer x\nrule a.b assumed \"x\" allow keep whn x\n"
            "rule c.d assumed \"y\" refuse keep\n"
            "procedure p\n  set x = 1\n"          # no `end`: lost, but the next declaration is read
            "rule e.f assumed \"z\" refuse take when x = 1\n"
            "rule g.h assumed \"w\" refuse take\n")
    spec_file, errors = parse_text_recovering(text, "x.bao")
    assert [d.name for d in spec_file.decls] == ["c.d", "g.h"]
    assert [(e.loc.line, e.loc.column, e.loc.end_column) for e in errors] == [(2, 33, 36), (6, 1, 5), (6, 41, 42)]
    assert errors[0].message.startswith("unexpected 'whn'") and "'end'" in errors[1].message


def test_an_unsaved_text_stands_for_its_file(spec_copy):
    path = spec_copy / "de.bao"
    text = path.read_text(encoding="utf-8").replace("rule place.freed_slot", "rule place.freed_slot_renamed")
    spec, errors = _collect(spec_copy, {str(path.resolve()): text})
    assert errors == []
    assert "place.freed_slot_renamed" in spec.rules and "place.freed_slot" not in spec.rules


def test_each_declaration_gets_its_own_error_and_the_first_is_the_command_lines(spec_copy):
    edit(spec_copy / "de.bao", "reference.how == drawn and actor == reference.by",
         "reference.how == drawm and actor == reference.by")
    edit(spec_copy / "de.bao", "allow place when target.new and", "allow place when target.nwe and")
    edit(spec_copy / "de.bao", 'cite de "Die Einschränkung endet mit Beginn des nächsten Zuges."',
         'cite de "Die Einschränkung endet nie."')
    edit(spec_copy / "core" / "pluck.bao", "allow pluck when count(targets) == 1 and reference.how == drawn",
         "allow pluck when count(targets) = 1 and reference.how == drawn")
    _, errors = _collect(spec_copy)
    pluck, de = line_of(spec_copy / "core" / "pluck.bao", "count(targets) = 1"), spec_copy / "de.bao"
    nwe, invented = line_of(de, "target.nwe"), line_of(de, "Die Einschränkung endet nie.")
    assert [_where(e) for e in errors] == [
        ("E100", "pluck.bao", pluck, 35, pluck, 36),                          # '=' for '=='
        ("E200", "de.bao", line_of(de, "drawm"), 61, line_of(de, "drawm"), 66),
        ("E200", "de.bao", nwe, 20, nwe, 30),                                 # target.nwe
        ("E230", "de.bao", invented, 3, invented, 41),                        # the invented quotation
    ]
    with pytest.raises(BaobeiError) as first:
        resolve(load_layers(spec_copy, LAYERS), spec_copy)
    assert _where(first.value) == _where(errors[0])


def test_a_broken_definition_is_said_once_not_at_every_use(spec_copy):
    edit(spec_copy / "core" / "pluck.bao", "= if p.position > active.position", "= if p.positon > active.position")
    _, errors = _collect(spec_copy)
    assert [e.message for e in errors] == ["a player has no attribute 'positon'"]


def test_a_layer_replacing_what_does_not_exist_is_collected_with_the_rest(spec_copy):
    edit(spec_copy / "de.bao", "replace rule power.trigger.first_removed", "replace rule power.trigger.first_remove")
    edit(spec_copy / "de.bao", "limited(s) = s.moved_turn == turn", "limited(s) = s.moved_turn == tur")
    _, errors = _collect(spec_copy)
    de = spec_copy / "de.bao"
    assert [(e.code, e.loc.line) for e in errors] == [("E220", line_of(de, "replace rule power.trigger.first_remove")),
                                                      ("E200", line_of(de, "s.moved_turn == tur"))]
