"""What one game measured, for balance studies (baobei balance).

This is the one module that reads a played game for figures: the GameRecord (rounds,
turns, BAO calls and results, scores, totals, the winner) and, through play_game's
hooks, what the record does not hold. When the engine changes, only this module needs
checking against the game API (play_game, on_move, on_round, Round.players/vars/
last_fired).

What needs the spec's meaning is read from the rules' own outputs, never decided here:
- whether a pluck succeeded: the spec's variable `pluck_success` after the pluck;
- which card's power fired: each entry of the round's last resolution (`last_fired`)
  names the role the spec fired, an expression over the round's variables such as
  `played.card` or `removed1`; its value is the card whose power fired.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from .game import GameRecord, play_game
from .rules import Rules

PLUCK_SUCCESS = "pluck_success"    # the spec variable a pluck sets when it succeeds (spec/core/pluck.bao)


@dataclass
class GameMetrics:
    seats: int
    rounds: int
    winner_seat: int | None          # 1 = the seat that opened the game, 2 = the next, ...
    tiebreak: bool                   # the game needed a tie-break round
    round_turns: list[int]
    round_scores: list[int]          # every player's score of every round
    final_totals: list[int]          # every seat's total at the end of the game
    cards_at_end: list[int]          # every player's cards at the end of every round
    bao_calls: int
    bao_scored: int                  # calls still standing when the round was scored
    bao_successes: int
    bao_scores: list[int]            # the caller's score of each round whose BAO was scored
    final_phase_rounds: int          # rounds ended by the second recycle
    plucks: dict[str, list[int]] = field(default_factory=dict)    # kind -> [attempts, successes]
    powers: dict[str, int] = field(default_factory=dict)          # card -> times its power fired


def pluck_kind(move) -> str:
    """A pluck attempt by its shape: one or two targets, own cards only or an opponent's too."""
    size = "double" if len(move.targets) == 2 else "single"
    whose = "own" if all(player is move.actor for player, _ in move.targets) else "offensive"
    return f"{size} {whose}"


def fired_card(rnd, role: str) -> str:
    """The card a fired role names (`played.card`: the variable played, its card), or the role's
    own text when it names no card of the round's variables."""
    name, *attributes = role.split(".")
    value = rnd.vars.get(name)
    for attribute in attributes:
        value = getattr(value, attribute, None)
    return getattr(value, "name", None) or role


class MetricsCollector:
    """The hooks of one game: plucks and powers as they happen, cards at each round's end."""

    def __init__(self):
        self.plucks: dict[str, list[int]] = {}
        self.powers: Counter = Counter()
        self.cards_at_end: list[int] = []
        self._resolution = None     # the last resolution of powers already counted

    def on_move(self, rnd, move) -> None:
        if move.kind == "pluck":
            counts = self.plucks.setdefault(pluck_kind(move), [0, 0])
            counts[0] += 1
            counts[1] += bool(rnd.vars[PLUCK_SUCCESS])
        # the engine replaces last_fired with a new list at each resolution of powers
        if rnd.last_fired is not self._resolution:
            self._resolution = rnd.last_fired
            for role, _rule, _rank in rnd.last_fired:
                self.powers[fired_card(rnd, role)] += 1

    def on_round(self, rnd, record) -> None:
        self.cards_at_end += [sum(card is not None for card in player.layout) for player in rnd.players]

    def finish(self, record: GameRecord) -> GameMetrics:
        seats = record.rounds[0].players
        opener = seats.index(record.rounds[0].first)
        winner_seat = None
        if record.winner is not None:
            winner_seat = (seats.index(record.winner) - opener) % len(seats) + 1
        return GameMetrics(
            seats=len(seats), rounds=len(record.rounds), winner_seat=winner_seat,
            tiebreak=any(r.tiebreak for r in record.rounds),
            round_turns=[r.turns for r in record.rounds],
            round_scores=[score for r in record.rounds for score in r.scores.values()],
            final_totals=list(record.totals.values()), cards_at_end=self.cards_at_end,
            bao_calls=sum(r.bao_called is not None for r in record.rounds),
            bao_scored=sum(r.bao is not None for r in record.rounds),
            bao_successes=sum(bool(r.bao_success) for r in record.rounds),
            bao_scores=[r.scores[r.bao] for r in record.rounds if r.bao is not None],
            final_phase_rounds=sum(r.final_phase for r in record.rounds),
            plucks=self.plucks, powers=dict(self.powers))


def play_measured(rules: Rules, players: int, seed: int, agents: list[str]) -> GameMetrics:
    """One seeded game and what it measured."""
    collector = MetricsCollector()
    record = play_game(rules, players, seed, agents, on_move=collector.on_move, on_round=collector.on_round)
    return collector.finish(record)
