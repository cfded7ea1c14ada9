"""`baobei check`: contradictions, gaps and dead rules inside one edition, and its claims.

Every question is one Z3 query over the symbolic situation (symbolic.py) with the
spec's rules translated (translate.py), limited to where a move can be asked
(sites.py) and to the invariants proved inductive (proofs.py); an invariant not
proved is a finding and is not assumed. A query that Z3 cannot answer in time
is reported as unknown, never as a pass.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import cached_property, partial

import z3

from baobei.dsl import ast
from baobei.dsl.edition import Edition
from baobei.dsl.model import Spec, expr_text
from baobei.dsl.schema import DECLINE_KINDS, MOVE_KINDS

from . import parallel
from .answers import Answers, Assumptions, Cone, Question, Reads, code_version, key_of, table_text
from .sites import analyse, kind_context, resolve_context
from .smallest import small_model, small_table
from .symbolic import NONE, Bounds, Situation, and_, eq_, if_, int_, new_solver, sum_
from .translate import Translator
from .witness import describe_model

DEFAULT_TIMEOUT_MS = 20_000
# whether invariants of variables alone can always hold (Checker.free): a small query, asked with
# this limit whatever the checks' own, so that which invariants a question assumes never depends
# on how busy the machine is
FREE_TIMEOUT_MS = 20_000
# Z3's resource count (not a time: the same spec gives the same queries on a busy machine) that
# a question expected to have no situation may spend in the solver kept for its base
# (Checker.proved_quickly) before a fresh solver is asked instead: most such questions need a
# small part of it, the few that need more (a claim over the whole deck) are quicker in a fresh one
QUICK_RLIMIT = 150_000





def source_text(source) -> str:
    """A citation as the spec writes it: `fr "..."`, `assumed "..."`, `reading "..."`."""
    if isinstance(source, ast.Cite):
        return f'{source.edition} "{source.text}"'
    return f'{"reading" if isinstance(source, ast.Reading) else "assumed"} "{source.text}"'


@dataclass
class RuleInfo:
    name: str
    loc: str
    level: str
    layer: str
    cites: list[str]

    @staticmethod
    def of(rule: ast.Decl) -> "RuleInfo":
        cites = [source_text(s) for s in rule.sources]
        level = rule.level_name if isinstance(rule, ast.RuleDecl) else rule.kind
        return RuleInfo(rule.name, str(rule.loc), level, rule.layer, cites)


@dataclass
class Finding:
    kind: str                  # overlap, gap, dead, masked, never, claim, invariant, play, unknown
    decision: str              # "legal pluck", "fire removed1", "order", "value score", "claim x"
    message: str
    rules: list[RuleInfo] = field(default_factory=list)
    witness: dict | None = None
    query: str = ""            # for unknown results: which query
    scenario: str | None = None  # a scenario file that plays into the finding (check --emit)

    def as_json(self) -> dict:
        return {"kind": self.kind, "decision": self.decision, "message": self.message,
                "rules": [r.__dict__ for r in self.rules], "witness": self.witness, "query": self.query,
                "scenario": self.scenario}


@dataclass
class Report:
    variant: str
    bounds: str
    findings: list[Finding] = field(default_factory=list)
    claims: list[tuple[str, str, str]] = field(default_factory=list)   # (name, status, loc)
    queries: int = 0
    seconds: float = 0.0
    assumed: list[str] = field(default_factory=list)
    edition: str = ""
    effects: list = field(default_factory=list)         # effects_keep_cards results, when claimed
    readings: list = field(default_factory=list)        # RuleInfo of each reading the spec takes
    invariants: list[tuple[str, str, str]] = field(default_factory=list)   # (name, proved/fails/unknown, loc)
    proofs: str = ""                                    # how the invariants were proved
    play: str = ""                                      # what the random-play pass played
    answers: int = 0                                    # questions asked (answers.py)
    cached: int = 0                                     # of them, answered from the cache

    @property
    def ok(self) -> bool:
        return not self.findings


class Checker:
    """The checks of one spec. Each question (answers.py) is answered from the cache when it was
    answered before, else by Z3: the symbolic situation and the translated rules are built only
    when a question needs them, so a check answered wholly from the cache never builds them."""

    def __init__(self, spec: Spec, edition: Edition, bounds: Bounds = Bounds(), timeout_ms: int = DEFAULT_TIMEOUT_MS,
                 variant: str = "", proved: list[str] = (), answers: Answers | None = None):
        self.spec = spec
        self.edition = edition
        self.bounds = bounds
        self.timeout_ms = timeout_ms
        self.proved = list(proved)
        self.answers = answers if answers is not None else Answers()
        self.sites, _, self.resolving = analyse(spec)
        self.report = Report(variant, str(bounds), edition=edition.name, assumed=list(edition.assumed))
        self.models: dict[str, list] = {}   # satisfying situations found so far, by decision
        self.reads = Reads(spec)
        self.assumptions = Assumptions.of(self.reads, self.proved)
        self.undecided = 0                  # queries Z3 could not decide (an answer with one is not kept)
        self._assumed: list[str] | None = None   # the invariants the question being solved assumes
        self._free: dict[tuple, bool] = {}
        self._kept_solvers: dict = {}      # on_a_small_table's and proved_quickly's (kept_check)
        self._move_contexts: dict = {}

    # -- built when a question is solved -------------------------------------------------------
    @cached_property
    def situation(self) -> Situation:
        return Situation(self.spec, self.edition, self.bounds)

    @cached_property
    def tr(self) -> Translator:
        return Translator(self.spec, self.situation)

    @cached_property
    def constraints(self) -> list:
        return self.situation.constraints() + value_floors(self.tr)

    @cached_property
    def invariant_terms(self) -> dict:
        return {name: self.tr.expr(self.spec.invariants[name].expr) for name in self.proved}

    @cached_property
    def assumption_literals(self) -> dict:
        """A literal per proved invariant: a kept solver holds each invariant under its literal,
        and a question assumes the invariants it assumes by assuming their literals (kept_check)."""
        return {name: z3.Bool(f"assume invariant {name}") for name in self.proved}

    @cached_property
    def kept_base(self) -> list:
        """The well-formed tables, each proved invariant under its literal (assumption_literals)."""
        return self.constraints + [z3.Implies(self.assumption_literals[name], self.invariant_terms[name])
                                   for name in self.proved]

    @cached_property
    def base(self) -> list:
        """The well-formed tables where every proved invariant holds."""
        return self.constraints + [self.invariant_terms[name] for name in self.proved]

    @cached_property
    def small_table(self) -> list:
        return small_table(self.situation)

    @cached_property
    def rules(self):
        """The spec played by the interpreter (shown_by_a_dealt_table deals its tables)."""
        from baobei.interpreter.program import program_of
        from baobei.interpreter.rules import Rules
        return Rules(self.report.variant, self.spec, program_of(self.spec), self.edition)

    @cached_property
    def table(self) -> str:
        return table_text(self.spec, self.edition, self.bounds)

    def new_solver(self, *terms):
        return new_solver(*terms, timeout_ms=self.timeout_ms)

    def question_base(self) -> list:
        """The base of the question being solved: the tables, and the invariants it assumes."""
        if self._assumed is None:
            return self.base
        return self.constraints + [self.invariant_terms[name] for name in self._assumed]

    # -- one question ---------------------------------------------------------------------------
    def ask(self, shape: tuple, cone: Cone, compute, assume_all: bool = False) -> dict | None:
        """The answer to a question: `shape` says what the code asks (with what it derives from the
        spec for it), `cone` what it reads of the spec; compute() answers it with Z3 (a dict of
        plain data, a witness under "witness"; None: undecided). From the cache when it was
        answered before; kept when Z3 decided every query of it."""
        assumed = list(self.proved) if assume_all else self.assumed_for(cone.vars)
        invariants = Cone()
        for name in assumed:
            invariants.add(self.reads.of(self.spec.invariants[name]))
        question = Question.of(key_of(code_version(), self.timeout_ms, self.table, repr(shape), cone.entries),
                               invariants)
        found = self.answers.answer(question)
        if found is not None and found.get("witnessed"):
            # a witness is a model of the question under every proved invariant: kept apart
            kept = self.answers.get(self.witness_key(question.key))
            found = {**found, "witness": kept["witness"]} if kept is not None else None
        if found is not None:
            self.answers.cached += 1
            return found
        self.answers.solved += 1
        undecided, self._assumed = self.undecided, assumed
        try:
            answer = compute()
        finally:
            self._assumed = None
        if answer is None or self.undecided != undecided:
            return answer
        witness = answer.get("witness")
        if witness is not None:
            self.answers.keep(self.witness_key(question.key), {"witness": witness})
        kept = {name: value for name, value in answer.items() if name != "witness"}
        self.answers.keep_answer(question, {**kept, "witnessed": witness is not None})
        return answer

    def witness_key(self, key: str) -> str:
        return key_of(key, "witness", self.every_invariant)

    @cached_property
    def every_invariant(self) -> set:
        """What the proved invariants read: a witness is a model under all of them."""
        everything = Cone()
        for name in self.proved:
            everything.add(self.reads.of(self.spec.invariants[name]))
        return everything.entries

    def assumed_for(self, variables: set) -> list[str]:
        """The proved invariants a question reading these variables assumes (answers.Assumptions):
        a group of invariants it leaves out must be free, or every question assumes it."""
        while True:
            names, left = self.assumptions.for_question(variables)
            bound = [group for group in left if not self.free(group)]
            if not bound:
                return names
            for group in bound:
                self.assumptions.assume_always(group)

    def free(self, group: tuple[list[str], set]) -> bool:
        """Whether these invariants (of variables alone) can hold at every table size whatever the
        rest of the table is: then a question that reads none of their variables has the same
        answer with them as without. A query Z3 cannot decide: not free (they are assumed)."""
        names = tuple(group[0])
        if names not in self._free:
            cone = Cone()
            for name in names:
                cone.add(self.reads.of(self.spec.invariants[name]))
            key = key_of(code_version(), FREE_TIMEOUT_MS, self.table, "free", cone.entries)
            found = self.answers.get(key)
            if found is None:
                found = {"free": self._satisfiable_everywhere(list(names))}
                if found["free"] is not None:
                    self.answers.keep(key, found)
            self._free[names] = bool(found["free"])
        return self._free[names]

    def _satisfiable_everywhere(self, names: list[str]) -> bool | None:
        """Each table size has a well-formed table where these invariants hold (None: unknown)."""
        terms = [self.invariant_terms[name] for name in names]
        for players in range(2, self.bounds.players + 1):
            if self.shown_by_a_dealt_table(players, terms):
                continue
            solver = new_solver(*self.constraints, *terms, self.situation.np == players, timeout_ms=FREE_TIMEOUT_MS)
            self.report.queries += 1
            result = solver.check()
            if result != z3.sat:
                return False if result == z3.unsat else None
        return True

    def shown_by_a_dealt_table(self, players: int, terms: list) -> bool:
        """Whether the table the rules deal at this many players (its first player acting)
        satisfies the well-formed tables' constraints and these terms, as Z3 evaluates them on
        it: then it is a model, found without a search (a fresh solver takes 20-30 ms a table
        size). The rules only propose the table: whatever they cannot deal, or the situation
        cannot hold, leaves the question to the solver."""
        from baobei.interpreter.engine import Ctx
        from baobei.interpreter.game import new_round
        from baobei.interpreter.state import Rng
        from .concrete import Evaluator, substitution
        try:
            rnd = new_round(self.rules, [f"P{index}" for index in range(players)], Rng(0), first=0, totals={})
            model = Evaluator(substitution(self.situation, rnd, ctx=Ctx(actor=rnd.active)))
            # one evaluation of their conjunction: a third of the time of one per term
            return model(and_([self.situation.np == players, *self.constraints, *terms])) is True
        except Exception:  # noqa: BLE001 - a table that cannot be proposed is asked of the solver
            return False

    def solve(self, assertions: list, what: str, witness: bool = False, likely: bool = False, quick: bool = True):
        """'sat' with its model, 'unsat', or 'unknown' (reported as a finding by the caller).
        `likely`: a situation is expected to exist; a small table is tried first, which is
        quicker and, when it has one, answers the full question too. Otherwise (unless `quick`
        is false) none is expected, and proved_quickly is tried first. A witness is a model under
        every proved invariant, on the smallest table that has one."""
        base = self.question_base()
        if likely:
            model = self.on_a_small_table(assertions)
            if model is not None:
                self.remember(what, model)
                return "sat", model
        elif quick and self.proved_quickly(assertions):
            return "unsat", None
        solver = self.new_solver(*base, *assertions)
        self.report.queries += 1
        result = solver.check()
        model = solver.model() if result == z3.sat else None
        reason = solver.reason_unknown() if result == z3.unknown else ""
        if result == z3.sat:
            self.remember(what, model)
            return "sat", (self.smaller(assertions) or self.whole_model(base, assertions, model)) if witness else model
        if result == z3.unsat:
            return "unsat", None
        self.undecided += 1
        self.report.findings.append(Finding("unknown", what, f"Z3 could not decide this query ({reason})",
                                            query=what))
        return "unknown", None

    def remember(self, what: str, model) -> None:
        """Keep a satisfying situation under the decision the query names (before its ':')."""
        self.models.setdefault(what.split(":")[0], []).append(model)

    def solve_together(self, queries: list[tuple[list, str]]) -> list[tuple[str, object]]:
        """solve() of each (assertions, what), for queries expected to have no situation. Each is
        first asked of the solver kept for the base (proved_quickly: the effects' obligations,
        about a third of the time of the disjunction below). What it leaves is asked as one
        query of their disjunction, whose 'unsat' says each has none: Z3 then prepares the tables
        once rather than once per query. In a model of the disjunction, the queries it satisfies
        have it as their model; the others are asked again together. Undecided: each is asked
        alone, so only the undecided are reported."""
        answers: dict[int, tuple[str, object]] = {index: ("unsat", None) for index, (assertions, _)
                                                  in enumerate(queries) if self.proved_quickly(assertions)}
        pending = [index for index in range(len(queries)) if index not in answers]
        while len(pending) > 1:
            terms = [z3.And(queries[index][0]) for index in pending]
            solver = self.new_solver(*self.question_base(), z3.Or(terms))
            self.report.queries += 1
            result = solver.check()
            if result == z3.unsat:
                answers.update((index, ("unsat", None)) for index in pending)
                pending = []
            elif result == z3.sat:
                model = solver.model()
                met = [index for index, term in zip(pending, terms)
                       if z3.is_true(model.eval(term, model_completion=True))]
                for index in met:
                    self.remember(queries[index][1], model)
                    answers[index] = ("sat", model)
                pending = [index for index in pending if index not in met]
            else:
                break
        for index in pending:      # proved_quickly has had it
            answers[index] = self.solve(*queries[index], quick=False)
        return [answers[index] for index in range(len(queries))]

    def on_a_small_table(self, assertions: list):
        """A model of the question on a small table, or None (none there, or Z3 could not tell:
        the caller then asks of the whole table). In a kept solver (kept_check): about twice as
        fast on these as a fresh solver (and slower on the claims, which are not asked here). Its
        model is never shown as a witness (the questions asked here show none): which questions
        came before it may change it, not whether it is one."""
        solver, result = self.kept_check("small table", assertions,
                                         lambda: self.new_solver(*self.kept_base, *self.small_table))
        return solver.model() if result == z3.sat else None

    def proved_quickly(self, assertions: list) -> bool:
        """Whether the question has no situation, as a kept solver (kept_check) decides within
        QUICK_RLIMIT: a fresh solver would prepare the base again (most of the time of the many
        questions that take a few ms). Only `unsat` is taken from it, a proof whichever questions
        came before; a model (which would be one of a solver that has answered them), or a
        question it leaves undecided, is asked again of a fresh solver."""
        _, result = self.kept_check("quick", assertions,
                                    lambda: new_solver(*self.kept_base, timeout_ms=self.timeout_ms,
                                                       rlimit=QUICK_RLIMIT))
        return result == z3.unsat

    def kept_check(self, which: str, assertions: list, make):
        """(solver, result) of the question in the solver kept under `which` (made by make() the
        first time, from kept_base), the question guarded by a literal of its own and asked with
        the literals of the invariants it assumes: Z3 keeps what it learned of the tables from one
        question to the next, whichever invariants each assumes (one solver rather than one per
        set of invariants: each costs 20-40 ms to prepare, and a variant's questions assume four
        or five sets)."""
        solver = self._kept_solvers.get(which)
        if solver is None:
            solver = self._kept_solvers[which] = make()
        guard = z3.Bool(f"question {self.report.queries}")
        solver.add(z3.Implies(guard, z3.And(assertions)))
        self.report.queries += 1
        assumed = self.proved if self._assumed is None else self._assumed
        return solver, solver.check(guard, *[self.assumption_literals[name] for name in assumed])

    def whole_model(self, base: list, assertions: list, model):
        """A model under every proved invariant (the question's base may assume fewer)."""
        if len(base) == len(self.base):
            return model
        solver = self.new_solver(*self.base, *assertions)
        self.report.queries += 1
        return solver.model() if solver.check() == z3.sat else model

    def smaller(self, assertions: list):
        """A model of the same query on the smallest table that has one (None: keep the first)."""
        return small_model(self.base, assertions, self.situation)

    def witness(self, model, kind: str | None = None) -> dict:
        return describe_model(self.situation, model, kind)

    def answer(self, assertions: list, what: str, kind: str | None = None, witness: bool = True,
               likely: bool = False) -> dict:
        """One query's answer as plain data: its status, and the witness of a satisfiable one."""
        status, model = self.solve(assertions, what, witness, likely)
        found = {"status": status}
        if witness and status == "sat":
            found["witness"] = self.witness(model, kind)
        return found

    # -- the contexts: where a decision is judged -------------------------------------------------
    def move_context(self, kind: str) -> list:
        """Made once per kind: the questions of a kind ask it again and again (fr's 15 kinds 73
        times in a cold check)."""
        if kind not in self._move_contexts:
            self._move_contexts[kind] = self.situation.move_shape(kind) + [kind_context(self.situation, self.sites,
                                                                                       kind)]
        return list(self._move_contexts[kind])

    def move_where(self, kind: str) -> str:
        """What move_context reads of the spec: where a move of this kind is asked."""
        return f"move {kind} asked at {[(site.power, site.asked) for site in self.sites if kind in site.kinds]}"

    def resolve_where(self) -> str:
        """What resolve_context reads of the spec: the powers running where powers are resolved."""
        return f"resolving powers in {sorted({str(power) for power in self.resolving})}"

    # -- the checks ----------------------------------------------------------------------------------
    def stages(self, claims: bool = True) -> list:
        """The checks, one after another (progress counts each as a step): every decision's,
        then, unless `claims` is false, every claim's."""
        return ([partial(self.check_legality, kind) for kind in MOVE_KINDS if self.spec.legality_rules(kind)]
                + [partial(self.check_ever_legal, kind) for kind in self.asked_kinds()]
                + [self.check_fire] + [partial(self.check_value, name) for name in self.spec.decisions]
                + [self.check_placement]
                + ([partial(self.check_claim, claim) for claim in self.spec.claims.values()] if claims else []))

    def run(self, backwards: bool = False) -> Report:
        """`backwards`: the stages from the last (the claims) to the first, for a variant checked
        beside another that goes forwards: a question both ask is then solved by the first to
        come to it, and its answer often says the other's (Answers.implied). The report is the
        same either way: what each stage adds is put back in the order of the stages."""
        started = time.perf_counter()
        stages = self.stages()
        parallel.plan(len(stages))
        added: dict[int, tuple[list, list]] = {}
        findings, claims = self.report.findings, self.report.claims
        for index in (reversed(range(len(stages))) if backwards else range(len(stages))):
            before = len(findings), len(claims)
            stages[index]()
            added[index] = findings[before[0]:], claims[before[1]:]
            del findings[before[0]:], claims[before[1]:]
            parallel.step()
        for index in sorted(added):
            findings += added[index][0]
            claims += added[index][1]
        self.report.readings = [RuleInfo.of(decl) for decl in self.spec.readings()]
        self.report.answers = self.answers.cached + self.answers.solved
        self.report.cached = self.answers.cached
        self.report.seconds = time.perf_counter() - started
        return self.report

    def check_legality(self, kind: str) -> None:
        rules = self.spec.first_match(self.spec.legality_rules(kind))
        where = self.move_where(kind)
        decision = f"legal {kind}"

        def condition(rule):
            return self.tr.condition(rule)
        for rule in rules:
            if rule.level == 0:
                continue
            self.dead_or_masked(decision, rule, self.spec.stronger(rule, rules), where,
                                lambda: self.move_context(kind), condition, kind)
        for i, first in enumerate(rules):
            for second in rules[i + 1:]:
                if not self.may_overlap(first, second) or first.body.allow == second.body.allow:
                    continue
                higher = self.spec.stronger(first, rules) + self.spec.stronger(second, rules)

                def overlap(first=first, second=second, higher=higher):
                    extra = [z3.Not(z3.Or([condition(r) for r in higher]))] if higher else []
                    return self.answer(self.move_context(kind) + [condition(first), condition(second)] + extra,
                                       f"{decision}: do {first.name} and {second.name} overlap", kind)
                found = self.ask(("overlap", decision, first.name, second.name, [r.name for r in higher], where),
                                 self.reads.of(first, second, *higher), overlap)
                if found is not None and found["status"] == "sat":
                    self.add("overlap", decision,
                             f"{first.name} {'allows' if first.body.allow else 'refuses'} and {second.name} "
                             f"{'allows' if second.body.allow else 'refuses'} the same move, with no precedence "
                             f"between them (both are {first.level_name}s)", [first, second], found["witness"])
        if not any(r.level == 0 for r in rules):
            def gap():
                conditions = [condition(r) for r in rules]
                context = self.move_context(kind)
                return self.answer(context + [z3.Not(z3.Or(conditions))] if conditions else context,
                                   f"{decision}: is it always decided", kind)
            found = self.ask(("gap", decision, [r.name for r in rules], where), self.reads.of(*rules), gap)
            if found is not None and found["status"] == "sat":
                self.add("gap", decision, f"no rule decides whether {kind} is legal here", rules, found["witness"])

    def asked_kinds(self) -> list[str]:
        """The move kinds some procedure asks for, but a decline (which a rulebook may refuse
        everywhere, as both refuse to skip a power)."""
        asked = {kind for site in self.sites for kind in site.kinds}
        return [kind for kind in MOVE_KINDS if kind in asked and kind not in DECLINE_KINDS]

    def check_ever_legal(self, kind: str) -> None:
        """A move the rules ask for must be legal somewhere it is asked."""
        def ever():
            legal, context = self.tr.legal(kind)[0], self.move_context(kind)
            if self.shown_before(f"legal {kind}", legal, context):
                return {"status": "sat"}
            return self.answer(context + [legal], f"legal {kind}: is it ever legal", witness=False, likely=True)
        found = self.ask(("ever legal", kind, self.move_where(kind)), self.reads.legal(kind), ever)
        if found is not None and found["status"] == "unsat":
            self.add("never", f"legal {kind}", f"the rules ask for {kind} but never allow it where it is asked",
                     self.spec.first_match(self.spec.legality_rules(kind)))

    def may_overlap(self, a, b) -> bool:
        """Two rules of one level that no precedence orders: where both apply, nothing says which decides."""
        return a.level == b.level and not self.spec.settled(a, b)

    def dead_or_masked(self, decision: str, rule, higher: list, where: str, context, condition,
                       kind: str | None = None, cone: Cone | None = None) -> None:
        """Whether a rule ever decides (`higher`: the rules that decide before it where both apply;
        `context()` and `condition(rule)` build the formulas, `where` says what the context reads).
        A situation already found where the rule decides settles it; else one query when the rule
        can decide (the usual case), two otherwise."""
        def compute():
            applies = context() + [condition(rule)]
            above = [condition(r) for r in higher]
            decides = z3.And(applies[-1], z3.Not(z3.Or(above))) if above else applies[-1]
            if self.shown_before(decision, decides, applies[:-1]):
                return {"status": "decides"}
            if above:
                status, _ = self.solve(applies + [z3.Not(z3.Or(above))], f"{decision}: can {rule.name} decide",
                                       likely=True)
                if status != "unsat":
                    return {"status": "decides"} if status == "sat" else None
            status, _ = self.solve(applies, f"{decision}: can {rule.name} apply", likely=True)
            if status == "unknown":
                return None
            return {"status": "dead" if status == "unsat" else "masked" if above else "decides"}
        read = self.reads.of(rule, *higher)
        if cone is not None:
            read.add(cone)
        found = self.ask(("dead or masked", decision, rule.name, [r.name for r in higher], where), read, compute)
        if found is None:
            return
        if found["status"] == "dead":
            where_asked = f" where {kind} can be asked" if kind else ""
            self.add("dead", decision, f"rule {rule.name} never applies{where_asked}", [rule])
        elif found["status"] == "masked":
            self.add("masked", decision, f"rule {rule.name} applies only where a rule that comes before it "
                                         f"decides instead: it never decides", [rule])

    def shown_before(self, decision: str, term, context: list) -> bool:
        """Whether a situation found for an earlier question has `term` hold, with the invariants
        this question assumes: then it is a model of this question (every solver holds the
        well-formed tables), and no query is needed. First those found for the same decision,
        which meet its context, then the others, whose context is checked too (about two
        in five rules decide in one of them), each only where `term` holds."""
        def holds(model, formula) -> bool:
            return z3.is_true(model.eval(formula, model_completion=True))
        assumed = z3.And(term, *[self.invariant_terms[name] for name in self._assumed])
        if any(holds(model, assumed) for model in self.models.get(decision, [])):
            return True
        whole = z3.And(*context, assumed)
        return any(holds(model, term) and holds(model, whole)
                   for other, models in self.models.items() if other != decision for model in models)

    def fire_rules(self, role: str) -> list:
        """The fire rules of a role and the defaults, in the order they are tried (Translator.fire)."""
        return self.spec.first_match([r for r in self.spec.fire_rules() if isinstance(r.body.role, ast.NoneLit)
                                      or expr_text(r.body.role) == role])

    def check_fire(self) -> None:
        roles = []
        for rule in self.spec.fire_rules():
            if not isinstance(rule.body.role, ast.NoneLit):
                text = expr_text(rule.body.role)
                if text not in roles:
                    roles.append(text)
        where = self.resolve_where()

        def context():
            return [resolve_context(self.situation, self.spec)]

        def condition(rule):
            return self.tr.condition(rule)
        outcomes = {}
        for role in roles:
            rules = self.fire_rules(role)
            outcomes[role] = rules
            real = [r for r in rules if not isinstance(r.body.role, ast.NoneLit)]
            decision = f"fire {role}"
            for rule in real:
                self.dead_or_masked(decision, rule, self.spec.stronger(rule, rules), where, context, condition)
            for i, a in enumerate(real):
                for b in real[i + 1:]:
                    if not self.may_overlap(a, b):
                        continue

                    def overlap(a=a, b=b, decision=decision):
                        differ = z3.Or(self.tr.expr(a.body.user) != self.tr.expr(b.body.user),
                                       z3.BoolVal(a.body.rank != b.body.rank))
                        return self.answer(context() + [condition(a), condition(b), differ],
                                           f"{decision}: do {a.name} and {b.name} overlap")
                    found = self.ask(("overlap", decision, a.name, b.name, where), self.reads.of(a, b), overlap)
                    if found is not None and found["status"] == "sat":
                        self.add("overlap", decision, f"{a.name} and {b.name} both fire {role} but for different "
                                                      f"players or at different ranks", [a, b], found["witness"])
        # which power comes first: two roles firing powers at the same rank is undecided
        for i, a in enumerate(roles):
            for b in roles[i + 1:]:
                ra, rb = outcomes[a], outcomes[b]
                for x, rule_a in enumerate(ra):
                    for y, rule_b in enumerate(rb):
                        if isinstance(rule_a.body.role, ast.NoneLit) or isinstance(rule_b.body.role, ast.NoneLit):
                            continue
                        if rule_a.body.rank != rule_b.body.rank:
                            continue

                        def order(a=a, b=b, x=x, y=y, rule_a=rule_a, rule_b=rule_b):
                            (wa, rules_a), (wb, rules_b) = self.tr.fire(a), self.tr.fire(b)
                            assert rules_a == ra and rules_b == rb, "the fire rules of a role, in their order"
                            card_a, card_b = self.tr.expr(rule_a.body.role), self.tr.expr(rule_b.body.role)
                            return self.answer(context() + [wa == x, wb == y,
                                                            self.tr.card_attr(card_a, "power") != NONE,
                                                            self.tr.card_attr(card_b, "power") != NONE],
                                               f"order of {a} and {b}")
                        read = self.reads.of()
                        read.add(self.reads.fires(a))
                        read.add(self.reads.fires(b))
                        found = self.ask(("order", a, b, x, y, where), read, order)
                        if found is not None and found["status"] == "sat":
                            self.add("gap", "order of powers",
                                     f"{a} and {b} fire at the same rank {rule_a.body.rank}: no rule decides "
                                     f"which power comes first", [rule_a, rule_b], found["witness"])

    def check_value(self, name: str) -> None:
        decl = self.spec.decisions[name]
        rules = self.spec.first_match(self.spec.value_rules(name))
        decision = f"value {name}"
        arguments: list = []        # the decision's symbolic arguments, made once, when needed

        def context():
            if not arguments:
                arguments.append(self.situation.decision_arguments(decl, "arg"))
            return list(arguments[0][1])

        def condition(rule):
            context()
            return self.tr.condition(rule, arguments[0][0])

        def value(rule):
            context()
            args = arguments[0][0]
            return self.tr.expr(rule.body.value, self.tr.rule_env(rule, args))
        where = f"arguments of {name}"
        declared = self.reads.of(decl)
        for rule in rules:
            self.dead_or_masked(decision, rule, self.spec.stronger(rule, rules), where, context, condition,
                                cone=declared)
        for i, a in enumerate(rules):
            for b in rules[i + 1:]:
                if not self.may_overlap(a, b):
                    continue
                higher = self.spec.stronger(a, rules) + self.spec.stronger(b, rules)

                def overlap(a=a, b=b, higher=higher):
                    differ = z3.Not(self.tr.equal(value(a), value(b), decl.type))
                    above = [condition(r) for r in higher]
                    return self.answer(context() + [condition(a), condition(b), differ] +
                                       ([z3.Not(z3.Or(above))] if above else []),
                                       f"{decision}: do {a.name} and {b.name} overlap")
                found = self.ask(("overlap", decision, a.name, b.name, [r.name for r in higher], where),
                                 self.reads.of(decl, a, b, *higher), overlap)
                if found is not None and found["status"] == "sat":
                    self.add("overlap", decision, f"{a.name} and {b.name} both decide {name} with different "
                                                  f"values", [a, b], found["witness"])
        if not any(r.level == 0 for r in rules):
            def gap():
                conditions = [condition(r) for r in rules]
                return self.answer(context() + ([z3.Not(z3.Or(conditions))] if conditions else []),
                                   f"{decision}: is it always decided")
            found = self.ask(("gap", decision, [r.name for r in rules], where), self.reads.of(decl, *rules), gap)
            if found is not None and found["status"] == "sat":
                self.add("gap", decision, f"no rule decides {name} here", rules or [decl], found["witness"])

    def check_placement(self) -> None:
        """Where does an added card go: wherever a player must place a card, some slot is legal."""
        kind = "place"
        if not any(kind in site.kinds for site in self.sites):
            return

        def placement():
            s = self.situation
            legal = self.tr.legal(kind)[0]
            target = s.targets[0]
            options = []
            for n in range(1, self.bounds.slots + 2):
                candidate = z3.substitute(legal, (target.p, s.actor), (target.n, z3.IntVal(n)), (s.tc, z3.IntVal(1)),
                                          (s.targets[1].p, z3.IntVal(NONE)), (s.targets[1].n, z3.IntVal(0)),
                                          (s.chosen, z3.IntVal(NONE)))
                options.append(z3.And(n <= s.slot_count(s.actor) + 1, candidate))
            context = [kind_context(s, self.sites, kind), s.hc >= 1, s.slot_count(s.actor) < self.bounds.slots]
            return self.answer(context + [z3.Not(z3.Or(options))], "where does an added card go", kind)
        found = self.ask(("placement", self.move_where(kind)), self.reads.legal(kind), placement)
        if found is not None and found["status"] == "sat":
            self.add("gap", "legal place", "a card must be placed, but no slot is legal for it",
                     self.spec.first_match(self.spec.legality_rules(kind)), found["witness"])

    def check_claim(self, claim: ast.ClaimDecl) -> None:
        if isinstance(claim.expr, ast.Call) and claim.expr.ref == ("effects", None):
            return self.check_effects(claim)
        kinds = sorted(_legal_kinds(claim.expr))

        def holds():
            context = []
            for kind in kinds:
                context += self.move_context(kind)
            return self.answer(context + [z3.Not(self.tr.expr(claim.expr))], f"claim {claim.name}",
                               kinds[0] if kinds else None)
        found = self.ask(("claim", [self.move_where(kind) for kind in kinds]), self.reads.of(claim), holds)
        status = found["status"] if found is not None else "unknown"
        loc = str(claim.loc)
        if status == "unsat":
            self.report.claims.append((claim.name, "holds", loc))
        elif status == "sat":
            self.report.claims.append((claim.name, "fails", loc))
            self.add("claim", f"claim {claim.name}", f"claim {claim.name} does not hold", [claim], found["witness"])
        else:
            self.report.claims.append((claim.name, "unknown", loc))

    def check_effects(self, claim: ast.ClaimDecl) -> None:
        from .effects import EffectResult, effects_keep_cards, handlers_read, renamed, statement_names
        names = statement_names(self.spec)
        places = {name: place for place, name in names.items()}

        def compute():
            results = effects_keep_cards(self)
            if any(result.status == "unknown" for result in results):
                self.undecided += 1         # an undecided result is never kept
            return {"results": [renamed(result.__dict__, names) for result in results]}
        read, where = handlers_read(self)
        found = self.ask(("effects", where), read, compute, assume_all=True)
        results = [EffectResult(**renamed(result, places)) for result in found["results"]] if found is not None else []
        self.report.effects = results
        statuses = {r.status for r in results}
        status = "fails" if "violated" in statuses else ("unknown" if "unknown" in statuses or found is None
                                                         else "holds")
        self.report.claims.append((claim.name, status, str(claim.loc)))
        for result in results:
            if result.status == "violated":
                self.add("claim", f"claim {claim.name}", f"{result.where}: {result.what} does not always hold",
                         [claim], result.witness)

    def add(self, kind: str, decision: str, message: str, rules, witness=None) -> None:
        self.report.findings.append(Finding(kind, decision, message, [RuleInfo.of(r) for r in rules], witness))


def value_floors(tr: Translator) -> list:
    """Facts of every table, given to the solver beside the constraints: each card the table holds
    (in a layout, in hand, on top of the discard) is worth at least the sum of the negative card
    values over the ids it may be, of which it is one at most. They leave out no table; they let
    the arithmetic see at once that a card of none of those ids is worth 0 or more, where it would
    otherwise try the ids one by one: the claim that a negative BAO always succeeds takes a
    quarter of its time, and a variant's questions a third less of Z3's work. (Not in diff's
    comparisons, which turn on no such sum: there they are only more terms, a tenth slower.)"""
    s, cards = tr.s, tr.spec.cards
    negative = [(index, cards[name].value) for index, name in enumerate(s.ix.cards) if cards[name].value < 0]
    return [tr.card_attr(place, "value") >= sum_([if_(eq_(place, index), int_(value), int_(0))
                                                  for index, value in negative] or [int_(0)])
            for place in s.card_places()]


def _start_table(failure) -> dict | None:
    """What a rules author reads of a proof's witness: the table the moves start from, and the moves
    (the machinery's bookkeeping at that point is left out)."""
    if failure.witness is None:
        return None
    kept = ("players", "layouts", "active", "reference", "held", "vars", "player_vars")
    return {**{key: failure.witness[key] for key in kept if key in failure.witness}, "moves": failure.moves}


def _legal_kinds(expr) -> set[str]:
    return {e.ref[1] for e in ast.walk(expr) if isinstance(e, ast.Call) and e.ref and e.ref[0] == "legal"}


def check(spec: Spec, edition: Edition, variant: str, bounds: Bounds = Bounds(),
          timeout_ms: int = DEFAULT_TIMEOUT_MS, proofs: list | None = None,
          progress: bool = False, answers: Answers | None = None, backwards: bool = False) -> Report:
    """The checks of one variant, assuming the invariants its proofs (proofs.py, made here when not
    given) proved at every table size; what they did not prove comes first among the findings.
    `backwards`: see Checker.run; `progress`: show the proofs made here on stderr;
    `answers`: where answers come from (default: the cache)."""
    from .proofs import prove_all, proved_everywhere
    if proofs is None:
        use_cache = answers is None or answers.enabled
        proofs = prove_all([(spec, edition)], bounds, timeout_ms, use_cache, progress=progress)[0]
    checker = Checker(spec, edition, bounds, timeout_ms, variant, proved_everywhere(spec, proofs), answers)
    add_proofs(checker.report, spec, proofs)
    report = checker.run(backwards)
    parallel.keep_until_exit(checker)
    return report


def add_proofs(report: Report, spec: Spec, proofs: list) -> None:
    """The invariants' statuses, and a finding for each invariant (or precondition) that fails or
    is undecided, at the smallest table where it does (the others named)."""
    failures: dict = {}
    for proof in proofs:
        for failure in proof.failures:
            failures.setdefault((failure.invariant, failure.what, failure.status), []).append((proof.players, failure))
    for name, decl in spec.invariants.items():
        statuses = {status for (invariant, _, status) in failures if invariant == name}
        status = "fails" if "fails" in statuses else "unknown" if statuses else "proved"
        report.invariants.append((name, status, str(decl.loc)))
    for (name, what, status), found in failures.items():
        tables = ", ".join(str(players) for players in sorted({players for players, _ in found}))
        first = found[0][1]
        others = f"; and {len(found) - 1} more place(s)" if len(found) > 1 else ""
        rules = [RuleInfo.of(spec.invariants[name])] if name else []
        subject = f"invariant {name}" if name else what
        decision = f"invariant {name}" if name else "precondition"
        if status == "unknown":
            why = f"{first.what}" if name and first.what else "Z3 could not decide it"
            message = f"{subject} is not proved at {first.where} ({tables} players{others}): {why}"
            report.findings.append(Finding("unknown", decision, message, rules, query=f"{subject} at {first.where}"))
            continue
        moves = "; ".join(first.moves) or "no move"
        message = (f"{subject} does not hold at {first.where}, in {first.start} from a state where every proved "
                   f"fact holds, after: {moves} (at {tables} players{others})")
        report.findings.append(Finding("invariant", decision, message, rules, _start_table(first)))
    cached = sum(proof.cached for proof in proofs)
    slots = sorted({proof.slots for proof in proofs})
    report.proofs = (f"tables up to {'-'.join(map(str, slots))} slots; "
                     f"{sum(p.queries for p in proofs)} queries, {sum(p.seconds for p in proofs):.1f} s"
                     + (f"; {cached} of {len(proofs)} table sizes from the cache" if cached else ""))
