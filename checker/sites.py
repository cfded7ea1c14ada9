"""Where each move can be asked: a static reading of the spec's procedures.

For every `ask` the spec writes, in which power (if any) it runs and how the
asked player relates to the table (the active player, the power's user, or
anyone). A rule about a move kind is judged only in situations where that kind
can be asked; a kind no procedure asks is never judged at all.
"""
from __future__ import annotations

from dataclasses import dataclass

import z3

from baobei.dsl import ast
from baobei.dsl.model import Spec
from baobei.dsl.schema import REQUIRED_PROCEDURES

from .symbolic import NONE, Situation

ROOT = (None, "none")   # no power running, no acting player


@dataclass(frozen=True)
class Site:
    kinds: tuple[str, ...]
    power: str | None        # the power running when it asks
    asked: str               # "active", "user" or "anyone": who may answer
    where: str


def _relation(asker, context_relation: str) -> str:
    if asker is None:
        return "anyone"
    if isinstance(asker, ast.Name):
        if asker.name in ("active", "user"):
            return asker.name
        if asker.name == "actor":
            return context_relation if context_relation in ("active", "user") else "anyone"
    return "anyone"


def ask_sites(spec: Spec) -> list[Site]:
    """Every (ask, context) pair reachable from the procedures the machinery runs."""
    return analyse(spec)[0]


def analyse(spec: Spec):
    """(ask sites, contexts of each container, containers that resolve powers)."""
    containers: dict[str, list[ast.Stmt]] = {}
    for name, decl in spec.procedures.items():
        containers[f"procedure {name}"] = decl.body
    for name, decl in spec.powers.items():
        containers[f"power {name}"] = decl.body
    for kind, decl in spec.handlers.items():
        containers[f"on {kind}"] = decl.body
    contexts: dict[str, set] = {name: set() for name in containers}
    for name in REQUIRED_PROCEDURES:
        contexts[f"procedure {name}"].add(ROOT)
    for name in spec.powers:
        contexts[f"power {name}"].add((name, "user"))
    for kind, decl in spec.handlers.items():
        if decl.anytime:
            contexts[f"on {kind}"].add((None, "anyone"))
    changed = True
    while changed:
        changed = False
        for container, body in containers.items():
            for power, relation in list(contexts[container]):
                for stmt in ast.walk_statements(body):
                    targets = []
                    if isinstance(stmt, ast.CallProc):
                        targets.append((f"procedure {stmt.name}", (power, relation)))
                    elif isinstance(stmt, ast.Ask):
                        for asked in stmt.asked:
                            who = _relation(asked.asker, relation)
                            targets += [(f"on {kind}", (power, who)) for kind in asked.kinds]
                    for target, context in targets:
                        if target in contexts and context not in contexts[target]:
                            contexts[target].add(context)
                            changed = True
    sites = []
    resolving = []
    for container, body in containers.items():
        for power, relation in sorted(contexts[container], key=str):
            for stmt in ast.walk_statements(body):
                if isinstance(stmt, ast.Ask):
                    for asked in stmt.asked:
                        sites.append(Site(tuple(asked.kinds), power, _relation(asked.asker, relation),
                                          f"{container} ({stmt.loc})"))
                elif isinstance(stmt, ast.ResolvePowers):
                    resolving.append(power)
    return sites, contexts, resolving


def kind_context(situation: Situation, sites: list[Site], kind: str):
    """The situations in which a move of this kind can be judged (False when it is never asked)."""
    options = []
    ix = situation.ix
    for site in sites:
        if kind not in site.kinds:
            continue
        power = ix.power[site.power] if site.power is not None else NONE
        parts = [situation.power == power]
        if site.asked == "active":
            parts.append(situation.actor == situation.active)
        elif site.asked == "user":
            parts.append(situation.actor == situation.user)
        options.append(z3.And(parts))
    return z3.Or(options) if options else z3.BoolVal(False)


def resolve_context(situation: Situation, spec: Spec):
    """The situations in which `resolve powers` runs (the power running there, if any)."""
    resolving = analyse(spec)[2]
    ix = situation.ix
    options = {situation.power == (ix.power[p] if p is not None else NONE) for p in resolving}
    return z3.Or(list(options)) if options else z3.BoolVal(False)
