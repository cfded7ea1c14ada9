"""The symbolic situation: the same nouns the interpreter's state has, as Z3 terms.

A situation is one moment of a round: the table (players, slots and their cards,
what powers moved this turn), the spec's variables, the current reference, the
move being judged (actor, targets, chosen player), the power being played.
Tables are bounded (players, slots per player, held cards); the bounds are
printed with every result. `constraints()` say what a well-formed table is;
the spec's `invariant`s and the ask sites (sites.py) narrow it further.
"""
from __future__ import annotations

from dataclasses import dataclass

import z3

from baobei.dsl import ast, schema
from baobei.dsl.edition import Edition
from baobei.dsl.errors import SolverError
from baobei.dsl.model import Spec

NONE = -1


@dataclass(frozen=True)
class Bounds:
    players: int = 6
    slots: int = 6
    held: int = 2

    def __str__(self) -> str:
        return f"2 to {self.players} players, up to {self.slots} slots each, up to {self.held} held cards"


class SlotV:
    """A slot value: (player index, slot number), none is (-1, 0)."""

    __slots__ = ("p", "n")

    def __init__(self, p, n):
        self.p = p
        self.n = n


class RefV:
    __slots__ = ("card", "how", "by", "open")

    def __init__(self, card, how, by, open_):
        self.card = card
        self.how = how
        self.by = by
        self.open = open_


class ListV:
    """A bounded list: (guard, element) pairs; an element exists when its guard holds. A list of
    layouts' slots may also give each guard without its slot's existence (`unsized`): for a
    quantifier whose body an empty cell leaves out anyway (Situation.leaves_alone_when_empty),
    Z3 then reads no layout size."""

    __slots__ = ("items", "unsized")

    def __init__(self, items, unsized=None):
        self.items = items
        self.unsized = unsized


def none_slot() -> SlotV:
    return SlotV(int_(NONE), int_(0))


class Indexes:
    """Card ids, families, powers and enum values as integers (none is -1)."""

    def __init__(self, spec: Spec):
        self.cards = list(spec.cards)
        self.families = list(spec.families)
        self.powers = list(spec.powers)
        self.enums = {name: list(decl.values) for name, decl in spec.enums.items()}
        self.card = {name: i for i, name in enumerate(self.cards)}
        self.family = {name: i for i, name in enumerate(self.families)}
        self.power = {name: i for i, name in enumerate(self.powers)}
        self.enum_value = {value: i for values in self.enums.values() for i, value in enumerate(values)}

    def size(self, type_name: str) -> int | None:
        if type_name == "card":
            return len(self.cards)
        if type_name == "family":
            return len(self.families)
        if type_name == "power":
            return len(self.powers)
        if type_name in self.enums:
            return len(self.enums[type_name])
        return None


class Situation:
    """Z3 variables for one moment of a round. `tag` keeps two situations apart."""

    def __init__(self, spec: Spec, edition: Edition, bounds: Bounds = Bounds(), tag: str = ""):
        self.spec = spec
        self.edition = edition
        self.bounds = bounds
        self.ix = Indexes(spec)
        t = tag
        P, S, H = bounds.players, bounds.slots, bounds.held
        I = z3.Int
        self.np = I(f"{t}players")
        self.ns = [I(f"{t}slots_{i}") for i in range(P)]
        self.card = [[I(f"{t}card_{i}_{j + 1}") for j in range(S)] for i in range(P)]
        self.mturn = [[I(f"{t}moved_turn_{i}_{j + 1}") for j in range(S)] for i in range(P)]
        self.mseq = [[I(f"{t}moved_sequence_{i}_{j + 1}") for j in range(S)] for i in range(P)]
        self.mby = [[I(f"{t}moved_by_{i}_{j + 1}") for j in range(S)] for i in range(P)]
        self.changed = [z3.Bool(f"{t}changed_{i}") for i in range(P)]
        # constraints() empties every cell a layout does not have (no card, no marks): a read of
        # these variables under these layout sizes needs no guard on the size (_read); a table or
        # layout an effect has changed (execute.derived) is another list, and is read guarded
        self._own_cells = ((self.card, NONE), (self.mturn, -1), (self.mseq, -1), (self.mby, NONE))
        self._own_ns = self.ns
        self.active, self.actor, self.user, self.chosen = I(f"{t}active"), I(f"{t}actor"), I(f"{t}user"), I(f"{t}chosen")
        self.power = I(f"{t}power")
        self.first = I(f"{t}first")
        self.lot = I(f"{t}lot")
        self.tc = I(f"{t}target_count")
        self.targets = [SlotV(I(f"{t}target{k}_player"), I(f"{t}target{k}_number")) for k in range(2)]
        self.hc = I(f"{t}held_count")
        self.held = [I(f"{t}held_{k}") for k in range(H)]
        self.ref = RefV(I(f"{t}ref_card"), I(f"{t}ref_how"), I(f"{t}ref_by"), z3.Bool(f"{t}ref_open"))
        self.ints = {name: I(f"{t}{name}") for name in ("turn", "sequence", "deck_size", "discard_size", "under_size",
                                                        "threshold", "edition_deal")}
        self.tiebreak = z3.Bool(f"{t}tiebreak")
        self.top = I(f"{t}top")            # the visible card of the discard (none when it is empty)
        self._reads: dict = {}
        for decl in list(spec.vars.values()) + list(spec.player_vars.values()):
            if decl.type.name == "list":
                raise SolverError(f"variable '{decl.name}' holds a list: the checker reasons about variables of "
                                  f"one value (a number, a player, a slot, a card ...)", decl.loc)
        self.var_decls, self.player_var_decls = dict(spec.vars), dict(spec.player_vars)
        self.vars = {name: self._fresh(f"{t}{name}", decl.type) for name, decl in spec.vars.items()}
        self.pvars = {name: [self._fresh(f"{t}{name}_{i}", decl.type) for i in range(P)]
                      for name, decl in spec.player_vars.items()}
        self._tag = t

    def with_variables_of(self, other: Spec) -> "Situation":
        """The variables another rule set declares and this one does not, added (two versions of
        a spec over one table: each reads its own)."""
        for name, decl in other.vars.items():
            if name not in self.vars:
                self.var_decls[name] = decl
                self.vars[name] = self._fresh(f"{self._tag}{name}", decl.type)
        for name, decl in other.player_vars.items():
            if name not in self.pvars:
                self.player_var_decls[name] = decl
                self.pvars[name] = [self._fresh(f"{self._tag}{name}_{i}", decl.type)
                                    for i in range(self.bounds.players)]
        return self

    def _fresh(self, name: str, type_: ast.Type):
        if type_.name == "int":
            return z3.Int(name)
        if type_.name == "bool":
            return z3.Bool(name)
        if type_.name == "slot":
            return SlotV(z3.Int(name + "_player"), z3.Int(name + "_number"))
        if type_.name == "reference":
            return RefV(z3.Int(name + "_card"), z3.Int(name + "_how"), z3.Int(name + "_by"), z3.Bool(name + "_open"))
        if type_.name == "list":  # refused with its location in __init__
            raise SolverError(f"'{name}' holds a list")
        return z3.Int(name)

    # -- well-formed tables --------------------------------------------------------------
    def constraints(self, counts: bool = True) -> list:
        """What a well-formed table is; `counts`: no more copies of a card than the edition has."""
        B, ix = self.bounds, self.ix
        P, S = B.players, B.slots
        c = [self.np >= 2, self.np <= P]
        for i in range(P):
            c += [self.ns[i] >= 0, self.ns[i] <= S, z3.Implies(self.np <= i, self.ns[i] == 0)]
            c.append(z3.Implies(self.changed[i], self.np > i))
            for j in range(S):
                card = self.card[i][j]
                c += [card >= NONE, card < len(ix.cards), z3.Implies(self.ns[i] <= j, card == NONE)]
                c += [self.mby[i][j] >= NONE, self.mby[i][j] < self.np]
                c += [self.mturn[i][j] >= -1, self.mturn[i][j] <= self.ints["turn"],
                      self.mseq[i][j] >= -1, self.mseq[i][j] <= self.ints["sequence"]]
                c.append(z3.Implies(card == NONE, z3.And(self.mturn[i][j] == -1, self.mseq[i][j] == -1,
                                                         self.mby[i][j] == NONE)))
        for name in ("turn", "sequence", "deck_size", "discard_size", "under_size"):
            c.append(self.ints[name] >= 0)
        for name in ("deck_size", "discard_size", "under_size"):       # no pile holds more than the deck
            c.append(self.ints[name] <= self.edition.size)
        c.append(self.ints["threshold"] == self._by_players(self.edition.threshold))
        c.append(self.ints["edition_deal"] == self._by_players(self.edition.deal))
        c += [self.active >= 0, self.active < self.np, self.actor >= 0, self.actor < self.np,
              self.first >= 0, self.first < self.np, self.user >= NONE, self.user < self.np,
              self.lot >= NONE, self.lot < self.np,
              self.chosen >= NONE, self.chosen < self.np,
              self.power >= NONE, self.power < len(ix.powers), (self.power == NONE) == (self.user == NONE)]
        c += [self.tc >= 0, self.tc <= 2]
        for k, slot in enumerate(self.targets):
            none = z3.And(slot.p == NONE, slot.n == 0)
            valid = z3.And(slot.p >= 0, slot.p < self.np, slot.n >= 1, slot.n <= S + 1)
            if k == 0:   # the first of two targets may be a placeholder `_` (move_shape says for which kinds)
                valid = z3.Or(valid, z3.And(self.tc == 2, none))
            c.append(z3.If(self.tc <= k, none, valid))
        c += [self.hc >= 0, self.hc <= B.held]
        for k, held in enumerate(self.held):
            c.append(z3.If(self.hc <= k, held == NONE, z3.And(held >= 0, held < len(ix.cards))))
        c += self._ref_range(self.ref)
        for name, decl in self.var_decls.items():
            c += self._range(self.vars[name], decl.type)
        for name, decl in self.player_var_decls.items():
            for i, value in enumerate(self.pvars[name]):
                c += self._range(value, decl.type)
        c += [self.top >= NONE, self.top < len(ix.cards), (self.ints["discard_size"] >= 1) == (self.top != NONE)]
        return c + (self.deck_counts() if counts else [])

    def decision_arguments(self, decl: ast.DecisionDecl, stem: str) -> tuple[list, list]:
        """Fresh symbolic arguments for a decision's parameters, and the constraints on them."""
        args = [self._fresh(f"{stem}_{decl.name}_{p.name}", p.type) for p in decl.params]
        context = []
        for param, arg in zip(decl.params, args):
            context += self._range(arg, param.type)
            if param.type.name == "player":
                context.append(arg >= 0)
        return args, context

    def _by_players(self, table: dict[int, int]):
        expr = z3.IntVal(table.get(2, 0))
        for players in range(3, self.bounds.players + 1):
            expr = z3.If(self.np == players, table.get(players, 0), expr)
        return expr

    def _range(self, value, type_: ast.Type) -> list:
        if isinstance(value, SlotV):
            return [z3.Or(z3.And(value.p == NONE, value.n == 0),
                          z3.And(value.p >= 0, value.p < self.np, value.n >= 1, value.n <= self.bounds.slots + 1))]
        if isinstance(value, RefV):
            return self._ref_range(value)
        if type_.name == "player":
            return [value >= NONE, value < self.np]
        size = self.ix.size(type_.name)
        if size is not None:
            return [value >= NONE, value < size]
        return []

    def _ref_range(self, ref: RefV) -> list:
        how = len(self.ix.enums[schema.HOW_ENUM])
        return [ref.card >= NONE, ref.card < len(self.ix.cards), ref.how >= NONE, ref.how < how,
                ref.by >= NONE, ref.by < self.np,
                z3.Implies(ref.how == NONE, z3.And(ref.card == NONE, ref.by == NONE, z3.Not(ref.open)))]

    def deck_counts(self) -> list:
        """No more cards of an id on the table than the edition's deck holds. A cardinality
        constraint (Z3's pseudo-Boolean solver) rather than a sum of 0/1 terms: the questions that
        turn on how many copies a card has (one golden toucan: two players cannot both score below
        zero) take a third less of Z3's time in a check."""
        places = self.card_places()
        return [z3.AtMost(*[eq_(place, index) for place in places], self.edition.deck.get(name, 0))
                for name, index in self.ix.card.items()]

    def card_places(self) -> list:
        """Every place of the table a card can be in: each slot of the layouts, the held cards,
        the top of the discard."""
        return [cell for row in self.card for cell in row] + list(self.held) + [self.top]

    # -- the move being judged -------------------------------------------------------------
    def move_shape(self, kind: str) -> list:
        """What the notation lets a move of this kind name."""
        from baobei.interpreter.moves import SHAPES
        shape, counts = SHAPES[kind].args, SHAPES[kind].counts
        if shape == "player":       # `add P` names a player and no slot: count(targets) is 0
            return [self.tc == 0, self.chosen >= 0, self.chosen < self.np] + \
                [z3.And(slot.p == NONE, slot.n == 0) for slot in self.targets]
        c = [z3.Or([self.tc == n for n in counts]), self.chosen == NONE]
        for k, slot in enumerate(self.targets):
            exists = self.slot_exists(slot)
            if shape == "own":
                c.append(z3.Implies(self.tc > k, slot.p == self.actor))
            if SHAPES[kind].new_slot:
                c.append(z3.Implies(self.tc > k, z3.Or(exists, slot.n == self.slot_count(slot.p) + 1)))
            elif any(position == k for _, position in SHAPES[kind].placeholders):
                counts = [n for n, position in SHAPES[kind].placeholders if position == k]
                c.append(z3.Implies(self.tc > k, z3.Or(exists, z3.And(z3.Or([self.tc == n for n in counts]),
                                                                      slot.p == NONE))))
            else:
                c.append(z3.Implies(self.tc > k, exists))
            # a target the move does not name is none (the interpreter's `second` of a single pluck)
            c.append(z3.Implies(self.tc <= k, z3.And(slot.p == NONE, slot.n == 0)))
        return c

    # -- reading the table -----------------------------------------------------------------
    def slot_count(self, p):
        i = number(p)
        if i is not None:
            return self.ns[i] if 0 <= i < self.bounds.players else int_(0)
        expr = int_(0)
        for i in range(self.bounds.players):
            expr = if_(eq_(p, i), self.ns[i], expr)
        return expr

    def slot_exists(self, slot: SlotV):
        return and_([slot.p >= 0, slot.p < self.np, slot.n >= 1, slot.n <= self.slot_count(slot.p)])

    def at(self, slot: SlotV, table, default):
        """table[i][j] at the slot (default where there is none). Reads are remembered (with what
        they read, kept alive so that ids stay theirs): the same reads recur on every path."""
        i, n = number(slot.p), number(slot.n)
        if i is not None and n is not None:     # a cell: its numbers are the key
            key = ("cell", i, n, id(table), id(self.ns), id(default))
        else:
            key = (slot.p.get_id(), slot.n.get_id(), id(table), id(self.ns), id(default))
        found = self._reads.get(key)
        if found is None:
            found = (self._read(slot, table, default), slot, table, self.ns, default)
            self._reads[key] = found
        return found[0]

    def _read(self, slot: SlotV, table, default):
        players, slots = range(self.bounds.players), range(self.bounds.slots)
        n, i = number(slot.n), number(slot.p)
        guarded = not self._reads_own_cells(table, default)
        if n is not None and i is not None:
            if 0 <= i < self.bounds.players and 1 <= n <= self.bounds.slots:
                return if_(ge_(self.ns[i], n), table[i][n - 1], default) if guarded else table[i][n - 1]
            return int_(default) if isinstance(default, int) else default
        if n is not None:                    # a column: one cell per player
            if not 1 <= n <= self.bounds.slots:
                return default
            cells = [(eq_(slot.p, i), (i, n - 1)) for i in players]
        elif i is not None:                  # a row: one cell per slot of that player
            if not 0 <= i < self.bounds.players:
                return default
            cells = [(eq_(slot.n, j + 1), (i, j)) for j in slots]
        else:
            cells = [(and_([eq_(slot.p, i), eq_(slot.n, j + 1)]), (i, j)) for i in players for j in slots]
        expr = default
        for where, (i, j) in cells:
            expr = if_(and_([where, ge_(self.ns[i], j + 1)]) if guarded else where, table[i][j], expr)
        return expr

    def _reads_own_cells(self, table, default) -> bool:
        """Whether the table is this situation's own variables, read under its own layout sizes
        with the value constraints() gives a cell no layout has: then the cell itself is that value
        wherever the slot does not exist, and the read needs no guard (a third less work for Z3 in
        a variant's questions, whose sums over the slots read every cell)."""
        if self.ns is not self._own_ns:
            return False
        empty = default if isinstance(default, int) else number(default)
        return any(table is cells and empty == value for cells, value in self._own_cells)

    def player_slots(self, p) -> ListV:
        i = number(p)
        if i is not None:
            if not 0 <= i < self.bounds.players:
                return ListV([])
            cells = [(i, j, z3.BoolVal(True)) for j in range(self.bounds.slots)]
        else:
            cells = [(i, j, eq_(p, i)) for i in range(self.bounds.players) for j in range(self.bounds.slots)]
        return self._slots(cells)

    def all_slots(self) -> ListV:
        return self._slots([(i, j, z3.BoolVal(True)) for i in range(self.bounds.players)
                            for j in range(self.bounds.slots)])

    def _slots(self, cells: list) -> ListV:
        """The slots of these cells ((player, index, whose)) that exist; under its own layout sizes,
        each guard without the existence too (ListV.unsized)."""
        items = [(and_([whose, ge_(self.ns[i], j + 1)]), SlotV(int_(i), int_(j + 1))) for i, j, whose in cells]
        return ListV(items, [whose for _, _, whose in cells] if self.ns is self._own_ns else None)

    def leaves_alone_when_empty(self, quantifier: str, body, slot: SlotV) -> bool:
        """Whether a quantifier's body, on this slot of this situation's own tables, leaves the
        result as it is (all: true; any, count, first: false; sum: 0) wherever the slot's cell is
        empty, as every cell a layout does not have is (constraints()): then the slot needs no
        guard on its existence. The body with the cell's variables at their empty values must
        simplify to that constant."""
        if not isinstance(body, z3.ExprRef):
            return False
        i, j = number(slot.p), number(slot.n) - 1
        empty = [(table[i][j], int_(value)) for table, value in self._own_cells]
        there = z3.simplify(z3.substitute(body, *empty))
        if quantifier == "sum":
            return number(there) == 0
        return truth(there) is (quantifier == "all")

    def players(self) -> ListV:
        return ListV([(self.np > i, int_(i)) for i in range(self.bounds.players)])

    def order(self) -> ListV:
        items = []
        for k in range(self.bounds.players):
            seat = z3.If(self.first + k < self.np, self.first + k, self.first + k - self.np)
            items.append((self.np > k, seat))
        return ListV(items)

    def player_var(self, name: str, p, default):
        i = number(p)
        if i is not None:
            return self.pvars[name][i] if 0 <= i < self.bounds.players else default
        expr = default
        for i, value in enumerate(self.pvars[name]):
            expr = _ite(eq_(p, i), value, expr)
        return expr


def _ite(cond, a, b):
    if isinstance(a, SlotV):
        return SlotV(if_(cond, a.p, b.p), if_(cond, a.n, b.n))
    if isinstance(a, RefV):
        return RefV(if_(cond, a.card, b.card), if_(cond, a.how, b.how), if_(cond, a.by, b.by),
                    if_(cond, a.open, b.open))
    return if_(cond, a, b)


# ---- terms built directly --------------------------------------------------------------------
# The symbolic execution builds hundreds of thousands of terms from terms that are typed already:
# z3py's coercions and sort checks cost more than building them. These go to Z3's C API directly,
# and fold what is plain (a condition that is the constant true or false, an `if` whose branches
# are one term): the formulas mean the same and are smaller. Anything else goes to z3py.

def truth(term):
    """True or False when the term is the constant true or false, else None (one call to Z3)."""
    value = z3.Z3_get_bool_value(term.ctx.ref(), term.as_ast())
    return True if value == z3.Z3_L_TRUE else False if value == z3.Z3_L_FALSE else None


def _typed(ast, like, ctx):
    """The z3py object of a new term of the same sort as `like`."""
    if isinstance(like, z3.BoolRef):
        return z3.BoolRef(ast, ctx)
    if isinstance(like, z3.ArithRef):       # a numeral's class is for numerals only
        return z3.ArithRef(ast, ctx)
    return z3.z3._to_expr_ref(ast, ctx)


def if_(cond, a, b):
    """z3.If(cond, a, b)."""
    if type(cond) is not z3.BoolRef or not isinstance(a, z3.ExprRef) or not isinstance(b, z3.ExprRef):
        return z3.If(cond, a, b)
    known = truth(cond)
    if known is not None:
        return a if known else b
    ctx = cond.ctx
    if z3.Z3_is_eq_ast(ctx.ref(), a.as_ast(), b.as_ast()):
        return a
    try:
        return _typed(z3.Z3_mk_ite(ctx.ref(), cond.as_ast(), a.as_ast(), b.as_ast()), a, ctx)
    except z3.Z3Exception:      # two sorts z3py would reconcile (an int and a real)
        return z3.If(cond, a, b)


def and_(terms):
    """z3.And(terms) of Boolean terms: true ones left out, false when one is false."""
    return _junction(terms, True)


def or_(terms):
    """z3.Or(terms) of Boolean terms: false ones left out, true when one is true."""
    return _junction(terms, False)


def _junction(terms, conjunction: bool):
    kept = []
    for term in terms:
        if type(term) is not z3.BoolRef:
            return z3.And(terms) if conjunction else z3.Or(terms)
        known = truth(term)
        if known is None:
            kept.append(term)
        elif known is not conjunction:
            return term
    if not kept:
        return z3.BoolVal(conjunction)
    if len(kept) == 1:
        return kept[0]
    array, size = z3.z3._to_ast_array(kept)
    ctx = kept[0].ctx
    made = z3.Z3_mk_and if conjunction else z3.Z3_mk_or
    return z3.BoolRef(made(ctx.ref(), size, array), ctx)


_INTS: dict = {}
_INT_VALUES: dict = {}     # id of a term int_ made -> its value (those terms are kept: ids stay theirs)


def int_(value: int):
    """z3.IntVal(value), made once (and kept, so that its id stays its own)."""
    term = _INTS.get(value)
    if term is None:
        term = _INTS[value] = z3.IntVal(value)
        _INT_VALUES[id(term)] = value
    return term


def number(term) -> int | None:
    """The value of an integer numeral, None for any other term (z3.is_int_value and as_long ask
    Z3 four times; a numeral int_ made is known without asking)."""
    if type(term) is not z3.IntNumRef:
        return None
    value = _INT_VALUES.get(id(term))
    return value if value is not None else term.as_long()


def eq_(a, b):
    """a == b of integer terms (or a term and a Python int): true or false when both are numbers."""
    a = int_(a) if isinstance(a, int) else a
    b = int_(b) if isinstance(b, int) else b
    if not isinstance(a, z3.ArithRef) or not isinstance(b, z3.ArithRef):
        return a == b
    ctx = a.ctx
    if z3.Z3_is_eq_ast(ctx.ref(), a.as_ast(), b.as_ast()):
        return z3.BoolVal(True, ctx)
    if type(a) is z3.IntNumRef and type(b) is z3.IntNumRef:     # two numbers, not the same one
        return z3.BoolVal(False, ctx)
    return z3.BoolRef(z3.Z3_mk_eq(ctx.ref(), a.as_ast(), b.as_ast()), ctx)


def ge_(a, b: int):
    """a >= b of an integer term and a Python int: true or false when the term is a number."""
    if type(a) is z3.IntNumRef:
        return z3.BoolVal(number(a) >= b, a.ctx)
    if type(a) is not z3.ArithRef:
        return a >= b
    ctx = a.ctx
    return z3.BoolRef(z3.Z3_mk_ge(ctx.ref(), a.as_ast(), int_(b).as_ast()), ctx)


_ARITH = {"<": z3.Z3_mk_lt, "<=": z3.Z3_mk_le, ">": z3.Z3_mk_gt, ">=": z3.Z3_mk_ge}
_SUMS = {"+": z3.Z3_mk_add, "-": z3.Z3_mk_sub, "*": z3.Z3_mk_mul}


def arith_(op: str, a, b):
    """a op b of two integer terms (or a term and a Python int), for op a comparison, + - or *:
    the term z3py makes, without its coercions."""
    # Python compares with the right operand's method first when the left is a Python int or the
    # right a numeral (a subclass of the left's class): z3py then makes 0 < x of x > 0
    flipped = op in _FLIPPED and (type(a) is int or (type(a) is z3.ArithRef and type(b) is z3.IntNumRef))
    a = int_(a) if type(a) is int else a
    b = int_(b) if type(b) is int else b
    if type(a) not in _INT_TERMS or type(b) not in _INT_TERMS:
        return _PY_ARITH[op](a, b)
    if flipped:
        op, a, b = _FLIPPED[op], b, a
    ctx = a.ctx
    if op in _ARITH:
        return z3.BoolRef(_ARITH[op](ctx.ref(), a.as_ast(), b.as_ast()), ctx)
    array = (z3.Ast * 2)(a.as_ast(), b.as_ast())
    return z3.ArithRef(_SUMS[op](ctx.ref(), 2, array), ctx)


def sum_(terms: list):
    """z3.Sum(terms) of integer terms."""
    if len(terms) < 2 or any(type(term) not in _INT_TERMS for term in terms):
        return z3.Sum(terms)
    array, size = z3.z3._to_ast_array(terms)
    ctx = terms[0].ctx
    return z3.ArithRef(z3.Z3_mk_add(ctx.ref(), size, array), ctx)


_INT_TERMS = (z3.ArithRef, z3.IntNumRef)
_FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}
_PY_ARITH = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
             "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b}


def not_(term):
    """z3.Not(term) of a Boolean term."""
    if type(term) is not z3.BoolRef:
        return z3.Not(term)
    known = truth(term)
    if known is not None:
        return z3.BoolVal(not known)
    return z3.BoolRef(z3.Z3_mk_not(term.ctx.ref(), term.as_ast()), term.ctx)


ite = _ite


def new_solver(*terms, timeout_ms: int | None = None, rlimit: int | None = None) -> z3.Solver:
    """A solver holding these Boolean terms. The terms are built and typed already, so they go
    to Z3 directly: z3py's per-term coercion would cost more than many of the queries."""
    solver = z3.Solver()
    if timeout_ms is not None:
        solver.set("timeout", timeout_ms)
    if rlimit is not None:
        solver.set("rlimit", rlimit)
    assert_all(solver, terms)
    return solver


def assert_all(solver: z3.Solver, terms) -> None:
    ctx, handle = solver.ctx.ref(), solver.solver
    for term in terms:
        z3.Z3_solver_assert(ctx, handle, term.as_ast())
