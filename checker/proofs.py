"""Which invariants the other checks may assume: those proved inductive (induction.py) at every
table size within the bounds, one proof per number of players.

A proof's answer is kept in the cache folder (dsl/cache.py) under a key made of everything it
reads: what the spec's declarations say (their text without citations or positions; claims
apart, which no proof reads), the edition's values, the bounds, the query timeout, the checker's
and the language's code and Z3's version. Editing a citation, a comment or a claim re-proves
nothing. An answer is reused only for that identical question; an invariant Z3 could
not decide is never proved, cached or not.
"""
from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from baobei.dsl import cache

from .answers import DSL_CODE, Reads

HERE = Path(__file__).parent
# the code a proof's answer comes from: the checker's, and the language's meaning of the spec
CODE = [HERE / f"{name}.py" for name in ("proofs", "induction", "execute", "symbolic", "translate", "witness")] + \
    [HERE.parent / "interpreter" / "moves.py"] + DSL_CODE
_VERSION: list[str] = []
RETRY_FACTOR = 3           # a query out of time gets once more three times the time


@dataclass
class InvariantFailure:
    """An invariant (or a primitive's precondition) that does not hold, or was not decided, at a
    place of a round: plain data, sent back from a worker and kept in the cache."""

    invariant: str | None      # None: a primitive's precondition (`what` says which)
    status: str                # fails, unknown
    where: str                 # the decision or the end of the round
    what: str
    moves: list[str]           # the moves that lead there from the start of the graph
    start: str                 # the graph: the setup, or a turn
    witness: dict | None       # the table the graph starts from, in the model


@dataclass
class TableProof:
    players: int
    slots: int                 # the most slots per player the proof reasons about
    proved: list[str]
    failures: list[InvariantFailure] = field(default_factory=list)
    queries: int = 0
    seconds: float = 0.0
    cached: bool = False


def code_version() -> str:
    if not _VERSION:
        import z3
        _VERSION.append(cache.digest(cache.sources_digest(CODE), z3.get_version_string()))
    return _VERSION[0]


def proof_slots(bounds, edition, players: int) -> int:
    """The slots a proof reasons about: the bounds', but never fewer than a dealt layout and one
    card more (on smaller tables no round could start, and the proof would say nothing)."""
    return max(bounds.slots, edition.deal.get(players, 0) + 1)


def proof_key(spec, edition, bounds, players: int, timeout_ms: int, reads: str | None = None) -> str | None:
    """The cache key of one proof: what the spec's declarations say (a copy elsewhere, or an edit
    of citations and claims, asks the same question), the edition's values, the tables, the
    timeout and the code (None: a spec not read from files is proved every time). `reads`:
    proof_reads(spec), when the caller has it (it is the same at every table size)."""
    if not spec.content:
        return None
    values = (edition.deck, sorted(edition.deal.items()), sorted(edition.threshold.items()))
    return cache.digest(code_version(), reads if reads is not None else proof_reads(spec), repr(values),
                        repr((proof_slots(bounds, edition, players), bounds.held, players, timeout_ms)))


def proof_reads(spec) -> str:
    """What a proof reads of the spec: every declaration but the claims, by what it says, in the
    resolved spec's order (the order rules are tried in follows it)."""
    tables = (spec.families, spec.cards, spec.enums, spec.vars, spec.player_vars, spec.defines, spec.decisions,
              spec.rules, spec.precedences, spec.invariants, spec.procedures, spec.powers, spec.handlers)
    reads = Reads(spec)            # a declaration's text as the answers' keys have it
    return "\n".join(reads.text(decl) for table in tables for decl in table.values())


def cached_proof(key: str | None, spec) -> TableProof | None:
    """The proof kept under this key. One with failures names places in its spec's files: it is
    reused for those files only."""
    data = cache.read(f"invariants-{key}.json") if key else None
    if data is None:
        return None
    try:
        found = json.loads(data)
        if found["failures"] and found["spec"] != spec.key:
            return None
        proof = TableProof(found["players"], found["slots"], found["proved"],
                           [InvariantFailure(**f) for f in found["failures"]], found["queries"], found["seconds"],
                           cached=True)
    except (ValueError, KeyError, TypeError):        # a damaged entry is proved again
        return None
    return proof


def keep_proof(key: str | None, proof: TableProof, spec) -> None:
    """Keeps a proof's answer, but not one with an undecided query: on a busy machine a query may
    run out of time, and the next run should try it again rather than repeat `unknown`."""
    if key and not any(failure.status == "unknown" for failure in proof.failures):
        cache.write(f"invariants-{key}.json", json.dumps({**asdict(proof), "spec": spec.key}).encode("utf-8"))


def prove_table(spec, edition, bounds, players: int, timeout_ms: int) -> TableProof:
    """Proves the invariants at one table size, now."""
    from .induction import prove_at
    from .symbolic import Bounds, assert_all, new_solver
    from .witness import describe_model
    started = time.perf_counter()
    queries = [0]

    sessions: dict = {}        # id of a list of assertions -> (the list, a solver holding it)

    def solve(assertions, what, witness, base=()):
        """The assertions on top of `base`; a query out of time is asked once more with
        RETRY_FACTOR times the time (a busy machine should not turn a proof into an unknown)."""
        status, model = attempt(assertions, base, timeout_ms)
        if status == "timeout":
            status, model = attempt(assertions, base, timeout_ms * RETRY_FACTOR)
        return ("unknown" if status == "timeout" else status), model

    def attempt(assertions, base, limit_ms):
        """`base` stays in its solver for the next query on it (the many questions about one graph:
        Houdini's, the invariants at each decision, the preconditions); without a base, a solver of
        its own. Z3 5.4's incremental solver answered the proofs' queries (Houdini's included, at 2
        and 6 players) about twice as fast as the preprocessing one a query seen whole gets."""
        queries[0] += 1
        if not base:
            return _answer(new_solver(*assertions, timeout_ms=limit_ms))
        held = sessions.get(id(base))
        if held is None or held[0] is not base:
            held = sessions[id(base)] = (base, new_solver(*base))
        solver = held[1]
        solver.set("timeout", limit_ms)
        solver.push()
        try:
            assert_all(solver, assertions)
            return _answer(solver)
        finally:
            solver.pop()

    slots = proof_slots(bounds, edition, players)
    # Houdini leaves out the facts a proof before dropped: this variant's at this table size (its
    # own, also before an edit), else any variant's at this size, else at any (those of another
    # size or spec are nearly always the same: most of Houdini's questions are then not asked, and
    # a fact that spec did not have stays a candidate)
    names = [f"facts-{cache.digest(code_version(), *key)}.json"
             for key in ((repr(spec.layers), repr((players, slots, bounds.held))),
                         (repr((players, slots, bounds.held)),), (repr(bounds.held),))]
    kept = [_read_json(name) for name in names]
    warm = next((found for found in kept if isinstance(found, dict)), None)
    proved, failures, dropped = prove_at(spec, edition, Bounds(bounds.players, slots, bounds.held), players, solve,
                                         warm, own=isinstance(kept[0], dict))
    for name in names:
        cache.write(name, json.dumps(dropped).encode("utf-8"))
    plain = []
    for failure in failures:
        decl = spec.invariants.get(failure.invariant.name) if failure.invariant is not None else None
        witness = describe_model(failure.graph.shown_state(), failure.model) if failure.model is not None else None
        plain.append(InvariantFailure(decl.name if decl else None, failure.status,
                                      failure.where, failure.what, failure.moves(), failure.graph.start, witness))
    return TableProof(players, slots, proved, plain, queries[0], time.perf_counter() - started)


def _read_json(name: str):
    data = cache.read(name)
    try:
        return json.loads(data) if data is not None else None
    except ValueError:
        return None


def _answer(solver):
    """sat with its model, unsat, timeout (out of time: worth asking again) or unknown."""
    import z3
    result = solver.check()
    if result == z3.sat:
        return "sat", solver.model()
    if result == z3.unsat:
        return "unsat", None
    return ("timeout" if solver.reason_unknown() in ("timeout", "canceled") else "unknown"), None


def prove_all(specs: list, bounds, timeout_ms: int, use_cache: bool = True,
              progress: bool = False) -> list[list[TableProof]]:
    """For each (spec, edition), its proofs at 2 to bounds.players players: from the cache where
    they were made before, all the others side by side in forked workers. `progress`: show the
    proofs made, with an estimate of the time left, on stderr."""
    from baobei.interpreter.progress import Phase
    from .parallel import in_forked_workers
    jobs = [(index, players) for index in range(len(specs)) for players in range(2, bounds.players + 1)]
    reads = [proof_reads(spec) if spec.content else None for spec, _ in specs]
    keys = {job: proof_key(*specs[job[0]], bounds, job[1], timeout_ms, reads[job[0]]) for job in jobs}
    found = {job: cached_proof(keys[job], specs[job[0]][0]) if use_cache else None for job in jobs}
    # the largest tables first: the last proofs to finish are then small ones, and no core idles long
    missing = sorted((job for job in jobs if found[job] is None), key=lambda job: -job[1])
    phase = Phase("proving the invariants", "table sizes", enabled=progress, planned=len(missing))
    made = in_forked_workers(prove_table, [(*specs[index], bounds, players, timeout_ms) for index, players in missing],
                             lambda index, proof: phase.progress(0, 1))
    phase.finish(f"{len(missing)} of {len(jobs)} table sizes proved here, {len(jobs) - len(missing)} from the cache")
    for job, proof in zip(missing, made):
        keep_proof(keys[job], proof, specs[job[0]][0])
        found[job] = proof
    return [[found[job] for job in jobs if job[0] == index] for index in range(len(specs))]


def proved_everywhere(spec, proofs: list[TableProof]) -> list[str]:
    """The invariants proved at every table size, in the spec's order."""
    return [name for name in spec.invariants if all(name in proof.proved for proof in proofs)]
