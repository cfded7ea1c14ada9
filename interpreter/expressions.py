"""The rules' expressions as Python source: statements to run first, then a value.

One compiler for every expression of the spec, wherever the generated module needs
it: rule conditions, definitions, decisions, procedure statements. Its meaning is
the checker's (checker/translate.py): total, side-effect free, none for a missing
value (0, false or the empty list for ints, bools and lists).

Quantifiers become plain loops (much faster than generator expressions), so an
expression compiles to `Code`: lines that compute temporaries, then an expression.
`and`, `or`, `implies` and `if` keep their short-circuit: the lines of a later
operand run only where Python would have evaluated it. Definitions and decisions
are expanded where they are used, with what the caller knows about its values (a
slot whose card is already in a local, a player that cannot be none), so a rule
condition reads the state directly, with no helper call per read.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from baobei.dsl import ast
from baobei.dsl.errors import SpecTypeError
from baobei.dsl.model import Spec, expr_text

DEFAULTS = {"int": "0", "bool": "False", "list": "()"}


def default_of(type_: ast.Type) -> str:
    """The Python value of a type's missing value."""
    return DEFAULTS.get(type_.name, "None")


@dataclass(frozen=True)
class View:
    """A value in generated code and what is known about it where it is read."""

    code: str                   # a Python expression
    none: bool = True           # it may be none
    new: bool = False           # a slot that may be a layout's next new slot (not in the layout yet)
    card: str | None = None     # a slot's Card object (or None when empty), when a local already holds it
    owner: str | None = None    # a slot's owner, when a local already holds it
    size: str | None = None     # the length of a (maybe new) slot's layout, when a local holds it
    canonical: bool = False     # a slot value taken from a layout's own list of them: the same
                                # slot is the same object, so `is` compares it


@dataclass
class Code:
    lines: list[str]
    value: str


@dataclass
class Env:
    """How the names of one piece of generated code read."""

    names: dict[str, View] = field(default_factory=dict)      # locals: parameters, lets, loop variables
    context: dict[str, View] = field(default_factory=dict)    # actor, user, power, chosen, target, second, targets
    targets: list[View] | None = None    # the move's targets one by one, when their number is known here
    ctx: str | None = "C"                # the Ctx object, for legal(...) and fires(...)
    placeholders: bool = True            # whether the move's targets may hold the placeholder `_` (none)

    def bind(self, name: str, view: View) -> "Env":
        return replace(self, names={**self.names, name: view})


def context_of(ctx: str, new_slot: bool = True, move: bool = False) -> dict[str, View]:
    """The move context read from a Ctx object named `ctx` (a handler, a procedure, lambda_);
    `new_slot`: whether its targets may be a layout's next new slot (the move's kind says);
    `move`: it is a move's (a handler's), whose actor is a player, never none."""
    slot = dict(none=True, new=new_slot)
    return {"actor": View(f"{ctx}.actor", none=not move), "user": View(f"{ctx}.user"), "power": View(f"{ctx}.power"),
            "chosen": View(f"{ctx}.chosen"), "target": View(f"{ctx}.target", **slot),
            "second": View(f"{ctx}.second", **slot), "targets": View(f"{ctx}.targets", none=False)}


STATE_GLOBALS = {
    "players": View("S.players", none=False), "order": View("S.order", none=False),
    "slots": View("S.all_slots()", none=False), "active": View("S.active", none=False),
    "held": View("S.held_kinds()", none=False), "reference": View("S.ref", none=False),
    "turn": View("S.turn", none=False), "sequence": View("S.sequence", none=False),
    "deck_size": View("len(S.deck)", none=False), "discard_size": View("len(S.discard)", none=False),
    "discard_top": View("(S.discard[-1].kind if S.discard else None)"),
    "under_size": View("len(S.under)", none=False), "threshold": View("S.threshold", none=False),
    "edition_deal": View("S.edition_deal", none=False), "tiebreak": View("S.tiebreak", none=False),
    "lot": View("S.lot"),
}
# What a missing slot, card or reference reads as, per attribute.
SLOT_DEFAULTS = {"owner": "None", "number": "0", "card": "None", "moved_turn": "-1", "moved_sequence": "-1",
                 "moved_by": "None"}
CARD_DEFAULTS = {"value": "0", "family": "None", "power": "None"}
REF_DEFAULTS = {"card": "None", "how": "None", "by": "None", "open": "False"}


def _simple(code: str) -> bool:
    """Code that may be repeated without computing anything twice: a name or a literal."""
    return code.isidentifier() or code in ("None", "True", "False") or code.lstrip("-").isdigit() or \
        (code.startswith("'") and code.endswith("'"))


def indent(lines: list[str], by: str = "    ") -> list[str]:
    return [by + line for line in lines]


class Compiler:
    """Compiles expressions of one spec. `fresh` names temporaries; `reset` starts a new function."""

    def __init__(self, spec: Spec, fire_roles: dict[str, str] | None = None):
        self.spec = spec
        self.fire_roles = fire_roles or {}      # role text -> the generated function that fires it
        self.count = 0
        self.expanding: list[str] = []          # definitions being expanded (a cycle is an error)

    def reset(self) -> None:
        self.count = 0

    def fresh(self, stem: str = "_t") -> str:
        self.count += 1
        return f"{stem}{self.count}"

    def once(self, code: str, lines: list[str]) -> str:
        """A name for the value of `code`: itself when simple, else a temporary assigned in `lines`."""
        if _simple(code):
            return code
        name = self.fresh()
        lines.append(f"{name} = {code}")
        return name

    # ---- entry points ----------------------------------------------------------------------
    def expr(self, expr: ast.Expr, env: Env) -> Code:
        lines: list[str] = []
        view = self.view(expr, env, lines)
        return Code(lines, view.code)

    def view(self, expr: ast.Expr, env: Env, lines: list[str]) -> View:
        """The value of expr; the statements it needs first are appended to `lines`."""
        method = getattr(self, "x_" + type(expr).__name__)
        return method(expr, env, lines)

    def value(self, expr: ast.Expr, env: Env, lines: list[str]) -> str:
        return self.view(expr, env, lines).code

    # ---- leaves ------------------------------------------------------------------------------
    def x_IntLit(self, expr, env, lines) -> View:
        return View(repr(expr.value), none=False)

    def x_BoolLit(self, expr, env, lines) -> View:
        return View(repr(expr.value), none=False)

    def x_NoneLit(self, expr, env, lines) -> View:
        return View("None")

    def x_Name(self, expr: ast.Name, env: Env, lines) -> View:
        kind, detail = expr.ref
        name = expr.name
        if kind == "local":
            return env.names[name]
        if kind == "var":
            decl = self.spec.vars[name]
            return View(f"S.v_{name}", none=decl.type.nullable, new=decl.type.name == "slot")
        if kind in ("define", "decision"):
            return self.expand(kind, name, [], env, lines, expr.loc)
        if kind == "global":
            if name in env.context:
                if name == "targets" and env.targets is not None:
                    return View("(" + "".join(t.code + ", " for t in env.targets) + ")", none=False)
                return env.context[name]
            return STATE_GLOBALS[name]
        if detail == "card":
            return View("K_" + name, none=False)
        return View(repr(name), none=False)   # enum values, families and powers are their names

    # ---- attributes ----------------------------------------------------------------------------
    def x_Attr(self, expr: ast.Attr, env: Env, lines) -> View:
        obj_type = expr.obj.type.name
        name = expr.name
        if obj_type == "slot":
            return self.slot_attr(self.view(expr.obj, env, lines), name)
        if obj_type == "card":
            obj = self.card_object(expr.obj, env, lines)
            return self.guarded(obj, f".{name}", CARD_DEFAULTS[name])
        if obj_type == "reference":
            return self.guarded(self.view(expr.obj, env, lines), f".{name}", REF_DEFAULTS[name])
        if obj_type == "player":
            player = self.view(expr.obj, env, lines)
            if name == "slots":
                return replace(self.guarded(player, ".places", "()"), none=False)
            if name == "position":
                return replace(self.guarded(player, ".index + 1", "0"), none=False)
            var = self.spec.player_vars[name]
            return self.guarded(player, f".v_{name}", default_of(var.type))
        raise TypeError(f"no attribute {name} on {obj_type}")  # pragma: no cover

    def guarded(self, obj: View, suffix: str, default: str) -> View:
        """obj<suffix>, or the default when obj is none."""
        if not obj.none:
            code = obj.code + suffix
            return View(f"({code})" if " " in suffix else code, none=default == "None")
        if _simple(obj.code):
            return View(f"({obj.code}{suffix} if {obj.code} is not None else {default})", none=default == "None")
        name = self.fresh()
        return View(f"({name}{suffix} if ({name} := {obj.code}) is not None else {default})",
                    none=default == "None")

    def card_object(self, expr: ast.Expr, env: Env, lines) -> View:
        """A card expression as an object with .value, .family and .power: for `s.card` the Card
        in the slot itself (it carries its kind's values), else the card id."""
        if isinstance(expr, ast.Attr) and expr.name == "card" and expr.obj.type.name == "slot":
            return self.slot_card(self.view(expr.obj, env, lines))
        return self.view(expr, env, lines)

    def slot_card(self, slot: View) -> View:
        """The Card object in a slot, or None."""
        if slot.card is not None:
            return View(slot.card)
        if slot.new:
            return View(f"slot_card({slot.code})")
        if slot.none:     # an existing slot, or none
            name = self.fresh()
            if _simple(slot.code):
                return View(f"({slot.code}[0].layout[{slot.code}[1] - 1] if {slot.code} is not None else None)")
            return View(f"({name}[0].layout[{name}[1] - 1] if ({name} := {slot.code}) is not None else None)")
        code = slot.code if _simple(slot.code) else None
        if code is None:
            name = self.fresh()
            return View(f"({name} := {slot.code})[0].layout[{name}[1] - 1]")
        return View(f"{code}[0].layout[{code}[1] - 1]")

    def slot_attr(self, slot: View, name: str) -> View:
        if slot.code == "None":     # no slot at all (a second target of a one-target move): none's reads
            value = SLOT_DEFAULTS.get(name, "False")
            return View(value, none=value == "None")
        if name == "owner" and slot.owner is not None:
            return View(slot.owner, none=False)
        if name in ("owner", "number"):
            index = "[0]" if name == "owner" else "[1]"
            return replace(self.guarded(slot, index, SLOT_DEFAULTS[name]), none=name == "owner" and slot.none)
        if name == "new":
            if not slot.new:
                return View("False", none=False)
            if slot.size is not None and not slot.none:
                return View(f"({slot.code}[1] > {slot.size})", none=False)
            if slot.none or not _simple(slot.code):
                return View(f"slot_new({slot.code})", none=False)
            return View(f"({slot.code}[1] > len({slot.code}[0].layout))", none=False)
        if name == "empty":
            if slot.new and slot.none or slot.new and not _simple(slot.code):
                return View(f"slot_empty({slot.code})", none=False)
            if slot.new:   # a layout's next new slot has no card and is not empty either
                card = self.slot_card(slot).code
                size = slot.size or f"len({slot.code}[0].layout)"
                return View(f"({card} is None and {slot.code}[1] <= {size})", none=False)
            card = self.slot_card(slot).code
            if slot.none:
                return View(f"({slot.code} is not None and {card} is None)", none=False)
            return View(f"({card} is None)", none=False)
        card = self.slot_card(slot)
        if name == "occupied":
            return View(f"({card.code} is not None)", none=False)
        if name == "card":
            return self.guarded(card, ".kind", "None")
        return self.guarded(card, f".{name}", SLOT_DEFAULTS[name])   # moved_turn, moved_sequence, moved_by

    # ---- calls -------------------------------------------------------------------------------------
    def x_Call(self, expr: ast.Call, env: Env, lines) -> View:
        kind, detail = expr.ref
        if kind in ("define", "decision"):
            return self.expand(kind, expr.name, expr.args, env, lines, expr.loc)
        if kind == "legal":
            return View(f"allows(LEGAL[{detail!r}](S, {env.ctx}))", none=False)
        if kind == "effects":
            # proved by the checker (checker/effects.py), checked in play by the invariants
            return View("True", none=False)
        if kind == "fires":
            function = self.fire_roles.get(expr_text(expr.args[0]))
            return View(f"fires({function}(S, {env.ctx}))" if function else "False", none=False)
        name = expr.name
        if name == "count":
            return View(self.count_of(expr.args[0], env, lines), none=False)
        views = [self.view(arg, env, lines) for arg in expr.args]
        args = [view.code for view in views]
        if name in ("min", "max"):
            return View(f"{name}({args[0]}, {args[1]})", none=False)
        if name == "next_player":    # clockwise: the next seat (State.next_player, written out)
            if not views[0].none:
                return View(f"S.players[({args[0]}.index + 1) % len(S.players)]", none=False)
            player = self.once(args[0], lines)
            return View(f"(S.players[({player}.index + 1) % len(S.players)] if {player} is not None else None)")
        return View(f"S.{name}({', '.join(args)})", none=False)   # changed_by_others

    def count_of(self, arg: ast.Expr, env: Env, lines) -> str:
        if isinstance(arg, ast.Name) and arg.ref == ("global", "targets") and env.targets is not None:
            return str(len(env.targets))
        if isinstance(arg, ast.Name) and arg.ref == ("global", "held"):
            return "len(S.held)"
        if isinstance(arg, ast.Attr) and arg.name == "slots":
            layout = self.guarded(self.view(arg.obj, env, lines), ".layout", "()")
            return f"len({layout.code})"
        return f"len({self.value(arg, env, lines)})"

    def expand(self, kind: str, name: str, args: list[ast.Expr], env: Env, lines, loc) -> View:
        """A definition or decision expanded here: its parameters bound to the arguments' values."""
        if name in self.expanding:
            raise SpecTypeError(f"'{name}' is defined in terms of itself", loc)
        decl = self.spec.defines[name] if kind == "define" else self.spec.decisions[name]
        values = [self.argument(arg, env, lines) for arg in args]
        params = [p.name for p in decl.params]
        inner = replace(env, names={})
        self.expanding.append(name)
        try:
            if kind == "define":
                return self.view(decl.body, replace(inner, names=dict(zip(params, values))), lines)
            return self.decide(name, values, inner, lines)
        finally:
            self.expanding.pop()

    def argument(self, arg: ast.Expr, env: Env, lines) -> View:
        view = self.view(arg, env, lines)
        if _simple(view.code):
            return view
        name = self.fresh()
        lines.append(f"{name} = {view.code}")
        return replace(view, code=name)

    def decide(self, name: str, values: list[View], env: Env, lines: list[str]) -> View:
        """A decision: its rules tried in first-match order (spec.first_match); none deciding is a
        gap, an error in play."""
        result = self.fresh()
        rules = self.spec.first_match(self.spec.value_rules(name))
        decl = self.spec.decisions[name]
        lines.append(f"# decision {name} ({decl.loc})")
        body = lines
        for rule in rules:
            scope = replace(env, names=dict(zip(rule.body.params, values)))
            test: list[str] = []
            cond = self.value(rule.when, scope, test) if rule.when is not None else "True"
            then: list[str] = []
            value = self.value(rule.body.value, scope, then)
            comment = f"# {rule.level_name} {rule.name} ({rule.loc})"
            if cond == "True":   # this rule always decides: the ones after it never do
                body += test + [comment] + then + [f"{result} = {value}"]
                break
            body += test
            body.append(f"if {cond}:  {comment}")
            body += indent(then + [f"{result} = {value}"])
            body.append("else:")
            nested: list = []
            body.append(nested)    # the else branch, indented when flattened below
            body = nested
        else:
            body.append(f"raise RuleRuntimeError(GAP_{name})")
        flattened = _flatten(lines)
        lines[:] = flattened
        return View(result, none=decl.type.nullable)

    # ---- operators ------------------------------------------------------------------------------------
    def x_Unary(self, expr: ast.Unary, env: Env, lines) -> View:
        inner = self.value(expr.operand, env, lines)
        return View(f"(not {inner})" if expr.op == "not" else f"(-{inner})", none=False)

    def x_Binary(self, expr: ast.Binary, env: Env, lines) -> View:
        op = expr.op
        if op in ("and", "or", "implies"):
            return self.logic(expr, env, lines)
        if op == "in":
            return self.membership(expr, env, lines)
        if op in (">", "<") and isinstance(expr.right if op == ">" else expr.left, ast.Quant) and \
                (expr.right if op == ">" else expr.left).kind == "count":
            return self.above_a_count(expr, env, lines)
        left = self.view(expr.left, env, lines)
        right = self.view(expr.right, env, lines)
        if op in ("==", "!="):
            if left.code == right.code and _simple(left.code):
                return View("True" if op == "==" else "False", none=False)
            types = {expr.left.type.name, expr.right.type.name}
            if left.code == "None" or right.code == "None" or "player" in types or \
                    (left.canonical and right.canonical):
                op = "is" if op == "==" else "is not"   # players (and listed slots) are the round's own objects
        return View(f"({left.code} {op} {right.code})", none=False)

    def above_a_count(self, expr: ast.Binary, env: Env, lines) -> View:
        """X > count ... (or count ... < X): a count is never negative, so the count is made only
        when X is above 0."""
        bound, counted = (expr.left, expr.right) if expr.op == ">" else (expr.right, expr.left)
        value = self.once(self.value(bound, env, lines), lines)
        later: list[str] = []
        count = self.value(counted, env, later)
        if not later:
            return View(f"({value} > {count})", none=False)
        result = self.fresh()
        lines.append(f"{result} = {value} > 0")
        lines.append(f"if {result}:")
        lines += indent(later + [f"{result} = {value} > {count}"])
        return View(result, none=False)

    def logic(self, expr: ast.Binary, env: Env, lines) -> View:
        left = self.value(expr.left, env, lines)
        if expr.op == "implies":
            left = f"(not {left})"
        later: list[str] = []
        right = self.value(expr.right, env, later)
        op = "and" if expr.op == "and" else "or"
        if not later:
            return View(f"({left} {op} {right})", none=False)
        result = self.fresh()
        lines.append(f"{result} = {left}")
        lines.append(f"if {'' if op == 'and' else 'not '}{result}:")
        lines += indent(later + [f"{result} = {right}"])
        return View(result, none=False)

    def membership(self, expr: ast.Binary, env: Env, lines) -> View:
        left = self.view(expr.left, env, lines)
        right = expr.right
        if isinstance(right, ast.SetLit):
            items = [self.value(item, env, lines) for item in right.items]
            if len(items) == 1:
                return View(f"({left.code} == {items[0]})", none=False)
            return View(f"({left.code} in ({', '.join(items)},))", none=False)
        if isinstance(right, ast.Name) and right.ref == ("global", "targets") and env.targets is not None:
            if not env.targets:
                return View("False", none=False)
            name = self.once(left.code, lines)
            return View("(" + " or ".join(f"{name} {'is' if left.canonical and t.canonical else '=='} {t.code}"
                                          for t in env.targets) + ")", none=False)
        return View(f"({left.code} in {self.value(right, env, lines)})", none=False)

    def x_IfExpr(self, expr: ast.IfExpr, env: Env, lines) -> View:
        cond = self.value(expr.cond, env, lines)
        then_lines: list[str] = []
        then = self.view(expr.then, env, then_lines)
        other_lines: list[str] = []
        other = self.view(expr.other, env, other_lines)
        nullable = then.none or other.none
        if not then_lines and not other_lines:
            return View(f"({then.code} if {cond} else {other.code})", none=nullable)
        result = self.fresh()
        lines.append(f"if {cond}:")
        lines += indent(then_lines + [f"{result} = {then.code}"])
        lines.append("else:")
        lines += indent(other_lines + [f"{result} = {other.code}"])
        return View(result, none=nullable)

    # ---- quantifiers -----------------------------------------------------------------------------------
    def x_Quant(self, expr: ast.Quant, env: Env, lines) -> View:
        domain = expr.domain
        if isinstance(domain, ast.Name) and domain.ref == ("global", "targets") and env.targets is not None:
            return self.unrolled(expr, env, lines)
        found = self.over_a_layout(expr, env, lines)
        if found is not None:
            return found
        result = self.fresh()
        start = {"all": "True", "any": "False", "count": "0", "sum": "0", "first": "None"}[expr.kind]
        lines.append(f"{result} = {start}")
        var = self.fresh("q")
        loops, element = self.loops(domain, var, env, lines)
        body_lines: list[str] = []
        body = self.value(expr.body, env.bind(expr.var, element), body_lines)
        stop = None
        if expr.kind == "all":
            step = [f"if not {body}:", f"    {result} = False", "    break"]
            stop = f"not {result}"
        elif expr.kind == "any":
            step = [f"if {body}:", f"    {result} = True", "    break"]
            stop = result
        elif expr.kind == "count":
            step = [f"if {body}:", f"    {result} += 1"]
        elif expr.kind == "sum":
            step = [f"{result} += {body}"]
        else:
            step = [f"if {body}:", f"    {result} = {element.code}", "    break"]
            stop = f"{result} is not None"
        inner = body_lines + step
        if len(loops) == 1:
            lines += [loops[0]] + indent(inner)
        else:   # all slots: a loop over the players, then over each one's slots
            tail = [f"if {stop}:", "    break"] if stop else []
            lines += [loops[0]] + indent([loops[1]] + indent(inner) + tail)
        none = expr.kind == "first"
        return View(result, none=none)

    def over_a_layout(self, expr: ast.Quant, env: Env, lines) -> View | None:
        """Whether or how many of a player's slots are occupied or empty, read from the layout as
        a whole (`None in layout`, `layout.count(None)`) rather than slot by slot."""
        domain, body = expr.domain, expr.body
        if not (isinstance(domain, ast.Attr) and domain.name == "slots" and domain.obj.type.name == "player"):
            return None
        negated = isinstance(body, ast.Unary) and body.op == "not"
        test = body.operand if negated else body
        if not (isinstance(test, ast.Attr) and test.name in ("occupied", "empty") and isinstance(test.obj, ast.Name)
                and test.obj.name == expr.var and test.obj.ref[0] == "local"):
            return None
        wants_card = (test.name == "occupied") != negated      # the slots counted hold a card
        layout = self.guarded(self.view(domain.obj, env, lines), ".layout", "()").code
        if expr.kind == "any":
            return View(f"(len({layout}) > {layout}.count(None))" if wants_card else f"(None in {layout})",
                        none=False)
        if expr.kind == "all":
            return View(f"(None not in {layout})" if wants_card else f"(len({layout}) == {layout}.count(None))",
                        none=False)
        if expr.kind == "count":
            return View(f"(len({layout}) - {layout}.count(None))" if wants_card else f"{layout}.count(None)",
                        none=False)
        return None

    def loops(self, domain: ast.Expr, var: str, env: Env, lines: list[str]):
        """The for-statements that run over a domain, and the view of its element."""
        if isinstance(domain, ast.Name) and domain.ref == ("global", "slots"):
            player = self.fresh("p")
            card = var + "_c"
            return ([f"for {player} in S.players:", f"for {var}, {card} in zip({player}.places, {player}.layout):"],
                    View(var, none=False, card=card, owner=player, canonical=True))
        if isinstance(domain, ast.Attr) and domain.name == "slots" and domain.obj.type.name == "player":
            player = self.view(domain.obj, env, lines)
            card = var + "_c"
            name = self.once(player.code, lines)
            source = f"zip({name}.places, {name}.layout)"
            if player.none:
                source += f" if {name} is not None else ()"
            return [f"for {var}, {card} in {source}:"], View(var, none=False, card=card, owner=name,
                                                                 canonical=True)
        elem = domain.type.elem.name
        source = self.value(domain, env, lines)
        if elem == "slot" and isinstance(domain, ast.Name) and domain.ref == ("global", "targets"):
            target = env.context.get("target")
            return [f"for {var} in {source}:"], View(var, none=env.placeholders, new=target is None or target.new)
        if elem == "slot":     # a list of slots that may hold a placeholder or a new slot
            return [f"for {var} in {source}:"], View(var, none=True, new=True)
        return [f"for {var} in {source}:"], View(var, none=elem not in ("player", "card", "int", "bool"))

    def unrolled(self, expr: ast.Quant, env: Env, lines) -> View:
        """A quantifier over the move's targets, one term per target."""
        terms = []
        for target in env.targets:
            term_lines: list[str] = []
            value = self.value(expr.body, env.bind(expr.var, target), term_lines)
            if term_lines:   # rare: keep the loop
                return self.x_Quant(expr, replace(env, targets=None), lines)
            terms.append((value, target))
        if expr.kind == "all":
            return View("(" + " and ".join(v for v, _ in terms) + ")" if terms else "True", none=False)
        if expr.kind == "any":
            return View("(" + " or ".join(v for v, _ in terms) + ")" if terms else "False", none=False)
        if expr.kind == "count":
            return View("(" + " + ".join(f"(1 if {v} else 0)" for v, _ in terms) + ")" if terms else "0",
                        none=False)
        if expr.kind == "sum":
            return View("(" + " + ".join(v for v, _ in terms) + ")" if terms else "0", none=False)
        code = "None"
        for value, target in reversed(terms):
            code = f"({target.code} if {value} else {code})"
        return View(code)


def _flatten(lines: list) -> list[str]:
    """Nested lists (the else branches of a decision) as indented lines."""
    out: list[str] = []
    for line in lines:
        if isinstance(line, list):
            out += indent(_flatten(line))
        else:
            out.append(line)
    return out
