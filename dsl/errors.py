"""Errors a user can cause: a broken spec, scenario, edition or config file.

Every such error carries where it happened (file, line, column) and what was
expected, and has a stable code (see docs/errors.md). The command line prints
them with the offending line and a caret and exits with status 2; no traceback
reaches a user.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Loc:
    file: str
    line: int = 0
    column: int = 0
    # Where the located text ends (the column after its last character), when known: an
    # editor underlines exactly that text. Not part of a location's identity.
    end_line: int = field(default=0, compare=False)
    end_column: int = field(default=0, compare=False)

    def __str__(self) -> str:
        where = shown_path(self.file)
        if self.line:
            return f"{where}:{self.line}:{self.column}"
        return where


def shown_path(path, cwd: str | None = None) -> str:
    """Paths under the current folder (or `cwd`: where the command runs, for a worker that runs
    elsewhere) are shown relative to it, others as they are."""
    import os
    path = str(path)
    if not os.path.isabs(path):
        return path
    key = (path, cwd if cwd is not None else os.getcwd())
    if key not in _SHOWN:       # a command shows the same few files' places over and over
        try:
            relative = os.path.relpath(path, key[1])
        except ValueError:      # on another drive: shown as it is
            relative = path
        _SHOWN[key] = path if relative.startswith("..") else relative
    return _SHOWN[key]


_SHOWN: dict[tuple[str, str], str] = {}


class BaobeiError(Exception):
    """A problem in the user's input. `code` is stable and documented."""

    code = "E000"

    def __init__(self, message: str, loc: Loc | None = None, *, code: str | None = None,
                 source_line: str | None = None, notes: tuple[str, ...] = ()):
        super().__init__(message)
        self.message = message
        self.loc = loc
        if code:
            self.code = code
        self.source_line = source_line
        self.notes = notes

    def render(self) -> str:
        where = f"{self.loc}: " if self.loc else ""
        text = f"{where}error[{self.code}]: {self.message}"
        line = self.source_line
        if line is None and self.loc and self.loc.line:
            line = _read_line(self.loc.file, self.loc.line)
        if line is not None and self.loc and self.loc.line:
            caret = " " * max(self.loc.column - 1, 0) + "^"
            text += f"\n  {line.rstrip()}\n  {caret}"
        for note in self.notes:
            text += f"\n  note: {note}"
        return text


class SpecSyntaxError(BaobeiError):
    code = "E100"


class SpecNameError(BaobeiError):
    code = "E200"


class SpecTypeError(BaobeiError):
    code = "E210"


class SpecLayerError(BaobeiError):
    code = "E220"


class SpecCitationError(BaobeiError):
    code = "E230"


class EditionError(BaobeiError):
    code = "E300"


class ConfigError(BaobeiError):
    code = "E310"


class RulebookError(BaobeiError):
    """A broken uncited-passages file (spec/rulebooks/uncited.yaml) or phrasebook."""

    code = "E320"


class ScenarioError(BaobeiError):
    code = "E400"


class MoveError(BaobeiError):
    """A move that cannot be read or names something that does not exist."""

    code = "E410"


class RuleRuntimeError(BaobeiError):
    """The rules left the game in a state no rule resolves (a gap met in play)."""

    code = "E500"


class SolverError(BaobeiError):
    code = "E600"


def _read_line(path: str, line: int) -> str | None:
    try:
        with open(path, encoding="utf-8") as handle:
            for number, text in enumerate(handle, start=1):
                if number == line:
                    return text
    except (OSError, UnicodeDecodeError):
        return None
    return None
