"""Moves in the contract's notation ("Ana: pluck Ben.2"), read and written."""
from __future__ import annotations

import re

from baobei.dsl.errors import MoveError

# kind -> (what the arguments are, allowed numbers of arguments)
SHAPES: dict[str, tuple[str, tuple[int, ...]]] = {
    "peek": ("own", (2,)), "draw": ("none", (0,)), "take": ("own", (1,)), "keep": ("own", (1,)),
    "discard": ("none", (0,)), "pluck": ("slots", (1, 2)), "pass": ("none", (0,)), "give": ("own", (1,)),
    "place": ("own", (1,)), "look": ("slots", (1, 2)), "show": ("slots", (1,)), "swap": ("slots", (0, 2)),
    "leave": ("none", (0,)), "add": ("player", (1,)), "replace": ("slots", (0, 1, 2)), "skip": ("none", (0,)),
    "bao": ("none", (0,)), "end": ("none", (0,)),
}
# Kinds whose two-target form may leave its first target out with `_` (the shoebill: no own
# replacement, the second card drawn goes to the other target); a trailing `_` is the same
# move as the target alone.
PLACEHOLDER_FIRST = frozenset({"replace"})
PLACEHOLDER = "_"
_SLOT = re.compile(r"^([^.\s]+)\.(\d+)$")


class Move:
    """One move: who, what kind, which slots (and which player for `add P`)."""

    __slots__ = ("actor", "kind", "targets", "chosen")

    def __init__(self, actor, kind: str, targets: tuple = (), chosen=None):
        self.actor = actor              # Player
        self.kind = kind
        self.targets = targets          # ((Player, number), ...)
        self.chosen = chosen            # Player, for `add P`

    def _key(self) -> tuple:
        return (self.actor, self.kind, self.targets, self.chosen)

    def __eq__(self, other) -> bool:
        return isinstance(other, Move) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash((self.kind, self.targets))

    def __repr__(self) -> str:
        return f"Move({format_move(self)!r})"

    @property
    def target(self):
        return self.targets[0] if self.targets else None

    @property
    def second(self):
        return self.targets[1] if len(self.targets) > 1 else None

    def __str__(self) -> str:
        return format_move(self)


def format_move(move: Move) -> str:
    shape = SHAPES[move.kind][0]
    if shape == "own":
        args = [str(n) for _, n in move.targets]
    elif shape == "slots":
        args = [PLACEHOLDER if t is None else f"{t[0].name}.{t[1]}" for t in move.targets]
    elif shape == "player":
        args = [move.chosen.name]
    else:
        args = []
    return f"{move.actor.name}: {' '.join([move.kind] + args)}"


def parse_move(actor_name: str, text: str, players: dict) -> Move:
    """A move of `actor_name`; `players` maps names to Player objects."""
    actor = players.get(actor_name)
    if actor is None:
        raise MoveError(f"unknown player '{actor_name}' (players: {', '.join(players)})")
    if not isinstance(text, str) or not text.strip():
        raise MoveError(f"'{actor_name}': the move is empty; moves are {', '.join(SHAPES)}")
    words = text.split()
    kind, args = words[0], words[1:]
    if kind not in SHAPES:
        raise MoveError(f"unknown move '{kind}'; moves are {', '.join(SHAPES)}")
    shape, counts = SHAPES[kind]
    if len(args) not in counts:
        wanted = " or ".join(str(c) for c in counts)
        raise MoveError(f"'{kind}' takes {wanted} argument(s), not {len(args)}: '{text}'")
    if shape == "own":
        numbers = []
        for arg in args:
            if not arg.isdigit() or int(arg) < 1:
                raise MoveError(f"'{kind}' takes slot numbers of one's own layout (1, 2, ...), not '{arg}'")
            numbers.append(int(arg))
        return Move(actor, kind, tuple((actor, n) for n in numbers))
    if shape == "slots":
        return Move(actor, kind, _slots(kind, args, players, text))
    if shape == "player":
        chosen = players.get(args[0])
        if chosen is None:
            raise MoveError(f"'{kind}': unknown player '{args[0]}' (players: {', '.join(players)})")
        return Move(actor, kind, (), chosen)
    return Move(actor, kind)


def _slots(kind: str, args: list[str], players: dict, text: str) -> tuple:
    if PLACEHOLDER in args:
        if kind not in PLACEHOLDER_FIRST or len(args) != 2 or args == [PLACEHOLDER, PLACEHOLDER]:
            raise MoveError(f"'{text}': '{PLACEHOLDER}' only stands for a target left out of a two-target "
                            f"{', '.join(sorted(PLACEHOLDER_FIRST))} (e.g. 'replace _ Ben.2')")
        if args[1] == PLACEHOLDER:      # `replace P.N _` is `replace P.N`
            return (_slot(args[0], players, kind),)
        return (None, _slot(args[1], players, kind))
    return tuple(_slot(arg, players, kind) for arg in args)


def _slot(text: str, players: dict, kind: str):
    match = _SLOT.match(text)
    if not match:
        raise MoveError(f"'{kind}': '{text}' is not a slot; write PLAYER.NUMBER, e.g. Ben.2")
    player = players.get(match.group(1))
    if player is None:
        raise MoveError(f"'{kind}': unknown player '{match.group(1)}' in '{text}' (players: {', '.join(players)})")
    number = int(match.group(2))
    if number < 1:
        raise MoveError(f"'{kind}': slots are numbered from 1, not '{text}'")
    return (player, number)
