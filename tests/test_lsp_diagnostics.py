"""`baobei lsp`, started as a subprocess: diagnostics as you type, for .bao files (every variant
that reads a file) and for the project's YAML files, at the exact characters, with the codes of
the command line."""
from __future__ import annotations

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from baobei.dsl.errors import BaobeiError
from baobei.dsl.loader import load_config, load_spec

from lsp_helpers import SERVER, change_file, diagnostics, open_file, project_copy, start, where

pytestmark = pytest.mark.asyncio
SCENARIO = "tests/scenarios/pluck/pluck-offensive-on-discard-give.yaml"


@pytest.fixture
def rules(tmp_path):
    return project_copy(tmp_path / "rules")


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient, rules):
    await start(lsp_client, rules)
    yield
    await lsp_client.shutdown_session()


async def test_the_shipped_spec_has_no_diagnostics(client: LanguageClient, rules):
    addresses = [open_file(client, path) for path in sorted(rules.joinpath("spec").rglob("*.bao"))]
    for address in addresses:
        assert await diagnostics(client, address) == [], address
    assert not any(client.diagnostics.values())


async def test_a_typo_gives_one_diagnostic_at_its_place_with_the_command_lines_code(client: LanguageClient, rules):
    path = rules / "spec" / "de.bao"
    text = path.read_text(encoding="utf-8")
    address = open_file(client, path)
    assert await diagnostics(client, address) == []
    typo = text.replace("reference.how == drawn and actor == reference.by", "reference.how == drawm and actor == reference.by", 1)
    change_file(client, address, typo, 2)
    (found,) = await diagnostics(client, address)
    assert where(found) == ("E200", 8, 60, 8, 65) and found.message.startswith("unknown name 'drawm'")
    assert typo.split("\n")[8][60:65] == "drawm"
    path.write_text(typo, encoding="utf-8")      # the command line finds the same, where the editor does
    with pytest.raises(BaobeiError) as cli:
        load_spec(load_config(cwd=rules), "de")
    assert (cli.value.code, cli.value.loc.line - 1, cli.value.loc.column - 1) == where(found)[:3]
    change_file(client, address, text, 3)
    assert await diagnostics(client, address) == []


async def test_every_broken_declaration_is_shown_at_once(client: LanguageClient, rules):
    path = rules / "spec" / "de.bao"
    text = path.read_text(encoding="utf-8")
    broken = (text.replace("allow pluck when count(targets) == 2 and reference.how == drawn",
                           "allow pluck when count(targets) = 2 and reference.how == drawn")
              .replace("limited(s) = s.moved_turn == turn", "limited(s) = s.moved_turn == tunr")
              .replace('cite de "Die Einschränkung endet mit Beginn des nächsten Zuges."', 'cite de "Sie endet nie."')
              .replace("replace rule power.trigger.first_removed", "replace rule power.trigger.first_remove"))
    address = open_file(client, path, broken)
    found = sorted(await diagnostics(client, address), key=lambda d: (d.range.start.line, d.range.start.character))

    def line(words: str) -> int:      # 0-based, as the protocol counts
        return next(n for n, text in enumerate(broken.splitlines()) if words in text)
    assert [where(d) for d in found] == [
        ("E100", line("count(targets) = 2"), 34, line("count(targets) = 2"), 35),      # '=' for '=='
        ("E220", line("rule power.trigger.first_remove"), 0, line("rule power.trigger.first_remove"), 39),
        ("E230", line("Sie endet nie."), 2, line("Sie endet nie."), 26),              # the invented quotation
        ("E200", line("== tunr"), 31, line("== tunr"), 35),                            # tunr
    ]
    assert all(d.source == "baobei" and d.severity == types.DiagnosticSeverity.Error for d in found)


async def test_a_core_error_found_by_one_variant_only_says_which(client: LanguageClient, rules):
    de = rules / "spec" / "de.bao"
    declared = de.read_text(encoding="utf-8") + '\ndefine only_in_de\n  assumed "a test"\n  = true\n'
    assert await diagnostics(client, open_file(client, de, declared)) == []
    path = rules / "spec" / "core" / "pluck.bao"
    text = path.read_text(encoding="utf-8")
    changed = text.replace("refuse pluck when not reference.open", "refuse pluck when not reference.open and only_in_de")
    address = open_file(client, path, changed)
    (found,) = await diagnostics(client, address)
    assert found.code == "E200" and found.message.startswith("unknown name 'only_in_de' (variants fr, optional-powers)")


async def test_the_config_an_edition_and_a_scenario_are_checked_as_you_type(client: LanguageClient, rules):
    config = rules / "baobei.yaml"
    address = open_file(client, config, config.read_text(encoding="utf-8") + "layer: [core]\n", "yaml")
    (found,) = await diagnostics(client, address)
    lines = config.read_text(encoding="utf-8").count("\n")
    assert where(found) == ("E310", lines, 0, lines, 5) and found.message.startswith("unknown key 'layer'")
    change_file(client, address, config.read_text(encoding="utf-8"), 2)
    assert await diagnostics(client, address) == []

    edition = rules / "spec" / "editions" / "standard.yaml"
    text = edition.read_text(encoding="utf-8")
    address = open_file(client, edition, text.replace("shoebill:", "shoebil:", 1), "yaml")
    (found,) = await diagnostics(client, address)
    line = text.split("\n").index(next(l for l in text.split("\n") if "shoebill:" in l))
    assert found.code == "E300" and "'shoebil'" in found.message and found.range.start.line == line

    scenario = rules / SCENARIO
    text = scenario.read_text(encoding="utf-8")
    address = open_file(client, scenario, _replaced(text, "  Ben: [bird3, bird2", "  Ben: [bird33, bird2"), "yaml")
    (found,) = await diagnostics(client, address)
    row = text.split("\n").index("  Ben: [bird3, bird2, bird4]")
    assert where(found) == ("E400", row, 8, row, 14) and "unknown card 'bird33'" in found.message


async def test_a_scenario_move_that_cannot_be_read(client: LanguageClient, rules):
    scenario = rules / SCENARIO
    text = scenario.read_text(encoding="utf-8")
    address = open_file(client, scenario, _replaced(text, "  - Ben: pluck Cy.2", "  - Ben: plick Cy.2"), "yaml")
    (found,) = await diagnostics(client, address)
    row = text.split("\n").index("  - Ben: pluck Cy.2")
    assert where(found) == ("E410", row, 9, row, 19) and "unknown move 'plick'" in found.message


def _replaced(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)
