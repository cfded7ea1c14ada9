"""Rulebook coverage: which passages of each rulebook text the spec (or a scenario) cites, and
why the others hold no rule.

A passage is one non-empty line of a rulebook text (`spec/rulebooks/<book>.txt`): the texts
write each paragraph, list item, heading, FAQ question and FAQ answer on a line of its own, so a
line is the smallest unit a reader points at. A passage is *covered* when a quotation (`cite
<book> "..."`) of a declaration of any variant, or a scenario file's `# source: <book> "..."`
comment, overlaps it, at every place the quotation occurs in the text. It is *explained* when
the uncited file (`spec/rulebooks/uncited.yaml`) lists it, quoted by a substring found in that
passage alone, with the reason it holds no rule. Any other passage is *unaccounted*: a finding
of `baobei rulebook --coverage` and of `baobei check`.

Everything here reads text only: no Z3, no interpreter.
"""
from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from baobei.dsl.errors import Loc, RulebookError, shown_path

UNCITED_NAME = "uncited.yaml"
# a citation in a scenario file's comments: `# source: fr "..." / de "..."`
_SCENARIO_SOURCE = re.compile(r'\b([a-z]{2})\s+"([^"]+)"')


def normalise(text: str) -> str:
    # the loader's own comparison (apostrophes, spaces and line breaks alike): a quotation it
    # accepts is found here too
    from baobei.dsl.resolve import normalise_quotation
    return normalise_quotation(text)


@dataclass
class Passage:
    book: str
    path: Path
    line: int                   # 1-based line of the rulebook text
    text: str                   # normalised
    start: int = 0              # where it lies in the book's normalised text
    cited_by: list[str] = field(default_factory=list)   # "rule x (spec/core/pluck.bao:12:3)"
    reason: str | None = None   # from the uncited file

    @property
    def where(self) -> str:
        return f"{shown_path(self.path)}:{self.line}"

    @property
    def end(self) -> int:
        return self.start + len(self.text)


@dataclass
class Book:
    name: str
    path: Path
    passages: list[Passage]
    text: str                   # the normalised text: the passages joined by single spaces

    def overlapping(self, quotation: str) -> list[Passage]:
        """The passages any occurrence of a (normalised) quotation overlaps."""
        found, at = [], self.text.find(quotation)
        while quotation and at >= 0:
            end = at + len(quotation)
            # the passages lie in the text in order: from the one the occurrence starts in
            index = max(0, bisect_right(self.starts, at) - 1)
            while index < len(self.passages) and self.passages[index].start < end:
                passage = self.passages[index]
                if at < passage.end and passage not in found:
                    found.append(passage)
                index += 1
            at = self.text.find(quotation, at + 1)
        return found

    @cached_property
    def starts(self) -> list[int]:
        return [passage.start for passage in self.passages]


@dataclass
class Entry:
    """One passage the uncited file explains."""
    book: str
    passage: str
    why: str
    loc: Loc


@dataclass
class BookCoverage:
    book: Book
    stale: list[tuple[Entry, str]] = field(default_factory=list)     # (entry, why it is stale)

    @property
    def covered(self) -> list[Passage]:
        return [p for p in self.book.passages if p.cited_by]

    @property
    def explained(self) -> list[Passage]:
        return [p for p in self.book.passages if not p.cited_by and p.reason]

    @property
    def unaccounted(self) -> list[Passage]:
        return [p for p in self.book.passages if not p.cited_by and not p.reason]

    @property
    def percent(self) -> float:
        total = len(self.book.passages)
        return 100.0 * (total - len(self.unaccounted)) / total if total else 100.0

    def line(self) -> str:
        total = len(self.book.passages)
        return (f"{self.book.name}: {total} passages, {len(self.covered)} covered, {len(self.explained)} explained, "
                f"{len(self.unaccounted)} unaccounted ({self.percent:.1f}% accounted for)")


@dataclass
class Coverage:
    books: list[BookCoverage]
    uncited_path: Path

    @property
    def ok(self) -> bool:
        return all(not b.unaccounted and not b.stale for b in self.books)

    def lines(self, detail: bool = True) -> list[str]:
        lines = []
        for book in self.books:
            lines.append(book.line())
            if detail:
                lines += [f"  unaccounted: {p.where}: {p.text[:90]}" for p in book.unaccounted]
                lines += [f"  stale entry: {entry.loc}: {why}" for entry, why in book.stale]
        return lines

    def as_json(self) -> dict:
        return {b.book.name: {"passages": len(b.book.passages), "covered": len(b.covered),
                              "explained": len(b.explained), "unaccounted": [p.where for p in b.unaccounted],
                              "stale": [str(e.loc) for e, _ in b.stale], "percent": round(b.percent, 1)}
                for b in self.books}


# ---- reading ------------------------------------------------------------------------------

def read_book(path: Path) -> Book:
    passages, start = [], 0
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        text = normalise(raw)
        if text:
            passages.append(Passage(path.stem, path, number, text, start))
            start += len(text) + 1
    return Book(path.stem, path, passages, " ".join(p.text for p in passages))


def read_uncited(path: Path, books: dict[str, Book]) -> list[Entry]:
    """The uncited file: `BOOK: [{passage: "a unique substring", why: "..."}, ...]`."""
    from baobei.dsl.yamlfile import read_yaml
    if not path.is_file():
        return []
    doc = read_yaml(path, RulebookError)
    data = doc.data or {}
    if not isinstance(data, dict):
        raise RulebookError("the uncited file maps a rulebook (fr, de, ...) to a list of "
                            "{passage: ..., why: ...}", Loc(str(path), 1, 1))
    entries = []
    for book, items in data.items():
        if book not in books:
            raise RulebookError(f"'{book}': no rulebook of that name (known: {', '.join(sorted(books))})",
                                doc.loc(book))
        if not isinstance(items, list):
            raise RulebookError(f"'{book}' lists its uncited passages: - {{passage: ..., why: ...}}", doc.loc(book))
        for index, item in enumerate(items):
            if not isinstance(item, dict) or set(item) != {"passage", "why"}:
                raise RulebookError("an entry has exactly two keys: passage (a substring of the passage) and "
                                    "why (the reason it holds no rule)", doc.loc(book, index))
            for key in ("passage", "why"):
                if not isinstance(item[key], str) or not item[key].strip():
                    raise RulebookError(f"'{key}' is a non-empty text", doc.loc(book, index, key))
            entries.append(Entry(book, item["passage"], item["why"], doc.loc(book, index, "passage")))
    return entries


def _project_variants(config) -> list[str]:
    variants = ["fr", "de"] + [v for v in config.variants if v not in ("fr", "de")]
    if config.default_variant not in variants:
        variants.append(config.default_variant)
    return variants


def _spec_citations(config) -> list[tuple[str, str, str]]:
    """(book, quotation, who cites it) for every declaration of every variant of the project."""
    from baobei.dsl import ast
    from baobei.dsl.loader import load_spec
    found, seen = [], set()
    for variant in _project_variants(config):
        spec = load_spec(config, variant)
        for table in (spec.families, spec.cards, spec.enums, spec.vars, spec.player_vars, spec.defines,
                      spec.decisions, spec.rules, spec.claims, spec.invariants, spec.procedures, spec.powers,
                      spec.handlers, spec.precedences):
            for decl in table.values():
                for source in decl.sources:
                    if isinstance(source, ast.Cite) and id(source) not in seen:
                        seen.add(id(source))
                        found.append((source.edition, source.text, f"{decl.kind} {decl.name} ({source.loc})"))
    return found


def _scenario_citations(folder: Path) -> list[tuple[str, str, str]]:
    found = []
    if not folder.is_dir():
        return found
    for path in sorted(folder.rglob("*.yaml")):
        shown = shown_path(path)
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if line.lstrip().startswith("# source:"):
                found += [(book, quote, f"scenario {shown}:{number}")
                          for book, quote in _SCENARIO_SOURCE.findall(line)]
    return found


def scenario_folder(config) -> Path:
    """The scenario files of the project: tests/scenarios/ beside its baobei.yaml."""
    return (config.config_dir or config.spec_dir.parent) / "tests" / "scenarios"


def coverage(config, use_cache: bool = True) -> Coverage:
    """Each rulebook's passages, which are cited, which explained, which neither. Kept in the
    cache folder (dsl/cache.py) under a key made of everything it reads (coverage_key)."""
    import pickle

    from baobei.dsl import cache
    key = coverage_key(config) if use_cache else None
    data = cache.read(f"coverage-{key}.pickle") if key else None
    if data is not None:
        try:
            found = pickle.loads(data)
            if isinstance(found, Coverage):
                return found
        except Exception:  # noqa: BLE001 - a damaged entry is made again
            pass
    found = _coverage(config)
    if key:
        cache.write(f"coverage-{key}.pickle", pickle.dumps(found, protocol=pickle.HIGHEST_PROTOCOL))
    return found


def coverage_key(config) -> str:
    """What the coverage reads: the rulebooks, the uncited file, the scenario files (paths and
    contents), every variant's spec files (their loader's key), the code, and the folder it runs
    in (the passages' places are shown relative to it)."""
    import hashlib
    import os

    from baobei.dsl import cache
    from baobei.dsl.loader import load_spec
    rulebooks = config.spec_dir / "rulebooks"
    files = sorted(rulebooks.glob("*.txt")) + [rulebooks / UNCITED_NAME]
    folder = scenario_folder(config)
    if folder.is_dir():
        files += sorted(folder.rglob("*.yaml"))
    stamps = []
    for path in files:
        try:
            stamps.append(f"{path} {hashlib.sha1(path.read_bytes()).hexdigest()}")
        except OSError:
            stamps.append(f"{path} absent")
    from baobei.dsl import resolve
    code = cache.sources_digest([Path(__file__), Path(resolve.__file__)])
    specs = [load_spec(config, variant).key for variant in _project_variants(config)]
    return cache.digest(code, os.getcwd(), str(config.spec_dir.resolve()), repr(specs), "\n".join(stamps))


def _coverage(config) -> Coverage:
    rulebooks = config.spec_dir / "rulebooks"
    books = {path.stem: read_book(path) for path in sorted(rulebooks.glob("*.txt"))}
    for book, quote, who in _spec_citations(config) + _scenario_citations(scenario_folder(config)):
        if book in books:
            for passage in books[book].overlapping(normalise(quote)):
                passage.cited_by.append(who)
    path = rulebooks / UNCITED_NAME
    result = {name: BookCoverage(book) for name, book in books.items()}
    for entry in read_uncited(path, books):
        wanted = normalise(entry.passage)
        matches = [p for p in books[entry.book].passages if wanted in p.text]
        if not matches:
            raise RulebookError(f"this passage is not in the {entry.book} rulebook "
                                f"({shown_path(books[entry.book].path)}); remove the entry or quote it exactly",
                                entry.loc)
        if len(matches) > 1:
            lines = ", ".join(str(p.line) for p in matches)
            raise RulebookError(f"this text is in {len(matches)} passages (lines {lines}); quote more of the one "
                                f"meant", entry.loc)
        passage = matches[0]
        if passage.reason is not None:
            raise RulebookError(f"passage {passage.where} is listed twice", entry.loc)
        passage.reason = entry.why
        if passage.cited_by:
            result[entry.book].stale.append(
                (entry, f"{passage.where} is cited ({passage.cited_by[0]}): remove the entry"))
    return Coverage(list(result.values()), path)
