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
        rng = self.rng
        if may_decline and rng.random.random() < 0.5:
            return None  # in a window, half the time it lets the card go
        ask = rnd.pending
        kinds = ask.kinds_of(player)
        if may_decline:
            kinds = [kind for kind in kinds if kind not in DECLINE_KINDS]
        if "bao" in kinds and len(kinds) > 1:
            kinds.remove("bao")
            if rng.random.random() < self.bao_rate and ask.legal(player, "bao", 0):
                return Move(player, "bao")
        # a kind at random, then one of its forms at random, until one has a legal move: uniform
        # over the kinds that have one, then over their forms that have one, then over the moves
        sample, site_forms = ask.sample_form, ask.site.forms
        while kinds:
            kind = kinds[0] if len(kinds) == 1 else rng.choice(kinds)
            forms = site_forms[kind]
            if len(forms) == 1:
                move = sample(player, forms[0], rng)
                if move is not None:
                    return move
            else:
                forms = list(forms)
                while forms:
                    form = forms[0] if len(forms) == 1 else rng.choice(forms)
                    move = sample(player, form, rng)
                    if move is not None:
                        return move
                    forms.remove(form)
            kinds.remove(kind)
        return None

def make_agent(name: str, player: str, rng: Rng) -> Agent:
    from .memory_agent import MemoryAgent
    AGENTS = {"random": RandomAgent, "memory": MemoryAgent}
    if name not in AGENTS:
        from baobei.dsl.errors import ConfigError
        raise ConfigError(f"unknown agent '{name}'; agents: {', '.join(AGENTS)}")
    return AGENTS[name](player, rng)
