"""The language server (pygls): each request is answered from the latest analysis of the
project the file belongs to; a change reads the project again and publishes its diagnostics."""
from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from baobei.dsl import ast
from baobei.dsl.formatting import format_text
from baobei.dsl.layers import SPEC_SUFFIX
from baobei.dsl.loader import CONFIG_NAME, find_project
from baobei.dsl.parser import parse_text_recovering_cached

from . import completion
from .diagnostics import Problem, problems
from .hover import hover_text
from .index import NAVIGABLE, Index, Occurrence, declared
from .lens import ScenarioRuns
from .project import Project, project_of, resolved
from .ranges import Text
from .yamlfiles import YAML_SUFFIXES, kind_of

RUN_SCENARIOS = "baobei.runScenarios"
_SYMBOL_KINDS = {"rule": types.SymbolKind.Function, "card": types.SymbolKind.Constant,
                 "family": types.SymbolKind.Class, "power": types.SymbolKind.Event, "enum": types.SymbolKind.Enum,
                 "var": types.SymbolKind.Variable, "player_var": types.SymbolKind.Field,
                 "define": types.SymbolKind.Function, "decision": types.SymbolKind.Interface,
                 "claim": types.SymbolKind.Boolean, "invariant": types.SymbolKind.Boolean,
                 "procedure": types.SymbolKind.Method, "move": types.SymbolKind.Method}
_COMPLETION_KINDS = {"keyword": types.CompletionItemKind.Keyword, "move": types.CompletionItemKind.Event,
                     "rule": types.CompletionItemKind.Function, "card": types.CompletionItemKind.Constant,
                     "family": types.CompletionItemKind.Class, "power": types.CompletionItemKind.Event,
                     "var": types.CompletionItemKind.Variable, "define": types.CompletionItemKind.Function,
                     "decision": types.CompletionItemKind.Interface, "procedure": types.CompletionItemKind.Method,
                     "enum_value": types.CompletionItemKind.EnumMember, "global": types.CompletionItemKind.Variable,
                     "function": types.CompletionItemKind.Function, "attribute": types.CompletionItemKind.Field}


class BaobeiServer(LanguageServer):
    def __init__(self):
        super().__init__("baobei", "0.1.0")
        self.projects: dict[str, Project] = {}
        self.indexes: dict[str, Index] = {}
        self.published: dict[str, set[str]] = {}      # project -> files that have diagnostics shown
        self.runs: dict[str, ScenarioRuns] = {}
        self.loop: asyncio.AbstractEventLoop | None = None
        self.disk: dict[str, tuple] = {}       # texts of files not open, by their state on disk
        self.dirty: set[Project] = set()        # changed since they were last read
        self.flush_pending = False

    # -- the editor's texts -------------------------------------------------------------------
    def texts(self) -> dict[str, str]:
        return {resolved(to_fs_path(uri)): doc.source for uri, doc in self.workspace.text_documents.items()
                if to_fs_path(uri)}

    def text_of(self, path: str) -> Text:
        document = self.workspace.text_documents.get(from_fs_path(path))
        if document is not None:
            return Text(document.source, self.workspace.position_codec)
        try:
            info = Path(path).stat()
            key = (path, info.st_mtime_ns, info.st_size)
            if self.disk.get(path, (None,))[0] != key:
                self.disk[path] = (key, Text(Path(path).read_text(encoding="utf-8"), self.workspace.position_codec))
            return self.disk[path][1]
        except (OSError, UnicodeDecodeError):
            return Text("", self.workspace.position_codec)

    # -- projects -------------------------------------------------------------------------------
    def project_for(self, path: str) -> Project | None:
        config = Path(path) if Path(path).name == CONFIG_NAME else project_of(Path(path))
        if config is None:
            return None
        key = str(config.resolve())
        if key not in self.projects:
            self.projects[key] = Project(config)
        return self.projects[key]

    def refresh(self, path: str) -> None:
        """Read the project of a file again, soon (changes that arrive together are read once),
        and publish every file's diagnostics."""
        project = self.project_for(path)
        if project is None:
            self.publish_alone(path)
            return
        self.dirty.add(project)
        if not self.flush_pending:
            self.flush_pending = True
            asyncio.get_running_loop().call_soon(self.flush)

    def flush(self) -> None:
        """Read again the projects that changed (before any answer that reads them)."""
        self.flush_pending = False
        while self.dirty:
            self.refresh_project(self.dirty.pop())

    def refresh_project(self, project: Project) -> None:
        texts = self.texts()
        analysis = project.analyse(texts)
        key = str(project.config_path)
        self.indexes[key] = Index(analysis)
        found = problems(project, analysis, texts)
        for path in texts:      # an open file of the project without problems is told so
            if path.endswith((SPEC_SUFFIX, *YAML_SUFFIXES)) and self.project_for(path) is project:
                found.setdefault(path, [])
        for shown in self.published.get(key, set()) - set(found):
            self.publish(shown, [])
        for file, items in found.items():
            self.publish(file, items)
        self.published[key] = set(found)
        if key in self.runs:        # the editor shows lenses: count again on these texts
            self.runs[key].request(texts)

    def publish_alone(self, path: str) -> None:
        """A .bao file outside any project: its syntax only."""
        document = self.workspace.text_documents.get(from_fs_path(path))
        if document is None or not path.endswith(SPEC_SUFFIX):
            return
        _, errors = parse_text_recovering_cached(document.source, path)
        self.publish(path, [Problem(error) for error in errors])

    def publish(self, path: str, items: list[Problem]) -> None:
        text = self.text_of(path)
        diagnostics = [types.Diagnostic(
            range=text.loc_range(item.error.loc if item.error.loc and resolved(item.error.loc.file) == path else None),
            message=" ".join(filter(None, [item.error.message, item.note])) +
            "".join(f"\nnote: {note}" for note in item.error.notes if note),
            severity=types.DiagnosticSeverity.Information if item.information else types.DiagnosticSeverity.Error,
            code=None if item.information else item.error.code, source="baobei") for item in items]
        document = self.workspace.text_documents.get(from_fs_path(path))
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri=from_fs_path(path), diagnostics=diagnostics, version=document.version if document else None))

    def index_for(self, uri: str) -> tuple[str, Index | None]:
        path = resolved(to_fs_path(uri))
        project = self.project_for(path)
        if project is None:
            return path, None
        key = str(project.config_path)
        if key not in self.indexes:
            self.dirty.add(project)
        self.flush()
        return path, self.indexes.get(key)

    def occurrence(self, uri: str, position: types.Position) -> tuple[Index | None, Occurrence | None]:
        path, index = self.index_for(uri)
        if index is None:
            return None, None
        line, column = self.text_of(path).column_of(position)
        return index, index.at(path, line, column)

    def location(self, occurrence: Occurrence) -> types.Location:
        return types.Location(uri=from_fs_path(occurrence.file),
                              range=self.text_of(occurrence.file).range(occurrence.start, occurrence.end))

    # -- scenario runs for the code lens ---------------------------------------------------------
    def scenario_runs(self, project: Project) -> ScenarioRuns:
        """The project's scenario runs, started when the editor first asks for lenses."""
        key = str(project.config_path)
        if key not in self.runs:
            self.runs[key] = ScenarioRuns(project.config_path, self.lenses_changed)
            self.runs[key].request(self.texts())
        return self.runs[key]

    def lenses_changed(self) -> None:
        """Called from the runs' thread: ask the client, on the server's loop, to ask for lenses again."""
        capabilities = self.client_capabilities.workspace
        supported = capabilities and capabilities.code_lens and capabilities.code_lens.refresh_support
        if self.loop is not None and supported:
            self.loop.call_soon_threadsafe(self.workspace_code_lens_refresh, None)


server = BaobeiServer()


@server.feature(types.INITIALIZED)
async def initialized(ls: BaobeiServer, params: types.InitializedParams) -> None:
    ls.loop = asyncio.get_running_loop()
    root = ls.workspace.root_path
    config = find_project(Path(root).resolve()) if root else None
    if config is not None:          # the workspace's project: its symbols and problems before any file is open
        ls.refresh_project(ls.project_for(str(config)))


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: BaobeiServer, params: types.DidOpenTextDocumentParams) -> None:
    ls.refresh(resolved(to_fs_path(params.text_document.uri)))


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: BaobeiServer, params: types.DidChangeTextDocumentParams) -> None:
    ls.refresh(resolved(to_fs_path(params.text_document.uri)))


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: BaobeiServer, params: types.DidSaveTextDocumentParams) -> None:
    ls.refresh(resolved(to_fs_path(params.text_document.uri)))


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: BaobeiServer, params: types.DidCloseTextDocumentParams) -> None:
    path = resolved(to_fs_path(params.text_document.uri))
    if ls.project_for(path) is None:
        ls.publish(path, [])
    else:
        ls.refresh(path)       # the file on disk stands for it again


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def watched_files_changed(ls: BaobeiServer, params: types.DidChangeWatchedFilesParams) -> None:
    """Files changed on disk (a checkout, a rulebook): the projects they are in are read again."""
    for change in params.changes:
        path = to_fs_path(change.uri)
        if path:
            ls.refresh(resolved(path))


@server.feature(types.TEXT_DOCUMENT_HOVER)
def hover(ls: BaobeiServer, params: types.HoverParams) -> types.Hover | None:
    index, found = ls.occurrence(params.text_document.uri, params.position)
    if found is None:
        return None
    text = hover_text(index, found)
    if text is None:
        return None
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text),
                       range=ls.text_of(found.file).range(found.start, found.end))


@server.feature(types.TEXT_DOCUMENT_DEFINITION)
def definition(ls: BaobeiServer, params: types.DefinitionParams) -> list[types.Location] | None:
    index, found = ls.occurrence(params.text_document.uri, params.position)
    if found is None or found.target.kind not in NAVIGABLE:
        return None
    return [ls.location(o) for o in index.go_to(found)] or None


@server.feature(types.TEXT_DOCUMENT_REFERENCES)
def references(ls: BaobeiServer, params: types.ReferenceParams) -> list[types.Location] | None:
    index, found = ls.occurrence(params.text_document.uri, params.position)
    if found is None or found.target.kind in ("local",):
        return None
    return [ls.location(o) for o in index.references(found.target, params.context.include_declaration)]


@server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
def document_symbols(ls: BaobeiServer, params: types.DocumentSymbolParams) -> list[types.DocumentSymbol]:
    path, index = ls.index_for(params.text_document.uri)
    if index is None:
        return []
    text = ls.text_of(path)
    symbols = []
    for found in index.by_file.get(path, []):
        if not found.definition or found.decl is None:
            continue
        extent = found.decl.extent or found.decl.loc
        symbols.append(types.DocumentSymbol(
            name=found.target.name, detail=_detail(found.decl), kind=_SYMBOL_KINDS.get(found.target.kind,
                                                                                     types.SymbolKind.Object),
            range=text.loc_range(extent), selection_range=text.range(found.start, found.end)))
    return symbols


@server.feature(types.WORKSPACE_SYMBOL)
def workspace_symbols(ls: BaobeiServer, params: types.WorkspaceSymbolParams) -> list[types.WorkspaceSymbol]:
    query = params.query.lower()
    found = {}
    for index in ls.indexes.values():
        for occurrence in index.symbols():
            if query in occurrence.target.name.lower():
                found[occurrence.key] = types.WorkspaceSymbol(
                    name=occurrence.target.name, kind=_SYMBOL_KINDS.get(occurrence.target.kind, types.SymbolKind.Object),
                    location=ls.location(occurrence), container_name=_detail(occurrence.decl))
    return list(found.values())


@server.feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=[".", " "]))
def complete(ls: BaobeiServer, params: types.CompletionParams) -> types.CompletionList:
    path, index = ls.index_for(params.text_document.uri)
    if index is None:
        return types.CompletionList(is_incomplete=False, items=[])
    if path.endswith(YAML_SUFFIXES):
        if kind_of(path, index.analysis.config) != "scenario":
            return types.CompletionList(is_incomplete=False, items=[])
        suggestions = completion.scenario_completions(index.analysis)
    else:
        suggestions = completion.spec_completions(index, path, ls.text_of(path).before(params.position))
    return types.CompletionList(is_incomplete=False, items=[
        types.CompletionItem(label=s.label, kind=_COMPLETION_KINDS.get(s.kind), detail=s.detail or s.kind)
        for s in suggestions])


@server.feature(types.TEXT_DOCUMENT_CODE_LENS)
def code_lens(ls: BaobeiServer, params: types.CodeLensParams) -> list[types.CodeLens]:
    path, index = ls.index_for(params.text_document.uri)
    if index is None:
        return []
    tally = ls.scenario_runs(ls.project_for(path)).tally
    text = ls.text_of(path)
    lenses = []
    for found in index.by_file.get(path, []):
        if not (found.definition and found.target.kind == "rule" and found.decl is not None):
            continue
        using = [v.variant.name for v in index.analysis.variants_with(path)
                 if (decl := declared(v, found.target)) is not None and decl.loc == found.decl.loc]
        lenses.append(types.CodeLens(range=text.range(found.start, found.end), command=types.Command(
            title=_lens_title(tally, found.target.name, using), command=RUN_SCENARIOS,
            arguments=[found.target.name, using])))
    return lenses


def _lens_title(tally, rule: str, variants: list[str]) -> str:
    if tally is None:
        return "scenario steps: counting…"
    if not variants:
        return "used by no variant"
    counts = tally.steps(rule, variants)
    total = sum(counts.values())
    if not total:
        return "decided no scenario step"
    each = ", ".join(f"{variant} {count}" for variant, count in counts.items())
    return f"decided {total} scenario step{'s' if total != 1 else ''} ({each})"


@server.thread()
@server.command(RUN_SCENARIOS)
def run_scenarios(ls: BaobeiServer, rule: str, variants: list[str]) -> dict:
    """Run again the scenario files whose steps the rule decided under these variants (those
    that use the declaration the lens is on); say how they went."""
    outcome = {"rule": rule, "runs": 0, "passed": 0, "failed": []}
    for runs in ls.runs.values():
        if runs.tally is None:
            continue
        deciding = [run for run in runs.tally.deciding(rule) if run.variant in variants]
        paths = sorted({Path(run.path) for run in deciding})
        for run in runs.run(ls.texts(), paths).runs:
            if any(run.path == d.path and run.variant == d.variant for d in deciding):
                outcome["runs"] += 1
                outcome["passed"] += run.passed
                if not run.passed:
                    outcome["failed"].append({"file": run.path, "variant": run.variant, "message": run.message})
    failed = len(outcome["failed"])
    ls.window_show_message(types.ShowMessageParams(
        type=types.MessageType.Error if failed else types.MessageType.Info,
        message=f"{rule}: {outcome['runs']} scenario run(s), {outcome['passed']} passed, {failed} failed"))
    return outcome


@server.feature(types.TEXT_DOCUMENT_FORMATTING)
def formatting(ls: BaobeiServer, params: types.DocumentFormattingParams) -> list[types.TextEdit] | None:
    document = ls.workspace.get_text_document(params.text_document.uri)
    if not document.uri.endswith(SPEC_SUFFIX):
        return None
    formatted = format_text(document.source, to_fs_path(document.uri))
    if formatted is None or formatted == document.source:
        return [] if formatted is not None else None
    text = Text(document.source, ls.workspace.position_codec)
    end = (len(text.lines), len(text.lines[-1]) + 1)
    return [types.TextEdit(range=text.range((1, 1), end), new_text=formatted)]


def _detail(decl: ast.Decl | None) -> str:
    if decl is None:
        return ""
    if isinstance(decl, ast.RuleDecl):
        return f"{decl.level_name} · {decl.layer}"
    return f"{decl.kind} · {decl.layer}" if decl.layer else decl.kind


def serve() -> None:
    logging.basicConfig(level=logging.WARNING)
    server.start_io()

