"""Benchmark: how soon `baobei lsp` publishes diagnostics after a change, on the whole shipped spec.

    python bench/lsp_bench.py [--changes N]

Starts the server as a subprocess (as an editor does), opens every .bao file of this checkout,
then changes spec/de.bao N times (a typo, then its fix) and times each change until the
server's diagnostics for it arrive; also times the steps of one analysis in this process.
Prints figures; asserts nothing.
"""
from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

ROOT = Path(__file__).resolve().parent.parent
CHANGED = ROOT / "spec" / "de.bao"
TYPO = ("reference.how == drawn and actor == reference.by", "reference.how == drawm and actor == reference.by")


async def end_to_end(changes: int, pause: float, lenses: bool) -> list[float]:
    client = LanguageClient("bench", "1")
    address = from_fs_path(str(CHANGED))
    arrived = {"version": 0, "event": asyncio.Event()}

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def published(params: types.PublishDiagnosticsParams) -> None:
        if params.uri == address and params.version == arrived["version"]:
            arrived["event"].set()

    @client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def refresh(params) -> None:
        return None

    await client.start_io(sys.executable, "-P", "-m", "baobei.cli", "lsp")
    await client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities(),
                                                         root_uri=from_fs_path(str(ROOT))))
    client.initialized(types.InitializedParams())
    for path in sorted((ROOT / "spec").rglob("*.bao")):
        client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
            uri=from_fs_path(str(path)), language_id="bao", version=1, text=path.read_text(encoding="utf-8"))))
    arrived["version"] = 1
    await asyncio.wait_for(arrived["event"].wait(), 30)
    if lenses:      # as an editor showing them: the scenarios run again after each pause in typing
        await client.text_document_code_lens_async(types.CodeLensParams(
            text_document=types.TextDocumentIdentifier(uri=address)))
    text = CHANGED.read_text(encoding="utf-8")
    seconds = []
    for version in range(2, changes + 2):
        edited = text.replace(*TYPO) if version % 2 == 0 else text
        arrived.update(version=version, event=asyncio.Event())
        started = time.perf_counter()
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=address, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=edited)]))
        await asyncio.wait_for(arrived["event"].wait(), 30)
        seconds.append(time.perf_counter() - started)
        await asyncio.sleep(pause)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return seconds


def in_process() -> dict[str, float]:
    """One change of de.bao, step by step, in this process (the parse of the other files is cached)."""
    from baobei.lsp.diagnostics import problems
    from baobei.lsp.index import Index
    from baobei.lsp.project import Project, resolved
    project = Project(ROOT / "baobei.yaml")
    project.analyse({})
    text = CHANGED.read_text(encoding="utf-8").replace(*TYPO)
    texts = {resolved(CHANGED): text}
    started = time.perf_counter()
    analysis = project.analyse(texts)
    analysed = time.perf_counter()
    Index(analysis)
    indexed = time.perf_counter()
    problems(project, analysis, texts)
    done = time.perf_counter()
    return {"analyse (parse de.bao, read fr and de)": analysed - started, "index the names": indexed - analysed,
            "collect the problems": done - indexed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--changes", type=int, default=20)
    args = parser.parse_args()
    for step, seconds in in_process().items():
        print(f"in process: {step:40} {seconds * 1000:7.1f} ms")
    print(f"end to end: change -> diagnostics over stdio, {args.changes} changes of spec/de.bao, every .bao file open")
    # typing (a change every 0.1 s); then with the code lens shown, pauses long enough for the
    # scenarios to run again between changes (in the runner process)
    for label, pause, lenses in (("changes 0.1 s apart", 0.1, False),
                                 ("changes 1.5 s apart, scenarios running", 1.5, True)):
        ms = sorted(s * 1000 for s in asyncio.run(end_to_end(args.changes, pause, lenses)))
        print(f"  {label:45} median {statistics.median(ms):6.1f} ms, fastest {ms[0]:6.1f} ms, "
              f"slowest {ms[-1]:6.1f} ms")


if __name__ == "__main__":
    main()
