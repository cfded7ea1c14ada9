"""Every effect keeps each card in exactly one place.

Two parts. The primitives (draw, discard, place, swap, ...) are modelled once, over
card counts per zone, and Z3 proves each moves cards without creating or losing
any, given its precondition (a card to take, a free slot to fill). Then every use
of a primitive in a move handler is executed symbolically from the moment the move
is judged legal, and Z3 proves the precondition holds there, on every path. A
precondition that depends on a variable another handler set (e.g. the slot an
offensive pluck freed) cannot be reached this way; it is listed as checked in
play, where the interpreter stops on any violation (interpreter/invariants.py).
"""
from __future__ import annotations

import copy
from dataclasses import dataclass

import z3

from baobei.dsl import ast

from .answers import code_version, key_of
from .symbolic import NONE, SlotV, Situation, and_, arith_, eq_, ge_, if_, int_, new_solver, not_, or_, sum_
from .translate import Translator

MOVES_CARDS = (ast.Draw, ast.Flip, ast.Discard, ast.Bury, ast.Place, ast.TakeTop, ast.Swap, ast.Move,
               ast.Shuffle, ast.Deal)


@dataclass
class EffectResult:
    where: str
    what: str
    status: str          # proved, violated, unknown, in play
    witness: object = None


# ---- part 1: the primitives conserve cards ----------------------------------------------------

def primitives_conserve(kinds: int, timeout_ms: int) -> list[EffectResult]:
    """Each primitive, on a symbolic table of zone counts, keeps the count of every card id."""
    return conserve(*primitive_moves(kinds), timeout_ms)


def conserve(sane: list, before: list, cases: dict, timeout_ms: int) -> list[EffectResult]:
    """Whether each case (precondition, zones after) leaves every card id's count as `before`,
    on the tables `sane` allows."""
    results = []
    for what, (precondition, zones) in cases.items():
        changed = or_([not_(eq_(a, b)) for a, b in zip(before, _total(zones))])
        result = new_solver(*sane, precondition, changed, timeout_ms=timeout_ms).check()
        status = "proved" if result == z3.unsat else ("violated" if result == z3.sat else "unknown")
        results.append(EffectResult("the primitives", what, status))
    return results


def _total(zones: list) -> list:
    """Each card id's count over these zones (each a count per card id)."""
    return [sum_([zone_[k] for zone_ in zones]) for k in range(len(zones[0]))]


def primitive_moves(kinds: int) -> tuple[list, list, dict]:
    """The primitives over zone counts (a count per card id in each zone): the constraints of a
    table, each id's count before, and each primitive's (precondition, zones after). Made with
    symbolic.py's builders: z3py's coercions would cost five times the solving."""
    K = kinds

    def zone(name):
        return [z3.Int(f"{name}_{k}") for k in range(K)]

    def card_id(c):
        return and_([ge_(c, 0), arith_("<", c, K)])

    deck, discard, under, held, layout = zone("deck"), zone("discard"), zone("under"), zone("held"), zone("slots")
    top = z3.Int("top")             # the discard's top card
    card, other = z3.Int("c"), z3.Int("d")   # the card(s) the primitive moves
    sane = [ge_(x, 0) for zone_ in (deck, discard, under, held, layout) for x in zone_] + \
        [card_id(card), card_id(other), card_id(top)]

    def move_one(source, target, c):
        src = [if_(eq_(c, k), arith_("-", x, 1), x) for k, x in enumerate(source)]
        dst = [if_(eq_(c, k), arith_("+", x, 1), x) for k, x in enumerate(target)]
        return src, dst

    def has(zone_, c):
        return or_([and_([eq_(c, k), ge_(x, 1)]) for k, x in enumerate(zone_)])

    def is_top(k):
        return if_(eq_(top, k), int_(1), int_(0))

    zones = {"pile": deck, "discard": discard, "under": under, "held": held, "slots": layout}
    order = list(zones)
    before = _total(list(zones.values()))
    cases = {}
    one_card = (("draw (pile -> held)", "pile", "held"), ("flip (pile -> discard)", "pile", "discard"),
                ("discard held", "held", "discard"), ("discard a slot", "slots", "discard"),
                ("bury held", "held", "under"), ("bury a slot", "slots", "under"),
                ("place held into a free slot", "held", "slots"), ("take the top of the discard", "discard", "held"),
                ("deal (pile -> slot)", "pile", "slots"))
    for what, source, target in one_card:
        moved_from, moved_to = move_one(zones[source], zones[target], card)
        after = dict(zones, **{source: moved_from, target: moved_to})
        cases[what] = (has(zones[source], card), [after[name] for name in order])
    # a swap or a move stays within the layouts: the counts per card are those of before
    cases["swap two slots"] = (and_([has(layout, card), has(layout, other)]), list(zones.values()))
    cases["move a card to a free slot"] = (has(layout, card), list(zones.values()))
    new_deck = [arith_("-", sum_([d, x, u]), is_top(k)) for k, (d, x, u) in enumerate(zip(deck, discard, under))]
    new_discard = [is_top(k) for k in range(K)]
    cases["shuffle the discard (but its top) and what is under it into the pile"] = (
        has(discard, top), [new_deck, new_discard, [int_(0)] * K, held, layout])
    return sane, before, cases


# ---- part 2: preconditions where the spec uses them ----------------------------------------------

class _State:
    """The table as an effect sequence leaves it: a situation whose cards and held cards changed."""

    def __init__(self, situation: Situation):
        self.s = situation
        self.env: dict = {}
        self.path: list = []


def _derived(situation: Situation, card=None, hc=None, held=None, vars_=None) -> Situation:
    derived = copy.copy(situation)
    derived._reads = {}
    if card is not None:
        derived.card = card
    if hc is not None:
        derived.hc = hc
    if held is not None:
        derived.held = held
    if vars_ is not None:
        derived.vars = vars_
    return derived


@dataclass
class _Obligation:
    """A precondition where a handler uses a primitive: `query` has a situation where it fails."""
    where: str
    what: str
    kind: str
    query: list
    set_before: bool     # an operand reads a spec variable: a failure there is checked in play

    @property
    def label(self) -> str:
        return f"effect {self.what} in on {self.kind}"

    def result(self, checker, status: str, model) -> EffectResult:
        verdict = {"unsat": "proved", "sat": "violated"}.get(status, "unknown")
        if verdict == "violated" and self.set_before:
            verdict, model = "in play", None   # set by an earlier move's handler: checked in play
        return EffectResult(self.where, self.what, verdict,
                            checker.witness(model, self.kind) if model is not None else None)


class Executor:
    """Runs a handler's statements on symbolic tables, checking each primitive's precondition."""

    def __init__(self, checker, kind: str):
        self.checker = checker
        self.spec = checker.spec
        self.kind = kind
        self.obligations: list[_Obligation] = []
        base_tr = checker.tr
        legal = base_tr.legal(kind)[0]
        self.start = checker.move_context(kind) + [legal]
        self.counter = 0

    def fresh(self, name: str):
        self.counter += 1
        return z3.Int(f"effect_{self.kind}_{name}_{self.counter}")

    def run(self, body: list[ast.Stmt]) -> None:
        self.block(body, self.checker.situation, {}, [], depth=0)

    def block(self, body, s: Situation, env: dict, path: list, depth: int):
        """Runs statements; returns the list of (situation, env, path) it ends in (empty: stopped)."""
        states = [(s, env, path)]
        for stmt in body:
            following = []
            for state in states:
                following += self.stmt(stmt, *state, depth)
            states = following
            if not states:
                break
        return states

    def expr(self, e, s: Situation, env: dict):
        return Translator(self.spec, s).expr(e, env)

    def check(self, stmt, what: str, precondition, s: Situation, path: list, operands=()) -> None:
        """An obligation: the precondition holds here on every path (effects_keep_cards solves
        them all once the handlers have run)."""
        self.obligations.append(_Obligation(f"on {self.kind}: {stmt.loc}", what, self.kind,
                                            self.start + path + [z3.Not(precondition)],
                                            any(_reads_a_variable(o) for o in operands)))

    def stmt(self, stmt, s: Situation, env: dict, path: list, depth: int):
        t = Translator(self.spec, s)
        if isinstance(stmt, (ast.Ask, ast.ResolvePowers, ast.While)):
            return []       # what follows depends on later moves: checked in play
        if isinstance(stmt, ast.If):
            results = []
            taken = []
            for cond, body in stmt.branches:
                value = t.expr(cond, env)
                results += self.block(body, s, env, path + [z3.Not(z3.Or(taken))] * bool(taken) + [value],
                                      depth)
                taken.append(value)
            otherwise = path + ([z3.Not(z3.Or(taken))] if taken else [])
            results += self.block(stmt.otherwise, s, env, otherwise, depth)
            return results
        if isinstance(stmt, ast.For):
            domain = t.expr(stmt.domain, env)
            states = [(s, env, path)]
            for guard, item in domain.items:
                following = []
                for s_, env_, path_ in states:
                    following += self.block(stmt.body, s_, {**env_, stmt.var: item}, path_ + [guard], depth)
                    following.append((s_, env_, path_ + [z3.Not(guard)]))
                states = following
            return states
        if isinstance(stmt, ast.Let):
            return [(s, {**env, stmt.name: t.expr(stmt.value, env)}, path)]
        if isinstance(stmt, ast.Set):
            if stmt.owner is None and stmt.target in s.vars:
                vars_ = dict(s.vars)
                value = t.expr(stmt.value, env)
                vars_[stmt.target] = value if value is not None else t.default(self.spec.vars[stmt.target].type)
                return [(_derived(s, vars_=vars_), env, path)]
            return [(s, env, path)]
        if isinstance(stmt, ast.CallProc):
            if depth > 6:
                return []
            decl = self.spec.procedures[stmt.name]
            args = {p.name: t.expr(a, env) for p, a in zip(decl.params, stmt.args)}
            return [(s_, env, path_) for s_, _, path_ in self.block(decl.body, s, args, path, depth + 1)]
        if isinstance(stmt, MOVES_CARDS):
            return self.effect(stmt, s, env, path, t)
        return [(s, env, path)]

    # -- the primitives' preconditions and effects on the symbolic table ----------------------
    def effect(self, stmt, s: Situation, env: dict, path: list, t: Translator):
        name = type(stmt).__name__.lower()
        if isinstance(stmt, ast.Draw):
            count = t.expr(stmt.count, env)
            states = [(s, env, path)]   # nothing left to draw: the draw is skipped
            held, hc = list(s.held), s.hc
            for k in range(len(s.held)):
                held = [z3.If(hc == index, self.fresh("drawn"), h) for index, h in enumerate(held)]
                hc = hc + 1
                states.append((_derived(s, hc=hc, held=held), env, path + [count >= k + 1]))
            return states
        if isinstance(stmt, ast.Discard) or isinstance(stmt, ast.Bury):
            if stmt.source is None:
                self.check(stmt, f"{name} held: a card is held", s.hc >= 1, s, path)
                held = [z3.If(s.hc >= 1, nxt, int_(NONE)) for nxt in s.held[1:]] + [int_(NONE)]
                return [(_derived(s, hc=s.hc - 1, held=held), env, path)]
            slot = t.expr(stmt.source, env)
            self.check(stmt, f"{name} {_text(stmt.source)}: the slot holds a card",
                       s.at(slot, s.card, int_(NONE)) != NONE, s, path, (stmt.source,))
            return [(_derived(s, card=_set(s, slot, int_(NONE))), env, path)]
        if isinstance(stmt, ast.Place):
            slot = t.expr(stmt.slot, env)
            free = z3.Or(z3.And(s.slot_exists(slot), s.at(slot, s.card, int_(NONE)) == NONE),
                         z3.And(slot.p >= 0, slot.p < s.np, slot.n == s.slot_count(slot.p) + 1))
            self.check(stmt, f"place held into {_text(stmt.slot)}: a card is held and the slot is free",
                       z3.And(s.hc >= 1, free), s, path, (stmt.slot,))
            card = _set(s, slot, s.held[0])
            held = [z3.If(s.hc >= 1, nxt, int_(NONE)) for nxt in s.held[1:]] + [int_(NONE)]
            return [(_derived(s, card=card, hc=s.hc - 1, held=held), env, path)]
        if isinstance(stmt, ast.Swap):
            a, b = t.expr(stmt.first, env), t.expr(stmt.second, env)
            self.check(stmt, f"swap {_text(stmt.first)} with {_text(stmt.second)}: both slots hold a card",
                       z3.And(s.at(a, s.card, int_(NONE)) != NONE, s.at(b, s.card, int_(NONE)) != NONE),
                       s, path, (stmt.first, stmt.second))
            ca, cb = s.at(a, s.card, int_(NONE)), s.at(b, s.card, int_(NONE))
            return [(_derived(s, card=_set(_derived(s, card=_set(s, a, cb)), b, ca)), env, path)]
        if isinstance(stmt, ast.Move):
            a, b = t.expr(stmt.source, env), t.expr(stmt.dest, env)
            self.check(stmt, f"move {_text(stmt.source)} to {_text(stmt.dest)}: a card to move",
                       s.at(a, s.card, int_(NONE)) != NONE, s, path, (stmt.source,))
            free = z3.Or(z3.And(s.slot_exists(b), s.at(b, s.card, int_(NONE)) == NONE),
                         z3.And(b.p >= 0, b.p < s.np, b.n == s.slot_count(b.p) + 1))
            self.check(stmt, f"move {_text(stmt.source)} to {_text(stmt.dest)}: the destination is free",
                       free, s, path, (stmt.dest,))
            ca = s.at(a, s.card, int_(NONE))
            return [(_derived(s, card=_set(_derived(s, card=_set(s, a, int_(NONE))), b, ca)), env, path)]
        if isinstance(stmt, ast.TakeTop):
            held = [z3.If(s.hc == k, self.fresh("top"), h) for k, h in enumerate(s.held)]
            self.check(stmt, "take top: the discard holds a card", s.ints["discard_size"] >= 1, s, path)
            return [(_derived(s, hc=s.hc + 1, held=held), env, path)]
        return [(s, env, path)]   # flip, shuffle, deal: the pile's cards, proved in part 1


def _reads_a_variable(expr) -> bool:
    """Whether an operand reads a spec variable (a value another move's handler may have set)."""
    return any(getattr(e, "ref", None) and e.ref[0] == "var" for e in ast.walk(expr))


def _set(s: Situation, slot: SlotV, value):
    # made with symbolic.py's builders: a slot known to be another cell leaves that cell's term
    # as it is (most of a table's cells, where the slot is named), and z3py's coercions go
    return [[if_(and_([eq_(slot.p, i), eq_(slot.n, j + 1)]), value, s.card[i][j]) for j in range(len(s.card[i]))]
            for i in range(len(s.card))]


def _text(expr) -> str:
    from baobei.dsl.unparse import expr as unparse
    return unparse(expr)


def handlers_read(checker) -> tuple:
    """What effects_keep_cards reads of the spec (answers.py): every move handler and procedure
    (a handler calls procedures), and the legality of each handled move with where it is asked.
    Not their places: a kept answer names each statement by its order (statement_names)."""
    spec = checker.spec
    bodies = [*spec.handlers.values(), *spec.procedures.values()]
    cone = checker.reads.of(*bodies)
    where = [f"{decl.kind} {decl.name}" for decl in bodies]
    for kind in spec.handlers:
        if spec.legality_rules(kind):
            cone.add(checker.reads.legal(kind))
            where.append(checker.move_where(kind))
    return cone, where


def statement_names(spec) -> dict[str, str]:
    """Each statement of the move handlers and procedures by its place: a name of it that holds no
    place ("on take, statement 3", in the order of the body). A kept effects answer names the
    statements so, and the report shows them at their places of now: a line added above a handler
    leaves the answer as it was."""
    return {str(stmt.loc): f"{decl.kind} {decl.name}, statement {number}"
            for decl in (*spec.handlers.values(), *spec.procedures.values())
            for number, stmt in enumerate(ast.walk_statements(decl.body), start=1)}


def renamed(result: dict, names: dict[str, str]) -> dict:
    """A result whose statement (its `where`: "on KIND: STATEMENT") is named by `names`."""
    move, said, statement = result["where"].partition(": ")
    return {**result, "where": move + said + names.get(statement, statement)} if said else result


def conserving_primitives(checker) -> list[EffectResult]:
    """primitives_conserve's results, kept apart in the answers: they depend on the number of
    card kinds alone, so every variant with the same cards reads them there."""
    kinds = len(checker.situation.ix.cards)
    key = key_of(code_version(), checker.timeout_ms, "primitives conserve cards", kinds)
    found = checker.answers.get(key)
    if found is not None:
        return [EffectResult(**result) for result in found["results"]]
    results = primitives_conserve(kinds, checker.timeout_ms)
    if all(result.status != "unknown" for result in results):
        checker.answers.keep(key, {"results": [result.__dict__ for result in results]})
    return results


def effects_keep_cards(checker) -> list[EffectResult]:
    results = conserving_primitives(checker)
    obligations = []
    for kind, handler in checker.spec.handlers.items():
        if not any(isinstance(s, MOVES_CARDS) or isinstance(s, (ast.CallProc, ast.If, ast.For))
                   for s in handler.body):
            continue
        if not checker.spec.legality_rules(kind):
            continue
        executor = Executor(checker, kind)
        executor.run(handler.body)
        obligations += executor.obligations
    # an operand set by an earlier move usually can fail here (it is checked in play): asked alone,
    # as a situation likely to exist (a small table first); the others together, as they usually
    # all hold
    answers = {}
    for index, obligation in enumerate(obligations):
        if obligation.set_before:
            answers[index] = checker.solve(obligation.query, obligation.label, likely=True)
    rest = [index for index in range(len(obligations)) if index not in answers]
    together = checker.solve_together([(obligations[index].query, obligations[index].label)
                                       for index in rest])
    answers.update(zip(rest, together))
    results += [obligation.result(checker, *answers[index]) for index, obligation in enumerate(obligations)]
    return _merge(results)


def _merge(results: list[EffectResult]) -> list[EffectResult]:
    """One result per use of a primitive: the worst of its paths."""
    order = {"violated": 0, "unknown": 1, "in play": 2, "proved": 3}
    merged: dict[tuple, EffectResult] = {}
    for result in results:
        key = (result.where, result.what)
        if key not in merged or order[result.status] < order[merged[key].status]:
            merged[key] = result
    return list(merged.values())


