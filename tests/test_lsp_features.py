"""`baobei lsp`, started as a subprocess, on a copy of this project: hover, definitions and
references across layers, symbols, completion, the code lens from the scenario files and
formatting. The expected answers are read from the spec itself."""
from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from baobei.dsl import ast, schema
from baobei.dsl.formatting import comments, format_text
from baobei.dsl.loader import load_config
from baobei.dsl.parser import parse_text
from baobei.interpreter.rules import load_rules
from baobei.interpreter.scenario import load_scenario, run_scenario, scenario_files

from lsp_helpers import SERVER, WAIT, change_file, diagnostics, open_file, position, project_copy, start, uri

pytestmark = pytest.mark.asyncio(loop_scope="module")
RULE = "pluck.double.own_draw"      # declared by both editions, differently


@pytest.fixture(scope="module")
def rules(tmp_path_factory):
    return project_copy(tmp_path_factory.mktemp("lsp") / "rules")


@pytest_lsp.fixture(config=SERVER, scope="module")
async def client(lsp_client: LanguageClient, rules):
    lsp_client.lens_refreshes = 0

    @lsp_client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def refreshed(params):
        lsp_client.lens_refreshes += 1
    await start(lsp_client, rules)
    yield
    await lsp_client.shutdown_session()


async def _opened(client: LanguageClient, path: Path) -> tuple[str, str]:
    address = open_file(client, path)
    assert await diagnostics(client, address) == []
    return address, path.read_text(encoding="utf-8")


def _at(address: str, where: types.Position) -> dict:
    return {"text_document": types.TextDocumentIdentifier(uri=address), "position": where}


def _decl(path: Path, name: str) -> ast.Decl:
    return next(d for d in parse_text(path.read_text(encoding="utf-8"), str(path)).decls if d.name == name)


def _line_of(path: Path, words: str) -> int:
    """The line that begins with these words."""
    return next(i for i, line in enumerate(path.read_text(encoding="utf-8").split("\n"))
                if line == words or line.startswith(words + " "))


def _paragraph(book: Path, quote: str) -> str:
    return next(" ".join(p.split()) for p in book.read_text(encoding="utf-8").split("\n\n") if quote in " ".join(p.split()))


# ---- hover -------------------------------------------------------------------------------------

async def test_hover_on_a_rule_shows_both_editions_rules_and_their_citations(client: LanguageClient, rules):
    address, text = await _opened(client, rules / "spec" / "de.bao")
    hover = await client.text_document_hover_async(types.HoverParams(**_at(address, position(text, RULE, offset=3))))
    shown = hover.contents.value
    assert shown.startswith(f"**rule** `{RULE}` · layer de") and "**in fr, optional-powers**" in shown   # the fr-based variants of baobei.yaml
    for edition in ("de", "fr"):
        decl = _decl(rules / "spec" / f"{edition}.bao", RULE)
        assert decl.sources
        for source in decl.sources:
            assert f"**cite {source.edition}**: «{source.text}»" in shown
    first = _decl(rules / "spec" / "de.bao", RULE).sources[0]
    paragraph = _paragraph(rules / "spec" / "rulebooks" / "de.txt", first.text)
    assert paragraph != first.text and f"> {paragraph}" in shown      # the paragraph around the quotation


async def test_hover_on_a_card_shows_its_value_family_and_power(client: LanguageClient, rules):
    path = rules / "spec" / "core" / "cards.bao"
    address, text = await _opened(client, path)
    card = next(d for d in parse_text(text, str(path)).decls if isinstance(d, ast.CardDecl) and d.power)
    hover = await client.text_document_hover_async(types.HoverParams(**_at(address, position(text, f"card {card.name}", offset=6))))
    assert f"value **{card.value}** · family `{card.family}` · power `{card.power}`" in hover.contents.value


async def test_hover_on_a_name_in_a_condition_shows_its_type_and_definition(client: LanguageClient, rules):
    address, text = await _opened(client, rules / "spec" / "de.bao")
    hover = await client.text_document_hover_async(types.HoverParams(**_at(address, position(text, "not pluck_double", offset=5))))
    assert hover.contents.value.startswith("`pluck_double : bool`")
    assert "**var** `pluck_double` · layer core" in hover.contents.value and "var pluck_double : bool = false" in hover.contents.value
    hover = await client.text_document_hover_async(types.HoverParams(**_at(address, position(text, "reference.how"))))
    assert hover.contents.value.startswith(f"`reference : reference` — {schema.GLOBALS['reference'][1]}")


# ---- definitions and references ------------------------------------------------------------------

async def test_a_replace_goes_to_the_rule_it_replaces(client: LanguageClient, rules):
    address, text = await _opened(client, rules / "spec" / "de.bao")
    name = "power.trigger.first_removed"
    found = await client.text_document_definition_async(types.DefinitionParams(
        **_at(address, position(text, f"replace rule {name}", offset=15))))
    core = rules / "spec" / "core" / "powers.bao"
    line = _line_of(core, f"rule {name}")
    assert [(l.uri, l.range.start.line, l.range.start.character, l.range.end.character) for l in found] == \
        [(uri(core), line, 5, 5 + len(name))]


@pytest.mark.parametrize("file, written, offset, declared", [
    ("de.bao", "not pluck_double", 4, ("core/round.bao", "var pluck_double")),
    ("core/cards.bao", "family pelican,", 7, ("core/cards.bao", "family pelican")),
    ("core/pluck.bao", "allow pluck when count(targets) == 1 and reference.how == drawn", 6, ("core/pluck.bao", "on pluck")),
    ("core/round.bao", "    turn()", 4, ("core/round.bao", "procedure turn")),
    ("core/round.bao", "not actor.peeked", 10, ("core/round.bao", "var player.peeked")),
])
async def test_a_name_goes_to_its_declaration(client: LanguageClient, rules, file, written, offset, declared):
    address, text = await _opened(client, rules / "spec" / file)
    found = await client.text_document_definition_async(types.DefinitionParams(**_at(address, position(text, written, offset=offset))))
    target = rules / "spec" / declared[0]
    assert [(l.uri, l.range.start.line) for l in found] == [(uri(target), _line_of(target, declared[1]))]


async def test_the_references_of_a_variable_are_every_place_it_is_written(client: LanguageClient, rules):
    address, text = await _opened(client, rules / "spec" / "de.bao")
    found = await client.text_document_references_async(types.ReferenceParams(
        context=types.ReferenceContext(include_declaration=True), **_at(address, position(text, "not pluck_double", offset=4))))
    written = set()
    for path in (rules / "spec").rglob("*.bao"):
        source = path.read_text(encoding="utf-8")
        for match in re.finditer(r"\bpluck_double\b", source):
            line = source.count("\n", 0, match.start())
            if not any(c.line == line + 1 for c in comments(source) if c.column - 1 < match.start() - source.rfind("\n", 0, match.start())):
                written.add((uri(path), line))
    assert {(l.uri, l.range.start.line) for l in found} == written and len(written) > 3


# ---- symbols ---------------------------------------------------------------------------------------

async def test_the_outline_is_the_files_declarations(client: LanguageClient, rules):
    path = rules / "spec" / "de.bao"
    address, text = await _opened(client, path)
    symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(
        text_document=types.TextDocumentIdentifier(uri=address)))
    assert [s.name for s in symbols] == [d.name for d in parse_text(text, str(path)).decls]
    first = symbols[0]
    assert (first.selection_range.start.line, first.selection_range.start.character) == \
        (position(text, RULE).line, position(text, RULE).character)


async def test_workspace_symbols_find_a_rule_in_every_layer(client: LanguageClient, rules):
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query=RULE))
    assert sorted(s.location.uri for s in found if s.name == RULE) == sorted(
        [uri(rules / "spec" / "de.bao"), uri(rules / "spec" / "fr.bao")])


# ---- completion ------------------------------------------------------------------------------------

@pytest.mark.parametrize("typed, expected", [
    ("replace rule ", lambda spec: set(spec.rules)),
    ("card x value 1, family ", lambda spec: set(spec.families)),
    ("  allow pluck when reference.", lambda spec: set(schema.attributes("reference", ast.Type("how")))),
    ("  allow pluck when actor.", lambda spec: set(schema.attributes("player", ast.Type("how"))) | set(spec.player_vars)),
    ("  allow ", lambda spec: set(schema.MOVE_KINDS)),
    ("  ask user: ", lambda spec: set(schema.MOVE_KINDS)),
])
async def test_completion(client: LanguageClient, rules, typed, expected):
    scratch = rules / "spec" / "scratch.bao"      # in no layer: the project's names all the same
    address = open_file(client, scratch, typed)
    await diagnostics(client, address)
    found = await client.text_document_completion_async(types.CompletionParams(
        **_at(address, types.Position(line=0, character=len(typed)))))
    spec = load_rules(load_config(cwd=rules), "fr").spec
    assert {item.label for item in found.items} >= expected(spec) and expected(spec)
    if typed.endswith("."):
        assert {item.label for item in found.items} == expected(spec)
    client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=address)))


# ---- code lens ---------------------------------------------------------------------------------------

async def test_a_rules_lens_counts_the_scenario_steps_it_decided_and_runs_them(client: LanguageClient, rules):
    address, text = await _opened(client, rules / "spec" / "de.bao")

    async def counted():
        while True:
            lenses = await client.text_document_code_lens_async(types.CodeLensParams(
                text_document=types.TextDocumentIdentifier(uri=address)))
            if lenses and not any("counting" in lens.command.title for lens in lenses):
                return lenses
            await asyncio.sleep(0.2)
    lenses = await asyncio.wait_for(counted(), WAIT * 2)
    line = position(text, RULE).line
    (lens,) = [lens for lens in lenses if lens.range.start.line == line]
    config = load_config(cwd=rules)
    de = load_rules(config, "de")
    steps = runs = 0
    for path in scenario_files([str(rules / "tests" / "scenarios")]):
        scenario = load_scenario(path)
        if "de" in scenario.variants:
            decided = [step for step, names in run_scenario(scenario, de).step_rules.items() if RULE in names]
            steps, runs = steps + len(decided), runs + bool(decided)
    assert steps and lens.command.title == f"decided {steps} scenario steps (de {steps})"
    assert client.lens_refreshes >= 1       # the server asked for the lenses again once it had counted
    outcome = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command=lens.command.command, arguments=lens.command.arguments))
    assert outcome == {"rule": RULE, "runs": runs, "passed": runs, "failed": []}


# ---- formatting --------------------------------------------------------------------------------------

async def test_formatting_gives_the_canonical_layout_with_the_comments(client: LanguageClient, rules):
    messy = 'layer house\n# a house rule\nrule   house.x   # why\n   assumed "the house"\n  refuse   keep when   (turn > 3)\n'
    address = open_file(client, rules / "spec" / "house.bao", messy)
    await diagnostics(client, address)
    options = types.FormattingOptions(tab_size=2, insert_spaces=True)
    (edit,) = await client.text_document_formatting_async(types.DocumentFormattingParams(
        text_document=types.TextDocumentIdentifier(uri=address), options=options))
    assert edit.new_text == format_text(messy) == \
        'layer house\n# a house rule\nrule house.x  # why\n  assumed "the house"\n  refuse keep when turn > 3\n'
    assert (edit.range.start.line, edit.range.end.line) == (0, messy.count("\n"))
    broken = open_file(client, rules / "spec" / "broken.bao", "rule x refuse keep when\n")
    await diagnostics(client, broken)
    assert not await client.text_document_formatting_async(types.DocumentFormattingParams(
        text_document=types.TextDocumentIdentifier(uri=broken), options=options))


# ---- a damaged file ------------------------------------------------------------------------------

async def test_hover_on_a_replaced_rule_shows_the_version_it_replaces(client: LanguageClient, rules):
    address, text = await _opened(client, rules / "spec" / "de.bao")
    name = "power.trigger.first_removed"
    hover = await client.text_document_hover_async(types.HoverParams(
        **_at(address, position(text, f"replace rule {name}", offset=15))))
    shown = hover.contents.value
    assert shown.startswith(f"**rule** `{name}` · layer de") and "**in fr, optional-powers**: rule · layer core" in shown
    for edition in ("de.bao", "core/powers.bao"):
        for source in _decl(rules / "spec" / edition, name).sources:
            assert source.text in shown


async def test_the_rest_of_a_damaged_file_is_still_understood(client: LanguageClient, rules):
    path = rules / "spec" / "de.bao"
    address, text = await _opened(client, path)
    damaged = text.replace("allow pluck when count(targets) == 2 and reference.how == drawn",
                           "allow pluck when count(targets) == == 2 and reference.how == drawn", 1)
    change_file(client, address, damaged, 2)
    (found,) = await diagnostics(client, address)
    assert found.code == "E100"
    name = "power.trigger.first_removed"
    found = await client.text_document_definition_async(types.DefinitionParams(
        **_at(address, position(damaged, f"replace rule {name}", offset=15))))
    assert [l.uri for l in found] == [uri(rules / "spec" / "core" / "powers.bao")]
    hover = await client.text_document_hover_async(types.HoverParams(**_at(address, position(damaged, "not pluck_double", offset=5))))
    assert hover.contents.value.startswith("`pluck_double : bool`")
    symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(
        text_document=types.TextDocumentIdentifier(uri=address)))
    assert [s.name for s in symbols] == [d.name for d in parse_text(text, str(path)).decls][1:]
    change_file(client, address, text, 3)
    assert await diagnostics(client, address) == []
