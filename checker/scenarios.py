"""Witnesses as play: a difference found by Z3 turned into a scenario file that runs.

From the witness table of a class (checker/diff.py) a few small tables are built;
a short search plays the same moves under both variants until the class shows:
a move of the class's kind legal in one variant and refused in the other, or, for
powers, the two variants waiting for different players or moves after the same
moves. When the same moves cannot show it (the two variants already part ways
earlier), each variant is searched alone for a state where the other variant's
rules judge the same move differently, and the file plays each variant's path.
Every emitted file is run under both variants before it is kept.

The searches are bounded by counts of visited states, not by time, so the same
spec always gives the same witnesses, on any machine.
"""
from __future__ import annotations

import heapq
import itertools
import json
import re
from dataclasses import replace
from pathlib import Path

import yaml

from baobei.dsl import cache
from baobei.dsl.errors import BaobeiError
from baobei.interpreter.engine import IllegalMove, Round
from baobei.interpreter.moves import Move
from baobei.interpreter.rules import Rules
from baobei.interpreter.scenario import load_scenario, run_scenario, same_move, waiting
from baobei.interpreter.state import slot_card
from baobei.interpreter.table import EMPTY, round_from_table

from .diff import Difference, DiffReport
from .parallel import in_forked_workers

DEPTH = 8
NODES_PER_CLASS = 30_000       # every search for one class together
NODES_LOCKSTEP = {"move": 400, "power": 4_000}   # per table: the same moves in both variants
NODES_LOCKSTEP_FIRST = 50      # per table, a move's class: the first, short lockstep search
NODES_ALONE = (1_000, 15_000)  # per table and variant, each variant on its own: a first pass, then the rest
NODES_PER_FINDING = 20_000     # check --emit, per finding
NODES_PER_TABLE = 4_000        # check --emit, per table


# diff --emit asks for this many witnesses of each class beside the shown ones (Difference.spares)
# when the search reaches no play from the shown ones: its bound reaches some witnesses' tables
# and not others'
SPARE_WITNESSES = 3


class Budget:
    """The states a search may still visit."""

    def __init__(self, nodes: int):
        self.nodes = nodes

    def share(self, most: int) -> int:
        return min(self.nodes, most)


def emit_witnesses(report: DiffReport, rules_a: Rules, rules_b: Rules, folder: str,
                   progress: bool = False, use_cache: bool = True, spares=None) -> list[str]:
    """`progress`: show the search's progress on stderr, a step per class; `use_cache`: read a
    search made before from the cache folder (search_key), and keep this one's; `spares`: makes
    the report again with spare witnesses of every class (diff(..., spares=SPARE_WITNESSES)),
    asked only when some class's shown witnesses reach no play and it has no spares yet."""
    from baobei.interpreter.progress import Phase
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    classes = [(number, index, item) for number, finding in enumerate(report.findings, start=1)
               for index, item in enumerate(finding.classes, start=1)]
    phase = Phase("searching play for witnesses", "classes", enabled=progress, planned=len(classes))
    scenarios, cached = _searched_play([item for _, _, item in classes], rules_a, rules_b, use_cache, phase)
    unplayed = [index for index, scenario in enumerate(scenarios)
                if scenario is None and played_by_search(classes[index][2]) and not classes[index][2].spares]
    phase.finish(f"{sum(s is not None for s in scenarios)} of {len(classes)} classes played"
                 + (f", {cached} from the cache" if cached else ""))
    if unplayed and spares is not None:
        # Z3's spare witnesses cost more than most searches: asked for only when they are needed
        retried = with_spares([classes[index][2] for index in unplayed], spares())
        phase = Phase("searching play from spare witnesses", "classes", enabled=progress, planned=len(retried))
        again, _ = _searched_play([item for _, item in retried], rules_a, rules_b, use_cache, phase)
        for (position, _), scenario in zip(retried, again):
            scenarios[unplayed[position]] = scenario
        phase.finish(f"{sum(s is not None for s in again)} of {len(retried)} classes played")
    written = []
    for (number, index, item), scenario in zip(classes, scenarios):
        item.emitted = True
        if scenario is not None:
            name = f"{number:02d}-{index:02d}-{_slug(item.decision)}.yaml"
            path = out / name
            path.write_text(_dump(scenario, item), encoding="utf-8")
            if _passes(path, rules_a, rules_b):
                item.scenario = str(path)
                written.append(str(path))
            else:  # never leave a witness that does not run
                path.unlink()
    return written


def _searched_play(items: list[Difference], rules_a: Rules, rules_b: Rules, use_cache: bool, phase):
    """A scenario (or None) for each class, from the first of its witnesses the search reaches;
    the number read from the cache. Each class's search is independent: side by side in forked
    workers, the same on any machine; a search made before (the same class, rules and code) is
    read back from the cache."""
    keys = [search_key(item, rules_a, rules_b) if use_cache else None for item in items]
    scenarios = [_searched(key) for key in keys]
    missing = [index for index, found in enumerate(scenarios) if found is None]
    phase.progress(0, len(items) - len(missing))
    made = in_forked_workers(realize_any, [(items[index], rules_a, rules_b) for index in missing],
                             lambda index, scenario: phase.progress(0, 1))
    for index, scenario in zip(missing, made):
        scenarios[index] = {"scenario": scenario}
        if keys[index]:
            cache.write(f"search-{keys[index]}.json", json.dumps(scenarios[index]).encode("utf-8"))
    return [found["scenario"] for found in scenarios], len(items) - len(missing)


def with_spares(items: list[Difference], fuller: DiffReport) -> list[tuple[int, Difference]]:
    """(position in items, the class played from its spare witnesses only) for each class of
    `items` that the fuller report (the same comparison, with spares) has spares of. A class is
    the same when its decision, the side that allows and the deciding rules are."""
    def identity(item: Difference):
        return (item.decision, item.legal_in, tuple((side, tuple(r.name for r in rules))
                                                    for side, rules in sorted(item.rules.items())))
    by_identity: dict = {}
    for finding in fuller.findings:
        for item in finding.classes:
            by_identity.setdefault(identity(item), []).append(item)
    found = []
    for position, item in enumerate(items):
        same = by_identity.get(identity(item)) or []
        fuller_item = next((other for other in same if other.message == item.message), same[0] if same else None)
        if fuller_item is not None and fuller_item.spares:
            (message, witness), rest = fuller_item.spares[0], fuller_item.spares[1:]
            item.spares = list(fuller_item.spares)
            found.append((position, replace(item, message=message, witness=witness, more=[], spares=rest)))
    return found


def search_key(item: Difference, rules_a: Rules, rules_b: Rules) -> str | None:
    """What a class's search reads: the class (its witnesses, rules and message), both variants'
    rules and editions, and the code that plays and searches (None: rules not read from files)."""
    from .diff import _stored
    from .play import engine_version
    if not rules_a.spec.content or not rules_b.spec.content:
        return None
    sides = [(rules.variant, rules.spec.content, sorted(rules.edition.deck.items()), sorted(rules.edition.deal.items()),
              sorted(rules.edition.threshold.items())) for rules in (rules_a, rules_b)]
    return cache.digest(engine_version(), cache.sources_digest([Path(__file__)]), repr(sides),
                        json.dumps(_stored(item)))


def _searched(key: str | None) -> dict | None:
    """A search kept under this key: {"scenario": the scenario or None (none found)}."""
    data = cache.read(f"search-{key}.json") if key else None
    try:
        found = json.loads(data) if data is not None else None
    except ValueError:           # a damaged entry is searched again
        return None
    return found if isinstance(found, dict) and "scenario" in found else None


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60]


def _passes(path: Path, rules_a: Rules, rules_b: Rules) -> bool:
    try:
        scenario = load_scenario(path)
        return all(run_scenario(scenario, rules).passed for rules in (rules_a, rules_b))
    except BaobeiError:
        return False


# ---- tables from a witness -------------------------------------------------------------------

def tables(witness: dict, rules: Rules) -> list[dict]:
    """Small tables that may contain the witness's situation, most likely first: its layouts,
    the cards its variables mention in the draw pile and in the players' layouts, and, for a
    power, its card to draw and a copy to pluck (powers come from draws and plucks). The same
    tables follow with every layout holding a few plain cards more: what the class needs is in
    the witness's variables, but the layouts are whatever Z3 picked (often empty, when no rule of
    the class reads them), and play needs cards to give, swap and replace. No table holds more
    copies of a card than the edition has (a card of the same family stands in for a copy)."""
    layouts = {name: list(cards) for name, cards in witness["layouts"].items()}
    found = _tables_from(witness, rules, layouts)
    padded = _padded(layouts, witness, rules)
    if padded != layouts:
        found += _tables_from(witness, rules, padded)
    return [table for table in found if _within_edition(table, rules)]


PADDING = 3      # the cards each layout holds at least, in the tables of a class with padded layouts


def _plain_cards(rules: Rules, excluded) -> list[str]:
    """Cards of the edition without a power, but those excluded."""
    return [c for c in rules.spec.cards if c not in excluded and rules.spec.cards[c].power is None and
            rules.edition.deck.get(c, 0) > 0]


def _padded(layouts: dict, witness: dict, rules: Rules) -> dict:
    """The layouts with plain cards added, each player's own kinds, until every one holds PADDING."""
    on_table = {card for cards in layouts.values() for card in cards}
    spare = _plain_cards(rules, on_table | set(_mentioned_cards(witness)))
    padded = {}
    for index, (name, cards) in enumerate(layouts.items()):
        missing = max(0, PADDING - sum(card != EMPTY for card in cards))
        kinds = spare[index::len(layouts)] or spare
        padded[name] = cards + [kinds[k % len(kinds)] for k in range(missing)] if kinds else cards
    return padded


def _tables_from(witness: dict, rules: Rules, layouts: dict) -> list[dict]:
    players = list(witness["players"])
    mentioned = _mentioned_cards(witness)
    on_table = {card for cards in layouts.values() for card in cards}
    fillers = _plain_cards(rules, on_table | set(mentioned))
    discard = [fillers[-1]] if fillers else []

    def table(deck_top: list[str], active: str, extra: dict[str, list[str]]) -> dict:
        deck = list(dict.fromkeys(deck_top + mentioned)) + fillers[:5]
        used = _count(list(_on_table_cards(layouts)) + deck + discard)
        extra = {name: _copies_left(cards, used, rules) for name, cards in extra.items()}
        found = {"players": players, "layouts": {n: cards + extra.get(n, []) for n, cards in layouts.items()},
                 "deck": deck, "discard": discard, "active": active}
        bao = witness.get("vars", {}).get("bao")
        if bao:
            found["bao"] = bao
            found["shield"] = bool(witness.get("vars", {}).get("shield"))
        return found

    variants = []
    power = witness.get("power")
    if power:
        card = next((c for c, d in rules.spec.cards.items() if d.power == power), None)
        if card and witness.get("moved_by_powers"):
            variants += _two_powers_one_turn(table, witness, layouts, card)
        if card:
            for active in players:
                for other in players:
                    if other != active:
                        variants.append(table([card], active, {other: [card]}))
            variants.append(table([card], witness.get("user") or witness["active"], {}))
    for top in dict.fromkeys(mentioned or [None]):
        deck_top = [top] if top else []
        rest = [c for c in mentioned if c != top]
        variants.append(table(deck_top, witness["active"], {}))
        for holder in players:
            # the other cards named, and two cards like the top one: something to pluck with it
            variants.append(table(deck_top, witness["active"], {holder: rest + ([top, top] if top else [])}))
    return variants


def _on_table_cards(layouts: dict):
    return (card for cards in layouts.values() for card in cards if card != EMPTY)


def _count(cards) -> dict:
    counts: dict = {}
    for card in cards:
        counts[card] = counts.get(card, 0) + 1
    return counts


def _copies_left(cards: list[str], used: dict, rules: Rules) -> list[str]:
    """The cards to add, each where the edition has a copy left, else a card of its family that
    has one (it plucks alike), else left out; `used` counts the copies taken so far."""
    deck, spec = rules.edition.deck, rules.spec.cards
    kept = []
    for card in cards:
        family = [c for c in spec if spec[c].family == spec[card].family]
        chosen = next((c for c in [card] + family if used.get(c, 0) < deck.get(c, 0)), None)
        if chosen is not None:
            used[chosen] = used.get(chosen, 0) + 1
            kept.append(chosen)
    return kept


def _within_edition(table: dict, rules: Rules) -> bool:
    """No more copies of a card on the table, the pile and the discard than the edition has."""
    counts = _count(list(_on_table_cards(table["layouts"])) + table["deck"] + table["discard"])
    return all(count <= rules.edition.deck.get(card, 0) for card, count in counts.items())


# (cards the active player keeps, cards the other keeps): few cards, so that the first power
# of the turn can move every card that matters to the second one
_FEW_CARDS = ((1, 1), (2, 1), (1, 2), (1, 0))


def _two_powers_one_turn(table, witness: dict, layouts: dict, card: str) -> list[dict]:
    """Tables for a class about the movement limit: the editions differ only on a card that
    another player's power moved earlier in the same turn (fr limits the same player within one
    sequence, de everyone for the whole turn). Two players get powers in one turn when the
    active player discards a drawn power card and another plucks a copy of it from a layout:
    both powers are played, one after the other (in an order each edition decides). The
    layouts keep only a card or two each, so that the first power can have moved all the
    cards the second one could take; the deck has the cards both powers draw."""
    active = witness["active"]
    others = [p for p in witness["players"] if p != active]
    if not others:
        return []
    other = others[0]
    found = []
    for keep_active, keep_other in _FEW_CARDS:
        few = {name: [] for name in layouts}
        few[active] = [c for c in layouts[active] if c != "_"][:keep_active]
        few[other] = [c for c in layouts[other] if c != "_"][:keep_other]
        if len(few[active]) < keep_active or len(few[other]) < keep_other:
            continue
        made = table([card], active, {other: [card]})
        made["layouts"] = {name: few[name] + ([card] if name == other else []) for name in layouts}
        found.append(made)
    return found


def _mentioned_cards(witness: dict) -> list[str]:
    """Cards the witness's reference, held cards and variables name (repeats kept)."""
    cards: list[str] = []
    ref = witness.get("reference") or {}
    if ref.get("card") and ref.get("how") not in (None, "setup"):
        cards.append(ref["card"])
    cards += witness.get("held", [])
    for value in witness.get("vars", {}).values():
        if isinstance(value, dict) and value.get("card"):
            cards.append(value["card"])
        elif isinstance(value, str) and "." not in value and value[:1].islower():
            cards.append(value)
    first = cards[:1]
    return first + [c for c in cards[1:]]


# ---- how close a state is to the witness ----------------------------------------------------------

def _concrete(value):
    from baobei.interpreter.state import CardKind, Player, Reference
    if isinstance(value, Player):
        return value.name
    if isinstance(value, CardKind):
        return value.name
    if isinstance(value, Reference):
        return {"card": value.card.name if value.card else None, "how": value.how,
                "by": value.by.name if value.by else None}
    if isinstance(value, tuple) and len(value) == 2:
        return f"{value[0].name}.{value[1]}"
    return value


def closeness(rnd: Round, witness: dict) -> int:
    """How many of the witness's notable facts hold in this state (guides the search)."""
    score = 0
    ref = witness.get("reference") or {}
    if ref.get("how") not in (None, "setup"):
        score += rnd.ref.how == ref["how"]
        score += rnd.ref.card is not None and rnd.ref.card.name == ref.get("card")
    for name, wanted in witness.get("vars", {}).items():
        if wanted in (None, False, 0) or name not in rnd.vars:
            continue
        got = _concrete(rnd.vars[name])
        if isinstance(wanted, dict) and isinstance(got, dict):
            score += sum(got.get(k) == v for k, v in wanted.items() if k in ("card", "how", "by"))
        else:
            score += got == wanted
    if witness.get("power") and rnd.pending is not None:
        score += 2 * (rnd.pending.C.power == witness["power"])
    if witness.get("moved_by_powers"):
        score += any(c.moved_turn == rnd.turn for p in rnd.players for c in p.layout if c is not None)
    return score


# ---- the search --------------------------------------------------------------------------------

def realize_any(item: Difference, rules_a: Rules, rules_b: Rules) -> dict | None:
    """A scenario of the class from the first of its witnesses (diff --witnesses N, then the
    spares) the play search reaches."""
    for alternative in item.alternatives():
        found = realize(alternative, rules_a, rules_b)
        if found is not None:
            return found
    return None


def played_by_search(item: Difference) -> bool:
    """Whether the play search looks for the class at all: a decision rules read is shown by
    their classes' witnesses, not by its own."""
    return not (item.decision.startswith("value ") and item.read_by_rules)


def realize(item: Difference, rules_a: Rules, rules_b: Rules) -> dict | None:
    if not played_by_search(item):
        return None
    if item.decision.startswith("body "):
        return _realize_body(item, rules_a, rules_b)
    if item.decision.startswith("value "):
        return _realize_procedure_value(item, rules_a, rules_b)
    candidates = tables(item.witness, rules_a)
    budget = Budget(NODES_PER_CLASS)
    if item.kind is not None:
        # the same moves in both variants make the best witness: first a short lockstep search on
        # every table, so that one found soon on a later table wins over a split play on an earlier one
        for table in candidates:
            found = _lockstep(table, rules_a, rules_b, item, budget, NODES_LOCKSTEP_FIRST)
            if found is not None:
                return found
    # then table by table, most likely first: the same moves in both variants, then each variant
    # alone. Where the variants part ways before the class shows (the movement limit: each edition
    # orders the two powers of a turn its own way) no table plays in lockstep, and searching
    # every table in lockstep before any alone spent most of the search on tables that cannot play.
    # Alone, a short search on every table comes first: one variant's side is often far on the
    # first tables and near on a later one.
    lockstep_nodes = NODES_LOCKSTEP["move" if item.kind is not None else "power"]
    for table in candidates:
        found = _lockstep(table, rules_a, rules_b, item, budget, lockstep_nodes)
        if found is None and item.kind is not None:
            found = _split(table, rules_a, rules_b, item, budget, NODES_ALONE[0])
        if found is not None:
            return found
    if item.kind is not None:
        for table in candidates:
            found = _split(table, rules_a, rules_b, item, budget, NODES_ALONE[1])
            if found is not None:
                return found
    return None


# what a scenario can check of a round, compared between the variants for a decision that only
# procedures read: no move's legality shows it, only what the procedure then does to the round
OBSERVED = ("waiting", "active", "round_over", "final_phase", "bao", "shield", "recycles")


def _realize_procedure_value(item: Difference, rules_a: Rules, rules_b: Rules) -> dict | None:
    """A decision only procedures read (final_phase_after_bao: the recycle procedure reads it)
    is reached by playing into the procedure: from a table with the witness's variables one
    step before it (a recycle less, and an empty draw pile, so that the first draw recycles),
    the same moves in both variants until something a scenario checks differs."""
    return _first_lockstep(_procedure_tables(item.witness, rules_a), rules_a, rules_b, item, _observed_apart)


def _realize_body(item: Difference, rules_a: Rules, rules_b: Rules) -> dict | None:
    """What a procedure, handler or power does differently is seen in play: from the witness's
    tables, the same moves in both versions until something a scenario checks (the layouts, the
    discard, who is asked what, ...) differs."""
    return _first_lockstep(tables(item.witness, rules_a), rules_a, rules_b, item, _played_apart)


def _first_lockstep(starts, rules_a: Rules, rules_b: Rules, item: Difference, probe) -> dict | None:
    """The first of these tables from which the same moves in both variants reach a difference
    `probe` sees, within one budget for them all."""
    budget = Budget(NODES_PER_CLASS)
    for table in starts:
        found = _lockstep(table, rules_a, rules_b, item, budget, NODES_LOCKSTEP["power"], probe=probe)
        if found is not None:
            return found
    return None


# what a scenario checks of a round, compared between two versions whose bodies differ
PLAYED = ("waiting", "layouts", "discard_top", "deck_size", "active", "round_over", "final_phase", "bao", "shield",
          "recycles", "scores", "totals")


def _played_apart(a: Round, b: Round, item: Difference, rules_a: Rules, rules_b: Rules):
    """('observed', {key: (in a, in b)}) for the checks (PLAYED) that differ between the two rounds
    after the same moves."""
    from baobei.interpreter.scenario import EMPTY, observed
    apart = {}
    for key in PLAYED:
        if key == "layouts":
            got = [{p.name: [EMPTY if c is None else c.kind.name for c in p.layout] for p in rnd.players}
                   for rnd in (a, b)]
        elif key in ("scores", "totals"):
            var = "score" if key == "scores" else "total"
            got = [{p.name: p.vars[var] for p in rnd.players} for rnd in (a, b)]
        else:
            got = [observed(a, key, rules_a), observed(b, key, rules_b)]
        if got[0] != got[1]:
            apart[key] = tuple(got)
    return ("observed", apart) if apart else None


def _procedure_tables(witness: dict, rules: Rules) -> list[dict]:
    """The witness's layouts and variables (a BAO caller, its shield), each other player active
    in turn (a caller plays no turn of its last turns), and, when the witness counts recycles,
    one recycle less with an empty draw pile and three plain cards on the discard: the first
    draw recycles all but the top."""
    variables = witness.get("vars", {})
    plain = [c for c in rules.spec.cards if rules.spec.cards[c].power is None and rules.edition.deck.get(c, 0) > 0]
    base = {"players": list(witness["players"]),
            "layouts": {name: list(cards) for name, cards in witness["layouts"].items()}}
    if variables.get("bao"):
        base["bao"] = variables["bao"]
        base["shield"] = bool(variables.get("shield", True))
    if variables.get("recycles"):
        base.update(recycles=max(0, int(variables["recycles"]) - 1), deck=[], discard=plain[:3])
    else:
        base.update(deck=plain[:5], discard=plain[-1:])
    found = []
    for active in base["players"]:
        if active != variables.get("bao"):
            found.append({**base, "active": active})
    return found


def _observed_apart(a: Round, b: Round, item: Difference, rules_a: Rules, rules_b: Rules):
    """('observed', {key: (in a, in b)}) for the checks (OBSERVED) that differ between the two
    rounds after the same moves."""
    from baobei.interpreter.scenario import observed
    apart = {}
    for key in OBSERVED:
        got_a, got_b = observed(a, key, rules_a), observed(b, key, rules_b)
        if got_a != got_b:
            apart[key] = (got_a, got_b)
    return ("observed", apart) if apart else None


def _replay(table: dict, rules: Rules, path: list[str]) -> Round | None:
    """The round of a table after a path of the search. Every move of a path was among the legal
    moves of the state it was played in, under these rules (the searches only extend a path with
    those), and play is deterministic: the moves are played again without being judged again."""
    try:
        rnd = round_from_table(rules, table)
    except (IllegalMove, BaobeiError):
        return None
    for text in path:
        if _played_on(rnd, text) is None:
            return None
    return rnd


class _Rounds:
    """The rounds of one search's paths under one variant, closed (Round.close) when the search
    ends. A round cannot be copied (its procedures are generators), so a path's round is
    replayed from the table, except for the first child of a path to be searched: it takes
    its parent's round on by its last move. Play is deterministic: both give the same round."""

    def __init__(self, table: dict, rules: Rules):
        self.table, self.rules = table, rules
        self.untaken: dict[tuple[str, ...], Round] = {}     # searched paths' rounds no child took on

    def __enter__(self) -> "_Rounds":
        return self

    def __exit__(self, *exc) -> None:
        for rnd in self.untaken.values():
            rnd.close()
        self.untaken.clear()

    def of(self, path: list[str]) -> Round | None:
        """The path's round (the same one again for a path asked twice: the start's)."""
        if tuple(path) in self.untaken:
            return self.untaken[tuple(path)]
        parent = self.untaken.pop(tuple(path[:-1]), None) if path else None
        if parent is None:
            rnd = _replay(self.table, self.rules, path)
        else:
            rnd = _played_on(parent, path[-1])
        if rnd is not None:
            self.untaken[tuple(path)] = rnd
        return rnd


def _played_on(rnd: Round, text: str) -> Round | None:
    """The round after one more move of a path (legal there: see _replay), or None (closed)."""
    try:
        rnd.apply(same_move(rnd, _parsed(text, rnd)), trusted=True)
    except (IllegalMove, BaobeiError):
        rnd.close()
        return None
    return rnd


_PARSED: dict[str, Move] = {}     # a move's text, read once (same_move gives it another round's players)


def _parsed(text: str, rnd: Round) -> Move:
    found = _PARSED.get(text)
    if found is None:
        from baobei.interpreter.moves import parse_move
        actor, move = text.split(": ", 1)
        found = _PARSED[text] = parse_move(actor, move, rnd.by_name)
    return found


def _children(rnd: Round, kind: str | None) -> list[str]:
    """The moves the search tries: everything legal but BAO, peeks and all but one give or
    place; double plucks only where the class is about plucks."""
    chosen: list[str] = []
    once = set()
    for move in rnd.legal_moves():
        if move.kind in ("bao", "peek"):
            continue
        if move.kind in ("give", "place"):
            if move.kind in once:
                continue
            once.add(move.kind)
        if move.kind == "pluck" and len(move.targets) == 2 and kind != "pluck":
            ref = rnd.ref.card
            if ref is None or not all(slot_card(t) is not None and slot_card(t).family == ref.family
                                      for t in move.targets):
                continue
        chosen.append(str(move))
    return chosen


def _probe(a: Round, b: Round, item: Difference, rules_a: Rules, rules_b: Rules):
    """What shows the class at this node: ('legal', move text, legal in a?) or ('waiting', wa, wb)
    when the last resolution of powers fired the class's rules on each side."""
    kind = item.kind
    if a.pending is None or b.pending is None:
        return None
    if kind is None and not (_fired_as_in(a, item, 0) and _fired_as_in(b, item, 1)):
        return None
    if kind is not None:
        if waiting(a) != waiting(b):
            return None  # a step not asked declines first: the same move would mean different things
        legal_in_a = item.legal_in == rules_a.variant
        allowing, refusing = (a, b) if legal_in_a else (b, a)
        legal_there = {str(m) for m in refusing.legal_moves() if m.kind == kind}
        for move in allowing.legal_moves():
            if move.kind == kind and str(move) not in legal_there:
                move_a, move_b = (move, same_move(b, move)) if legal_in_a else (same_move(a, move), move)
                if _decided_as_in(item, [(a, rules_a, move_a), (b, rules_b, move_b)]):
                    return ("legal", str(move), legal_in_a)
        return None
    wa, wb = waiting(a), waiting(b)
    if wa != wb:
        return ("waiting", wa, wb)
    return None


def _decided_as_in(item: Difference, sides: list[tuple[Round, Rules, Move]]) -> bool:
    """Whether on each side (a round, the rules judging it, the move) the move is decided by
    the rule the class names for that side's variant."""
    for rnd, rules, move in sides:
        try:
            rule = rules.program.legal[move.kind](rnd, rnd.context(move, rnd.pending))
        except (KeyError, AttributeError, TypeError):
            return False   # these rules read something the round of the other variant does not have
        if [r.name for r in item.rules[rules.variant]] != ([rule.name] if rule is not None else []):
            return False
    return True


def _fired_as_in(rnd: Round, item: Difference, side: int) -> bool:
    """Whether the round's last resolution fired what the class says for this side: each role
    of the class decided by the class's rule (a default rule: the role did not fire)."""
    rules = list(item.rules.values())[side]
    roles = [r.strip() for r in item.decision.split(" ", 1)[1].split("/")]
    fired = {role: rule for role, rule, _ in rnd.last_fired}
    for role, rule in zip(roles, rules):
        if rule.level == "default":
            if role in fired:
                return False
        elif fired.get(role) != rule.name:
            return False
    return bool(rnd.last_fired)


def _best_first(start_score: int, expand, budget: Budget, most: int):
    """Paths in order of closeness to the witness, then length, visiting at most `most` states
    of the budget."""
    counter = itertools.count()
    heap = [(-start_score, 0, next(counter), [])]
    nodes = budget.share(most)
    while heap and nodes > 0:
        _, depth, _, path = heapq.heappop(heap)
        nodes -= 1
        budget.nodes -= 1
        result = expand(path)
        if isinstance(result, tuple):
            return result
        for score, child in result:
            if len(child) <= DEPTH:
                heapq.heappush(heap, (-score, len(child), next(counter), child))
    return None


def _lockstep(table: dict, rules_a: Rules, rules_b: Rules, item: Difference, budget: Budget, most: int,
              probe=None):
    """`probe`: what shows the class at a node (default _probe)."""
    kind = item.kind
    probe = probe or _probe

    def expand(path):
        a, b = rounds_a.of(path), rounds_b.of(path)
        if a is None or b is None:
            return []
        shown = probe(a, b, item, rules_a, rules_b)
        if shown is not None:
            return ("found", shown, path)
        if a.pending is None:
            return []
        legal_b = set(_children(b, kind))
        score = closeness(a, item.witness)
        return [(score, path + [text]) for text in _children(a, kind) if text in legal_b]
    with _Rounds(table, rules_a) as rounds_a, _Rounds(table, rules_b) as rounds_b:
        start = rounds_a.of([])
        if start is None:
            return None
        found = _best_first(closeness(start, item.witness), expand, budget, most)
    if found is None:
        return None
    _, shown, path = found
    return _scenario(table, rules_a, rules_b, path, shown)


def _search_alone(table: dict, rules: Rules, other: Rules, item: Difference, legal_here: bool, budget: Budget,
                  most: int):
    """A path under `rules` to a move of the class's kind that these rules judge `legal_here`
    and the other rules judge the opposite, each by the rule the class names, visiting at most
    `most` states."""
    kind = item.kind

    def expand(path):
        rnd = rounds.of(path)
        if rnd is None or rnd.pending is None:
            return []
        if kind in rnd.pending.kinds():
            candidates = rnd.legal_moves() if legal_here else rnd.brute_force_candidates(kind)
            for move in candidates:
                if move.kind == kind and rnd.is_legal(move) == legal_here and \
                        _decided_as_in(item, [(rnd, rules, move), (rnd, other, move)]):
                    return ("found", str(move), path)
        score = closeness(rnd, item.witness)
        return [(score, path + [text]) for text in _children(rnd, kind)]
    with _Rounds(table, rules) as rounds:
        start = rounds.of([])
        if start is None:
            return None
        found = _best_first(closeness(start, item.witness), expand, budget, most)
    if found is None:
        return None
    return found[2], found[1]


def _split(table, rules_a: Rules, rules_b: Rules, item: Difference, budget: Budget, most: int):
    """Each variant on its own, at most `most` states each."""
    legal_in_a = item.legal_in == rules_a.variant
    first = _search_alone(table, rules_a, rules_b, item, legal_in_a, budget, most)
    if first is None:
        return None
    second = _search_alone(table, rules_b, rules_a, item, not legal_in_a, budget, most)
    if second is None:
        return None
    return _split_scenario(table, rules_a, rules_b, first, second, legal_in_a)


# ---- scenario files -----------------------------------------------------------------------------

def _step(text: str, **extra) -> dict:
    actor, move = text.split(": ", 1)
    step = {actor: move}
    step.update(extra)
    return step


def _scenario(table: dict, rules_a: Rules, rules_b: Rules, path: list[str], shown) -> dict:
    a, b = rules_a.variant, rules_b.variant
    steps = [_step(text) for text in path]
    if shown[0] == "legal":
        _, move, legal_in_a = shown
        allowed, refused = (a, b) if legal_in_a else (b, a)
        steps.append(_step(move, variants=[refused], expect="illegal"))
        steps.append(_step(move, variants=[allowed]))
        title = f"{move} is legal in {allowed} and refused in {refused}"
    elif shown[0] == "observed":
        apart = shown[1]
        checks = {a: {key: got[0] for key, got in apart.items()}, b: {key: got[1] for key, got in apart.items()}}
        if steps:
            steps[-1]["then_variants"] = checks
        title = f"after the same moves, {a} and {b} part ways: " + \
            "; ".join(f"{key} {_shown(got[0])} in {a}, {_shown(got[1])} in {b}" for key, got in apart.items())
        return {"title": title, "variants": [a, b], **_table(table), "steps": steps,
                **({} if steps else {"expect_variants": checks})}
    else:
        _, wait_a, wait_b = shown
        if steps:
            steps[-1]["then_variants"] = {a: {"waiting": wait_a}, b: {"waiting": wait_b}}
        title = f"after the same moves, {a} waits for {_who(wait_a)} and {b} for {_who(wait_b)}"
    return {"title": title, "variants": [a, b], **_table(table), "steps": steps,
            **({} if steps else {"expect_variants": {a: {"waiting": shown[1]}, b: {"waiting": shown[2]}}})}


def _shown(value) -> str:
    if isinstance(value, dict):
        return _who(value)
    if value is None:
        return "none"
    return str(value).lower() if isinstance(value, bool) else str(value)


def _split_scenario(table, rules_a: Rules, rules_b: Rules, first, second, legal_in_a: bool) -> dict:
    a, b = rules_a.variant, rules_b.variant
    (path_a, move_a), (path_b, move_b) = first, second
    steps = []
    common = 0
    while common < min(len(path_a), len(path_b)) and path_a[common] == path_b[common]:
        steps.append(_step(path_a[common]))
        common += 1
    steps += [_step(text, variants=[a]) for text in path_a[common:]]
    steps += [_step(move_a, variants=[a], **({} if legal_in_a else {"expect": "illegal"}))]
    steps += [_step(text, variants=[b]) for text in path_b[common:]]
    steps += [_step(move_b, variants=[b], **({"expect": "illegal"} if legal_in_a else {}))]
    allowed, refused = (a, b) if legal_in_a else (b, a)
    title = f"the same kind of move ({move_a.split(': ', 1)[1].split()[0]}) is legal in {allowed} and refused " \
            f"in {refused}; the variants reach it by their own order of play"
    return {"title": title, "variants": [a, b], **_table(table), "steps": steps}


def _who(wait: dict) -> str:
    if not wait:
        return "nothing (the round is over)"
    return "; ".join(f"{name}: {', '.join(kinds)}" for name, kinds in wait.items())


def _table(table: dict) -> dict:
    keys = ("players", "layouts", "deck", "discard", "active", "bao", "shield", "recycles")
    return {key: table[key] for key in keys if key in table}


def _dump(scenario: dict, item: Difference) -> str:
    lines = [f"# witness of: {item.message}"]
    for side, rules in item.rules.items():
        for rule in rules:
            lines.append(f"#   {side}: {rule.name} ({rule.loc})")
            lines += [f"#     {cite}" for cite in rule.cites]
    return "\n".join(lines) + "\n" + yaml.safe_dump(scenario, sort_keys=False, allow_unicode=True, width=110,
                                                   default_flow_style=None)


# ---- findings of `check` as play ---------------------------------------------------------------

def realize_finding(finding, rules: Rules) -> dict | None:
    """A scenario that reaches an overlap or a gap of a move's legality and plays that move: it
    fails there, with the interpreter saying which rules disagree or that none decides."""
    if finding.kind not in ("overlap", "gap") or not finding.decision.startswith("legal ") or not finding.witness:
        return None
    kind = finding.decision.split()[1]
    conditions = [rules.program.lambda_(rules.spec.rules[r.name].when) for r in finding.rules
                  if finding.kind == "overlap" and rules.spec.rules[r.name].when is not None]

    def shows(rnd: Round, move: Move) -> bool:
        """The interpreter meets this finding itself when the move is played here."""
        if rnd.rules_problem(move) != finding.kind:
            return False
        C = rnd.context(move, rnd.pending)
        return all(condition(rnd, C, {}) for condition in conditions)

    budget = Budget(NODES_PER_FINDING)
    for table in tables(finding.witness, rules):
        def expand(path, table=table):
            rnd = _replay(table, rules, path)
            if rnd is None or rnd.pending is None:
                return []
            if kind in rnd.pending.kinds():
                for move in rnd.brute_force_candidates(kind):
                    if shows(rnd, move):
                        return ("found", str(move), path)
            score = closeness(rnd, finding.witness)
            return [(score, path + [text]) for text in _children(rnd, kind)]
        start = _replay(table, rules, [])
        if start is None:
            continue
        found = _best_first(closeness(start, finding.witness), expand, budget, NODES_PER_TABLE)
        if found is not None:
            _, move, path = found
            steps = [_step(text) for text in path] + [_step(move)]
            title = f"{finding.kind} in {finding.decision}: {move} (this scenario fails where the rules do)"
            return {"title": title, "variants": [rules.variant], **_table(table), "steps": steps}
        if budget.nodes <= 0:
            break
    return None


def emit_findings(report, rules: Rules, folder: str) -> list[str]:
    out = Path(folder) / rules.variant
    written = []
    for number, finding in enumerate(report.findings, start=1):
        scenario = realize_finding(finding, rules)
        if scenario is None:
            continue
        out.mkdir(parents=True, exist_ok=True)
        path = out / f"{number:02d}-{finding.kind}-{_slug(finding.decision)}.yaml"
        lines = [f"# witness of: {finding.message}"]
        for rule in finding.rules:
            lines.append(f"#   {rule.name} ({rule.loc})")
        path.write_text("\n".join(lines) + "\n" + yaml.safe_dump(scenario, sort_keys=False, allow_unicode=True,
                                                                width=110, default_flow_style=None),
                        encoding="utf-8")
        result = run_scenario(load_scenario(path), rules)
        if result.passed:       # it must show the problem, or it is no witness
            path.unlink()
            continue
        finding.scenario = str(path)
        written.append(str(path))
    return written
