"""Helpers of the language server's end-to-end tests: a copy of this project to edit, and the
client's view of what the server published."""
from __future__ import annotations

import asyncio
import shutil
import sys
from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from conftest import ROOT

# -P: the installed package, not the source folder of the working directory (which lacks baobei.dsl)
SERVER = ClientServerConfig(server_command=[sys.executable, "-P", "-m", "baobei.cli", "lsp"])
WAIT = 30.0     # seconds a test waits for the server at most (it answers in far less)


def project_copy(folder: Path) -> Path:
    """The spec, the config (with the house layers it names) and the scenario files of this checkout,
    in a folder of their own."""
    shutil.copytree(ROOT / "spec", folder / "spec", ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    shutil.copytree(ROOT / "examples", folder / "examples")
    shutil.copytree(ROOT / "tests" / "scenarios", folder / "tests" / "scenarios")
    shutil.copy(ROOT / "baobei.yaml", folder / "baobei.yaml")
    return folder


async def start(client: LanguageClient, root: Path) -> None:
    await client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), root_uri=from_fs_path(str(root)),
        workspace_folders=[types.WorkspaceFolder(uri=from_fs_path(str(root)), name="rules")]))


def uri(path: Path) -> str:
    return from_fs_path(str(path.resolve()))


def open_file(client: LanguageClient, path: Path, text: str | None = None, language: str = "bao") -> str:
    address = uri(path)
    client.diagnostics.pop(address, None)
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=address, language_id=language, version=1, text=path.read_text(encoding="utf-8") if text is None else text)))
    return address


def change_file(client: LanguageClient, address: str, text: str, version: int) -> None:
    client.diagnostics.pop(address, None)
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=address, version=version),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))


async def diagnostics(client: LanguageClient, address: str) -> list[types.Diagnostic]:
    """The diagnostics the server publishes next for a file (after an open or a change)."""
    async def published():
        while address not in client.diagnostics:
            await asyncio.sleep(0.02)
        return list(client.diagnostics[address])
    return await asyncio.wait_for(published(), WAIT)


def where(diagnostic: types.Diagnostic) -> tuple:
    r = diagnostic.range
    return (diagnostic.code, r.start.line, r.start.character, r.end.line, r.end.character)


def position(text: str, word: str, occurrence: int = 0, offset: int = 0) -> types.Position:
    """Where a word is written in a text (its n-th occurrence), as the protocol counts."""
    at = -1
    for _ in range(occurrence + 1):
        at = text.index(word, at + 1)
    at += offset
    line = text.count("\n", 0, at)
    column = at - (text.rfind("\n", 0, at) + 1)
    return types.Position(line=line, character=len(text[at - column:at].encode("utf-16-le")) // 2)
