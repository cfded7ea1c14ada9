"""Positions between baobei (1-based lines and columns, in characters, as Lark counts them)
and the protocol (0-based, in the code units the client and server agreed on)."""
from __future__ import annotations

import re

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from baobei.dsl.errors import Loc

_WORD = re.compile(r"[\w.]+")


class Text:
    """A file's lines: the editor's text when it is open, else the file's."""

    def __init__(self, text: str, codec: PositionCodec):
        self.lines = text.split("\n")
        self.codec = codec

    def position(self, line: int, column: int) -> types.Position:
        """A 1-based (line, column) as the client counts it."""
        row = max(line - 1, 0)
        text = self.lines[row] if row < len(self.lines) else ""
        return types.Position(line=row, character=self.codec.client_num_units(text[:max(column - 1, 0)]))

    def range(self, start: tuple[int, int], end: tuple[int, int]) -> types.Range:
        return types.Range(start=self.position(*start), end=self.position(*end))

    def loc_range(self, loc: Loc | None) -> types.Range:
        """Exactly the located text; where only a start is known, the word there."""
        if loc is None or not loc.line:
            return self.range((1, 1), (1, 1))
        if loc.end_line:
            return self.range((loc.line, loc.column), (loc.end_line, loc.end_column))
        row = self.lines[loc.line - 1] if loc.line <= len(self.lines) else ""
        word = _WORD.match(row, max(loc.column - 1, 0))
        width = len(word.group()) if word else 1
        return self.range((loc.line, loc.column), (loc.line, loc.column + width))

    def column_of(self, position: types.Position) -> tuple[int, int]:
        """A client position as a 1-based (line, column)."""
        copy = types.Position(line=position.line, character=position.character)
        found = self.codec.position_from_client_units(self.lines, copy)
        return found.line + 1, found.character + 1

    def before(self, position: types.Position) -> str:
        """The line up to the position."""
        line, column = self.column_of(position)
        return self.lines[line - 1][:column - 1] if line <= len(self.lines) else ""
