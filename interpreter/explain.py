"""Why a move is legal or refused: every legality rule of its kind, in the order the rules are
tried, with the parts of its condition that hold or fail on the table and the values they read;
the precedence that settles which one decides; their citations (`baobei why`, and the short
form in a failed scenario step's message).

Each part of a condition is one of the spec's expressions, evaluated on the round in the move's
context by the program's own compiled expressions (program.lambda_), so an explanation reads
the state exactly as the rules do: the operands of `and`, `or`, `not` and `implies`, then each
comparison with the values of its sides, a definition with its body, a quantifier with its
domain and the element that settles it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from baobei.dsl import ast, unparse

from .citations import Citer, rule_title
from .moves import Move, format_move
from .tracing import ask_site, plain, site_title, text_of

LEVELS = "exceptions, then rules, then defaults"
DEPTH = 2           # how deep definitions are opened up
READS = 6           # values listed in a short explanation


@dataclass
class Part:
    """One part of a condition and its value on the table."""

    text: str
    value: object
    reads: list[tuple[str, object]] = field(default_factory=list)    # the values it reads
    op: str | None = None                                            # and, or, implies: how its parts combine
    parts: list["Part"] = field(default_factory=list)                # its own parts
    note: str | None = None                                          # a quantifier's deciding element

    @property
    def verdict(self) -> str:
        if isinstance(self.value, bool):
            return "holds" if self.value else "fails"
        return f"is {text_of(plain(self.value))}"

    def all_reads(self) -> list[tuple[str, object]]:
        found = list(self.reads)
        for part in self.parts:
            found += [read for read in part.all_reads() if read not in found]
        return found


@dataclass
class RuleCheck:
    """One legality rule of the move's kind on this table."""

    rule: ast.RuleDecl
    applies: bool
    condition: Part | None          # None: the rule has no condition (it always applies)

    @property
    def allow(self) -> bool:
        return self.rule.body.allow

    @property
    def verdict(self) -> str:
        return "allows" if self.allow else "refuses"


@dataclass
class Settling:
    """Why the deciding rule decides where another rule applies too."""

    winner: ast.RuleDecl
    other: ast.RuleDecl
    by_level: bool
    precedences: list[ast.PrecedenceDecl]   # the chain of precedences that puts the winner first


@dataclass
class Explanation:
    move: str
    kind: str
    legal: bool
    before: tuple[str, str] | None          # refused before any rule is read: (round|ask|slot, reason)
    asked_at: str | None                    # the ask the game waits at
    checks: list[RuleCheck]                 # every rule of the kind, in first-match order
    decider: RuleCheck | None
    settling: list[Settling]
    closed_window: str | None = None        # the pass a step plays first, to close a pluck window

    @property
    def allowing(self) -> list[RuleCheck]:
        return [c for c in self.checks if c.applies and c.allow]


# ---- evaluating a condition part by part --------------------------------------------------------

class Evaluator:
    """The spec's expressions on one round, in one move's context."""

    def __init__(self, rnd, context):
        self.rnd = rnd
        self.context = context
        self.spec = rnd.program.spec
        self._compiled: dict[int, object] = {}

    def value(self, expr: ast.Expr, local: dict):
        function = self._compiled.get(id(expr))
        if function is None:
            function = self._compiled[id(expr)] = self.rnd.program.lambda_(expr)
        return function(self.rnd, self.context, local)

    def part(self, expr: ast.Expr, local: dict | None = None, depth: int = 0) -> Part:
        local = local or {}
        text = unparse.expr(expr)
        if isinstance(expr, ast.Binary) and expr.op in ("and", "or"):
            parts = [self.part(operand, local, depth) for operand in unparse._chain(expr, expr.op)]
            value = all(p.value for p in parts) if expr.op == "and" else any(p.value for p in parts)
            return Part(text, value, parts=parts, op=expr.op)
        if isinstance(expr, ast.Binary) and expr.op == "implies":
            parts = [self.part(expr.left, local, depth), self.part(expr.right, local, depth)]
            return Part(text, not parts[0].value or bool(parts[1].value), parts=parts, op="implies")
        if isinstance(expr, ast.Unary) and expr.op == "not":
            inner = self.part(expr.operand, local, depth)
            reads = [(inner.text, inner.value)] if _leaf(expr.operand) else inner.reads
            return Part(text, not inner.value, reads, parts=inner.parts, note=inner.note)
        value = self.value(expr, local)
        if isinstance(expr, ast.Binary):
            sides = [expr.left] if expr.op == "in" and isinstance(expr.right, ast.SetLit) else [expr.left, expr.right]
            return Part(text, value, self._reads(sides, local))
        if isinstance(expr, ast.Attr):
            return Part(text, value, self._reads([expr.obj], local))
        if isinstance(expr, ast.Quant):
            return Part(text, value, self._reads([expr.domain], local), note=self._deciding_element(expr, value, local))
        if isinstance(expr, ast.Call) and expr.ref and expr.ref[0] == "define":
            return Part(text, value, self._reads(expr.args, local), parts=self._opened(expr.name, expr.args, local, depth))
        if isinstance(expr, ast.Name) and expr.ref and expr.ref[0] == "define":
            return Part(text, value, parts=self._opened(expr.name, [], local, depth))
        if isinstance(expr, ast.IfExpr):
            return Part(text, value, self._reads([expr.cond], local))
        if isinstance(expr, ast.Call):
            return Part(text, value, self._reads(expr.args, local))
        return Part(text, value)

    def _reads(self, exprs: list[ast.Expr], local: dict) -> list[tuple[str, object]]:
        return [(unparse.expr(e), self.value(e, local)) for e in exprs if not _literal(e)]

    def _opened(self, name: str, args: list[ast.Expr], local: dict, depth: int) -> list[Part]:
        """A definition's body, its parameters bound to the arguments' values."""
        if depth >= DEPTH:
            return []
        decl = self.spec.defines[name]
        inner = {p.name: self.value(arg, local) for p, arg in zip(decl.params, args)}
        return [self.part(decl.body, inner, depth + 1)]

    def _deciding_element(self, expr: ast.Quant, value, local: dict) -> str | None:
        """For `any` that holds, an element for which it holds; for `all` that fails, one for
        which it fails."""
        if expr.kind not in ("any", "all") or value != (expr.kind == "any"):
            return None
        domain = self.value(expr.domain, local)
        for element in domain or ():
            if bool(self.value(expr.body, {**local, expr.var: element})) == (expr.kind == "any"):
                return f"{'for example' if expr.kind == 'any' else 'not for'} {expr.var} = {text_of(plain(element))}"
        return None


def _literal(expr: ast.Expr) -> bool:
    if isinstance(expr, (ast.IntLit, ast.BoolLit, ast.NoneLit)):
        return True
    if isinstance(expr, ast.Name) and expr.ref and expr.ref[0] == "const":
        return True
    return isinstance(expr, ast.SetLit) and all(_literal(item) for item in expr.items)


def _leaf(expr: ast.Expr) -> bool:
    return isinstance(expr, (ast.Name, ast.Attr, ast.Call))


# ---- explaining a move -----------------------------------------------------------------------------

def explain(rnd, move: Move, closed_window: str | None = None) -> Explanation:
    """Every rule of the move's kind on this round, which one decides and why."""
    spec = rnd.program.spec
    before = rnd.before_rules(move)
    checks: list[RuleCheck] = []
    if before is None or before[0] != "slot":      # a slot that does not exist is nothing a rule can read
        evaluator = Evaluator(rnd, rnd.context(move, rnd.pending))
        for rule in spec.first_match(spec.legality_rules(move.kind)):
            condition = evaluator.part(rule.when) if rule.when is not None else None
            checks.append(RuleCheck(rule, bool(condition.value) if condition else True, condition))
    decider = next((c for c in checks if c.applies), None)
    settling = []
    if decider is not None:
        settling = [_settling(spec, decider.rule, c.rule) for c in checks[checks.index(decider) + 1:] if c.applies]
    return Explanation(format_move(move), move.kind, before is None and decider is not None and decider.allow,
                       before, rnd.pending.site.label if rnd.pending is not None else None, checks, decider,
                       settling, closed_window)


def _settling(spec, winner: ast.RuleDecl, other: ast.RuleDecl) -> Settling:
    if winner.level != other.level:
        return Settling(winner, other, True, [])
    return Settling(winner, other, False, _precedence_chain(spec, winner.name, other.name))


def _precedence_chain(spec, higher: str, lower: str) -> list[ast.PrecedenceDecl]:
    """The precedences that lead from one rule to another (empty: none)."""
    paths = {higher: []}
    frontier = [higher]
    while frontier:
        name = frontier.pop(0)
        for decl in spec.precedences.values():
            if decl.higher == name and decl.lower not in paths:
                paths[decl.lower] = paths[name] + [decl]
                if decl.lower == lower:
                    return paths[lower]
                frontier.append(decl.lower)
    return []


# ---- as text ----------------------------------------------------------------------------------------

class Explainer:
    """Explanations of one variant's moves as text and JSON, with that variant's citations."""

    def __init__(self, spec, every_citation: bool = False):
        self.spec = spec
        self.citer = Citer(spec, every_citation)

    def lines(self, found: Explanation) -> list[str]:
        lines = []
        if found.closed_window:
            lines.append(f"(judged as a step plays it: after {found.closed_window} closes the pluck window)")
        if found.before is not None:
            lines += self._before_lines(found)
        elif found.decider is None:
            lines.append(f"REFUSED: no rule decides whether {found.kind} is legal here (a gap in the rules)")
        else:
            head = "LEGAL: allowed" if found.legal else "REFUSED"
            lines.append(f"{head} by {rule_title(found.decider.rule)}")
            lines += self.citer.lines(found.decider.rule, "  ")
            if found.decider.condition is not None:
                lines += self.part_lines(found.decider.condition, "  ")
            others = [c for c in found.allowing if c is not found.decider]
            if found.legal and others:
                lines.append("also allowed by " + ", ".join(rule_title(c.rule) for c in others))
        if found.checks:
            tried = "were it asked now, the rules" if found.before is not None else "the rules"
            lines.append(f"{tried} of {found.kind}, in the order they are tried ({LEVELS}):")
            for number, check in enumerate(found.checks, start=1):
                lines += self.check_lines(number, check, check is found.decider)
        if found.settling:
            lines.append("what settles it:")
            lines += ["  " + self.settling_text(s) for s in found.settling]
        return lines

    def _before_lines(self, found: Explanation) -> list[str]:
        what, reason = found.before
        lines = [f"REFUSED before any rule is read: {reason}"]
        if what == "ask":
            decl, _ = ask_site(self.spec, found.asked_at)
            lines.append(f"  the game waits at {site_title(self.spec, found.asked_at)}")
            if decl is not None:
                lines += self.citer.lines(decl, "    ")
        return lines

    def check_lines(self, number: int, check: RuleCheck, decides: bool) -> list[str]:
        status = f"applies: {check.verdict}" if check.applies else "does not apply"
        lines = [f"  {number}. {rule_title(check.rule)}: {status}{'   <- decides' if decides else ''}"]
        lines += self.citer.lines(check.rule, "       ")
        if check.condition is not None:
            lines += self.part_lines(check.condition, "       ")
        else:
            lines.append("       (no condition: it applies wherever it is asked)")
        return lines

    def part_lines(self, part: Part, indent: str) -> list[str]:
        lines = [f"{indent}{part.text}: {part.verdict}{_reads_text(part.reads)}{f'; {part.note}' if part.note else ''}"]
        for sub in part.parts:
            lines += self.part_lines(sub, indent + "  ")
        return lines

    def settling_text(self, settling: Settling) -> str:
        winner, other = settling.winner, settling.other
        verdict = "refuses" if not other.body.allow else "allows"
        head = f"{winner.level_name} {winner.name} decides before {other.level_name} {other.name}, which applies " \
               f"too ({verdict})"
        if settling.by_level:
            return f"{head}: {_a(winner.level_name)} comes before {_a(other.level_name)} ({LEVELS})"
        if settling.precedences:
            chain = "; ".join(f"precedence {p.higher} over {p.lower} ({p.loc})" +
                              "".join(f", reading: {s.text}" for s in p.sources if isinstance(s, ast.Reading))
                              for p in settling.precedences)
            return f"{head}: {chain}"
        conflict = "" if winner.body.allow == other.body.allow else \
            "; they disagree with no precedence between them: an overlap (baobei check reports it)"
        return f"{head}: both are of one level and no precedence orders them, so the one written first{conflict}"

    # -- short: a scenario step's failure message ---------------------------------------------------
    def short(self, found: Explanation, named: str | None = None) -> str:
        """The deciding rule and the parts of its condition it read; with `named` (a step's
        refused_by or allowed_by), what that rule made of the table."""
        if found.before is not None:
            what, reason = found.before
            text = f"refused: {reason}" + (f" (asked at {site_title(self.spec, found.asked_at)})" if what == "ask"
                                           else "")
        elif found.decider is None:
            text = f"refused: no rule decides whether {found.kind} is legal here (a gap in the rules)"
        else:
            verb = "allowed" if found.decider.allow else "refused"
            text = f"{verb} by {self.check_short(found.decider)}"
        if named is not None and (found.decider is None or found.decider.rule.name != named):
            check = next((c for c in found.checks if c.rule.name == named), None)
            if check is not None:
                text += f"; {self.check_short(check)}"
                settling = next((s for s in found.settling if s.other.name == named), None)
                if settling is not None:
                    text += f", but {self.settling_text(settling)}"
        return text

    def check_short(self, check: RuleCheck) -> str:
        title = rule_title(check.rule)
        if check.condition is None:
            return f"{title}, which always applies"
        if check.applies:
            return f"{title}: {check.condition.text} holds{_reads_text(check.condition.all_reads()[:READS])}"
        failing = [p for p in (check.condition.parts if check.condition.op == "and" else [check.condition])
                   if not p.value]
        return f"{title} does not apply: " + "; ".join(f"{p.text} fails{_reads_text(p.all_reads()[:READS])}"
                                                      for p in failing)

    # -- JSON ---------------------------------------------------------------------------------------
    def json(self, found: Explanation) -> dict:
        data = {"move": found.move, "legal": found.legal, "kind": found.kind,
                "decided_by": "rule" if found.decider is not None and found.before is None else
                (found.before[0] if found.before else "gap"),
                "rule": found.decider.rule.name if found.decider is not None and found.before is None else None}
        if found.before is not None:
            data["reason"] = found.before[1]
            data["waiting_at"] = site_title(self.spec, found.asked_at) if found.asked_at else None
        if found.closed_window:
            data["judged_after"] = found.closed_window
        data["rules"] = [{**self.citer.rule_json(c.rule), "verdict": c.verdict, "applies": c.applies,
                          "decides": c is found.decider,
                          "condition": _part_json(c.condition) if c.condition is not None else None}
                         for c in found.checks]
        data["settled_by"] = [{"rule": s.winner.name, "over": s.other.name, "by": "level" if s.by_level else
                               "precedence" if s.precedences else "order",
                               "precedences": [{"higher": p.higher, "lower": p.lower, "loc": str(p.loc),
                                                "cites": self.citer.json(p)} for p in s.precedences]}
                              for s in found.settling]
        return data


def _a(word: str) -> str:
    return ("an " if word[0] in "aeiou" else "a ") + word


def _reads_text(reads: list[tuple[str, object]]) -> str:
    if not reads:
        return ""
    return " (" + ", ".join(f"{text} is {text_of(plain(value))}" for text, value in reads) + ")"


def _part_json(part: Part) -> dict:
    data = {"text": part.text, "value": plain(part.value),
            "reads": [{"text": text, "value": plain(value)} for text, value in part.reads]}
    if part.note:
        data["note"] = part.note
    if part.parts:
        data["parts"] = [_part_json(p) for p in part.parts]
    return data
