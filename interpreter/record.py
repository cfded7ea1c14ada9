"""Recorded games (JSON Lines, one game per line) and their replay under other rules.

A record holds what is needed to play a game again without its agents: each
round's deal (the draw pile before the deal, top first), every new draw pile a
recycle made, the first player, and every move as a step of the trace schema
(docs/trace.md: the move, the rule that allowed it, what it revealed to whom and a
digest of the table after it). Replaying under a changed spec reports the first
move that became illegal or whose result changed; with a trace, every step is
shown as the rules now decide it. A game that broke an invariant or got stuck in
play (simulate) is recorded up to its failing move, with the failure.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from baobei.dsl.errors import BaobeiError, Loc, RuleRuntimeError, ScenarioError

from .engine import Ctx, IllegalMove, Round
from .game import new_round
from .moves import Move, parse_move
from .rules import Rules
from .state import Rng
from .tracing import StepRecorder, digest

FORMAT = "baobei-game/2"
# /1 recorded moves without their rule: it reads back the same
FORMATS = ("baobei-game/1", FORMAT)


def record_entry(step) -> dict:
    """A step as a record keeps it (tracing.RECORD_FIELDS of the trace schema)."""
    entry = {"move": step.move, "rule": step.rule}
    if step.revealed:
        entry["revealed"] = step.revealed
    if step.shown:
        entry["shown"] = step.shown
    entry["after"] = step.after
    return entry


class Recorder:
    """Collects one game as it is played (hooks for play_game)."""

    def __init__(self, rules: Rules, seed: int, agents: list[str]):
        self.game = {"format": FORMAT, "seed": seed, "variant": rules.variant, "layers": rules.spec.layers,
                     "edition": rules.edition.name, "spec_version": rules.version, "agents": agents, "rounds": []}
        self._steps: StepRecorder | None = None
        self._round: dict | None = None

    def on_round_start(self, rnd: Round) -> None:
        self._round = {"players": [p.name for p in rnd.players], "first": rnd.first.name, "tiebreak": rnd.tiebreak,
                       "totals": {p.name: p.vars["total"] for p in rnd.players}, "deck": list(rnd.initial_deck),
                       "moves": []}
        self.game["rounds"].append(self._round)
        self._steps = StepRecorder(rnd)

    def on_move(self, rnd: Round, move: Move) -> None:
        self._round["moves"] += [record_entry(step) for step in self._steps.flush()]
        if rnd.round_over:
            self._round["reshuffles"] = rnd.shuffled
            self._round["scores"] = {p.name: p.vars["score"] for p in rnd.players}

    def finish(self, record) -> dict:
        self.game["totals"] = record.totals
        self.game["winner"] = record.winner
        return self.game

    def failed(self, rnd: Round | None, failure: dict) -> dict:
        """The game up to its failing move (kept, with the draw piles its recycles made), and the failure."""
        if self._steps is not None:
            self._round["moves"] += [record_entry(step) for step in self._steps.flush()]
        if rnd is not None and self._round is not None:
            self._round["reshuffles"] = rnd.shuffled
        self.game["failed"] = failure
        return self.game


# ---- replay ------------------------------------------------------------------------------------

@dataclass
class Divergence:
    game: int
    round: int
    move: int
    text: str
    problem: str


@dataclass
class ReplayReport:
    games: int = 0
    moves: int = 0
    divergences: list[Divergence] = field(default_factory=list)


def read_games(path: str | Path) -> list[dict]:
    games = []
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as problem:
        raise ScenarioError(f"cannot read recorded games: {problem}", Loc(str(path))) from None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            game = json.loads(line)
        except json.JSONDecodeError as problem:
            raise ScenarioError(f"not a JSON line: {problem.msg}", Loc(str(path), number, problem.colno)) from None
        if not isinstance(game, dict) or game.get("format") not in FORMATS or not isinstance(game.get("rounds"), list):
            raise ScenarioError(f"not a recorded game (format {FORMAT})", Loc(str(path), number, 1))
        games.append(game)
    return games


def replay_game(rules: Rules, game: dict, number: int, on_step=None) -> tuple[int, Divergence | None]:
    """Plays a recorded game again; the first move that is refused or ends differently. `on_step`
    (round number, Step) sees every move as a step of the trace. A game recorded with its failure
    (simulate) ends at its failing move: its last round need not be over."""
    moves = 0
    edition_deck = sorted(rules.deck())
    for index, recorded in enumerate(game["rounds"], start=1):
        if sorted(recorded.get("deck", [])) != edition_deck:
            return moves, Divergence(number, index, 0, "the deal", "the recorded deck is not this edition's deck "
                                     f"({len(recorded.get('deck', []))} cards recorded, {len(edition_deck)} in the "
                                     "edition, or other cards)")
        try:
            players = recorded["players"]
            first = players.index(recorded["first"])
            rnd = new_round(rules, players, Rng(int(game.get("seed", 0))), first=first,
                            totals=recorded.get("totals", {}), tiebreak=bool(recorded.get("tiebreak")),
                            deck=recorded["deck"], reshuffles=recorded.get("reshuffles", []))
        except (KeyError, ValueError, TypeError) as problem:
            raise ScenarioError(f"game {number}, round {index}: the record is incomplete ({problem})") from None
        except BaobeiError as problem:
            return moves, Divergence(number, index, 0, "the deal", problem.message)
        steps = StepRecorder(rnd) if on_step is not None else None
        for step, entry in enumerate(recorded["moves"], start=1):
            text = entry["move"]
            actor, _, body = text.partition(": ")
            try:
                try:
                    rnd.apply(parse_move(actor, body, rnd.by_name))
                finally:
                    _shown(steps, on_step, index, step)
            except IllegalMove as refusal:
                return moves, Divergence(number, index, step, text, f"now illegal: {refusal.reason}")
            except BaobeiError as problem:
                return moves, Divergence(number, index, step, text, f"cannot be played: {problem.message}")
            moves += 1
            try:
                after = digest(rnd)
            except RuleRuntimeError as problem:     # stuck saying what the game waits for (a failed game's end)
                return moves, Divergence(number, index, step, text, f"the rules cannot go on: {problem.message}")
            if after != entry["after"]:
                return moves, Divergence(number, index, step, text,
                                         f"its result changed; the game now waits for {rnd.describe_pending()}")
        if game.get("failed") and index == len(game["rounds"]):
            break          # the game stopped at its failing move
        if not rnd.round_over:
            return moves, Divergence(number, index, len(recorded["moves"]), "the end of the round",
                                     f"the round is not over; it waits for {rnd.describe_pending()}")
        scores = {p.name: p.vars["score"] for p in rnd.players}
        if recorded.get("scores") is not None and scores != recorded["scores"]:
            return moves, Divergence(number, index, len(recorded["moves"]), "the scores",
                                     f"the scores changed: {recorded['scores']} -> {scores}")
        following = game["rounds"][index] if index < len(game["rounds"]) else None
        ended = _game_end(rnd, game, following)
        if ended is not None:
            return moves, Divergence(number, index, len(recorded["moves"]), "the end of the game", ended)
        if following is not None and not following.get("tiebreak"):
            first = rnd.program.decision("next_first")(rnd, Ctx())
            if first is None or first.name != following.get("first"):
                return moves, Divergence(number, index, len(recorded["moves"]), "the next round",
                                         f"the next round's first player changed: {following.get('first')} -> "
                                         f"{first.name if first else None}")
    return moves, None


def _game_end(rnd, game: dict, following: dict | None) -> str | None:
    """How the spec's end of the game (game_over, winner: the edition's thresholds) now differs
    from the record after this round, if it does."""
    program, C = rnd.program, Ctx()
    over = program.define("game_over")(rnd, C)
    if following is not None:
        if over and not following.get("tiebreak"):
            return "the game is now over after this round; the record goes on"
        if not over and following.get("tiebreak"):
            return "the game now goes on after this round; the record plays a tie-break"
        return None
    if not over:
        return "the game now goes on after its last recorded round"
    winner = program.define("winner")(rnd, C)
    if game.get("winner") is not None and (winner is None or winner.name != game["winner"]):
        return f"the winner changed: {game['winner']} -> {winner.name if winner else 'none (a tie-break)'}"
    return None


def _shown(steps: StepRecorder | None, on_step, round_number: int, move_number: int) -> None:
    """Hands the steps of one replayed move to the trace (numbered as the move in its round)."""
    if steps is None:
        return
    for found in steps.flush():
        found.number = move_number
        on_step(round_number, found)


def replay_file(rules: Rules, path: str | Path, on_step=None) -> ReplayReport:
    """`on_step` (game number, round number, Step): every move replayed, as a step of the trace."""
    report = ReplayReport()
    for number, game in enumerate(read_games(path), start=1):
        report.games += 1
        shown = None if on_step is None else (lambda round_number, step, game=number: on_step(game, round_number, step))
        try:
            moves, divergence = replay_game(rules, game, number, shown)
        except RuleRuntimeError as problem:
            moves, divergence = 0, Divergence(number, 0, 0, "", f"the rules cannot go on: {problem.message}")
        report.moves += moves
        if divergence is not None:
            report.divergences.append(divergence)
    return report


__all__ = ["Ctx", "Recorder", "ReplayReport", "digest", "read_games", "replay_file"]
