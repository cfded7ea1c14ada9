"""Simulation: many seeded games, figures a rules author can read, optional
invariant checks after every move. The same seed gives the same games."""
from __future__ import annotations

import gc
import json
import sys
import time
from dataclasses import asdict, dataclass, field

from .game import GameRecord, play_game
from .invariants import Watch
from .record import Recorder
from .rules import Rules


@dataclass
class Stats:
    variant: str
    players: int
    seed: int
    agents: list[str]
    games: int = 0
    rounds: int = 0
    turns: int = 0
    moves: int = 0
    seconds: float = 0.0
    deal_seconds: float = 0.0    # of seconds, making rounds ready to play (shuffle, deal, setup up to the peeks)
    bao_calls: int = 0
    bao_cancelled: int = 0       # calls a later final phase made void (they are not scored)
    bao_successes: int = 0
    final_phase_rounds: int = 0
    tiebreak_rounds: int = 0
    checked_moves: int = 0
    round_trips: int = 0
    wins: dict = field(default_factory=dict)        # agent name -> games won
    final_totals: dict = field(default_factory=dict)  # agent name -> [sum of final totals, seats]
    first_player_wins: int = 0

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds else 0.0

    @property
    def turns_per_second(self) -> float:
        return self.turns / self.seconds if self.seconds else 0.0

    @property
    def moves_per_second(self) -> float:
        return self.moves / self.seconds if self.seconds else 0.0

    @property
    def bao_success_rate(self) -> float:
        scored = self.bao_calls - self.bao_cancelled
        return self.bao_successes / scored if scored else 0.0

    @property
    def turns_per_round(self) -> float:
        return self.turns / self.rounds if self.rounds else 0.0

    def as_json(self) -> dict:
        data = asdict(self)
        data.update(games_per_second=round(self.games_per_second, 2), turns_per_second=round(self.turns_per_second, 1),
                    moves_per_second=round(self.moves_per_second, 1), seconds=round(self.seconds, 3),
                    deal_seconds=round(self.deal_seconds, 3),
                    bao_success_rate=round(self.bao_success_rate, 4), turns_per_round=round(self.turns_per_round, 2))
        return data

    def lines(self) -> list[str]:
        return [
            f"variant {self.variant}, {self.players} players, agents {','.join(self.agents)}, seed {self.seed}",
            f"games {self.games}  rounds {self.rounds}  turns {self.turns}  moves {self.moves}",
            f"seconds {self.seconds:.2f}  games/s {self.games_per_second:.1f}  turns/s {self.turns_per_second:.0f}"
            f"  moves/s {self.moves_per_second:.0f}",
            f"BAO calls {self.bao_calls}" + (f" ({self.bao_cancelled} made void by the final phase)"
                                             if self.bao_cancelled else "") +
            f"  success rate {self.bao_success_rate:.1%}"
            f"  average round length {self.turns_per_round:.1f} turns",
            f"rounds ended by the second recycle {self.final_phase_rounds}  tie-break rounds {self.tiebreak_rounds}",
        ] + ([f"invariants checked after {self.checked_moves} moves, {self.round_trips} table round trips"]
             if self.checked_moves else []) + \
            (["wins by agent: " + ", ".join(f"{k} {v}" for k, v in sorted(self.wins.items())) +
              "; average final total: " + ", ".join(f"{k} {t / max(n, 1):.1f}"
                                                    for k, (t, n) in sorted(self.final_totals.items()))]
             if len(set(self.agents)) > 1 else [])


def game_seed(seed: int, index: int) -> int:
    return seed * 1_000_003 + index


def simulate(rules: Rules, players: int, games: int, seed: int, agents: list[str], *, check: bool = False,
             progress: bool = False, on_game=None, record=None) -> Stats:
    """`record`: a writable text file that gets each game as one JSON line."""
    stats = Stats(rules.variant, players, seed, list(agents))
    # a round makes many small objects that live until it ends: the collector's default
    # thresholds would scan them again and again (about a tenth of the time)
    thresholds = gc.get_threshold()
    gc.set_threshold(max(thresholds[0], 20_000), *thresholds[1:])
    try:
        return _simulate(rules, players, games, seed, agents, stats, check, progress, on_game, record)
    finally:
        gc.set_threshold(*thresholds)


def _simulate(rules: Rules, players: int, games: int, seed: int, agents: list[str], stats: Stats, check: bool,
              progress: bool, on_game, record) -> Stats:
    started = time.perf_counter()
    last_report = started
    for index in range(games):
        hooks = [_checking(rules, stats)] if check else []
        on_round_start = None
        if record is not None:
            recorder = Recorder(rules, game_seed(seed, index), agents)
            hooks.append(recorder.on_move)
            on_round_start = recorder.on_round_start

        def on_move(rnd, move, _hooks=tuple(hooks)):
            for hook in _hooks:
                hook(rnd, move)
        played = play_game(rules, players, game_seed(seed, index), agents, on_move=on_move if hooks else None,
                           on_round_start=on_round_start, trusted=not check)
        _count(stats, played)
        if record is not None:
            record.write(json.dumps(recorder.finish(played), separators=(",", ":")) + "\n")
        if on_game is not None:
            on_game(played)
        now = time.perf_counter()
        if progress and now - last_report > 1.0:
            last_report = now
            rate = (index + 1) / (now - started)
            print(f"\r  {index + 1}/{games} games  {rate:.0f} games/s", end="", file=sys.stderr, flush=True)
    if progress and games:
        print("\r" + " " * 60 + "\r", end="", file=sys.stderr, flush=True)
    stats.seconds = time.perf_counter() - started
    return stats


def _checking(rules: Rules, stats: Stats):
    state = {"round": None, "watch": None}

    def on_move(rnd, move):
        if state["round"] is not rnd:
            state["round"] = rnd
            state["watch"] = Watch(rnd, rules, rules.edition.size)
        watch = state["watch"]
        watch.after(rnd, move)
        if watch.round_trip(rnd, f"after '{move}'"):
            stats.round_trips += 1
        stats.checked_moves += 1
    return on_move


def _count(stats: Stats, record: GameRecord) -> None:
    stats.games += 1
    stats.deal_seconds += record.deal_seconds
    stats.rounds += len(record.rounds)
    for rnd in record.rounds:
        stats.turns += rnd.turns
        stats.moves += rnd.moves
        if rnd.bao_called is not None:
            stats.bao_calls += 1
            stats.bao_cancelled += rnd.bao is None
            stats.bao_successes += bool(rnd.bao_success)
        stats.final_phase_rounds += rnd.final_phase
        stats.tiebreak_rounds += rnd.tiebreak
    for name, total in record.totals.items():
        sums = stats.final_totals.setdefault(record.agents[name], [0, 0])
        sums[0] += total
        sums[1] += 1
    if record.winner is not None:
        agent = record.agents[record.winner]
        stats.wins[agent] = stats.wins.get(agent, 0) + 1
        if record.rounds and record.rounds[0].first == record.winner:
            stats.first_player_wins += 1
