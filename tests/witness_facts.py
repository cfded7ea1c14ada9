"""What a witness table (checker/witness.py's describe_model) shows that no real round could have:
the helper the witness tests share. Each fact is read from the witness as printed, against the
spec and the edition it was found for, so that a test fails on the first impossible table."""
from __future__ import annotations

from baobei.interpreter.moves import SHAPES


def card_copies(witness: dict) -> dict:
    """The cards a witness table shows: layouts, held cards, and the discard's top (the reference
    when a card was discarded or replaced onto it)."""
    cards = [c for layout in witness["layouts"].values() for c in layout if c != "_"] + witness.get("held", [])
    reference = witness.get("reference")
    if reference and reference["how"] in ("discarded", "replaced") and reference["card"]:
        cards.append(reference["card"])
    counts: dict = {}
    for card in cards:
        counts[card] = counts.get(card, 0) + 1
    return counts


def impossible_facts(witness: dict, spec, edition) -> list[str]:
    """Every fact of the witness that no round of the spec under this edition can show (empty:
    a table that can occur, as far as a witness says)."""
    found: list[str] = []
    players = list(witness["players"])
    layouts = witness["layouts"]

    def player(name, what: str) -> None:
        if name not in players:
            found.append(f"{what} names {name!r}, not a player of the table {players}")

    def card(name, what: str) -> None:
        if name not in spec.cards:
            found.append(f"{what} names {name!r}, not a card of the spec")

    def slot(text, what: str, room: int = 0) -> None:
        """A slot `P.N` of the table (`room` more past the last one: a new slot)."""
        owner, _, number = str(text).partition(".")
        if owner not in layouts or not number.isdigit() or not 1 <= int(number) <= len(layouts[owner]) + room:
            found.append(f"{what} names {text!r}, not a slot of the table")

    # the table: its players, its cards, no more copies than the edition's deck
    if sorted(layouts) != sorted(players) or len(players) < 2:
        found.append(f"layouts of {sorted(layouts)} for the players {players}")
    for name, layout in layouts.items():
        for shown in layout:
            if shown != "_":
                card(shown, f"{name}'s layout")
    for shown in witness.get("held", []):
        card(shown, "a held card")
    for name, count in card_copies(witness).items():
        if count > edition.deck.get(name, 0):
            found.append(f"{count} copies of {name}, the edition has {edition.deck.get(name, 0)}")
    player(witness["active"], "active")

    # the move: a real actor and real slots (a new slot one past the last for the kinds that add one)
    if "move" in witness:
        actor, _, text = witness["move"].partition(": ")
        player(actor, "the move's actor")
        kind, *args = text.split()
        shape = SHAPES[kind]
        for arg in args:
            if shape.args == "own":
                slot(f"{actor}.{arg}", "the move", room=1 if shape.new_slot else 0)
            elif shape.args == "slots" and arg != "_":
                slot(arg, "the move")
            elif shape.args == "player":
                player(arg, "the move")

    reference = witness.get("reference")
    if reference:
        if reference["card"] is not None:
            card(reference["card"], "the reference")
        if reference["by"] is not None:
            player(reference["by"], "the reference")

    # the spec's variables, by their declared types
    for name, value in witness.get("vars", {}).items():
        kind = spec.vars[name].type.name
        if value is None:
            continue
        if kind == "player":
            player(value, f"var {name}")
        elif kind == "card":
            card(value, f"var {name}")
        elif kind == "slot":
            slot(value, f"var {name}")
        elif kind == "reference":
            if value.get("card") is not None:
                card(value["card"], f"var {name}")
            if value.get("by") is not None:
                player(value["by"], f"var {name}")
    for name, values in witness.get("player_vars", {}).items():
        for owner in values:
            player(owner, f"player var {name}")
    for name in witness.get("changed_by_others", []):
        player(name, "changed by others")

    # the counters: no power before the first turn, no sequence before the first power
    turn, sequence = witness.get("turn"), witness.get("sequence")
    if witness.get("power"):
        player(witness.get("user"), f"the user of {witness['power']}")
        if turn is None or turn < 1 or sequence is None or sequence < 1:
            found.append(f"power {witness['power']} played at turn {turn}, sequence {sequence}")
    if turn is not None and sequence is not None and sequence > turn:
        found.append(f"sequence {sequence} in turn {turn}: more sequences of powers than turns")

    # the cards powers moved: each by a player, in a turn and sequence counted by then, one
    # sequence a turn (two cards of one turn share its sequence, a later turn has a later one)
    moved = witness.get("moved_by_powers", {})
    for where, mark in moved.items():
        slot(where, "a card moved by a power")
        owner, _, number = where.partition(".")
        if owner in layouts and number.isdigit() and 1 <= int(number) <= len(layouts[owner]) and \
                layouts[owner][int(number) - 1] == "_":
            found.append(f"{where} is empty but marked as moved")
        player(mark["by"], f"the mover of {where}")
        if not 1 <= mark["sequence"] <= mark["turn"] <= (turn if turn is not None else -1):
            found.append(f"{where} moved in turn {mark['turn']}, sequence {mark['sequence']}, "
                         f"now turn {turn}, sequence {sequence}")
        elif sequence is None or not mark["sequence"] <= sequence or \
                sequence - mark["sequence"] > turn - mark["turn"]:
            found.append(f"{where} moved in turn {mark['turn']}, sequence {mark['sequence']}: more sequences "
                         f"since than turns (now turn {turn}, sequence {sequence})")
    found += _pluck_facts(witness, spec, players)
    for a, mark_a in moved.items():
        for b, mark_b in moved.items():
            if (mark_a["turn"] <= mark_b["turn"]) != (mark_a["sequence"] <= mark_b["sequence"]):
                found.append(f"{a} and {b}: turns {mark_a['turn']}, {mark_b['turn']} but sequences "
                             f"{mark_a['sequence']}, {mark_b['sequence']}")
    return found


def _pluck_facts(witness: dict, spec, players: list[str]) -> list[str]:
    """What the spec keeps of a turn's play (spec/core/round.bao, pluck.bao) as a round has it: the
    card played is the active player's, a pluck names its plucker, a success removed cards of the
    played card's family, and only the shoebill's power holds two cards."""
    found = []
    variables = witness.get("vars", {})
    played = variables.get("played")
    if played and played.get("by") != witness["active"]:
        found.append(f"played by {played.get('by')} in {witness['active']}'s turn")
    if (variables.get("pluck_success") or variables.get("pluck_double")) and variables.get("plucker") not in players:
        found.append("a pluck without a plucker")

    def family(card):
        return spec.cards[card].family if card in spec.cards else None
    if variables.get("pluck_success"):
        removed = [variables.get("removed1")] + ([variables.get("removed2")] if variables.get("pluck_double") else [])
        if not played or any(card is None or family(card) != family(played.get("card")) for card in removed):
            found.append(f"a successful pluck on {played} removed {removed}")
    elif variables.get("removed1") or variables.get("removed2"):
        found.append("cards removed without a successful pluck")
    if len(witness.get("held", [])) == 2 and witness.get("power") != "double_replace":
        found.append(f"two cards held outside the shoebill's power: {witness['held']}")
    return found
