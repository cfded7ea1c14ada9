"""Legality: judging a move by the rules, and the legal moves of a decision.

Two ways in, with one meaning. A move someone gives (a scenario step, a replayed
record, a witness search) is judged by the kind's first-match function of the
generated module: the deciding rule says allowed or refused, and names itself in
the message. The legal moves of a pending decision come from the staged functions
of its ask site (enumerate.py): the generated code looks whether any is legal before
it asks (with the site's own functions), the random agent draws one with the site's
pickers, and what an agent's kinds, forms and listings find is kept in the `Ask` for
the decision.
"""
from __future__ import annotations

from itertools import permutations

from baobei.dsl.errors import RuleRuntimeError
from baobei.dsl.schema import DECLINE_KINDS

from .moves import SHAPES, Move, format_move
from .state import EMPTY_CTX, Ctx

SMALL = 8       # at most this many candidates: list the legal ones rather than sample by rejection (R)
TRIES = 32      # rejection-sampling tries before listing


def allows(rule) -> bool:
    """A legality verdict: the deciding rule allows (no rule deciding is a refusal)."""
    return rule is not None and rule.allow


def fires(result) -> bool:
    """A trigger decision: a rule fires the role (a default decides that nothing fires)."""
    return result is not None and result[0] is not None


class IllegalMove(Exception):
    def __init__(self, reason: str, rule=None):
        super().__init__(reason)
        self.reason = reason
        self.rule = rule


class Form:
    """Moves of one kind with one number of arguments, asked at one site, and the generated
    functions that find the legal ones: X whether one exists, E every one (their argument
    tuples), J whether one candidate is, R one drawn at random where the candidates are many;
    where each argument's candidates come from (sources); how costly finding them is (cost: 0 no
    argument, 1 a few candidates listed at once, 2 many: every slot of the table, or pairs)."""

    __slots__ = ("kind", "arity", "exists", "every", "judge", "sources", "pick", "cost", "chooses")

    def __init__(self, kind: str, arity: int, exists, every, judge, sources: tuple[str, ...], pick=None):
        self.kind = kind
        self.arity = arity
        self.exists = exists
        self.every = every
        self.judge = judge
        self.sources = sources
        self.pick = pick
        if arity == 0:
            self.cost = 0
        else:
            self.cost = 1 if arity == 1 and not sources[0].endswith("all") else 2
        self.chooses = bool(sources) and sources[0] == "players"    # its argument is the chosen player


class Site:
    """An ask statement of the spec: where it is, the kinds it asks and their forms. `index`: its
    place in the round's list of reusable decisions (Round.asks); `asker`: 'one' (one clause
    naming a player), 'anyone' (one clause, no player named) or 'several' (several clauses);
    `pickers`: for each kind, the generated function that draws one legal move of it uniformly
    (over its forms that have one, then over their moves), or gives None when it has none;
    `anything`: the one that draws among every kind asked (a kind at random among those that
    have a legal move, then its picker)."""

    __slots__ = ("label", "kinds", "forms", "by_arity", "checks", "always", "index", "asker", "clauses",
                 "pickers", "anything", "kept", "free_decline")

    def __init__(self, label: str, kinds: tuple[str, ...], forms: dict, always: bool = False, index: int = 0,
                 asker: str = "one", pickers: dict | None = None, free: tuple[str, ...] = (), anything=None):
        self.label = label
        self.kinds = kinds
        self.forms = {kind: tuple(Form(kind, *entry) for entry in entries) for kind, entries in forms.items()}
        self.by_arity = {(form.kind, form.arity): form for forms in self.forms.values() for form in forms}
        self.always = always        # some kind asked here is legal whatever the state
        # "is anything legal here?" tries the cheapest forms first
        self.checks = sorted((form for kind in kinds for form in self.forms[kind]), key=lambda form: form.cost)
        self.index = index
        self.asker = asker
        self.clauses = ((None, kinds),) if asker == "anyone" else None
        self.pickers = pickers or {}
        self.anything = anything    # the same for a move of any kind asked here: a kind drawn among those with one
        self.kept: dict = {}        # what an agent derives from the site once (its plan), under a name of its own
        # `free`: the kinds legal here whatever the state; the first decline asked, when it is one
        # (a window's pass: whoever is asked may decline)
        declines = [kind for kind in kinds if kind in DECLINE_KINDS]
        self.free_decline = declines[0] if declines and declines[0] in free else None


def _declines_first(kinds: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(sorted(kinds, key=lambda k: k not in DECLINE_KINDS))


def new_ask(rnd, site: Site) -> "Ask":
    """The round's reusable decision of one ask site (Round.asks), made the first time the site asks."""
    ask = Ask()
    ask.round = rnd
    ask.site = site
    ask.actor = None
    ask.several = site.clauses
    ask.C = EMPTY_CTX
    ask.known = None
    rnd.asks[site.index] = ask
    return ask


class Ask:
    """The game waits: these players may make these moves (an asker None: anyone). One object per
    ask site and round, reused at each decision there (the generated code sets who is asked, the
    context and an empty cache): a decision is then three assignments rather than a new object.
    What is legal is found as far as it is asked for and kept in `known` for the decision: an
    agent's kinds and forms, its listing and a full listing share one piece of work.

    The generated code yields an ask only where some move is legal (it looks first, with the
    site's own functions), so a pending decision always has one."""

    __slots__ = ("round", "site", "actor", "several", "C", "known")
    # actor: the one player asked (an ask of one clause naming a player), else None
    # several: the clauses ((Player or None, (kind, ...)), ...) when the ask is not of one player
    # known: None, or (player, form) -> its legal argument tuples (listed) or whether it has one;
    #        "entries" -> every slot with its card

    @property
    def clauses(self) -> tuple:
        """((Player or None, (kind, ...)), ...): who is asked what (None: anyone)."""
        several = self.several
        return several if several is not None else ((self.actor, self.site.kinds),)

    @property
    def label(self) -> str:
        return self.site.label

    def kinds(self) -> set[str]:
        return {kind for _, kinds in self.clauses for kind in kinds}

    def kinds_of(self, actor) -> tuple[str, ...]:
        """The kinds asked of this player, in the order the ask names them."""
        clauses = self.clauses
        if len(clauses) == 1:
            asker, kinds = clauses[0]
            return kinds if asker is None or asker is actor else ()
        found: list[str] = []
        for asker, kinds in clauses:
            if asker is None or asker is actor:
                found += [kind for kind in kinds if kind not in found]
        return tuple(found)

    def asked(self, actor=None):
        """(player, kind) pairs the ask allows (one player's only, when given); declines first."""
        players = self.round.players
        for asker, kinds in self.clauses:
            if actor is not None:
                if asker is not None and asker is not actor:
                    continue
                actors = (actor,)
            else:
                actors = players if asker is None else (asker,)
            for kind in _declines_first(kinds):
                for who in actors:
                    yield who, kind

    def _known(self) -> dict:
        known = self.known
        if known is None:
            known = self.known = {}
        return known

    def first_decline(self, actors) -> Move | None:
        """Nobody acted at a decision of several players: the first of `actors` (in the order of
        priority) who may decline declines it; None when nobody may."""
        site = self.site
        anyone = self.several is site.clauses
        for actor in actors:
            for kind in site.kinds if anyone else self.kinds_of(actor):
                if kind in DECLINE_KINDS:
                    for form in site.forms[kind]:
                        if self.legal_form(actor, form):
                            return Move(actor, kind)
        return None

    # -- is it legal? ------------------------------------------------------------------------------
    def legal_form(self, actor, form: Form) -> bool:
        """Whether this player has a legal move of this form."""
        if form.cost == 0:      # one candidate: judging it is as cheap as looking it up
            return form.judge(self.round, self.C, actor)
        known = self._known()
        key = (actor, form)
        found = known.get(key)
        if found is None:
            if form.cost == 1:   # few candidates: list them at once
                return bool(self.args_of(actor, form))
            found = known[key] = form.exists(self.round, self.C, actor, self)
        return bool(found)

    def legal(self, actor, kind: str, arity: int) -> bool:
        """Whether this player has a legal move of this kind with this many arguments."""
        form = self.site.by_arity.get((kind, arity))
        return form is not None and self.legal_form(actor, form)

    def any_legal(self) -> bool:
        if self.site.always:
            return True
        players = self.round.players
        legal = self.legal_form
        clauses = self.clauses
        for form in self.site.checks:
            for asker, kinds in clauses:
                if form.kind in kinds:
                    if asker is not None:
                        if legal(asker, form):
                            return True
                    elif any(legal(actor, form) for actor in players):
                        return True
        return False

    def allows(self, actor, kind: str) -> bool:
        """Whether this player has a legal move of this kind (the first legal form is enough)."""
        return any(self.legal_form(actor, form) for form in self.site.forms.get(kind, ()))

    # -- the moves ---------------------------------------------------------------------------------
    def args_of(self, actor, form: Form) -> list:
        """Every legal argument tuple of one form, in the order of the enumeration."""
        known = self._known()
        key = (actor, form)
        found = known.get(key)
        if found is None or found is True:
            if form.arity == 0:
                return [()] if self.legal_form(actor, form) else []
            found = known[key] = form.every(self.round, self.C, actor, self)
        elif found is False:
            return []
        return found

    def move(self, actor, kind: str, args: tuple) -> Move:
        if SHAPES[kind].args == "player":
            return Move(actor, kind, (), args[0])
        return Move(actor, kind, args)

    def targets(self, actor, kind: str) -> list[tuple]:
        """The arguments of every legal move of this kind, in the order of its moves."""
        return [args for form in self.site.forms.get(kind, ()) for args in self.args_of(actor, form)]

    def first_move(self, actor, kind: str, known_legal: bool = False) -> Move | None:
        """The first of this player's legal moves of this kind (None: none), no other made.
        `known_legal`: the caller knows one is legal (a kind of one form with no argument is then
        that move, not judged again)."""
        forms = self.site.forms.get(kind, ())
        if known_legal and len(forms) == 1 and forms[0].arity == 0:
            return Move(actor, kind)
        for form in forms:
            args = self.args_of(actor, form)
            if args:
                return self.move(actor, kind, args[0])
        return None

    def moves(self, actor, kind: str) -> list[Move]:
        if SHAPES[kind].args == "player":
            return [Move(actor, kind, (), args[0]) for args in self.targets(actor, kind)]
        return [Move(actor, kind, args) for args in self.targets(actor, kind)]

    def slot_entries(self) -> list:
        """Every slot of the table with its card (or None), as the state is at this decision."""
        known = self._known()
        found = known.get("entries")
        if found is None:
            found = known["entries"] = self.round.slot_entries()
        return found


class Judge:
    """The legality half of a round (engine.Round): judging given moves, listing legal ones."""

    __slots__ = ()

    # -- judging a move someone gives ------------------------------------------------------------
    def context(self, move: Move, ask: Ask | None) -> Ctx:
        base = ask.C if ask is not None else EMPTY_CTX
        return Ctx(move.actor, base.user, base.power, move.targets, move.chosen)

    def refusal(self, move: Move) -> tuple[str, object] | None:
        """Why the move is refused (reason, deciding rule), or None when it is legal."""
        before = self.before_rules(move)
        if before is not None:
            return (before[1], None)
        kind = move.kind
        ask = self.pending
        rule = self.program.legal[kind](self, self.context(move, ask))
        if rule is not None:
            self.decided.add(rule.name)
            self.decided_log.append(rule.name)
        if self.strict:
            self._check_conflicts(move, ask, rule)
        if rule is None:
            return (f"no rule decides whether {kind} is legal here (a gap in the rules)", None)
        if not rule.allow:
            if rule.decl.level == 0:
                return (f"no rule allows it here (default {rule.name}, {rule.decl.loc})", rule)
            return (f"refused by rule {rule.name} ({rule.decl.loc})", rule)
        return None

    def before_rules(self, move: Move) -> tuple[str, str] | None:
        """(what, reason) when the move is refused before any rule is read: 'round' (the round is
        over), 'ask' (the game waits for another decision) or 'slot' (it names a slot that does not
        exist); None when the rules of its kind judge it."""
        kind = move.kind
        ask = self.pending
        if kind not in self.program.anytime:
            if ask is None:
                return ("round", "the round is over")
            if not any((asker is None or asker is move.actor) and kind in kinds for asker, kinds in ask.clauses):
                return ("ask", f"{move.actor.name} cannot {kind} now; the game waits for {self.describe_pending()}")
        problem = self._slot_problem(move)
        return ("slot", problem) if problem else None

    def deciding_rule(self, move: Move):
        """The legality rule that decides this move here (None: no rule decides); the move must
        name existing slots (before_rules)."""
        return self.program.legal[move.kind](self, self.context(move, self.pending))

    def is_legal(self, move: Move) -> bool:
        return self.refusal(move) is None

    def rules_problem(self, move: Move) -> str | None:
        """'gap' when no legality rule decides this move here, 'overlap' when rules of the same
        level disagree on it; None when one rule decides (or the move names no slot)."""
        if self._slot_problem(move):
            return None
        ask = self.pending
        rule = self.program.legal[move.kind](self, self.context(move, ask))
        if rule is None:
            return "gap"
        try:
            self._check_conflicts(move, ask, rule)
        except RuleRuntimeError:
            return "overlap"
        return None

    def _check_conflicts(self, move: Move, ask, winner) -> None:
        if winner is None:
            return
        applicable = self.program.applicable[move.kind](self, self.context(move, ask))
        spec = self.program.spec
        top = [winner] + [r for r in applicable if r.decl.level == winner.decl.level and r.allow != winner.allow
                          and not spec.settled(r.decl, winner.decl)]
        if len(top) > 1:
            names = ", ".join(f"{r.name} ({r.decl.loc})" for r in top)
            raise RuleRuntimeError(f"rules disagree on '{format_move(move)}' with no precedence between them: {names}")

    def _slot_problem(self, move: Move) -> str | None:
        new_slot = SHAPES[move.kind].new_slot
        for target in move.targets:
            if target is None:
                continue
            player, number = target
            size = len(player.layout)
            if new_slot and number == size + 1:
                continue
            if number > size:
                extra = f" (a new slot would be {size + 1})" if new_slot else ""
                return f"{player.name} has no slot {number}: slots 1 to {size}{extra}" if size \
                    else f"{player.name} has no slots{extra}"
        return None

    # -- the legal moves of the pending decision ------------------------------------------------------
    def legal_moves(self, kinds=None) -> list[Move]:
        """Every legal move at the pending decision, by every player asked."""
        ask = self.pending
        if ask is None:
            return []
        return [move for actor, kind in ask.asked() if kinds is None or kind in kinds
                for move in ask.moves(actor, kind)]

    def moves_of_kind(self, actor, kind: str) -> list[Move]:
        ask = self.pending
        return ask.moves(actor, kind) if ask is not None else []

    def awaited(self) -> list[tuple]:
        """What the game waits for: (player or None for anyone, the kinds of move asked of them
        that the rules allow now), one entry per clause of the pending ask that has any."""
        ask = self.pending
        if ask is None:
            return []
        found = []
        for asker, kinds in ask.clauses:
            actors = self.players if asker is None else (asker,)
            legal = tuple(kind for kind in kinds if any(ask.allows(actor, kind) for actor in actors))
            if legal:
                found.append((asker, legal))
        return found

    def describe_pending(self) -> str:
        if self.pending is None:
            return "nothing (the round is over)"
        return "; ".join(f"{'anyone' if asker is None else asker.name}: {', '.join(kinds)}"
                         for asker, kinds in self.awaited())

    # -- every candidate the notation can write (for tests and searches) -------------------------------
    def candidates(self, actor, kind: str):
        """Every move of this kind and actor the notation can write (legal or not)."""
        shape = SHAPES[kind]
        if shape.args == "none":
            yield Move(actor, kind)
            return
        if shape.args == "player":
            for player in self.players:
                yield Move(actor, kind, (), player)
            return
        slots = list(actor.places) if shape.args == "own" else self.all_slots()
        if shape.new_slot:
            slots.append((actor, len(actor.layout) + 1))
        for count in shape.counts:
            if count == 0:
                yield Move(actor, kind)
            elif count == 1:
                for slot in ([None] if shape.placeholder(1, 0) else []) + slots:
                    yield Move(actor, kind, (slot,))
            else:
                for pair in permutations(slots, 2):
                    yield Move(actor, kind, pair)
                if shape.placeholder(2, 0):
                    for slot in slots:
                        yield Move(actor, kind, (None, slot))

    def brute_force_candidates(self, kind: str) -> list[Move]:
        """Every move of this kind the notation can write, by every asked player (legal or not)."""
        ask = self.pending
        if ask is None:
            return []
        return [move for actor, asked in ask.asked() if asked == kind for move in self.candidates(actor, kind)]

    def brute_force_moves(self) -> list[Move]:
        """Every candidate the notation can write, judged one by one (for tests of the staged rules)."""
        ask = self.pending
        if ask is None:
            return []
        legal = self.program.legal
        return [move for actor, kind in ask.asked() for move in self.candidates(actor, kind)
                if allows(legal[kind](self, self.context(move, ask)))]
