"""The VS Code extension (editors/vscode/) agrees with the language: its TextMate grammar knows
exactly the keywords of dsl/grammar.lark, finds the names the spec's declarations give and its
citations, and its manifest points at files that exist and starts `baobei lsp`."""
from __future__ import annotations

import json
import re

import pytest

from baobei.cli import build_parser
from baobei.dsl.parser import parse_text

from conftest import ROOT, SPEC

EXTENSION = ROOT / "editors" / "vscode"
GRAMMAR = json.loads((EXTENSION / "syntaxes" / "bao.tmLanguage.json").read_text(encoding="utf-8"))
MANIFEST = json.loads((EXTENSION / "package.json").read_text(encoding="utf-8"))


def _grammar_keywords() -> set[str]:
    """The quoted words of the Lark grammar: every keyword of the language."""
    text = (ROOT / "dsl" / "grammar.lark").read_text(encoding="utf-8")
    text = re.sub(r"//[^\n]*", "", text)
    return set(re.findall(r'"([a-z_]+)"', text))


def _textmate_keywords() -> set[str]:
    found = set()
    for pattern in GRAMMAR["repository"]["keywords"]["patterns"]:
        match = re.fullmatch(r"\\b\(\?:([a-z_|]+)\)\\b", pattern["match"])
        assert match, pattern["match"]
        words = match.group(1).split("|")
        assert not found & set(words), f"{found & set(words)} in two keyword groups"
        found |= set(words)
    return found


def test_the_textmate_keywords_are_exactly_the_grammars():
    grammar, textmate = _grammar_keywords(), _textmate_keywords()
    assert len(grammar) > 50
    assert textmate == grammar, (f"missing from the TextMate grammar: {sorted(grammar - textmate)}; "
                                 f"not in the language: {sorted(textmate - grammar)}")


def _patterns(node):
    if isinstance(node, dict):
        for key in ("match", "begin", "end"):
            if key in node:
                yield node[key]
        for value in node.values():
            yield from _patterns(value)
    elif isinstance(node, list):
        for value in node:
            yield from _patterns(value)


def test_every_textmate_pattern_is_a_regular_expression():
    patterns = list(_patterns(GRAMMAR))
    assert len(patterns) > 10
    for pattern in patterns:
        re.compile(pattern)


@pytest.mark.parametrize("path", sorted(SPEC.rglob("*.bao")), ids=lambda p: p.name)
def test_the_grammar_finds_the_name_of_every_declaration_and_every_citation(path):
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    declared = re.compile(GRAMMAR["repository"]["declaration-name"]["match"])
    removed = re.compile(GRAMMAR["repository"]["changed-name"]["match"])
    citation = re.compile(GRAMMAR["repository"]["citation"]["begin"])
    spec_file = parse_text(text, str(path))
    for decl in spec_file.decls:
        header = lines[decl.loc.line - 1]
        match = removed.match(header) if decl.kind == "remove" else declared.match(header)
        assert match, header
        named = match.group(match.lastindex)
        if match.group(match.lastindex - 1) == "over":      # a precedence names two rules
            named = f"{match.group(match.lastindex - 2)} over {named}"
        assert named == decl.name, header
        for source in decl.sources:
            assert citation.match(lines[source.loc.line - 1], source.loc.column - 1), lines[source.loc.line - 1]


def test_the_manifest_contributes_the_language_and_starts_the_server():
    (language,) = MANIFEST["contributes"]["languages"]
    (grammar,) = MANIFEST["contributes"]["grammars"]
    assert language["id"] == grammar["language"] == "bao" and language["extensions"] == [".bao"]
    assert grammar["scopeName"] == GRAMMAR["scopeName"]
    for relative in (MANIFEST["main"], grammar["path"], language["configuration"]):
        assert (EXTENSION / relative).is_file(), relative
    assert "vscode-languageclient" in MANIFEST["dependencies"]
    settings = MANIFEST["contributes"]["configuration"]["properties"]
    command, args = settings["baobei.server.command"]["default"], settings["baobei.server.args"]["default"]
    assert MANIFEST["name"] == command == "baobei" and args == ["lsp"]
    assert build_parser().parse_args(args).run.__name__ == "cmd_lsp"
    configuration = json.loads((EXTENSION / language["configuration"]).read_text(encoding="utf-8"))
    assert configuration["comments"]["lineComment"] == "#"
    assert re.compile(GRAMMAR["repository"]["comment"]["match"]).match("# a comment")
