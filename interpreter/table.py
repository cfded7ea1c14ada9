"""A round at the start of a turn, as a scenario table, and back.

The keys are the contract's (players, layouts, deck, discard, under_discard,
active, totals, bao, shield, recycles, seed), and two of the project's: `first`, the
round's first player (turn order starts there; default: the first of players), and
`tiebreak`, a tie-break round (default false): a round of random play needs them to be
played again from its table.
"""
from __future__ import annotations

from .engine import Round
from .rules import Rules
from .state import Reference, Rng

EMPTY = "_"


def round_from_table(rules: Rules, table: dict, *, start: bool = True) -> Round:
    """A round whose state is the table's, waiting at the start of `active`'s turn.

    The table must already be validated (scenario.py does it for files)."""
    players = list(table["players"])
    count = len(players)
    edition = rules.edition
    rnd = Round(rules.program, players, Rng(int(table.get("seed", 0) or 0)),
                threshold=edition.threshold.get(count, 0), edition_deal=edition.deal.get(count, 0),
                first=players.index(table["first"]) if table.get("first") else 0,
                tiebreak=bool(table.get("tiebreak", False)), totals=table.get("totals") or {})
    layouts = table.get("layouts") or {}
    for player in rnd.players:
        names = layouts.get(player.name, [])
        cards = iter(rnd.new_cards([name for name in names if name != EMPTY]))
        player.set_layout([None if name == EMPTY else next(cards) for name in names])
    rnd.deck = rnd.new_cards(reversed(table.get("deck") or []))
    rnd.discard = rnd.new_cards(table.get("discard") or [])
    rnd.under = rnd.new_cards(table.get("under_discard") or [])
    rnd.active = rnd.by_name[table["active"]]
    if rnd.discard:
        rnd.ref = Reference(rnd.discard[-1].kind, None, None, False)
    bao = table.get("bao")
    rnd.vars["bao"] = rnd.by_name[bao] if bao else None
    rnd.vars["shield"] = bool(table.get("shield", False))
    rnd.vars["recycles"] = int(table.get("recycles", 0) or 0)
    if table.get("reshuffle") is not None:
        rnd.reshuffles = [list(order) for order in table["reshuffle"]]
    rnd.rebuild = lambda: round_from_table(rules, table, start=False)
    if start:
        rnd.start(["turns"])
    return rnd


def table_from_round(rnd: Round) -> dict:
    """The table of a round waiting at the start of a turn (what round_from_table reads)."""
    table = {
        "players": [p.name for p in rnd.players],
        "layouts": {p.name: [EMPTY if c is None else c.kind.name for c in p.layout] for p in rnd.players},
        "deck": [c.kind.name for c in reversed(rnd.deck)],
        "discard": [c.kind.name for c in rnd.discard],
        "under_discard": [c.kind.name for c in rnd.under],
        "active": rnd.active.name,
        "totals": {p.name: p.vars["total"] for p in rnd.players},
        "bao": rnd.vars["bao"].name if rnd.vars["bao"] is not None else None,
        "shield": rnd.vars["shield"],
        "recycles": rnd.vars["recycles"],
        "seed": rnd.rng.seed,
    }
    if rnd.first is not rnd.players[0]:
        table["first"] = rnd.first.name
    if rnd.tiebreak:
        table["tiebreak"] = True
    return table


def same_table(a: dict, b: dict) -> bool:
    keys = ("players", "layouts", "deck", "discard", "under_discard", "active", "totals", "bao", "shield",
            "recycles", "first", "tiebreak")
    return all(a.get(k) == b.get(k) for k in keys)
