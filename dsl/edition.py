"""Edition files: which cards and how many, how many are dealt, when the game ends.

Card ids, values, families and powers are rules and live in the spec; an edition
only counts them. Read with yaml.safe_load; every mistake names the file and key.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .errors import EditionError, Loc
from .model import Spec
from .yamlfile import YamlDoc, parse_yaml, read_yaml

KEYS = {"edition", "assumed", "deck", "deal", "threshold"}
PLAYER_COUNTS = range(2, 7)


@dataclass
class Edition:
    name: str
    path: str
    deck: dict[str, int]
    deal: dict[int, int]
    threshold: dict[int, int]
    assumed: list[str] = field(default_factory=list)

    @property
    def size(self) -> int:
        return sum(self.deck.values())

    def cards(self) -> list[str]:
        """One id per physical card, in a fixed order (shuffled by the game)."""
        return [card for card, count in self.deck.items() for _ in range(count)]


def load_edition(path: str | Path, spec: Spec, text: str | None = None) -> Edition:
    """The edition file (or `text` for it, an editor's unsaved text), checked against the spec."""
    path = str(path)
    doc = read_yaml(path, EditionError) if text is None else parse_yaml(text, path, EditionError)
    data = doc.data
    if not isinstance(data, dict):
        raise EditionError("an edition file is a mapping with keys " + ", ".join(sorted(KEYS)), Loc(path, 1, 1))
    for key in data:
        if key not in KEYS:
            raise EditionError(f"unknown key '{key}'; an edition has {', '.join(sorted(KEYS))}",
                               doc.loc(key))
    for key in ("deck", "deal", "threshold"):
        if key not in data:
            raise EditionError(f"missing key '{key}'", Loc(path, 1, 1))
    name = data.get("edition", Path(path).stem)
    if not isinstance(name, str):
        raise EditionError("'edition' is a name", doc.loc("edition"))
    assumed = data.get("assumed", []) or []
    if not isinstance(assumed, list) or not all(isinstance(a, str) for a in assumed):
        raise EditionError("'assumed' is a list of keys, e.g. [deck, threshold]", doc.loc("assumed"))
    for item in assumed:
        if item not in KEYS:
            raise EditionError(f"'assumed' names '{item}', which is not a key of an edition",
                               doc.loc("assumed"))
    deck = _counts(data["deck"], doc, "deck")
    for card, count in deck.items():
        if card not in spec.cards:
            raise EditionError(f"'deck' counts card '{card}', which the spec does not define",
                               doc.loc("deck", card), notes=(_known(spec),))
    deal = _by_players(data["deal"], doc, "deal")
    threshold = _by_players(data["threshold"], doc, "threshold")
    edition = Edition(name=name, path=path, deck=deck, deal=deal, threshold=threshold, assumed=list(assumed))
    for players, size in deal.items():
        needed = players * size + 1
        if edition.size < needed:
            raise EditionError(f"a deck of {edition.size} cards cannot deal {size} cards to {players} players "
                               f"and start the discard ({needed} needed)", doc.loc("deal"))
    return edition


def _counts(value, doc: YamlDoc, key) -> dict[str, int]:
    if not isinstance(value, dict):
        raise EditionError(f"'{key}' maps card ids to counts", doc.loc(key))
    counts: dict[str, int] = {}
    for card, count in value.items():
        if not isinstance(card, str) or not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise EditionError(f"'{key}': '{card}: {count}' should be a card id and a count of 0 or more",
                               doc.loc(key, str(card)))
        counts[card] = count
    return counts


def _by_players(value, doc: YamlDoc, key) -> dict[int, int]:
    if not isinstance(value, dict):
        raise EditionError(f"'{key}' maps player counts 2 to 6 to a number", doc.loc(key))
    table: dict[int, int] = {}
    for players, number in value.items():
        if not isinstance(players, int) or players not in PLAYER_COUNTS:
            raise EditionError(f"'{key}': player count '{players}' should be 2 to 6", doc.loc(key))
        if not isinstance(number, int) or isinstance(number, bool) or number < (1 if key == "deal" else 0):
            raise EditionError(f"'{key}': '{players}: {number}' should be a positive number",
                               doc.loc(key))
        table[players] = number
    missing = [n for n in PLAYER_COUNTS if n not in table]
    if missing:
        raise EditionError(f"'{key}' gives no value for {', '.join(map(str, missing))} players",
                           doc.loc(key))
    return table


def _known(spec: Spec) -> str:
    return "the spec's cards: " + ", ".join(sorted(spec.cards))


