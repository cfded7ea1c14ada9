"""The state of a round and the effect primitives: zones, layouts with numbered slots,
what each player knows, who changed whose layout, randomness.

Generic machinery only: nothing here decides what is legal or what happens; the
generated module (generate.py) calls these primitives, each implemented once (the
checker models each once, checker/effects.py). A slot value is a tuple (player,
number) with numbers from 1; an emptied slot keeps its number and holds None; a new
slot is numbered one past the highest. The spec's variables are attributes `v_NAME`
of the round and of each player (`vars` shows them as a mapping).

What each player knows is kept on the cards: a card in a layout carries the set of
players who know it (`seen`, one bit per seat). Knowledge of a slot is knowledge of the
card in it, so it follows the card when cards swap or move, and goes when the card
leaves the layouts: no primitive touches a table per player. `known` shows it per
player, keyed by slot, for the readers that want a table.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from itertools import repeat, starmap
from operator import mul

from baobei.dsl.errors import RuleRuntimeError

from . import trace as events


@dataclass(frozen=True)
class CardKind:
    """A card id of the spec with its value, family and power. Equal by value, so that the
    rules of one variant can judge the cards of a round played under another."""

    name: str
    value: int
    family: str
    power: str | None

    def __repr__(self) -> str:
        return self.name


class Card:
    """One physical card. It carries its kind's value, family and power (the rules read them
    straight from the card in a slot) and marks of the last time a power moved it."""

    __slots__ = ("kind", "value", "family", "power", "moved_turn", "moved_sequence", "moved_by", "seen")

    def __init__(self, kind: CardKind):
        self.kind = kind
        self.value = kind.value
        self.family = kind.family
        self.power = kind.power
        self.moved_turn = -1
        self.moved_sequence = -1
        self.moved_by = None
        self.seen = 0               # the players who know this card where it lies (bit 1 << seat); 0 off the layouts

    def __repr__(self) -> str:
        return self.kind.name


class VarsView:
    """The spec's variables of a round or a player (attributes v_NAME) as a mapping."""

    __slots__ = ("_owner", "_names")

    def __init__(self, owner, names: tuple[str, ...]):
        self._owner = owner
        self._names = names

    def __getitem__(self, name: str):
        if name not in self._names:
            raise KeyError(name)
        return getattr(self._owner, "v_" + name)

    def __setitem__(self, name: str, value) -> None:
        if name not in self._names:
            raise KeyError(name)
        setattr(self._owner, "v_" + name, value)

    def __contains__(self, name) -> bool:
        return name in self._names

    def __iter__(self):
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def get(self, name: str, default=None):
        return getattr(self._owner, "v_" + name) if name in self._names else default

    def keys(self):
        return list(self._names)

    def items(self):
        return [(name, getattr(self._owner, "v_" + name)) for name in self._names]


class Player:
    """A seat: its layout (a Card or None per slot) and the spec's player variables."""

    def __init__(self, name: str, index: int, var_names: tuple[str, ...] = ()):
        self.name = name
        self.index = index          # seat, from 0
        self.bit = 1 << index       # this player in a card's `seen`
        self.layout: list[Card | None] = []
        self.places: list = []      # the slot values (self, 1) ... (self, n), one per entry of layout
        self.var_names = var_names

    def set_layout(self, cards: list) -> None:
        self.layout = list(cards)
        self.places = [(self, n) for n in range(1, len(cards) + 1)]

    def grow(self, card=None) -> None:
        """One more slot, numbered one past the highest."""
        self.layout.append(card)
        self.places.append((self, len(self.layout)))

    @property
    def vars(self) -> VarsView:
        return VarsView(self, self.var_names)

    def __repr__(self) -> str:
        return self.name


class Reference:
    """The card that became visible last, how, by whom, and whether it may still be plucked.
    The primitives make one with `reference(...)`, which skips the Python __init__."""

    __slots__ = ("card", "how", "by", "open")

    def __init__(self, card: CardKind | None, how: str | None, by: Player | None, open_: bool):
        self.card = card
        self.how = how
        self.by = by
        self.open = open_

    def __eq__(self, other) -> bool:
        return isinstance(other, Reference) and (self.card, self.how, self.by, self.open) == \
            (other.card, other.how, other.by, other.open)

    def __hash__(self) -> int:
        return hash((self.card, self.how))


_new = object.__new__


def reference(card, how, by, open_: bool) -> Reference:
    """Reference(card, how, by, open_), made without a Python __init__ frame: the primitives make
    one on almost every move, and in Python 3.11 the __init__ call costs as much as the object."""
    ref = _new(Reference)
    ref.card = card
    ref.how = how
    ref.by = by
    ref.open = open_
    return ref


class Ctx:
    """Who is acting: the move's actor and arguments, the power being played and its user."""

    __slots__ = ("actor", "user", "power", "targets", "target", "second", "chosen")

    def __init__(self, actor=None, user=None, power=None, targets=(), chosen=None):
        self.actor = actor
        self.user = user
        self.power = power
        self.targets = targets
        if targets:
            self.target = targets[0]
            self.second = targets[1] if len(targets) > 1 else None
        else:
            self.target = self.second = None
        self.chosen = chosen


EMPTY_CTX = Ctx()


class Rng:
    """Seeded randomness; every random choice of a run goes through here. Only random() of the
    Mersenne Twister is used, so the same seed gives the same games on any machine."""

    def __init__(self, seed: int):
        self.seed = seed
        self.random = random.Random(seed)

    def randrange(self, n: int) -> int:
        return int(self.random.random() * n)

    def choice(self, items):
        return items[int(self.random.random() * len(items))]

    def shuffle(self, items: list) -> None:
        """Fisher-Yates from the top: items[i] swapped with items[int(random() * (i + 1))], i from
        the last down to 1. (The draws and the indices are made in C, one map each; the same
        draws in the same order as one loop would make them.)"""
        size = len(items)
        if size < 2:
            return
        draws = starmap(self.random.random, repeat((), size - 1))
        for i, j in zip(range(size - 1, 0, -1), map(int, map(mul, draws, range(size, 1, -1)))):
            items[i], items[j] = items[j], items[i]


# ---- reading a slot that may be none or a layout's next new slot ----------------------------

def slot_card(slot) -> Card | None:
    if slot is None:
        return None
    layout = slot[0].layout
    number = slot[1]
    return layout[number - 1] if 0 < number <= len(layout) else None


def slot_empty(slot) -> bool:
    if slot is None:
        return False
    layout = slot[0].layout
    return 0 < slot[1] <= len(layout) and layout[slot[1] - 1] is None


def slot_new(slot) -> bool:
    return slot is not None and slot[1] == len(slot[0].layout) + 1


def own_and_new(player) -> list:
    """A player's slots with their cards, and the next new slot (empty)."""
    return [*zip(player.places, player.layout), ((player, len(player.layout) + 1), None)]


def new_of(player) -> list:
    """A player's next new slot (empty), as own_and_new lists it."""
    return [((player, len(player.layout) + 1), None)]


def with_placeholder(entries):
    """The placeholder `_` (no slot, no card), then the entries."""
    yield None, None
    yield from entries


def slot_name(slot) -> str:
    return f"{slot[0].name}.{slot[1]}"


class State:
    """A round's table: the piles, the layouts, who knows what, the spec's variables, and the
    primitives that change them. `trace`, when set, receives every effect (trace.py).

    A flat structure: every attribute is a slot (the generated code reads them all the time, and a
    slot is read faster than an entry of a large instance dict); the spec's variables are the
    slots of a subclass made per spec (program.py: Program.round_class). The `__dict__` slot keeps
    any other attribute a caller may set."""

    __slots__ = ("rng", "kinds", "var_names", "players", "by_name", "turn", "sequence", "deck", "discard", "under",
                 "held", "everyone", "ref", "changes", "breaches", "shown", "reshuffles", "shuffled", "orders", "marked",
                 "trace", "__dict__")

    def __init__(self, player_names: list[str], rng: Rng, kinds: dict[str, CardKind], var_names: tuple[str, ...],
                 player_var_names: tuple[str, ...]):
        self.rng = rng
        self.kinds = kinds
        self.var_names = var_names
        self.players = [Player(name, index, player_var_names) for index, name in enumerate(player_names)]
        self.by_name = {p.name: p for p in self.players}
        self.turn = 0
        self.sequence = 0
        self.deck: list[Card] = []         # top last
        self.discard: list[Card] = []      # top last
        self.under: list[Card] = []
        self.held: list[Card] = []
        self.everyone = (1 << len(self.players)) - 1        # every player's bit (Card.seen)
        self.ref = reference(None, None, None, False)
        self.changes: list[tuple[Player, Player]] = []   # (owner, agent) of the running action's changes
                                                         # to a layout by another player than its owner
        self.breaches: list[tuple] = []                  # (owner, agent) of every change by another player
                                                         # to a layout that was shielded then (invariants.py)
        self.shown: list[CardKind] = []                  # revealed to everyone by the last move
        self.reshuffles: list[list[str]] | None = None   # scripted shuffles (scenarios, replays)
        self.shuffled: list[list[str]] = []              # every new draw pile a recycle made (top first)
        self.marked: list[Card] = []                     # the cards a power moved (release_cards)
        self.orders: dict = {}                           # the players in the order of priority, per active
                                                         # player (generate.py: by_priority, when it may)
        self.trace = None

    @property
    def vars(self) -> VarsView:
        return VarsView(self, self.var_names)

    def var(self, name: str):
        """One spec variable of the round (vars[name] without making the view)."""
        return getattr(self, "v_" + name)

    # -- what each player knows ----------------------------------------------------------------
    def known_to(self, player) -> dict:
        """What one player knows: (owner index, number) -> CardKind, in seat and slot order."""
        bit = player.bit
        return {(owner.index, number): card.kind for owner in self.players
                for number, card in enumerate(owner.layout, start=1) if card is not None and card.seen & bit}

    @property
    def known(self) -> list[dict]:
        """What each player knows, per seat (known_to of each)."""
        return [self.known_to(player) for player in self.players]

    def new_card(self, name: str) -> Card:
        return Card(self.kinds[name])

    def new_cards(self, names) -> list[Card]:
        """Card(kind) for each name, made without the __init__ frame (every round makes the deck)."""
        kinds = self.kinds
        cards = []
        for name in names:
            kind = kinds[name]
            card = _new(Card)
            card.kind = kind
            card.value = kind.value
            card.family = kind.family
            card.power = kind.power
            card.moved_turn = card.moved_sequence = -1
            card.moved_by = None
            card.seen = 0
            cards.append(card)
        return cards

    def release_cards(self) -> None:
        """The round's cards as new_cards made them (their kinds stay), once it is over: a game
        deals each round from its own cards rather than from new ones. Only what a round changes
        is reset: what is known of the cards in the layouts (a card leaves them unknown) and the
        marks of the cards a power moved."""
        for player in self.players:
            for card in player.layout:
                if card is not None:
                    card.seen = 0
        for card in self.marked:
            card.moved_turn = card.moved_sequence = -1
            card.moved_by = None
        self.marked = []

    # -- what the generated code reads -----------------------------------------------------
    def all_slots(self) -> list:
        return [slot for p in self.players for slot in p.places]

    def slot_entries(self) -> list:
        """Every slot with its card (or None)."""
        return [entry for p in self.players for entry in zip(p.places, p.layout)]

    def held_kinds(self) -> list[CardKind]:
        return [card.kind for card in self.held]

    def next_player(self, player):
        if player is None:
            return None
        players = self.players
        return players[(player.index + 1) % len(players)]

    def changed_by_others(self, player) -> bool:
        for owner, _ in self.changes:     # (only changes by another player than the owner are kept)
            if owner is player:
                return True
        return False

    # -- what the primitives share -------------------------------------------------------------
    def recycle(self) -> None:
        """The spec's procedure recycle (the engine runs it, engine.py)."""
        raise NotImplementedError

    def _changed(self, owner: Player, C: Ctx) -> None:
        agent = C.user if C.power is not None else C.actor
        if agent is not owner:
            self._changed_by(owner, agent)

    def _changed_by(self, owner: Player, agent) -> None:
        """A change to owner's layout by another player."""
        self.changes.append((owner, agent))
        if self.v_shield and self.v_bao is owner:
            self.breaches.append((owner, agent))

    def _mark(self, card: Card, C: Ctx) -> None:
        if C.power is not None:
            self.marked.append(card)
            card.moved_turn = self.turn
            card.moved_sequence = self.sequence
            card.moved_by = C.user

    def _set_ref(self, kind: CardKind, how: str | None, by) -> None:
        if how is not None:
            self.ref = reference(kind, how, by, True)
            if self.trace is not None:
                self._referenced()

    def _referenced(self) -> None:
        ref = self.ref
        self.trace(events.ReferenceSet(ref.card.name if ref.card else None, ref.how,
                                       ref.by.name if ref.by else None, ref.open))

    def _moved(self, card: Card, source: str, dest) -> None:
        self.trace(events.Moved(card.kind.name, source, dest if isinstance(dest, str) else slot_name(dest)))

    def _take_from_slot(self, slot, C: Ctx) -> Card:
        card = None
        if slot is not None:        # (slot_card, written out)
            owner, number = slot
            layout = owner.layout
            if 0 < number <= len(layout):
                card = layout[number - 1]
        if card is None:
            raise RuleRuntimeError(f"there is no card at {slot_name(slot) if slot else 'none'}")
        layout[number - 1] = None
        card.seen = 0
        agent = C.user if C.power is not None else C.actor
        if agent is not owner:
            self._changed_by(owner, agent)
        return card

    def draw_one(self) -> Card | None:
        if not self.deck:
            self.recycle()
            if not self.deck:
                return None
        return self.deck.pop()

    # -- the primitives -------------------------------------------------------------------------------
    def draw(self, count: int, player, seen: bool, how, C: Ctx) -> None:
        drawn = 0
        deck, held = self.deck, self.held
        while drawn < count:
            if deck:
                card = deck.pop()
            else:
                card = self.draw_one()      # (a recycle makes a new draw pile)
                if card is None:
                    break
                deck = self.deck
            held.append(card)
            drawn += 1
            if self.trace is not None:
                self._moved(card, "deck", "held")
        if drawn and how is not None:
            ref = self.ref = _new(Reference)    # (reference(...), written out in the primitives a move
            ref.card = self.held[-drawn].kind   # runs: it saves a Python frame per move)
            ref.how = how
            ref.by = C.actor
            ref.open = True
            if self.trace is not None:
                self._referenced()

    def flip(self, how) -> None:
        card = self.draw_one()
        if card is not None:
            self.discard.append(card)
            self.ref = reference(card.kind, how, None, True)
            if self.trace is not None:
                self._moved(card, "deck", "discard")
                self._referenced()

    def discard_held(self, how, C: Ctx) -> None:
        if not self.held:
            raise RuleRuntimeError("nothing is held to discard")
        card = self.held.pop(0)
        self.discard.append(card)
        self.shown.append(card.kind)
        if self.trace is not None:
            self._moved(card, "held", "discard")
        if how is not None:
            ref = self.ref = _new(Reference)    # (reference(...), written out)
            ref.card = card.kind
            ref.how = how
            ref.by = C.actor
            ref.open = True
            if self.trace is not None:
                self._referenced()

    def discard_slot(self, slot, how, C: Ctx) -> None:
        card = self._take_from_slot(slot, C)
        self.discard.append(card)
        self.shown.append(card.kind)
        if self.trace is not None:
            self._moved(card, slot_name(slot), "discard")
        if how is not None:
            ref = self.ref = _new(Reference)    # (reference(...), written out)
            ref.card = card.kind
            ref.how = how
            ref.by = C.actor
            ref.open = True
            if self.trace is not None:
                self._referenced()

    def bury_held(self) -> None:
        if not self.held:
            raise RuleRuntimeError("nothing is held to put under the discard")
        card = self.held.pop(0)
        self.under.append(card)
        if self.trace is not None:
            self._moved(card, "held", "under")

    def bury_slot(self, slot, C: Ctx) -> None:
        card = self._take_from_slot(slot, C)
        self.under.append(card)
        if self.trace is not None:
            self._moved(card, slot_name(slot), "under")

    def place(self, slot, viewer, C: Ctx) -> None:
        if not self.held:
            raise RuleRuntimeError("nothing is held to place")
        player, number = slot
        layout = player.layout
        if number == len(layout) + 1:       # (Player.grow, written out)
            layout.append(None)
            player.places.append((player, number))
        elif not (0 < number <= len(layout)) or layout[number - 1] is not None:
            raise RuleRuntimeError(f"{player.name}.{number} is not a free slot")
        card = self.held.pop(0)
        layout[number - 1] = card
        if viewer == "nobody":
            card.seen = 0
        elif viewer == "everyone":
            card.seen = self.everyone
        else:
            card.seen = viewer.bit if viewer is not None else 0
        if C.power is not None:
            self.marked.append(card)
            agent = card.moved_by = C.user
            card.moved_turn = self.turn
            card.moved_sequence = self.sequence
        else:
            agent = C.actor
        if agent is not player:
            self._changed_by(player, agent)
        if self.trace is not None:
            self._moved(card, "held", slot)

    def take_top(self) -> None:
        if not self.discard:
            raise RuleRuntimeError("the discard is empty")
        card = self.discard.pop()
        self.held.insert(0, card)
        if self.trace is not None:
            self._moved(card, "discard", "held")

    def swap(self, a, b, C: Ctx) -> None:
        card_a, card_b = slot_card(a), slot_card(b)
        if card_a is None or card_b is None:
            raise RuleRuntimeError("a swap needs two cards")
        a[0].layout[a[1] - 1], b[0].layout[b[1] - 1] = card_b, card_a    # what is known of each goes with it
        self._changed(a[0], C)
        self._changed(b[0], C)
        self._mark(card_a, C)
        self._mark(card_b, C)
        if self.trace is not None:
            self._moved(card_a, slot_name(a), b)
            self._moved(card_b, slot_name(b), a)

    def move(self, source, dest, C: Ctx) -> None:
        card = slot_card(source)
        if card is None:
            raise RuleRuntimeError("nothing to move")
        if slot_card(dest) is not None:
            raise RuleRuntimeError(f"{slot_name(dest)} is not free")
        if dest[1] == len(dest[0].layout) + 1:
            dest[0].grow()
        source[0].layout[source[1] - 1] = None
        dest[0].layout[dest[1] - 1] = card      # what is known of it goes with it
        self._changed(source[0], C)
        self._changed(dest[0], C)
        self._mark(card, C)
        if self.trace is not None:
            self._moved(card, slot_name(source), dest)

    def reveal(self, slot, viewer, how, C: Ctx) -> None:
        if slot is None:
            return
        layout = slot[0].layout
        number = slot[1]
        card = layout[number - 1] if 0 < number <= len(layout) else None   # (slot_card, written out)
        if card is None:
            return
        if viewer == "everyone":
            card.seen = self.everyone
            self.shown.append(card.kind)
        elif viewer != "nobody" and viewer is not None:
            card.seen |= viewer.bit
        if self.trace is not None:
            to = viewer if isinstance(viewer, str) else (viewer.name if viewer else "nobody")
            self.trace(events.Revealed(card.kind.name, slot_name(slot), to))
        if how is not None:
            ref = self.ref = _new(Reference)    # (reference(...), written out)
            ref.card = card.kind
            ref.how = how
            ref.by = C.actor
            ref.open = True
            if self.trace is not None:
                self._referenced()

    def close_reference(self) -> None:
        ref = self.ref
        if ref.open:
            closed = self.ref = _new(Reference)     # (reference(...), written out)
            closed.card = ref.card
            closed.how = ref.how
            closed.by = ref.by
            closed.open = False
            if self.trace is not None:
                self._referenced()

    def shuffle_into_deck(self) -> None:
        gathered = self.discard[:-1] + self.under
        self.discard = self.discard[-1:]
        self.under = []
        if self.reshuffles:
            self.deck = _arrange(gathered, self.reshuffles.pop(0))
        else:
            self.rng.shuffle(gathered)
            self.deck = gathered
        self.shuffled.append([card.kind.name for card in reversed(self.deck)])
        if self.trace is not None:
            self.trace(events.Shuffled(len(self.deck)))

    def deal(self, count: int) -> None:
        for _ in range(count):
            for player in self.players:
                card = self.draw_one()
                if card is not None:
                    player.grow(card)
                    if self.trace is not None:
                        self._moved(card, "deck", (player, len(player.layout)))


def _arrange(cards: list[Card], order: list[str]) -> list[Card]:
    """The gathered cards in a scripted order (top first); it must be a permutation of them."""
    pool: dict[str, list[Card]] = {}
    for card in cards:
        pool.setdefault(card.kind.name, []).append(card)
    gathered = sorted(card.kind.name for card in cards)
    if sorted(order) != gathered:
        raise RuleRuntimeError(f"the scripted reshuffle {order} is not a permutation of the gathered cards "
                               f"{gathered}")
    arranged = [pool[name].pop() for name in order]
    arranged.reverse()  # top last
    return arranged
