"""Syntax trees back to text: for reports, and to tell whether two rules say the same."""
from __future__ import annotations

from . import ast

_PRECEDENCE = {"implies": 1, "or": 2, "and": 3, "not": 4, "==": 5, "!=": 5, "<": 5, "<=": 5, ">": 5, ">=": 5,
               "in": 5, "+": 6, "-": 6, "*": 7, "neg": 8}


def expr(e: ast.Expr, outer: int = 0) -> str:
    if isinstance(e, ast.IntLit):
        return str(e.value)
    if isinstance(e, ast.BoolLit):
        return "true" if e.value else "false"
    if isinstance(e, ast.NoneLit):
        return "none"
    if isinstance(e, ast.Name):
        return e.name
    if isinstance(e, ast.Attr):
        return f"{expr(e.obj, 9)}.{e.name}"
    if isinstance(e, ast.Call):
        return f"{e.name}({', '.join(expr(a) for a in e.args)})"
    if isinstance(e, ast.SetLit):
        return "{" + ", ".join(expr(i) for i in e.items) + "}"
    if isinstance(e, ast.Unary):
        op = "not" if e.op == "not" else "neg"
        text = f"not {expr(e.operand, 4)}" if op == "not" else f"-{expr(e.operand, 8)}"
        return _wrap(text, _PRECEDENCE[op], outer)
    if isinstance(e, ast.Binary):
        level = _PRECEDENCE[e.op]
        text = f"{expr(e.left, level)} {e.op} {expr(e.right, level + 1)}"
        return _wrap(text, level, outer)
    if isinstance(e, ast.Quant):
        return _wrap(f"{e.kind} {e.var} in {expr(e.domain, 6)}: {expr(e.body)}", 0, outer, always=outer > 0)
    if isinstance(e, ast.IfExpr):
        return _wrap(f"if {expr(e.cond)} then {expr(e.then)} else {expr(e.other)}", 0, outer, always=outer > 0)
    return f"<{type(e).__name__}>"


def _wrap(text: str, level: int, outer: int, always: bool = False) -> str:
    return f"({text})" if always or level < outer else text


def rule_body(rule: ast.RuleDecl) -> str:
    body = rule.body
    when = f" when {expr(rule.when)}" if rule.when is not None else ""
    if isinstance(body, ast.Verdict):
        return f"{'allow' if body.allow else 'refuse'} {', '.join(body.moves)}{when}"
    if isinstance(body, ast.Fire):
        return f"fire {expr(body.role)} by {expr(body.user)} rank {body.rank}{when}"
    params = f"({', '.join(body.params)})" if body.params else ""
    return f"{body.decision}{params} = {expr(body.value)}{when}"


def declaration(decl: ast.Decl) -> str:
    """What a declaration says, without its citations and position (equal text = same meaning)."""
    if isinstance(decl, ast.RuleDecl):
        return f"{decl.level_name} {decl.name} {rule_body(decl)}"
    if isinstance(decl, ast.DefineDecl):
        params = f"({', '.join(f'{p.name}: {p.type}' for p in decl.params)})" if decl.params else ""
        return f"define {decl.name}{params} = {expr(decl.body)}"
    if isinstance(decl, (ast.ClaimDecl, ast.InvariantDecl)):
        return f"{decl.kind} {decl.name} holds {expr(decl.expr)}"
    if isinstance(decl, ast.CardDecl):
        power = f", power {decl.power}" if decl.power else ""
        return f"card {decl.name} value {decl.value}, family {decl.family}{power}"
    if isinstance(decl, ast.VarDecl):
        return f"var {'player.' if decl.per_player else ''}{decl.name} : {decl.type} = {expr(decl.init)}"
    if isinstance(decl, ast.DecisionDecl):
        return f"decision {decl.name} : {decl.type}"
    if isinstance(decl, ast.EnumDecl):
        return f"enum {decl.name} = {' | '.join(decl.values)}"
    if isinstance(decl, (ast.ProcedureDecl, ast.PowerDecl, ast.HandlerDecl)):
        return f"{decl.kind} {decl.name} @{_body_signature(decl.body)}"
    return f"{decl.kind} {decl.name}"


def _body_signature(body) -> str:
    """Procedures compare by the shape of their statements and expressions."""
    parts = []
    for stmt in body:
        fields = []
        for key, value in vars(stmt).items():
            if key == "loc":
                continue
            if isinstance(value, ast.Expr):
                fields.append(expr(value))
            elif isinstance(value, list):
                fields.append(_body_signature(value) if value and isinstance(value[0], ast.Stmt) else
                              repr([expr(v) if isinstance(v, ast.Expr) else _item(v) for v in value]))
            else:
                fields.append(repr(value))
        parts.append(f"{type(stmt).__name__}({', '.join(fields)})")
    return "; ".join(parts)


def _item(value) -> str:
    if isinstance(value, tuple):
        return "(" + ", ".join(expr(v) if isinstance(v, ast.Expr) else _item(v) for v in value) + ")"
    if isinstance(value, list):
        return "[" + ", ".join(_item(v) if not isinstance(v, ast.Stmt) else _body_signature([v]) for v in value) + "]"
    if isinstance(value, ast.Asked):
        return f"{expr(value.asker) if value.asker else 'anyone'}: {', '.join(value.kinds)}"
    return repr(value)
