"""`baobei rulebook`: the rules as a document (sentences from the syntax trees through the
phrasebook, citations, origins, --compare) and the rulebook coverage (--coverage, and check)."""
from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from baobei.cli import main
from baobei.coverage import coverage, read_book
from baobei.dsl.loader import load_config, load_spec
from baobei.phrases import render
from baobei.rulebook import build_document, phrasebook_for, to_html, to_markdown

from conftest import ROOT, SPEC, edit

VARIANTS = ("fr", "de", "optional-powers")


def run_cli(capsys, *args) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


# ---- the document ------------------------------------------------------------------------------

@pytest.mark.parametrize("variant", ["fr", "de"])
def test_every_rule_of_the_edition_is_in_its_document_with_every_citation(config, variant):
    spec = load_spec(config, variant)
    text = to_html(build_document(config, variant))
    for table in (spec.rules, spec.claims, spec.invariants, spec.procedures, spec.handlers, spec.powers, spec.cards):
        for decl in table.values():
            assert f"<code>{html.escape(decl.name)}</code>" in text, decl.name
            for source in decl.sources:
                assert html.escape(source.text, quote=True) in text, (decl.name, source.text)
    # both languages are shown for a rule citing both rulebooks, each under its own label
    assert '<span class="lang">fr</span>' in text and '<span class="lang">de</span>' in text


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_shipped_phrasebook_renders_every_declaration(config, variant):
    document = build_document(config, variant)
    assert document.missing == []
    assert "no phrase for" not in to_html(document) and "no phrase for" not in to_markdown(document)
    # a sentence for every declaration shown, none of them the bare DSL
    assert all(entry.rendered.sentence and "`" not in entry.rendered.sentence for entry in document.entries())


def test_sentences_come_from_the_trees_through_the_phrasebook(config):
    document = build_document(config, "fr")
    by_name = {entry.decl.name: entry for entry in document.entries()}
    own_draw = by_name["pluck.double.own_draw"]
    assert own_draw.label == "rule" and own_draw.origin == "variant"
    sentence = own_draw.rendered.sentence
    assert sentence.startswith("A player may try a pluck, if the number of the named slots is 2")
    assert "the first named slot belongs to the player and the second named slot belongs to the player" in sentence
    assert by_name["score.bao_failure_at_least_5"].rendered.sentence.startswith("Guaranteed: ")
    assert by_name["bao.shield_belongs_to_a_caller"].rendered.sentence.startswith("Guaranteed at every moment")
    steps = by_name["keep"].rendered.steps
    assert steps[0] == "The first named slot goes face up onto the discard, as a card laid on the discard in " \
                       "place of a kept or taken card."


def test_sections_follow_the_layers_with_the_files_comments(config):
    document = build_document(config, "de")
    paths = [section.path.relative_to(SPEC).as_posix() for section in document.sections]
    assert paths[-1] == "de.bao" and all(p.startswith("core/") for p in paths[:-1])
    pluck = next(s for s in document.sections if s.path.name == "pluck.bao")
    assert pluck.intro.startswith("Plucking (")
    headings = [item.title for item in pluck.items if not hasattr(item, "decl")]
    assert headings == ["who may pluck", "what a pluck does"]
    # a core rule the edition replaces is shown where the core writes it, marked replaced
    first_removed = [e for e in document.entries() if e.decl.name == "power.trigger.first_removed"]
    assert [e.status for e in first_removed] == ["replaced by layer de", ""]


def test_the_edition_is_in_the_document_with_what_is_assumed(config):
    text = to_markdown(build_document(config, "fr"))
    assert "## The edition: standard" in text and "### deck (assumed)" in text and "### deal\n" in text
    assert "| 2 players | 5 cards |" in text and "| white_pelican | 3 |" in text


def test_a_missing_phrase_shows_the_dsl_text_with_a_note(config):
    book = phrasebook_for(config).without("operators", "and")
    spec = load_spec(config, "fr")
    rendered = render(spec.rules["pluck.double.own_draw"], book)
    assert rendered.missing == ["(no phrase for operator 'and')"]
    assert rendered.sentence.startswith("A player may try a pluck, if `count(targets) == 2 and reference.how == drawn")
    document = build_document(config, "fr", book)
    assert "rule pluck.double.own_draw: (no phrase for operator 'and')" in document.missing
    assert "(no phrase for operator &#x27;and&#x27;)" in to_html(document)
    book = phrasebook_for(config).without("attributes", "card")
    assert render(spec.handlers["pluck"], book).missing == ["(no phrase for attribute 'card')"]


@pytest.fixture
def house_project(tmp_path) -> Path:
    """A rules project with a house layer over the French rules and a phrasebook of its own."""
    root = tmp_path / "rules"
    root.mkdir()
    shutil.copytree(SPEC, root / "spec", ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    (root / "house.bao").write_text(
        'layer house\n# Our table: a player may always pass.\n\n# ---- at our table ----\n\n'
        'rule pass.always\n  assumed "house rule: passing is always allowed"\n  allow pass\n', encoding="utf-8")
    (root / "phrases.yaml").write_text('moves:\n  pass: say "pass"\n', encoding="utf-8")
    (root / "baobei.yaml").write_text("layers: [core, fr, house]\nphrasebook: phrases.yaml\n", encoding="utf-8")
    return root


def test_a_house_layer_is_a_section_of_its_own_with_its_rules_marked(house_project, capsys, monkeypatch):
    monkeypatch.chdir(house_project)
    code, out, _ = run_cli(capsys, "rulebook", "--variant", "house", "--out", "book")
    assert code == 0 and "house: " in out and "0 without a phrase" in out
    assert "-> book/rulebook-house.html" in out        # relative to where it runs
    text = (house_project / "book" / "rulebook-house.html").read_text(encoding="utf-8")
    section = text[text.index("<h2>house.bao"):]
    assert '<span class="badge house">house rule</span>' in section and 'class="decl house"' in section
    assert "Our table: a player may always pass." in section and "<h3>at our table</h3>" in section
    # the house phrasebook overrides the spec's phrase for the move
    assert 'A player may say &quot;pass&quot;.' in section
    assert "house rule: passing is always allowed" in section
    # the French rules stay marked as the edition layer, the core's as core
    assert 'class="decl variant"' in text and 'class="decl core"' in text
    code, out, _ = run_cli(capsys, "rulebook", "--variant", "house", "--out", "book", "--format", "md")
    markdown = (house_project / "book" / "rulebook-house.md").read_text(encoding="utf-8")
    assert code == 0 and "#### `pass.always` — *rule* · **HOUSE RULE**" in markdown


def test_a_broken_phrasebook_is_an_error_at_its_line(house_project, capsys, monkeypatch):
    monkeypatch.chdir(house_project)
    (house_project / "phrases.yaml").write_text("moves:\n  pass: say pass\nverbs:\n  x: y\n", encoding="utf-8")
    code, _, err = run_cli(capsys, "rulebook", "--variant", "house")
    assert code == 2 and "phrases.yaml:3:1: error[E320]: unknown phrasebook section 'verbs'" in err
    (house_project / "phrases.yaml").write_text("levels:\n  on: handler\n", encoding="utf-8")
    code, _, err = run_cli(capsys, "rulebook", "--variant", "house")
    assert code == 2 and "phrases.yaml:1:1: error[E320]" in err and "quote it" in err
    (house_project / "baobei.yaml").write_text("layers: [core, fr, house]\nphrasebook: nowhere.yaml\n",
                                               encoding="utf-8")
    code, _, err = run_cli(capsys, "rulebook", "--variant", "house")
    assert code == 2 and "baobei.yaml:2:1: error[E310]: 'phrasebook: nowhere.yaml': no such file" in err
    assert "Traceback" not in err


def test_compare_marks_the_double_pluck_rules_and_lists_diffs_findings(config, tmp_path, capsys):
    code, out, _ = run_cli(capsys, "rulebook", "--variant", "fr", "--compare", "de", "--out", str(tmp_path),
                           "--format", "md", "--players", "3", "--slots", "4")
    assert code == 0 and "comparing fr with de" in out
    text = (tmp_path / "rulebook-fr.md").read_text(encoding="utf-8")
    own_draw = text[text.index("#### `pluck.double.own_draw`"):]
    own_draw = own_draw[:own_draw.index("\n####")]
    assert "**DIFFERS**" in own_draw and "**diff #" in own_draw
    # the other side's sentence, side by side: in de the targets may be anyone's
    assert "> In de: A player may try a pluck, if the number of the named slots is 2" in own_draw
    assert "belongs to the player" not in own_draw.split("> In de:")[1].split("\n")[0]
    assert "#### `power.movement_limit.same_player_same_sequence` — *rule* · *edition layer* · **ONLY HERE**" in text
    assert "### Only in de" in text and "#### `pluck.double.on_a_regular_discard`" in text
    # the differences as baobei diff prints them: classes, rules and witnesses
    found = text[text.index("### What baobei diff finds"):]
    assert "diff fr de" in found and "witness:" in found and "pluck.double.on_a_regular_discard" in found
    # rules the same in both are not marked
    same = text[text.index("#### `bao.end_of_own_turn`"):]
    assert "DIFFERS" not in same[:same.index("\n####")]


def test_a_misspelt_variant_is_bad_input(capsys):
    code, _, err = run_cli(capsys, "rulebook", "--variant", "fx")
    assert code == 2 and "error[E310]" in err and "Traceback" not in err


# ---- coverage ------------------------------------------------------------------------------------

def test_every_passage_of_both_rulebooks_is_cited_or_explained(config):
    found = coverage(config)
    assert {b.book.name for b in found.books} == {"fr", "de"}
    for book in found.books:
        assert book.unaccounted == [] and book.stale == [], book.line()
        assert book.percent == 100.0 and len(book.covered) > 100
        assert len(book.book.passages) == len([l for l in book.book.path.read_text(encoding="utf-8").splitlines()
                                               if l.strip()])
    assert found.ok


def test_a_passage_is_one_line_and_a_quotation_covers_every_line_it_spans(tmp_path):
    path = tmp_path / "xx.txt"
    path.write_text("First line. Its second sentence.\n\n  Second line\nthird line.\n", encoding="utf-8")
    book = read_book(path)
    assert [(p.line, p.text) for p in book.passages] == [(1, "First line. Its second sentence."),
                                                          (3, "Second line"), (4, "third line.")]
    assert [p.line for p in book.overlapping("sentence. Second")] == [1, 3]
    assert [p.line for p in book.overlapping("line")] == [1, 3, 4]


def test_scenario_citations_count(config):
    found = {b.book.name: b for b in coverage(config).books}["de"]
    passage = next(p for p in found.book.passages if p.text.startswith("• Eine Karte entfernen: Ihr Platz"))
    assert any(who.startswith("scenario tests/scenarios/turn/") for who in passage.cited_by)
    assert any(who.startswith("procedure pluck_succeeds (spec/core/pluck.bao:") for who in passage.cited_by)


def test_the_spec_alone_accounts_for_every_passage(tmp_path):
    """A project without the scenario files (a copy of the spec, the packaged spec) is complete too."""
    shutil.copytree(SPEC, tmp_path / "spec", ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    (tmp_path / "baobei.yaml").write_text("layers: [core, fr]\n", encoding="utf-8")
    found = coverage(load_config(cwd=tmp_path))
    assert found.ok and all(not who.startswith("scenario") for b in found.books for p in b.book.passages
                            for who in p.cited_by)


def test_coverage_command_prints_the_figures(capsys):
    code, out, _ = run_cli(capsys, "rulebook", "--coverage")
    assert code == 0
    assert re.search(r"^fr: \d+ passages, \d+ covered, \d+ explained, 0 unaccounted \(100\.0% accounted for\)$", out,
                     re.M)
    assert re.search(r"^de: \d+ passages, \d+ covered, \d+ explained, 0 unaccounted", out, re.M)


def test_an_unexplained_passage_fails_coverage_and_check(spec_copy, capsys):
    edit(spec_copy / "rulebooks" / "uncited.yaml",
         '  - passage: "Beispiele:"\n    why: "a title: the heading of a list of examples"\n', "")
    code, out, _ = run_cli(capsys, "rulebook", "--coverage", "--spec", str(spec_copy))
    line = next(number for number, text in enumerate(
        (spec_copy / "rulebooks" / "de.txt").read_text(encoding="utf-8").splitlines(), start=1) if text == "Beispiele:")
    assert code == 1 and "1 unaccounted" in out and f"de.txt:{line}: Beispiele:" in out
    code, out, _ = run_cli(capsys, "check", "--variant", "fr", "--players", "2", "--slots", "4", "--games", "0",
                           "--spec", str(spec_copy))
    assert code == 1 and "rulebook coverage" in out and f"de.txt:{line}: Beispiele:" in out
    assert out.rstrip().splitlines()[-1].startswith("FINDINGS")
    code, out, _ = run_cli(capsys, "check", "--variant", "fr", "--players", "2", "--slots", "4", "--games", "0",
                           "--spec", str(spec_copy), "--json")
    assert code == 1 and json.loads(out)["rulebooks"]["de"]["unaccounted"][0].endswith(f"de.txt:{line}")


def test_a_stale_entry_is_reported(spec_copy, capsys):
    uncited = spec_copy / "rulebooks" / "uncited.yaml"
    uncited.write_text(uncited.read_text(encoding="utf-8").replace(
        "de:\n", 'de:\n  - passage: "Pro Referenzkarte ist nur ein Versuch erlaubt"\n    why: "x"\n', 1),
        encoding="utf-8")
    code, out, _ = run_cli(capsys, "rulebook", "--coverage", "--spec", str(spec_copy))
    assert code == 1 and "stale entry:" in out and "uncited.yaml:" in out and "remove the entry" in out


@pytest.mark.parametrize("text, where, words", [
    ('fr:\n  - passage: "no such passage here"\n    why: "x"\n', "2:5", "not in the fr rulebook"),
    ('fr:\n  - passage: "joueur"\n    why: "x"\n', "2:5", "passages (lines"),
    ('fr:\n  - passage: "Beispiele:"\n', "2:5", "exactly two keys"),
    ('xx:\n  - passage: "a"\n    why: "b"\n', "1:1", "no rulebook of that name"),
    ('fr:\n  - passage: "a\n', "3:1", "not valid YAML"),
])
def test_a_broken_uncited_file_is_an_error_at_its_line(spec_copy, capsys, text, where, words):
    (spec_copy / "rulebooks" / "uncited.yaml").write_text(text, encoding="utf-8")
    code, _, err = run_cli(capsys, "rulebook", "--coverage", "--spec", str(spec_copy))
    assert code == 2 and f"uncited.yaml:{where}: error[E320]" in err and words in err, err
    assert "Traceback" not in err
    code, _, err = run_cli(capsys, "check", "--variant", "fr", "--spec", str(spec_copy))
    assert code == 2 and f"uncited.yaml:{where}: error[E320]" in err


def test_help_stays_fast_and_imports_nothing_heavy():
    probe = ("import sys; from baobei.cli import main\ntry: main(['rulebook', '--help'])\nexcept SystemExit: pass\n"
             "print(sorted(m for m in sys.modules if m.startswith(('baobei.rulebook', 'baobei.coverage', "
             "'baobei.phrases', 'z3', 'lark'))))")
    done = subprocess.run([sys.executable, "-P", "-c", probe], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0 and done.stdout.strip().endswith("[]"), done.stdout + done.stderr
    assert "--compare Y" in done.stdout and "--coverage" in done.stdout


def test_a_house_name_without_a_phrase_is_noted_until_the_house_phrasebook_has_one(house_project, capsys,
                                                                                   monkeypatch):
    monkeypatch.chdir(house_project)
    edit(house_project / "house.bao", "  allow pass\n",
         '  allow pass when generous\n\ndefine generous\n  assumed "house rule: we are generous"\n  = true\n')
    code, out, _ = run_cli(capsys, "rulebook", "--variant", "house", "--out", "book", "--format", "md")
    assert code == 0 and "house: " in out and "2 without a phrase" in out
    assert "  rule pass.always: (no phrase for name 'generous')" in out
    assert "  define generous: (no phrase for name 'generous')" in out
    text = (house_project / "book" / "rulebook-house.md").read_text(encoding="utf-8")
    assert "A player may say \"pass\", if `generous`." in text and "**(no phrase for name 'generous')**" in text
    (house_project / "phrases.yaml").write_text('moves:\n  pass: say "pass"\nnames:\n  generous: we are generous\n',
                                                encoding="utf-8")
    code, out, _ = run_cli(capsys, "rulebook", "--variant", "house", "--out", "book", "--format", "md")
    text = (house_project / "book" / "rulebook-house.md").read_text(encoding="utf-8")
    assert code == 0 and "0 without a phrase" in out and 'A player may say "pass", if we are generous.' in text
