"""`baobei diff A B`: every class of situations two rule sets decide differently.

Both rule sets are translated over one symbolic situation. For each decision
(is this move legal, does this power fire and for whom, which power comes first,
the value of a decision), Z3 looks for a situation where the two disagree; the
rules that decided on each side name the class, which is then excluded, and the
search goes on until no disagreement is left. One rule difference is one finding.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field, fields, replace

import z3

from baobei.dsl import ast
from baobei.dsl.edition import Edition
from baobei.dsl.model import Spec, expr_text
from baobei.dsl.schema import MOVE_KINDS, REQUIRED_DEFINES
from baobei.dsl.unparse import declaration
from baobei.interpreter.progress import Phase

from . import parallel
from .answers import Answers, JobKeys, Reads
from .bodies import BodyComparer, bodies, knowledge, signature, statement_exprs
from .check import DEFAULT_TIMEOUT_MS, RuleInfo
from .execute import derived
from .parallel import in_forked_workers
from .sites import analyse, kind_context, resolve_context
from .smallest import small_model, small_table
from .symbolic import NONE, Bounds, Situation, new_solver
from .translate import Translator
from .witness import Reader, describe_model, shown_pins

MAX_CLASSES = 12
# Z3's resource count (the same on a busy machine) a class may take to be found on a small table
# before it is looked for on the whole one
SMALL_CLASS_RLIMIT = 2_000_000


@dataclass
class Difference:
    decision: str
    message: str
    rules: dict                       # side name -> [RuleInfo]
    witness: dict | None = None
    kind: str | None = None           # the move kind, for legality differences
    scenario: str | None = None       # an emitted witness scenario
    causes: set | None = None         # when the deciding rules alone do not say it
    emitted: bool = False             # a scenario was searched for (diff --emit)
    legal_in: str | None = None       # for legality differences: the side that allows the move
    read_by_rules: bool = False       # for value differences: some rule reads the decision
    more: list = field(default_factory=list)    # further witnesses of the class (--witnesses N): (message, witness)
    spares: list = field(default_factory=list)  # witnesses not shown, for diff --emit's play search: (message, witness)

    def as_json(self) -> dict:
        return {"decision": self.decision, "message": self.message,
                "rules": {side: [r.__dict__ for r in rules] for side, rules in self.rules.items()},
                "witness": self.witness, "scenario": self.scenario,
                "more_witnesses": [{"message": message, "witness": witness} for message, witness in self.more]}

    def alternatives(self) -> list["Difference"]:
        """The class with each of its witnesses in turn, the first one first, the spares last."""
        return [self] + [replace(self, message=message, witness=witness, more=[], spares=[])
                         for message, witness in self.more + self.spares]


@dataclass
class Finding:
    """One rule difference: the changed declarations it comes from and every class of
    situations it decides differently."""

    causes: list[str]
    classes: list[Difference]

    @property
    def title(self) -> str:
        decisions = []
        for item in self.classes:
            if item.decision not in decisions:
                decisions.append(item.decision)
        return ", ".join(decisions)

    def as_json(self) -> dict:
        return {"title": self.title, "causes": self.causes, "classes": [c.as_json() for c in self.classes]}


@dataclass
class DiffReport:
    a: str
    b: str
    bounds: str
    differences: list[Difference] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    added: list[str] = field(default_factory=list)       # declarations only in b
    removed: list[str] = field(default_factory=list)     # declarations only in a
    changed: list[str] = field(default_factory=list)     # same name, different text
    unknown: list[str] = field(default_factory=list)
    unproved: list[str] = field(default_factory=list)    # invariants not proved inductive: not assumed
    uncompared: list[str] = field(default_factory=list)  # changes the comparison of decisions cannot reach
    queries: int = 0
    answers: int = 0                                      # decisions compared (one answer each)
    cached: int = 0                                       # of them, from the cache (checker/answers.py)
    seconds: float = 0.0


class Differ:
    def __init__(self, a: tuple[str, Spec], b: tuple[str, Spec], edition: Edition, bounds: Bounds = Bounds(),
                 timeout_ms: int = DEFAULT_TIMEOUT_MS, proved: tuple[list[str], list[str]] = ((), ()),
                 witnesses: int = 1, answers: Answers | None = None, edition_b: Edition | None = None,
                 spares: int = 0):
        """`witnesses`: how many distinct witnesses to give of each class (different tables, moves
        or references), each on the smallest table that shows it; `spares`: how many more to keep
        unshown (Difference.spares: what diff --emit plays from when no play reaches the shown
        ones); `answers`: where the classes of a decision come from (default: the cache,
        checker/answers.py); `edition_b`: the edition side b plays with, when it is not `edition`
        (two versions of the edition file)."""
        (self.name_a, self.spec_a), (self.name_b, self.spec_b) = a, b
        self.edition, self.proved = edition, proved
        self.answers = answers if answers is not None else Answers()
        self.witnesses = max(1, witnesses)
        self.spares = max(0, spares)
        self.bounds = bounds
        self.timeout_ms = timeout_ms
        same = edition_b is None or _values(edition_b) == _values(edition)
        self.editions = (edition, edition if same else edition_b)
        self.situation = Situation(self.spec_a, edition, bounds).with_variables_of(self.spec_b)
        self.table_b, edition_facts = self.side_b_table()
        self.tr_a = Translator(self.spec_a, self.situation)
        self.tr_b = Translator(self.spec_b, self.table_b)
        # each side's (ask sites, contexts of each container, containers that resolve powers)
        self.analysed = (analyse(self.spec_a), analyse(self.spec_b))
        self.sites_a, self.sites_b = self.analysed[0][0], self.analysed[1][0]
        self.report = DiffReport(self.name_a, self.name_b, str(bounds))
        self.wellformed = self.situation.constraints() + edition_facts
        self.base = self.wellformed + \
            [self.tr_a.expr(self.spec_a.invariants[name].expr) for name in proved[0]] + \
            [self.tr_b.expr(self.spec_b.invariants[name].expr) for name in proved[1]]
        self.report.unproved = [f"{side}: {name}" for side, spec, names in ((self.name_a, self.spec_a, proved[0]),
                                                                          (self.name_b, self.spec_b, proved[1]))
                                for name in spec.invariants if name not in names]

    def side_b_table(self) -> tuple[Situation, list]:
        """The table as side b reads it: the same table, with its edition's threshold and deal when
        its edition differs (and a table both editions' counts allow)."""
        a, b = self.editions
        if b is a:
            return self.situation, []
        s = self.situation
        ints = {**s.ints, "threshold": z3.Int("b_threshold"), "edition_deal": z3.Int("b_edition_deal")}
        table = derived(s, ints=ints, edition=b)
        return table, [ints["threshold"] == table._by_players(b.threshold),
                       ints["edition_deal"] == table._by_players(b.deal)] + table.deck_counts()

    def solver(self, assertions: list) -> z3.Solver:
        return new_solver(*self.base, *assertions, timeout_ms=self.timeout_ms)

    def solve(self, solver: z3.Solver, what: str):
        self.report.queries += 1
        result = solver.check()
        if result == z3.sat:
            return solver.model()
        if result == z3.unknown:
            self.report.unknown.append(f"{what}: {solver.reason_unknown()}")
        return None

    def classes(self, assertions: list, winners: list, what: str, kind: str | None = None):
        """Models of the disagreement, one per combination of deciding rules: for each, its
        witnesses (up to self.witnesses + self.spares, each on the smallest table that shows it,
        each showing something the ones before do not; `kind`: the move they show, if any) and
        the winners' values. One solver for all classes: each found class is blocked in place,
        so Z3 keeps what it learned. Once a decision is found to differ, its next class is first
        looked for on a small table (within SMALL_CLASS_RLIMIT), where Z3 finds most of them in a
        fraction of the time the whole table takes; only a model is taken from there, and the
        search ends when the whole table has no class left."""
        solver = self.solver(assertions)
        small = None        # made once a first class is found; None again once it finds none
        for found in range(MAX_CLASSES):
            model = self.on_a_small_table(small) if small is not None else None
            if model is None:
                small = None
                model = self.solve(solver, what)
            if model is None:
                return
            values = [model.eval(w, model_completion=True).as_long() for w in winners]
            same_class = [w == v for w, v in zip(winners, values)]
            models = [self.smaller(assertions + same_class) or model]
            while len(models) < self.witnesses + self.spares:
                others = [z3.Not(z3.And(shown_pins(self.situation, m, kind))) for m in models]
                another = self.smaller(assertions + same_class + others)
                if another is None:
                    break
                models.append(another)
            yield models, values
            blocked = z3.Not(z3.And(same_class))
            solver.add(blocked)
            if found == 0:
                small = new_solver(*self.base, *assertions, *small_table(self.situation), timeout_ms=self.timeout_ms,
                                   rlimit=SMALL_CLASS_RLIMIT)
            if small is not None:
                small.add(blocked)

    def on_a_small_table(self, solver: z3.Solver):
        """A model of the small table's solver, or None (none there, or not within its budget)."""
        self.report.queries += 1
        return solver.model() if solver.check() == z3.sat else None

    def smaller(self, assertions: list):
        return small_model(self.base, assertions, self.situation)

    def run(self, progress: bool = False) -> DiffReport:
        """`progress`: show the comparison's progress on stderr."""
        started = time.perf_counter()
        self.text_changes()
        jobs = [(self.legality, kind) for kind in MOVE_KINDS
                if self.spec_a.legality_rules(kind) or self.spec_b.legality_rules(kind)]
        jobs += [(self.fire, None)] + [(self.value, name) for name in self.spec_a.decisions
                                       if name in self.spec_b.decisions]
        jobs += [(self.machinery, name) for name in self.machinery_changes()]
        jobs += [(self.body, name) for name in self.body_changes()]
        # Each job in a forked worker of its own, from this same state: a job's classes and
        # witnesses do not depend on the number of cores nor on which other jobs the cache held
        # (a solver that had answered another job first would give other models).
        phase = Phase("comparing the decisions", "decisions", enabled=progress, planned=len(jobs))
        not_compared = self.uncompared()
        job_keys = JobKeys(self, (Reads(self.spec_a), Reads(self.spec_b)))
        keys = [job_keys.of(method, argument) for method, argument in jobs]
        found = self.cached_jobs(keys)
        phase.progress(0, len(found))
        missing = [index for index in range(len(jobs)) if index not in found]
        for part, queries, unknown, uncompared in in_forked_workers(
                self._run_jobs, [(jobs, [index]) for index in missing], on_progress=phase.progress):
            found.update(part)
            self.report.queries += queries
            self.report.unknown += unknown
            not_compared += uncompared
            self.answers.solved += len(part)
            if not unknown:      # a job with an undecided query is not kept: it is asked again next run
                self.keep_jobs(keys, part)
        self.report.answers, self.report.cached = len(jobs), len(jobs) - len(missing)
        self.report.differences = [d for index in sorted(found) for d in found[index]]
        phase.finish(f"{len(jobs)} decisions, {self.report.queries} queries")
        self.report.findings = self.group()
        self.report.uncompared = not_compared
        self.report.seconds = time.perf_counter() - started
        return self.report

    def cached_jobs(self, keys: list) -> dict[int, list[Difference]]:
        """The jobs whose classes the cache holds (JobKeys), by index."""
        found = {}
        for index, key in enumerate(keys):
            kept = self.answers.get(key) if key else None
            if kept is not None:
                found[index] = [_restored(item, self) for item in kept["classes"]]
                self.answers.cached += 1
        return found

    def keep_jobs(self, keys: list, part: dict[int, list[Difference]]) -> None:
        for index, differences in part.items():
            if keys[index]:
                self.answers.keep(keys[index], {"classes": [_stored(d) for d in differences]})

    def _run_jobs(self, jobs: list, indexes: list[int]) -> tuple[dict, int, list]:
        """Runs these jobs (in a worker); their differences by job, the queries and the unknowns
        they added."""
        found = {}
        queries, unknown, uncompared = self.report.queries, len(self.report.unknown), len(self.report.uncompared)
        for index in indexes:
            method, argument = jobs[index]
            before = len(self.report.differences)
            method() if argument is None else method(argument)
            found[index] = self.report.differences[before:]
            parallel.step()
        added = self.report.unknown[unknown:]
        del self.report.unknown[unknown:]
        not_compared = self.report.uncompared[uncompared:]
        del self.report.uncompared[uncompared:]
        queries, self.report.queries = self.report.queries - queries, queries
        return found, queries, added, not_compared

    # -- one rule difference, one finding ------------------------------------------------------
    def group(self) -> list[Finding]:
        """Decisions whose differing classes come from overlapping changed declarations are
        one finding (the movement limit shows in swaps, replacements and `limited` alike)."""
        changed = self.changed_names()
        by_decision: dict[str, list[Difference]] = {}
        causes: dict[str, set] = {}
        for item in self.report.differences:
            by_decision.setdefault(item.decision, []).append(item)
            cone = set()
            for side_rules in item.rules.values():
                for info in side_rules:
                    cone |= self.cone(info.name)
            own = cone & changed if item.causes is None else item.causes & changed
            if not own:  # a default decided on one side: the decision's own changed rules
                own = {name for name in changed if name.startswith("rule ") and
                       any(name == f"rule {r.name}" for rules in item.rules.values() for r in rules)}
            causes.setdefault(item.decision, set()).update(own)
        decisions = list(by_decision)
        parent = {d: d for d in decisions}

        def root(d):
            while parent[d] != d:
                d = parent[d]
            return d
        for i, a in enumerate(decisions):
            for b in decisions[i + 1:]:
                if causes[a] & causes[b]:
                    parent[root(b)] = root(a)
        groups: dict[str, list[str]] = {}
        for d in decisions:
            groups.setdefault(root(d), []).append(d)
        findings = []
        for members in groups.values():
            found = sorted(set().union(*(causes[d] for d in members)))
            findings.append(Finding(found, [c for d in members for c in by_decision[d]]))
        return findings

    def changed_names(self) -> set[str]:
        names = set()
        for entry in self.report.added + self.report.removed + self.report.changed:
            kind, name = entry.split(" ")[:2]
            names.add(f"{kind} {name}")
        return names | self.edition_changes()

    def edition_changes(self) -> set[str]:
        """The edition values the two sides play with differently (two versions of the edition file)."""
        a, b = self.editions
        values = (("edition deal", a.deal, b.deal), ("edition threshold", a.threshold, b.threshold),
                  ("edition deck", a.deck, b.deck))
        return {label for label, x, y in values if x != y}

    def uncompared(self) -> list[str]:
        """The changes no comparison reaches: a variable's declaration (what a round starts with),
        an enum, and who comes to see which card (the symbolic table does not model knowledge)."""
        found = []
        for entry in self.report.added + self.report.removed + self.report.changed:
            kind, name = entry.split(" ")[:2]
            if kind in ("var", "enum"):
                found.append(entry)
        a, b = bodies(self.spec_a), bodies(self.spec_b)
        for name in list(dict.fromkeys(list(a) + list(b))):
            if knowledge(a.get(name)) != knowledge(b.get(name)):
                found.append(f"{name}: who comes to see which card (what players know is not compared)")
        if "edition deck" in self.edition_changes():
            found.append("edition deck: which cards are in play (the comparisons judge tables both decks allow; "
                         "the claims and recorded games judge the deck)")
        return found

    # -- what bodies and the machinery do ----------------------------------------------------------
    def body_changes(self) -> list[str]:
        """The bodies whose behaviour may differ: the text of one of the declarations it is made of
        (bodies.signature) differs. A handler or power only one side has is compared with doing
        nothing; a procedure only one side has runs where a compared body calls it."""
        a, b = bodies(self.spec_a), bodies(self.spec_b)
        self.body_causes: dict[str, set[str]] = {}
        for name in dict.fromkeys(list(a) + list(b)):
            if name.startswith("procedure ") and (name not in a or name not in b):
                continue
            sa = signature(self.spec_a, a[name], self.editions[0]) if name in a else {name: ""}
            sb = signature(self.spec_b, b[name], self.editions[1]) if name in b else {name: ""}
            causes = {key for key in set(sa) | set(sb) if sa.get(key) != sb.get(key)}
            if causes:
                self.body_causes[name] = causes
        return list(self.body_causes)

    def body(self, name: str) -> None:
        """The classes where the two versions of a body differ (bodies.BodyComparer)."""
        comparer = BodyComparer((self.spec_a, self.spec_b), (self.name_a, self.name_b),
                                (self.situation, self.table_b), (self.tr_a, self.tr_b), self.editions, self.bounds,
                                self.timeout_ms, self.proved, self.wellformed)
        found = comparer.compare(name, (self.sites_a, self.sites_b))
        self.report.queries += found.queries
        self.report.unknown += found.unknown
        self.report.uncompared += found.incomplete
        decls = (bodies(self.spec_a).get(name), bodies(self.spec_b).get(name))
        infos = [replace(RuleInfo.of(decl), name=name) if decl is not None else None for decl in decls]
        for item in found.classes:
            rules = {side: [info] if info is not None else [] for side, info in zip((self.name_a, self.name_b), infos)}
            self.report.differences.append(Difference(
                f"body {name}", item.message, rules, describe_model(item.table, item.model, item.kind), item.kind,
                causes=set(self.body_causes.get(name, ()))))

    def machinery_changes(self) -> list[str]:
        """The definitions the machinery reads (who plucks first, when a game ends, who wins, ...)
        whose value may differ: the text of what they read differs."""
        return [name for name in REQUIRED_DEFINES if self.define_causes(name)]

    def define_causes(self, name: str) -> set[str]:
        """The declarations (and edition values) a definition reads whose text differs between the
        two sides."""
        da, db = self.spec_a.defines.get(name), self.spec_b.defines.get(name)
        if da is None or db is None:
            return set()
        sa = signature(self.spec_a, da, self.editions[0], [da.body])
        sb = signature(self.spec_b, db, self.editions[1], [db.body])
        return {key for key in set(sa) | set(sb) if sa.get(key) != sb.get(key)}

    def machinery(self, name: str) -> None:
        """A definition the machinery reads, as a value: where the two give another."""
        decl = self.spec_a.defines[name]
        args, context = self.situation.decision_arguments(decl, "diff")
        value_a, value_b = self.tr_a.define(name, args), self.tr_b.define(name, args)
        type_ = decl.body.type
        differ = z3.Not(self.tr_a.equal(value_a, value_b, type_))
        for models, _ in self.classes(context + [differ], [], f"value {name}"):
            def message(model) -> str:
                read = Reader(self.situation, model)
                shown = ", ".join(read.shown(a, p.type) for p, a in zip(decl.params, args))
                call = f"{name}({shown})" if decl.params else name
                return f"{call} is {read.shown(value_a, type_)} in {self.name_a} and " \
                       f"{read.shown(value_b, type_)} in {self.name_b}"
            self.add(f"value {name}", message, decl, self.spec_b.defines[name], models)
            self.report.differences[-1].causes = self.define_causes(name)

    def cone(self, rule_name: str) -> set[str]:
        """The declarations a rule's decision reads, in both rule sets."""
        found: set[str] = {f"rule {rule_name}"}
        for spec in (self.spec_a, self.spec_b):
            rule = spec.rules.get(rule_name)
            if rule is not None:
                _reads(spec, rule, found)
        return found

    # -- the differences ----------------------------------------------------------------------
    def legality(self, kind: str) -> None:
        legal_a, win_a, rules_a = self.tr_a.legal(kind)
        legal_b, win_b, rules_b = self.tr_b.legal(kind)
        if legal_a.eq(legal_b):     # one term (Z3 shares equal terms): no situation tells them apart
            return
        context = self.situation.move_shape(kind) + [kind_context(self.situation, self.sites_a, kind),
                                                     kind_context(self.situation, self.sites_b, kind)]
        for models, (wa, wb) in self.classes(context + [legal_a != legal_b], [win_a, win_b], f"legal {kind}", kind):
            ra, rb = _rule(rules_a, wa), _rule(rules_b, wb)

            def allowed(model) -> str:
                return self.name_a if z3.is_true(model.eval(legal_a, model_completion=True)) else self.name_b

            def message(model) -> str:
                refused = self.name_b if allowed(model) == self.name_a else self.name_a
                return f"{kind} is legal in {allowed(model)} and refused in {refused}: " \
                       f"{self.name_a} decides by {_name(ra)}, {self.name_b} by {_name(rb)}"
            self.add(f"legal {kind}", message, ra, rb, models, kind, legal_in=allowed(models[0]))

    def fire(self) -> None:
        roles = []
        for spec in (self.spec_a, self.spec_b):
            for rule in spec.fire_rules():
                if not isinstance(rule.body.role, ast.NoneLit) and expr_text(rule.body.role) not in roles:
                    roles.append(expr_text(rule.body.role))
        context = [resolve_context(self.situation, self.spec_a), resolve_context(self.situation, self.spec_b)]
        outcomes = {}
        for role in roles:
            side = {}
            for name, tr in ((self.name_a, self.tr_a), (self.name_b, self.tr_b)):
                winner, rules = tr.fire(role)
                fires, user, rank, card = z3.BoolVal(False), z3.IntVal(NONE), z3.IntVal(0), z3.IntVal(NONE)
                for index, rule in enumerate(rules):
                    if isinstance(rule.body.role, ast.NoneLit):
                        continue
                    chosen = winner == index
                    fires = z3.Or(fires, chosen)
                    user = z3.If(chosen, tr.expr(rule.body.user), user)
                    rank = z3.If(chosen, rule.body.rank, rank)
                    card = z3.If(chosen, tr.expr(rule.body.role), card)
                powered = z3.And(fires, tr.card_attr(card, "power") != NONE)
                side[name] = (winner, rules, powered, user, rank)
            outcomes[role] = side
            (wa, ra, fa, ua, _), (wb, rb, fb, ub, _) = side[self.name_a], side[self.name_b]
            differ = z3.Or(fa != fb, z3.And(fa, fb, ua != ub))
            for models, (xa, xb) in self.classes(context + [differ], [wa, wb], f"fire {role}"):
                def message(model, role=role, fa=fa, fb=fb) -> str:
                    fired_a = z3.is_true(model.eval(fa, model_completion=True))
                    fired_b = z3.is_true(model.eval(fb, model_completion=True))
                    if fired_a != fired_b:
                        return f"the power of {role} fires in {self.name_a if fired_a else self.name_b} only"
                    return f"the power of {role} is played by different players"
                self.add(f"fire {role}", message, _rule(ra, xa), _rule(rb, xb), models)
        for i, x in enumerate(roles):
            for y in roles[i + 1:]:
                (wax, rax, fax, _, kax), (wbx, rbx, fbx, _, kbx) = outcomes[x][self.name_a], outcomes[x][self.name_b]
                (way, ray, fay, _, kay), (wby, rby, fby, _, kby) = outcomes[y][self.name_a], outcomes[y][self.name_b]
                differ = z3.And(fax, fay, fbx, fby, (kax < kay) != (kbx < kby))
                winners = [wax, way, wbx, wby]
                for models, (a1, a2, b1, b2) in self.classes(context + [differ], winners, f"order of {x} and {y}"):
                    def message(model, x=x, y=y, kax=kax, kay=kay, kbx=kbx, kby=kby) -> str:
                        first_a = x if model.eval(kax < kay, model_completion=True) else y
                        first_b = x if model.eval(kbx < kby, model_completion=True) else y
                        return f"the powers of {x} and {y} come in a different order: {self.name_a} plays " \
                               f"{first_a} first, {self.name_b} plays {first_b} first"
                    self.add(f"order {x} / {y}", message, [_rule(rax, a1), _rule(ray, a2)],
                             [_rule(rbx, b1), _rule(rby, b2)], models)
                    # an order changes with the ranks: the rules whose rank differs are the cause
                    pairs = [(_rule(rax, a1), _rule(rbx, b1)), (_rule(ray, a2), _rule(rby, b2))]
                    self.report.differences[-1].causes = {
                        f"rule {r.name}" for ra_, rb_ in pairs for r in (ra_, rb_)
                        if r is not None and (ra_ is None or rb_ is None or ra_.body.rank != rb_.body.rank)}

    def value(self, name: str) -> None:
        decl = self.spec_a.decisions[name]
        args, context = self.situation.decision_arguments(decl, "diff")
        value_a, value_b = self.tr_a.decision(name, args), self.tr_b.decision(name, args)
        win_a, rules_a = self.tr_a.decision_winner(name, args)
        win_b, rules_b = self.tr_b.decision_winner(name, args)
        differ = z3.Not(self.tr_a.equal(value_a, value_b, decl.type))
        read_by_rules = self.read_by_rules(name)
        searches = [context + [differ]]
        matters = [] if read_by_rules else self.branches_differ(name)
        if matters:  # first where a procedure takes another branch for it: a telling witness
            searches.insert(0, context + [differ, z3.Or(matters)])
        for assertions in searches:
            for models, (wa, wb) in self.classes(assertions, [win_a, win_b], f"value {name}"):
                def message(model) -> str:
                    read = Reader(self.situation, model)
                    shown = ", ".join(read.shown(a, p.type) for p, a in zip(decl.params, args))
                    return f"{name}({shown}) is {read.shown(value_a, decl.type)} in {self.name_a} and " \
                           f"{read.shown(value_b, decl.type)} in {self.name_b}"
                self.add(f"value {name}", message, _rule(rules_a, wa), _rule(rules_b, wb), models)
                self.report.differences[-1].read_by_rules = read_by_rules
            if any(d.decision == f"value {name}" for d in self.report.differences):
                return

    def read_by_rules(self, decision: str) -> bool:
        """Whether a rule's condition or value reads this decision (else only procedures do)."""
        names = {rule for spec in (self.spec_a, self.spec_b) for rule in spec.rules}
        return any(f"decision {decision}" in self.cone(rule) for rule in names)

    def branches_differ(self, decision: str) -> list:
        """For each branch condition of a procedure, power or handler that reads this decision
        (without the procedure's own locals): the two rule sets take different branches."""
        found = []
        for condition in _branch_conditions(self.spec_a, decision):
            try:
                found.append(self.tr_a.expr(condition) != self.tr_b.expr(condition))
            except KeyError:   # reads a local of the procedure: no situation alone decides it
                continue
        return found

    def add(self, decision: str, message, ra, rb, models: list, kind: str | None = None,
            legal_in: str | None = None) -> None:
        """A class: `message(model)` says it as one witness shows it; the first model is its witness."""
        rules_a = [RuleInfo.of(r) for r in (ra if isinstance(ra, list) else [ra]) if r is not None]
        rules_b = [RuleInfo.of(r) for r in (rb if isinstance(rb, list) else [rb]) if r is not None]
        told = [(message(m), describe_model(self.situation, m, kind)) for m in models]
        (first, witness), more, spares = told[0], told[1:self.witnesses], told[self.witnesses:]
        self.report.differences.append(Difference(
            decision, first, {self.name_a: rules_a, self.name_b: rules_b}, witness, kind, legal_in=legal_in,
            more=more, spares=spares))

    def text_changes(self) -> None:
        def table(spec: Spec) -> dict:
            out = {}
            for kind, items in (("rule", spec.rules), ("define", spec.defines), ("claim", spec.claims),
                                ("card", spec.cards), ("var", {**spec.vars, **spec.player_vars}),
                                ("procedure", spec.procedures), ("power", spec.powers),
                                ("on", spec.handlers), ("decision", spec.decisions), ("enum", spec.enums),
                                ("invariant", spec.invariants)):
                for name, decl in items.items():
                    out[(kind, name)] = (declaration(decl), decl)
            return out
        a, b = table(self.spec_a), table(self.spec_b)
        for key in a:
            if key not in b:
                self.report.removed.append(f"{key[0]} {key[1]} ({a[key][1].loc})")
            elif a[key][0] != b[key][0]:
                self.report.changed.append(f"{key[0]} {key[1]} ({a[key][1].loc} -> {b[key][1].loc})")
        for key in b:
            if key not in a:
                self.report.added.append(f"{key[0]} {key[1]} ({b[key][1].loc})")


def _branch_conditions(spec: Spec, decision: str) -> list:
    """The conditions of `if` and `while` statements anywhere in the spec's procedures, powers
    and handlers that read the decision (directly or through definitions)."""
    conditions = []
    for items in (spec.procedures, spec.powers, spec.handlers):
        for decl in items.values():
            for stmt in ast.walk_statements(decl.body):
                if isinstance(stmt, ast.If):
                    conditions += [cond for cond, _ in stmt.branches]
                elif isinstance(stmt, ast.While):
                    conditions.append(stmt.cond)
    reading = []
    for condition in conditions:
        found: set = set()
        _reads_exprs(spec, [condition], found)
        if f"decision {decision}" in found:
            reading.append(condition)
    return reading


def _reads(spec: Spec, item, found: set) -> None:
    exprs = []
    if isinstance(item, ast.RuleDecl):
        exprs = [item.when] + ([item.body.value] if isinstance(item.body, ast.Value) else []) + \
            ([item.body.role, item.body.user] if isinstance(item.body, ast.Fire) else [])
    elif isinstance(item, ast.DefineDecl):
        exprs = [item.body]
    _reads_exprs(spec, exprs, found)


def _reads_exprs(spec: Spec, exprs: list, found: set) -> None:
    for e in (node for root in exprs if root is not None for node in ast.walk(root)):
        ref = getattr(e, "ref", None)
        if ref and ref[0] == "define" and f"define {e.name}" not in found:
            found.add(f"define {e.name}")
            _reads(spec, spec.defines[e.name], found)
        elif ref and ref[0] == "decision" and f"decision {e.name}" not in found:
            found.add(f"decision {e.name}")
            for rule in spec.value_rules(e.name):
                found.add(f"rule {rule.name}")
                _reads(spec, rule, found)
        elif ref and ref[0] == "var":
            found.add(f"var {e.name}")


def _values(edition: Edition) -> tuple:
    return edition.deck, edition.deal, edition.threshold


def _stored(item: Difference) -> dict:
    """A class as plain data for the cache: its rules by name (their places and citations are
    read from the spec when it is shown again)."""
    return {"decision": item.decision, "message": item.message,
            "rules": [[side, [rule.name for rule in rules]] for side, rules in item.rules.items()],
            "witness": item.witness, "kind": item.kind,
            "causes": sorted(item.causes) if item.causes is not None else None,
            "legal_in": item.legal_in, "read_by_rules": item.read_by_rules,
            "more": [[message, witness] for message, witness in item.more],
            "spares": [[message, witness] for message, witness in item.spares]}


def _restored(data: dict, differ: "Differ") -> Difference:
    specs = {differ.name_a: differ.spec_a, differ.name_b: differ.spec_b}
    rules = {side: [RuleInfo.of(specs[side].rules[name]) for name in names] for side, names in data["rules"]}
    return Difference(data["decision"], data["message"], rules, data["witness"], data["kind"],
                      causes=set(data["causes"]) if data["causes"] is not None else None, legal_in=data["legal_in"],
                      read_by_rules=data["read_by_rules"],
                      more=[(message, witness) for message, witness in data["more"]],
                      spares=[(message, witness) for message, witness in data["spares"]])


def _rule(rules: list, index: int):
    return rules[index] if 0 <= index < len(rules) else None


def _name(rule) -> str:
    return rule.name if rule is not None else "no rule (undecided)"


def diff(a: tuple[str, Spec], b: tuple[str, Spec], edition: Edition, bounds: Bounds = Bounds(),
         timeout_ms: int = DEFAULT_TIMEOUT_MS, use_cache: bool = True, progress: bool = False,
         witnesses: int = 1, edition_b: Edition | None = None, spares: int = 0,
         proofs: tuple[list, list] | None = None) -> DiffReport:
    """Assumes only the invariants each spec proves inductive (proofs.py) under its edition
    (`edition_b` for b, when it has another; `proofs`: a's and b's, made here when not given).
    `progress`: show each phase's progress on stderr; `witnesses`, `spares`: per class (Differ)."""
    from .proofs import prove_all, proved_everywhere
    editions = (edition, edition_b or edition)
    if proofs is None:
        proofs = prove_all([(a[1], editions[0]), (b[1], editions[1])], bounds, timeout_ms, use_cache,
                           progress=progress)
    proved = (proved_everywhere(a[1], proofs[0]), proved_everywhere(b[1], proofs[1]))
    return Differ(a, b, edition, bounds, timeout_ms, proved, witnesses, Answers(enabled=use_cache),
                  edition_b, spares).run(progress)
