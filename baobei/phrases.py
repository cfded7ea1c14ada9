"""Plain-language sentences from the rules' syntax trees, through a phrasebook.

The phrasebook (`spec/phrasebook.yaml`, extended by the file a project's baobei.yaml names under
`phrasebook:`) holds every word: one phrase per name, attribute, operator, function, move kind,
statement and declaration form, with `{0}`, `{1}`, ... standing for the parts the tree gives.
This module only walks the trees and fills the phrases in; it holds no rule text. A node the
phrasebook has no phrase for is shown as its DSL text, and the sentence gets the note
"(no phrase for KIND 'NAME')" — never a sentence guessed here.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from baobei.dsl import ast
from baobei.dsl.errors import Loc
from baobei.dsl.unparse import expr as dsl_expr
from baobei.dsl.unparse import statement as dsl_statement

PHRASEBOOK_NAME = "phrasebook.yaml"
# operators whose result is a condition: `set flag = <one of these>` reads "flag exactly when ..."
_CONDITIONS = frozenset({"and", "or", "implies", "not", "==", "!=", "<", "<=", ">", ">=", "in"})
# the sections a phrasebook may have: each maps a key of the tree to a phrase
SECTIONS = ("levels", "origins", "names", "values", "procedures", "attributes", "is", "is_not", "operators", "quantifiers",
            "calls", "decisions", "moves", "forms", "statements", "words")


@dataclass
class Phrasebook:
    sections: dict[str, dict[str, str]] = field(default_factory=dict)
    files: list[Path] = field(default_factory=list)

    def get(self, section: str, key) -> str | None:
        return self.sections.get(section, {}).get(str(key))

    def without(self, section: str, key: str) -> "Phrasebook":
        """A copy lacking one phrase (the tests show what a missing phrase gives)."""
        copy = {name: dict(phrases) for name, phrases in self.sections.items()}
        copy.get(section, {}).pop(key, None)
        return Phrasebook(copy, list(self.files))


def load_phrasebook(paths: list[Path]) -> Phrasebook:
    """The phrasebooks in order, a later one adding phrases and overriding earlier ones."""
    from baobei.dsl.errors import RulebookError
    from baobei.dsl.yamlfile import read_yaml
    book = Phrasebook()
    for path in paths:
        doc = read_yaml(path, RulebookError)
        data = doc.data or {}
        if not isinstance(data, dict):
            raise RulebookError(f"a phrasebook maps sections ({', '.join(SECTIONS)}) to phrases", Loc(str(path), 1, 1))
        for section, phrases in data.items():
            if section not in SECTIONS:
                raise RulebookError(f"unknown phrasebook section '{section}'; known: {', '.join(SECTIONS)}",
                                    doc.loc(section))
            if not isinstance(phrases, dict):
                raise RulebookError(f"'{section}' maps names to phrases", doc.loc(section))
            for key, phrase in phrases.items():
                if not isinstance(key, (str, int)) or isinstance(key, bool):
                    # YAML reads on, off, yes, no unquoted as true or false
                    raise RulebookError(f"the key {key!r} of '{section}' is not a name: quote it (\"on\")",
                                        doc.loc(section))
                if not isinstance(phrase, str):
                    raise RulebookError(f"the phrase for '{key}' is a text", doc.loc(section, key))
                book.sections.setdefault(section, {})[str(key)] = phrase
        book.files.append(path)
    return book


def _is_condition(e: ast.Expr) -> bool:
    return isinstance(e, ast.Unary) and e.op == "not" or isinstance(e, ast.Binary) and e.op in _CONDITIONS


def _needs_group(e: ast.Expr, op: str, left: bool) -> bool:
    if isinstance(e, ast.IfExpr):
        return True
    if not isinstance(e, ast.Binary) and not isinstance(e, ast.Quant):
        return False
    if op == "and":
        return isinstance(e, ast.Binary) and e.op in ("or", "implies")
    if op == "or":
        return isinstance(e, ast.Binary) and e.op == "implies"
    if op == "implies":
        return isinstance(e, ast.Binary) and e.op == "implies"
    # a comparison or arithmetic: a condition or a sum inside it, or a quantifier it goes on after
    return isinstance(e, ast.Binary) or isinstance(e, ast.Quant) and left


def fill(phrase: str, *parts: str, **named: str) -> str:
    """A phrase with its {0}, {1}, ... and {name} parts filled in. str.format is not used on the
    phrase's other braces: a phrase is data, and only the slots it names are replaced."""
    for index, part in enumerate(parts):
        phrase = phrase.replace("{%d}" % index, part)
    for key, part in named.items():
        phrase = phrase.replace("{%s}" % key, part)
    return phrase


def capitalised(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


class Renderer:
    """Renders one declaration's trees; `missing` collects what the phrasebook lacked."""

    def __init__(self, book: Phrasebook):
        self.book = book
        self.missing: list[str] = []
        self.scope: list[str] = []      # quantifier variables, parameters, locals: shown by their name

    # -- the phrasebook ---------------------------------------------------------------------
    def phrase(self, section: str, key: str, what: str) -> str | None:
        found = self.book.get(section, key)
        if found is None:
            note = f"(no phrase for {what} '{key}')"
            if note not in self.missing:
                self.missing.append(note)
        return found

    def _dsl(self, text: str) -> str:
        return f"`{text}`"

    # -- expressions ------------------------------------------------------------------------
    def expr(self, e: ast.Expr) -> str:
        if isinstance(e, ast.IntLit):
            return self.book.get("words", f"number {e.value}") or str(e.value)
        if isinstance(e, ast.BoolLit):
            return self.word("true" if e.value else "false", e)
        if isinstance(e, ast.NoneLit):
            return self.word("none", e)
        if isinstance(e, ast.Name):
            return self.name(e.name, e)
        if isinstance(e, ast.Attr):
            phrase = self.phrase("attributes", e.name, "attribute")
            return fill(phrase, self.expr(e.obj)) if phrase else self._dsl(dsl_expr(e))
        if isinstance(e, ast.Call):
            return self.call(e)
        if isinstance(e, ast.SetLit):
            return self.joined([self.expr(item) for item in e.items], "set_join", "set_last")
        if isinstance(e, ast.Unary):
            phrase = self.phrase("operators", e.op, "operator")
            grouped = isinstance(e.operand, ast.Binary) and e.operand.op in ("and", "or", "implies")
            operand = self.group(e.operand) if grouped else self.expr(e.operand)
            return fill(phrase, operand) if phrase else self._dsl(dsl_expr(e))
        if isinstance(e, ast.Binary):
            return self.binary(e)
        if isinstance(e, ast.Quant):
            phrase = self.phrase("quantifiers", e.kind, "quantifier")
            if not phrase:
                return self._dsl(dsl_expr(e))
            domain = self.expr(e.domain)
            self.scope.append(e.var)
            body = self.expr(e.body)
            self.scope.pop()
            return fill(phrase, var=e.var, domain=domain, body=body)
        if isinstance(e, ast.IfExpr):
            phrase = self.phrase("operators", "if", "operator")
            # an if inside the condition or the first branch is grouped: "(5 if ..., else 4) if ..., else ..."
            parts = [self.group(x) if isinstance(x, ast.IfExpr) else self.expr(x) for x in (e.cond, e.then)]
            return fill(phrase, *parts, self.expr(e.other)) if phrase else self._dsl(dsl_expr(e))
        return self._dsl(dsl_expr(e))

    def word(self, key: str, e: ast.Expr) -> str:
        phrase = self.phrase("words", key, "word")
        return phrase if phrase is not None else self._dsl(dsl_expr(e))

    def name(self, name: str, e: ast.Expr | None = None) -> str:
        if name in self.scope:
            return name
        for section in ("names", "values", "decisions"):    # a decision without arguments reads as a name
            found = self.book.get(section, name)
            if found is not None:
                return found
        self.phrase("names", name, "name")
        return self._dsl(name)

    def call(self, e: ast.Call) -> str:
        if e.name in ("legal",):           # legal(KIND): the argument is a move kind
            phrase = self.phrase("calls", e.name, "function")
            kind = e.args[0].name if e.args and isinstance(e.args[0], ast.Name) else ""
            return fill(phrase, self.move(kind)) if phrase else self._dsl(dsl_expr(e))
        # a decision read inside a condition takes its `calls` phrase when it has one ("p still plays a
        # turn"), else what it decides ("the round score of p")
        section = "calls" if self.book.get("calls", e.name) is not None or \
            self.book.get("decisions", e.name) is None else "decisions"
        phrase = self.phrase(section, e.name, "function")
        if phrase is None:
            return self._dsl(dsl_expr(e))
        return fill(phrase, *[self.expr(arg) for arg in e.args])

    def binary(self, e: ast.Binary) -> str:
        # `X.attr == V`, `X.attr != V`, `X.attr in {..}`: the attribute's own phrase when it has one
        # ("the reference card was drawn"), else the operator's ("X's way of showing is drawn")
        if isinstance(e.left, ast.Attr) and e.op in ("==", "!=", "in"):
            section = "is_not" if e.op == "!=" else "is"
            phrase = self.book.get(section, e.left.name)
            if phrase is not None:
                return fill(phrase, self.expr(e.left.obj), self.expr(e.right))
        op = "in_set" if e.op == "in" and isinstance(e.right, ast.SetLit) else e.op
        if e.op in ("==", "!=") and _is_condition(e.left) and _is_condition(e.right):
            op = "same_truth" if e.op == "==" else "different_truth"     # two conditions compared
        phrase = self.phrase("operators", op, "operator")
        if phrase is None:
            return self._dsl(dsl_expr(e))
        if op in ("same_truth", "different_truth"):     # the phrase itself says where each condition ends
            return fill(phrase, self.expr(e.left), self.expr(e.right))
        return fill(phrase, self.operand(e.left, e.op, left=True), self.operand(e.right, e.op, left=False))

    def operand(self, e: ast.Expr, op: str, left: bool) -> str:
        """An operand in the words' group ("({0})") where prose would read it otherwise: an `or` or an
        `implies` inside an `and`, a condition inside a comparison, a count that a comparison continues."""
        text = self.expr(e)
        return fill(self.book.get("words", "group") or "({0})", text) if _needs_group(e, op, left) else text

    def group(self, e: ast.Expr) -> str:
        return fill(self.book.get("words", "group") or "({0})", self.expr(e))

    def joined(self, parts: list[str], join: str, last: str) -> str:
        if len(parts) <= 1:
            return "".join(parts)
        sep = self.book.get("words", join) or ", "
        final = self.book.get("words", last) or sep
        return sep.join(parts[:-1]) + final + parts[-1]

    def move(self, kind: str) -> str:
        phrase = self.phrase("moves", kind, "move")
        return phrase if phrase is not None else self._dsl(kind)

    def moves(self, kinds: list[str]) -> str:
        return self.joined([self.move(k) for k in kinds], "move_join", "move_last")

    # -- rules ------------------------------------------------------------------------------
    def form(self, key: str) -> str:
        phrase = self.phrase("forms", key, "form")
        return phrase if phrase is not None else "{0}"

    def rule(self, rule: ast.RuleDecl) -> str:
        body = rule.body
        if isinstance(body, ast.Verdict):
            text = fill(self.form("allow" if body.allow else "refuse"), self.moves(body.moves))
        elif isinstance(body, ast.Fire):
            if isinstance(body.role, ast.NoneLit):
                text = self.form("fire_none")
            else:
                text = fill(self.form("fire"), self.expr(body.role), self.expr(body.user),
                            self.book.get("words", f"rank {body.rank}") or str(body.rank))
        else:
            self.scope += body.params
            decided = self.phrase("decisions", body.decision, "decision")
            args = body.params
            head = fill(decided, *args) if decided else self._dsl(body.decision)
            text = fill(self.form("value"), head, self.expr(body.value))
        if rule.when is not None:
            text = fill(self.form("when"), text, self.expr(rule.when))
        return capitalised(text) + "."

    def define(self, decl: ast.DefineDecl) -> str:
        self.scope += [p.name for p in decl.params]
        section = "calls" if decl.params else "names"
        head = self.book.get(section, decl.name)
        if head is None:
            self.phrase(section, decl.name, "definition" if decl.params else "name")
            head = self._dsl(decl.name)
        else:
            head = fill(head, *[p.name for p in decl.params])
        return capitalised(fill(self.form("define"), head, self.expr(decl.body))) + "."

    def decision(self, decl: ast.DecisionDecl) -> str:
        self.scope += [p.name for p in decl.params]
        head = self.phrase("decisions", decl.name, "decision")
        head = fill(head, *[p.name for p in decl.params]) if head else self._dsl(decl.name)
        return capitalised(fill(self.form("decision"), head)) + "."

    def guarantee(self, decl: ast.ClaimDecl | ast.InvariantDecl) -> str:
        return fill(self.form(decl.kind), self.expr(decl.expr))

    def precedence(self, decl: ast.PrecedenceDecl) -> str:
        return fill(self.form("precedence"), decl.higher, decl.lower)

    def card(self, decl: ast.CardDecl) -> str:
        power = fill(self.form("card_power"), self.name(decl.power)) if decl.power else self.form("card_no_power")
        return fill(self.form("card"), self.name(decl.name), str(decl.value), decl.family, power)

    def family(self, decl: ast.FamilyDecl) -> str:
        return fill(self.form("family"), decl.name, decl.description or self.form("family_no_description"))

    # -- statements -------------------------------------------------------------------------
    def statements(self, body: list[ast.Stmt]) -> list:
        """The steps of a body: a sentence each, or (sentence, sub-steps) for if/for/while."""
        steps: list = []
        for s in body:
            if isinstance(s, ast.If):
                for index, (cond, branch) in enumerate(s.branches):
                    key = "if" if index == 0 else "elif"
                    steps.append((capitalised(fill(self.statement_phrase(key, s), self.expr(cond))),
                                  self.statements(branch)))
                if s.otherwise:
                    steps.append((capitalised(self.statement_phrase("else", s)), self.statements(s.otherwise)))
            elif isinstance(s, ast.For):
                domain = self.expr(s.domain)
                self.scope.append(s.var)
                steps.append((capitalised(fill(self.statement_phrase("for", s), var=s.var, domain=domain)),
                              self.statements(s.body)))
            elif isinstance(s, ast.While):
                steps.append((capitalised(fill(self.statement_phrase("while", s), self.expr(s.cond))),
                              self.statements(s.body)))
            else:
                steps.append(capitalised(self.simple(s)) + ".")
        return steps

    def statement_phrase(self, key: str, s: ast.Stmt) -> str:
        phrase = self.phrase("statements", key, "statement")
        return phrase if phrase is not None else self._dsl(dsl_statement(s).splitlines()[0])

    def viewer(self, viewer) -> str:
        return self.name(viewer) if isinstance(viewer, str) else self.expr(viewer)

    def how(self, how: str | None) -> str:
        if how is None:
            return ""
        return fill(self.statement_phrase("as", ast.Flip(None, how)), self.name(how))

    def held(self, source: ast.Expr | None) -> str:
        return self.name("held_first") if source is None else self.expr(source)

    def simple(self, s: ast.Stmt) -> str:
        p = lambda key: self.statement_phrase(key, s)   # noqa: E731 - the statement's phrase
        if isinstance(s, ast.Ask):
            parts = []
            for asked in s.asked:
                if asked.asker is None:
                    parts.append(fill(p("ask_anyone"), self.moves(asked.kinds)))
                else:
                    parts.append(fill(p("ask"), self.expr(asked.asker), self.moves(asked.kinds)))
            return self.joined(parts, "move_join", "move_last")
        if isinstance(s, ast.ResolvePowers):
            return p("resolve_powers")
        if isinstance(s, ast.Set):
            target = self.name(s.target) if s.owner is None else \
                fill(self.phrase("attributes", s.target, "attribute") or self._dsl(s.target), self.expr(s.owner))
            if isinstance(s.value, ast.BoolLit):      # a flag: "from now on, the BAO shield is up"
                return fill(p("set_true" if s.value.value else "set_false"), target)
            if isinstance(s.value, (ast.Unary, ast.Binary)) and s.value.op in _CONDITIONS:
                return fill(p("set_bool"), target, self.expr(s.value))
            return fill(p("set"), target, self.expr(s.value))
        if isinstance(s, ast.Let):
            value = self.expr(s.value)
            self.scope.append(s.name)
            return fill(p("let"), s.name, value)
        if isinstance(s, ast.CallProc):
            called = self.phrase("procedures", s.name, "procedure")
            called = fill(called, *[self.expr(a) for a in s.args]) if called else self._dsl(s.name)
            return fill(p("call"), called)
        if isinstance(s, ast.Draw):
            return fill(p("draw_seen" if s.seen else "draw_unseen"), self.expr(s.player), self.expr(s.count),
                        self.how(s.how))
        if isinstance(s, ast.Flip):
            return fill(p("flip"), self.how(s.how))
        if isinstance(s, ast.Discard):
            return fill(p("discard"), self.held(s.source), self.how(s.how))
        if isinstance(s, ast.Bury):
            return fill(p("bury"), self.held(s.source))
        if isinstance(s, ast.Place):
            return fill(p("place"), self.expr(s.slot), self.viewer(s.viewer))
        if isinstance(s, ast.TakeTop):
            return p("take_top")
        if isinstance(s, ast.Swap):
            return fill(p("swap"), self.expr(s.first), self.expr(s.second))
        if isinstance(s, ast.Move):
            return fill(p("move"), self.expr(s.source), self.expr(s.dest))
        if isinstance(s, ast.Reveal):
            return fill(p("reveal"), self.expr(s.slot), self.viewer(s.viewer), self.how(s.how))
        if isinstance(s, ast.CloseReference):
            return p("close_reference")
        if isinstance(s, ast.Shuffle):
            return p("shuffle")
        if isinstance(s, ast.Deal):
            return fill(p("deal"), self.expr(s.count))
        return self._dsl(dsl_statement(s))


@dataclass
class Rendered:
    """A declaration in plain language: its sentence, its steps (procedures, handlers, powers),
    and what the phrasebook lacked."""
    sentence: str
    steps: list = field(default_factory=list)
    missing: list[str] = field(default_factory=list)


def render(decl: ast.Decl, book: Phrasebook) -> Rendered:
    r = Renderer(book)
    steps: list = []
    if isinstance(decl, ast.RuleDecl):
        sentence = r.rule(decl)
    elif isinstance(decl, (ast.ClaimDecl, ast.InvariantDecl)):
        sentence = capitalised(r.guarantee(decl)) + "."
    elif isinstance(decl, ast.DefineDecl):
        sentence = r.define(decl)
    elif isinstance(decl, ast.DecisionDecl):
        sentence = r.decision(decl)
    elif isinstance(decl, ast.PrecedenceDecl):
        sentence = capitalised(r.precedence(decl)) + "."
    elif isinstance(decl, ast.CardDecl):
        sentence = capitalised(r.card(decl)) + "."
    elif isinstance(decl, ast.FamilyDecl):
        sentence = capitalised(r.family(decl)) + "."
    elif isinstance(decl, ast.ProcedureDecl):
        r.scope += [p.name for p in decl.params]
        head = r.phrase("procedures", decl.name, "procedure")
        head = fill(head, *[p.name for p in decl.params]) if head else r._dsl(decl.name)
        sentence = capitalised(fill(r.form("procedure"), head)) + ":"
        steps = r.statements(decl.body)
    elif isinstance(decl, ast.HandlerDecl):
        sentence = capitalised(fill(r.form("handler_anytime" if decl.anytime else "handler"), r.move(decl.name))) + ":"
        steps = r.statements(decl.body)
    elif isinstance(decl, ast.PowerDecl):
        head = r.book.get("names", decl.name) or r._dsl(decl.name)
        if r.book.get("names", decl.name) is None:
            r.phrase("names", decl.name, "power")
        sentence = capitalised(fill(r.form("power"), head, decl.description)) + ":"
        steps = r.statements(decl.body)
    elif isinstance(decl, ast.RemoveDecl):
        sentence = capitalised(fill(r.form("remove"), decl.target_kind, decl.name)) + "."
    else:
        sentence = r._dsl(decl.name)
    return Rendered(sentence, steps, r.missing)
