"""Steps: what one move did, gathered from a round's trace events (trace.py), as JSON in the
schema of docs/trace.md and as text.

One step is one move judged: legal or refused and what decided it (a legality rule; the
decision the game waited for, which did not ask this move; a slot that does not exist), what
it did (cards moved, revealed, the reference, shuffles, powers queued and begun, the
variables it set), what everyone saw and learned, and the decision the game then waits for.
`scenario --trace`, `replay --trace` and the moves of a recorded game (`simulate --record`)
are steps of this one schema; a record keeps only the fields a replay needs (RECORD_FIELDS).
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

from baobei.dsl import ast
from baobei.dsl.errors import RuleRuntimeError
from baobei.dsl.model import Spec

from . import trace as events
from .citations import Citer
from .moves import parse_move

# What a recorded game keeps of each step: enough to replay it and see where it changed.
RECORD_FIELDS = ("move", "rule", "revealed", "shown", "after")
# The procedure the interpreter runs a round's turns in (docs/language.md): when it has run to
# its end, the round is over and nothing more is asked.
TURNS = "turns"
# Where the contract refuses a move before any rule of the spec is read: a slot that does not
# exist, a move its notation cannot read.
CONTRACT = {"slot": "docs/scenario-format.md#positions", "notation": "docs/scenario-format.md#steps"}


@dataclass
class Step:
    number: int                     # the scenario's step (0: the table before the first), or the move's in its round
    move: str | None                # "Ana: pluck Ben.2" (None for step 0)
    legal: bool | None = None
    rule: str | None = None         # the legality rule that decided
    decided_by: str = ""            # rule, ask, slot, round, gap (no rule decides), notation (unreadable move)
    reason: str | None = None       # why it was refused
    asked_at: str | None = None     # the ask the game waited at when the move was judged
    implicit: bool = False          # a pass the scenario runner played to close a pluck window
    judged_after: str | None = None  # a refused step was judged after this pass closed the window
    effects: list = field(default_factory=list)         # trace events, in order
    set: dict = field(default_factory=dict)             # variables the move changed: name -> new value
    revealed: dict = field(default_factory=dict)        # {player: {"Ben.2": card}} learned by the move
    shown: list = field(default_factory=list)           # cards the move showed everyone
    waiting: list = field(default_factory=list)         # [(who or "anyone", [kinds])]: what the game waits for
    waiting_at: str | None = None   # the ask it waits at
    after: str | None = None        # digest of the table after the move (record.py compares it)
    players: int = 0                # how many play this round
    stuck: str | None = None        # the rules cannot say what the game waits for (a gap met in play)


# ---- what the table looks like after a move ------------------------------------------------------

def digest(rnd) -> str:
    """A short fingerprint of what a player at the table could observe after a move."""
    parts = [
        [[c.kind.name if c else "_" for c in p.layout] for p in rnd.players],
        [c.kind.name for c in rnd.discard[-1:]], len(rnd.deck), len(rnd.under), len(rnd.held),
        rnd.active.name, rnd.describe_pending(),
        {k: plain(v) for k, v in sorted(rnd.vars.items()) if k in ("bao", "shield", "recycles", "final_phase")},
    ]
    return hashlib.sha1(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:10]


def revealed(before: list[dict], rnd) -> dict:
    """Positions each player learned with the last move: {player: {"Ben.2": card}}."""
    found = {}
    for player, old, new in zip(rnd.players, before, rnd.known):
        learned = {f"{rnd.players[o].name}.{n}": kind.name for (o, n), kind in new.items() if old.get((o, n)) != kind}
        if learned:
            found[player.name] = learned
    return found


def plain(value):
    """A value of the spec as JSON: a player's or card's name, a slot as 'Ana.2', a reference as
    'bird5 (drawn by Ana, open)'."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, (list, tuple)):
        if len(value) == 2 and hasattr(value[0], "layout") and isinstance(value[1], int):
            return f"{value[0].name}.{value[1]}"
        return [plain(item) for item in value]
    if hasattr(value, "open") and hasattr(value, "how"):          # a reference
        if value.card is None:
            return "none"
        by = f" by {value.by.name}" if value.by is not None else ""
        return f"{value.card.name} ({value.how}{by}, {'open' if value.open else 'closed'})"
    if hasattr(value, "kind"):                                      # a card on the table
        return value.kind.name
    return getattr(value, "name", str(value))


def _variables(rnd) -> dict:
    found = dict(rnd.vars.items())
    for player in rnd.players:
        for name, value in player.vars.items():
            found[f"{player.name}.{name}"] = value
    return found


# ---- gathering steps from a round ---------------------------------------------------------------

class StepRecorder:
    """The round's trace sink: one Step per move judged (a move from the legal moves of a decision
    is judged too, for the trace: engine.Round.apply)."""

    def __init__(self, rnd):
        self.rnd = rnd
        self.done: list[Step] = []
        self.current: Step | None = None
        self._variables: dict = {}
        self._known: list[dict] = []
        rnd.trace = self.event

    def event(self, event) -> None:
        if isinstance(event, events.Judged):
            self.close()
            self._open(event)
        elif self.current is not None and not isinstance(event, (events.Played, events.Waiting)):
            self.current.effects.append(event)

    def _open(self, judged: events.Judged) -> None:
        rnd = self.rnd
        step = Step(0, judged.move, judged.legal, judged.rule, reason=judged.reason,
                    asked_at=rnd.pending.site.label if rnd.pending is not None else None)
        if judged.rule is not None:
            step.decided_by = "rule"
        else:
            actor, _, body = judged.move.partition(": ")
            before = rnd.before_rules(parse_move(actor, body, rnd.by_name))
            step.decided_by = before[0] if before is not None else "gap"
        self._variables = _variables(rnd)
        self._known = [dict(known) for known in rnd.known]
        self.current = step

    def close(self) -> None:
        """The running step is over: what it changed, and what the game waits for now."""
        step, rnd = self.current, self.rnd
        if step is None:
            return
        if step.legal:
            now = _variables(rnd)
            step.set = {name: plain(value) for name, value in now.items() if self._variables.get(name) != value}
            step.revealed = revealed(self._known, rnd)
            step.shown = [kind.name for kind in rnd.shown]
        self.note_waiting(step)
        self.done.append(step)
        self.current = None

    def note_waiting(self, step: Step) -> None:
        rnd = self.rnd
        step.waiting_at = rnd.pending.site.label if rnd.pending is not None else None
        step.players = len(rnd.players)
        try:
            step.waiting = [("anyone" if asker is None else asker.name, list(kinds))
                            for asker, kinds in rnd.awaited()]
            step.after = digest(rnd)
        except RuleRuntimeError as error:      # the rules got stuck on this move: say so, as play does
            step.stuck = error.message

    def flush(self) -> list[Step]:
        """The steps gathered since the last flush."""
        self.close()
        found, self.done = self.done, []
        return found


# ---- steps as JSON and text ------------------------------------------------------------------------

def ask_site(spec: Spec, label: str | None):
    """The declaration an ask site's label names ('procedure penalty (spec/core/pluck.bao:122:5)')
    and its ask statement (None where it cannot be found)."""
    if not label:
        return None, None
    where, _, rest = label.partition(" (")
    kind, _, name = where.partition(" ")
    decl = {"procedure": spec.procedures, "on": spec.handlers, "power": spec.powers}.get(kind, {}).get(name)
    if decl is None:
        return None, None
    place = rest.rstrip(")").rsplit(":", 2)
    if len(place) == 3 and place[1].isdigit() and place[2].isdigit():
        line, column = int(place[1]), int(place[2])
        for stmt in ast.walk_statements(decl.body):
            if isinstance(stmt, ast.Ask) and stmt.loc.line == line and stmt.loc.column == column:
                return decl, stmt
    return decl, None


def site_title(spec: Spec, label: str | None) -> str:
    decl, stmt = ask_site(spec, label)
    if decl is None:
        return label or ""
    where = f"{'on' if decl.kind == 'on' else decl.kind} {decl.name}"
    return f"{where} ({stmt.loc if stmt is not None else decl.loc})"


class StepView:
    """Steps of one variant shown as JSON or text, rules with their level, place and citations."""

    def __init__(self, spec: Spec, every_citation: bool = False):
        self.spec = spec
        self.citer = Citer(spec, every_citation)

    # -- what decided ----------------------------------------------------------------------------
    def decider(self, step: Step):
        """The declaration that decided the step: its legality rule, or the ask (or, the round over,
        the turns procedure) that did not ask this move; None for a slot or a notation problem."""
        if step.decided_by == "rule":
            return self.spec.rules.get(step.rule)
        if step.decided_by == "ask":
            return ask_site(self.spec, step.asked_at)[0]
        if step.decided_by == "round":
            return self.spec.procedures.get(TURNS)
        return None

    def decider_loc(self, step: Step) -> str | None:
        if step.decided_by == "ask":
            decl, stmt = ask_site(self.spec, step.asked_at)
            return str(stmt.loc if stmt is not None else decl.loc) if decl is not None else None
        decl = self.decider(step)
        return str(decl.loc) if decl is not None else None

    # -- JSON ------------------------------------------------------------------------------------------
    def json(self, step: Step, fields=None) -> dict:
        data: dict = {"step": step.number, "move": step.move}
        if step.implicit:
            data["implicit"] = True
        if step.move is not None:
            data.update(legal=step.legal, decided_by=step.decided_by, rule=step.rule)
            decl = self.decider(step)
            if step.decided_by == "rule" and decl is not None:
                data["level"] = decl.level_name
            data["loc"] = self.decider_loc(step)
            data["cites"] = self.citer.json(decl) if decl is not None else []
            if step.decided_by in CONTRACT:
                data["contract"] = CONTRACT[step.decided_by]
            if step.reason:
                data["reason"] = step.reason
            if step.judged_after:
                data["judged_after"] = step.judged_after
            data["effects"] = [self.effect_json(e) for e in step.effects]
            data["set"] = step.set
            data["revealed"] = step.revealed
            data["shown"] = step.shown
        if step.stuck:
            data["stuck"] = step.stuck
        data["waiting"] = [{"who": who, "moves": kinds} for who, kinds in step.waiting]
        data["waiting_at"] = site_title(self.spec, step.waiting_at) if step.waiting_at else None
        data["after"] = step.after
        if fields is not None:
            data = {k: v for k, v in data.items() if k in fields and (v or k not in ("revealed", "shown"))}
        return data

    def effect_json(self, event) -> dict:
        if isinstance(event, events.Moved):
            return {"event": "moved", "card": event.card, "from": event.source, "to": event.dest}
        if isinstance(event, events.Revealed):
            return {"event": "revealed", "card": event.card, "slot": event.slot, "to": event.to}
        if isinstance(event, events.ReferenceSet):
            return {"event": "reference", "card": event.card, "how": event.how, "by": event.by, "open": event.open}
        if isinstance(event, events.Shuffled):
            return {"event": "shuffled", "cards": event.cards}
        if isinstance(event, events.Fired):
            return {"event": "powers", "queued": [self._queued_json(entry) for entry in event.powers]}
        if isinstance(event, events.PowerBegins):
            return {"event": "power", "power": event.power, "card": event.card, "user": event.user,
                    "rule": event.rule}
        return {"event": type(event).__name__.lower()}

    def _queued_json(self, entry) -> dict:
        role, rule, card, user, rank = entry
        found = {"card": card, "power": self.spec.cards[card].power if card in self.spec.cards else None,
                 "user": user, "rank": rank, "role": role}
        decl = self.spec.rules.get(rule)
        return {**found, **(self.citer.rule_json(decl) if decl is not None else {"rule": rule})}

    # -- text ------------------------------------------------------------------------------------------
    def lines(self, step: Step) -> list[str]:
        if step.move is None:
            return [f"before step 1: {self.waiting_text(step)}"]
        head = f"step {step.number}  {step.move}"
        if step.implicit:
            head = f"step {step.number}  {step.move}   (the step closes the pluck window first)"
        lines = [head] + ["  " + line for line in self.verdict_lines(step)]
        if step.legal:
            did = [self.effect_text(e) for e in step.effects]
            if step.set:
                did.append("set " + ", ".join(f"{name} = {text_of(value)}" for name, value in step.set.items()))
            did += self.learned_lines(step)
            lines += ["  did:"] + ["    " + line for text in did for line in text.splitlines()] if did else \
                ["  did nothing"]
        lines.append("  " + self.waiting_text(step))
        return lines

    def learned_lines(self, step: Step) -> list[str]:
        """Who learned what: one line for what every player learned alike."""
        learned = list(step.revealed.values())
        if len(learned) == step.players > 1 and all(entry == learned[0] for entry in learned):
            return ["everyone learns " + ", ".join(f"{slot} is {card}" for slot, card in learned[0].items())]
        return [f"{player} learns " + ", ".join(f"{slot} is {card}" for slot, card in entries.items())
                for player, entries in step.revealed.items()]

    def verdict_lines(self, step: Step) -> list[str]:
        decl = self.decider(step)
        verdict = "allowed" if step.legal else "refused"
        if step.decided_by == "rule" and decl is not None:
            lines = [f"{verdict} by {decl.level_name} {decl.name} ({decl.loc})"]
            lines += self.citer.lines(decl, "  ")
        elif step.decided_by in ("ask", "round"):
            where = (f"the game waits at {site_title(self.spec, step.asked_at)}" if step.decided_by == "ask"
                     else f"procedure {TURNS} has run to its end ({decl.loc})" if decl is not None else "")
            lines = [f"{verdict}: {step.reason}", f"  {where}"] + (self.citer.lines(decl, "  ") if decl else [])
        elif step.decided_by in CONTRACT:
            lines = [f"{verdict} before any rule is read: {step.reason}", f"  (the contract: {CONTRACT[step.decided_by]})"]
        else:
            lines = [f"{verdict}: {step.reason}"]
        if not step.legal and step.decided_by == "rule" and decl is not None and decl.level == 0:
            lines.append("  (no rule allows it here: the default decides)")
        if step.judged_after:
            lines.append(f"  (judged as the step plays it: after {step.judged_after} closes the pluck window)")
        return lines

    def waiting_text(self, step: Step) -> str:
        if step.stuck:
            return f"then the rules cannot go on: {step.stuck}"
        if not step.waiting:
            return "then the round is over" if step.waiting_at is None else "then waits for nothing legal"
        asked = "; ".join(f"{who}: {', '.join(kinds)}" for who, kinds in step.waiting)
        return f"then waits for {asked}  ({site_title(self.spec, step.waiting_at)})"

    def effect_text(self, event) -> str:
        if isinstance(event, events.Moved):
            return f"{event.card}: {event.source} -> {event.dest}"
        if isinstance(event, events.Revealed):
            return f"{event.slot} ({event.card}) {'shown to everyone' if event.to == 'everyone' else f'seen by {event.to}'}"
        if isinstance(event, events.ReferenceSet):
            by = f" by {event.by}" if event.by else ""
            return f"reference: {event.card}, {event.how}{by}, {'open' if event.open else 'closed'}"
        if isinstance(event, events.Shuffled):
            return f"recycle: the discard but its top and the cards under it make a new draw pile of {event.cards}"
        if isinstance(event, events.Fired):
            lines = ["powers queued, in the order they are played:"]
            for number, entry in enumerate(event.powers, start=1):
                queued = self._queued_json(entry)
                lines.append(f"  {number}. {queued['card']} ({queued['power']}) for {queued['user']}, rank "
                             f"{queued['rank']}: {queued.get('level', 'rule')} {queued['rule']} ({queued.get('loc')})")
                decl = self.spec.rules.get(entry[1])
                if decl is not None:
                    lines += self.citer.lines(decl, "       ")
            return "\n".join(lines)
        if isinstance(event, events.PowerBegins):
            return f"power {event.power} ({event.card}) played by {event.user}"
        return type(event).__name__


def text_of(value) -> str:
    """A plain value as the text output writes it (none, true, [a, b])."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(text_of(v) for v in value) + "]"
    return str(value)
