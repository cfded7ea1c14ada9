"""What a round reports to a trace sink while it plays (`Round.trace`, None by default).

A sink is any callable taking one event. Events are reported per move, per effect
and per resolution of powers, never inside a condition, so a round without a sink
pays one `is not None` test per effect. Places are written as a player's slot
("Ana.2") or a zone ("deck", "discard", "under", "held").
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Judged:
    """A move was judged: legal or refused, by which rule (None: no rule decided, or the move was
    refused before any rule was read: not asked, no such slot)."""

    move: str
    legal: bool
    rule: str | None
    reason: str | None = None


@dataclass(frozen=True)
class Played:
    """A move was played, after its judgement (a move from the legal moves of the decision is not
    judged again: with a sink, its Judged names the rule that allows it)."""

    move: str


@dataclass(frozen=True)
class Moved:
    """A card went from one place to another."""

    card: str
    source: str
    dest: str


@dataclass(frozen=True)
class Revealed:
    """A card in a slot was shown to a player or to everyone."""

    card: str
    slot: str
    to: str


@dataclass(frozen=True)
class ReferenceSet:
    """The reference changed: the card that became visible last, how, by whom, still open or not."""

    card: str | None
    how: str | None
    by: str | None
    open: bool


@dataclass(frozen=True)
class Shuffled:
    """The discard (but its top) and the cards under it became a new draw pile of this many cards."""

    cards: int


@dataclass(frozen=True)
class Fired:
    """One resolution of powers: what fired, in the order the powers are played."""

    powers: tuple[tuple[str, str, str, str, int], ...]   # (role, rule, card, user, rank)


@dataclass(frozen=True)
class PowerBegins:
    """A fired power is played now, by its user (the powers of a resolution, one after another)."""

    power: str
    card: str
    user: str
    rule: str          # the rule that fired it


@dataclass(frozen=True)
class Waiting:
    """The decision the game now waits for: who (a name, or anyone) may play which kinds, asked
    where (the ask statement: 'procedure turn (spec/core/round.bao:98:3)')."""

    clauses: tuple[tuple[str, tuple[str, ...]], ...]
    site: str = ""
