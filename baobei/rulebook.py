"""`baobei rulebook`: the rules of a variant as a document a player reads, in the spec's own order.

One section per spec file, in layer order (the core's files, the edition layer, a house layer),
with the file's leading comment as its introduction and its `# ---- heading ----` comments as
subsections. Each declaration is shown as a plain-English sentence made from its syntax tree
through the phrasebook (baobei/phrases.py), with its level, its citations in every language,
where it comes from (core, edition layer, house rule) and its DSL text. `--compare Y` marks
every declaration that differs from variant Y and lists the differences `baobei diff` finds.
The edition's deck, deal and thresholds close the document.
"""
from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from pathlib import Path

from baobei.dsl import ast
from baobei.dsl.errors import ConfigError, shown_path
from baobei.dsl.loader import Config
from baobei.dsl.unparse import declaration, declaration_text

from .phrases import PHRASEBOOK_NAME, Phrasebook, Rendered, load_phrasebook, render

# the declarations a reader needs; variables and enums are the machinery's bookkeeping
SHOWN = (ast.RuleDecl, ast.HandlerDecl, ast.ProcedureDecl, ast.PowerDecl, ast.CardDecl, ast.FamilyDecl,
         ast.ClaimDecl, ast.InvariantDecl, ast.DefineDecl, ast.DecisionDecl, ast.PrecedenceDecl, ast.RemoveDecl)
_HEADING = re.compile(r"^#\s*-{2,}\s*(.*?)\s*-*\s*$")


# ---- the document ---------------------------------------------------------------------------

@dataclass
class Mark:
    """How a declaration compares with the other variant of --compare."""
    state: str                          # "same", "differs", "only here"
    other: Rendered | None = None       # the other variant's version, when it differs
    other_dsl: str = ""
    findings: list[int] = field(default_factory=list)   # numbers of diff's findings naming it
    other_name: str = ""                # the other variant


@dataclass
class Entry:
    decl: ast.Decl
    label: str                  # "rule", "exception", "claim", "procedure", ...
    origin: str                 # core, variant, house
    status: str                 # "" in force; "replaced by LAYER", "removed by LAYER"
    rendered: Rendered
    dsl: str
    mark: Mark | None = None

    @property
    def anchor(self) -> str:
        return "d-" + re.sub(r"[^A-Za-z0-9_.-]", "-", f"{self.decl.kind}-{self.decl.name}-{self.decl.layer}")


@dataclass
class Heading:
    title: str
    intro: str = ""


@dataclass
class Section:
    path: Path
    layer: str
    origin: str
    intro: str
    items: list = field(default_factory=list)     # Heading | Entry, in file order


@dataclass
class Comparison:
    other: str
    only_there: list[Entry] = field(default_factory=list)
    diff_text: str = ""
    findings: list[tuple[int, str]] = field(default_factory=list)


@dataclass
class Document:
    variant: str
    layers: list[str]
    sections: list[Section]
    edition: object
    phrasebook: Phrasebook
    comparison: Comparison | None = None

    def entries(self) -> list[Entry]:
        return [item for section in self.sections for item in section.items if isinstance(item, Entry)]

    @property
    def missing(self) -> list[str]:
        return [f"{e.decl.kind} {e.decl.name}: {note}" for e in self.entries() for note in e.rendered.missing]


# ---- building it -------------------------------------------------------------------------------

def phrasebook_for(config: Config) -> Phrasebook:
    """The spec folder's phrasebook, then the project's (baobei.yaml `phrasebook:`) over it."""
    paths = [config.spec_dir / PHRASEBOOK_NAME]
    if not paths[0].is_file():
        raise ConfigError(f"no phrasebook at {shown_path(paths[0])}: baobei rulebook needs one (docs/rulebook.md)")
    if config.phrasebook is not None:
        paths.append(config.phrasebook)
    return load_phrasebook(paths)


def editions(config: Config) -> set[str]:
    """The edition layers: those with a rulebook text."""
    return {path.stem for path in (config.spec_dir / "rulebooks").glob("*.txt")}


def origin_of(layer: str, edition_layers: set[str]) -> str:
    if layer == "core":
        return "core"
    return "variant" if layer in edition_layers else "house"


def label_of(decl: ast.Decl) -> str:
    return decl.level_name if isinstance(decl, ast.RuleDecl) else decl.kind


def file_comments(path: Path) -> tuple[str, list[tuple[int, Heading]]]:
    """A spec file's leading comment block (its introduction) and its `# ---- heading ----`
    lines, each with the comment lines right below it as the subsection's introduction."""
    lines = path.read_text(encoding="utf-8").splitlines()
    intro, headings, index = [], [], 0
    while index < len(lines) and (not lines[index].strip() or lines[index].startswith("layer ")):
        index += 1
    while index < len(lines) and lines[index].startswith("#") and not _HEADING.match(lines[index]):
        intro.append(lines[index].lstrip("#").strip())
        index += 1
    for number, line in enumerate(lines, start=1):
        found = _HEADING.match(line)
        if found:
            below = []
            for following in lines[number:]:
                if not following.startswith("#") or _HEADING.match(following):
                    break
                below.append(following.lstrip("#").strip())
            headings.append((number, Heading(found.group(1), " ".join(below))))
    return " ".join(intro), headings


def build_document(config: Config, variant: str, book: Phrasebook | None = None) -> Document:
    from baobei.dsl.loader import load_edition_for, load_spec
    layers = config.layers_of(variant)
    spec = load_spec(config, variant)          # bad input fails here, with the loader's errors
    edition = load_edition_for(config, spec)
    book = book or phrasebook_for(config)
    merged = _layered_only(config, layers)
    edition_layers = editions(config)
    removals = {(d.target_kind, d.name): d.layer for f in merged.files for d in f.decls
                if isinstance(d, ast.RemoveDecl)}
    sections = []
    for spec_file in merged.files:
        path = Path(spec_file.path)
        layer = spec_file.decls[0].layer if spec_file.decls else (spec_file.layer or "")
        intro, headings = file_comments(path)
        section = Section(path, layer, origin_of(layer, edition_layers), intro)
        for decl in sorted((d for d in spec_file.decls if isinstance(d, SHOWN)), key=lambda d: d.loc.line):
            while headings and headings[0][0] < decl.loc.line:
                section.items.append(headings.pop(0)[1])
            section.items.append(_entry(decl, merged, removals, edition_layers, book))
        section.items += [heading for _, heading in headings]
        sections.append(section)
    return Document(variant, layers, sections, edition, book)


def _layered_only(config: Config, layers: list[str]):
    from baobei.dsl.layers import load_layers
    return load_layers(config.spec_dir, layers, config.config_dir)


def _entry(decl: ast.Decl, merged, removals: dict, edition_layers: set[str], book: Phrasebook) -> Entry:
    status = ""
    if not isinstance(decl, ast.RemoveDecl):
        now = merged.namespace(decl.kind).get(decl.name)
        if now is None:
            status = f"removed by layer {removals.get((decl.kind, decl.name), '?')}"
        elif now is not decl:
            status = f"replaced by layer {now.layer}"
    return Entry(decl, label_of(decl), origin_of(decl.layer, edition_layers), status, render(decl, book),
                 declaration_text(decl))


def compare(document: Document, config: Config, other: str, bounds=None, timeout_ms: int | None = None) -> None:
    """Marks each declaration of the document against variant `other`, and adds the differences
    `baobei diff` finds between the two within `bounds` (diff's defaults when not given; its cache)."""
    from baobei.checker.diff import DEFAULT_TIMEOUT_MS, diff
    from baobei.checker.symbolic import Bounds
    from baobei.checker.report import diff_text
    from baobei.dsl.loader import load_edition_for, load_spec
    theirs = _layered_only(config, config.layers_of(other))
    ours = _layered_only(config, document.layers)
    spec_a, spec_b = load_spec(config, document.variant), load_spec(config, other)
    report = diff((document.variant, spec_a), (other, spec_b), load_edition_for(config, spec_a), bounds or Bounds(),
                  timeout_ms or DEFAULT_TIMEOUT_MS)
    named: dict[str, list[int]] = {}
    comparison = Comparison(other, diff_text=diff_text(report))
    for number, finding in enumerate(report.findings, start=1):
        comparison.findings.append((number, finding.title))
        for item in finding.classes:
            for rules in item.rules.values():
                for rule in rules:
                    named.setdefault(rule.name, [])
                    if number not in named[rule.name]:
                        named[rule.name].append(number)
    for entry in document.entries():
        decl = entry.decl
        if entry.status or isinstance(decl, ast.RemoveDecl):
            continue
        there = theirs.namespace(decl.kind).get(decl.name)
        if there is None:
            entry.mark = Mark("only here")
        elif declaration(there) != declaration(decl):
            entry.mark = Mark("differs", render(there, document.phrasebook), declaration_text(there), other_name=other)
        else:
            entry.mark = Mark("same")
        entry.mark.findings = named.get(decl.name, [])
    edition_layers = editions(config)
    for kind, names in theirs.decls.items():
        for name, decl in names.items():
            if isinstance(decl, SHOWN) and name not in ours.namespace(kind):
                comparison.only_there.append(Entry(decl, label_of(decl), origin_of(decl.layer, edition_layers), "",
                                                   render(decl, document.phrasebook), declaration_text(decl),
                                                   Mark("only there", findings=named.get(name, []))))
    document.comparison = comparison


# ---- citations -------------------------------------------------------------------------------------

def sources_by_language(decl: ast.Decl) -> list[tuple[str, str]]:
    """(label, text) for each source: the rulebook quotations by edition, then what is assumed or read."""
    cites = [(s.edition, s.text) for s in decl.sources if isinstance(s, ast.Cite)]
    cites.sort(key=lambda pair: pair[0])
    others = [("assumed" if isinstance(s, ast.Assumed) else "reading", s.text) for s in decl.sources
              if not isinstance(s, ast.Cite)]
    return cites + others


def edition_rows(edition) -> dict[str, list[tuple[str, str]]]:
    return {"deck": [(card, str(count)) for card, count in edition.deck.items()],
            "deal": [(f"{players} players", f"{cards} cards") for players, cards in sorted(edition.deal.items())],
            "threshold": [(f"{players} players", str(points)) for players, points in
                          sorted(edition.threshold.items())]}


# ---- HTML ----------------------------------------------------------------------------------------

CSS = """
body { font: 15px/1.5 Georgia, 'DejaVu Serif', serif; max-width: 60rem; margin: 0 auto; padding: 1rem 1.5rem;
       color: #222; background: #fff; overflow-wrap: anywhere; }
h1, h2, h3 { font-family: 'DejaVu Sans', Arial, sans-serif; line-height: 1.2; }
h2 { border-bottom: 2px solid #2a6; padding-bottom: .2rem; margin-top: 2.5rem; }
h3 { color: #2a6; margin: 1.6rem 0 .4rem; }
.intro { font-style: italic; color: #444; }
.decl { border-left: 4px solid #ccc; padding: .3rem .8rem; margin: .9rem 0; page-break-inside: avoid;
        break-inside: avoid; }
.decl.core { border-color: #999; } .decl.variant { border-color: #36c; } .decl.house { border-color: #d60;
        background: #fff6ec; }
.decl.gone { opacity: .6; }
.decl.differs, .decl.only { outline: 2px dashed #c33; outline-offset: 2px; }
.head { font-family: 'DejaVu Sans', Arial, sans-serif; font-size: .85rem; color: #555; }
.badge { display: inline-block; border-radius: 3px; padding: 0 .35rem; margin-right: .3rem; font-size: .75rem;
         color: #fff; background: #777; text-transform: uppercase; letter-spacing: .03em; }
.badge.variant { background: #36c; } .badge.house { background: #d60; font-weight: bold; }
.badge.level { background: #2a6; } .badge.diff { background: #c33; }
.sentence { margin: .25rem 0; font-size: 1.02rem; }
.steps { margin: .2rem 0 .2rem 1.2rem; padding: 0; }
.cites { margin: .3rem 0; padding: 0; list-style: none; font-size: .88rem; color: #333; }
.cites li { margin: .1rem 0; } .lang { font-weight: bold; font-family: 'DejaVu Sans', Arial, sans-serif; }
.missing { color: #b00; font-weight: bold; }
pre, code { font: .8rem/1.35 'DejaVu Sans Mono', monospace; white-space: pre-wrap; overflow-wrap: anywhere; }
pre { background: #f5f5f5; padding: .4rem .6rem; margin: .3rem 0; }
details summary { cursor: pointer; font-size: .8rem; color: #555; }
.side { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: .8rem; }
.side > div { min-width: 0; }
table { border-collapse: collapse; margin: .5rem 0; } td, th { border: 1px solid #ccc; padding: .15rem .5rem; }
nav ol { columns: 2; font-size: .9rem; }
@media print {
  body { max-width: none; font-size: 11pt; padding: 0; }
  section.file, section.edition, section.compare { break-before: page; page-break-before: always; }
  details { display: block; } details > * { display: block; }
  nav { break-after: page; page-break-after: always; }
  .decl { break-inside: avoid; }
}
"""


def _e(text: str) -> str:
    return html.escape(text, quote=True)


def _steps_html(steps: list) -> str:
    items = []
    for step in steps:
        if isinstance(step, tuple):
            items.append(f"<li>{_e(step[0])}{_steps_html(step[1])}</li>")
        else:
            items.append(f"<li>{_e(step)}</li>")
    return f"<ol class=\"steps\">{''.join(items)}</ol>" if items else ""


def _rendered_html(rendered: Rendered) -> str:
    text = f"<p class=\"sentence\">{_e(rendered.sentence)}</p>{_steps_html(rendered.steps)}"
    if rendered.missing:
        text += f"<p class=\"missing\">{_e(' '.join(rendered.missing))}</p>"
    return text


def _entry_html(entry: Entry, book: Phrasebook, variant: str = "") -> str:
    decl = entry.decl
    origin_word = book.get("origins", entry.origin) or entry.origin
    level = book.get("levels", entry.label) or entry.label
    classes = ["decl", entry.origin] + (["gone"] if entry.status else [])
    badges = [f"<span class=\"badge level\">{_e(level)}</span>",
              f"<span class=\"badge {entry.origin}\">{_e(origin_word)}</span>"]
    mark = entry.mark
    if mark and mark.state in ("differs", "only here", "only there"):
        classes.append("differs" if mark.state == "differs" else "only")
        badges.append(f"<span class=\"badge diff\">{_e(mark.state)}</span>")
    if mark and mark.findings:
        badges.append("<span class=\"badge diff\">diff " + ", ".join(f"#{n}" for n in mark.findings) + "</span>")
    status = f" — <em>{_e(entry.status)}</em>" if entry.status else ""
    head = (f"<div class=\"head\">{''.join(badges)}<code>{_e(decl.name)}</code> · {_e(decl.layer)} · "
            f"{_e(str(decl.loc))}{status}</div>")
    body = _rendered_html(entry.rendered)
    if mark and mark.state == "differs" and mark.other is not None:
        body = (f"<div class=\"side\"><div><div class=\"head\">{_e(variant)}</div>{body}</div>"
                f"<div><div class=\"head\">{_e(mark.other_name)}</div>{_rendered_html(mark.other)}"
                f"<details><summary>DSL there</summary><pre>{_e(mark.other_dsl)}</pre></details></div></div>")
    cites = "".join(f"<li><span class=\"lang\">{_e(label)}</span> {_e(text)}</li>"
                    for label, text in sources_by_language(decl))
    cites_html = f"<ul class=\"cites\">{cites}</ul>" if cites else ""
    return (f"<div class=\"{' '.join(classes)}\" id=\"{_e(entry.anchor)}\">{head}{body}{cites_html}"
            f"<details><summary>DSL</summary><pre>{_e(entry.dsl)}</pre></details></div>")


def to_html(doc: Document) -> str:
    book = doc.phrasebook
    title = f"BAO BEI — the rules of {doc.variant}"
    parts = [f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
             f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
             f"<title>{_e(title)}</title><style>{CSS}</style></head><body>",
             f"<h1>{_e(title)}</h1>",
             f"<p>Layers {_e(', '.join(doc.layers))}. Every sentence below is generated from the rule's syntax tree "
             f"through the phrasebook ({_e(', '.join(shown_path(p) for p in book.files))}); the DSL text and the "
             f"rulebook citations follow each one. House rules are marked "
             f"<span class=\"badge house\">{_e(book.get('origins', 'house') or 'house')}</span>.</p>"]
    toc = [f"<li><a href=\"#s{i}\">{_e(shown_path(s.path))}</a></li>" for i, s in enumerate(doc.sections)]
    toc.append("<li><a href=\"#edition\">The edition</a></li>")
    if doc.comparison:
        toc.append("<li><a href=\"#compare\">Compared with " + _e(doc.comparison.other) + "</a></li>")
    parts.append(f"<nav><h2>Contents</h2><ol>{''.join(toc)}</ol></nav>")
    for index, section in enumerate(doc.sections):
        origin_word = book.get("origins", section.origin) or section.origin
        parts.append(f"<section class=\"file\" id=\"s{index}\"><h2>{_e(shown_path(section.path))} "
                     f"<span class=\"badge {section.origin}\">{_e(origin_word)}</span></h2>")
        if section.intro:
            parts.append(f"<p class=\"intro\">{_e(section.intro)}</p>")
        for item in section.items:
            if isinstance(item, Heading):
                parts.append(f"<h3>{_e(item.title)}</h3>")
                if item.intro:
                    parts.append(f"<p class=\"intro\">{_e(item.intro)}</p>")
            else:
                parts.append(_entry_html(item, book, doc.variant))
        parts.append("</section>")
    parts.append(_edition_html(doc.edition))
    if doc.comparison:
        parts.append(_comparison_html(doc, book))
    parts.append("</body></html>")
    return "\n".join(parts)


def _edition_html(edition) -> str:
    rows = edition_rows(edition)
    assumed = ", ".join(edition.assumed) or "nothing"
    tables = "".join(
        f"<h3>{_e(name)}{' (assumed)' if name in edition.assumed else ''}</h3><table>"
        + "".join(f"<tr><td>{_e(a)}</td><td>{_e(b)}</td></tr>" for a, b in items) + "</table>"
        for name, items in rows.items())
    return (f"<section class=\"edition\" id=\"edition\"><h2>The edition: {_e(edition.name)}</h2>"
            f"<p>From {_e(shown_path(edition.path))}: {sum(edition.deck.values())} cards. Assumed (the rulebook "
            f"texts do not give them): {_e(assumed)}.</p>{tables}</section>")


def _comparison_html(doc: Document, book: Phrasebook) -> str:
    comparison = doc.comparison
    marked = [e for e in doc.entries() if e.mark and e.mark.state != "same"]
    listing = "".join(f"<li><a href=\"#{_e(e.anchor)}\">{_e(e.label)} {_e(e.decl.name)}</a>: {_e(e.mark.state)}</li>"
                      for e in marked)
    there = "".join(_entry_html(entry, book) for entry in comparison.only_there)
    findings = "".join(f"<li>#{n} {_e(title)}</li>" for n, title in comparison.findings)
    return (f"<section class=\"compare\" id=\"compare\"><h2>Compared with {_e(comparison.other)}</h2>"
            f"<h3>Declarations of {_e(doc.variant)} that differ</h3><ul>{listing or '<li>none</li>'}</ul>"
            f"<h3>Only in {_e(comparison.other)}</h3>{there or '<p>none</p>'}"
            f"<h3>What baobei diff finds</h3><ol>{findings}</ol><pre>{_e(comparison.diff_text)}</pre></section>")


# ---- Markdown ----------------------------------------------------------------------------------------

def _steps_md(steps: list, depth: int = 0) -> list[str]:
    lines = []
    for number, step in enumerate(steps, start=1):
        pad = "   " * depth
        if isinstance(step, tuple):
            lines.append(f"{pad}{number}. {step[0]}")
            lines += _steps_md(step[1], depth + 1)
        else:
            lines.append(f"{pad}{number}. {step}")
    return lines


def _rendered_md(rendered: Rendered) -> list[str]:
    lines = [rendered.sentence, ""] + _steps_md(rendered.steps)
    if rendered.missing:
        lines += ["", "**" + " ".join(rendered.missing) + "**"]
    return lines


def _entry_md(entry: Entry, book: Phrasebook) -> list[str]:
    decl = entry.decl
    origin_word = book.get("origins", entry.origin) or entry.origin
    level = book.get("levels", entry.label) or entry.label
    tags = [f"*{level}*", f"**{origin_word.upper()}**" if entry.origin == "house" else f"*{origin_word}*"]
    if entry.mark and entry.mark.state != "same":
        tags.append(f"**{entry.mark.state.upper()}**")
    if entry.mark and entry.mark.findings:
        tags.append("**diff " + ", ".join(f"#{n}" for n in entry.mark.findings) + "**")
    if entry.status:
        tags.append(f"*{entry.status}*")
    lines = [f"#### `{decl.name}` — {' · '.join(tags)} · {decl.layer} · {decl.loc}", ""]
    lines += _rendered_md(entry.rendered)
    if entry.mark and entry.mark.state == "differs" and entry.mark.other is not None:
        lines += ["", f"> In {entry.mark.other_name}: " + entry.mark.other.sentence, ">", "> ```",
                  *[f"> {line}" for line in entry.mark.other_dsl.splitlines()], "> ```"]
    sources = sources_by_language(decl)
    if sources:
        lines.append("")
        lines += [f"- **{label}** {text}" for label, text in sources]
    lines += ["", "```", entry.dsl, "```", ""]
    return lines


def to_markdown(doc: Document) -> str:
    book = doc.phrasebook
    lines = [f"# BAO BEI — the rules of {doc.variant}", "",
             f"Layers {', '.join(doc.layers)}. Every sentence is generated from the rule's syntax tree through the "
             f"phrasebook ({', '.join(shown_path(p) for p in book.files)}); house rules are marked "
             f"**{(book.get('origins', 'house') or 'house').upper()}**.", ""]
    for section in doc.sections:
        origin_word = book.get("origins", section.origin) or section.origin
        lines += [f"## {shown_path(section.path)} ({origin_word})", ""]
        if section.intro:
            lines += [f"*{section.intro}*", ""]
        for item in section.items:
            if isinstance(item, Heading):
                lines += [f"### {item.title}", ""] + ([f"*{item.intro}*", ""] if item.intro else [])
            else:
                lines += _entry_md(item, book)
    edition = doc.edition
    lines += [f"## The edition: {edition.name}", "",
              f"From {shown_path(edition.path)}: {sum(edition.deck.values())} cards. Assumed (the rulebook texts do "
              f"not give them): {', '.join(edition.assumed) or 'nothing'}.", ""]
    for name, items in edition_rows(edition).items():
        lines += [f"### {name}{' (assumed)' if name in edition.assumed else ''}", "", "| | |", "|---|---|"]
        lines += [f"| {a} | {b} |" for a, b in items] + [""]
    if doc.comparison:
        comparison = doc.comparison
        lines += [f"## Compared with {comparison.other}", "", f"### Declarations of {doc.variant} that differ", ""]
        lines += [f"- {e.label} `{e.decl.name}`: {e.mark.state}" for e in doc.entries()
                  if e.mark and e.mark.state != "same"] or ["none"]
        lines += ["", f"### Only in {comparison.other}", ""]
        for entry in comparison.only_there:
            lines += _entry_md(entry, book)
        lines += ["### What baobei diff finds", "", "```", comparison.diff_text, "```", ""]
    return "\n".join(lines)


def write(doc: Document, out: Path, fmt: str) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"rulebook-{doc.variant}.{fmt}"
    path.write_text(to_html(doc) if fmt == "html" else to_markdown(doc), encoding="utf-8")
    return path
