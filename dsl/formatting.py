"""A .bao file in the canonical layout of dsl/unparse.py, its comments kept.

The grammar ignores comments, so they are found in the text and put back beside the line
they were written next to (a comment alone on its line before the next printed line that
comes from a later source line; a comment after code at the end of that code's line), and
blank lines between declarations or statements stay (one at most). A layout is only given
when it is safe: the new text must parse to the same tree and keep every comment in order.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from . import ast, unparse
from .errors import BaobeiError
from .parser import parse_text
from .unparse import Line


@dataclass
class Comment:
    line: int
    column: int         # 1-based, of its '#'
    text: str           # from its '#', without trailing spaces
    alone: bool         # on a line of its own


def comments(text: str) -> list[Comment]:
    """Every comment of a spec text: a '#' outside a string, to the end of its line."""
    found = []
    for number, line in enumerate(text.split("\n"), start=1):
        in_string = escaped = False
        for index, char in enumerate(line):
            if in_string:
                if escaped:
                    escaped = False
                elif char == "\\":
                    escaped = True
                elif char == '"':
                    in_string = False
            elif char == '"':
                in_string = True
            elif char == "#":
                found.append(Comment(number, index + 1, line[index:].rstrip(), alone=not line[:index].strip()))
                break
    return found


def format_text(text: str, path: str = "<text>") -> str | None:
    """The file in the canonical layout, or None when it cannot be read or laid out safely."""
    try:
        tree = parse_text(text, path)
    except BaobeiError:
        return None
    found = comments(text)
    lines = _layer_lines(tree, text) + [line for decl in tree.decls for line in unparse.declaration_lines(decl)]
    result = "\n".join(_with_comments(lines, found, text.split("\n"))) + "\n"
    try:
        same = ast.same_tree(tree, parse_text(result, path))
    except BaobeiError:
        return None
    if not same or [c.text for c in comments(result)] != [c.text for c in found]:
        return None
    return result


def _layer_lines(tree: ast.SpecFile, text: str) -> list[Line]:
    if tree.layer is None:
        return []
    pattern = re.compile(rf"\s*layer\s+{re.escape(tree.layer)}\b")
    number = next((i for i, line in enumerate(text.split("\n"), start=1) if pattern.match(line)), 0)
    return [Line(f"layer {tree.layer}", number)]


def _with_comments(lines: list[Line], found: list[Comment], source: list[str]) -> list[str]:
    """The printed lines with the comments put back, and the source's blank lines between them."""
    starts = _source_lines(lines)
    before: dict[int, list[Comment]] = {}     # printed line index -> comments alone before it
    after: dict[int, list[Comment]] = {}      # printed line index -> comments at its end
    trailing_end: list[Comment] = []
    for comment in found:
        if not comment.alone:
            index = max((i for i, start in enumerate(starts) if start <= comment.line), default=None)
            if index is not None:
                after.setdefault(index, []).append(comment)
                continue
        index = next((i for i, start in enumerate(starts) if start > comment.line), None)
        if index is None:
            trailing_end.append(comment)
        else:
            before.setdefault(index, []).append(comment)
    out: list[tuple[str, str | None]] = []     # (code, the comment at its end)
    previous = 0

    def emit(text: str, source_line: int, comment: str | None = None) -> None:
        nonlocal previous
        if out and previous and source_line > previous + 1 and blank_between(previous, source_line):
            out.append(("", None))
        out.append((text, comment))
        previous = max(previous, source_line)

    def blank_between(first: int, last: int) -> bool:
        return any(not source[i].strip() for i in range(first, last - 1))

    for index, line in enumerate(lines):
        indent = line.comment_indent if line.comment_indent is not None else line.indent
        block = before.get(index, [])
        # comments a blank line away from what follows are about what precedes: they keep their indent
        detached, following, away = [], starts[index], False
        for comment in reversed(block):
            away = blank_between(comment.line, following) or (away and comment.line == following - 1)
            detached.append(away)
            following = comment.line
        for comment, away in zip(block, reversed(detached)):
            own = " " * ((comment.column - 1) // len(unparse.INDENT) * len(unparse.INDENT))
            emit((own if away else indent) + comment.text, comment.line)
        ends = after.get(index, [])
        emit(line.text, starts[index], ends[0].text if ends else None)
        for comment in ends[1:]:
            emit(line.indent + comment.text, comment.line)
    for comment in trailing_end:
        emit(comment.text, comment.line)
    return _aligned(out)


def _aligned(lines: list[tuple[str, str | None]]) -> list[str]:
    """Comments at the end of consecutive lines start in one column."""
    out, run = [], []

    def flush() -> None:
        column = max(len(code) for code, _ in run) + 2
        out.extend(f"{code.ljust(column)}{comment}" if column <= unparse.WIDTH else f"{code}  {comment}"
                   for code, comment in run)
        run.clear()

    for code, comment in lines:
        if comment is not None:
            run.append((code, comment))
            continue
        if run:
            flush()
        out.append(code)
    if run:
        flush()
    return out


def _source_lines(lines: list[Line]) -> list[int]:
    """Each printed line's source line; a line printed from no position takes the one before."""
    starts, last = [], 0
    for line in lines:
        last = line.source_line or last
        starts.append(last)
    return starts
