"""Moves in the contract's notation ("Ana: pluck Ben.2"), read and written."""
from __future__ import annotations

import re
from dataclasses import dataclass

from baobei.dsl.errors import MoveError

from .state import Ctx


@dataclass(frozen=True)
class Shape:
    """What the notation lets a move of one kind name."""

    args: str                       # none | own (numbers of one's own slots) | slots (PLAYER.N) | player
    counts: tuple[int, ...]         # how many arguments a move may name
    new_slot: bool = False          # an own layout's next new slot may be named too
    placeholders: tuple[tuple[int, int], ...] = ()   # (number of arguments, position) that may be `_` (none)

    def placeholder(self, count: int, position: int) -> bool:
        return (count, position) in self.placeholders


SHAPES: dict[str, Shape] = {
    "peek": Shape("own", (2,)), "draw": Shape("none", (0,)), "take": Shape("own", (1,)),
    "keep": Shape("own", (1,)), "discard": Shape("none", (0,)), "pluck": Shape("slots", (1, 2)),
    "pass": Shape("none", (0,)), "give": Shape("own", (1,)), "place": Shape("own", (1,), new_slot=True),
    "look": Shape("slots", (1, 2)), "show": Shape("slots", (1,)), "swap": Shape("slots", (0, 2)),
    "leave": Shape("none", (0,)), "add": Shape("player", (1,)),
    # the shoebill: `replace _ Q.M`, no own replacement, the second card drawn goes to Q.M (and a
    # trailing `_` is the same move as the target alone: `replace P.N _` is `replace P.N`)
    "replace": Shape("slots", (0, 1, 2), placeholders=((2, 0),)), "skip": Shape("none", (0,)),
    "bao": Shape("none", (0,)), "end": Shape("none", (0,)),
}
PLACEHOLDER = "_"
_SLOT = re.compile(r"^([^.\s]+)\.(\d+)$")


class Move(Ctx):
    """One move: who, what kind, which slots (and which player for `add P`). Played, it is also
    the context its handler runs in: its `user` and `power` are then the ask's."""

    __slots__ = ("kind",)

    def __init__(self, actor, kind: str, targets: tuple = (), chosen=None):
        # targets: ((Player, number) or None for a placeholder, ...); chosen: a Player, for `add P`
        self.actor = actor
        self.kind = kind
        self.targets = targets
        if targets:
            self.target = targets[0]
            self.second = targets[1] if len(targets) > 1 else None
        else:
            self.target = self.second = None
        self.chosen = chosen
        self.user = self.power = None       # the ask's, once played

    def _key(self) -> tuple:
        return (self.actor, self.kind, self.targets, self.chosen)

    def __eq__(self, other) -> bool:
        return isinstance(other, Move) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash((self.kind, self.targets))

    def __repr__(self) -> str:
        return f"Move({format_move(self)!r})"

    def __str__(self) -> str:
        return format_move(self)


class MadeMove(Move):
    """A Move made by the generated code with its attributes set one by one: `MadeMove()` runs no
    Python __init__ (random play makes one per decision, and in Python 3.11 that frame costs as
    much as the object), and is cheaper than object.__new__(Move)."""

    __slots__ = ()
    __init__ = object.__init__


def format_move(move: Move) -> str:
    shape = SHAPES[move.kind].args
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
    shape = SHAPES[kind]
    if len(args) not in shape.counts:
        wanted = " or ".join(str(c) for c in shape.counts)
        raise MoveError(f"'{kind}' takes {wanted} argument(s), not {len(args)}: '{text}'")
    if shape.args == "own":
        numbers = []
        for arg in args:
            if not arg.isdigit() or int(arg) < 1:
                raise MoveError(f"'{kind}' takes slot numbers of one's own layout (1, 2, ...), not '{arg}'")
            numbers.append(int(arg))
        return Move(actor, kind, tuple((actor, n) for n in numbers))
    if shape.args == "slots":
        return Move(actor, kind, _slots(shape, kind, args, players, text))
    if shape.args == "player":
        chosen = players.get(args[0])
        if chosen is None:
            raise MoveError(f"'{kind}': unknown player '{args[0]}' (players: {', '.join(players)})")
        return Move(actor, kind, (), chosen)
    return Move(actor, kind)


def _slots(shape: Shape, kind: str, args: list[str], players: dict, text: str) -> tuple:
    if PLACEHOLDER in args:
        allowed = [i for i, arg in enumerate(args) if arg == PLACEHOLDER and shape.placeholder(len(args), i)]
        trailing = len(args) == 2 and args[1] == PLACEHOLDER and args[0] != PLACEHOLDER and \
            shape.placeholder(2, 0)
        if trailing:      # `replace P.N _` is `replace P.N`
            return (_slot(args[0], players, kind),)
        if len(allowed) != args.count(PLACEHOLDER) or len(allowed) == len(args):
            kinds = sorted(k for k, s in SHAPES.items() if s.placeholders)
            raise MoveError(f"'{text}': '{PLACEHOLDER}' only stands for a target left out of a two-target "
                            f"{', '.join(kinds)} (e.g. 'replace _ Ben.2')")
        return tuple(None if i in allowed else _slot(arg, players, kind) for i, arg in enumerate(args))
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
