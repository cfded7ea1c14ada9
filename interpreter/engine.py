"""A round in play: the decision loop.

The spec's procedures are generator functions of the generated module: running a
round is resuming them until they yield the next decision (an `Ask`, one per ask site
and round, reused). An ask with no legal move is skipped where it is, without a pause
(the rulebooks skip an impossible part of an action); a move
played at an ask runs its handler in the ask's context, a complete action ends with
the spec's `procedure action_end`, and `resolve powers` plays the fired powers in
rank order. Which moves are legal, what each one does and when powers fire are all
the spec's (program.py); here are only the order of things and the bookkeeping.
"""
from __future__ import annotations

import sys

from baobei.dsl.errors import RuleRuntimeError

from . import trace as events
from .legality import Ask, IllegalMove, Judge
from .moves import Move, format_move
from .state import EMPTY_CTX, Ctx, Player, State

__all__ = ["Ctx", "IllegalMove", "Round", "same_move"]


class Round(State, Judge):
    """One round of BAO BEI under a program (a compiled spec). `Round(program, ...)` makes one of
    the program's own subclass, whose slots are the spec's variables (Program.round_class)."""

    __slots__ = ("program", "anytime", "threshold", "edition_deal", "tiebreak", "lot", "pending", "root", "strict",
                 "history", "in_action", "last_fired", "fired_cards", "decided", "decided_log", "dealt", "_initial_deck",
                 "rebuild", "_procedures", "_queue", "asks", "first", "active", "order")

    def __new__(cls, program, *args, **kwargs):
        return object.__new__(program.round_class if cls is Round else cls)

    def __init__(self, program, player_names: list[str], rng, *, threshold: int = 0, edition_deal: int = 0,
                 tiebreak: bool = False, first: int | None = 0, lot: int | None = None, totals: dict | None = None):
        """`first`: the index of the round's first player; None lets the spec's decision
        opening_player choose it, reading `lot`, the index the machinery drew at random."""
        super().__init__(player_names, rng, program.kinds, program.var_names, program.player_var_names)
        self.program = program
        self.anytime = program.anytime
        self.threshold = threshold
        self.edition_deal = edition_deal
        self.tiebreak = tiebreak
        self.lot = self.players[lot] if lot is not None else None
        self._open(first if first is not None else 0)
        program.init_vars(self, EMPTY_CTX)
        for player in self.players:
            program.init_player_vars(self, EMPTY_CTX, player)
            if totals and player.name in totals:
                player.v_total = totals[player.name]
        self.pending: Ask | None = None
        self.asks: list = []                              # the decision of each ask site, made when it first asks
        self.root = None                                  # the running procedure (a generator)
        self._queue: list[str] = []                       # the procedures to run after it
        self.strict = False                               # check every rule for conflicts, log what decided
        self.history: list[Move] = []
        self.in_action = 0                                # 1 while a move's action runs
        self.last_fired: list[tuple] = []                 # (role, rule, rank) of the last resolution
        self.fired_cards: list = []                       # every card whose power fired this round, in order
        self.decided: set[str] = set()                    # rules that decided a judged move or (strict) a trigger
        self.decided_log: list[str] = []                  # the same, in the order they decided
        self.dealt: list = []                             # the draw pile's cards before the deal (top last)
        self._initial_deck: list[str] | None = None
        self.rebuild = None                               # makes this round again, not started (for clone)
        self._procedures: list[str] = []
        if first is None:  # the rules decide who opens the round, once they can see all of it
            self._open(self.players.index(self._opening_player()))

    @property
    def initial_deck(self) -> list[str]:
        """The draw pile before the deal, card ids top first (read from `dealt` when first asked:
        most rounds are never asked)."""
        if self._initial_deck is None:
            self._initial_deck = [card.kind.name for card in reversed(self.dealt)]
        return self._initial_deck

    @initial_deck.setter
    def initial_deck(self, names: list[str]) -> None:
        self._initial_deck = names

    def _open(self, first: int) -> None:
        self.first = self.active = self.players[first]
        self.order = self.players[first:] + self.players[:first]

    def _opening_player(self) -> Player:
        opening = self.program.decision("opening_player")(self, EMPTY_CTX)
        if opening is None:
            raise RuleRuntimeError("the decision opening_player names no player of this round")
        return opening

    # -- running -------------------------------------------------------------------------------
    def start(self, procedures: list[str]) -> None:
        """Run these procedures in order (e.g. setup then turns) up to the first decision."""
        self._procedures = list(procedures)
        self._queue = list(procedures)
        self.root = None
        self.asks = [None] * len(self.program.sites)
        self._resume(None)

    def _next_procedure(self):
        """The next procedure started and run to its first decision (the Ask), or None when every
        one has ended (the round is over)."""
        queue = self._queue
        while queue:
            function, asks = self.program.procedures[queue.pop(0)]
            if not asks:
                function(self, EMPTY_CTX)
                continue
            self.root = function(self, EMPTY_CTX)
            try:
                return self.root.send(None)
            except StopIteration:
                pass
        self.root = None
        self.asks = []      # (each refers to the round: without them, the round ends with no reference cycle
        return None         # and is freed at once when dropped, not by the cyclic garbage collector)

    def _resume(self, move: Move | None) -> None:
        """Hand the move to the waiting procedure and run to the next decision (self.pending; the
        generated code asks only where some move is legal), or to the end of the round (pending
        None)."""
        self.pending = None
        if self.root is None:
            ask = self._next_procedure()
        else:
            try:
                ask = self.root.send(move)
            except StopIteration:
                ask = self._next_procedure()
        self.pending = ask
        if ask is not None and self.trace is not None:
            self._waiting()

    def play_trusted(self, table, on_move=None, limit: int = 0, watched=None) -> int:
        """Play to the end of the round the moves the players' plans give (agents.Table), each
        one of the pending decision's legal moves (so none is judged again). `on_move(round,
        move)` after each (of the kinds in `watched`, when given). The number of moves played;
        more than `limit` (if given) is an error. This is apply's and _resume's work, written out
        in one loop: random play spends its time here."""
        if self.trace is None and on_move is None:
            return self._play_plainly(table, limit)
        moves = 0
        ask = self.pending
        trace, history = self.trace, self.history
        while ask is not None:
            move = table.decide(self, ask)
            if move is None:
                raise RuleRuntimeError(f"no player can move at {ask.label}")
            if self.shown:
                self.shown = []
            if trace is not None:   # a trace names the rule that allows every move, judged or not
                rule = self.deciding_rule(move)
                trace(events.Judged(format_move(move), True, rule.name if rule else None))
            history.append(move)
            if trace is not None:
                trace(events.Played(format_move(move)))
            self._resume(move)
            ask = self.pending
            moves += 1
            if on_move is not None and (watched is None or move.kind in watched):
                on_move(self, move)
            if limit and moves > limit:
                raise RuleRuntimeError(f"a round went on for {limit} moves without ending")
        return moves

    def _play_plainly(self, table, limit: int) -> int:
        """play_trusted with no trace and no on_move: the same loop with nothing else in it (and
        table.decide written in)."""
        ask = self.pending
        if ask is None:
            return 0
        send = self.root.send
        append = self.history.append
        one, several, uniform = table.one, table.several, table.uniform
        for moves in range(1, (limit or sys.maxsize) + 1):    # (the count and the limit in one)
            actor, site = ask.actor, ask.site
            if actor is not None:
                move = (one.get(site) or table.one_plan(site))(self, ask.C, actor, ask, uniform)
            else:
                move = (several.get(site) or table.several_plan(site))(self, ask.C, None, ask, uniform)
            if move is None:
                raise RuleRuntimeError(f"no player can move at {ask.label}")
            if self.shown:
                self.shown = []
            append(move)
            try:
                ask = send(move)
            except StopIteration:
                ask = self._next_procedure()
                if ask is None:
                    self.pending = None
                    return moves
                send = self.root.send
            except BaseException:
                self.pending = None    # (an error while the move ran: no decision is pending)
                raise
            self.pending = ask
        raise RuleRuntimeError(f"a round went on for {limit} moves without ending")

    def _waiting(self) -> None:
        self.trace(events.Waiting(tuple(("anyone" if asker is None else asker.name, kinds)
                                        for asker, kinds in self.pending.clauses),
                                        self.pending.site.label))

    @property
    def round_over(self) -> bool:
        return self.pending is None and self.root is None

    def position(self) -> tuple:
        """Where the procedures wait: each running function and its place in it."""
        found = []
        running = self.root
        while running is not None:
            frame = running.gi_frame
            found.append((running.gi_code.co_name, frame.f_lasti if frame is not None else -1))
            running = running.gi_yieldfrom
        return tuple(found)

    # -- moves ---------------------------------------------------------------------------------------
    def apply(self, move: Move, trusted: bool = False) -> None:
        """Play a legal move; an illegal one raises IllegalMove and changes nothing.
        `trusted`: the move comes from the legal moves of the pending decision, so it is not judged again."""
        if not trusted:
            refused = self.refusal(move)
            if self.trace is not None:
                rule = refused[1] if refused is not None else self.deciding_rule(move)
                self.trace(events.Judged(format_move(move), refused is None, rule.name if rule else None,
                                         refused[0] if refused is not None else None))
            if refused is not None:
                raise IllegalMove(*refused)
        elif self.trace is not None:     # a trace names the rule that allows every move, judged or not
            rule = self.deciding_rule(move)
            self.trace(events.Judged(format_move(move), True, rule.name if rule else None))
        if self.shown:
            self.shown = []
        self.history.append(move)
        if self.trace is not None:
            self.trace(events.Played(format_move(move)))
        kind = move.kind
        if kind in self.anytime and not (self.pending is not None and kind in self.pending.site.kinds):
            function, _ = self.program.handlers[kind]
            function(self, self.context(move, self.pending))     # never asks (generate.py makes sure)
            return
        self._resume(move)


    def end_action(self) -> None:
        """A complete action (a move's handler with the moves it asks for, or a power) ends. (A
        move made outside any action and power begins one: the generated code sets in_action and a
        new list of changes, and ends it as here.)"""
        self.in_action = 0
        self.program.action_end(self, EMPTY_CTX)
        self.changes = []

    def recycle(self) -> None:
        self.program.recycle(self, EMPTY_CTX)

    # -- powers ------------------------------------------------------------------------------------
    def fired_powers(self, C: Ctx) -> list:
        """`resolve powers`, first half, in strict mode (the generated code calls the module's
        fired_powers itself otherwise): evaluate every trigger, log the trigger rules that decide;
        the powers that fire, in the order of the roles, each (card, user, rank, rule, role)."""
        log: list = []
        fired = self.program.fired_powers(self, C, log)
        self.decided.update(log)
        self.decided_log += log
        return fired

    def play_powers(self, fired: list):
        """`resolve powers`, second half: the fired powers (at least one) in rank order, played in
        that order, each by its user, each a complete action. (A resolution where none fires sets
        last_fired itself: a new list per resolution, which metrics.py tells apart.)"""
        self.last_fired = [(role, rule.name, rank) for _, _, rank, rule, role in fired]
        self.fired_cards += [entry[0] for entry in fired]
        if len(fired) > 1:
            fired.sort(key=lambda item: item[2])
            for before, after in zip(fired, fired[1:]):
                if before[2] == after[2]:
                    raise RuleRuntimeError(
                        f"powers of {before[0].name} ({before[3].name}) and {after[0].name} ({after[3].name}) fire "
                        f"with the same rank {before[2]}: no rule decides which comes first")
        if self.trace is not None:
            roles = {rule: role for role, rule, _ in self.last_fired}
            self.trace(events.Fired(tuple((roles[rule.name], rule.name, card.name, user.name, rank)
                                          for card, user, rank, rule, _ in fired)))
        self.sequence += 1
        for card, user, rank, rule, _ in fired:
            function, asks = self.program.powers[card.power]
            context = Ctx(user, user, card.power)
            if self.trace is not None:
                self.trace(events.PowerBegins(card.power, card.name, user.name, rule.name))
            if asks:
                yield from function(self, context)
            else:
                function(self, context)
            self.end_action()

    def __del__(self) -> None:
        # Each seat refers to itself (every slot value in `places` names its player), so without
        # this the seats of a round no one holds any more, and the cards on their layouts, would
        # wait for the cyclic garbage collector: random play drops a round every twenty turns or
        # so, and collecting those seats cost a few per cent of its time. (A round is freed with
        # its seats; someone who kept a seat alone sees no slots on it. A round whose making failed
        # may have no seats.)
        for player in getattr(self, "players", ()):
            player.places = []

    def close(self) -> None:
        """Let go of a round no longer wanted, in the middle of play: its references to itself
        (the running procedures, the asks, each seat's slot values, the cards on the layouts
        that name who moved them) are cut, so that it is freed at once when dropped, not by the
        cyclic garbage collector, whose passes over many such rounds cost a search more than
        playing them. The round cannot be played after this."""
        self.root = None
        self.asks = []
        self.pending = None
        self._queue = []
        for player in self.players:
            player.layout = []
            player.places = []

    # -- a copy --------------------------------------------------------------------------------------
    def clone(self) -> "Round":
        """The same round in the same state, independent of this one: made again the way this one
        was made, and the same moves played, its recycles making the piles this one's made (then
        those still scripted for this one); its randomness is its own."""
        if self.rebuild is None:
            raise RuntimeError("this round does not say how it was made, so it cannot be copied")
        twin = self.rebuild()
        if self.shuffled or self.reshuffles:
            twin.reshuffles = [list(order) for order in self.shuffled + (self.reshuffles or [])]
        twin.strict = self.strict
        twin.start(self._procedures)
        for move in self.history:
            twin.apply(same_move(twin, move), trusted=True)
        twin.decided = set(self.decided)
        twin.decided_log = list(self.decided_log)
        return twin


def same_move(rnd: Round, move: Move) -> Move:
    """The same move with the players of another round (a clone, or the other variant's)."""
    by_name = rnd.by_name
    return Move(by_name[move.actor.name], move.kind,
                tuple(None if t is None else (by_name[t[0].name], t[1]) for t in move.targets),
                by_name[move.chosen.name] if move.chosen is not None else None)
