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
from functools import partial

import z3

from baobei.dsl import ast
from baobei.dsl.edition import Edition
from baobei.dsl.model import Spec, expr_text
from baobei.dsl.schema import DECLINE_KINDS, MOVE_KINDS

from . import parallel
from .sites import analyse, kind_context, resolve_context
from .symbolic import NONE, Bounds, Situation, new_solver, small_model
from .translate import Translator
from .witness import describe_model

DEFAULT_TIMEOUT_MS = 20_000





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

    @property
    def ok(self) -> bool:
        return not self.findings


class Checker:
    def __init__(self, spec: Spec, edition: Edition, bounds: Bounds = Bounds(), timeout_ms: int = DEFAULT_TIMEOUT_MS,
                 variant: str = "", proved: list[str] = ()):
        self.spec = spec
        self.edition = edition
        self.bounds = bounds
        self.timeout_ms = timeout_ms
        self.situation = Situation(spec, edition, bounds)
        self.tr = Translator(spec, self.situation)
        self.sites = analyse(spec)[0]
        self.report = Report(variant, str(bounds), edition=edition.name, assumed=list(edition.assumed))
        self.base = self.situation.constraints() + [self.tr.expr(spec.invariants[name].expr) for name in proved]
        self.models: dict[str, list] = {}   # satisfying situations found so far, by decision
        s = self.situation
        self.small_table = [s.np <= 3] + [n <= 3 for n in s.ns]

    def new_solver(self, *terms):
        return new_solver(*terms, timeout_ms=self.timeout_ms)

    # -- one query ------------------------------------------------------------------------------
    def solve(self, assertions: list, what: str, witness: bool = False, likely: bool = False):
        """'sat' with its model, 'unsat', or 'unknown' (reported as a finding by the caller).
        `likely`: a situation is expected to exist; a small table is tried first, which is
        quicker and, when it has one, answers the full question too."""
        if likely:
            solver = self.new_solver(*self.base, *assertions, *self.small_table)
            self.report.queries += 1
            if solver.check() == z3.sat:
                model = solver.model()
                self.models.setdefault(what.split(":")[0], []).append(model)
                return "sat", model
        solver = self.new_solver(*self.base, *assertions)
        self.report.queries += 1
        result = solver.check()
        model = solver.model() if result == z3.sat else None
        reason = solver.reason_unknown() if result == z3.unknown else ""
        if result == z3.sat:
            self.models.setdefault(what.split(":")[0], []).append(model)
            return "sat", (self.smaller(assertions) or model) if witness else model
        if result == z3.unsat:
            return "unsat", None
        self.report.findings.append(Finding("unknown", what, f"Z3 could not decide this query ({reason})",
                                            query=what))
        return "unknown", None

    def smaller(self, assertions: list):
        """A model of the same query on the smallest table that has one (None: keep the first)."""
        return small_model(self.base, assertions, self.situation)

    def witness(self, model, kind: str | None = None) -> dict:
        return describe_model(self.situation, model, kind)

    # -- the checks ----------------------------------------------------------------------------------
    def stages(self, claims: bool = True) -> list:
        """The checks, one after another (progress counts each as a step): every decision's,
        then, unless `claims` is false, every claim's."""
        return ([partial(self.check_legality, kind) for kind in MOVE_KINDS if self.spec.legality_rules(kind)]
                + [partial(self.check_ever_legal, kind) for kind in self.asked_kinds()]
                + [self.check_fire] + [partial(self.check_value, name) for name in self.spec.decisions]
                + [self.check_placement]
                + ([partial(self.check_claim, claim) for claim in self.spec.claims.values()] if claims else []))

    def run(self, extra_steps: int = 0) -> Report:
        """`extra_steps`: the steps the caller adds after these (progress plans them all at once)."""
        started = time.perf_counter()
        stages = self.stages()
        parallel.plan(len(stages) + extra_steps)
        for stage in stages:
            stage()
            parallel.step()
        self.report.readings = [RuleInfo.of(decl) for decl in self.spec.readings()]
        self.report.seconds = time.perf_counter() - started
        return self.report

    def move_context(self, kind: str) -> list:
        return self.situation.move_shape(kind) + [kind_context(self.situation, self.sites, kind)]

    def check_legality(self, kind: str) -> None:
        rules = self.spec.first_match(self.spec.legality_rules(kind))
        context = self.move_context(kind)
        conditions = [self.tr.condition(r) for r in rules]
        decision = f"legal {kind}"
        for i, rule in enumerate(rules):
            if rule.level == 0:
                continue
            self.dead_or_masked(decision, rule, context + [conditions[i]], self.stronger(rule, rules, conditions),
                                kind)
        for i, first in enumerate(rules):
            for j in range(i + 1, len(rules)):
                second = rules[j]
                if not self.may_overlap(first, second) or first.body.allow == second.body.allow:
                    continue
                higher = self.stronger(first, rules, conditions) + self.stronger(second, rules, conditions)
                extra = [z3.Not(z3.Or(higher))] if higher else []
                status, model = self.solve(context + [conditions[i], conditions[j]] + extra,
                                           f"{decision}: do {first.name} and {second.name} overlap", True)
                if status == "sat":
                    self.add("overlap", decision,
                             f"{first.name} {'allows' if first.body.allow else 'refuses'} and {second.name} "
                             f"{'allows' if second.body.allow else 'refuses'} the same move, with no precedence "
                             f"between them (both are {first.level_name}s)", [first, second],
                             self.witness(model, kind))
        if not any(r.level == 0 for r in rules):
            status, model = self.solve(context + [z3.Not(z3.Or(conditions))] if conditions else context,
                                       f"{decision}: is it always decided", True)
            if status == "sat":
                self.add("gap", decision, f"no rule decides whether {kind} is legal here", rules,
                         self.witness(model, kind))

    def asked_kinds(self) -> list[str]:
        """The move kinds some procedure asks for, but a decline (which a rulebook may refuse
        everywhere, as both refuse to skip a power)."""
        asked = {kind for site in self.sites for kind in site.kinds}
        return [kind for kind in MOVE_KINDS if kind in asked and kind not in DECLINE_KINDS]

    def check_ever_legal(self, kind: str) -> None:
        """A move the rules ask for must be legal somewhere it is asked."""
        legal, _, rules = self.tr.legal(kind)
        status, _ = self.solve(self.move_context(kind) + [legal], f"legal {kind}: is it ever legal", likely=True)
        if status == "unsat":
            self.add("never", f"legal {kind}", f"the rules ask for {kind} but never allow it where it is asked",
                     rules)

    def stronger(self, rule, rules: list, conditions: list) -> list:
        """The conditions of the rules that decide before this one where both apply."""
        return [conditions[rules.index(r)] for r in self.spec.stronger(rule, rules)]

    def may_overlap(self, a, b) -> bool:
        """Two rules of one level that no precedence orders: where both apply, nothing says which decides."""
        return a.level == b.level and not self.spec.settled(a, b)

    def dead_or_masked(self, decision: str, rule, applies: list, higher: list, kind: str | None = None) -> None:
        """A situation already found where the rule decides settles it; else one query when the rule
        can decide (the usual case), two otherwise."""
        decides = z3.And(applies[-1], z3.Not(z3.Or(higher))) if higher else applies[-1]
        for model in self.models.get(decision, []):
            if z3.is_true(model.eval(decides, model_completion=True)):
                return
        if higher:
            status, _ = self.solve(applies + [z3.Not(z3.Or(higher))], f"{decision}: can {rule.name} decide",
                                   likely=True)
            if status != "unsat":
                return
        status, _ = self.solve(applies, f"{decision}: can {rule.name} apply", likely=True)
        if status == "unsat":
            where = f" where {kind} can be asked" if kind else ""
            self.add("dead", decision, f"rule {rule.name} never applies{where}", [rule])
        elif status == "sat" and higher:
            self.add("masked", decision, f"rule {rule.name} applies only where a rule that comes before it "
                                         f"decides instead: it never decides", [rule])

    def check_fire(self) -> None:
        roles = []
        for rule in self.spec.fire_rules():
            if not isinstance(rule.body.role, ast.NoneLit):
                text = expr_text(rule.body.role)
                if text not in roles:
                    roles.append(text)
        context = [resolve_context(self.situation, self.spec)]
        outcomes = {}
        for role in roles:
            winner, rules = self.tr.fire(role)
            outcomes[role] = (winner, rules)
            real = [r for r in rules if not isinstance(r.body.role, ast.NoneLit)]
            conditions = {id(r): self.tr.condition(r) for r in rules}
            decision = f"fire {role}"
            for rule in real:
                higher = [conditions[id(r)] for r in self.spec.stronger(rule, rules)]
                self.dead_or_masked(decision, rule, context + [conditions[id(rule)]], higher)
            for i, a in enumerate(real):
                for b in real[i + 1:]:
                    if not self.may_overlap(a, b):
                        continue
                    differ = z3.Or(self.tr.expr(a.body.user) != self.tr.expr(b.body.user),
                                   z3.BoolVal(a.body.rank != b.body.rank))
                    status, model = self.solve(context + [conditions[id(a)], conditions[id(b)], differ],
                                               f"{decision}: do {a.name} and {b.name} overlap", True)
                    if status == "sat":
                        self.add("overlap", decision, f"{a.name} and {b.name} both fire {role} but for different "
                                                      f"players or at different ranks", [a, b], self.witness(model))
        # which power comes first: two roles firing powers at the same rank is undecided
        for i, a in enumerate(roles):
            for b in roles[i + 1:]:
                wa, ra = outcomes[a]
                wb, rb = outcomes[b]
                for x, rule_a in enumerate(ra):
                    for y, rule_b in enumerate(rb):
                        if isinstance(rule_a.body.role, ast.NoneLit) or isinstance(rule_b.body.role, ast.NoneLit):
                            continue
                        if rule_a.body.rank != rule_b.body.rank:
                            continue
                        card_a, card_b = self.tr.expr(rule_a.body.role), self.tr.expr(rule_b.body.role)
                        status, model = self.solve(context + [wa == x, wb == y,
                                                              self.tr.card_attr(card_a, "power") != NONE,
                                                              self.tr.card_attr(card_b, "power") != NONE],
                                                   f"order of {a} and {b}", True)
                        if status == "sat":
                            self.add("gap", "order of powers",
                                     f"{a} and {b} fire at the same rank {rule_a.body.rank}: no rule decides "
                                     f"which power comes first", [rule_a, rule_b], self.witness(model))

    def check_value(self, name: str) -> None:
        decl = self.spec.decisions[name]
        rules = self.spec.first_match(self.spec.value_rules(name))
        args, context = self.situation.decision_arguments(decl, "arg")
        decision = f"value {name}"
        conditions = [self.tr.condition(r, args) for r in rules]
        values = [self.tr.expr(r.body.value, self.tr.rule_env(r, args)) for r in rules]
        for i, rule in enumerate(rules):
            self.dead_or_masked(decision, rule, context + [conditions[i]], self.stronger(rule, rules, conditions))
        for i, a in enumerate(rules):
            for j in range(i + 1, len(rules)):
                b = rules[j]
                if not self.may_overlap(a, b):
                    continue
                higher = self.stronger(a, rules, conditions) + self.stronger(b, rules, conditions)
                differ = z3.Not(self.tr.equal(values[i], values[j], decl.type))
                status, model = self.solve(context + [conditions[i], conditions[j], differ] +
                                           ([z3.Not(z3.Or(higher))] if higher else []),
                                           f"{decision}: do {a.name} and {b.name} overlap", True)
                if status == "sat":
                    self.add("overlap", decision, f"{a.name} and {b.name} both decide {name} with different "
                                                  f"values", [a, b], self.witness(model))
        if not any(r.level == 0 for r in rules):
            status, model = self.solve(context + ([z3.Not(z3.Or(conditions))] if conditions else []),
                                       f"{decision}: is it always decided", True)
            if status == "sat":
                self.add("gap", decision, f"no rule decides {name} here", rules or [decl], self.witness(model))

    def check_placement(self) -> None:
        """Where does an added card go: wherever a player must place a card, some slot is legal."""
        kind = "place"
        if not any(kind in site.kinds for site in self.sites):
            return
        s = self.situation
        legal, _, rules = self.tr.legal(kind)
        target = s.targets[0]
        options = []
        for n in range(1, self.bounds.slots + 2):
            candidate = z3.substitute(legal, (target.p, s.actor), (target.n, z3.IntVal(n)), (s.tc, z3.IntVal(1)),
                                      (s.targets[1].p, z3.IntVal(NONE)), (s.targets[1].n, z3.IntVal(0)),
                                      (s.chosen, z3.IntVal(NONE)))
            options.append(z3.And(n <= s.slot_count(s.actor) + 1, candidate))
        context = [kind_context(s, self.sites, kind), s.hc >= 1, s.slot_count(s.actor) < self.bounds.slots]
        status, model = self.solve(context + [z3.Not(z3.Or(options))], "where does an added card go", True)
        if status == "sat":
            self.add("gap", "legal place", "a card must be placed, but no slot is legal for it", rules,
                     self.witness(model, kind))

    def check_claim(self, claim: ast.ClaimDecl) -> None:
        if isinstance(claim.expr, ast.Call) and claim.expr.ref == ("effects", None):
            return self.check_effects(claim)
        kinds = sorted(_legal_kinds(claim.expr))
        context = []
        for kind in kinds:
            context += self.move_context(kind)
        status, model = self.solve(context + [z3.Not(self.tr.expr(claim.expr))], f"claim {claim.name}", True)
        loc = str(claim.loc)
        if status == "unsat":
            self.report.claims.append((claim.name, "holds", loc))
        elif status == "sat":
            self.report.claims.append((claim.name, "fails", loc))
            self.add("claim", f"claim {claim.name}", f"claim {claim.name} does not hold", [claim],
                     self.witness(model, kinds[0] if kinds else None))
        else:
            self.report.claims.append((claim.name, "unknown", loc))

    def check_effects(self, claim: ast.ClaimDecl) -> None:
        from .effects import effects_keep_cards
        results = effects_keep_cards(self)
        self.report.effects = results
        statuses = {r.status for r in results}
        status = "fails" if "violated" in statuses else ("unknown" if "unknown" in statuses else "holds")
        self.report.claims.append((claim.name, status, str(claim.loc)))
        for result in results:
            if result.status == "violated":
                self.add("claim", f"claim {claim.name}", f"{result.where}: {result.what} does not always hold",
                         [claim], result.witness)

    def add(self, kind: str, decision: str, message: str, rules, witness=None) -> None:
        self.report.findings.append(Finding(kind, decision, message, [RuleInfo.of(r) for r in rules], witness))


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
          timeout_ms: int = DEFAULT_TIMEOUT_MS, proofs: list | None = None, extra_steps: int = 0,
          progress: bool = False) -> Report:
    """The checks of one variant, assuming the invariants its proofs (proofs.py, made here when not
    given) proved at every table size; what they did not prove comes first among the findings.
    `extra_steps`: the progress steps the caller makes after these (Checker.run); `progress`: show
    the proofs made here on stderr."""
    from .proofs import prove_all, proved_everywhere
    if proofs is None:
        proofs = prove_all([(spec, edition)], bounds, timeout_ms, progress=progress)[0]
    checker = Checker(spec, edition, bounds, timeout_ms, variant, proved_everywhere(spec, proofs))
    add_proofs(checker.report, spec, proofs)
    return checker.run(extra_steps)


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
