"""The whole spec as one plain Python module: the rules the engine runs.

Every procedure, move handler and power becomes a function; one that can ask for a
move is a generator that yields the decision it waits for (an `Ask`) and receives
the move played. Calls are calls, loops are loops, conditions are inline expressions
(expressions.py). Each rule kind's legality becomes a first-match function, each
ask site gets its own staged legal-move functions (enumerate.py), each trigger role
a function that says what fires. The module is written once per spec content
(program.py caches it) and reads like the spec: every function names the
declaration and the place it comes from.

The runtime it calls: the state and the primitives (state.py), legality and move
enumeration (legality.py), the decision loop (engine.py).
"""
from __future__ import annotations

from dataclasses import replace

from baobei.dsl import ast
from baobei.dsl.errors import SpecTypeError
from baobei.dsl.model import Spec, expr_text
from baobei.dsl.schema import MOVE_KINDS, REQUIRED_PROCEDURES

from .enumerate import Staged
from .expressions import Compiler, Env, View, context_of, indent
from .moves import SHAPES

HOOKS = ("recycle", "action_end")   # procedures the machinery runs in the middle of an action
INLINE_SIZE = 40    # a procedure or handler of at most this many statements (with what it writes in) is
                    # written in where it is called, whatever the number of places; one called at one
                    # place always is


def generate(spec: Spec, key: str) -> str:
    """The source text of the module for this spec."""
    return ModuleWriter(spec, key).write()


def _seats_and_active_only(expr: ast.Expr, param: str) -> bool:
    """Whether an expression over a player `param` reads nothing but seats (`position`), who is
    active and how many players there are: the same in a whole round for each active player."""
    for node in ast.walk(expr):
        if isinstance(node, ast.Name):
            ref = node.ref or ("", "")
            if not (ref[0] == "local" and node.name == param or ref == ("global", "active")
                    or ref == ("global", "players")):
                return False
        elif isinstance(node, ast.Attr):
            if node.name != "position":
                return False
        elif isinstance(node, ast.Call):
            if node.name != "count" or not (node.args and isinstance(node.args[0], ast.Name)
                                            and node.args[0].name == "players"):
                return False
        elif not isinstance(node, (ast.Binary, ast.Unary, ast.IfExpr, ast.IntLit, ast.BoolLit)):
            return False
    return True


class ModuleWriter:
    def __init__(self, spec: Spec, key: str):
        self.spec = spec
        self.key = key
        self.fire_roles: dict[str, str] = {}          # role text -> the function that fires it
        self.compiler = Compiler(spec, self.fire_roles)
        self.staged = Staged(spec, self.compiler)
        self.sites: list[tuple] = []      # name, label, kinds, power, the global naming the one asker (or None)
        self.asking = self._asking()
        self.tables: dict[str, list[str]] = {}        # rule table -> rule names, in order
        self.calls = self._call_sites()               # body -> the places that call it (dispatch, for handlers)
        self.sizes: dict[tuple, int] = {}
        self.writing: list[tuple] = []                # the bodies being written (outermost first)
        self.called: list[tuple] = []                 # bodies called as functions, to write
        self.written: list[tuple] = []                # bodies written as functions
        self.prefix = "l_"                            # of the spec's locals in the code being written
        # where the code being written runs: "outside" any action and power (a procedure only the
        # machinery starts), "inside" one (a handler, a power), None when it depends on the caller
        self.acting: str | None = None

    # ---- which bodies ask --------------------------------------------------------------------
    def _bodies(self) -> dict[tuple[str, str], ast.Decl]:
        bodies = {("procedure", n): d for n, d in self.spec.procedures.items()}
        bodies.update({("on", k): d for k, d in self.spec.handlers.items()})
        bodies.update({("power", n): d for n, d in self.spec.powers.items()})
        return bodies

    def _asking(self) -> set[tuple[str, str]]:
        """The procedures, handlers and powers that can wait for a move (directly or through a
        procedure they call): they become generators."""
        asking: set[tuple[str, str]] = set()
        bodies = self._bodies()
        changed = True
        while changed:
            changed = False
            for key, decl in bodies.items():
                if key not in asking and self._asks(decl.body, asking) is not None:
                    asking.add(key)
                    changed = True
        for name in HOOKS:
            self._refuse_asks(("procedure", name), asking,
                              f"procedure '{name}' may not ask for a move (it runs in the middle of another action)")
        for kind, decl in self.spec.handlers.items():
            if decl.anytime:
                self._refuse_asks(("on", kind), asking, f"'on {kind} anytime' may not ask for a move")
        return asking

    @staticmethod
    def _asks(body: list[ast.Stmt], asking: set) -> ast.Stmt | None:
        for stmt in ast.walk_statements(body):
            if isinstance(stmt, (ast.Ask, ast.ResolvePowers)) or \
                    (isinstance(stmt, ast.CallProc) and ("procedure", stmt.name) in asking):
                return stmt
        return None

    def _call_sites(self) -> dict[tuple, int]:
        """How many places call each procedure (a call statement) and each handler (an ask of its
        kind: the move made there runs it)."""
        found: dict[tuple, int] = {}
        for decl in self._bodies().values():
            for stmt in ast.walk_statements(decl.body):
                if isinstance(stmt, ast.CallProc):
                    found[("procedure", stmt.name)] = found.get(("procedure", stmt.name), 0) + 1
                elif isinstance(stmt, ast.Ask):
                    for kind in dict.fromkeys(k for asked in stmt.asked for k in asked.kinds):
                        if kind in self.spec.handlers:
                            found[("on", kind)] = found.get(("on", kind), 0) + 1
        return found

    def _size(self, key: tuple, seen: tuple = ()) -> int:
        """The statements of a body with those of the bodies it calls (as they would be written in)."""
        if key in seen:
            return 10 ** 6       # recursive: never written in
        if key not in self.sizes:
            decl = self._bodies()[key]
            size = 0
            for stmt in ast.walk_statements(decl.body):
                size += 1
                if isinstance(stmt, ast.CallProc):
                    size += self._size(("procedure", stmt.name), seen + (key,))
                elif isinstance(stmt, ast.Ask):
                    size += sum(self._size(("on", kind), seen + (key,))
                                for kind in dict.fromkeys(k for asked in stmt.asked for k in asked.kinds)
                                if kind in self.spec.handlers)
            self.sizes[key] = size
        return self.sizes[key]

    def _written_in(self, key: tuple) -> bool:
        """Whether a call of this body is written in where it is made (never while it is being
        written: a recursive call stays a call)."""
        if key in self.writing:
            return False
        return self.calls.get(key, 0) <= 1 or self._size(key) <= INLINE_SIZE

    def _refuse_asks(self, key, asking, message: str) -> None:
        decl = self._bodies().get(key)
        if decl is not None and key in asking:
            raise SpecTypeError(message, self._asks(decl.body, asking).loc)

    # ---- the module ------------------------------------------------------------------------------
    def write(self) -> str:
        spec = self.spec
        out = [f'"""The rules of layers {", ".join(spec.layers)} ({spec.spec_dir}) as Python, generated by baobei.',
               "",
               "Do not edit: it is written again whenever the spec or the generator changes. S is the round",
               "(interpreter/engine.py), C the context of the move judged or of the action running.",
               '"""',
               "from itertools import compress",
               "",
               "from baobei.dsl.errors import RuleRuntimeError",
               "from baobei.interpreter.legality import SMALL, TRIES, Site, allows, fires, new_ask",
               "from baobei.interpreter.moves import MadeMove",
               "from baobei.interpreter.state import EMPTY_CTX, CardKind, new_of, own_and_new, slot_card, "
               "slot_empty, slot_new, with_placeholder",
               "",
               f"KEY = {self.key!r}",
               ""]
        out += self.cards()
        out += self.gaps()
        out += self.definitions()
        out += self.decisions()
        out += self.legality()
        out += self.triggers()
        out += self.variables()
        out += self.procedures()
        out += self.site_functions()
        out += self.priority_order()
        out += self.table_lines()
        return "\n".join(out) + "\n"

    def cards(self) -> list[str]:
        out = ["# ---- cards", ""]
        for name, decl in self.spec.cards.items():
            out.append(f"K_{name} = CardKind({name!r}, {decl.value}, {decl.family!r}, {decl.power!r})  # {decl.loc}")
        return out + [""]

    def gaps(self) -> list[str]:
        out = []
        for name in self.spec.decisions:
            rules = ", ".join(r.name for r in self.spec.value_rules(name))
            out.append(f"GAP_{name} = {f'no rule decides {name!r} here (rules: {rules})'!r}")
        return out + [""]

    def _function(self, signature: str, doc: str, lines: list[str], value: str | None = None) -> list[str]:
        body = lines + ([f"return {value}"] if value is not None else [])
        return [f"def {signature}:", f'    """{doc}"""'] + indent(body or ["pass"]) + ["", ""]

    def _params(self, params: list[ast.Param], prefix: str) -> dict[str, View]:
        return {p.name: View(prefix + p.name, none=p.type.nullable, new=p.type.name == "slot") for p in params}

    def definitions(self) -> list[str]:
        out = []
        for name, decl in self.spec.defines.items():
            self.compiler.reset()
            env = Env(names=self._params(decl.params, "a_"), context=context_of("C"))
            code = self.compiler.expr(decl.body, env)
            params = "".join(f", a_{p.name}" for p in decl.params)
            out += self._function(f"D_{name}(S, C{params})", f"define {name} ({decl.loc})", code.lines, code.value)
        return out

    def decisions(self) -> list[str]:
        out = []
        for name, decl in self.spec.decisions.items():
            self.compiler.reset()
            env = Env(names={}, context=context_of("C"))
            lines: list[str] = []
            values = list(self._params(decl.params, "a_").values())
            result = self.compiler.decide(name, values, env, lines)
            params = "".join(f", a_{p.name}" for p in decl.params)
            out += self._function(f"X_{name}(S, C{params})", f"decision {name} ({decl.loc})", lines, result.code)
        return out

    # ---- legality and triggers -------------------------------------------------------------------------
    def legality(self) -> list[str]:
        out = ["# ---- legality: the rule that decides a move, exceptions first, then rules, then defaults", ""]
        for kind in MOVE_KINDS:
            rules = self.spec.first_match(self.spec.legality_rules(kind))
            table = f"R_{kind}"
            self.tables[table] = [r.name for r in rules]
            first: list[str] = []
            every: list[str] = ["found = []"]
            self.compiler.reset()
            for index, rule in enumerate(rules):
                test, cond = self._condition(rule)
                comment = f"  # {rule.level_name} {rule.name} ({rule.loc})"
                first += test + [f"if {cond}:{comment}", f"    return {table}[{index}]"]
                every += test + [f"if {cond}:{comment}", f"    found.append({table}[{index}])"]
            first.append("return None")
            out += self._function(f"legal_{kind}(S, C)", f"The rule deciding whether this {kind} is legal "
                                  "(None: no rule decides).", first)
            out += self._function(f"applicable_{kind}(S, C)", f"Every {kind} rule that applies (strict mode).",
                                  every, "found")
        return out

    def _condition(self, rule: ast.RuleDecl, env: Env | None = None) -> tuple[list[str], str]:
        if rule.when is None:
            return [], "True"
        code = self.compiler.expr(rule.when, env or Env(context=context_of("C")))
        return code.lines, code.value

    def triggers(self) -> list[str]:
        """For each role rules fire, a function: (card, user, rank, deciding rule), or None when no
        rule decides. A default (`fire none`) decides that nothing fires."""
        groups: dict[str, list[ast.RuleDecl]] = {}
        defaults = []
        for rule in self.spec.fire_rules():
            if isinstance(rule.body.role, ast.NoneLit):
                defaults.append(rule)
            else:
                groups.setdefault(expr_text(rule.body.role), []).append(rule)
        out = ["# ---- triggers: what fires, for whom, at which rank", ""]
        for number, (role, rules) in enumerate(groups.items(), start=1):
            name = f"fire_{number}"
            self.fire_roles[role] = name
            ordered = self.spec.first_match(rules + defaults)
            self.tables[f"F_{number}"] = [r.name for r in ordered]
            lines: list[str] = []
            self.compiler.reset()
            for index, rule in enumerate(ordered):
                test, cond = self._condition(rule)
                lines += test + [f"if {cond}:  # {rule.level_name} {rule.name} ({rule.loc})"]
                if isinstance(rule.body.role, ast.NoneLit):
                    lines.append(f"    return (None, None, 0, F_{number}[{index}])")
                else:
                    env = Env(context=context_of("C"))
                    body: list[str] = []
                    card = self.compiler.value(rule.body.role, env, body)
                    user = self.compiler.value(rule.body.user, env, body)
                    lines += indent(body) + [f"    return ({card}, {user}, {rule.body.rank}, F_{number}[{index}])"]
            lines.append("return None")
            out += self._function(f"{name}(S, C)", f"Whether {role} fires.", lines)
        return out + self.resolution(groups, defaults)

    def resolution(self, groups: dict, defaults: list) -> list[str]:
        """`resolve powers`, first half, in one function: every role's trigger rules in first-match
        order, as the fire_N functions above, written out one after the other (one call per turn).
        Each entry (card, user, rank, deciding rule, role) is a power that fires; `log`, when a list,
        gets the name of each deciding rule."""
        self.compiler.reset()
        lines = ["fired = []"]
        for number, (role, rules) in enumerate(groups.items(), start=1):
            ordered = self.spec.first_match(rules + defaults)
            lines += [f"# {role} (fire_{number})"] + self._first_fire(ordered, number, 0, role)
        return self._function("fired_powers(S, C, log)", "resolve powers: the powers that fire, in the order of "
                              "the roles (card, user, rank, deciding rule, role).", lines, "fired")

    def _first_fire(self, rules: list, number: int, index: int, role: str) -> list[str]:
        """The first rule of `rules[index:]` that applies decides: its name is logged and the power
        it names, if any, is added to `fired` (a rule that decides that nothing fires, as a default
        does on most turns, costs only the logging test; when no rule applies, nothing is done)."""
        if index == len(rules):
            return ["pass  # no rule decides"]
        rule = rules[index]
        test, cond = self._condition(rule)
        then = ["if log is not None:", f"    log.append(F_{number}[{index}].name)"]
        if not isinstance(rule.body.role, ast.NoneLit):      # it names a card whose power fires
            env = Env(context=context_of("C"))
            card = self.compiler.value(rule.body.role, env, then)
            user = self.compiler.value(rule.body.user, env, then)
            then += [f"fr_card, fr_user = {card}, {user}",
                     "if fr_card is not None and fr_card.power is not None and fr_user is not None:",
                     f"    fired.append((fr_card, fr_user, {rule.body.rank}, F_{number}[{index}], {role!r}))"]
        comment = f"  # {rule.level_name} {rule.name} ({rule.loc})"
        if cond == "True":
            return test + [comment.strip()] + then
        return test + [f"if {cond}:{comment}"] + indent(then) + ["else:"] + \
            indent(self._first_fire(rules, number, index + 1, role))

    def variables(self) -> list[str]:
        out = []
        env = Env(context=context_of("C"))
        lines: list[str] = []
        for name, decl in self.spec.vars.items():
            lines.append(f"S.v_{name} = {self.compiler.value(decl.init, env, lines)}  # {decl.loc}")
        out += self._function("init_vars(S, C)", "The round's variables at the start of a round.", lines)
        lines = []
        for name, decl in self.spec.player_vars.items():
            lines.append(f"p.v_{name} = {self.compiler.value(decl.init, env, lines)}  # {decl.loc}")
        out += self._function("init_player_vars(S, C, p)", "One player's variables at the start of a round.",
                              lines)
        return out

    # ---- procedures, handlers, powers -----------------------------------------------------------------
    def procedures(self) -> list[str]:
        """A function for each body the machinery runs (the required procedures, `anytime`
        handlers, powers) and for each one called somewhere rather than written in; the other
        procedures and handlers are written in where they are called (a move's handler at the ask
        that waits for it), so that a turn runs in one generator frame with no call per part."""
        out = ["# ---- procedures, move handlers and powers", ""]
        spec = self.spec
        self.called = [("procedure", name) for name in REQUIRED_PROCEDURES if name in spec.procedures]
        self.called += [("on", kind) for kind, decl in spec.handlers.items() if decl.anytime]
        self.called += [("power", name) for name in spec.powers]
        while self.called:
            key = self.called.pop(0)
            if key not in self.written:
                self.written.append(key)
                out += self._function_of(key)
        return out

    def _function_of(self, key: tuple) -> list[str]:
        kind, name = key
        self.writing = [key]
        self.acting = "inside" if kind != "procedure" else "outside" if not self.calls.get(key) else None
        if kind == "procedure":
            decl = self.spec.procedures[name]
            params = "".join(f", l_{p.name}" for p in decl.params)
            return self._body(f"proc_{name}(S, C{params})", decl, key, f"procedure {name}",
                              self._params(decl.params, "l_"), None)
        if kind == "on":
            return self._body(f"on_{name}(S, C)", self.spec.handlers[name], key, f"on {name}", {}, None, SHAPES[name])
        return self._body(f"power_{name}(S, C)", self.spec.powers[name], key, f"power {name}", {}, name)

    def _call_of(self, key: tuple, call: str) -> list[str]:
        """A call of a body written as a function (`yield from` when it can ask)."""
        if key not in self.written and key not in self.called:
            self.called.append(key)
        return [f"yield from {call}" if key in self.asking else call]

    def _written(self, key: tuple, env: Env, names: dict, power: str | None) -> list[str]:
        """A procedure's or handler's body written in where it is called: in the context `env.ctx`
        (the caller's, or the move played), its locals named apart from the caller's."""
        kind, name = key
        decl = self.spec.procedures[name] if kind == "procedure" else self.spec.handlers[name]
        where = f"procedure {name}" if kind == "procedure" else f"on {name}"
        saved, acting = self.prefix, self.acting
        self.prefix = f"l{self.compiler.fresh('')}_"
        if kind == "on":      # a move's handler runs in an action (or a power) already begun
            self.acting = "inside"
        self.writing.append(key)
        try:
            lines = self.block(decl.body, replace(env, names=names), where, power)
        finally:
            self.writing.pop()
            self.prefix, self.acting = saved, acting
        return [f"# {where} ({decl.loc})"] + (lines or ["pass"])

    def _body(self, signature: str, decl, key, where: str, names: dict, power: str | None,
              shape=None) -> list[str]:
        """A function for a body of statements; a handler's knows its move's shape (whether its
        targets may be a new slot or the placeholder)."""
        self.compiler.reset()
        self.prefix = "l_"
        if shape is None:
            env = Env(names=names, context=context_of("C"))
        else:
            env = Env(names=names, context=context_of("C", shape.new_slot, move=True),
                      placeholders=bool(shape.placeholders))
        lines = self.block(decl.body, env, where, power)
        kind = "waits for moves (a generator)" if key in self.asking else "runs to its end"
        return self._function(signature, f"{where} ({decl.loc}): {kind}", lines)

    def block(self, body: list[ast.Stmt], env: Env, where: str, power: str | None) -> list[str]:
        lines: list[str] = []
        for stmt in body:
            more, env = self.stmt(stmt, env, where, power)
            lines += more
        return lines

    def stmt(self, stmt: ast.Stmt, env: Env, where: str, power: str | None) -> tuple[list[str], Env]:
        method = getattr(self, "s_" + type(stmt).__name__)
        result = method(stmt, env, where, power)
        if isinstance(result, tuple):
            return result
        return result, env

    def _call(self, method: str, args: list, env: Env) -> list[str]:
        """A primitive: a method of the round, its expression arguments computed first."""
        lines: list[str] = []
        values = []
        for arg in args:
            if isinstance(arg, ast.Expr):
                values.append(self.compiler.value(arg, env, lines))
            else:
                values.append(arg)
        return lines + [f"S.{method}({', '.join(values)})"]

    def s_Ask(self, stmt: ast.Ask, env: Env, where: str, power):
        """The round's reusable decision of this site, set for this decision (who is asked, the
        context, an empty cache), and yielded only where some move is legal (else the ask is
        skipped, as the rulebooks skip an impossible part of an action)."""
        lines: list[str] = []
        clauses = []
        kinds: list[str] = []
        mode = "several" if len(stmt.asked) > 1 else "anyone" if stmt.asked[0].asker is None else "one"
        asker, asker_none = "None", True
        for asked in stmt.asked:
            if asked.asker is None:
                code = "None"
            else:
                view = self.compiler.view(asked.asker, env, lines)
                code = view.code
                if mode == "one":
                    asker, asker_none = self.compiler.once(code, lines), view.none
            clauses.append(f"({code}, {tuple(asked.kinds)!r})")
            kinds += [k for k in asked.kinds if k not in kinds]
        number = len(self.sites) + 1
        site = f"SITE_{number}"
        # the one player asked, when a global names it (`ask active: ...`): its rules know who acts
        named = stmt.asked[0].asker if mode == "one" else None
        named = named if isinstance(named, ast.Name) and named.ref and named.ref[0] == "global" else None
        text = "; ".join(f"{'anyone' if a.asker is None else expr_text(a.asker)}: {', '.join(a.kinds)}"
                         for a in stmt.asked)
        ctx = env.ctx
        lines += [f"# ask {text} ({stmt.loc})", f"ask = S.asks[{number - 1}] or new_ask(S, {site})"]
        if mode == "one":
            lines.append(f"ask.actor = {asker}")
        elif mode == "several":
            lines.append(f"ask.several = ({''.join(c + ', ' for c in clauses)})")
        lines.append(f"ask.C = {ctx}")
        check, listed = self._legal_check(str(number), tuple(kinds), power, named, mode, asker, asker_none, ctx)
        self.sites.append((site, f"{where} ({stmt.loc})", tuple(kinds), power, named, mode,
                           listed[1] if listed else None))
        if listed:    # one form of one kind to look at: its moves listed, kept in the cache for the agent
            kind, arity = listed
            found = self.compiler.fresh("listed")
            lines += [f"{found} = E{number}_{kind}{arity}(S, {ctx}, {asker}, ask)" +
                      (f" if {asker} is not None else None" if asker_none else ""),
                      f"ask.known = {{({asker}, F{number}_{kind}{arity}): {found}}}"]
            check = found if not asker_none else f"{found} if {asker} is not None else ask.any_legal()"
        else:
            lines.append("ask.known = None")
        move = self.compiler.fresh("move")
        body = [f"{move} = yield ask"] + self._play(kinds, where, move, env, power)
        if check is None:
            return lines + body
        return lines + [f"if {check}:"] + indent(body)

    def _legal_check(self, number: str, kinds: tuple, power, named, mode: str, asker: str, asker_none: bool,
                     ctx: str) -> tuple[str | None, tuple | None]:
        """Whether some move is legal at an ask site, as Ask.any_legal says (None: always), with the
        site's functions when one player is asked (the cheapest forms first); and (kind, arity)
        when that is one form's whose moves are few: they are listed rather (once, for the agent
        too)."""
        if any(self.staged.always_legal(kind, power, named) for kind in kinds):
            return None, None
        if mode != "one":
            return "ask.any_legal()", None
        calls = [(cost, code, kind, arity) for kind in kinds
                 for cost, code, arity in self.staged.checks(number, kind, power, named, ctx, asker)]
        calls.sort(key=lambda call: call[0])
        if len(calls) == 1 and calls[0][0] == 1:
            return None, calls[0][2:]
        found = " or ".join(code for _, code, _, _ in calls) or "False"
        if not asker_none:
            return found, None
        return f"({found}) if {asker} is not None else ask.any_legal()", None

    def _play(self, kinds: list[str], where: str, move: str, env: Env, power: str | None) -> list[str]:
        """The move played where it was asked (in the local `move`): its handler runs with the
        ask's user and power. In a procedure, a move made outside any action and power begins a
        complete action, which ends with its handler (inside a handler or a power the action is
        already running); where that is known here (self.acting), it is not looked at in play."""
        ctx = env.ctx
        handled = [k for k in kinds if k in self.spec.handlers]
        lines = [f"{move}.user, {move}.power = {ctx}.user, {ctx}.power"]
        if not handled:
            return lines
        actions = where.startswith("procedure ") and self.acting != "inside"
        dynamic = actions and self.acting is None
        begins = self.compiler.fresh("begins")
        if dynamic:   # a complete action may begin here; it ends as the engine's end_action ends one
            # (a move resumed here is of a kind asked here: where all have handlers, it has one)
            which = f" and {move}.kind in {tuple(handled)!r}" if len(handled) < len(kinds) else ""
            lines.append(f"{begins} = S.in_action == 0 and {ctx}.power is None{which}")
            lines += [f"if {begins}:"] + indent(self._action_begins())
        for number, kind in enumerate(handled):
            test = "if" if number == 0 else "elif"
            key = ("on", kind)
            if self._written_in(key):
                shape = SHAPES[kind]
                inner = Env(context=context_of(move, shape.new_slot, move=True), placeholders=bool(shape.placeholders),
                            ctx=move)
                body = self._written(key, inner, {}, power)
            else:
                body = self._call_of(key, f"on_{kind}(S, {move})")
            if actions and not dynamic:   # outside any action: this move's handler is a complete action
                body = self._action_begins() + body + self._action_ends()
            lines += [f"{test} {move}.kind == {kind!r}:"] + indent(body)
        if dynamic:
            lines += [f"if {begins}:"] + indent(self._action_ends())
        return lines

    @staticmethod
    def _action_begins() -> list[str]:
        return ["S.in_action = 1", "if S.changes:", "    S.changes = []"]

    def _action_ends(self) -> list[str]:
        end = ("procedure", "action_end")
        acting, self.acting = self.acting, None
        ended = self._written(end, Env(context=context_of("EMPTY_CTX"), ctx="EMPTY_CTX"), {}, None) \
            if self._written_in(end) else self._call_of(end, "proc_action_end(S, EMPTY_CTX)")
        self.acting = acting
        return ["S.in_action = 0"] + ended + ["if S.changes:", "    S.changes = []"]

    def s_ResolvePowers(self, stmt, env, where, power):
        """The powers that fire (in strict mode through the round, which logs the deciding rules),
        played in order; a resolution where none fires is noted (Round.last_fired)."""
        return [f"# resolve powers ({stmt.loc})",
                f"fired = S.fired_powers({env.ctx}) if S.strict else fired_powers(S, {env.ctx}, None)",
                "if fired:", "    yield from S.play_powers(fired)", "else:", "    S.last_fired = fired"]

    def s_If(self, stmt: ast.If, env: Env, where: str, power):
        return self._chain(list(stmt.branches), stmt.otherwise, env, where, power)

    def _chain(self, branches, otherwise, env, where, power) -> list[str]:
        if not branches:
            return self.block(otherwise, env, where, power)
        cond, body = branches[0]
        code = self.compiler.expr(cond, env)
        lines = code.lines + [f"if {code.value}:"] + indent(self.block(body, env, where, power) or ["pass"])
        rest = self._chain(branches[1:], otherwise, env, where, power)
        if rest and len(branches) > 1 and rest[0].startswith("if "):
            return lines + ["el" + rest[0]] + rest[1:]     # the next branch had nothing to compute first
        if rest:
            return lines + ["else:"] + indent(rest)
        return lines

    def s_For(self, stmt: ast.For, env: Env, where, power):
        lines: list[str] = []
        domain = self.compiler.value(stmt.domain, env, lines)
        elem = stmt.domain.type.elem.name
        name = f"{self.prefix}{stmt.var}"
        if elem == "slot":   # the move's targets (a placeholder is none) or some other list of slots
            targets = isinstance(stmt.domain, ast.Name) and stmt.domain.ref == ("global", "targets")
            view = View(name, none=env.placeholders or not targets, new=env.context["target"].new or not targets)
        else:
            view = View(name, none=elem not in ("player", "card", "int", "bool"))
        body = self.block(stmt.body, env.bind(stmt.var, view), where, power)
        return lines + [f"for {name} in {domain}:"] + indent(body or ["pass"])

    def s_While(self, stmt: ast.While, env: Env, where, power):
        code = self.compiler.expr(stmt.cond, env)
        body = self.block(stmt.body, env, where, power)
        if not code.lines:
            return [f"while {code.value}:"] + indent(body or ["pass"])
        return ["while True:"] + indent(code.lines + [f"if not {code.value}:", "    break"] + body)

    def s_Set(self, stmt: ast.Set, env: Env, where, power):
        lines: list[str] = []
        if stmt.owner is not None:
            owner = self.compiler.once(self.compiler.value(stmt.owner, env, lines), lines)
            value: list[str] = []
            code = self.compiler.value(stmt.value, env, value)
            return lines + [f"if {owner} is not None:"] + indent(value + [f"{owner}.v_{stmt.target} = {code}"])
        code = self.compiler.value(stmt.value, env, lines)
        target = f"S.v_{stmt.target}" if stmt.target in self.spec.vars else f"S.{stmt.target}"
        return lines + [f"{target} = {code}"]

    def s_Let(self, stmt: ast.Let, env: Env, where, power):
        lines: list[str] = []
        view = self.compiler.view(stmt.value, env, lines)
        name = f"{self.prefix}{stmt.name}"
        lines.append(f"{name} = {view.code}")
        return lines, env.bind(stmt.name, View(name, none=view.none, new=view.new))

    def s_CallProc(self, stmt: ast.CallProc, env: Env, where, power):
        lines: list[str] = []
        key = ("procedure", stmt.name)
        if not self._written_in(key):
            args = "".join(", " + self.compiler.value(arg, env, lines) for arg in stmt.args)
            return lines + self._call_of(key, f"proc_{stmt.name}(S, {env.ctx}{args})")
        names = {}
        for param, arg in zip(self.spec.procedures[stmt.name].params, stmt.args):
            local = self.compiler.fresh(f"l_{param.name}_")
            lines.append(f"{local} = {self.compiler.value(arg, env, lines)}")
            names[param.name] = View(local, none=param.type.nullable, new=param.type.name == "slot")
        # the same context as the caller's (the same object: what is known of it holds)
        inner = Env(context=env.context, ctx=env.ctx, placeholders=env.placeholders)
        return lines + self._written(key, inner, names, power)

    def s_Draw(self, stmt: ast.Draw, env, where, power):
        return self._call("draw", [stmt.count, stmt.player, repr(stmt.seen), repr(stmt.how), env.ctx], env)

    def s_Flip(self, stmt: ast.Flip, env, where, power):
        return self._call("flip", [repr(stmt.how)], env)

    def s_Discard(self, stmt: ast.Discard, env, where, power):
        if stmt.source is None:
            return self._call("discard_held", [repr(stmt.how), env.ctx], env)
        return self._call("discard_slot", [stmt.source, repr(stmt.how), env.ctx], env)

    def s_Bury(self, stmt: ast.Bury, env, where, power):
        if stmt.source is None:
            return self._call("bury_held", [], env)
        return self._call("bury_slot", [stmt.source, env.ctx], env)

    def _viewer(self, viewer):
        return repr(viewer) if isinstance(viewer, str) else viewer

    def s_Place(self, stmt: ast.Place, env, where, power):
        return self._call("place", [stmt.slot, self._viewer(stmt.viewer), env.ctx], env)

    def s_TakeTop(self, stmt, env, where, power):
        return self._call("take_top", [], env)

    def s_Swap(self, stmt: ast.Swap, env, where, power):
        return self._call("swap", [stmt.first, stmt.second, env.ctx], env)

    def s_Move(self, stmt: ast.Move, env, where, power):
        return self._call("move", [stmt.source, stmt.dest, env.ctx], env)

    def s_Reveal(self, stmt: ast.Reveal, env, where, power):
        return self._call("reveal", [stmt.slot, self._viewer(stmt.viewer), repr(stmt.how), env.ctx], env)

    def s_CloseReference(self, stmt, env, where, power):
        return ["if S.ref.open:  # (closing a closed reference does nothing)"] + \
            indent(self._call("close_reference", [], env))

    def s_Shuffle(self, stmt, env, where, power):
        return self._call("shuffle_into_deck", [], env)

    def s_Deal(self, stmt: ast.Deal, env, where, power):
        return self._call("deal", [stmt.count], env)

    # ---- ask sites ---------------------------------------------------------------------------------------
    def site_functions(self) -> list[str]:
        out = ["# ---- ask sites: the legal moves of each kind asked there", ""]
        for number, (site, label, kinds, power, asker, mode, listed) in enumerate(self.sites, start=1):
            forms = []
            pickers = []
            for kind in kinds:
                lines, table, picker = self.staged.site_forms(str(number), kind, power, label, asker, listed)
                out += lines
                forms.append(f"    {kind!r}: {table},")
                pickers.append(f"{kind!r}: {picker}")
            anything = f"P{number}_{kinds[0]}"
            if len(kinds) > 1:
                anything = f"Q{number}"
                out += self.staged.kinds_picker(anything, str(number), kinds, label)
            # a kind always legal here: nobody need look whether anything is (a pluck window's pass)
            free = tuple(kind for kind in kinds if self.staged.always_legal(kind, power, asker))
            out += [f"{site} = Site({label!r}, {kinds!r}, {{"] + forms + \
                [f"}}, always={bool(free)}, index={number - 1}, asker={mode!r}, pickers={{{', '.join(pickers)}}},"
                 f" free={free!r}, anything={anything})"]
            if listed is not None:    # the form the ask lists (its key in the Ask's cache)
                out.append(f"F{number}_{kinds[0]}{listed} = {site}.by_arity[({kinds[0]!r}, {listed})]")
            out += ["", ""]
        out.append("SITES = (" + "".join(f"{site}, " for site, *_ in self.sites) + ")")
        return out + ["", ""]

    def priority_order(self) -> list[str]:
        """The players asked at once (a pluck window) in the order the spec's `priority` gives,
        the smallest first, ties by seat: one function, priority expanded in it."""
        decl = self.spec.defines["priority"]
        self.compiler.reset()
        param = decl.params[0].name
        env = Env(names={param: View("p", none=False)}, context=context_of("C"))
        body: list[str] = []
        value = self.compiler.value(decl.body, env, body)
        lines = ["ranked = []", "for p in players:"] + indent(body + [f"ranked.append(({value}, p.index))"]) + \
            ["ranked.sort()", "return [S.players[index] for _, index in ranked]"]
        doc = f"The players by define priority ({decl.loc})."
        if not _seats_and_active_only(decl.body, param):
            return self._function("by_priority(S, C, players)", doc, lines)
        # it reads only the seats and who is active: the order of a round's players is kept per
        # active player (a pluck window asks it on every card laid)
        kept = ["if players is S.players:", "    found = S.orders.get(S.active)",
                "    if found is not None:", "        return found"]
        lines = lines[:-1] + ["found = [S.players[index] for _, index in ranked]",
                              "if players is S.players:", "    S.orders[S.active] = found", "return found"]
        return self._function("by_priority(S, C, players)", doc + " It reads only the seats and who is active: "
                              "each round keeps its order of all players per active player.", kept + lines)

    def table_lines(self) -> list[str]:
        def entry(name: str, function: str, key) -> str:
            return f"    {name!r}: ({function}, {key in self.asking}),"
        spec = self.spec
        out = ["# ---- what the engine looks up", ""]
        out += ["# rule names, in the order the functions above try them; the engine binds each table to the rules",
                "RULE_TABLES = {"] + [f"    {table!r}: {tuple(names)!r}," for table, names in self.tables.items()] + ["}"]
        # (the bodies written in where they are called have no function of their own)
        out += ["PROCEDURES = {"] + [entry(n, f"proc_{n}", ("procedure", n)) for n in spec.procedures
                                     if ("procedure", n) in self.written] + ["}"]
        out += ["HANDLERS = {"] + [entry(k, f"on_{k}", ("on", k)) for k in spec.handlers
                                   if ("on", k) in self.written] + ["}"]
        out += ["POWERS = {"] + [entry(n, f"power_{n}", ("power", n)) for n in spec.powers] + ["}"]
        anytime = [k for k, d in spec.handlers.items() if d.anytime]
        out.append(f"ANYTIME = frozenset({anytime!r})")
        out.append("LEGAL = {" + ", ".join(f"{k!r}: legal_{k}" for k in MOVE_KINDS) + "}")
        out.append("APPLICABLE = {" + ", ".join(f"{k!r}: applicable_{k}" for k in MOVE_KINDS) + "}")
        out.append("FIRES = (" + "".join(f"({role!r}, {fn}), " for role, fn in self.fire_roles.items()) + ")")
        out.append("FIRED = fired_powers")
        out.append("DEFINES = {" + ", ".join(f"{n!r}: D_{n}" for n in spec.defines) + "}")
        out.append("DECISIONS = {" + ", ".join(f"{n!r}: X_{n}" for n in spec.decisions) + "}")
        return out
