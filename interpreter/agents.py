"""Who decides: agents choose among the legal moves the rules allow a player.

An agent sees only what the rules let its player see (the round's knowledge
table for that player, the visible discard); it never decides legality.
"""
from __future__ import annotations

from baobei.dsl.schema import DECLINE_KINDS

from .engine import Round
from .moves import Move
from .state import EMPTY_CTX, Rng


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

    def __init__(self, player: str, rng: Rng):
        super().__init__(player, rng)
        self.uniform = rng.random.random

    def choose(self, rnd: Round, player, may_decline: bool) -> Move | None:
        uniform = self.uniform
        if may_decline and uniform() < DECLINE_RATE:
            return None  # in a window, half the time it lets the card go
        ask = rnd.pending
        site = ask.site
        if ask.actor is player or ask.several is site.clauses:    # asked every kind of the site: its plan,
            draw = site.kept.get(_PLANS[may_decline]) or _kept(site, may_decline)    # kept with it
        else:
            draw = _plan(site, ask.kinds_of(player), may_decline)
        return draw(rnd, ask.C, player, ask, uniform)


class Table:
    """How the players of a round decide, as the decision loop (Round.play_trusted) asks them: a
    plan per ask site, a function (round, context, player, ask, uniform) -> Move or None, made
    the first time the site asks and kept in `one` (one player asked) or `several` (several
    players asked; called with player None). `uniform`: the random draws the plans are given;
    `by_agents(ask)`: the players' agents decide together (game.decide), as a plan; `plans`:
    the (one, several) to keep them in (default: new ones, this table's own)."""

    uniform = None

    def __init__(self, by_agents, plans: tuple[dict, dict] | None = None):
        self.one, self.several = plans if plans is not None else ({}, {})
        self.by_agents = lambda rnd, C, player, ask, uniform: by_agents(ask)

    def one_plan(self, site):
        raise NotImplementedError

    def several_plan(self, site):
        raise NotImplementedError

    def decide(self, rnd: Round, ask) -> Move | None:
        actor, site = ask.actor, ask.site
        if actor is not None:
            plan = self.one.get(site) or self.one_plan(site)
        else:
            plan = self.several.get(site) or self.several_plan(site)
        return plan(rnd, ask.C, actor, ask, self.uniform)


class RandomTable(Table):
    """Every player a random agent drawing from the game's one generator: the loop calls the
    random agent's plans itself, not each agent's choose (a call less per decision; the same
    draws in the same order, so the same games). A window (anyone may act) goes round the
    players in the order of priority, each declining half the time, as decide (game.py) does
    with the agents; other asks of several players are left to the agents (by_agents). The
    plans are the program's: every round of it shares them (Program.kept)."""

    def __init__(self, program, uniform, by_agents):
        super().__init__(by_agents, program.kept.setdefault("random table", ({}, {})))
        self.uniform = uniform

    def one_plan(self, site):
        plan = self.one[site] = _kept(site, False)
        return plan

    def several_plan(self, site):
        if site.asker != "anyone":
            return self.by_agents       # (the round's agents: not kept with the program)
        plan = self.several[site] = _window(site)
        return plan


def _window(site):
    """A table of random agents at a window of this site: the first player in the order of
    priority who does not decline draws the move; nobody: the site's free decline, else the
    first who may decline (Ask.first_decline). Alone, a player does not decline."""
    alone, draw = _kept(site, False), _kept(site, True)
    free = site.free_decline

    def plan(rnd: Round, C, _, ask, uniform) -> Move | None:
        actors = rnd.orders.get(rnd.active) or rnd.program.by_priority(rnd, EMPTY_CTX, rnd.players)
        if len(actors) == 1:
            return alone(rnd, C, actors[0], ask, uniform)
        for actor in actors:
            if uniform() >= DECLINE_RATE:     # (as RandomAgent.choose draws it)
                move = draw(rnd, C, actor, ask, uniform)
                if move is not None:
                    return move
        return Move(actors[0], free) if free is not None else ask.first_decline(actors)
    return plan


_PLANS = ("random", "random, may decline")     # the names of the random agent's plans in Site.kept
BAO_RATE = 0.05        # how often the random agent calls BAO where it may
DECLINE_RATE = 0.5     # how often it lets a card go in a window


def _kept(site, may_decline: bool):
    """The plan of a site where every kind it asks is asked, made once and kept with the site."""
    draw = site.kept.get(_PLANS[may_decline])
    if draw is None:
        draw = site.kept[_PLANS[may_decline]] = _plan(site, site.kinds, may_decline)
    return draw


def _plan(site, kinds: tuple, may_decline: bool):
    """For the kinds asked of a player at a site, how the random agent draws its move: a function
    (round, context, player, ask, uniform) -> Move or None. Most decisions need one call: the
    picker of the one kind, or the site's for all the kinds it asks; else a kind is drawn first
    among those with a legal move (_one_of). The declines are left out where it may decline, and
    bao, where there is something else, is tried first (_bao_first)."""
    if may_decline:
        kinds = tuple(kind for kind in kinds if kind not in DECLINE_KINDS)
    bao_first = "bao" in kinds and len(kinds) > 1
    if bao_first:
        kinds = tuple(kind for kind in kinds if kind != "bao")
    picks = tuple((kind, site.pickers[kind]) for kind in kinds)
    draw = picks[0][1] if len(picks) == 1 else site.anything if kinds == site.kinds else None
    if draw is None:
        draw = _one_of(picks)
    return _bao_first(draw) if bao_first else draw


def _one_of(picks: tuple):
    """Uniform over the kinds that have a legal move, then (the site's pickers) over their forms
    that have one, then over its moves."""
    def draw(rnd: Round, C, player, ask, uniform) -> Move | None:
        left = picks
        while left:
            pick = left[0] if len(left) == 1 else left[int(uniform() * len(left))]
            move = pick[1](rnd, C, player, ask, uniform)
            if move is not None:
                return move
            left = tuple(other for other in left if other is not pick)
        return None
    return draw


def _bao_first(then):
    """A BAO, where it is legal, with probability BAO_RATE; else the move `then` draws."""
    def draw(rnd: Round, C, player, ask, uniform) -> Move | None:
        if uniform() < BAO_RATE and ask.legal(player, "bao", 0):
            return Move(player, "bao")
        return then(rnd, C, player, ask, uniform)
    return draw


def make_agent(name: str, player: str, rng: Rng) -> Agent:
    if name == "random":        # (every game makes its agents: the common one without an import)
        return RandomAgent(player, rng)
    from .memory_agent import MemoryAgent
    agents = {"random": RandomAgent, "memory": MemoryAgent}
    if name not in agents:
        from baobei.dsl.errors import ConfigError
        raise ConfigError(f"unknown agent '{name}'; agents: {', '.join(agents)}")
    return agents[name](player, rng)
