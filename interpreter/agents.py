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
    """Uniform over the kinds of move it may make, then over the forms of that kind (one or two
    targets), then uniform over those moves. In a pluck window it declines half the time. It
    calls BAO one time in twenty only, so that rounds last long enough to reach the end of the
    draw pile."""

    name = "random"
    bao_rate = 0.05

    def choose(self, rnd: Round, player, may_decline: bool) -> Move | None:
        if may_decline and self.rng.random.random() < 0.5:
            return None  # in a window, half the time it lets the card go
        kinds = []
        for asker, asked in rnd.pending.clauses:
            if asker is None or asker is player:
                kinds += [k for k in asked if k not in kinds and not (may_decline and k in DECLINE_KINDS)]
        if "bao" in kinds and len(kinds) > 1:
            kinds.remove("bao")
            if self.rng.random.random() < self.bao_rate and rnd.is_legal(Move(player, "bao")):
                return Move(player, "bao")
        # a kind drawn at random until one has a legal move: uniform over the kinds that have one
        while kinds:
            kind = kinds[0] if len(kinds) == 1 else self.rng.choice(kinds)
            move = rnd.sample_move(player, kind, self.rng)
            if move is not None:
                return move
            kinds.remove(kind)
        return None


def make_agent(name: str, player: str, rng: Rng) -> Agent:
    from .memory_agent import MemoryAgent
    AGENTS = {"random": RandomAgent, "memory": MemoryAgent}
    if name not in AGENTS:
        from baobei.dsl.errors import ConfigError
        raise ConfigError(f"unknown agent '{name}'; agents: {', '.join(AGENTS)}")
    return AGENTS[name](player, rng)
