"""Mutants of a spec: one small change each, made on the syntax tree.

`baobei mutate` (baobei/mutate.py) asks of each mutant whether anything the rules author has
(scenarios, recorded games, claims) notices it. This module only makes them: it lists every
place a change can be made in the declarations that decide play (rules, defines, procedures,
handlers, powers, cards, variables' initial values) and in the edition's values, and applies
one change to a copy of the parsed tree. Claims and invariants are never mutated: they are
what judges a mutant.

A mutant is known by its number: the place of its change in the list, which depends only on
the spec's trees and the edition, so the same spec gives the same numbers in every process.
"""
from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass
from typing import Any

from . import ast, unparse
from .edition import Edition
from .errors import Loc
from .layers import Layered

# What a comparison becomes: its negation for == and !=, its boundary neighbour otherwise.
COMPARISONS = {"==": "!=", "!=": "==", "<": "<=", "<=": "<", ">": ">=", ">=": ">"}
MUTATED_KINDS = ("rule", "define", "procedure", "on", "power", "card", "var")
# Fields of a tree node that say where it was written, not what it says.
_PLACE_FIELDS = {"loc", "layer", "name_loc", "extent", "mentions", "sources", "type", "ref"}


@dataclass(frozen=True)
class Mutation:
    """One change: where (a declaration and the path to a node inside it) and what."""

    number: int
    operator: str           # negate, drop, compare, constant, verdict, remove, rank, value, family, edition
    decl_kind: str          # the namespace of the declaration changed ("edition" for an edition value)
    decl_name: str
    path: tuple             # field names and list indexes from the declaration to the node
    replacement: Any        # what the operator needs: an operator, a number, an index, a name
    change: str             # what changes, as the author reads it: "`a and b` -> `a`"
    loc: Loc

    @property
    def title(self) -> str:
        what = "edition" if self.decl_kind == "edition" else f"{self.decl_kind} {self.decl_name}"
        return f"mutant {self.number}: {what}: {self.change}"


# ---- listing the places ------------------------------------------------------------------

def mutations(layered: Layered, edition: Edition) -> list[Mutation]:
    """Every mutant of these layers and this edition, numbered in order."""
    families = list(layered.namespace("family"))
    found: list[tuple] = []
    for kind in MUTATED_KINDS:
        for decl in layered.namespace(kind).values():
            found += _of_declaration(decl, families)
    found += _of_edition(edition)
    return [Mutation(number, *item) for number, item in enumerate(found, start=1)]


def _of_declaration(decl: ast.Decl, families: list[str]) -> list[tuple]:
    kind, name = decl.kind, decl.name
    found: list[tuple] = []
    if isinstance(decl, ast.RuleDecl):
        found.append(("remove", kind, name, (), None, f"{decl.level_name} removed", decl.loc))
        body = decl.body
        if isinstance(body, ast.Verdict):
            verb = "refuse" if body.allow else "allow"
            found.append(("verdict", kind, name, ("body",), None,
                          f"`{'allow' if body.allow else 'refuse'}` -> `{verb}`", body.loc))
        if isinstance(body, ast.Fire):
            for step in (1, -1):
                if body.rank + step >= 1:
                    found.append(("rank", kind, name, ("body",), body.rank + step,
                                  f"rank {body.rank} -> {body.rank + step}", body.loc))
    if isinstance(decl, ast.CardDecl):
        for step in (1, -1):
            found.append(("value", kind, name, (), decl.value + step,
                          f"value {decl.value} -> {decl.value + step}", decl.loc))
        if decl.family in families and len(families) > 1:
            other = families[(families.index(decl.family) + 1) % len(families)]
            found.append(("family", kind, name, (), other, f"family {decl.family} -> {other}", decl.loc))
    for path, node, condition in _expressions(decl):
        found += [(operator, kind, name, path, replacement, change, node.loc)
                  for operator, replacement, change in _expression_changes(node, condition)]
    return found


def _of_edition(edition: Edition) -> list[tuple]:
    found = []
    where = Loc(edition.path) if getattr(edition, "path", None) else Loc("edition")
    for table, title in (("deck", "cards of"), ("deal", "deal at"), ("threshold", "threshold at")):
        for key, value in sorted(getattr(edition, table).items(), key=lambda item: str(item[0])):
            label = f"{key} players" if isinstance(key, int) else key
            for step in (1, -1):
                if value + step >= 0:
                    found.append(("edition", "edition", table, (key,), value + step,
                                  f"{title} {label}: {value} -> {value + step}", where))
    return found


def _expressions(decl: ast.Decl):
    """(path, node, is a condition) for every expression inside a declaration."""
    roots = []
    if isinstance(decl, ast.RuleDecl):
        roots.append((("when",), decl.when, True))
        if isinstance(decl.body, ast.Value):
            roots.append((("body", "value"), decl.body.value, False))
    elif isinstance(decl, ast.DefineDecl):
        roots.append((("body",), decl.body, decl.body is not None and _is_bool(decl.body)))
    elif isinstance(decl, ast.VarDecl):
        roots.append((("init",), decl.init, False))
    elif isinstance(decl, (ast.ProcedureDecl, ast.PowerDecl, ast.HandlerDecl)):
        roots += list(_statement_expressions(decl.body, ("body",)))
    for path, node, condition in roots:
        if node is not None:
            yield from _sub_expressions(node, path, condition)


def _statement_expressions(body: list[ast.Stmt], path: tuple):
    for index, stmt in enumerate(body):
        here = path + (index,)
        if isinstance(stmt, ast.If):
            for number, (cond, branch) in enumerate(stmt.branches):
                yield here + ("branches", number, 0), cond, True
                yield from _statement_expressions(branch, here + ("branches", number, 1))
            yield from _statement_expressions(stmt.otherwise, here + ("otherwise",))
        elif isinstance(stmt, ast.While):
            yield here + ("cond",), stmt.cond, True
            yield from _statement_expressions(stmt.body, here + ("body",))
        elif isinstance(stmt, ast.For):
            yield here + ("domain",), stmt.domain, False
            yield from _statement_expressions(stmt.body, here + ("body",))
        else:
            for field in dataclasses.fields(stmt):
                value = getattr(stmt, field.name)
                if isinstance(value, ast.Expr) and field.name not in _PLACE_FIELDS:
                    yield here + (field.name,), value, False
                elif isinstance(value, list):
                    for k, item in enumerate(value):
                        if isinstance(item, ast.Expr):
                            yield here + (field.name, k), item, False


def _sub_expressions(node: ast.Expr, path: tuple, condition: bool):
    """The node and its sub-expressions, each with its path; `condition`: a node whose truth
    decides something (a rule's `when`, an if's test), which negation applies to."""
    yield path, node, condition
    if isinstance(node, ast.Binary) and node.op in ("and", "or"):
        # a chain `a and b and c` is one place: its items are conditions of their own
        for index, item in enumerate(_chain(node, node.op)):
            yield from _sub_expressions(item, path + (("chain", node.op, index),), True)
        return
    for name in _child_fields(node):
        child = getattr(node, name)
        if isinstance(child, list):
            for index, item in enumerate(child):
                yield from _sub_expressions(item, path + (name, index), False)
        elif isinstance(child, ast.Expr):
            inner = condition and isinstance(node, ast.Unary) and node.op == "not"
            yield from _sub_expressions(child, path + (name,), inner or (isinstance(node, ast.IfExpr) and
                                                                         name == "cond"))


def _child_fields(node: ast.Expr) -> list[str]:
    return [f.name for f in dataclasses.fields(node) if f.name not in _PLACE_FIELDS and
            (isinstance(getattr(node, f.name), ast.Expr) or isinstance(getattr(node, f.name), list))]


def _chain(node: ast.Expr, op: str) -> list[ast.Expr]:
    if isinstance(node, ast.Binary) and node.op == op:
        return _chain(node.left, op) + _chain(node.right, op)
    return [node]


def _is_bool(node: ast.Expr) -> bool:
    if isinstance(node, ast.Binary):
        return node.op in ("and", "or", "implies", "in") or node.op in COMPARISONS
    if isinstance(node, ast.Unary):
        return node.op == "not"
    if isinstance(node, ast.Quant):
        return node.kind in ("all", "any")
    return isinstance(node, ast.BoolLit)


def _expression_changes(node: ast.Expr, condition: bool) -> list[tuple]:
    """(operator, replacement, change) for one node."""
    text = _short(unparse.expr(node))
    changes = []
    if condition and not (isinstance(node, ast.Unary) and node.op == "not") and not isinstance(node, ast.BoolLit):
        changes.append(("negate", None, f"`{text}` -> `not ({text})`"))
    if isinstance(node, ast.Binary) and node.op in ("and", "or"):
        items = _chain(node, node.op)
        for index, item in enumerate(items):
            rest = _short(f" {node.op} ".join(unparse.expr(other, unparse.AND if node.op == "and" else unparse.OR)
                                            for k, other in enumerate(items) if k != index))
            changes.append(("drop", index, f"`{text}` -> `{rest}`"))
    if isinstance(node, ast.Binary) and node.op in COMPARISONS:
        changes.append(("compare", COMPARISONS[node.op], f"`{node.op}` -> `{COMPARISONS[node.op]}` in `{text}`"))
    if isinstance(node, ast.IntLit):
        for step in (1, -1):
            changes.append(("constant", node.value + step, f"`{node.value}` -> `{node.value + step}`"))
    return changes


def _short(text: str, most: int = 70) -> str:
    text = " ".join(text.split())
    return text if len(text) <= most else text[:most - 1] + "…"


# ---- making one --------------------------------------------------------------------------

def apply_to_layers(layered: Layered, mutation: Mutation) -> Layered:
    """A copy of the layers with the mutation made (the layers given stay as they were)."""
    mutant = copy.deepcopy(layered)
    names = mutant.namespace(mutation.decl_kind)
    decl = names[mutation.decl_name]
    if mutation.operator == "remove":
        del names[mutation.decl_name]
        return mutant
    if mutation.operator == "verdict":
        decl.body.allow = not decl.body.allow
    elif mutation.operator == "rank":
        decl.body.rank = mutation.replacement
    elif mutation.operator == "value":
        decl.value = mutation.replacement
    elif mutation.operator == "family":
        decl.family = mutation.replacement
    else:
        _replace(decl, mutation.path, lambda node: _changed(node, mutation))
    return mutant


def apply_to_edition(edition: Edition, mutation: Mutation) -> Edition:
    table = dict(getattr(edition, mutation.decl_name))
    table[mutation.path[0]] = mutation.replacement
    return dataclasses.replace(edition, **{mutation.decl_name: table})


def _changed(node: ast.Expr, mutation: Mutation) -> ast.Expr:
    operator, replacement = mutation.operator, mutation.replacement
    if operator == "negate":
        return ast.Unary(node.loc, "not", node)
    if operator == "drop":
        items = _chain(node, node.op)
        rest = [item for k, item in enumerate(items) if k != replacement]
        joined = rest[0]
        for item in rest[1:]:
            joined = ast.Binary(node.loc, node.op, joined, item)
        return joined
    if operator == "compare":
        return ast.Binary(node.loc, replacement, node.left, node.right)
    if operator == "constant":
        return ast.IntLit(node.loc, replacement)
    raise ValueError(f"unknown mutation operator {operator}")


def _replace(root: Any, path: tuple, change) -> Any:
    """`root` with the node at `path` replaced by change(node); tuples are rebuilt, everything
    else is changed in place (root is already a copy)."""
    if not path:
        return change(root)
    step, rest = path[0], path[1:]
    if isinstance(step, tuple):            # ("chain", op, index): an item of an and/or chain
        _, op, index = step
        items = _chain(root, op)
        items[index] = _replace(items[index], rest, change)
        joined = items[0]
        for item in items[1:]:
            joined = ast.Binary(root.loc, op, joined, item)
        return joined
    if isinstance(root, tuple):
        items = list(root)
        items[step] = _replace(items[step], rest, change)
        return tuple(items)
    if isinstance(root, list):
        root[step] = _replace(root[step], rest, change)
        return root
    setattr(root, step, _replace(getattr(root, step), rest, change))
    return root
