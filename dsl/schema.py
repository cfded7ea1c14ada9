"""The vocabulary the generic machinery gives the rules language.

Rules are written in spec/; these are only the nouns they are written with:
the zones of the table, the move being judged, the current reference card, and
the names the scenario contract reads back. Both backends implement exactly
this vocabulary: the interpreter on a concrete state, the checker on a symbolic one.
"""
from __future__ import annotations

from .ast import BOOL, CARD, FAMILY, INT, PLAYER, POWER, REFERENCE, SLOT, Type, list_of

# Moves of the scenario contract (docs/scenario-format.md).
MOVE_KINDS = ("peek", "draw", "take", "keep", "discard", "pluck", "pass", "give", "place", "look", "show",
              "swap", "leave", "add", "replace", "skip", "bao", "end")
# Moves that decline what was asked and change nothing.
DECLINE_KINDS = frozenset({"pass", "skip", "leave"})

# name -> (type, what it is)
GLOBALS: dict[str, tuple[Type, str]] = {
    "players": (list_of(PLAYER), "the players of this round, in seating order"),
    "order": (list_of(PLAYER), "the players of this round in turn order, from its first player"),
    "slots": (list_of(SLOT), "every slot on the table"),
    "active": (PLAYER, "whose turn it is"),
    "actor": (PLAYER, "who makes the move being judged (the power's user inside a power)"),
    "user": (PLAYER, "who uses the power being played"),
    "power": (POWER, "the power being played, or none"),
    "chosen": (PLAYER, "the player a move names (add P)"),
    "targets": (list_of(SLOT), "the slots a move names, in order"),
    "target": (SLOT, "the first slot a move names"),
    "second": (SLOT, "the second slot a move names"),
    "held": (list_of(CARD), "cards drawn and not yet placed"),
    "reference": (REFERENCE, "the card that became visible last"),
    "turn": (INT, "turns begun this round (the spec counts them)"),
    "sequence": (INT, "sequences of powers resolved this round"),
    "deck_size": (INT, "cards in the draw pile"),
    "discard_size": (INT, "cards face up on the discard"),
    "discard_top": (CARD, "the card face up on top of the discard (none when it is empty)"),
    "under_size": (INT, "cards face down under the discard"),
    "threshold": (INT, "the edition's end-of-game threshold for this table"),
    "edition_deal": (INT, "the edition's deal size for this table"),
    "tiebreak": (BOOL, "whether this round is a tie-break round"),
    "lot": (PLAYER, "a player drawn at random (seeded) before the round; none in a scenario"),
}
SETTABLE_GLOBALS = frozenset({"active", "turn"})


def attributes(type_name: str, how: Type) -> dict[str, Type]:
    """Attributes of each kind of value (player variables are added by the resolver)."""
    return {
        "player": {"slots": list_of(SLOT), "position": INT},
        "slot": {"owner": PLAYER, "number": INT, "card": CARD, "occupied": BOOL, "empty": BOOL, "new": BOOL,
                 "moved_turn": INT, "moved_sequence": INT, "moved_by": PLAYER},
        "card": {"value": INT, "family": FAMILY, "power": POWER},
        "reference": {"card": CARD, "how": how, "by": PLAYER, "open": BOOL},
    }.get(type_name, {})


# name -> (parameter types, result type); None for "any list"
FUNCTIONS: dict[str, tuple[tuple[Type | None, ...], Type]] = {
    "count": ((None,), INT),
    "min": ((INT, INT), INT),
    "max": ((INT, INT), INT),
    "next_player": ((PLAYER,), PLAYER),
    "changed_by_others": ((PLAYER,), BOOL),
}
# Only in claims and invariants: the rules' own decisions as propositions.
CLAIM_FUNCTIONS = ("legal", "fires", "effects_keep_cards")

# What the scenario runner and the game loop read from a spec: name -> type.
REQUIRED_VARS = {"bao": PLAYER, "shield": BOOL, "recycles": INT, "final_phase": BOOL, "round_over": BOOL}
REQUIRED_PLAYER_VARS = {"score": INT, "total": INT}
REQUIRED_PROCEDURES = ("setup", "turns", "recycle", "action_end")
REQUIRED_DEFINES = {"game_over": 0, "winner": 0, "in_tiebreak": 1, "bao_succeeds": 0, "priority": 1}
REQUIRED_DECISIONS = ("opening_player", "next_first")
HOW_ENUM = "how"
