"""A round in play: the decision loop, legal moves, and the effect primitives.

The generic machinery of the game. Which moves are legal, what each move does,
when powers fire, how a round ends: all of that is read from the compiled spec
(program.py, compile.py). Here are only zones and slots, the frames of running
procedures, knowledge, and randomness.
"""
from __future__ import annotations

import copy
from itertools import permutations

from baobei.dsl.errors import RuleRuntimeError
from baobei.dsl.schema import DECLINE_KINDS

from .moves import PLACEHOLDER_FIRST, SHAPES, Move, format_move
from .program import Ask, Block, Program
from .state import Card, CardKind, Player, Reference, Rng

# Frame kinds
BLOCK, LOOP, WHILE = 0, 1, 2


class Ctx:
    """Who is acting: the move's actor and arguments, the power being played."""

    __slots__ = ("actor", "user", "power", "targets", "target", "second", "chosen")

    def __init__(self, actor=None, user=None, power=None, targets=(), chosen=None):
        self.actor = actor
        self.user = user
        self.power = power
        self.targets = targets
        self.target = targets[0] if targets else None
        self.second = targets[1] if len(targets) > 1 else None
        self.chosen = chosen


EMPTY_CTX = Ctx()


class Frame:
    __slots__ = ("code", "pc", "L", "C", "kind", "loop", "action")

    def __init__(self, block: Block, L: dict, C: Ctx, kind: int = BLOCK, loop=None, action: bool = False):
        self.code = block.code
        self.pc = 0
        self.L = L
        self.C = C
        self.kind = kind
        self.loop = loop          # LOOP: [var, items, index]; WHILE: condition
        self.action = action


class IllegalMove(Exception):
    def __init__(self, reason: str, rule=None):
        super().__init__(reason)
        self.reason = reason
        self.rule = rule


class Round:
    """One round of BAO BEI under a compiled spec."""

    def __init__(self, program: Program, player_names: list[str], rng: Rng, *, threshold: int = 0,
                 edition_deal: int = 0, tiebreak: bool = False, first: int | None = 0, lot: int | None = None,
                 totals: dict | None = None):
        """`first`: the index of the round's first player; None lets the spec's decision
        opening_player choose it, reading `lot`, the index the machinery drew at random."""
        self.program = program
        self.compiled = program.compiled
        self.kinds: dict[str, CardKind] = self.compiled.kinds
        self.rng = rng
        self.players = [Player(name, index, self._player_vars()) for index, name in enumerate(player_names)]
        self.by_name = {p.name: p for p in self.players}
        for player in self.players:
            if totals and player.name in totals:
                player.vars["total"] = totals[player.name]
        self.lot = self.players[lot] if lot is not None else None
        self._open(first if first is not None else 0)
        self.vars = {name: init(self, EMPTY_CTX, {}) for name, init in self.compiled.var_init.items()}
        self.threshold = threshold
        self.edition_deal = edition_deal
        self.tiebreak = tiebreak
        self.turn = 0
        self.sequence = 0
        self.deck: list[Card] = []         # top last
        self.discard: list[Card] = []      # top last
        self.under: list[Card] = []
        self.held: list[Card] = []
        self.known: list[dict] = [{} for _ in self.players]
        self.ref = Reference(None, None, None, False)
        self.frames: list[Frame] = []
        self.pending: Ask | None = None
        self.changes: list[tuple[Player, Player]] = []   # (owner, agent) of the running action
        self.change_log: list[tuple] = []                # every change: (owner, agent, owner shielded then)
        self.shown: list[CardKind] = []                  # revealed to everyone by the last move
        self.reshuffles: list[list[str]] | None = None   # scripted shuffles (scenarios, replays)
        self.shuffled: list[list[str]] = []              # every new draw pile a recycle made (top first)
        self.initial_deck: list[str] = []                # the draw pile before the deal (top first)
        self.strict = False                               # check every rule for conflicts
        self.history: list[Move] = []
        self.in_action = 0                                # 1 while a move's action runs
        self.last_fired: list[tuple] = []                 # (role, rule, rank) of the last resolution
        self.decided: set[str] = set()                    # rules that decided a judged move or fired a power
        self.decided_log: list[str] = []                  # the same, in the order they decided
        self._uid = 0
        if first is None:  # the rules decide who opens the round, once they can see all of it
            self._open(self.players.index(self._opening_player()))

    # -- construction ---------------------------------------------------------------------
    def _open(self, first: int) -> None:
        self.first = self.active = self.players[first]
        self.order = self.players[first:] + self.players[:first]

    def _opening_player(self) -> Player:
        opening = self.compiled.ns["X_opening_player"](self, EMPTY_CTX)
        if opening is None:
            raise RuleRuntimeError("the decision opening_player names no player of this round")
        return opening

    def _player_vars(self) -> dict:
        return {name: init(self, EMPTY_CTX, {}) for name, init in self.compiled.player_var_init.items()}

    def new_card(self, name: str) -> Card:
        self._uid += 1
        return Card(self.kinds[name], self._uid)

    def start(self, procedures: list[str]) -> None:
        """Run these procedures in order (e.g. setup then turns) up to the first decision."""
        for name in reversed(procedures):
            decl, block = self.program.procedures[name]
            self.frames.append(Frame(block, {}, EMPTY_CTX))
        self.run()

    def clone(self) -> "Round":
        memo = {id(self.program): self.program, id(self.compiled): self.compiled, id(self.rng): copy.deepcopy(self.rng)}
        for kind in self.kinds.values():
            memo[id(kind)] = kind
        return copy.deepcopy(self, memo)

    # -- what the generated code reads ------------------------------------------------------
    def all_slots(self):
        return [slot for p in self.players for slot in p.slots()]

    def held_kinds(self):
        return [card.kind for card in self.held]

    def next_player(self, player):
        if player is None:
            return None
        players = self.players
        return players[(players.index(player) + 1) % len(players)]

    def changed_by_others(self, player) -> bool:
        return any(owner is player and agent is not player for owner, agent in self.changes)

    # -- the decision loop ----------------------------------------------------------------------
    def push_block(self, block: Block, parent: Frame) -> None:
        self.frames.append(Frame(block, parent.L, parent.C))

    def push_loop(self, block: Block, parent: Frame, var: str, items: list) -> None:
        L = dict(parent.L)
        L[var] = items[0]
        self.frames.append(Frame(block, L, parent.C, LOOP, [var, items, 0]))

    def push_while(self, block: Block, parent: Frame, cond) -> None:
        self.frames.append(Frame(block, parent.L, parent.C, WHILE, cond))

    def call(self, name: str, args: list, C: Ctx) -> None:
        decl, block = self.program.procedures[name]
        self.frames.append(Frame(block, {p.name: a for p, a in zip(decl.params, args)}, C))

    def call_now(self, name: str) -> None:
        """Run a procedure to its end at once (the machinery's hooks: recycle, action_end)."""
        depth = len(self.frames)
        decl, block = self.program.procedures[name]
        self.frames.append(Frame(block, {}, EMPTY_CTX))
        while len(self.frames) > depth:
            if self._step() is not None:
                raise RuleRuntimeError(f"procedure '{name}' may not ask for a move (it runs in the middle of another action)")

    def run(self) -> None:
        """Run until the game waits for a move (self.pending) or the round is over (pending None)."""
        self.pending = None
        while self.frames:
            ask = self._step()
            if ask is not None:
                if self._has_legal_move(ask):
                    self.pending = ask
                    return
                # Nothing is possible: the rulebooks skip an impossible part of an action.

    def _step(self):
        frame = self.frames[-1]
        code = frame.code
        if frame.pc < len(code):
            stmt = code[frame.pc]
            frame.pc += 1
            return stmt(self, frame)
        if frame.kind == LOOP:
            loop = frame.loop
            loop[2] += 1
            if loop[2] < len(loop[1]):
                frame.L[loop[0]] = loop[1][loop[2]]
                frame.pc = 0
                return None
        elif frame.kind == WHILE:
            if frame.loop(self, frame.C, frame.L):
                frame.pc = 0
                return None
        self.frames.pop()
        if frame.action:
            self._end_action()
        return None

    def _end_action(self) -> None:
        self.in_action = 0
        self.call_now("action_end")
        self.changes = []

    # -- moves ---------------------------------------------------------------------------------
    @property
    def round_over(self) -> bool:
        return self.pending is None and not self.frames

    def context(self, move: Move, ask: Ask | None) -> Ctx:
        base = ask.C if ask is not None else EMPTY_CTX
        return Ctx(move.actor, base.user, base.power, move.targets, move.chosen)

    def refusal(self, move: Move) -> tuple[str, object] | None:
        """Why the move is refused (reason, deciding rule), or None when it is legal."""
        kind = move.kind
        ask = self.pending
        if kind in self.program.anytime:
            asked = True
        elif ask is None:
            return ("the round is over", None)
        else:
            asked = any((asker is None or asker is move.actor) and kind in kinds for asker, kinds in ask.clauses)
        if not asked:
            return (f"{move.actor.name} cannot {kind} now; the game waits for {self.describe_pending()}", None)
        problem = self._slot_problem(move)
        if problem:
            return (problem, None)
        rule = self.compiled.legal[kind](self, self.context(move, ask))
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

    def rules_problem(self, move: Move) -> str | None:
        """'gap' when no legality rule decides this move here, 'overlap' when rules of the same
        level disagree on it; None when one rule decides (or the move names no slot)."""
        if self._slot_problem(move):
            return None
        ask = self.pending
        rule = self.compiled.legal[move.kind](self, self.context(move, ask))
        if rule is None:
            return "gap"
        try:
            self._check_conflicts(move, ask, rule)
        except RuleRuntimeError:
            return "overlap"
        return None

    def _check_conflicts(self, move: Move, ask, winner) -> None:
        applicable = self.compiled.legal_all[move.kind](self, self.context(move, ask))
        if winner is None:
            return
        spec = self.program.spec
        top = [winner] + [r for r in applicable if r.decl.level == winner.decl.level and r.allow != winner.allow
                          and not spec.settled(r.decl, winner.decl)]
        if len(top) > 1:
            names = ", ".join(f"{r.name} ({r.decl.loc})" for r in top)
            raise RuleRuntimeError(f"rules disagree on '{format_move(move)}' with no precedence between them: {names}")

    def _slot_problem(self, move: Move) -> str | None:
        for target in move.targets:
            if target is None:      # a placeholder `_`
                continue
            player, number = target
            size = len(player.layout)
            if move.kind == "place" and number == size + 1:
                continue
            if number > size:
                extra = f" (a new slot would be {size + 1})" if move.kind == "place" else ""
                return f"{player.name} has no slot {number}: slots 1 to {size}{extra}" if size \
                    else f"{player.name} has no slots{extra}"
        return None

    def is_legal(self, move: Move) -> bool:
        return self.refusal(move) is None

    def apply(self, move: Move, trusted: bool = False) -> None:
        """Play a legal move; an illegal one raises IllegalMove and changes nothing.
        `trusted`: the move comes from the legal-move generators, so it is not judged again."""
        if not trusted:
            refused = self.refusal(move)
            if refused is not None:
                raise IllegalMove(*refused)
        self.shown = []
        self.history.append(move)
        kind = move.kind
        ask = self.pending
        C = self.context(move, ask)
        if kind in self.program.anytime and not (ask is not None and kind in ask.kinds()):
            self._run_anytime(kind, C)
            return
        block = self.program.handlers.get(kind)
        if block is not None:
            is_action = self.in_action == 0 and C.power is None
            if is_action:
                self.changes = []
                self.in_action = 1
            self.frames.append(Frame(block, {}, C, action=is_action))
        self.run()

    def _run_anytime(self, kind: str, C: Ctx) -> None:
        depth = len(self.frames)
        self.frames.append(Frame(self.program.handlers[kind], {}, C))
        while len(self.frames) > depth:
            if self._step() is not None:
                raise RuleRuntimeError(f"'on {kind} anytime' may not ask for a move")

    # -- legal moves ---------------------------------------------------------------------------
    def candidates(self, actor: Player, kind: str):
        """Every move of this kind and actor the notation can write (legal or not)."""
        shape, counts = SHAPES[kind]
        if shape == "none":
            yield Move(actor, kind)
        elif shape == "own":
            size = len(actor.layout) + (1 if kind == "place" else 0)
            if kind == "peek":
                for a in range(1, size + 1):
                    for b in range(1, size + 1):
                        if a != b:
                            yield Move(actor, kind, ((actor, a), (actor, b)))
            else:
                for n in range(1, size + 1):
                    yield Move(actor, kind, ((actor, n),))
        elif shape == "player":
            for player in self.players:
                yield Move(actor, kind, (), player)
        else:
            slots = self.all_slots()
            for count in counts:
                if count == 0:
                    yield Move(actor, kind)
                elif count == 1:
                    for slot in slots:
                        yield Move(actor, kind, (slot,))
                else:
                    for pair in permutations(slots, 2):
                        yield Move(actor, kind, pair)
                    if kind in PLACEHOLDER_FIRST:
                        for slot in slots:
                            yield Move(actor, kind, (None, slot))

    def domain(self, actor: Player, kind: str):
        """The arguments the notation can give a move of this kind (legal or not)."""
        shape = SHAPES[kind][0]
        if shape == "own":
            if kind == "place":
                return actor.slots() + [(actor, len(actor.layout) + 1)]
            return actor.slots()
        if shape == "player":
            return self.players
        if shape == "slots":
            return self.all_slots()
        return ()

    def moves_of_kind(self, actor: Player, kind: str, ask: Ask | None = None):
        """The legal moves of one kind and actor, generated by the staged rules (enumerate.py)."""
        ask = ask or self.pending
        counts = SHAPES[kind][1]
        domain = self.domain(actor, kind) if counts != (0,) else ()
        for arity in counts:
            yield from self._form_moves(actor, kind, arity, domain, ask)

    def _asked(self, ask: Ask, actor: Player | None = None):
        """(player, kind) pairs the ask allows (one player's only, when given); declines first."""
        for asker, kinds in ask.clauses:
            if actor is not None:
                if asker is not None and asker is not actor:
                    continue
                actors = [actor]
            else:
                actors = self.players if asker is None else [asker]
            for kind in sorted(kinds, key=lambda k: k not in DECLINE_KINDS):
                for who in actors:
                    yield who, kind

    def legal_moves(self, kinds=None) -> list[Move]:
        """Every legal move at the pending decision, by every player asked."""
        ask = self.pending
        if ask is None:
            return []
        return [move for actor, kind in self._asked(ask) if kinds is None or kind in kinds
                for move in self.moves_of_kind(actor, kind, ask)]

    def legal_moves_of(self, actor: Player, kinds=None) -> list[Move]:
        """The legal moves of one player at the pending decision."""
        ask = self.pending
        if ask is None:
            return []
        return [move for who, kind in self._asked(ask, actor) if kinds is None or kind in kinds
                for move in self.moves_of_kind(who, kind, ask)]

    def options(self, actor: Player) -> dict[str, list[int]]:
        """For each kind this player may make now, the numbers of targets it has legal moves with."""
        ask = self.pending
        found: dict[str, list[int]] = {}
        if ask is None:
            return found
        for who, kind in self._asked(ask, actor):
            if kind in found:
                continue
            counts = SHAPES[kind][1]
            domain = self.domain(who, kind) if counts != (0,) else ()
            forms = self._forms(who, kind, domain, ask)
            if forms:
                found[kind] = forms
        return found

    def sample_move(self, actor: Player, kind: str, rng: Rng, tries: int = 32, forms=None) -> Move | None:
        """A random legal move of this kind: a form (number of targets) among those with a legal
        move (`forms`, from options(), or found here), then uniform over that form's legal moves by
        rejection sampling (the full list is the fallback after `tries` refusals)."""
        ask = self.pending
        shape, counts = SHAPES[kind]
        if counts == (0,):
            return Move(actor, kind) if self._bare_move_legal(actor, kind, ask) else None
        domain = self.domain(actor, kind)
        if forms is None:
            forms = self._forms(actor, kind, domain, ask)
        if not forms:
            return None
        arity = forms[0] if len(forms) == 1 else rng.choice(forms)
        if arity == 0:
            return Move(actor, kind)
        n = len(domain)
        pairs = n * (n - 1)
        placeholders = n if arity == 2 and kind in PLACEHOLDER_FIRST else 0   # (_, b): one per b
        if (n if arity == 1 else pairs + placeholders) <= 16:  # few candidates: list the legal ones
            return rng.choice(list(self._form_moves(actor, kind, arity, domain, ask)))
        check = self.program.checks[(kind, arity)]
        C = self._ctx(actor, ask)
        for _ in range(tries):
            if arity == 1:
                args = (domain[rng.randrange(n)],)
            else:
                drawn = rng.randrange(pairs + placeholders)
                if drawn >= pairs:
                    args = (None, domain[drawn - pairs])
                else:
                    first, second = divmod(drawn, n - 1)
                    args = (domain[first], domain[second + (second >= first)])
            if shape == "player":
                C.chosen = args[0]
            else:
                C.targets, C.target, C.second = args, args[0], args[1] if arity == 2 else None
            if check(self, C):
                return Move(actor, kind, (), args[0]) if shape == "player" else Move(actor, kind, args)
        return rng.choice(list(self._form_moves(actor, kind, arity, domain, ask)))

    def _form(self, actor: Player, kind: str, arity: int, domain, ask: Ask):
        return self.program.staged[(kind, arity)](self, self._ctx(actor, ask), domain, _first(kind, arity, domain))

    def _forms(self, actor: Player, kind: str, domain, ask: Ask) -> list[int]:
        """The numbers of targets this kind has a legal move with."""
        return [arity for arity in SHAPES[kind][1] if next(self._form(actor, kind, arity, domain, ask), None) is not None]

    def _bare_move_legal(self, actor: Player, kind: str, ask: Ask) -> bool:
        """A kind with no targets has one possible move: judged directly."""
        return self.program.checks[(kind, 0)](self, self._ctx(actor, ask))

    @staticmethod
    def _ctx(actor: Player, ask: Ask) -> Ctx:
        """The context a move of this actor is judged in, at this ask (its power and user)."""
        return Ctx(actor, ask.C.user, ask.C.power)

    def _form_moves(self, actor, kind, arity, domain, ask):
        player_shape = SHAPES[kind][0] == "player"
        for args in self._form(actor, kind, arity, domain, ask):
            yield Move(actor, kind, (), args[0]) if player_shape else Move(actor, kind, args)

    def brute_force_candidates(self, kind: str) -> list[Move]:
        """Every move of this kind the notation can write, by every asked player (legal or not)."""
        ask = self.pending
        if ask is None:
            return []
        return [move for actor, asked in self._asked(ask) if asked == kind for move in self.candidates(actor, kind)]

    def brute_force_moves(self) -> list[Move]:
        """Every candidate the notation can write, judged one by one (for tests of the staged rules)."""
        ask = self.pending
        if ask is None:
            return []
        legal = self.compiled.legal
        return [move for actor, kind in self._asked(ask) for move in self.candidates(actor, kind)
                if (rule := legal[kind](self, self.context(move, ask))) is not None and rule.allow]

    def _has_legal_move(self, ask: Ask) -> bool:
        for actor, kind in self._asked(ask):
            if SHAPES[kind][1] == (0,):
                if self._bare_move_legal(actor, kind, ask):
                    return True
            elif next(self.moves_of_kind(actor, kind, ask), None) is not None:
                return True
        return False

    def awaited(self) -> list[tuple]:
        """What the game waits for: (player or None for anyone, the kinds of move asked of them
        that the rules allow now), one entry per clause of the pending ask that has any."""
        ask = self.pending
        if ask is None:
            return []
        found = []
        for asker, kinds in ask.clauses:
            actors = self.players if asker is None else [asker]
            legal = tuple(kind for kind in kinds if any(self._kind_has_move(actor, kind, ask) for actor in actors))
            if legal:
                found.append((asker, legal))
        return found

    def _kind_has_move(self, actor: Player, kind: str, ask: Ask) -> bool:
        if SHAPES[kind][1] == (0,):
            return self._bare_move_legal(actor, kind, ask)
        return next(self.moves_of_kind(actor, kind, ask), None) is not None

    def describe_pending(self) -> str:
        if self.pending is None:
            return "nothing (the round is over)"
        return "; ".join(f"{'anyone' if asker is None else asker.name}: {', '.join(kinds)}"
                         for asker, kinds in self.awaited())

    # -- powers ------------------------------------------------------------------------------------
    def resolve_powers(self, F: Frame):
        fired = []
        self.last_fired = []
        for role, fire in self.compiled.fire_groups:
            result = fire(self, F.C)
            if result is None:
                continue
            self.decided.add(result[3].name)
            self.decided_log.append(result[3].name)
            if result[0] is not None and result[0].power is not None and result[1] is not None:
                fired.append(result)
                self.last_fired.append((role, result[3].name, result[2]))
        if not fired:
            return None
        fired.sort(key=lambda item: item[2])
        for before, after in zip(fired, fired[1:]):
            if before[2] == after[2]:
                raise RuleRuntimeError(
                    f"powers of {before[0].name} ({before[3].name}) and {after[0].name} ({after[3].name}) fire "
                    f"with the same rank {before[2]}: no rule decides which comes first")
        self.sequence += 1
        for kind, user, rank, rule in reversed(fired):
            block = self.program.powers[kind.power]
            C = Ctx(user, user, kind.power)
            self.frames.append(Frame(block, {}, C, action=True))
        return None

    # -- primitives ------------------------------------------------------------------------------
    def _agent(self, C: Ctx):
        return C.user if C.power is not None else C.actor

    def _changed(self, owner: Player, C: Ctx) -> None:
        agent = self._agent(C)
        self.changes.append((owner, agent))
        shielded = bool(self.vars.get("shield")) and self.vars.get("bao") is owner
        self.change_log.append((owner, agent, shielded))

    def _mark(self, card: Card, C: Ctx) -> None:
        if C.power is not None:
            card.moved_turn = self.turn
            card.moved_sequence = self.sequence
            card.moved_by = C.user

    def _forget(self, slot) -> None:
        key = (slot[0].index, slot[1])
        for known in self.known:
            known.pop(key, None)

    def _set_ref(self, kind: CardKind, how: str | None, C: Ctx) -> None:
        if how is not None:
            self.ref = Reference(kind, how, C.actor, True)

    def draw_one(self) -> Card | None:
        if not self.deck:
            self.call_now("recycle")
            if not self.deck:
                return None
        return self.deck.pop()

    def draw(self, count: int, player, seen: bool, how, C: Ctx):
        drawn = 0
        for _ in range(count):
            card = self.draw_one()
            if card is None:
                break
            self.held.append(card)
            drawn += 1
        if drawn and how is not None:
            self._set_ref(self.held[-drawn].kind, how, C)

    def flip(self, how):
        card = self.draw_one()
        if card is not None:
            self.discard.append(card)
            self.ref = Reference(card.kind, how, None, True)

    def _take_from_slot(self, slot, C: Ctx) -> Card:
        card = self._slot_card(slot)
        if card is None:
            raise RuleRuntimeError(f"there is no card at {slot[0].name}.{slot[1]}")
        slot[0].layout[slot[1] - 1] = None
        self._forget(slot)
        self._changed(slot[0], C)
        return card

    def _slot_card(self, slot):
        if slot is None:
            return None
        layout = slot[0].layout
        return layout[slot[1] - 1] if 0 < slot[1] <= len(layout) else None

    def discard_held(self, how, C: Ctx):
        if not self.held:
            raise RuleRuntimeError("nothing is held to discard")
        card = self.held.pop(0)
        self.discard.append(card)
        self.shown.append(card.kind)
        self._set_ref(card.kind, how, C)

    def discard_slot(self, slot, how, C: Ctx):
        card = self._take_from_slot(slot, C)
        self.discard.append(card)
        self.shown.append(card.kind)
        self._set_ref(card.kind, how, C)

    def bury_held(self):
        if not self.held:
            raise RuleRuntimeError("nothing is held to put under the discard")
        self.under.append(self.held.pop(0))

    def bury_slot(self, slot, C: Ctx):
        self.under.append(self._take_from_slot(slot, C))

    def place(self, slot, viewer, C: Ctx):
        if not self.held:
            raise RuleRuntimeError("nothing is held to place")
        player, number = slot
        layout = player.layout
        if number == len(layout) + 1:
            layout.append(None)
        elif not (0 < number <= len(layout)) or layout[number - 1] is not None:
            raise RuleRuntimeError(f"{player.name}.{number} is not a free slot")
        card = self.held.pop(0)
        layout[number - 1] = card
        self._forget(slot)
        self._learn(slot, card, viewer)
        self._changed(player, C)
        self._mark(card, C)

    def _learn(self, slot, card: Card, viewer) -> None:
        key = (slot[0].index, slot[1])
        if viewer == "everyone":
            for known in self.known:
                known[key] = card.kind
        elif viewer != "nobody" and viewer is not None:
            self.known[viewer.index][key] = card.kind

    def take_top(self):
        if not self.discard:
            raise RuleRuntimeError("the discard is empty")
        self.held.insert(0, self.discard.pop())

    def swap(self, a, b, C: Ctx):
        card_a, card_b = self._slot_card(a), self._slot_card(b)
        if card_a is None or card_b is None:
            raise RuleRuntimeError("a swap needs two cards")
        a[0].layout[a[1] - 1], b[0].layout[b[1] - 1] = card_b, card_a
        key_a, key_b = (a[0].index, a[1]), (b[0].index, b[1])
        for known in self.known:
            ka, kb = known.pop(key_a, None), known.pop(key_b, None)
            if ka is not None:
                known[key_b] = ka
            if kb is not None:
                known[key_a] = kb
        self._changed(a[0], C)
        self._changed(b[0], C)
        self._mark(card_a, C)
        self._mark(card_b, C)

    def move(self, source, dest, C: Ctx):
        card = self._slot_card(source)
        if card is None:
            raise RuleRuntimeError("nothing to move")
        if self._slot_card(dest) is not None:
            raise RuleRuntimeError(f"{dest[0].name}.{dest[1]} is not free")
        if dest[1] == len(dest[0].layout) + 1:
            dest[0].layout.append(None)
        source[0].layout[source[1] - 1] = None
        dest[0].layout[dest[1] - 1] = card
        key_s, key_d = (source[0].index, source[1]), (dest[0].index, dest[1])
        for known in self.known:
            kind = known.pop(key_s, None)
            known.pop(key_d, None)
            if kind is not None:
                known[key_d] = kind
        self._changed(source[0], C)
        self._changed(dest[0], C)
        self._mark(card, C)

    def reveal(self, slot, viewer, how, C: Ctx):
        card = self._slot_card(slot)
        if card is None:
            return
        self._learn(slot, card, viewer)
        if viewer == "everyone":
            self.shown.append(card.kind)
        self._set_ref(card.kind, how, C)

    def close_reference(self):
        ref = self.ref
        if ref.open:
            self.ref = Reference(ref.card, ref.how, ref.by, False)

    def shuffle_into_deck(self):
        gathered = self.discard[:-1] + self.under
        self.discard = self.discard[-1:]
        self.under = []
        if self.reshuffles:
            order = self.reshuffles.pop(0)
            self.deck = _arrange(gathered, order)
        else:
            self.rng.shuffle(gathered)
            self.deck = gathered
        self.shuffled.append([card.kind.name for card in reversed(self.deck)])

    def deal(self, count: int):
        for _ in range(count):
            for player in self.players:
                card = self.draw_one()
                if card is not None:
                    player.layout.append(card)


def _arrange(cards: list[Card], order: list[str]) -> list[Card]:
    """The gathered cards in a scripted order (top first); it must be a permutation of them."""
    pool: dict[str, list[Card]] = {}
    for card in cards:
        pool.setdefault(card.kind.name, []).append(card)
    gathered = sorted(card.kind.name for card in cards)
    if sorted(order) != gathered:
        raise RuleRuntimeError(f"the scripted reshuffle {order} is not a permutation of the gathered cards "
                               f"{gathered}")
    arranged = [pool[name].pop() for name in order]
    arranged.reverse()  # top last
    return arranged


def _first(kind: str, arity: int, domain):
    """What the first of two targets may be: a placeholder too, for the kinds that admit one."""
    if arity == 2 and kind in PLACEHOLDER_FIRST:
        return [None] + list(domain)
    return domain
