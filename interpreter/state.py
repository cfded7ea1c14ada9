"""The state of a round: zones, layouts with numbered slots, what each player knows.

Generic machinery only: nothing here decides what is legal or what happens.
A slot value is a tuple (player, number) with numbers from 1; an emptied slot
keeps its number and holds None; a new slot is numbered one past the highest.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field


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
    """One physical card. Its marks record the last time a power moved it."""

    __slots__ = ("kind", "uid", "moved_turn", "moved_sequence", "moved_by")

    def __init__(self, kind: CardKind, uid: int):
        self.kind = kind
        self.uid = uid
        self.moved_turn = -1
        self.moved_sequence = -1
        self.moved_by = None

    def __repr__(self) -> str:
        return self.kind.name


class Player:
    __slots__ = ("name", "index", "layout", "vars", "_slots")

    def __init__(self, name: str, index: int, vars_: dict):
        self.name = name
        self.index = index          # seat, from 0
        self.layout: list[Card | None] = []
        self.vars = vars_
        self._slots: list = []

    def slots(self) -> list:
        """(self, 1) ... (self, n): slot values of this layout (kept while its length stays)."""
        if len(self._slots) != len(self.layout):
            self._slots = [(self, n) for n in range(1, len(self.layout) + 1)]
        return self._slots

    def __repr__(self) -> str:
        return self.name


class Reference:
    """The card that became visible last, how, by whom, and whether it may still be plucked."""

    __slots__ = ("card", "how", "by", "open")

    def __init__(self, card: CardKind | None, how: str | None, by: Player | None, open_: bool):
        self.card = card
        self.how = how
        self.by = by
        self.open = open_

    def copy(self) -> "Reference":
        return Reference(self.card, self.how, self.by, self.open)

    def __eq__(self, other) -> bool:
        return isinstance(other, Reference) and (self.card, self.how, self.by, self.open) == \
            (other.card, other.how, other.by, other.open)

    def __hash__(self) -> int:
        return hash((self.card, self.how))


@dataclass
class Table:
    """The cards and players of a round (what a scenario table describes)."""

    players: list[Player]
    deck: list[Card] = field(default_factory=list)          # top LAST, so drawing is a pop()
    discard: list[Card] = field(default_factory=list)       # bottom first, top last
    under: list[Card] = field(default_factory=list)         # face down under the discard
    held: list[Card] = field(default_factory=list)          # drawn and not yet placed
    known: list[dict] = field(default_factory=list)         # per player: (owner index, number) -> CardKind

    def slot_card(self, slot) -> Card | None:
        if slot is None:
            return None
        layout = slot[0].layout
        number = slot[1]
        if 1 <= number <= len(layout):
            return layout[number - 1]
        return None


class Rng:
    """Seeded randomness; every random choice of a run goes through here."""

    def __init__(self, seed: int):
        self.seed = seed
        self.random = random.Random(seed)

    def shuffle(self, items: list) -> None:
        self.random.shuffle(items)

    def choice(self, items):
        return items[self.random.randrange(len(items))]

    def randrange(self, n: int) -> int:
        return self.random.randrange(n)
