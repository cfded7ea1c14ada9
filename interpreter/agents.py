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
        moves = rnd.legal_moves_of(player)
        by_kind: dict[str, list[Move]] = {}
        for move in moves:
            if may_decline and move.kind in DECLINE_KINDS:
                continue
            by_kind.setdefault(move.kind, []).append(move)
        kinds = sorted(by_kind)
        if may_decline:
            kinds.append(None)
        if not kinds:
            return None
        if "bao" in by_kind and len(kinds) > 1:
            if self.rng.random.random() < self.bao_rate:
                return by_kind["bao"][0]
            kinds.remove("bao")
        kind = self.rng.choice(kinds)
        if kind is None:
            return None
        return self.rng.choice(by_kind[kind])


AGENTS = {"random": RandomAgent}


def make_agent(name: str, player: str, rng: Rng) -> Agent:
    if name not in AGENTS:
        from baobei.dsl.errors import ConfigError
        raise ConfigError(f"unknown agent '{name}'; agents: {', '.join(AGENTS)}")
    return AGENTS[name](player, rng)
