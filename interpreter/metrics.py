"""What one game measured, for balance studies (baobei balance).

This is the one module that reads a played game for figures: the GameRecord (rounds,
turns, BAO calls and results, scores, totals, the winner) and, through play_game's
hooks, what the record does not hold. When the engine changes, only this module needs
checking against the game API (play_game, on_move, on_round, Round.players/vars/
fired_cards).

What needs the spec's meaning is read from the rules' own outputs, never decided here:
- whether a pluck succeeded: the spec's variable `pluck_success` after the pluck;
- which card's power fired: the engine lists, per round, the card of every power its
  triggers fired (`fired_cards`: the value of the role the spec fired, an expression over
  the round's variables such as `played.card` or `removed1`).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from .game import GameRecord, play_game
from .rules import Rules

PLUCK_SUCCESS = "pluck_success"    # the spec variable a pluck sets when it succeeds (spec/core/pluck.bao)
WATCHED = frozenset({"pluck"})     # the moves the collector looks at as they are played


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
    actor = move.actor
    own = True
    for player, _ in move.targets:
        if player is not actor:
            own = False
            break
    return PLUCK_KINDS[len(move.targets) == 2, own]


PLUCK_KINDS = {(False, True): "single own", (False, False): "single offensive",
               (True, True): "double own", (True, False): "double offensive"}


class MetricsCollector:
    """The hooks of one game: plucks and powers as they happen, cards at each round's end."""

    def __init__(self):
        self.plucks: dict[str, list[int]] = {}
        self.powers: Counter = Counter()
        self.cards_at_end: list[int] = []

    def on_move(self, rnd, move) -> None:
        """After a pluck (play_measured watches only those)."""
        kind = pluck_kind(move)
        counts = self.plucks.get(kind)
        if counts is None:
            counts = self.plucks[kind] = [0, 0]
        counts[0] += 1
        if rnd.var(PLUCK_SUCCESS):
            counts[1] += 1

    def on_round(self, rnd, record) -> None:
        self.cards_at_end += [sum(card is not None for card in player.layout) for player in rnd.players]
        self.powers.update(card.name for card in rnd.fired_cards)

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
    record = play_game(rules, players, seed, agents, on_move=collector.on_move, on_round=collector.on_round,
                       watched=WATCHED, copyable=False)
    return collector.finish(record)
