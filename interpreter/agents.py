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

    def __init__(self, player: str, rng: Rng):
        super().__init__(player, rng)
        self.uniform = rng.random.random

    def choose(self, rnd: Round, player, may_decline: bool) -> Move | None:
        uniform = self.uniform
        if may_decline and uniform() < 0.5:
            return None  # in a window, half the time it lets the card go
        ask = rnd.pending
        asker = ask.actor
        if asker is not None:       # (kinds_of, written out for the usual ask of one player)
            kinds = ask.site.kinds if asker is player else ()
        else:
            kinds = ask.kinds_of(player)
        plans = _PLANS[may_decline]
        plan = plans.get(kinds)
        if plan is None:
            plan = plans[kinds] = _plan(kinds, may_decline)
        kinds, bao_first = plan
        if bao_first and uniform() < self.bao_rate and ask.legal(player, "bao", 0):
            return Move(player, "bao")
        # uniform over the kinds that have a legal move, then over their forms, then over the moves
        return ask.random_move(player, kinds, uniform)


# For the kinds asked of a player: the kinds the random agent chooses among (without the declines
# where it may decline; without bao where there is something else) and whether it first tries a
# BAO. Kept per tuple of kinds (an ask site's are always the same), one table per may_decline.
_PLANS: tuple[dict, dict] = ({}, {})


def _plan(kinds: tuple, may_decline: bool) -> tuple[tuple, bool]:
    if may_decline:
        kinds = tuple(kind for kind in kinds if kind not in DECLINE_KINDS)
    if "bao" in kinds and len(kinds) > 1:
        return tuple(kind for kind in kinds if kind != "bao"), True
    return kinds, False


def make_agent(name: str, player: str, rng: Rng) -> Agent:
    from .memory_agent import MemoryAgent
    AGENTS = {"random": RandomAgent, "memory": MemoryAgent}
    if name not in AGENTS:
        from baobei.dsl.errors import ConfigError
        raise ConfigError(f"unknown agent '{name}'; agents: {', '.join(AGENTS)}")
    return AGENTS[name](player, rng)
