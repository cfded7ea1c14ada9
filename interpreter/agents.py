"""Who decides: agents choose among the legal moves the rules allow a player.

An agent sees only what the rules let its player see (the round's knowledge
table for that player, the visible discard); it never decides legality.
"""
from __future__ import annotations

from baobei.dsl.schema import DECLINE_KINDS

from .engine import Round
from .moves import Move
from .state import Rng


class Agent:
    name = "agent"

    def __init__(self, player: str, rng: Rng):
        self.player = player
        self.rng = rng

    def new_round(self, rnd: Round) -> None:
        pass

    def choose(self, rnd: Round, player, may_decline: bool) -> Move | None:
        raise NotImplementedError


class RandomAgent(Agent):
    """Uniform over the kinds of move it may make, then uniform over the moves of that kind.
    In a pluck window, declining is one of the kinds. It calls BAO one time in twenty
    only, so that rounds last long enough to reach the end of the draw pile."""

    name = "random"
    bao_rate = 0.05

    def choose(self, rnd: Round, player, may_decline: bool) -> Move | None:
        kinds = [k for k in rnd.kinds_of(player) if not (may_decline and k in DECLINE_KINDS)]
        if may_decline:
            kinds.append(None)
        if not kinds:
            return None
        if "bao" in kinds and len(kinds) > 1:
            if self.rng.random.random() < self.bao_rate:
                return Move(player, "bao")
            kinds.remove("bao")
        kind = self.rng.choice(kinds)
        if kind is None:
            return None
        return rnd.sample_move(player, kind, self.rng)


AGENTS = {"random": RandomAgent}


def make_agent(name: str, player: str, rng: Rng) -> Agent:
    if name not in AGENTS:
        from baobei.dsl.errors import ConfigError
        raise ConfigError(f"unknown agent '{name}'; agents: {', '.join(AGENTS)}")
    return AGENTS[name](player, rng)
