"""The spec's expressions as Z3 terms over a symbolic situation.

The same syntax trees the interpreter compiles (interpreter/compile.py) are
translated here, with the same meaning: total, none where a value is missing,
first-match decisions with exceptions before rules before defaults.
"""
from __future__ import annotations

import itertools

import z3

from baobei.dsl import ast
from baobei.dsl.model import Spec, expr_text

from .symbolic import (NONE, ListV, RefV, Situation, SlotV, and_, arith_, eq_, if_, int_, ite, none_slot, not_, number,
                       or_)

_fresh = itertools.count()
_CARD_ATTRS: dict = {}        # id of a spec -> ({(card term id, attribute): (term, card)}, the spec)


class Translator:
    def __init__(self, spec: Spec, situation: Situation):
        self.spec = spec
        self.s = situation
        self.ix = situation.ix
        self._defines: dict[str, object] = {}
        self._card_attrs: dict = {}
        self._conditions: dict[int, object] = {}
        self._legal: dict[str, tuple] = {}
        self._calls: dict[tuple, tuple] = {}   # (what, name, argument key) -> (result, arguments)
        self.undefined: list = []           # fresh terms standing for "no rule decides"

    # -- values ---------------------------------------------------------------------------
    def expr(self, e: ast.Expr, env: dict | None = None):
        env = env or {}
        method = getattr(self, "e_" + type(e).__name__)
        return method(e, env)

    def e_IntLit(self, e, env):
        return int_(e.value)

    def e_BoolLit(self, e, env):
        return z3.BoolVal(e.value)

    def e_NoneLit(self, e, env):
        return None   # typed by the comparison that uses it

    def e_SetLit(self, e, env):  # pragma: no cover - only under `in`
        raise TypeError("set outside 'in'")

    def e_Name(self, e, env):
        kind, detail = e.ref
        s = self.s
        if kind == "local":
            return env[e.name]
        if kind == "var":
            return s.vars[e.name]
        if kind == "define":
            return self.define(e.name, [])
        if kind == "decision":
            return self.decision(e.name, [])
        if kind == "global":
            return self.global_(e.name)
        if detail == "card":
            return int_(self.ix.card[e.name])
        if detail == "family":
            return int_(self.ix.family[e.name])
        if detail == "power":
            return int_(self.ix.power[e.name])
        return int_(self.ix.enum_value[e.name])

    def global_(self, name: str):
        s = self.s
        simple = {"active": s.active, "actor": s.actor, "user": s.user, "chosen": s.chosen, "power": s.power,
                  "tiebreak": s.tiebreak, "lot": s.lot, "discard_top": s.top}
        if name in simple:
            return simple[name]
        if name in s.ints:
            return s.ints[name]
        if name == "players":
            return s.players()
        if name == "order":
            return s.order()
        if name == "slots":
            return s.all_slots()
        if name == "targets":
            return ListV([(s.tc > k, slot) for k, slot in enumerate(s.targets)])
        if name == "target":
            return s.targets[0]
        if name == "second":
            return s.targets[1]
        if name == "held":
            return ListV([(s.hc > k, card) for k, card in enumerate(s.held)])
        if name == "reference":
            return s.ref
        raise KeyError(name)

    def e_Attr(self, e, env):
        obj = self.expr(e.obj, env)
        type_name = e.obj.type.name
        name = e.name
        s = self.s
        if type_name == "slot":
            if obj is None:
                obj = none_slot()
            if name == "owner":
                return obj.p
            if name == "number":
                return obj.n
            card = s.at(obj, s.card, int_(NONE))
            if name == "card":
                return card
            if name == "occupied":
                return not_(eq_(card, NONE))
            if name == "empty":
                return and_([s.slot_exists(obj), eq_(card, NONE)])
            if name == "new":
                return z3.And(obj.p >= 0, obj.p < s.np, obj.n == s.slot_count(obj.p) + 1)
            table = {"moved_turn": (s.mturn, -1), "moved_sequence": (s.mseq, -1), "moved_by": (s.mby, NONE)}[name]
            return s.at(obj, table[0], int_(table[1]))
        if type_name == "card":
            return self.card_attr(obj if obj is not None else int_(NONE), name)
        if type_name == "reference":
            if obj is None:
                return {"card": int_(NONE), "how": int_(NONE), "by": int_(NONE),
                        "open": z3.BoolVal(False)}[name]
            return {"card": obj.card, "how": obj.how, "by": obj.by, "open": obj.open}[name]
        if type_name == "player":
            p = obj if obj is not None else int_(NONE)
            if name == "slots":
                return s.player_slots(p)
            if name == "position":
                return z3.If(p >= 0, p + 1, 0)
            decl = self.spec.player_vars[name]
            return s.player_var(name, p, self.default(decl.type))
        raise KeyError(f"{type_name}.{name}")

    def card_attr(self, card, name: str):
        """A card's value, family or power (remembered for the rules of this spec, with the card's
        term kept alive so that its id stays its own)."""
        memory = _CARD_ATTRS.setdefault(id(self.spec), ({}, self.spec))[0]
        key = (card.get_id(), name)
        if key not in memory:
            memory[key] = (self._card_attr(card, name), card)
        return memory[key][0]

    def _card_attr(self, card, name: str):
        def attribute(index: int) -> int:
            decl = self.spec.cards[self.ix.cards[index]]
            if name == "value":
                return decl.value
            if name == "family":
                return self.ix.family[decl.family]
            return self.ix.power[decl.power] if decl.power else NONE
        missing = 0 if name == "value" else NONE
        index = number(card)
        if index is not None:
            return int_(attribute(index) if 0 <= index < len(self.ix.cards) else missing)
        expr = int_(missing)
        for index in range(len(self.ix.cards)):
            expr = if_(eq_(card, index), int_(attribute(index)), expr)
        return expr

    def default(self, type_: ast.Type):
        if type_.name == "int":
            return int_(0)
        if type_.name == "bool":
            return z3.BoolVal(False)
        if type_.name == "slot":
            return none_slot()
        if type_.name == "reference":
            return RefV(int_(NONE), int_(NONE), int_(NONE), z3.BoolVal(False))
        return int_(NONE)

    def e_Call(self, e, env):
        kind, detail = e.ref
        if kind == "define":
            return self.define(e.name, [self.expr(a, env) for a in e.args])
        if kind == "decision":
            return self.decision(e.name, [self.expr(a, env) for a in e.args])
        if kind == "legal":
            return self.legal(detail)[0]
        if kind == "fires":
            return self.fires(expr_text(e.args[0]))
        if kind == "effects":
            raise TypeError("effects_keep_cards() is a claim of its own and cannot be combined")
        args = [self.expr(a, env) for a in e.args]
        if e.name == "count":
            return z3.Sum([z3.If(g, 1, 0) for g, _ in args[0].items]) if args[0].items else int_(0)
        if e.name == "min":
            return z3.If(args[0] <= args[1], args[0], args[1])
        if e.name == "max":
            return z3.If(args[0] >= args[1], args[0], args[1])
        if e.name == "next_player":
            p = args[0] if args[0] is not None else int_(NONE)
            return z3.If(p < 0, NONE, z3.If(p + 1 < self.s.np, p + 1, 0))
        if e.name == "changed_by_others":
            p = args[0] if args[0] is not None else int_(NONE)
            return z3.Or([z3.And(p == i, flag) for i, flag in enumerate(self.s.changed)])
        raise KeyError(e.name)

    def e_Unary(self, e, env):
        value = self.expr(e.operand, env)
        return not_(value) if e.op == "not" else -value

    def e_Binary(self, e, env):
        op = e.op
        if op in ("and", "or", "implies"):
            left, right = self.expr(e.left, env), self.expr(e.right, env)
            if op == "and":
                return and_([left, right])
            return or_([left if op == "or" else not_(left), right])
        if op == "in":
            left = self.expr(e.left, env)
            if isinstance(e.right, ast.SetLit):
                return or_([self.equal(left, self.expr(item, env), e.left.type) for item in e.right.items])
            right = self.expr(e.right, env)
            return or_([and_([g, self.equal(left, item, e.left.type)]) for g, item in right.items])
        left, right = self.expr(e.left, env), self.expr(e.right, env)
        if op in ("==", "!="):
            type_ = e.left.type if e.left.type.name != "none" else e.right.type
            same = self.equal(left, right, type_)
            return same if op == "==" else not_(same)
        return arith_(op, left, right)

    def equal(self, a, b, type_: ast.Type):
        if a is None and b is None:
            return z3.BoolVal(True)
        if type_.name == "slot":
            a = a if a is not None else none_slot()
            b = b if b is not None else none_slot()
            return and_([eq_(a.p, b.p), eq_(a.n, b.n)])
        if type_.name == "reference":
            a = a if a is not None else self.default(type_)
            b = b if b is not None else self.default(type_)
            return and_([eq_(a.card, b.card), eq_(a.how, b.how), eq_(a.by, b.by), a.open == b.open])
        a = a if a is not None else int_(NONE)
        b = b if b is not None else int_(NONE)
        return eq_(a, b)

    def e_Quant(self, e, env):
        domain = self.expr(e.domain, env)
        results = [(g, self.expr(e.body, {**env, e.var: item})) for g, item in domain.items]
        if domain.unsized is not None:
            results = [(unsized if self.s.leaves_alone_when_empty(e.kind, b, item) else g, b)
                       for (g, b), unsized, (_, item) in zip(results, domain.unsized, domain.items)]
        if e.kind == "all":
            return and_([or_([not_(g), b]) for g, b in results])
        if e.kind == "any":
            return or_([and_([g, b]) for g, b in results])
        if e.kind == "count":
            return z3.Sum([z3.If(z3.And(g, b), 1, 0) for g, b in results]) if results else int_(0)
        if e.kind == "sum":
            return z3.Sum([if_(g, b, int_(0)) for g, b in results]) if results else int_(0)
        found = self.default(e.type)
        for (g, b), (_, item) in reversed(list(zip(results, domain.items))):
            found = ite(and_([g, b]), item, found)
        return found

    def e_IfExpr(self, e, env):
        cond = self.expr(e.cond, env)
        then, other = self.expr(e.then, env), self.expr(e.other, env)
        if then is None:
            then = self.default(e.type)
        if other is None:
            other = self.default(e.type)
        return ite(cond, then, other)

    # -- definitions and decisions ----------------------------------------------------------
    def define(self, name: str, args: list):
        decl = self.spec.defines[name]
        if not decl.params:
            if name not in self._defines:
                self._defines[name] = self.expr(decl.body, {})
            return self._defines[name]
        return self._memo("define", name, args,
                          lambda: self.expr(decl.body, {p.name: a for p, a in zip(decl.params, args)}))

    def _memo(self, what: str, name: str, args: list, build):
        """A definition or decision applied to the same terms is the same term: translating it
        once keeps the formulas small (the arguments are kept alive with it, so ids stay valid)."""
        key = (what, name, tuple(_term_key(a) for a in args))
        if key not in self._calls:
            self._calls[key] = (build(), args)
        return self._calls[key][0]

    def rule_env(self, rule: ast.RuleDecl, args: list) -> dict:
        if isinstance(rule.body, ast.Value):
            return dict(zip(rule.body.params, args))
        return {}

    def condition(self, rule: ast.RuleDecl, args: list | None = None):
        if rule.when is None:
            return z3.BoolVal(True)
        if args:
            return self.expr(rule.when, self.rule_env(rule, args))
        key = id(rule)
        if key not in self._conditions:
            self._conditions[key] = self.expr(rule.when, {})
        return self._conditions[key]

    def decision(self, name: str, args: list):
        """The value of a decision: the first rule that applies, exceptions first."""
        return self._memo("decision", name, args, lambda: self._decision(name, args))

    def _decision(self, name: str, args: list):
        decl = self.spec.decisions[name]
        rules = self.spec.first_match(self.spec.value_rules(name))
        undefined = self._undefined(decl.type, name)
        value = undefined
        for rule in reversed(rules):
            result = self.expr(rule.body.value, self.rule_env(rule, args))
            if result is None:
                result = self.default(decl.type)
            value = ite(self.condition(rule, args), result, value)
        return value

    def decision_winner(self, name: str, args: list):
        """(index of the deciding rule or -1, the rules in order) of a decision."""
        return self._memo("winner", name, args, lambda: self._decision_winner(name, args))

    def _decision_winner(self, name: str, args: list):
        rules = self.spec.first_match(self.spec.value_rules(name))
        winner = int_(-1)
        for index in reversed(range(len(rules))):
            winner = if_(self.condition(rules[index], args), int_(index), winner)
        return winner, rules

    def _undefined(self, type_: ast.Type, name: str):
        term = self.s._fresh(f"undecided_{name}_{next(_fresh)}", type_)
        self.undefined.append(term)
        return term

    def legal(self, kind: str):
        """(legal, index of the deciding rule or -1, the rules in order) for the situation's move."""
        if kind not in self._legal:
            self._legal[kind] = self._legality(kind)
        return self._legal[kind]

    def _legality(self, kind: str):
        rules = self.spec.first_match(self.spec.legality_rules(kind))
        verdict, winner = z3.BoolVal(False), int_(-1)
        for index in reversed(range(len(rules))):
            cond = self.condition(rules[index])
            verdict = if_(cond, z3.BoolVal(rules[index].body.allow), verdict)
            winner = if_(cond, int_(index), winner)
        return verdict, winner, rules

    def fire(self, role: str):
        """(winner index or -1, rules) for a role: the first applicable fire rule, defaults last."""
        rules = self.spec.first_match([r for r in self.spec.fire_rules() if isinstance(r.body.role, ast.NoneLit)
                                       or expr_text(r.body.role) == role])
        winner = int_(-1)
        for index in reversed(range(len(rules))):
            winner = if_(self.condition(rules[index]), int_(index), winner)
        return winner, rules

    def fires(self, role: str):
        winner, rules = self.fire(role)
        return or_([eq_(winner, i) for i, r in enumerate(rules) if not isinstance(r.body.role, ast.NoneLit)])


def _term_key(value):
    """What identifies a translated value: Z3 ids of its terms (z3 terms overload ==)."""
    if value is None:
        return None
    if isinstance(value, z3.AstRef):
        return value.get_id()
    if isinstance(value, SlotV):
        return ("slot", _term_key(value.p), _term_key(value.n))
    if isinstance(value, RefV):
        return ("ref", _term_key(value.card), _term_key(value.how), _term_key(value.by), _term_key(value.open))
    if isinstance(value, ListV):
        return ("list",) + tuple((_term_key(g), _term_key(v)) for g, v in value.items)
    return ("python", id(value))
