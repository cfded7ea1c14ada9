"""Syntax trees back to text: the canonical printing of the language.

What is printed parses back to the same tree (ast.same_tree): reports and findings quote
rules with it, `declaration()` tells whether two declarations say the same thing, and the
editor's formatting (dsl/formatting.py) lays a whole file out with it.
"""
from __future__ import annotations

from dataclasses import dataclass

from . import ast

INDENT = "  "
WIDTH = 100         # a condition longer than this is wrapped at its top-level `and`s / `or`s

# Binding strength, as in the grammar: implies < or < and < not < comparisons and `in`
# < + - < * < unary - < .attribute < atoms.
IMPLIES, OR, AND, NOT, COMPARE, SUM, PRODUCT, NEG, POSTFIX, ATOM = range(1, 11)
_LEVEL = {"implies": IMPLIES, "or": OR, "and": AND, "==": COMPARE, "!=": COMPARE, "<": COMPARE,
          "<=": COMPARE, ">": COMPARE, ">=": COMPARE, "in": COMPARE, "+": SUM, "-": SUM, "*": PRODUCT}
# The level each side of a binary operator is printed at. The grammar chains `or`, `and`, `+ -`
# and `*` to the left, and allows one `implies` and one comparison without parentheses.
_SIDES = {IMPLIES: (OR, OR), OR: (OR, AND), AND: (AND, NOT), COMPARE: (SUM, SUM), SUM: (SUM, PRODUCT),
          PRODUCT: (PRODUCT, NEG)}


# ---- expressions -----------------------------------------------------------------------

def expr(e: ast.Expr, outer: int = 0) -> str:
    """An expression, in parentheses where it sits inside something binding more strongly."""
    return _expr(e, outer, last=True)


def _expr(e: ast.Expr, outer: int, last: bool) -> str:
    """`last`: nothing of the enclosing expression follows. A quantifier's body and an if's
    else branch reach as far right as they can, so such an expression needs parentheses
    unless it is last; it gets them whenever it is an operand (outer > 0), to read clearly."""
    if isinstance(e, ast.IntLit):
        return _wrap(str(e.value), NEG if e.value < 0 else ATOM, outer)
    if isinstance(e, ast.BoolLit):
        return "true" if e.value else "false"
    if isinstance(e, ast.NoneLit):
        return "none"
    if isinstance(e, ast.Name):
        return e.name
    if isinstance(e, ast.Attr):
        return f"{_expr(e.obj, POSTFIX, last=False)}.{e.name}"
    if isinstance(e, ast.Call):
        return f"{e.name}({_list(e.args)})"
    if isinstance(e, ast.SetLit):
        return "{" + _list(e.items) + "}"
    if isinstance(e, ast.Unary):
        if e.op == "not":
            # `not a == b` negates the comparison; the parentheses say so
            operand = _expr(e.operand, COMPARE + 1 if _is_comparison(e.operand) else NOT, last or outer > NOT)
            return _wrap(f"not {operand}", NOT, outer)
        return _wrap(f"-{_expr(e.operand, NEG, last or outer > NEG)}", NEG, outer)
    if isinstance(e, ast.Binary):
        level = _LEVEL[e.op]
        inside = last or outer > level      # in parentheses, nothing follows
        left_level, right_level = _SIDES[level]
        text = f"{_expr(e.left, left_level, False)} {e.op} {_expr(e.right, right_level, inside)}"
        return _wrap(text, level, outer)
    if isinstance(e, ast.Quant):
        text = f"{e.kind} {e.var} in {_expr(e.domain, SUM, False)}: {expr(e.body)}"
        return text if last and outer == 0 else f"({text})"
    if isinstance(e, ast.IfExpr):
        # an if or a quantifier inside the condition or the then branch needs no parentheses,
        # but reads better with them
        text = f"if {_expr(e.cond, 0, False)} then {_expr(e.then, 0, False)} else {expr(e.other)}"
        return text if last and outer == 0 else f"({text})"
    raise TypeError(f"not an expression: {type(e).__name__}")


def _is_comparison(e: ast.Expr) -> bool:
    return isinstance(e, ast.Binary) and _LEVEL[e.op] == COMPARE


def _wrap(text: str, level: int, outer: int) -> str:
    return f"({text})" if level < outer else text


def _list(items: list[ast.Expr]) -> str:
    return ", ".join(expr(item) for item in items)


def wrapped(prefix: str, e: ast.Expr, width: int = WIDTH) -> list[str]:
    """`prefix` then the expression. One too long for a line continues under its first column:
    an `and`/`or` chain with as many operands a line as fit, each line beginning with its
    operator; another operator's right side on a line of its own; an if's `else` likewise."""
    text = expr(e)
    if len(prefix) + len(text) <= width:
        return [prefix + text]
    pad = " " * len(prefix)
    if isinstance(e, ast.IfExpr):
        return [f"{prefix}if {_expr(e.cond, 0, False)} then {_expr(e.then, 0, False)}", f"{pad}else {expr(e.other)}"]
    if not isinstance(e, ast.Binary):
        return [prefix + text]
    left_level, right_level = _SIDES[_LEVEL[e.op]]
    if e.op not in ("and", "or"):
        return [prefix + _expr(e.left, left_level, False), f"{pad}{e.op} {_expr(e.right, right_level, True)}"]
    operands = _chain(e, e.op)
    lines = [prefix + _expr(operands[0], left_level, last=False)]
    for index, operand in enumerate(operands[1:], start=1):
        part = f"{e.op} {_expr(operand, right_level, last=index == len(operands) - 1)}"
        if len(lines[-1]) + 1 + len(part) <= width:
            lines[-1] += " " + part
        else:
            lines.append(pad + part)
    return lines


def _chain(e: ast.Expr, op: str) -> list[ast.Expr]:
    """The operands of a left-nested chain of one operator: ((a and b) and c) -> a, b, c."""
    operands = []
    while isinstance(e, ast.Binary) and e.op == op:
        operands.append(e.right)
        e = e.left
    operands.append(e)
    return operands[::-1]


# ---- strings, citations, types ---------------------------------------------------------------

def string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def source(item: ast.Source) -> str:
    if isinstance(item, ast.Cite):
        return f"cite {item.edition} {string(item.text)}"
    if isinstance(item, ast.Reading):
        return f"reading {string(item.text)}"
    return f"assumed {string(item.text)}"


def params(items: list[ast.Param]) -> str:
    return f"({', '.join(f'{p.name}: {p.type}' for p in items)})" if items else ""


# ---- statements ---------------------------------------------------------------------------------

def _viewer(viewer) -> str:
    return viewer if isinstance(viewer, str) else expr(viewer)


def _as(how: str | None) -> str:
    return f" as {how}" if how is not None else ""


def _held(item: ast.Expr | None) -> str:
    return "held" if item is None else expr(item)


def _simple_statement(s: ast.Stmt) -> str:
    if isinstance(s, ast.Ask):
        return "ask " + "; ".join(f"{'anyone' if a.asker is None else expr(a.asker)}: {', '.join(a.kinds)}"
                                  for a in s.asked)
    if isinstance(s, ast.ResolvePowers):
        return "resolve powers"
    if isinstance(s, ast.Set):
        target = s.target if s.owner is None else f"{expr(s.owner)}.{s.target}"
        return f"set {target} = {expr(s.value)}"
    if isinstance(s, ast.Let):
        return f"let {s.name} = {expr(s.value)}"
    if isinstance(s, ast.CallProc):
        return f"{s.name}({_list(s.args)})"
    if isinstance(s, ast.Draw):
        return f"draw {expr(s.count)} for {expr(s.player)} {'seen' if s.seen else 'unseen'}{_as(s.how)}"
    if isinstance(s, ast.Flip):
        return f"flip as {s.how}"
    if isinstance(s, ast.Discard):
        return f"discard {_held(s.source)} as {s.how}"
    if isinstance(s, ast.Bury):
        return f"bury {_held(s.source)}"
    if isinstance(s, ast.Place):
        return f"place held into {expr(s.slot)} known to {_viewer(s.viewer)}"
    if isinstance(s, ast.TakeTop):
        return "take top"
    if isinstance(s, ast.Swap):
        return f"swap {expr(s.first)} with {expr(s.second)}"
    if isinstance(s, ast.Move):
        return f"move {expr(s.source)} to {expr(s.dest)}"
    if isinstance(s, ast.Reveal):
        return f"reveal {expr(s.slot)} to {_viewer(s.viewer)}{_as(s.how)}"
    if isinstance(s, ast.CloseReference):
        return "close reference"
    if isinstance(s, ast.Shuffle):
        return "shuffle discard and under into deck"
    if isinstance(s, ast.Deal):
        return f"deal {expr(s.count)}"
    raise TypeError(f"not a statement: {type(s).__name__}")


@dataclass
class Line:
    """One printed line and the source line it comes from (0: none), so that a formatter can
    put a file's comments back beside what they were written next to."""
    text: str
    source_line: int = 0
    comment_indent: str | None = None     # where a comment before this line goes (default: its indent)

    @property
    def indent(self) -> str:
        return self.text[:len(self.text) - len(self.text.lstrip())]


def _line_of(node) -> int:
    loc = getattr(node, "loc", None)
    return loc.line if loc is not None else 0


def _end_line(node) -> int:
    loc = getattr(node, "loc", None)
    return (loc.end_line or loc.line) if loc is not None else 0


def statement_lines(s: ast.Stmt, indent: str = "") -> list[Line]:
    inner = indent + INDENT
    if isinstance(s, ast.If):
        lines = []
        for index, (cond, body) in enumerate(s.branches):
            lines.append(Line(f"{indent}{'if' if index == 0 else 'elif'} {expr(cond)} then",
                              _line_of(s) if index == 0 else _line_of(cond), comment_indent=inner if index else None))
            lines += block_lines(body, inner)
        if s.otherwise:
            # the tree keeps no position for `else`: the line before its first statement
            lines.append(Line(f"{indent}else", max(_line_of(s.otherwise[0]) - 1, 0), comment_indent=inner))
            lines += block_lines(s.otherwise, inner)
        return lines + [Line(f"{indent}end", _end_line(s), comment_indent=inner)]
    if isinstance(s, ast.For):
        return [Line(f"{indent}for {s.var} in {expr(s.domain)} do", _line_of(s)), *block_lines(s.body, inner),
                Line(f"{indent}end", _end_line(s), comment_indent=inner)]
    if isinstance(s, ast.While):
        return [Line(f"{indent}while {expr(s.cond)} do", _line_of(s)), *block_lines(s.body, inner),
                Line(f"{indent}end", _end_line(s), comment_indent=inner)]
    return [Line(indent + _simple_statement(s), _line_of(s))]


def block_lines(body: list[ast.Stmt], indent: str) -> list[Line]:
    return [line for s in body for line in statement_lines(s, indent)]


def statement(s: ast.Stmt, indent: str = "") -> str:
    return "\n".join(line.text for line in statement_lines(s, indent))


# ---- declarations ----------------------------------------------------------------------------

def rule_body(rule: ast.RuleDecl) -> str:
    body = rule.body
    when = f" when {expr(rule.when)}" if rule.when is not None else ""
    return _rule_head(body) + when


def _rule_head(body) -> str:
    if isinstance(body, ast.Verdict):
        return f"{'allow' if body.allow else 'refuse'} {', '.join(body.moves)}"
    if isinstance(body, ast.Fire):
        return f"fire {expr(body.role)} by {expr(body.user)} rank {body.rank}"
    arguments = f"({', '.join(body.params)})" if body.params else ""
    return f"{body.decision}{arguments} = {expr(body.value)}"


def _header(decl: ast.Decl) -> str:
    """The first line of a declaration, without `replace`."""
    if isinstance(decl, ast.FamilyDecl):
        return f"family {decl.name}" + (f" {string(decl.description)}" if decl.description else "")
    if isinstance(decl, ast.CardDecl):
        power = f", power {decl.power}" if decl.power is not None else ""
        return f"card {decl.name} value {decl.value}, family {decl.family}{power}"
    if isinstance(decl, ast.EnumDecl):
        return f"enum {decl.name} = {' | '.join(decl.values)}"
    if isinstance(decl, ast.VarDecl):
        owner = "player." if decl.per_player else ""
        return f"{'game ' if decl.game else ''}var {owner}{decl.name} : {decl.type} = {expr(decl.init)}"
    if isinstance(decl, ast.DefineDecl):
        return f"define {decl.name}{params(decl.params)}"
    if isinstance(decl, ast.DecisionDecl):
        return f"decision {decl.name}{params(decl.params)} : {decl.type}"
    if isinstance(decl, ast.RuleDecl):
        return f"{decl.level_name} {decl.name}"
    if isinstance(decl, (ast.ClaimDecl, ast.InvariantDecl)):
        return f"{decl.kind} {decl.name}"
    if isinstance(decl, ast.ProcedureDecl):
        return f"procedure {decl.name}{params(decl.params)}"
    if isinstance(decl, ast.PowerDecl):
        return f"power {decl.name} {string(decl.description)}"
    if isinstance(decl, ast.HandlerDecl):
        return f"on {decl.name}" + (" anytime" if decl.anytime else "")
    if isinstance(decl, ast.PrecedenceDecl):
        return f"precedence {decl.higher} over {decl.lower}"
    if isinstance(decl, ast.RemoveDecl):
        return f"remove {decl.target_kind} {decl.name}"
    if isinstance(decl, ast.LayerDecl):
        return f"layer {decl.name}"
    raise TypeError(f"not a declaration: {type(decl).__name__}")


def _body_lines(decl: ast.Decl) -> list[Line]:
    """What follows a declaration's citations."""
    if isinstance(decl, ast.DefineDecl):
        return [Line(text, _line_of(decl.body)) for text in wrapped(INDENT + "= ", decl.body)]
    if isinstance(decl, ast.RuleDecl):
        head = INDENT + _rule_head(decl.body)
        lines = [Line(head, _line_of(decl.body))]
        if decl.when is not None:
            lines = [Line(text, _line_of(decl.body)) for text in wrapped(head + " when ", decl.when)]
        return lines
    if isinstance(decl, (ast.ClaimDecl, ast.InvariantDecl)):
        return [Line(text, _line_of(decl.expr)) for text in wrapped(INDENT + "holds ", decl.expr)]
    if isinstance(decl, (ast.ProcedureDecl, ast.PowerDecl, ast.HandlerDecl)):
        end_line = decl.extent.end_line if decl.extent is not None else 0
        return block_lines(decl.body, INDENT) + [Line("end", end_line, comment_indent=INDENT)]
    return []


def declaration_lines(decl: ast.Decl) -> list[Line]:
    """A whole declaration as the canonical layout writes it: its first line, its citations
    indented one step, then its body."""
    header = ("replace " if decl.replace else "") + _header(decl)
    lines = [Line(header, _line_of(decl))]
    lines += [Line(INDENT + source(item), _line_of(item)) for item in decl.sources]
    return lines + _body_lines(decl)


def declaration_text(decl: ast.Decl) -> str:
    return "\n".join(line.text for line in declaration_lines(decl))


def declaration(decl: ast.Decl) -> str:
    """What a declaration says, without its citations, its position and whether it replaces an
    earlier one (equal text = same meaning)."""
    parts = [_header(decl)]
    if isinstance(decl, ast.DefineDecl):
        parts.append(f"= {expr(decl.body)}")
    elif isinstance(decl, ast.RuleDecl):
        parts.append(rule_body(decl))
    elif isinstance(decl, (ast.ClaimDecl, ast.InvariantDecl)):
        parts.append(f"holds {expr(decl.expr)}")
    elif isinstance(decl, (ast.ProcedureDecl, ast.PowerDecl, ast.HandlerDecl)):
        parts += [line.text.strip() for line in block_lines(decl.body, "")] + ["end"]
    return " ".join(parts)


def spec_file(spec: ast.SpecFile) -> str:
    """A whole file: its layer, then its declarations, one blank line apart."""
    chunks = [f"layer {spec.layer}"] if spec.layer is not None else []
    chunks += [declaration_text(decl) for decl in spec.decls]
    return "\n\n".join(chunks) + "\n"
