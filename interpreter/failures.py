"""A failure of random play made replayable: where it happened (the game, its seed, the round,
the move) and the failing round as a scenario file that `baobei scenario` plays into the same
failure.

The scenario starts from the round's table after its deal (the contract's keys, with the
project's `first` and `tiebreak` where the round needs them), gives the draw piles its recycles
made (`reshuffle`), asks for the invariants after every step (`invariants`, when the simulation
checked them), and plays every move of the round up to the failing one, the setup's peeks first.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

import yaml

from baobei.dsl.errors import RuleRuntimeError

from .invariants import InvariantBroken
from .table import table_from_round

# the order a rules author reads a table in
TABLE_ORDER = ("players", "first", "tiebreak", "layouts", "deck", "discard", "under_discard", "active", "totals",
               "bao", "shield", "recycles", "seed")


@dataclass
class Failure:
    seed: int                   # the simulation's seed
    game: int                   # the game's number, from 1
    game_seed: int
    round: int                  # the round's number in its game, from 1
    move: int                   # the failing move's number in its round (0: before its first move)
    move_text: str | None
    code: str                   # E510: an invariant broke; E500: the rules got stuck
    message: str
    scenario: dict | None       # the failing round as a scenario (None: no round had begun)
    path: str | None = None     # where the scenario was written
    invariant: str | None = None  # the spec's invariant that broke, if one did

    def where(self) -> str:
        move = f"move {self.move} '{self.move_text}'" if self.move else "before its first move"
        return f"game {self.game} (seed {self.game_seed}), round {self.round}, {move}"

    def text(self) -> str:
        return f"{self.where()}: error[{self.code}]: {self.message}"

    def as_json(self) -> dict:
        data = asdict(self)
        del data["scenario"]
        return data


class SimulationFailed(RuleRuntimeError):
    """Random play broke an invariant or got stuck: the failure, where, and its scenario file."""

    def __init__(self, failure: Failure):
        super().__init__(failure.text(), code=failure.code)
        self.failure = failure


def failure_of(error: RuleRuntimeError, rnd, *, seed: int, game: int, game_seed: int, rounds: int,
               variant: str, checked: bool, between: bool) -> Failure:
    """The failure of a game in play: `rnd` the round played last (None: none had begun), `rounds`
    how many rounds had begun, `between`: the failure came after that round was over and its last
    move checked (the next round's deal, or the game's decisions)."""
    if rnd is None or between:
        return Failure(seed, game, game_seed, rounds + 1, 0, None, error.code, error.message, None)
    move = rnd.history[-1] if rnd.history else None
    failure = Failure(seed, game, game_seed, rounds, len(rnd.history), str(move) if move else None, error.code,
                      error.message, None)
    failure.invariant = getattr(error, "invariant", None)
    failure.scenario = round_scenario(rnd, variant, checked, f"random play failed here: {failure.where()}")
    if not isinstance(error, InvariantBroken) and rnd.pending is not None and rnd.history:
        # the move was played, and the rules got stuck saying what is legal next (an agent asked):
        # the check of what the game waits for asks the same
        scenario_steps = failure.scenario["steps"]
        scenario_steps[-1] = {**scenario_steps[-1], "then": {"waiting": _asked(rnd.pending)}}
    return failure


def _asked(ask) -> dict:
    asked: dict = {}
    for asker, kinds in ask.clauses:
        name = "anyone" if asker is None else asker.name
        asked[name] = list(dict.fromkeys(asked.get(name, []) + list(kinds)))
    return asked


def round_scenario(rnd, variant: str, checked: bool, title: str) -> dict:
    """The round as a scenario: its table after the deal, the piles its recycles made, and every
    move played so far, one step each."""
    dealt = rnd.rebuild()                  # the same round again, as it was dealt
    dealt.start(["setup", "turns"])
    table = table_from_round(dealt)
    scenario: dict = {"title": title, "variants": [variant]}
    if checked:
        scenario["invariants"] = True
    scenario.update({key: table[key] for key in TABLE_ORDER if key in table})
    if rnd.shuffled:
        scenario["reshuffle"] = [list(order) for order in rnd.shuffled]
    scenario["steps"] = [{move.actor.name: str(move).partition(": ")[2]} for move in rnd.history]
    return scenario


def write_scenario(failure: Failure, folder: str | Path) -> Path:
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"failure-seed{failure.seed}-game{failure.game}.yaml"
    header = (f"# Written by baobei simulate: the round where random play failed, {failure.where()}.\n"
              f"# error[{failure.code}]: {failure.message}\n"
              f"# `baobei scenario {path.name}` (with the simulation's --spec, --config, --edition) plays into "
              f"the same failure.\n")
    body = yaml.safe_dump(failure.scenario, sort_keys=False, allow_unicode=True, width=110,
                          default_flow_style=None)
    path.write_text(header + body, encoding="utf-8")
    failure.path = str(path)
    return path
