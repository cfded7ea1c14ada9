"""Name resolution and type checking: nothing runs until every name is known and
every expression has a type. Errors name the file, line and column.
"""
from __future__ import annotations

import re
from pathlib import Path

from . import ast, schema
from .ast import BOOL, CARD, FAMILY, INT, NONE, PLAYER, POWER, SLOT, Type
from .errors import BaobeiError, Loc, SpecCitationError, SpecNameError, SpecTypeError
from .layers import Layered
from .model import Spec, rule_key, rule_keys

PRIMITIVE_TYPES = {"int", "bool", "player", "slot", "card", "family", "power", "reference"}


def resolve(layered: Layered, spec_dir: Path, errors: list[BaobeiError] | None = None) -> Spec:
    """The checked spec; the first error is raised. With a list of `errors`, each declaration's
    first error is collected there instead and the others are checked all the same (an editor
    shows them all); the spec is then only partly annotated."""
    spec = Spec(layers=layered.layers, spec_dir=str(spec_dir))
    ns = layered.namespace
    spec.families = dict(ns("family"))
    spec.cards = dict(ns("card"))
    spec.enums = dict(ns("enum"))
    for var in ns("var").values():
        (spec.player_vars if var.per_player else spec.vars)[var.name] = var
    spec.defines = dict(ns("define"))
    spec.decisions = dict(ns("decision"))
    spec.rules = dict(ns("rule"))
    spec.claims = dict(ns("claim"))
    spec.invariants = dict(ns("invariant"))
    spec.procedures = dict(ns("procedure"))
    spec.powers = dict(ns("power"))
    spec.handlers = dict(ns("on"))
    spec.precedences = dict(ns("precedence"))
    _Resolver(spec, errors).run()
    check_citations(spec, spec_dir / "rulebooks", errors)
    return spec


class _Broken(Exception):
    """Met a declaration whose error is already collected: nothing new to say."""


class _Scope:
    """Local names: parameters, quantifier and loop variables, lets."""

    def __init__(self, names: dict[str, Type] | None = None, parent: "_Scope | None" = None):
        self.names = dict(names or {})
        self.parent = parent

    def get(self, name: str) -> Type | None:
        scope = self
        while scope is not None:
            if name in scope.names:
                return scope.names[name]
            scope = scope.parent
        return None

    def child(self, names: dict[str, Type] | None = None) -> "_Scope":
        return _Scope(names, self)


class _Resolver:
    def __init__(self, spec: Spec, errors: list[BaobeiError] | None = None):
        self.spec = spec
        self.errors = errors          # None: the first error is raised
        self.broken: set[tuple[str, str]] = set()      # (kind, name) of declarations found wrong
        self.how = Type(schema.HOW_ENUM)
        self.define_types: dict[str, Type] = {}
        self.in_progress: set[str] = set()
        self.claim_context = False

    # -- entry ---------------------------------------------------------------------------
    def run(self) -> None:
        spec = self.spec
        if not self.attempt(self.check_how_enum):
            return          # every `as HOW` reads it: nothing else can be checked
        self.each(spec.enums.values(), self.check_enum_values)
        self.each(list(spec.vars.values()) + list(spec.defines.values()) + list(spec.decisions.values()),
                  self.check_declared_name)
        self.each(spec.cards.values(), self.check_card)
        self.each(list(spec.vars.values()) + list(spec.player_vars.values()), self.check_var)
        self.each(spec.decisions.values(), self.check_decision)
        self.each(spec.defines.values(), lambda define: self.define_type(define.name))
        self.each(spec.rules.values(), self.check_rule)
        self.each(spec.precedences.values(), self.check_precedence)
        self.each(list(spec.claims.values()) + list(spec.invariants.values()), self.check_claim)
        self.each(spec.procedures.values(), self.check_procedure)
        self.each(spec.powers.values(), self.check_power)
        self.each(spec.handlers.values(), self.check_handler)
        for problem in self.missing_requirements():
            self.report(problem)

    def each(self, decls, check) -> None:
        for decl in decls:
            self.attempt(check, decl)

    def attempt(self, check, *args) -> bool:
        """One declaration's check. Collecting errors, its first error is recorded and the next
        declaration is checked; one met only through a declaration already found wrong is not
        said again."""
        if self.errors is None:
            check(*args)
            return True
        try:
            check(*args)
            return True
        except _Broken:
            return False
        except RecursionError:
            decl = args[0] if args else None
            self.errors.append(SpecTypeError("nested too deeply to check", getattr(decl, "loc", None)))
        except BaobeiError as error:
            self.errors.append(error)
        if args and isinstance(args[0], ast.Decl):
            self.broken.add((args[0].kind, args[0].name))
        return False

    def report(self, error: BaobeiError) -> None:
        if self.errors is None:
            raise error
        self.errors.append(error)

    def is_broken(self, kind: str, name: str) -> None:
        if (kind, name) in self.broken:
            raise _Broken(name)

    def check_how_enum(self) -> None:
        if schema.HOW_ENUM not in self.spec.enums:
            raise SpecNameError("the spec must declare 'enum how = ...': how a card became visible",
                                Loc(self.spec.spec_dir))

    def check_enum_values(self, enum: ast.EnumDecl) -> None:
        """Every constant is one thing only where it matters."""
        spec = self.spec
        for value in enum.values:
            if value in spec.enum_of and spec.enum_of[value] != enum.name:
                raise SpecNameError(f"'{value}' is a value of both enum '{spec.enum_of[value]}' and "
                                    f"enum '{enum.name}'", enum.loc)
            clash = self.clash(value, skip="enum")
            if clash:
                raise SpecNameError(f"enum value '{value}' is also {clash}", enum.loc)
            spec.enum_of[value] = enum.name

    def check_declared_name(self, decl: ast.Decl) -> None:
        name = decl.name
        if name in schema.GLOBALS:
            raise SpecNameError(f"'{name}' is a name the machinery gives (the {schema.GLOBALS[name][1]})",
                                decl.loc)
        clash = self.clash(name, skip=decl.kind)
        if clash:
            raise SpecNameError(f"{decl.kind} '{name}' is also {clash}", decl.loc)

    def check_card(self, decl: ast.CardDecl) -> None:
        spec = self.spec
        if decl.family not in spec.families:
            raise SpecNameError(f"card '{decl.name}' names an unknown family '{decl.family}'", decl.loc,
                                notes=(_suggest(decl.family, spec.families),))
        if decl.power is not None and decl.power not in spec.powers:
            raise SpecNameError(f"card '{decl.name}' names an unknown power '{decl.power}'", decl.loc,
                                notes=(_suggest(decl.power, spec.powers),))

    def check_var(self, var: ast.VarDecl) -> None:
        self.check_type_name(var.type, var.loc)
        init_type = self.infer(var.init, _Scope(), expected=var.type)
        self.expect(init_type, var.type, var.init.loc, f"the initial value of '{var.name}'")

    def check_decision(self, decision: ast.DecisionDecl) -> None:
        for param in decision.params:
            self.check_type_name(param.type, param.loc)
        self.check_type_name(decision.type, decision.loc)

    def check_claim(self, item: ast.ClaimDecl | ast.InvariantDecl) -> None:
        self.require_sources(item)
        self.claim_context = True
        try:
            self.expect(self.infer(item.expr, _Scope()), BOOL, item.expr.loc, f"{item.kind} '{item.name}'")
        finally:
            self.claim_context = False

    def check_procedure(self, proc: ast.ProcedureDecl) -> None:
        for param in proc.params:
            self.check_type_name(param.type, param.loc)
        self.check_block(proc.body, _Scope({p.name: p.type for p in proc.params}))

    def check_power(self, power: ast.PowerDecl) -> None:
        if not power.body:
            raise SpecNameError(f"power '{power.name}' has no effect: its block is empty", power.loc,
                                notes=("a power asks its user for a move (ask user: look, skip) or acts",))
        self.check_block(power.body, _Scope())

    def check_handler(self, handler: ast.HandlerDecl) -> None:
        if handler.name not in schema.MOVE_KINDS:
            raise SpecNameError(f"'on {handler.name}': no such move; the moves are {', '.join(schema.MOVE_KINDS)}",
                                handler.loc)
        self.check_block(handler.body, _Scope())

    def clash(self, name: str, skip: str) -> str | None:
        spec = self.spec
        tables = [("card", spec.cards), ("family", spec.families), ("power", spec.powers),
                  ("var", spec.vars), ("define", spec.defines), ("decision", spec.decisions)]
        for kind, table in tables:
            if kind != skip and name in table and not (skip in ("card", "family", "power") and
                                                       kind in ("card", "family", "power")):
                return f"a {kind} (declared at {table[name].loc})"
        return None

    def missing_requirements(self):
        """What the scenario contract and the interpreter read and the spec does not declare."""
        spec = self.spec
        here = Loc(spec.spec_dir)
        for name, type_ in schema.REQUIRED_VARS.items():
            var = spec.vars.get(name)
            if var is None or var.type.name != type_.name:
                yield SpecNameError(f"the spec must declare 'var {name} : {type_}' (scenario files read it)", here)
        for name, type_ in schema.REQUIRED_PLAYER_VARS.items():
            var = spec.player_vars.get(name)
            if var is None or var.type.name != type_.name:
                yield SpecNameError(f"the spec must declare 'var player.{name} : {type_}' "
                                    f"(scenario files read it)", here)
        for name in schema.REQUIRED_PROCEDURES:
            if name not in spec.procedures:
                yield SpecNameError(f"the spec must declare 'procedure {name}' (the interpreter runs it)", here)
        for name, arity in schema.REQUIRED_DEFINES.items():
            define = spec.defines.get(name)
            if define is None or len(define.params) != arity:
                yield SpecNameError(f"the spec must declare 'define {name}' with {arity} parameter(s) "
                                    f"(scenario files read it)", here)
        for name in schema.REQUIRED_DECISIONS:
            if name not in spec.decisions:
                yield SpecNameError(f"the spec must declare 'decision {name}' (scenario files read it)", here)

    # -- rules -------------------------------------------------------------------------
    def require_sources(self, decl: ast.Decl) -> None:
        if not decl.sources:
            raise SpecNameError(f"{decl.kind} '{decl.name}' cites no rulebook passage",
                                decl.loc, notes=('add  cite fr "..."  or  cite de "..."  '
                                                 '(or  assumed "why"  where the texts are silent, '
                                                 'reading "why"  where they leave room)',))

    def check_rule(self, rule: ast.RuleDecl) -> None:
        self.require_sources(rule)
        body = rule.body
        scope = _Scope()
        if isinstance(body, ast.Verdict):
            for move in body.moves:
                if move not in schema.MOVE_KINDS:
                    raise SpecNameError(f"rule '{rule.name}' is about an unknown move '{move}'", body.loc,
                                        notes=(_suggest(move, schema.MOVE_KINDS),))
        elif isinstance(body, ast.Fire):
            if isinstance(body.role, ast.NoneLit):
                if rule.level != 0:
                    raise SpecTypeError("'fire none' is only for a default rule", body.loc)
            else:
                self.expect(self.infer(body.role, scope, expected=CARD), CARD, body.role.loc, "a fired role")
                self.expect(self.infer(body.user, scope, expected=PLAYER), PLAYER, body.user.loc,
                            "who plays a fired power")
        else:
            decision = self.spec.decisions.get(body.decision)
            if decision is None:
                raise SpecNameError(f"rule '{rule.name}' decides '{body.decision}', which no "
                                    f"'decision' declares", body.loc,
                                    notes=(_suggest(body.decision, self.spec.decisions),))
            if len(body.params) != len(decision.params):
                raise SpecTypeError(f"'{body.decision}' takes {len(decision.params)} parameter(s); "
                                    f"this rule names {len(body.params)}", body.loc)
            scope = _Scope({name: param.type for name, param in zip(body.params, decision.params)})
            self.expect(self.infer(body.value, scope, expected=decision.type), decision.type, body.value.loc,
                        f"the value of '{body.decision}'")
        if rule.when is not None:
            self.expect(self.infer(rule.when, scope), BOOL, rule.when.loc, f"the condition of '{rule.name}'")
        rule_key(rule)

    def check_precedence(self, decl: ast.PrecedenceDecl) -> None:
        self.require_sources(decl)
        rules = []
        for name in (decl.higher, decl.lower):
            rule = self.spec.rules.get(name)
            if rule is None:
                raise SpecNameError(f"precedence {decl.name}: no rule '{name}'", decl.loc,
                                    notes=(_suggest(name, self.spec.rules),))
            rules.append(rule)
        higher, lower = rules
        if higher is lower:
            raise SpecTypeError(f"precedence {decl.name}: a rule over itself", decl.loc)
        if higher.level != lower.level:
            raise SpecTypeError(f"precedence {decl.name}: {higher.name} is a {higher.level_name} and "
                                f"{lower.name} a {lower.level_name}; their levels already say which decides",
                                decl.loc)
        if not set(rule_keys(higher)) & set(rule_keys(lower)):
            raise SpecTypeError(f"precedence {decl.name}: the two rules do not decide the same thing", decl.loc)
        if self.spec.preferred(lower, higher):
            raise SpecTypeError(f"precedence {decl.name}: the precedences go round in a circle", decl.loc)

    def define_type(self, name: str) -> Type:
        if name in self.define_types:
            return self.define_types[name]
        define = self.spec.defines[name]
        self.is_broken("define", name)
        if name in self.in_progress:
            raise SpecTypeError(f"'{name}' is defined in terms of itself", define.loc)
        self.in_progress.add(name)
        try:
            for param in define.params:
                self.check_type_name(param.type, param.loc)
            type_ = self.infer(define.body, _Scope({p.name: p.type for p in define.params}))
        except (BaobeiError, _Broken):
            if self.errors is not None:     # collecting: what reads this definition says nothing more
                self.broken.add(("define", name))
                self.in_progress.discard(name)
            raise
        self.in_progress.discard(name)
        self.define_types[name] = type_
        return type_

    # -- types ----------------------------------------------------------------------------
    def check_type_name(self, type_: Type, loc: Loc) -> None:
        if type_.name == "list":
            self.check_type_name(type_.elem, loc)
        elif type_.name not in PRIMITIVE_TYPES and type_.name not in self.spec.enums:
            raise SpecNameError(f"unknown type '{type_.name}'", loc,
                                notes=(_suggest(type_.name, PRIMITIVE_TYPES | set(self.spec.enums)),))

    @staticmethod
    def compatible(actual: Type, wanted: Type) -> bool:
        if actual == wanted:
            return True
        if actual == NONE and wanted.nullable:
            return True
        return False

    def expect(self, actual: Type, wanted: Type, loc: Loc, what: str) -> None:
        if not self.compatible(actual, wanted):
            raise SpecTypeError(f"{what} should be {_a(wanted)}, not {_a(actual)}", loc)

    def attr_table(self, type_: Type) -> dict[str, Type]:
        table = dict(schema.attributes(type_.name, self.how))
        if type_.name == "player":
            for name, var in self.spec.player_vars.items():
                table[name] = var.type
        return table

    # -- expressions ------------------------------------------------------------------------
    def infer(self, expr: ast.Expr, scope: _Scope, expected: Type | None = None) -> Type:
        type_ = self._infer(expr, scope, expected)
        expr.type = type_
        return type_

    def _infer(self, expr: ast.Expr, scope: _Scope, expected: Type | None) -> Type:
        if isinstance(expr, ast.IntLit):
            return INT
        if isinstance(expr, ast.BoolLit):
            return BOOL
        if isinstance(expr, ast.NoneLit):
            return NONE
        if isinstance(expr, ast.Name):
            return self.name_type(expr, scope, expected)
        if isinstance(expr, ast.Attr):
            obj = self.infer(expr.obj, scope)
            table = self.attr_table(obj)
            if expr.name not in table:
                raise SpecNameError(f"{_a(obj)} has no attribute '{expr.name}'", expr.loc,
                                    notes=(_suggest(expr.name, table),) if table else ())
            return table[expr.name]
        if isinstance(expr, ast.Call):
            return self.call_type(expr, scope)
        if isinstance(expr, ast.Unary):
            wanted = BOOL if expr.op == "not" else INT
            self.expect(self.infer(expr.operand, scope, wanted), wanted, expr.operand.loc,
                        f"the operand of '{'not' if expr.op == 'not' else '-'}'")
            return wanted
        if isinstance(expr, ast.Binary):
            return self.binary_type(expr, scope)
        if isinstance(expr, ast.SetLit):
            raise SpecTypeError("a set {a, b} is only allowed on the right of 'in'", expr.loc)
        if isinstance(expr, ast.Quant):
            domain = self.infer(expr.domain, scope)
            if domain.name != "list":
                raise SpecTypeError(f"'{expr.kind} {expr.var} in ...' needs a list (players, targets, "
                                    f"p.slots, ...), not {_a(domain)}", expr.domain.loc)
            inner = scope.child({expr.var: domain.elem})
            if expr.kind == "sum":
                self.expect(self.infer(expr.body, inner, INT), INT, expr.body.loc, "the body of 'sum'")
                return INT
            self.expect(self.infer(expr.body, inner, BOOL), BOOL, expr.body.loc, f"the body of '{expr.kind}'")
            return {"all": BOOL, "any": BOOL, "count": INT, "first": domain.elem}[expr.kind]
        if isinstance(expr, ast.IfExpr):
            self.expect(self.infer(expr.cond, scope, BOOL), BOOL, expr.cond.loc, "the condition of 'if'")
            then = self.infer(expr.then, scope, expected)
            other = self.infer(expr.other, scope, expected if then == NONE else then)
            if self.compatible(then, other):
                return other
            if self.compatible(other, then):
                return then
            raise SpecTypeError(f"the two branches of 'if' differ: {_a(then)} and {_a(other)}", expr.loc)
        raise SpecTypeError(f"unexpected expression {type(expr).__name__}", expr.loc)  # pragma: no cover

    def name_type(self, expr: ast.Name, scope: _Scope, expected: Type | None) -> Type:
        spec, name = self.spec, expr.name
        local = scope.get(name)
        if local is not None:
            expr.ref = ("local", name)
            return local
        if name in spec.vars:
            self.is_broken("var", name)
            expr.ref = ("var", name)
            return spec.vars[name].type
        if name in spec.defines:
            if spec.defines[name].params:
                raise SpecTypeError(f"'{name}' takes parameters: write {name}(...)", expr.loc)
            expr.ref = ("define", name)
            return self.define_type(name)
        if name in spec.decisions:
            self.is_broken("decision", name)
            if spec.decisions[name].params:
                raise SpecTypeError(f"'{name}' takes parameters: write {name}(...)", expr.loc)
            expr.ref = ("decision", name)
            return spec.decisions[name].type
        if name in schema.GLOBALS:
            expr.ref = ("global", name)
            return schema.GLOBALS[name][0]
        candidates: list[Type] = []
        if name in spec.enum_of:
            candidates.append(Type(spec.enum_of[name]))
        if name in spec.cards:
            candidates.append(CARD)
        if name in spec.families:
            candidates.append(FAMILY)
        if name in spec.powers:
            candidates.append(POWER)
        if not candidates:
            known = set(scope.names) | set(spec.vars) | set(spec.defines) | set(schema.GLOBALS) | \
                set(spec.enum_of) | set(spec.cards) | set(spec.families) | set(spec.powers)
            raise SpecNameError(f"unknown name '{name}'", expr.loc, notes=(_suggest(name, known),))
        if len(candidates) > 1:
            if expected is not None and expected in candidates:
                candidates = [expected]
            else:
                kinds = " or ".join(str(c) for c in candidates)
                raise SpecTypeError(f"'{name}' could be a {kinds}; compare it with something of a known type",
                                    expr.loc)
        expr.ref = ("const", candidates[0].name)
        return candidates[0]

    def call_type(self, expr: ast.Call, scope: _Scope) -> Type:
        spec, name = self.spec, expr.name
        if name in schema.CLAIM_FUNCTIONS:
            if not self.claim_context:
                raise SpecTypeError(f"'{name}(...)' may only be used in claims and invariants", expr.loc)
            if name == "effects_keep_cards":
                if expr.args:
                    raise SpecTypeError("'effects_keep_cards()' takes no argument", expr.loc)
                expr.ref = ("effects", None)
                return BOOL
            if len(expr.args) != 1:
                raise SpecTypeError(f"'{name}' takes one argument", expr.loc)
            if name == "legal":
                arg = expr.args[0]
                if not isinstance(arg, ast.Name) or arg.name not in schema.MOVE_KINDS:
                    raise SpecTypeError("legal(...) takes a move, e.g. legal(pluck)", expr.loc)
                expr.ref = ("legal", arg.name)
            else:
                self.expect(self.infer(expr.args[0], scope, CARD), CARD, expr.args[0].loc, "a fired role")
                expr.ref = ("fires", None)
            return BOOL
        if name in spec.defines:
            define = spec.defines[name]
            self.check_args(expr, [p.type for p in define.params], scope)
            expr.ref = ("define", name)
            return self.define_type(name)
        if name in spec.decisions:
            self.is_broken("decision", name)
            decision = spec.decisions[name]
            self.check_args(expr, [p.type for p in decision.params], scope)
            expr.ref = ("decision", name)
            return decision.type
        if name in schema.FUNCTIONS:
            params, result = schema.FUNCTIONS[name]
            if len(expr.args) != len(params):
                raise SpecTypeError(f"'{name}' takes {len(params)} argument(s), not {len(expr.args)}", expr.loc)
            for arg, param in zip(expr.args, params):
                actual = self.infer(arg, scope, param)
                if param is None:
                    if actual.name != "list":
                        raise SpecTypeError(f"'{name}' takes a list, not {_a(actual)}", arg.loc)
                else:
                    self.expect(actual, param, arg.loc, f"the argument of '{name}'")
            expr.ref = ("builtin", name)
            return result
        known = set(spec.defines) | set(spec.decisions) | set(schema.FUNCTIONS)
        raise SpecNameError(f"unknown function '{name}'", expr.loc, notes=(_suggest(name, known),))

    def check_args(self, expr: ast.Call, types: list[Type], scope: _Scope) -> None:
        if len(expr.args) != len(types):
            raise SpecTypeError(f"'{expr.name}' takes {len(types)} argument(s), not {len(expr.args)}", expr.loc)
        for arg, type_ in zip(expr.args, types):
            self.expect(self.infer(arg, scope, type_), type_, arg.loc, f"an argument of '{expr.name}'")

    def binary_type(self, expr: ast.Binary, scope: _Scope) -> Type:
        op = expr.op
        if op in ("and", "or", "implies"):
            for side in (expr.left, expr.right):
                self.expect(self.infer(side, scope, BOOL), BOOL, side.loc, f"each side of '{op}'")
            return BOOL
        if op in ("+", "-", "*", "<", "<=", ">", ">="):
            for side in (expr.left, expr.right):
                self.expect(self.infer(side, scope, INT), INT, side.loc, f"each side of '{op}'")
            return INT if op in "+-*" else BOOL
        if op in ("==", "!="):
            left, right = self.infer_pair(expr.left, expr.right, scope)
            if not (self.compatible(left, right) or self.compatible(right, left)):
                raise SpecTypeError(f"'{op}' compares {_a(left)} with {_a(right)}", expr.loc)
            return BOOL
        if op == "in":
            if isinstance(expr.right, ast.SetLit):
                left = self.infer(expr.left, scope)
                for item in expr.right.items:
                    self.expect(self.infer(item, scope, left), left, item.loc, "a member of the set")
                expr.right.type = Type("list", left)
                return BOOL
            right = self.infer(expr.right, scope)
            if right.name != "list":
                raise SpecTypeError(f"'in' needs a list or a set {{a, b}} on its right, not {_a(right)}",
                                    expr.right.loc)
            self.expect(self.infer(expr.left, scope, right.elem), right.elem, expr.left.loc,
                        "the left side of 'in'")
            return BOOL
        raise SpecTypeError(f"unknown operator '{op}'", expr.loc)  # pragma: no cover

    def infer_pair(self, left: ast.Expr, right: ast.Expr, scope: _Scope) -> tuple[Type, Type]:
        """Infer two compared sides; an ambiguous constant takes the other side's type."""
        try:
            left_type = self.infer(left, scope)
        except SpecTypeError:
            right_type = self.infer(right, scope)
            return self.infer(left, scope, right_type), right_type
        return left_type, self.infer(right, scope, left_type)

    # -- statements ---------------------------------------------------------------------------
    def check_block(self, body: list[ast.Stmt], scope: _Scope) -> None:
        for stmt in body:
            self.check_stmt(stmt, scope)

    def player(self, expr: ast.Expr, scope: _Scope, what: str) -> None:
        self.expect(self.infer(expr, scope, PLAYER), PLAYER, expr.loc, what)

    def slot(self, expr: ast.Expr, scope: _Scope, what: str) -> None:
        self.expect(self.infer(expr, scope, SLOT), SLOT, expr.loc, what)

    def how_value(self, how: str | None, loc: Loc) -> None:
        if how is not None and how not in self.spec.enums[schema.HOW_ENUM].values:
            raise SpecNameError(f"'as {how}': not a value of enum how", loc,
                                notes=(_suggest(how, self.spec.enums[schema.HOW_ENUM].values),))

    def viewer(self, viewer, scope: _Scope) -> None:
        if not isinstance(viewer, str):
            self.player(viewer, scope, "who sees the card")

    def check_stmt(self, stmt: ast.Stmt, scope: _Scope) -> None:
        spec = self.spec
        if isinstance(stmt, ast.Ask):
            for asked in stmt.asked:
                if asked.asker is not None:
                    self.player(asked.asker, scope, "who is asked")
                for kind in asked.kinds:
                    if kind not in schema.MOVE_KINDS:
                        raise SpecNameError(f"'ask': unknown move '{kind}'", stmt.loc,
                                            notes=(_suggest(kind, schema.MOVE_KINDS),))
        elif isinstance(stmt, ast.If):
            for cond, body in stmt.branches:
                self.expect(self.infer(cond, scope, BOOL), BOOL, cond.loc, "the condition of 'if'")
                self.check_block(body, scope.child())
            self.check_block(stmt.otherwise, scope.child())
        elif isinstance(stmt, ast.For):
            domain = self.infer(stmt.domain, scope)
            if domain.name != "list":
                raise SpecTypeError(f"'for {stmt.var} in ...' needs a list, not {_a(domain)}", stmt.domain.loc)
            self.check_block(stmt.body, scope.child({stmt.var: domain.elem}))
        elif isinstance(stmt, ast.While):
            self.expect(self.infer(stmt.cond, scope, BOOL), BOOL, stmt.cond.loc, "the condition of 'while'")
            self.check_block(stmt.body, scope.child())
        elif isinstance(stmt, ast.Set):
            self.check_set(stmt, scope)
        elif isinstance(stmt, ast.Let):
            scope.names[stmt.name] = self.infer(stmt.value, scope)
        elif isinstance(stmt, ast.CallProc):
            proc = spec.procedures.get(stmt.name)
            if proc is None:
                raise SpecNameError(f"unknown procedure '{stmt.name}'", stmt.loc,
                                    notes=(_suggest(stmt.name, spec.procedures),))
            if len(stmt.args) != len(proc.params):
                raise SpecTypeError(f"procedure '{stmt.name}' takes {len(proc.params)} argument(s)", stmt.loc)
            for arg, param in zip(stmt.args, proc.params):
                self.expect(self.infer(arg, scope, param.type), param.type, arg.loc,
                            f"an argument of '{stmt.name}'")
        elif isinstance(stmt, ast.Draw):
            self.expect(self.infer(stmt.count, scope, INT), INT, stmt.count.loc, "how many cards to draw")
            self.player(stmt.player, scope, "who draws")
            self.how_value(stmt.how, stmt.loc)
        elif isinstance(stmt, ast.Flip):
            self.how_value(stmt.how, stmt.loc)
        elif isinstance(stmt, ast.Discard):
            if stmt.source is not None:
                self.slot(stmt.source, scope, "what is discarded")
            self.how_value(stmt.how, stmt.loc)
        elif isinstance(stmt, ast.Bury):
            if stmt.source is not None:
                self.slot(stmt.source, scope, "what is put under the discard")
        elif isinstance(stmt, ast.Place):
            self.slot(stmt.slot, scope, "where the card goes")
            self.viewer(stmt.viewer, scope)
        elif isinstance(stmt, ast.Swap):
            self.slot(stmt.first, scope, "a swapped slot")
            self.slot(stmt.second, scope, "a swapped slot")
        elif isinstance(stmt, ast.Move):
            self.slot(stmt.source, scope, "where the card comes from")
            self.slot(stmt.dest, scope, "where the card goes")
        elif isinstance(stmt, ast.Reveal):
            self.slot(stmt.slot, scope, "the revealed slot")
            self.viewer(stmt.viewer, scope)
            self.how_value(stmt.how, stmt.loc)
        elif isinstance(stmt, ast.Deal):
            self.expect(self.infer(stmt.count, scope, INT), INT, stmt.count.loc, "how many cards to deal")
        # ResolvePowers, TakeTop, CloseReference, Shuffle: nothing to check

    def check_set(self, stmt: ast.Set, scope: _Scope) -> None:
        spec = self.spec
        if stmt.owner is not None:
            self.player(stmt.owner, scope, "whose variable is set")
            var = spec.player_vars.get(stmt.target)
            if var is None:
                raise SpecNameError(f"no player variable '{stmt.target}' (declare 'var player.{stmt.target}')",
                                    stmt.loc, notes=(_suggest(stmt.target, spec.player_vars),))
            wanted = var.type
        elif stmt.target in spec.vars:
            wanted = spec.vars[stmt.target].type
        elif stmt.target in schema.SETTABLE_GLOBALS:
            wanted = schema.GLOBALS[stmt.target][0]
        else:
            raise SpecNameError(f"'set {stmt.target}': not a variable", stmt.loc,
                                notes=(_suggest(stmt.target, set(spec.vars) | schema.SETTABLE_GLOBALS),))
        self.expect(self.infer(stmt.value, scope, wanted), wanted, stmt.value.loc, f"the value of '{stmt.target}'")


# ---- citations -----------------------------------------------------------------------------

def normalise_quotation(text: str) -> str:
    """A rulebook text or a quotation as they are compared: apostrophes, spaces and line breaks alike."""
    text = text.replace("’", "'").replace("\u00a0", " ").replace("\u202f", " ")
    return re.sub(r"\s+", " ", text).strip()


def check_citations(spec: Spec, rulebooks: Path, errors: list[BaobeiError] | None = None) -> None:
    """Every quoted passage must appear in the rulebook it cites (the first that does not is
    raised, or each is collected in `errors`)."""
    books: dict[str, str] = {}
    for decl in _cited(spec):
        for source in decl.sources:
            if not isinstance(source, ast.Cite):
                continue
            problem = _citation_problem(source, rulebooks, books)
            if problem is not None and errors is None:
                raise problem
            if problem is not None:
                errors.append(problem)


def _citation_problem(source: ast.Cite, rulebooks: Path, books: dict[str, str]) -> SpecCitationError | None:
    if source.edition not in books:
        path = rulebooks / f"{source.edition}.txt"
        if not path.is_file():
            return SpecCitationError(f"cites rulebook '{source.edition}', but there is no {path}", source.loc)
        books[source.edition] = normalise_quotation(path.read_text(encoding="utf-8"))
    if normalise_quotation(source.text) not in books[source.edition]:
        return SpecCitationError(f"this passage is not in the {source.edition} rulebook "
                                 f"({rulebooks / (source.edition + '.txt')})", source.loc)
    return None


def _cited(spec: Spec):
    for table in (spec.families, spec.cards, spec.enums, spec.vars, spec.player_vars, spec.defines, spec.decisions,
                  spec.rules, spec.claims, spec.invariants, spec.procedures, spec.powers, spec.handlers,
                  spec.precedences):
        yield from table.values()


# ---- messages ------------------------------------------------------------------------------

def _a(type_: Type) -> str:
    text = str(type_)
    if text == "none":
        return "none"
    return ("an " if text[0] in "aeiou" else "a ") + text


def _suggest(name: str, known) -> str:
    import difflib
    close = difflib.get_close_matches(name, sorted(known), n=3)
    if close:
        return "did you mean " + " or ".join(f"'{c}'" for c in close) + "?"
    return "known: " + ", ".join(sorted(known)[:12]) + (" ..." if len(known) > 12 else "")
