"""The checker's answers, kept in the cache folder (dsl/cache.py) by exactly what each question reads.

A question is one thing `check` or `diff` asks Z3 (can this rule decide, do these two rules
overlap, does this claim hold, which classes of situations does this decision split into ...).
Its key is made of everything its formula is built from:

- the text (dsl/unparse.py, without citations or positions) of every declaration in its read
  cone: the rules it is about, the definitions, decisions (with their rules), variables and
  `legal(...)`/`fires(...)` decisions they read, transitively;
- what the checker's code derives from the spec for it: the order in which rules are tried, which
  rules decide before which, where a move can be asked (the site analysis reads the procedures);
- the table every question reasons about: the cards, families, enums, powers' names and variables
  of the spec, the edition's deck, deal and thresholds, the bounds;
- the invariants it assumes (only proved ones are ever assumed), by their text and cone;
- the query timeout, the checker's code and Z3's version.

Same key, same question, same answer: `sat` with the witness it printed, or `unsat`. An answer Z3
could not give (unknown, out of time) is never kept. Keys are contents, not files: a core claim
checked under two editions is one question, solved once, and an edit re-solves only the questions
whose cone it touches.

The same question asked under other invariants can answer it too (Answers.implied): where no
situation exists while assuming some of its invariants, none exists while assuming all of them;
where one exists while assuming more, it exists while assuming fewer. So a question fr asks
under the core's invariants and its own is answered by de's `unsat`, and de's by fr's `sat`.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from baobei.dsl import ast, cache
from baobei.dsl.model import Spec, expr_text
from baobei.dsl.unparse import declaration

HERE = Path(__file__).parent
DSL_CODE = sorted((HERE.parent / "dsl").glob("*.py")) + [HERE.parent / "dsl" / "grammar.lark"]
# the code an answer comes from: the checker's translation, the language's meaning of the spec
CHECK_CODE = [HERE / f"{name}.py" for name in ("answers", "check", "effects", "sites", "smallest", "symbolic",
                                               "translate", "witness")] + [HERE.parent / "interpreter" / "moves.py"] + DSL_CODE
DIFF_CODE = CHECK_CODE + [HERE / "diff.py"]
_VERSIONS: dict[str, str] = {}


def code_version(what: str = "check") -> str:
    """The version of the code behind an answer of `check` (or `diff`) and of Z3."""
    if what not in _VERSIONS:
        import z3
        paths = DIFF_CODE if what == "diff" else CHECK_CODE
        _VERSIONS[what] = cache.digest(what, cache.sources_digest(paths), z3.get_version_string())
    return _VERSIONS[what]


# What an answer says about the situations of its question, by its status: that none exists (no
# situation, a rule that never applies) stays true when more invariants are assumed; that one
# exists (a situation, a rule that decides somewhere) stays true when fewer are. An answer with a
# witness is not implied by another: its witness must satisfy every invariant its own check proved.
NO_SITUATION = ("unsat", "dead")
A_SITUATION = ("sat", "decides")


@dataclass(frozen=True)
class Question:
    """One of check's questions: what it asks (the key of everything but the invariants it
    assumes) and those invariants (the digests of their cone's entries)."""

    asked: str
    assumed: frozenset

    @staticmethod
    def of(asked: str, invariants: "Cone") -> "Question":
        return Question(asked, frozenset(cache.digest(entry) for entry in invariants.entries))

    @property
    def key(self) -> str:
        return f"{self.asked}/{key_of(self.assumed)}"


class NotCached(Exception):
    """A question whose answer is not in the cache, asked of an Answers that may not solve."""


@dataclass
class Answers:
    """Where answers come from and go: the cache folder (unless `enabled` is false: --no-cache).
    `only_cached`: a miss raises NotCached (the caller then solves in a worker instead)."""

    enabled: bool = True
    only_cached: bool = False
    cached: int = 0            # questions answered from the cache
    solved: int = 0            # questions answered by Z3 here

    def get(self, key: str) -> dict | None:
        found = self._read(key)
        if found is None and self.only_cached:
            raise NotCached(key)
        return found

    def keep(self, key: str, answer: dict) -> None:
        if self.enabled:
            cache.write(f"answer-{key}.json", json.dumps(answer).encode("utf-8"))

    def answer(self, question: Question) -> dict | None:
        """A question's answer: the one kept under its invariants, else one that the answer to
        the same question under other invariants implies (kept under its own from then on)."""
        found = self._read(question.key)
        if found is None and self.enabled:
            found = self.implied(question)
            if found is not None:
                self.keep_answer(question, found)
        if found is None and self.only_cached:
            raise NotCached(question.key)
        return found

    def keep_answer(self, question: Question, answer: dict) -> None:
        self.keep(question.key, {**answer, "assumed": sorted(question.assumed)})

    def implied(self, question: Question) -> dict | None:
        """The answer that an answer to the same question under other invariants implies: no
        situation while assuming some of these invariants only, or a situation (with no witness
        kept) while assuming all of these and more. None when no kept answer says."""
        try:
            names = sorted(os.listdir(cache.folder() / f"answer-{question.asked}"))
        except OSError:         # no answer to this question is kept
            return None
        for name in names:
            found = self._read(f"{question.asked}/{name.removesuffix('.json')}")
            if found is None or "assumed" not in found:
                continue
            theirs, status = frozenset(found["assumed"]), found.get("status")
            if (status in NO_SITUATION and theirs <= question.assumed
                    or status in A_SITUATION and not found.get("witnessed") and theirs >= question.assumed):
                return {name: value for name, value in found.items() if name != "assumed"}
        return None

    def _read(self, key: str) -> dict | None:
        data = cache.read(f"answer-{key}.json") if self.enabled else None
        try:
            found = json.loads(data) if data is not None else None
        except ValueError:          # a damaged entry is solved again
            found = None
        return found if isinstance(found, dict) else None


def key_of(*parts) -> str:
    """A key from parts: strings, or collections of strings (a set is sorted: a cone has no order)."""
    texts = []
    for part in parts:
        if isinstance(part, (set, frozenset)):
            texts.append("\n".join(sorted(part)))
        elif isinstance(part, (list, tuple)):
            texts.append("\n".join(str(p) for p in part))
        else:
            texts.append(str(part))
    return cache.digest(*texts)


def table_text(spec: Spec, edition, bounds) -> str:
    """What every question reads of the table it reasons about: the symbolic situation's
    declarations (in their order: indexes follow it), the edition's values, the bounds."""
    lines = [repr((bounds.players, bounds.slots, bounds.held))]
    for table in (spec.families, spec.cards, spec.enums, spec.vars, spec.player_vars):
        lines += [declaration(decl) for decl in table.values()]
    lines += [f"power {name}" for name in spec.powers]
    lines.append(repr((sorted(edition.deck.items()), sorted(edition.deal.items()), sorted(edition.threshold.items()))))
    return "\n".join(lines)


@dataclass
class Cone:
    """What some declarations and expressions read: the declarations (by text, and the orders
    derived from the spec), the variables, and whether anything of the table is read (rather than
    variables alone)."""

    entries: set = field(default_factory=set)
    vars: set = field(default_factory=set)
    table: bool = False

    def add(self, other: "Cone") -> None:
        self.entries |= other.entries
        self.vars |= other.vars
        self.table = self.table or other.table


class Reads:
    """The read cones of one spec's declarations (remembered: many questions share them).
    `spec` looks names up: an expression written in another spec reads this one's meaning of
    them (diff translates one side's branch conditions with the other side's rules)."""

    def __init__(self, spec: Spec):
        self.spec = spec
        self._named: dict[tuple, Cone] = {}
        self._texts: dict[int, str] = {}
        self._building: list[tuple] = []    # the names whose cones are being made (a recursion reads them)
        self._cyclic = False

    def text(self, decl: ast.Decl) -> str:
        found = self._texts.get(id(decl))
        if found is None:
            found = self._texts[id(decl)] = f"{decl.kind} {decl.name}: {declaration(decl)}"
        return found

    def of(self, *roots) -> Cone:
        """The cone of declarations (their text and what they read) and expressions."""
        cone = Cone()
        for root in roots:
            if root is None:
                continue
            if isinstance(root, ast.Expr):
                self._walk(root, cone)
            elif isinstance(root, ast.Decl):
                cone.add(self._declaration(root))
            else:
                raise TypeError(f"not a declaration or an expression: {type(root).__name__}")
        return cone

    def _declaration(self, decl: ast.Decl) -> Cone:
        """A declaration's own cone (remembered by the declaration itself, like its text)."""
        def build():
            cone = Cone({self.text(decl)})
            for expr in _exprs(decl):
                self._walk(expr, cone)
            return cone
        return self._remember(("declaration", id(decl)), build)

    # -- what a name reads -----------------------------------------------------------------
    def define(self, name: str) -> Cone:
        return self._remember(("define", name), lambda: self._declared(self.spec.defines.get(name), "define", name))

    def decision(self, name: str) -> Cone:
        """A decision: its declaration and its rules, in the order they are tried."""
        def build():
            cone = self._declared(self.spec.decisions.get(name), "decision", name)
            cone.add(self.ordered(f"decision {name}", self.spec.value_rules(name)))
            return cone
        return self._remember(("decision", name), build)

    def legal(self, kind: str) -> Cone:
        """legal(kind): every legality rule of the kind, in the order they are tried."""
        return self._remember(("legal", kind), lambda: self.ordered(f"legal {kind}", self.spec.legality_rules(kind)))

    def fires(self, role: str) -> Cone:
        """Whether a role fires: its fire rules and the defaults, in the order they are tried."""
        def build():
            rules = [r for r in self.spec.fire_rules()
                     if isinstance(r.body.role, ast.NoneLit) or expr_text(r.body.role) == role]
            return self.ordered(f"fire {role}", rules)
        return self._remember(("fires", role), build)

    def ordered(self, what: str, rules: list) -> Cone:
        """Rules as first_match tries them (precedences decide part of the order): their order
        and their cones."""
        ordered = self.spec.first_match(rules)
        cone = self.of(*ordered)
        cone.entries.add(f"order {what}: {', '.join(r.name for r in ordered)}")
        return cone

    def _remember(self, key: tuple, build) -> Cone:
        """A name's cone, made once. A name met again while its own cone is being made (a
        recursion) adds nothing there: the outermost cone holds all of the names on the way, but
        those inside it are incomplete, so none of them is remembered."""
        found = self._named.get(key)
        if found is not None:
            return found
        if key in self._building:
            self._cyclic = True
            return Cone(table=True)
        self._building.append(key)
        try:
            found = build()
        finally:
            self._building.pop()
        if not self._cyclic or not self._building:
            self._named[key] = found
        if not self._building:
            self._cyclic = False
        return found

    def _declared(self, decl, kind: str, name: str) -> Cone:
        if decl is None:                 # not in this spec: a translation of it fails, say so
            return Cone({f"missing {kind} {name}"})
        return self.of(decl)

    def _walk(self, expr: ast.Expr, cone: Cone) -> None:
        spec = self.spec
        for node in ast.walk(expr):
            ref = getattr(node, "ref", None)
            if isinstance(node, ast.Name) and ref:
                kind = ref[0]
                if kind == "var":
                    cone.vars.add(node.name)
                    decl = spec.vars.get(node.name)
                    cone.entries.add(self.text(decl) if decl is not None else f"missing var {node.name}")
                elif kind == "define":
                    cone.add(self.define(node.name))
                elif kind == "decision":
                    cone.add(self.decision(node.name))
                elif kind == "global":
                    cone.table = True
            elif isinstance(node, ast.Call) and ref:
                kind = ref[0]
                if kind == "define":
                    cone.add(self.define(node.name))
                elif kind == "decision":
                    cone.add(self.decision(node.name))
                elif kind == "legal":
                    cone.add(self.legal(ref[1]))
                    cone.table = True
                elif kind == "fires":
                    cone.add(self.fires(expr_text(node.args[0])))
                    cone.table = True
                elif kind == "effects" or node.name in ("next_player", "changed_by_others"):
                    cone.table = True
            elif isinstance(node, ast.Attr):
                owner = node.obj.type.name if node.obj.type is not None else ""
                if owner == "slot" and node.name not in ("owner", "number"):
                    cone.table = True           # what lies in a slot is the table's
                elif owner == "player" and node.name == "slots":
                    cone.table = True
                elif owner == "player" and node.name in spec.player_vars:
                    cone.vars.add(f"player.{node.name}")
                    cone.entries.add(self.text(spec.player_vars[node.name]))
                elif owner not in ("reference", "card", "player"):
                    cone.table = True           # anything else: assume the table


def _exprs(decl: ast.Decl) -> list:
    """The expressions a declaration holds (not the statements of procedures: see sites.py)."""
    if isinstance(decl, ast.RuleDecl):
        body = decl.body
        found = [decl.when]
        if isinstance(body, ast.Value):
            found.append(body.value)
        elif isinstance(body, ast.Fire):
            found += [body.role, body.user]
        return [e for e in found if e is not None]
    if isinstance(decl, ast.DefineDecl):
        return [decl.body]
    if isinstance(decl, (ast.ClaimDecl, ast.InvariantDecl)):
        return [decl.expr]
    if isinstance(decl, ast.VarDecl):
        return [decl.init] if decl.init is not None else []
    if isinstance(decl, (ast.ProcedureDecl, ast.PowerDecl, ast.HandlerDecl)):
        found: list = []
        _collect(decl.body, found)
        return found
    return []


def _collect(value, found: list) -> None:
    """Every expression in statements (or in an expression's place), those of inner blocks too."""
    if isinstance(value, ast.Expr):
        found.append(value)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _collect(item, found)
    elif isinstance(value, (ast.Stmt, ast.Asked)):
        for name in value.__dataclass_fields__:
            if name != "loc":
                _collect(getattr(value, name), found)


@dataclass
class Assumptions:
    """Which proved invariants a question assumes.

    An invariant that reads anything of the table is assumed by every question. One that reads
    variables alone is assumed by the questions that read one of its variables (through the
    other invariants they assume, too): the others cannot tell it is there, as long as its
    variables can always be given values that satisfy it (`free`, checked once per group by
    the checker; a group that cannot is assumed everywhere). So a question reads only the
    invariants that concern it, and an invariant of one edition does not change the answers
    of the core's questions that never read its variables."""

    always: list[str]                       # invariant names, in the spec's order
    groups: list[tuple[list[str], set]]     # (names, variables) of each group of variable-only invariants
    order: list[str]

    @staticmethod
    def of(reads: Reads, proved: list[str]) -> "Assumptions":
        spec = reads.spec
        cones = {name: reads.of(spec.invariants[name]) for name in proved}
        always = [name for name in proved if cones[name].table]
        reached = set().union(*(cones[name].vars for name in always)) if always else set()
        groups: list[tuple[list[str], set]] = []
        for name in proved:
            if cones[name].table:
                continue
            names, variables = [name], set(cones[name].vars)
            for group in [g for g in groups if g[1] & variables]:
                groups.remove(group)
                names += group[0]
                variables |= group[1]
            groups.append((names, variables))
        found = Assumptions(always, [], list(proved))
        for names, variables in groups:
            if variables & reached:
                found.always += names
            else:
                found.groups.append((names, variables))
        return found

    def assume_always(self, group: tuple[list[str], set]) -> None:
        """A group whose variables cannot always satisfy it: every question assumes it."""
        self.groups.remove(group)
        self.always += group[0]

    def for_question(self, variables: set) -> tuple[list[str], list]:
        """(the invariants a question reading these variables assumes, in the spec's order; the
        groups it leaves out, whose freedom its answer relies on)."""
        names = set(self.always)
        left = []
        for group in self.groups:
            if group[1] & variables:
                names |= set(group[0])
            else:
                left.append(group)
        return [name for name in self.order if name in names], left


# ---- diff: the classes of one decision ------------------------------------------------------------

class JobKeys:
    """The keys of diff's jobs (the classes one decision splits into, checker/diff.py): what both
    sides read for it, both sides' tables and proved invariants, the side names the classes are
    told with, the witnesses (shown and spare) asked for. What every job's key holds of a side
    (its proved invariants' cone, its ask sites, its table) is made once, not once per job."""

    def __init__(self, differ, reads: tuple):
        self.differ = differ
        self.sides = []
        for (name, spec, proved), side_reads, edition, (sites, _, resolving) in zip(
                [(differ.name_a, differ.spec_a, differ.proved[0]), (differ.name_b, differ.spec_b, differ.proved[1])],
                reads, differ.editions, differ.analysed):
            invariants = side_reads.of(*(spec.invariants[invariant] for invariant in proved))
            self.sides.append((name, spec, side_reads, invariants, sites, resolving,
                               table_text(spec, edition, differ.bounds)))

    def of(self, method, argument) -> str | None:
        """A job's key; None for a job this does not know: it is solved."""
        from .diff import _branch_conditions
        differ = self.differ
        parts = [code_version("diff"), differ.timeout_ms, differ.witnesses, differ.spares, method.__name__,
                 repr(argument)]
        for name, spec, reads, invariants, sites, resolving, table in self.sides:
            cone = Cone()
            cone.add(invariants)
            if method.__name__ == "legality":
                cone.add(reads.legal(argument))
                where = [(site.power, site.asked) for site in sites if argument in site.kinds]
            elif method.__name__ == "fire":
                cone.add(reads.of(*spec.fire_rules()))
                for rule in spec.fire_rules():
                    if not isinstance(rule.body.role, ast.NoneLit):
                        cone.add(reads.fires(expr_text(rule.body.role)))
                where = sorted(str(power) for power in set(resolving))
            elif method.__name__ == "value":
                cone.add(reads.decision(argument))
                where = [differ.read_by_rules(argument)]
                for condition in _branch_conditions(differ.spec_a, argument):    # read by both sides' rules
                    cone.add(reads.of(condition))
                    where.append(_unparsed(condition))
            else:
                return None
            parts += [name, table, cone.entries, repr(where)]
        return key_of(*parts)


def _unparsed(expr) -> str:
    from baobei.dsl.unparse import expr as unparse
    return unparse(expr)
