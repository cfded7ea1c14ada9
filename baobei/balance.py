"""`baobei balance`: what a rule change does to play, with statistics.

Two sides (two variants, two versions of the spec, a house layer and its base) each play
the same number of seeded games. Game i of side s has the seed game_seed(seed, 2 i + s):
the two sides' games are independent, and every game replays from the study's seed. The
games go out in batches (to the cores of this machine or to a Ray cluster); each batch
comes back as sums (baobei/statistics.py) that are added in batch order, so the figures
are the same on any number of workers and memory does not grow with the games.

For each metric: both sides' estimates with 95% confidence intervals, the difference with
its interval, a test (Welch's t-test on means and rates, a Wald test on distributions, all
with game-clustered variances), Holm-Bonferroni correction over the metrics, and a verdict.
docs/balance.md says what each metric is and why these tests.
"""
from __future__ import annotations

import contextlib
import json
import math
import os
import signal
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from baobei.dsl.errors import ConfigError, Loc
from baobei.dsl.loader import Config
from baobei.interpreter.metrics import GameMetrics, play_measured
from baobei.interpreter.progress import Progress
from baobei.interpreter.rules import Rules, RulesSource
from baobei.interpreter.simulate import batch_size, game_seed
from baobei.interpreter.workers import in_order, remember, rules_for
from baobei.statistics import (DistributionTest, HistogramSums, RatioSums, compare_distributions, holm, t_quantile,
                               welch)

CHECKPOINT_FORMAT = "baobei-balance-checkpoint/1"
LOOK_FRACTIONS = (1 / 8, 1 / 4, 1 / 2, 1)     # where --until-significant looks, as shares of --games


# ---- what one side measured: sums over its games --------------------------------------------------

HISTOGRAMS = ("round_turns", "round_scores", "bao_scores", "final_totals", "cards_at_end")


@dataclass
class SideSums:
    """One side's games, as sums. Counts that exist only in some games (a kind of pluck, a card's
    power) keep their sums over the games where they occurred; the other games add zeros."""

    rounds: RatioSums = field(default_factory=RatioSums)          # per game: (rounds, 1)
    tiebreak: RatioSums = field(default_factory=RatioSums)        # (a tie-break round was played, 1)
    bao_calls: RatioSums = field(default_factory=RatioSums)       # (calls, rounds)
    bao_success: RatioSums = field(default_factory=RatioSums)     # (successes, scored calls)
    second_recycle: RatioSums = field(default_factory=RatioSums)  # (rounds ended by it, rounds)
    seat_wins: dict = field(default_factory=dict)                 # seat -> (won, 1)
    pluck_tries: dict = field(default_factory=dict)               # kind -> (attempts, rounds), where tried
    pluck_success: dict = field(default_factory=dict)             # kind -> (successes, attempts), where tried
    powers: dict = field(default_factory=dict)                    # card -> (fired, rounds), where fired
    round_turns: HistogramSums = field(default_factory=HistogramSums)
    round_scores: HistogramSums = field(default_factory=HistogramSums)
    bao_scores: HistogramSums = field(default_factory=HistogramSums)
    final_totals: HistogramSums = field(default_factory=HistogramSums)
    cards_at_end: HistogramSums = field(default_factory=HistogramSums)

    @property
    def games(self) -> int:
        return self.rounds.games

    def add(self, game: GameMetrics) -> None:
        rounds = game.rounds
        self.rounds.add(rounds, 1)
        self.tiebreak.add(int(game.tiebreak), 1)
        self.bao_calls.add(game.bao_calls, rounds)
        self.bao_success.add(game.bao_successes, game.bao_scored)
        self.second_recycle.add(game.final_phase_rounds, rounds)
        for seat in range(1, game.seats + 1):
            _sums(self.seat_wins, seat).add(int(game.winner_seat == seat), 1)
        for kind, (tried, succeeded) in game.plucks.items():
            _sums(self.pluck_tries, kind).add(tried, rounds)
            _sums(self.pluck_success, kind).add(succeeded, tried)
        for card, fired in game.powers.items():
            _sums(self.powers, card).add(fired, rounds)
        for name in HISTOGRAMS:
            getattr(self, name).add(getattr(game, name))

    def merge(self, other: "SideSums") -> None:
        for name in ("rounds", "tiebreak", "bao_calls", "bao_success", "second_recycle") + HISTOGRAMS:
            getattr(self, name).merge(getattr(other, name))
        for name in ("seat_wins", "pluck_tries", "pluck_success", "powers"):
            mine = getattr(self, name)
            for key, sums in getattr(other, name).items():
                _sums(mine, key).merge(sums)

    def per_round(self, sums: RatioSums | None) -> RatioSums:
        """A count kept only over the games where it occurred, per round over all games."""
        sums = sums or RatioSums()
        return RatioSums(self.rounds.games, sums.a, self.rounds.a, sums.aa, sums.ab, self.rounds.aa)

    def over_all_games(self, sums: RatioSums | None) -> RatioSums:
        """A ratio kept only over the games where it occurred: the others add nothing but a game."""
        sums = sums or RatioSums()
        return replace(sums, games=self.rounds.games)

    def as_json(self) -> dict:
        data = {name: getattr(self, name).as_json() for name in
                ("rounds", "tiebreak", "bao_calls", "bao_success", "second_recycle") + HISTOGRAMS}
        for name in ("seat_wins", "pluck_tries", "pluck_success", "powers"):
            data[name] = {str(key): sums.as_json() for key, sums in sorted(getattr(self, name).items())}
        return data

    @classmethod
    def from_json(cls, data: dict) -> "SideSums":
        sums = cls()
        for name in ("rounds", "tiebreak", "bao_calls", "bao_success", "second_recycle"):
            setattr(sums, name, RatioSums.from_json(data[name]))
        for name in HISTOGRAMS:
            setattr(sums, name, HistogramSums.from_json(data[name]))
        sums.seat_wins = {int(k): RatioSums.from_json(v) for k, v in data["seat_wins"].items()}
        for name in ("pluck_tries", "pluck_success", "powers"):
            setattr(sums, name, {k: RatioSums.from_json(v) for k, v in data[name].items()})
        return sums


# ---- the study: its sides, its batches ------------------------------------------------------------

def base_variant(config: Config, variant: str) -> tuple[Config, str]:
    """The variant a house variant builds on: its layers without the last (house: core, de, house
    -> de). The config gets that variant when it has no name for those layers."""
    layers = config.layers_of(variant)
    if len(layers) < 3:
        raise ConfigError(f"variant {variant} ({', '.join(layers)}) has no base to compare it with: name two "
                          f"variants, e.g. baobei balance fr de")
    base = layers[:-1]
    name = base[-1]
    if config.layers_of(name) != base:
        name = "+".join(base)
        config = replace(config, variants={**config.variants, name: base})
    return config, name


def _sums(table: dict, key) -> RatioSums:
    """The sums kept under this key, new ones the first time (setdefault would build a
    RatioSums for every call: this runs a few dozen times per game)."""
    found = table.get(key)
    if found is None:
        found = table[key] = RatioSums()
    return found


@dataclass(frozen=True)
class Side:
    label: str
    source: RulesSource
    version: str

    @classmethod
    def of(cls, label: str, rules: Rules) -> "Side":
        remember(rules)
        return cls(label, rules.source, rules.version)


@dataclass(frozen=True)
class StudyBatch:
    """Games start..stop-1 of both sides, as a worker receives them."""

    sides: tuple
    players: int
    agents: tuple
    seed: int
    start: int
    stop: int


def side_seed(seed: int, index: int, side: int) -> int:
    return game_seed(seed, 2 * index + side)


def play_batch(job: StudyBatch) -> list[SideSums]:
    results = []
    for number, side in enumerate(job.sides):
        rules = rules_for(side.source, side.version)
        sums = SideSums()
        for index in range(job.start, job.stop):
            sums.add(play_measured(rules, job.players, side_seed(job.seed, index, number), list(job.agents)))
        results.append(sums)
    return results


@dataclass(frozen=True)
class Study:
    a: Side
    b: Side
    games: int
    players: int
    agents: tuple
    seed: int
    alpha: float = 0.05
    margin: float = 1.0             # points for rates and shares, percent of a's value for means and spreads
    until_significant: bool = False

    @property
    def batch(self) -> int:
        return batch_size(self.games)

    def batches(self) -> list[StudyBatch]:
        return [StudyBatch((self.a, self.b), self.players, self.agents, self.seed, start,
                           min(start + self.batch, self.games)) for start in range(0, self.games, self.batch)]

    def looks(self) -> list[int]:
        """The game counts where the study looks at its figures: the end only, or with
        --until-significant a few pre-set points, each on a batch boundary."""
        if not self.until_significant:
            return [self.games]
        return sorted({min(self.games, math.ceil(self.games * share / self.batch) * self.batch)
                       for share in LOOK_FRACTIONS})

    def key(self) -> dict:
        """What the figures depend on: a checkpoint resumes only the same study."""
        key = {"a": [self.a.label, self.a.version], "b": [self.b.label, self.b.version], "games": self.games,
               "players": self.players, "agents": list(self.agents), "seed": self.seed, "batch": self.batch}
        if self.until_significant:  # the stopping rule decides how many games are played
            key.update(until_significant=True, alpha=self.alpha, margin=self.margin)
        return key


@dataclass
class Progressed:
    """Where a study is: the sums of its first `batches` batches."""

    sides: list
    batches: int = 0
    played: int = 0          # games per side
    finished: bool = False


def run_study(study: Study, *, workers: int = 1, ray: str | None = None, checkpoint: Path | None = None,
              progress: bool = False, batch_limit: int | None = None) -> "Findings":
    """Plays the study (or what its checkpoint still lacks) and analyses it. `batch_limit`: stop
    after that many batches of this run, as an interruption would (the checkpoint keeps them)."""
    started = time.perf_counter()
    state = load_checkpoint(checkpoint, study) if checkpoint else None
    state = state or Progressed([SideSums(), SideSums()])
    resumed_at = state.played
    looks = study.looks()
    levels = len(looks)
    shown = Progress(2 * study.games, enabled=progress)
    shown.start_at(2 * state.played)
    saved = time.perf_counter()
    run = 0
    jobs = study.batches()[state.batches:] if not state.finished else []
    outcomes = in_order(play_batch, jobs, workers=workers, ray=ray)
    try:
        for _, (a, b) in outcomes:
            with interrupts_deferred():     # a batch is in the sums whole or not at all
                state.sides[0].merge(a)
                state.sides[1].merge(b)
                state.batches += 1
                state.played = state.sides[0].games
            run += 1
            if state.played in looks and state.played < study.games and \
                    analyse(study, state, levels).settled:
                state.finished = True
                break
            if checkpoint and time.perf_counter() - saved > 2.0:
                save_checkpoint(checkpoint, study, state)
                saved = time.perf_counter()
            shown.update(2 * state.played)
            if batch_limit is not None and run >= batch_limit:
                break
        else:
            state.finished = True
    finally:  # no worker outlives the study (one that stops early has batches in flight); what was played is kept
        outcomes.close()
        shown.close()
        if checkpoint:
            save_checkpoint(checkpoint, study, state)
    findings = analyse(study, state, levels)
    findings.seconds = time.perf_counter() - started
    findings.played_now = state.played - resumed_at
    findings.sums = state.sides
    return findings


@contextlib.contextmanager
def interrupts_deferred():
    """Ctrl-C waits until the block is done (it is delivered right after)."""
    blocked = {signal.SIGINT}
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, blocked)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def save_checkpoint(path: Path, study: Study, state: Progressed) -> None:
    data = {"format": CHECKPOINT_FORMAT, "study": study.key(), "batches": state.batches, "played": state.played,
            "finished": state.finished, "sides": [side.as_json() for side in state.sides]}
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(data, separators=(",", ":")), encoding="utf-8")
    os.replace(temporary, path)   # a checkpoint is whole or absent, even if the run dies while writing


def load_checkpoint(path: Path, study: Study) -> Progressed | None:
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("format") != CHECKPOINT_FORMAT:
            raise ValueError(f"format {data.get('format')!r}, expected {CHECKPOINT_FORMAT}")
        key = data["study"]
        state = Progressed([SideSums.from_json(s) for s in data["sides"]], data["batches"], data["played"],
                           data["finished"])
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ConfigError(f"not a balance checkpoint ({error}); remove it or choose another file",
                          Loc(str(path))) from None
    wanted = study.key()
    if key != wanted:
        differing = ", ".join(f"{name} {key.get(name)!r} (this study: {wanted.get(name)!r})"
                              for name in sorted(set(key) | set(wanted)) if key.get(name) != wanted.get(name))
        raise ConfigError(f"the checkpoint is of another study: {differing}; remove it or choose another file",
                          Loc(str(path)))
    return state


# ---- the metrics ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Metric:
    key: str            # its name in --json
    label: str          # its name in the table
    kind: str           # share (a rate between 0 and 1), mean, spread, distribution
    subject: str        # the sentence about it: "in B, <subject> <amount> <more|less> than in A"
    more: str = "more"
    less: str = "less"
    unit: str = ""


def _quantity(key: str, label: str, sums_name: str, noun: str, subject: str, unit: str, more: str, less: str):
    """Mean, spread and distribution of one histogram; `noun` names its observations."""
    return [(Metric(f"{key}.mean", f"{label}: mean", "mean", subject, more, less, unit),
             lambda s: getattr(s, sums_name).mean()),
            (Metric(f"{key}.spread", f"{label}: standard deviation", "spread", f"the spread of {noun} is",
                    "wider", "narrower", unit), lambda s: getattr(s, sums_name).spread()),
            (Metric(f"{key}.distribution", f"{label}: distribution", "distribution", f"{noun} are distributed"),
             lambda s: getattr(s, sums_name))]


def metrics(a: SideSums, b: SideSums) -> list[tuple[Metric, object]]:
    """Every metric with the function that reads it from a side's sums. Seats, kinds of pluck
    and cards come from what the two sides played, not from a list written here."""
    found = [(Metric("rounds_per_game", "rounds per game", "mean", "a game lasts", "longer", "shorter", "rounds"),
              lambda s: s.rounds.estimate())]
    for seat in sorted(set(a.seat_wins) | set(b.seat_wins)):
        who = "the seat that opens the game" if seat == 1 else f"seat {seat}"
        found.append((Metric(f"win_rate.seat{seat}", f"win rate, seat {seat}" + (" (opens)" if seat == 1 else ""),
                             "share", f"{who} wins", "more often", "less often"),
                      lambda s, seat=seat: s.over_all_games(s.seat_wins.get(seat)).estimate()))
    found.append((Metric("tiebreak_rate", "games with a tie-break round", "share", "a game needs a tie-break round",
                         "more often", "less often"), lambda s: s.tiebreak.estimate()))
    found += _quantity("round_length", "round length (turns)", "round_turns", "round lengths", "a round lasts",
                       "turns", "longer", "shorter")
    found += [(Metric("bao.call_rate", "BAO called, per round", "share", "a BAO is called", "more often", "less often"),
               lambda s: s.bao_calls.estimate()),
              (Metric("bao.success_rate", "BAO success rate", "share", "a BAO succeeds", "more often", "less often"),
               lambda s: s.bao_success.estimate()),
              (Metric("second_recycle_rate", "rounds ended by the second recycle", "share",
                      "a round ends by the second recycle", "more often", "less often"),
               lambda s: s.second_recycle.estimate())]
    found += _quantity("round_score", "round score (points)", "round_scores", "round scores",
                       "a player scores, per round,", "points", "more", "less")
    found += _quantity("bao_score", "BAO caller's round score (points)", "bao_scores", "the scores of BAO callers",
                       "a BAO caller scores", "points", "more", "less")
    found += _quantity("final_total", "final total (points)", "final_totals", "final totals",
                       "a player ends the game with", "points", "more", "fewer")
    found += _quantity("cards_at_round_end", "cards at round end", "cards_at_end", "the cards left at a round's end",
                       "a player ends a round with", "cards", "more", "fewer")
    for kind in sorted(set(a.pluck_tries) | set(b.pluck_tries)):
        found.append((Metric(f"pluck.{kind.replace(' ', '_')}.tried", f"{kind} plucks tried, per round", "mean",
                             f"{kind} plucks are tried", "more times per round", "fewer times per round"),
                      lambda s, kind=kind: s.per_round(s.pluck_tries.get(kind)).estimate()))
        found.append((Metric(f"pluck.{kind.replace(' ', '_')}.success_rate", f"{kind} pluck success rate", "share",
                             f"a {kind} pluck succeeds", "more often", "less often"),
                      lambda s, kind=kind: s.over_all_games(s.pluck_success.get(kind)).estimate()))
    for card in sorted(set(a.powers) | set(b.powers)):
        found.append((Metric(f"power.{card}", f"power of {card} fired, per round", "mean",
                             f"the power of {card} fires", "more times per round", "fewer times per round"),
                      lambda s, card=card: s.per_round(s.powers.get(card)).estimate()))
    return found


# ---- the analysis -------------------------------------------------------------------------------------

@dataclass
class Row:
    metric: Metric
    a: object                 # Estimate, HistogramSums (distributions) or None
    b: object
    comparison: object        # Comparison, DistributionTest or None (nothing to compare)
    p: float | None = None
    p_holm: float | None = None
    verdict: str = "n/a"      # significant, negligible, not significant, n/a

    @property
    def settled(self) -> bool:
        return self.verdict in ("significant", "negligible", "n/a")


@dataclass
class Findings:
    study: Study
    rows: list[Row]
    played: int               # games per side
    level: float              # the significance level of each look (alpha / looks)
    finished: bool
    seconds: float = 0.0
    played_now: int = 0       # games per side played by this run (the rest came from the checkpoint)
    sums: list = field(default_factory=list)    # each side's SideSums (the report's simulation figures)

    @property
    def settled(self) -> bool:
        return all(row.settled for row in self.rows)

    @property
    def stopped_early(self) -> bool:
        return self.finished and self.played < self.study.games


def analyse(study: Study, state: Progressed, looks: int) -> Findings:
    a, b = state.sides
    level = study.alpha / looks
    rows = []
    for metric, read in metrics(a, b):
        est_a, est_b = read(a), read(b)
        if metric.kind == "distribution":
            comparison = compare_distributions(est_a, est_b)
        else:
            comparison = welch(est_a, est_b) if est_a is not None and est_b is not None else None
        rows.append(Row(metric, est_a, est_b, comparison, comparison.p if comparison is not None else None))
    tested = [row for row in rows if row.p is not None]
    for row, adjusted in zip(tested, holm([row.p for row in tested])):
        row.p_holm = adjusted
        if adjusted < level:
            row.verdict = "significant"
        elif negligible(row, study.margin, level / max(len(tested), 1)):
            row.verdict = "negligible"
        else:
            row.verdict = "not significant"
    return Findings(study, rows, state.played, level, state.finished)


def negligible(row: Row, margin: float, level: float) -> bool:
    """The difference is shown to be within the margin: two one-sided tests at `level` (the
    confidence interval at 1 - 2 level lies inside +-margin)."""
    comparison = row.comparison
    if isinstance(comparison, DistributionTest):
        t = t_quantile(2 * level, comparison.df2 + comparison.df1 - 1)   # the games' degrees of freedom
        return all(abs(sb - sa) + t * se < margin / 100
                   for sa, sb, se in zip(comparison.shares_a, comparison.shares_b, comparison.se_differences))
    if row.metric.kind == "share":
        bound = margin / 100
    else:
        scale = abs(row.a.value) or abs(row.b.value)
        if scale == 0:
            return comparison.difference == 0
        bound = margin / 100 * scale
    if comparison.se == 0:
        return abs(comparison.difference) < bound
    low, high = comparison.interval(1 - 2 * level)
    return -bound < low and high < bound


# ---- text -------------------------------------------------------------------------------------------------

def number(value: float, kind: str) -> str:
    if kind == "share":
        return f"{value:.1%}"
    if abs(value) >= 100:
        return f"{value:.1f}"
    if abs(value) >= 1:
        return f"{value:.2f}"
    return f"{value:.3f}"


def difference_text(value: float, kind: str) -> str:
    if kind == "share":
        return f"{value * 100:+.1f} pts"
    return ("+" if value >= 0 else "-") + number(abs(value), kind)


def p_text(p: float | None) -> str:
    if p is None:
        return "—"
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def interval(estimate, kind: str) -> tuple[float, float]:
    """The 95% interval of an estimate; a rate's stays between 0 and 1."""
    low, high = estimate.interval()
    return (max(low, 0.0), min(high, 1.0)) if kind == "share" else (low, high)


def bounds(low: float, high: float, kind: str, signed: bool = False) -> str:
    """An interval as the table shows it: a rate's in points, a difference's with its sign."""
    if kind == "share":
        shown = "{:+.1f}" if signed else "{:.1f}"
        return f"[{shown.format(low * 100)}, {shown.format(high * 100)}]"
    shown = (lambda v: difference_text(v, kind)) if signed else (lambda v: number(v, kind))
    return f"[{shown(low)}, {shown(high)}]"


def cells(row: Row) -> list[str]:
    """The table's cells of a row: both sides and the difference."""
    kind, comparison = row.metric.kind, row.comparison
    if kind == "distribution":
        sides = [f"{h.observations} obs." if h is not None and h.observations else "—" for h in (row.a, row.b)]
        return sides + ([f"F = {comparison.f:.2f}, {len(comparison.bins)} bins"] if comparison else ["—"])
    sides = [f"{number(e.value, kind)} {bounds(*interval(e, kind), kind)}" if e is not None else "—"
             for e in (row.a, row.b)]
    if comparison is None:
        return sides + ["—"]
    return sides + [f"{difference_text(comparison.difference, kind)} {bounds(*comparison.interval(), kind, True)}"]


def sentence(row: Row, a: str, b: str) -> str:
    """A plain sentence for a significant difference."""
    metric, comparison = row.metric, row.comparison
    p = f"p {p_text(row.p_holm)}" if row.p_holm < 0.001 else f"p = {p_text(row.p_holm)}"
    if metric.kind == "distribution":
        moved = max(range(len(comparison.bins)), key=lambda i: abs(comparison.shares_b[i] - comparison.shares_a[i]))
        low, high = comparison.bins[moved]
        where = f"{low}" if low == high else f"{low} to {high}"
        shift = comparison.shares_b[moved] - comparison.shares_a[moved]
        return (f"in {b}, {metric.subject} differently than in {a}: most of all, {where} "
                f"{'more' if shift > 0 else 'less'} often by {abs(shift) * 100:.1f} points "
                f"({comparison.shares_b[moved]:.1%} vs {comparison.shares_a[moved]:.1%}), {p}")
    difference = comparison.difference
    if metric.kind == "share":
        amount = f"{abs(difference) * 100:.1f} points"
    else:
        amount = f"{number(abs(difference), metric.kind)} {metric.unit}".rstrip()
    word = metric.more if difference > 0 else metric.less
    return (f"in {b}, {metric.subject} {amount} {word} than in {a} "
            f"({number(row.b.value, metric.kind)} vs {number(row.a.value, metric.kind)}), {p}")


def metrics_table(findings: Findings) -> tuple[list[str], list[list[str]]]:
    """The metrics table: its header and one row of cells per metric."""
    a, b = findings.study.a.label, findings.study.b.label
    return (["metric", a, b, f"{b} - {a}", "p (Holm)", "verdict"],
            [[row.metric.label] + cells(row) + [p_text(row.p_holm), row.verdict] for row in findings.rows])


def notable(findings: Findings) -> list[str]:
    """A sentence for each significant difference."""
    study = findings.study
    return [sentence(row, study.a.label, study.b.label) for row in findings.rows if row.verdict == "significant"]


def text_lines(findings: Findings) -> list[str]:
    study = findings.study
    a, b = study.a.label, study.b.label
    header, rows = metrics_table(findings)
    table = [header] + rows
    widths = [max(len(line[i]) for line in table) for i in range(len(header))]
    lines = [f"balance {a} vs {b}: {findings.played} games each, {study.players} players, "
             f"agents {','.join(study.agents)}, seed {study.seed}"]
    if findings.stopped_early:
        lines.append(f"stopped early: every metric settled after {findings.played} of {study.games} games")
    elif not findings.finished:
        lines.append(f"unfinished: {findings.played} of {study.games} games played (resume with the same "
                     f"command and --checkpoint)")
    lines += ["  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip() for line in table]
    lines.append(f"intervals: 95%; verdicts: Holm-corrected over {sum(r.p is not None for r in findings.rows)} "
                 f"metrics at level {findings.level:g}" +
                 (f" (alpha {study.alpha:g} split over {len(study.looks())} looks)" if study.until_significant else "") +
                 f"; negligible: within ±{study.margin:g} points (rates) or ±{study.margin:g}% (means)")
    sentences = notable(findings)
    lines.append("notable:" if sentences else "notable: no significant difference")
    lines += [f"  {line}" for line in sentences]
    return lines


def as_json(findings: Findings) -> dict:
    study = findings.study
    rows = []
    for row in findings.rows:
        entry = {"key": row.metric.key, "label": row.metric.label, "kind": row.metric.kind, "p": row.p,
                 "p_holm": row.p_holm, "verdict": row.verdict}
        comparison = row.comparison
        if row.metric.kind == "distribution":
            for name, histogram in (("a", row.a), ("b", row.b)):
                entry[name] = {"observations": histogram.observations, "games": histogram.games}
            if comparison is not None:
                entry.update(bins=comparison.bins, shares_a=comparison.shares_a, shares_b=comparison.shares_b,
                             wald=comparison.statistic, f=comparison.f, df=[comparison.df1, comparison.df2])
        else:
            for name, estimate in (("a", row.a), ("b", row.b)):
                entry[name] = None if estimate is None else {"value": estimate.value, "se": estimate.se,
                                                             "ci95": list(interval(estimate, row.metric.kind))}
            if comparison is not None:
                entry["difference"] = {"value": comparison.difference, "se": comparison.se, "df": comparison.df,
                                       "ci95": list(comparison.interval())}
        if row.verdict == "significant":
            entry["sentence"] = sentence(row, study.a.label, study.b.label)
        rows.append(entry)
    return _finite({"a": study.a.label, "b": study.b.label, "games": study.games, "played": findings.played,
                    "finished": findings.finished, "stopped_early": findings.stopped_early,
                    "players": study.players, "agents": list(study.agents), "seed": study.seed,
                    "alpha": study.alpha, "level": findings.level, "looks": study.looks(), "margin": study.margin,
                    "metrics": rows, "seconds": round(findings.seconds, 2)})


def _finite(value):
    """JSON has no infinity: an infinite statistic (no spread at all on either side) is null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value

