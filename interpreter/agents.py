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
        site = ask.site
        if ask.actor is player or ask.several is site.clauses:    # asked every kind of the site: its plan,
            plan = site.kept.get(_PLANS[may_decline]) or _kept(site, may_decline)    # kept with it
        else:
            plan = _plan(site, ask.kinds_of(player), may_decline)
        only, picks, bao_first = plan
        if bao_first and uniform() < self.bao_rate and ask.legal(player, "bao", 0):
            return Move(player, "bao")
        if only is not None:        # one kind to choose among: its picker (or the site's, for all its kinds)
            return only(rnd, ask.C, player, ask, uniform)
        return _one_of(uniform, picks, rnd, ask.C, player, ask)


def _one_of(uniform, picks: tuple, rnd: Round, C, player, ask) -> Move | None:
    """Uniform over the kinds that have a legal move, then (the site's pickers) over their forms
    that have one, then over its moves."""
    while picks:
        pick = picks[0] if len(picks) == 1 else picks[int(uniform() * len(picks))]
        move = pick[1](rnd, C, player, ask, uniform)
        if move is not None:
            return move
        picks = tuple(other for other in picks if other is not pick)
    return None


_PLANS = ("random", "random, may decline")     # the names of the random agent's plans in Site.kept


def _kept(site, may_decline: bool) -> tuple:
    plan = site.kept[_PLANS[may_decline]] = _plan(site, site.kinds, may_decline)
    return plan


def _plan(site, kinds: tuple, may_decline: bool) -> tuple:
    """For the kinds asked of a player at a site, what the random agent chooses among: the picker
    of the one kind, or the site's for all the kinds it asks (else None), every kind with the
    site's picker (without the declines where it may decline; without bao where there is
    something else), and whether it first tries a BAO."""
    if may_decline:
        kinds = tuple(kind for kind in kinds if kind not in DECLINE_KINDS)
    bao_first = "bao" in kinds and len(kinds) > 1
    if bao_first:
        kinds = tuple(kind for kind in kinds if kind != "bao")
    picks = tuple((kind, site.pickers[kind]) for kind in kinds)
    only = picks[0][1] if len(picks) == 1 else site.anything if kinds == site.kinds else None
    return only, picks, bao_first


def make_agent(name: str, player: str, rng: Rng) -> Agent:
    from .memory_agent import MemoryAgent
    AGENTS = {"random": RandomAgent, "memory": MemoryAgent}
    if name not in AGENTS:
        from baobei.dsl.errors import ConfigError
        raise ConfigError(f"unknown agent '{name}'; agents: {', '.join(AGENTS)}")
    return AGENTS[name](player, rng)
