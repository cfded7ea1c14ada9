"""Concrete play behind the proofs: a short seeded random-play pass of `check`.

At every table size, a few games of random agents with every invariant checked after every
move (simulate --check). A failure is a finding, with the round written as a scenario file that
`baobei scenario` plays into the same failure.
"""
from __future__ import annotations

from pathlib import Path

from .check import Finding, Report, RuleInfo
from .parallel import step


def play_pass(report: Report, rules, max_players: int, games: int, seed: int, failures: str | Path) -> None:
    """Plays `games` games at 2 to max_players players from `seed`; adds its findings."""
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
            step()      # a step of the check's progress per table size (Checker.run plans them)
        played += stats.games
        moves += stats.checked_moves
    report.play = (f"seed {seed}, {games} games at each of 2 to {max_players} players, the invariants after every "
                   f"move: {played} games ({moves} moves) passed"
                   + (f"; failed at {', '.join(failed)} players" if failed else ""))


def _finding(rules, failure, players: int) -> Finding:
    name = failure.invariant
    message = f"random play at {players} players failed, {failure.where()}: error[{failure.code}]: {failure.message}"
    return Finding("play", f"invariant {name}" if name else "random play", message,
                   [RuleInfo.of(rules.spec.invariants[name])] if name else [], scenario=failure.path)
