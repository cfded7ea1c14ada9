"""Simulation: many seeded games, figures a rules author can read, optional
invariant checks after every move. The same seed gives the same games."""
from __future__ import annotations

import gc
import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from baobei.dsl.errors import RuleRuntimeError

from .failures import Failure, SimulationFailed, failure_of, write_scenario
from .game import GameRecord, play_game
from .invariants import Watch
from .progress import Progress
from .record import Recorder
from .rules import Rules, RulesSource
from .workers import in_order, remember, rules_for


# the counts of Stats that batches add up
COUNTS = ("games", "rounds", "turns", "moves", "bao_calls", "bao_cancelled", "bao_successes", "final_phase_rounds",
          "tiebreak_rounds", "checked_moves", "round_trips", "first_player_wins")


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
    deal_seconds: float = 0.0    # of the games' time, making rounds ready to play (shuffle, deal, setup up to the peeks)
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

    def add(self, other: "Stats") -> None:
        """Adds another batch's counts (integers only: the sum is the same in any order)."""
        for name in COUNTS:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.deal_seconds += other.deal_seconds     # a time: summed over the workers that dealt
        for agent, won in other.wins.items():
            self.wins[agent] = self.wins.get(agent, 0) + won
        for agent, (total, seats) in other.final_totals.items():
            sums = self.final_totals.setdefault(agent, [0, 0])
            sums[0] += total
            sums[1] += seats

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


def batch_size(games: int) -> int:
    """Games per batch sent to a worker: large enough that scheduling costs stay small, small
    enough that the work spreads evenly over the workers. It depends on the number of games
    only, never on the number of workers."""
    return min(250, max(10, -(-games // 100)))


@dataclass(frozen=True)
class SimulationBatch:
    """Games start..stop-1 of a simulation, as a worker process receives them."""

    source: RulesSource
    version: str
    players: int
    seed: int
    agents: tuple
    start: int
    stop: int
    check: bool = False
    record: bool = False        # send each game back as its JSON line
    keep_games: bool = False    # send the game records back


@dataclass
class BatchOutcome:
    stats: Stats
    lines: list[str] = field(default_factory=list)
    games: list[GameRecord] = field(default_factory=list)
    failure: Failure | None = None      # the game that broke an invariant or got stuck (the batch stops there)


def simulate(rules: Rules, players: int, games: int, seed: int, agents: list[str], *, check: bool = False,
             progress: bool = False, on_game=None, record=None, workers: int = 1, ray: str | None = None,
             failures: str | Path | None = None) -> Stats:
    """`record`: a writable text file that gets each game as one JSON line. `workers`: processes
    that play batches of games side by side (`ray`: a Ray cluster's address instead); the
    figures are the same for any number of them, since every game's seed is game_seed(seed,
    its index) and the batches' counts are added in batch order.

    A game that breaks an invariant (`check`) or gets stuck (no rule decides) stops the run with
    SimulationFailed, after `record` got the games before it and the failing one up to its
    failing move; with `failures` (a folder) the failing round is written there as a scenario."""
    stats = Stats(rules.variant, players, seed, list(agents))
    started = time.perf_counter()
    remember(rules)
    size = batch_size(games)
    jobs = [SimulationBatch(rules.source, rules.version, players, seed, tuple(agents), start,
                            min(start + size, games), check, record is not None, on_game is not None)
            for start in range(0, games, size)]
    shown = Progress(games, enabled=progress)
    for _, outcome in in_order(simulate_batch, jobs, workers=workers, ray=ray):
        stats.add(outcome.stats)
        for line in outcome.lines:
            record.write(line)
        for played in outcome.games:
            on_game(played)
        shown.update(stats.games)
        if outcome.failure is not None:
            shown.close()
            if failures is not None and outcome.failure.scenario is not None:
                write_scenario(outcome.failure, failures)
            raise SimulationFailed(outcome.failure)
    shown.close()
    stats.seconds = time.perf_counter() - started
    return stats


def simulate_batch(job: SimulationBatch) -> BatchOutcome:
    # a round makes many small objects that live until it ends: the collector's default
    # thresholds would scan them again and again (about a tenth of the time)
    thresholds = gc.get_threshold()
    gc.set_threshold(max(thresholds[0], 20_000), *thresholds[1:])
    try:
        return _play_batch(job)
    finally:
        gc.set_threshold(*thresholds)


def _play_batch(job: SimulationBatch) -> BatchOutcome:
    rules = rules_for(job.source, job.version)
    agents = list(job.agents)
    outcome = BatchOutcome(Stats(rules.variant, job.players, job.seed, agents))
    stats = outcome.stats
    for index in range(job.start, job.stop):
        game = _GameHooks(job, rules, stats, index)
        try:
            played = play_game(rules, job.players, game.seed, agents, on_move=game.on_move if game.hooks else None,
                               on_round_start=game.on_round_start, trusted=not job.check)
        except RuleRuntimeError as error:        # an invariant broke, or the rules got stuck: replayable
            outcome.failure = failure_of(error, game.round, seed=job.seed, game=index + 1, game_seed=game.seed,
                                         rounds=game.rounds, variant=rules.variant, checked=job.check,
                                         between=game.between_rounds())
            if game.recorder is not None:
                line = game.recorder.failed(game.round, outcome.failure.as_json())
                outcome.lines.append(json.dumps(line, separators=(",", ":")) + "\n")
            break
        _count(stats, played)
        if game.recorder is not None:
            outcome.lines.append(json.dumps(game.recorder.finish(played), separators=(",", ":")) + "\n")
        if job.keep_games:
            outcome.games.append(played)
    return outcome


class _GameHooks:
    """What one game is played with: the recorder (first, so that a failing move is recorded),
    the invariant checks, and the round in play, which a failure is replayed from."""

    def __init__(self, job: SimulationBatch, rules: Rules, stats: Stats, index: int):
        self.seed = game_seed(job.seed, index)
        self.recorder = Recorder(rules, self.seed, list(job.agents)) if job.record else None
        self.hooks = ([self.recorder.on_move] if self.recorder is not None else []) + \
            ([_checking(rules, stats)] if job.check else [])
        self.round = None
        self.rounds = 0
        self.checked = 0            # moves of the round that passed every hook

    def on_round_start(self, rnd) -> None:
        self.round = rnd
        self.rounds += 1
        self.checked = 0
        if self.recorder is not None:
            self.recorder.on_round_start(rnd)

    def on_move(self, rnd, move) -> None:
        for hook in self.hooks:
            hook(rnd, move)
        self.checked = len(rnd.history)

    def between_rounds(self) -> bool:
        """Whether a failure came after the round in play was over and its last move checked."""
        rnd = self.round
        return rnd is not None and rnd.round_over and (not self.hooks or self.checked == len(rnd.history))


def _checking(rules: Rules, stats: Stats):
    state = {"round": None, "watch": None}

    def on_move(rnd, move):
        if state["round"] is not rnd:
            state["round"] = rnd
            state["watch"] = Watch(rnd, rules, rules.edition.size)
        watch = state["watch"]
        watch.after(rnd, move)
        if watch.round_trip(rnd, move):
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
