"""Concrete play behind the proofs: a short seeded random-play pass of `check`.

At every table size, a few games of random agents with every invariant checked after every
move (simulate --check). A failure is a finding, with the round written as a scenario file that
`baobei scenario` plays into the same failure.

Play is deterministic: the same declarations, edition, seed and number of games, played by the
same engine, play the same moves. A pass that found nothing is kept in the cache folder under a
key made of all of these; a failing one is played again (it writes its scenario file).
"""
from __future__ import annotations

import json
from pathlib import Path

from baobei.dsl import cache

from .answers import NotCached
from .check import Finding, Report, RuleInfo
from .parallel import step
from .proofs import proof_reads

HERE = Path(__file__).parent
# the code a pass's outcome comes from: the engine, the generator of the rules' module, the language
ENGINE = sorted((HERE.parent / "interpreter").glob("*.py")) + sorted((HERE.parent / "dsl").glob("*.py")) + \
    [HERE.parent / "dsl" / "grammar.lark", HERE / "play.py"]
_VERSION: list[str] = []


def engine_version() -> str:
    if not _VERSION:
        _VERSION.append(cache.sources_digest(ENGINE))
    return _VERSION[0]


def play_key(spec, edition, max_players: int, games: int, seed: int) -> str | None:
    """What a pass plays from: what the spec's declarations say, in the order rules are tried
    (as the proofs read them: an edit of a comment, a citation or a declaration's place plays the
    same games), the edition's values, the tables, the games, the seed and the engine (None: a
    spec not read from files is played every time)."""
    if not spec.content:
        return None
    values = (sorted(edition.deck.items()), sorted(edition.deal.items()), sorted(edition.threshold.items()))
    return cache.digest(engine_version(), proof_reads(spec), repr(values), repr((max_players, games, seed)))


def cached_play(report: Report, key: str | None, max_players: int, only_cached: bool = False) -> bool:
    """The pass kept under this key, into the report (one progress step per table size, as
    played); False when there is none (NotCached when `only_cached`)."""
    data = cache.read(f"play-{key}.json") if key else None
    try:
        played = json.loads(data)["play"] if data is not None else None
    except (ValueError, KeyError, TypeError):     # a damaged entry is played again
        played = None
    if not isinstance(played, str):
        if only_cached:
            raise NotCached(key or "play")
        return False
    report.play = played
    for _ in range(2, max_players + 1):
        step()
    return True


def play_pass(report: Report, rules, max_players: int, games: int, seed: int, failures: str | Path,
              key: str | None = None) -> None:
    """Plays `games` games at 2 to max_players players from `seed`; adds its findings. A pass that
    found nothing is kept under `key` (play_key)."""
    from baobei.interpreter.failures import SimulationFailed
    from baobei.interpreter.simulate import simulate
    played = moves = 0
    failed = []
    for players in range(2, max_players + 1):
        try:
            stats = simulate(rules, players, games, seed, ["random"], check=True, failures=failures)
        except SimulationFailed as stopped:
            report.findings.append(_finding(rules, stopped.failure, players))
            failed.append(str(players))
            continue
        finally:
            step()      # a step of the check's progress per table size (its caller plans them)
        played += stats.games
        moves += stats.checked_moves
    report.play = (f"seed {seed}, {games} games at each of 2 to {max_players} players, the invariants after every "
                   f"move: {played} games ({moves} moves) passed"
                   + (f"; failed at {', '.join(failed)} players" if failed else ""))
    if key and not failed:
        cache.write(f"play-{key}.json", json.dumps({"play": report.play}).encode("utf-8"))


def _finding(rules, failure, players: int) -> Finding:
    name = failure.invariant
    message = f"random play at {players} players failed, {failure.where()}: error[{failure.code}]: {failure.message}"
    return Finding("play", f"invariant {name}" if name else "random play", message,
                   [RuleInfo.of(rules.spec.invariants[name])] if name else [], scenario=failure.path)
