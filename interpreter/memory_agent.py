"""An agent that plays like a person: it remembers what it has seen and acts on it.

It sees only what the rules let its player see: the round's knowledge table for
that player (peeks, keeps, looks, shows, what everyone saw), the visible discard,
and a card it drew itself. Unknown cards count as the deck's average value. It
replaces high cards, plucks when it knows a match, uses powers to learn, swap or
hand out cards sensibly, and calls BAO when its expected total is low.
It only ever picks among the legal moves the rules give it.
"""
from __future__ import annotations

from baobei.dsl.schema import DECLINE_KINDS

from .agents import Agent
from .engine import Round
from .moves import Move
from .state import slot_card


class MemoryAgent(Agent):
    name = "memory"
    bao_total = 4            # calls BAO when its expected total is at most this
    bao_unknown = 1          # ... and at most this many of its cards are unknown

    looked: tuple = ()       # the two slots of its last two-card look

    def new_round(self, rnd: Round) -> None:
        cards = rnd.deck + [c for p in rnd.players for c in p.layout if c is not None] + rnd.discard
        self.average = sum(card.value for card in cards) / (len(cards) or 1)
        me = rnd.by_name.get(self.player)      # (absent from a tie-break round it does not play)
        self.bit = me.bit if me is not None else 0     # its bit in each card's `seen`

    # -- what it knows ------------------------------------------------------------------------
    def me(self, rnd: Round):
        return rnd.by_name[self.player]

    def seen(self, rnd: Round, slot):
        card = slot_card(slot)
        return card.kind if card is not None and card.seen & self.bit else None

    def worth(self, rnd: Round, slot) -> float:
        card = slot_card(slot)
        return card.value if card is not None and card.seen & self.bit else self.average

    def worths(self, rnd: Round) -> dict:
        """worth() of every slot that holds a card, by slot (for a decider that weighs many moves)."""
        bit, average = self.bit, self.average
        return {(owner, number): card.value if card.seen & bit else average
                for owner in rnd.players for number, card in enumerate(owner.layout, start=1) if card is not None}

    def own_hand(self, rnd: Round) -> tuple[float, int]:
        """Its expected total (worth() of each of its cards) and how many of its cards it does not know."""
        bit, average = self.bit, self.average
        total, unknown = 0, 0
        for card in self.me(rnd).layout:
            if card is not None:
                if card.seen & bit:
                    total += card.value
                else:
                    total += average
                    unknown += 1
        return total, unknown

    def matches(self, rnd: Round, card) -> list:
        """Face-down slots it knows hold a card of the same family."""
        if card is None:
            return []
        bit, family = self.bit, card.family
        return [(owner, number) for owner in rnd.players for number, known in enumerate(owner.layout, start=1)
                if known is not None and known.family == family and known.seen & bit]

    def knows_a_match(self, rnd: Round, card) -> bool:
        """Whether matches() finds any (it stops at the first)."""
        if card is None:
            return False
        bit, family = self.bit, card.family
        for owner in rnd.players:
            for known in owner.layout:
                if known is not None and known.family == family and known.seen & bit:
                    return True
        return False

    # -- choosing -----------------------------------------------------------------------------
    def choose(self, rnd: Round, player, may_decline: bool) -> Move | None:
        ask = rnd.pending
        if ask is None:
            return None
        asked = ask.kinds_of(player)
        deciders = _deciders(asked)
        if may_decline and deciders == _PLUCK_ONLY and not self.knows_a_match(rnd, rnd.ref.card):
            return None     # a pluck window where it knows no match (most of them): it lets it pass
        by_kind = _MovesByKind(self, rnd, player, ask, asked)
        for decide in deciders:
            move = decide(self, rnd, by_kind)
            if move is not None:
                return move
        if may_decline:
            return None
        for kind in DECLINE_KINDS:
            if by_kind.get(kind):
                return by_kind[kind][0]
        return next((by_kind[kind][0] for kind in by_kind.asked if kind in by_kind and by_kind[kind]), None)

    def known_plucks(self, rnd: Round, player) -> list[Move]:
        """The legal plucks of the slots it knows match the reference card."""
        known = self.matches(rnd, rnd.ref.card)
        candidates = [Move(player, "pluck", (slot,)) for slot in known]
        candidates += [Move(player, "pluck", (a, b)) for a in known for b in known if a != b]
        return [m for m in candidates if rnd.is_legal(m)]

    def pluck(self, rnd: Round, by_kind) -> Move | None:
        if not self.knows_a_match(rnd, rnd.ref.card):
            return None     # (most of the time: then no pluck is listed or judged)
        plucks = by_kind.get("pluck")
        if not plucks:
            return None
        me = self.me(rnd)
        best, gain = None, 0.0
        for move in plucks:     # (plucks of slots it knows match: known_plucks)
            value = sum(self.worth(rnd, t) if t[0] is me else 3.0 for t in move.targets)
            value += 2.0 * len(move.targets)     # a card fewer is worth it on its own
            if value > gain:
                best, gain = move, value
        return best

    def turn_action(self, rnd: Round, by_kind) -> Move | None:
        # which decision this is, by the kinds asked; a kind with no legal move lists no targets
        asked = by_kind.asked
        if "draw" in asked or "take" in asked:
            top = rnd.discard[-1].kind if rnd.discard else None
            if top is not None:
                worst, worth = self.worst(by_kind.targets("take"))
                if worst is not None and top.value + 2 < worth:
                    return Move(by_kind.player, "take", worst)
            return by_kind.first("draw")
        if "keep" in asked or "discard" in asked:
            drawn = rnd.held[0].kind if rnd.held else None
            if drawn is not None:
                worst, worth = self.worst(by_kind.targets("keep"))
                if worst is not None and drawn.value + 1 < worth:
                    return Move(by_kind.player, "keep", worst)
            return by_kind.first("discard") or by_kind.first("keep")
        return None

    def worst(self, choices: list[tuple]) -> tuple:
        """(targets, worth) of the choice whose first slot it believes worth most (the first of
        equals), (None, None) when there is none: worth() of each, read in place."""
        bit, average = self.bit, self.average
        worst, most = None, None
        for targets in choices:
            owner, number = targets[0]
            layout = owner.layout
            card = layout[number - 1] if 0 < number <= len(layout) else None
            worth = card.value if card is not None and card.seen & bit else average
            if most is None or worth > most:
                worst, most = targets, worth
        return worst, most

    def power(self, rnd: Round, by_kind) -> Move | None:
        me = self.me(rnd)
        player = by_kind.player
        if "look" in by_kind:
            looks = by_kind.targets("look")
            singles = [t for t in looks if len(t) == 1]
            if singles:
                mine = [t for t in singles if t[0][0] is me and self.seen(rnd, t[0]) is None]
                others = [t for t in singles if self.seen(rnd, t[0]) is None]
                return Move(player, "look", (mine or others or singles)[0])
            # two cards: my worst one and an opponent's that I may want; remembered for the swap
            worth = self.worths(rnd).get
            average = self.average
            best = min(looks, key=lambda t: -(worth(t[0], average) if t[0][0] is me else 0)
                       - (worth(t[1], average) if t[1][0] is me else 0))
            self.looked = best
            return Move(player, "look", best)
        if "swap" in by_kind:
            swaps = by_kind.targets("swap")
            if () in swaps:  # after looking at two cards: swap them if it gives me the lower one
                if len(self.looked) == 2:
                    mine, theirs = self.looked if self.looked[0][0] is me else self.looked[::-1]
                    if mine[0] is me and theirs[0] is not me and self.worth(rnd, theirs) < self.worth(rnd, mine):
                        return Move(player, "swap")
                return by_kind["leave"][0] if "leave" in by_kind else None
            best, gain = None, -99.0
            worth, average = self.worths(rnd).get, self.average
            for targets in swaps:   # the power is carried out: the swap that helps it most, or hurts least
                a, b = targets
                mine, theirs = (a, b) if a[0] is me else (b, a)
                value = 0.0 if mine[0] is not me else worth(mine, average) - worth(theirs, average)
                if value > gain:
                    best, gain = targets, value
            return Move(player, "swap", best) if best is not None else None
        if "show" in by_kind:
            mine = [m for m in by_kind["show"] if m.target[0] is me and self.seen(rnd, m.target) is None]
            return (mine or by_kind["show"])[0]
        if "add" in by_kind:  # a card to the player who looks closest to winning
            return min(by_kind["add"], key=lambda m: len([c for c in m.chosen.layout if c is not None]) or 99)
        if "replace" in by_kind:
            held = [c.kind for c in rnd.held]
            best, gain = None, -99.0
            worth, average = self.worths(rnd).get, self.average
            for targets in by_kind.targets("replace"):
                value = 0.0
                for card, slot in zip(held, targets):
                    if slot is None:        # this drawn card is left unused
                        continue
                    if slot[0] is me:
                        value += worth(slot, average) - card.value
                    else:
                        value += card.value - worth(slot, average)
                if value > gain:
                    best, gain = targets, value
            return Move(player, "replace", best) if best is not None else None
        return None

    def end_of_turn(self, rnd: Round, by_kind) -> Move | None:
        # (its own hand first: it is cheaper to read than whether the rules allow a BAO now)
        total, unknown = self.own_hand(rnd)
        if total <= self.bao_total and unknown <= self.bao_unknown and "bao" in by_kind:
            return by_kind.first("bao")
        return by_kind.first("end")

    def follow_up(self, rnd: Round, by_kind) -> Move | None:
        worst, _ = self.worst(by_kind.targets("give"))
        if worst is not None:   # give away the worst card it has
            return Move(by_kind.player, "give", worst)
        return by_kind.first("place") or by_kind.first("peek")


# Each decider, with the kinds of move it looks at: one that sees none of them asked returns None.
DECIDERS = ((MemoryAgent.pluck, {"pluck"}), (MemoryAgent.turn_action, {"draw", "take", "keep", "discard"}),
            (MemoryAgent.power, {"look", "swap", "show", "add", "replace"}),
            (MemoryAgent.end_of_turn, {"bao", "end"}), (MemoryAgent.follow_up, {"give", "place", "peek"}))
_DECIDERS_OF: dict[tuple, tuple] = {}
_PLUCK_ONLY = (MemoryAgent.pluck,)


def _deciders(asked: tuple) -> tuple:
    """The deciders that look at any of these kinds, in their order (kept per tuple of kinds)."""
    found = _DECIDERS_OF.get(asked)
    if found is None:
        found = _DECIDERS_OF[asked] = tuple(decide for decide, kinds in DECIDERS if kinds.intersection(asked))
    return found


class _MovesByKind(dict):
    """The player's legal moves of each kind asked of it now, listed when a decider first reads
    them: most decisions read one or two kinds (a pluck window: only the plucks it knows). Whether
    a kind has any legal move is judged when first asked too."""

    def __init__(self, agent: MemoryAgent, rnd: Round, player, ask, asked: tuple):
        super().__init__()
        self.agent, self.rnd, self.player, self.ask, self.asked = agent, rnd, player, ask, asked
        self.legal: dict[str, bool] = {}

    def __contains__(self, kind) -> bool:
        """Whether the player has a legal move of this kind now."""
        legal = self.legal.get(kind)
        if legal is None:
            legal = self.legal[kind] = kind in self.asked and self.ask.allows(self.player, kind)
        return legal

    def targets(self, kind: str) -> list[tuple]:
        """The slots each legal move of this kind names (no Move is made for the many it does not
        choose); none for a kind not asked of the player."""
        return self.ask.targets(self.player, kind) if kind in self.asked else []

    def first(self, kind: str) -> Move | None:
        """The first of its legal moves of this kind (None: it has none), the one a decider takes
        when any will do; only that one is made. (Not for plucks: see get.)"""
        if kind not in self:
            return None
        listed = dict.get(self, kind)
        if listed is not None:
            return listed[0]
        return self.ask.first_move(self.player, kind, known_legal=True)

    def __missing__(self, kind: str) -> list[Move]:
        if kind not in self.asked:
            raise KeyError(kind)
        # plucks: only the ones it knows match, each judged (listing every double pluck, or asking
        # first whether there is any pluck, would be slower)
        moves = self[kind] = self.agent.known_plucks(self.rnd, self.player) if kind == "pluck" else \
            list(self.rnd.moves_of_kind(self.player, kind))
        return moves

    def get(self, kind: str, default=None):
        if kind == "pluck":
            return self[kind] if kind in self.asked else default
        return self[kind] if kind in self else default
