"""The user's cache folder: what baobei derives once from the rules, kept by content.

Entries are named by a hash of everything they are made from (the spec's files, the
code that made them), so an edited spec, a `--spec COPY` or a house layer gets its
own, and nothing is ever invalidated by hand. The folder is $BAOBEI_CACHE, else
$XDG_CACHE_HOME/baobei, else ~/.cache/baobei. A folder that cannot be written is
no error: the caller then works in memory.
"""
from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

ENV = "BAOBEI_CACHE"


def folder() -> Path:
    if os.environ.get(ENV):
        return Path(os.environ[ENV])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "baobei"


def scratch_folder(prefix: str, inside: bool = False) -> Path:
    """A new empty folder beside the cache folder (`inside`: in it), for a run that must start
    from a cache of its own (a benchmark): on the file system the user's cache is on, so that
    the files it makes take the time they take a user (the system's temporary folder may be
    another file system, or as on one machine of ours, much slower for a while). The system's
    temporary folder when that place cannot be written."""
    place = folder() if inside else folder().parent
    try:
        place.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix=prefix, dir=place))
    except OSError:
        return Path(tempfile.mkdtemp(prefix=prefix))


def digest(*parts: bytes | str) -> str:
    """A short hash of the parts, each delimited so that ("ab", "c") != ("a", "bc")."""
    h = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8") if isinstance(part, str) else part
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()[:24]


def sources_digest(paths: list[Path]) -> str:
    """The version of some code: a hash of its source files."""
    return digest(*(path.read_bytes() for path in paths))


_LANGUAGE_VERSION: list[str] = []


def language_version() -> str:
    """The version of the language's code (dsl/): a parsed file, a resolved spec or a read
    edition made by an older one is not read back."""
    if not _LANGUAGE_VERSION:
        here = Path(__file__).parent
        _LANGUAGE_VERSION.append(sources_digest(sorted(here.glob("*.py")) + [here / "grammar.lark"]))
    return _LANGUAGE_VERSION[0]


def read(name: str) -> bytes | None:
    try:
        return (folder() / name).read_bytes()
    except OSError:
        return None


def write(name: str, data: bytes) -> Path | None:
    """Store an entry (atomically: a reader never sees half a file); None if the folder is not writable."""
    target = folder() / name
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.replace(temporary, target)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError:
        return None
    return target
