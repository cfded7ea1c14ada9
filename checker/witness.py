"""Witnesses: a Z3 model read back as a table a rules author can read."""
from __future__ import annotations

import z3

from baobei.dsl import schema

from .symbolic import NONE, RefV, Situation, SlotV

PLAYER_NAMES = ["Ana", "Ben", "Cy", "Dee", "Eve", "Fay"]


class Reader:
    """Decodes the values of one model."""

    def __init__(self, situation: Situation, model):
        self.s = situation
        self.model = model
        self.ix = situation.ix
        self.read: dict[int, object] = {}     # every term whose value was read, by its id
        self.count = self.int(situation.np)
        self.names = PLAYER_NAMES[:self.count]

    def value(self, term):
        self.read[term.get_id()] = term
        return self.model.eval(term, model_completion=True)

    def int(self, term) -> int:
        return self.value(term).as_long()

    def bool(self, term) -> bool:
        return z3.is_true(self.value(term))

    def player(self, term) -> str | None:
        value = self.int(term)
        return self.names[value] if 0 <= value < len(self.names) else None

    def card(self, term) -> str | None:
        value = self.int(term)
        return self.ix.cards[value] if 0 <= value < len(self.ix.cards) else None

    def slot(self, slot: SlotV) -> str | None:
        player = self.player(slot.p)
        return f"{player}.{self.int(slot.n)}" if player else None

    def enum(self, term, enum: str) -> str | None:
        value = self.int(term)
        values = self.ix.enums[enum]
        return values[value] if 0 <= value < len(values) else None

    def typed(self, value, type_):
        name = type_.name
        if isinstance(value, SlotV):
            return self.slot(value)
        if isinstance(value, RefV):
            return self.reference(value)
        if name == "int":
            return self.int(value)
        if name == "bool":
            return self.bool(value)
        if name == "player":
            return self.player(value)
        if name == "card":
            return self.card(value)
        if name == "family":
            v = self.int(value)
            return self.ix.families[v] if v >= 0 else None
        if name == "power":
            v = self.int(value)
            return self.ix.powers[v] if v >= 0 else None
        if name in self.ix.enums:
            return self.enum(value, name)
        return str(self.value(value))

    def shown(self, value, type_) -> str:
        """A value as a scenario writes it: a player's name, a slot `Ben.2`, a card id, a number,
        a reference with how (and by whom); none where there is none."""
        shown = self.typed(value, type_) if value is not None else None
        if isinstance(shown, dict):
            by = f" by {shown['by']}" if shown["by"] else ""
            return f"{shown['card']} ({shown['how']}{by})"
        return "none" if shown is None else str(shown).lower() if isinstance(shown, bool) else str(shown)

    def reference(self, ref: RefV) -> dict | None:
        how = self.enum(ref.how, schema.HOW_ENUM)
        if how is None:
            return None
        return {"card": self.card(ref.card), "how": how, "by": self.player(ref.by), "open": self.bool(ref.open)}

    def layouts(self) -> dict[str, list[str]]:
        s = self.s
        return {self.names[i]: [self.card(s.card[i][j]) or "_" for j in range(self.int(s.ns[i]))]
                for i in range(self.count)}


def shown_pins(situation: Situation, model, kind: str | None = None) -> list:
    """Equalities that pin everything the witness of this model shows (describe_model): a model
    that breaks one of them shows another witness."""
    reader = Reader(situation, model)
    describe_model(situation, model, kind, reader)
    return [term == reader.value(term) for term in list(reader.read.values())]


def describe_model(situation: Situation, model, kind: str | None = None, reader: Reader | None = None) -> dict:
    """The situation of a model: table, move, reference, variables that matter."""
    r = reader or Reader(situation, model)
    s = situation
    spec = s.spec
    described: dict = {"players": r.names, "layouts": r.layouts(), "active": r.player(s.active)}
    if kind is not None:
        targets = [r.slot(t) for t in s.targets[:r.int(s.tc)]]
        args = []
        from baobei.interpreter.moves import SHAPES
        shape = SHAPES[kind].args
        if shape == "own":
            args = [t.split(".")[1] for t in targets if t]
        elif shape == "slots":
            args = [t or "_" for t in targets]    # a placeholder `_` stays in its place
        elif shape == "player":
            args = [r.player(s.chosen)]
        described["move"] = f"{r.player(s.actor)}: {' '.join([kind] + [a for a in args if a])}"
    described["reference"] = r.reference(s.ref)
    held = [r.card(h) for h in s.held[:r.int(s.hc)]]
    if held:
        described["held"] = held
    power = r.int(s.power)
    if power != NONE:
        described["power"] = s.ix.powers[power]
        described["user"] = r.player(s.user)
    variables = {}
    for name, decl in spec.vars.items():
        value = r.typed(s.vars[name], decl.type)
        if value not in (None, False, 0) or name in schema.REQUIRED_VARS:
            variables[name] = value
    described["vars"] = variables
    for name, decl in spec.player_vars.items():
        values = {r.names[i]: r.typed(s.pvars[name][i], decl.type) for i in range(r.count)}
        if any(v not in (None, False, 0) for v in values.values()):
            described.setdefault("player_vars", {})[name] = values
    moved = {}
    for i in range(r.count):
        for j in range(r.int(s.ns[i])):
            turn = r.int(s.mturn[i][j])
            if turn >= 0:
                moved[f"{r.names[i]}.{j + 1}"] = {"turn": turn, "sequence": r.int(s.mseq[i][j]),
                                                  "by": r.player(s.mby[i][j])}
    if moved:
        described["moved_by_powers"] = moved
    if moved or power != NONE:     # the counters the movement limit compares marks with
        described["turn"] = r.int(s.ints["turn"])
        described["sequence"] = r.int(s.ints["sequence"])
    changed = [r.names[i] for i in range(r.count) if r.bool(s.changed[i])]
    if changed:
        described["changed_by_others"] = changed
    return described
