"""Properties that must hold after every move of any game (checked in random play).

These check the machinery and the spec together: card conservation, one place
per card, the shield against opponents, the spec's own `invariant` declarations,
and that a turn-start state survives being written out as a scenario table and
read back. (What a player knows is a bit on the card itself, so it follows the
card wherever it goes and cannot become false: there is nothing to check.)
"""
from __future__ import annotations

from baobei.dsl.errors import RuleRuntimeError

from .engine import Ctx, Round
from .moves import Move
from .table import round_from_table, same_table, table_from_round


class InvariantBroken(RuleRuntimeError):
    code = "E510"

    def __init__(self, message: str, invariant: str | None = None):
        super().__init__(message)
        self.invariant = invariant        # the spec's invariant that broke (None: the machinery's)


class Watch:
    """Checks one round move by move. `deck_size`: the cards the round holds (the edition's deck in
    random play, the table's cards in a scenario)."""

    def __init__(self, rnd: Round, rules, deck_size: int):
        self.rules = rules
        self.deck_size = deck_size
        self.invariants = [(decl, rnd.program.lambda_(decl.expr)) for decl in rules.spec.invariants.values()]
        self._turn_start = None
        self._seen_changes = 0

    # each check takes the move it follows and writes where it broke only when it did: random play
    # checks every move of every game

    def after(self, rnd: Round, move: Move) -> None:
        self.cards(rnd, move)
        self.shield(rnd, move)
        self.spec_invariants(rnd, move)

    def cards(self, rnd: Round, move: Move) -> None:
        cards = cards_on_table(rnd)
        if len(cards) != self.deck_size:
            raise InvariantBroken(f"{_where(move)}: {len(cards)} cards on the table, not {self.deck_size}")
        if len(set(cards)) != len(cards):       # a card is itself alone (Card has no __eq__)
            raise InvariantBroken(f"{_where(move)}: a card is in two places")

    def shield(self, rnd: Round, move: Move) -> None:
        for owner, agent in rnd.breaches[self._seen_changes:]:
            raise InvariantBroken(f"{_where(move)}: {agent.name} changed {owner.name}'s shielded layout")
        self._seen_changes = len(rnd.breaches)

    def spec_invariants(self, rnd: Round, move: Move) -> None:
        C = rnd.pending.C if rnd.pending is not None else Ctx()   # the decision's own context (its power)
        for decl, holds in self.invariants:
            if not holds(rnd, C, {}):
                raise InvariantBroken(f"{_where(move)}: invariant {decl.name} ({decl.loc}) does not hold", decl.name)

    def round_trip(self, rnd: Round, move: Move) -> bool:
        """At the start of a turn: write the table out, read it back, compare. True if checked."""
        if self._turn_start is None:
            fresh = round_from_table(self.rules, table_from_round(rnd))
            self._turn_start = _signature(fresh)
            fresh.close()
        if rnd.pending is None or _signature(rnd) != self._turn_start or rnd.held:
            return False
        table = table_from_round(rnd)
        again = round_from_table(self.rules, table)
        if not same_table(table, table_from_round(again)):
            raise InvariantBroken(f"{_where(move)}: the state written as a scenario table reads back differently")
        if _clauses(again) != _clauses(rnd):
            raise InvariantBroken(f"{_where(move)}: the state read back from its table waits for "
                                  f"{again.describe_pending()}, not {rnd.describe_pending()}")
        # (a round read back is never played: closed, it is freed here, not by the cyclic garbage
        # collector, whose passes over a thousand such rounds cost a sixth of a check's play)
        again.close()
        return True


def _where(move: Move) -> str:
    return f"after '{move}'"


def cards_on_table(rnd: Round) -> list:
    """Every card of the round: the piles, the held cards and the layouts."""
    cards = list(rnd.deck) + list(rnd.discard) + list(rnd.under) + list(rnd.held)
    for player in rnd.players:
        cards += [c for c in player.layout if c is not None]
    return cards


def _signature(rnd: Round) -> tuple:
    return rnd.position()


def _clauses(rnd: Round):
    if rnd.pending is None:
        return None
    return [(a.name if a is not None else None, tuple(k)) for a, k in rnd.pending.clauses]
