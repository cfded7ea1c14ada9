"""A concrete round as values of the symbolic situation's variables.

With these values substituted, a Z3 term of the spec becomes a constant: the
checker's meaning of a rule can be compared with the interpreter's on any state
reached in play (tests/test_agreement.py). It is also the honest boundary of the
symbolic model: a state it cannot represent (more slots than the bounds) says so.
"""
from __future__ import annotations

import z3


from baobei.interpreter.engine import Ctx, Round
from baobei.interpreter.moves import Move

from .symbolic import NONE, RefV, Situation, SlotV


class OutOfBounds(Exception):
    pass


def substitution(s: Situation, rnd: Round, move: Move | None = None, ctx: Ctx | None = None) -> list[tuple]:
    """(variable, value) pairs that pin the situation to this round (and move)."""
    ix = s.ix
    B = s.bounds
    players = rnd.players
    if len(players) > B.players:
        raise OutOfBounds("too many players")
    pairs: list[tuple] = [(s.np, z3.IntVal(len(players)))]
    index = {p: i for i, p in enumerate(players)}

    def player(p) -> int:
        return index[p] if p is not None else NONE

    def card(kind) -> int:
        return ix.card[kind.name] if kind is not None else NONE

    for i in range(B.players):
        layout = players[i].layout if i < len(players) else []
        if len(layout) > B.slots:
            raise OutOfBounds("too many slots")
        pairs.append((s.ns[i], z3.IntVal(len(layout))))
        changed = i < len(players) and rnd.changed_by_others(players[i])
        pairs.append((s.changed[i], z3.BoolVal(changed)))
        for j in range(B.slots):
            physical = layout[j] if j < len(layout) else None
            pairs.append((s.card[i][j], z3.IntVal(card(physical.kind) if physical else NONE)))
            pairs.append((s.mturn[i][j], z3.IntVal(physical.moved_turn if physical else -1)))
            pairs.append((s.mseq[i][j], z3.IntVal(physical.moved_sequence if physical else -1)))
            pairs.append((s.mby[i][j], z3.IntVal(player(physical.moved_by) if physical else NONE)))
    ctx = ctx or (rnd.context(move, rnd.pending) if move is not None else Ctx())
    pairs += [(s.active, z3.IntVal(player(rnd.active))), (s.actor, z3.IntVal(player(ctx.actor))),
              (s.user, z3.IntVal(player(ctx.user))), (s.chosen, z3.IntVal(player(ctx.chosen))),
              (s.power, z3.IntVal(ix.power[ctx.power] if ctx.power else NONE)),
              (s.first, z3.IntVal(player(rnd.first))), (s.lot, z3.IntVal(player(rnd.lot)))]
    targets = list(ctx.targets)
    pairs.append((s.tc, z3.IntVal(len(targets))))
    for k, slot in enumerate(s.targets):
        target = targets[k] if k < len(targets) else None
        pairs += _slot(slot, target, player)
    held = rnd.held
    if len(held) > B.held:
        raise OutOfBounds("too many held cards")
    pairs.append((s.hc, z3.IntVal(len(held))))
    for k, term in enumerate(s.held):
        pairs.append((term, z3.IntVal(card(held[k].kind) if k < len(held) else NONE)))
    pairs += _reference(s.ref, rnd.ref, ix, player, card)
    concrete = {"turn": rnd.turn, "sequence": rnd.sequence, "deck_size": len(rnd.deck),
                "discard_size": len(rnd.discard), "under_size": len(rnd.under), "threshold": rnd.threshold,
                "edition_deal": rnd.edition_deal}
    pairs += [(s.ints[name], z3.IntVal(value)) for name, value in concrete.items()]
    pairs.append((s.top, z3.IntVal(card(rnd.discard[-1].kind) if rnd.discard else NONE)))
    pairs.append((s.tiebreak, z3.BoolVal(rnd.tiebreak)))
    for name, decl in s.spec.vars.items():
        pairs += _value(s.vars[name], rnd.vars[name], decl.type, ix, player, card)
    for name, decl in s.spec.player_vars.items():
        for i, term in enumerate(s.pvars[name]):
            value = players[i].vars[name] if i < len(players) else None
            if i >= len(players):
                value = {"int": 0, "bool": False}.get(decl.type.name)
            pairs += _value(term, value, decl.type, ix, player, card)
    return pairs


def _slot(slot: SlotV, value, player) -> list[tuple]:
    if value is None:
        return [(slot.p, z3.IntVal(NONE)), (slot.n, z3.IntVal(0))]
    return [(slot.p, z3.IntVal(player(value[0]))), (slot.n, z3.IntVal(value[1]))]


def _reference(ref: RefV, value, ix, player, card) -> list[tuple]:
    if value is None or value.how is None:
        return [(ref.card, z3.IntVal(NONE)), (ref.how, z3.IntVal(NONE)), (ref.by, z3.IntVal(NONE)),
                (ref.open, z3.BoolVal(False))]
    return [(ref.card, z3.IntVal(card(value.card))), (ref.how, z3.IntVal(ix.enum_value[value.how])),
            (ref.by, z3.IntVal(player(value.by))), (ref.open, z3.BoolVal(value.open))]


def _value(term, value, type_, ix, player, card) -> list[tuple]:
    name = type_.name
    if isinstance(term, SlotV):
        return _slot(term, value, player)
    if isinstance(term, RefV):
        return _reference(term, value, ix, player, card)
    if name == "int":
        return [(term, z3.IntVal(int(value)))]
    if name == "bool":
        return [(term, z3.BoolVal(bool(value)))]
    if name == "player":
        return [(term, z3.IntVal(player(value)))]
    if name == "card":
        return [(term, z3.IntVal(card(value)))]
    if name == "family":
        return [(term, z3.IntVal(ix.family[value] if value else NONE))]
    if name == "power":
        return [(term, z3.IntVal(ix.power[value] if value else NONE))]
    if name in ix.enums:
        return [(term, z3.IntVal(ix.enum_value[value] if value else NONE))]
    raise TypeError(f"no concrete value for {name}")


class Evaluator:
    """Evaluates the spec's Z3 terms on one concrete round (a model pinned to its values)."""

    def __init__(self, pairs: list[tuple]):
        self.model = z3.Model()
        for variable, value in pairs:
            self.model.update_value(variable, value)

    def update(self, pairs: list[tuple]) -> "Evaluator":
        for variable, value in pairs:
            self.model.update_value(variable, value)
        return self

    def __call__(self, term):
        return _constant(self.model.eval(term, model_completion=True))


def move_substitution(s: Situation, rnd: Round, ctx: Ctx) -> list[tuple]:
    """The variables of the move being judged (see substitution for the table)."""
    ix = s.ix
    index = {p: i for i, p in enumerate(rnd.players)}

    def player(p) -> int:
        return index[p] if p is not None else NONE
    pairs = [(s.actor, z3.IntVal(player(ctx.actor))), (s.user, z3.IntVal(player(ctx.user))),
             (s.chosen, z3.IntVal(player(ctx.chosen))), (s.power, z3.IntVal(ix.power[ctx.power] if ctx.power else NONE))]
    targets = list(ctx.targets)
    pairs.append((s.tc, z3.IntVal(len(targets))))
    for k, slot in enumerate(s.targets):
        pairs += _slot(slot, targets[k] if k < len(targets) else None, player)
    return pairs


def evaluate(term, pairs: list[tuple]):
    """The term's value with the round substituted: a Python bool or int."""
    return _constant(z3.simplify(z3.substitute(term, *pairs)))


def _constant(result):
    if z3.is_true(result):
        return True
    if z3.is_false(result):
        return False
    if z3.is_int_value(result):
        return result.as_long()
    raise ValueError(f"not a constant after substitution: {result}")



