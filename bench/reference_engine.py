"""A hand-written engine of BAO BEI, for bench/bench.py only: the yardstick baobei's speed is measured against.

    python bench/reference_engine.py [--variant fr|de] [--players N] [--games G] [--seed S]

This is NOT part of baobei and nothing in the product uses it. It is the "plain hand-written
Python engine of the same rules" of issue 13: the French and German rules as spec/ says them
(spec/core/*.bao, spec/fr.bao, spec/de.bao; the standard edition's deck and thresholds), written
directly in Python the way a competent programmer would write a game engine for speed, without
tricks: plain classes with __slots__, lists for layouts, each decision computed where the game
is (so each legality check knows its context), the legal moves of a decision listed in full and
handed to the agent, which is called directly (no generators, no interpreter). Its random agent
plays as baobei's `random` agent does (interpreter/agents.py): uniform over the kinds of move
that have a legal one, then over their forms (one or two targets), then over the moves; in a
pluck window each player declines half the time; BAO one time in twenty. bench.py prints the
turns per round and plucks per turn of both engines, so a reader can see that they are matched.

It is a second copy of the rules for measuring only: when the spec changes, this file does not
follow unless someone wants the yardstick to follow; it has no tests of its own and decides
nothing. The same seed plays the same games here (random.Random, random() only), but not the
same games as baobei (the two engines draw their randomness in different orders).
"""
from __future__ import annotations

import argparse
import random
import time

# name: (value, family, power) -- spec/core/cards.bao
CARDS = {
    "white_pelican": (7, "pelican", "look_one"), "brown_pelican": (7, "pelican", "show_one"),
    "barn_owl": (11, "owl", "blind_swap"), "macaw": (12, "macaw", "look_and_swap"),
    "toco_toucan": (13, "toucan", "add_card"), "golden_toucan": (-5, "toucan", None),
    "shoebill": (13, "shoebill", "double_replace"),
    **{f"bird{n}": (n, f"bird{n}", None) for n in range(1, 11)},
}
# spec/editions/standard.yaml
DECK = {"bird1": 5, "bird2": 5, "bird3": 5, "bird4": 5, "bird5": 5, "bird6": 5, "bird8": 5, "bird9": 5, "bird10": 5,
        "white_pelican": 3, "brown_pelican": 3, "barn_owl": 4, "macaw": 4, "toco_toucan": 3, "shoebill": 3,
        "golden_toucan": 1}
DECK_NAMES = [name for name, count in DECK.items() for _ in range(count)]
DEAL = {2: 5, 3: 4, 4: 4, 5: 4, 6: 4}
THRESHOLD = 100
MAX_ROUNDS = 10_000


class Card:
    __slots__ = ("name", "value", "family", "power", "seen", "moved_turn", "moved_sequence", "moved_by")

    def __init__(self, name: str):
        self.name = name
        self.value, self.family, self.power = CARDS[name]
        self.seen = 0               # a bit per seat: who knows this card where it lies
        self.moved_turn = -1        # when a power last moved it (the movement limit)
        self.moved_sequence = -1
        self.moved_by = None


class Player:
    __slots__ = ("name", "seat", "bit", "slots", "peeked", "score", "total")

    def __init__(self, name: str):
        self.name = name
        self.seat = 0
        self.bit = 0
        self.slots: list = []       # Card or None (a removed card's slot stays, empty)
        self.peeked = False
        self.score = 0
        self.total = 0


class RandomAgent:
    """baobei's random agent: uniform over kinds, then forms, then moves."""

    __slots__ = ("random",)
    bao_rate = 0.05

    def __init__(self, rng: random.Random):
        self.random = rng.random

    def choose(self, options: list):
        """options: [(kind, [moves of one form, ...]), ...], only kinds and forms that have legal moves."""
        r = self.random
        kind, forms = options[int(r() * len(options))] if len(options) > 1 else options[0]
        moves = forms[int(r() * len(forms))] if len(forms) > 1 else forms[0]
        return kind, (moves[int(r() * len(moves))] if len(moves) > 1 else moves[0])

    def pick(self, moves: list):
        return moves[int(self.random() * len(moves))] if len(moves) > 1 else moves[0]

    def declines(self) -> bool:
        return self.random() < 0.5

    def calls_bao(self) -> bool:
        return self.random() < self.bao_rate


class Pairs:
    """Every ordered pair of two distinct items of a list, as a sequence (not listed: the German
    double pluck may name any two cards on the table, and the agent draws one pair)."""

    __slots__ = ("items", "size")

    def __init__(self, items: list):
        self.items = items
        self.size = len(items)

    def __len__(self) -> int:
        return self.size * (self.size - 1)

    def __getitem__(self, index: int):
        first, second = divmod(index, self.size - 1)
        return self.items[first], self.items[second + (second >= first)]


def shuffle(items: list, uniform) -> None:
    for i in range(len(items) - 1, 0, -1):
        j = int(uniform() * (i + 1))
        items[i], items[j] = items[j], items[i]


class Round:
    def __init__(self, german: bool, players: list, agents: dict, uniform, first: int, tiebreak: bool):
        self.german = german
        self.players = players
        self.agents = agents
        self.uniform = uniform
        self.tiebreak = tiebreak
        for seat, player in enumerate(players):
            player.seat, player.bit = seat, 1 << seat
            player.slots = []
            player.peeked = False
            player.score = 0
        self.everyone = (1 << len(players)) - 1
        self.active = players[first]
        self.order = players[first:] + players[:first]
        self.deck = [Card(name) for name in DECK_NAMES]
        shuffle(self.deck, uniform)
        self.discard: list = []
        self.under: list = []
        self.held: list = []
        self.turn = 0
        self.sequence = 0
        # the reference: the card that became visible last, how, by whom, still open to a pluck
        self.ref_card = self.ref_how = self.ref_by = None
        self.ref_open = False
        self.played = None              # (card, how, by) of this turn's window
        self.plucker = None
        self.pluck_double = self.pluck_success = False
        self.removed1 = self.removed2 = None
        self.bao = self.voided_bao = None
        self.shield = False
        self.touched = False            # the caller's layout changed by another player in the running action
        self.recycles = 0
        self.final_phase = False
        self.final_trigger = None
        self.round_over = False
        self.moves = 0
        self.plucks = 0

    # ---- the primitives ------------------------------------------------------------------
    def set_ref(self, card, how, by) -> None:
        self.ref_card, self.ref_how, self.ref_by, self.ref_open = card, how, by, True

    def draw_card(self):
        if not self.deck:
            self.recycle()
            if not self.deck:
                return None
        return self.deck.pop()

    def recycle(self) -> None:
        if self.deck or len(self.discard) > 1 or self.under:
            gathered = self.discard[:-1] + self.under
            self.discard = self.discard[-1:]
            self.under = []
            shuffle(gathered, self.uniform)
            self.deck = gathered
            self.recycles += 1
            if self.recycles == 2 and (self.bao is None or self.german):
                self.final_phase = True
                self.final_trigger = self.active
                if self.bao is not None:
                    self.voided_bao, self.bao, self.shield = self.bao, None, False

    def changed(self, owner, agent) -> None:
        if owner is self.bao and agent is not owner:
            self.touched = True

    def take_from_slot(self, player, index: int, agent):
        card = player.slots[index]
        player.slots[index] = None
        card.seen = 0
        self.changed(player, agent)
        return card

    def place(self, player, index: int, seen: int, agent, power: bool) -> None:
        card = self.held.pop(0)
        if index == len(player.slots):
            player.slots.append(card)
        else:
            player.slots[index] = card
        card.seen = seen
        self.changed(player, agent)
        if power:
            card.moved_turn, card.moved_sequence, card.moved_by = self.turn, self.sequence, agent

    def action_end(self) -> None:
        if self.bao is not None and not self.shield and self.touched:
            self.shield = True
        self.touched = False

    def occupied(self, player) -> list:
        return [(player, i) for i, card in enumerate(player.slots) if card is not None]

    def next_player(self, player):
        return self.players[(player.seat + 1) % len(self.players)]

    # ---- a round ---------------------------------------------------------------------------
    def play(self) -> None:
        self.setup()
        while not self.round_over:
            self.play_turn()
            self.end_of_turn()
        self.score()

    def setup(self) -> None:
        size = (5 if len(self.players) == 2 else 4) if self.tiebreak else DEAL[len(self.players)]
        for _ in range(size):
            for player in self.players:
                card = self.draw_card()
                if card is not None:
                    player.slots.append(card)
        card = self.draw_card()
        if card is not None:
            self.discard.append(card)
            self.set_ref(card, "setup", None)
        for player in self.order:      # each peeks at two own cards
            own = [i for i, card in enumerate(player.slots) if card is not None]
            pairs = [(i, j) for i in own for j in own if i != j]
            if pairs:
                i, j = self.agents[player].pick(pairs)
                player.slots[i].seen |= player.bit
                player.slots[j].seen |= player.bit
                player.peeked = True
                self.moves += 1

    def play_turn(self) -> None:
        self.turn += 1
        self.played = self.plucker = self.removed1 = self.removed2 = None
        self.pluck_double = self.pluck_success = False
        self.ref_open = False
        actor = self.active
        agent = self.agents[actor]
        options = [("draw", [[None]])]
        if self.discard:
            own = [i for i, card in enumerate(actor.slots) if card is not None]
            if own:
                options.append(("take", [own]))
        kind, index = agent.choose(options)
        self.moves += 1
        self.touched = False
        if kind == "draw":
            self.draw(actor)
        else:
            self.take(actor, index)
        self.action_end()
        self.resolve_powers()
        if self.bao is None and not self.final_phase and agent.calls_bao():
            self.bao = actor
        self.moves += 1                 # bao or end

    def draw(self, actor) -> None:
        card = self.draw_card()
        if card is None:
            return
        self.held.append(card)
        self.set_ref(card, "drawn", actor)
        self.played = (card, "drawn", actor)
        options = []
        plucks = [form for form in (self.single_plucks(actor), self.double_plucks(actor, True)) if form]
        if plucks:
            options.append(("pluck", plucks))
        own = [i for i, card in enumerate(actor.slots) if card is not None]
        if own:
            options.append(("keep", [own]))
        options.append(("discard", [[None]]))
        kind, move = self.agents[actor].choose(options)
        self.moves += 1
        if kind == "pluck":
            self.pluck(actor, move)
        elif kind == "keep":
            old = self.take_from_slot(actor, move, actor)
            self.discard.append(old)
            self.set_ref(old, "replaced", actor)
            self.place(actor, move, actor.bit, actor, False)
            self.played = (old, "replaced", actor)
            self.window()
        else:
            card = self.held.pop(0)
            self.discard.append(card)
            self.set_ref(card, "discarded", actor)
            self.played = (card, "discarded", actor)
            self.window()

    def take(self, actor, index: int) -> None:
        self.held.insert(0, self.discard.pop())
        old = self.take_from_slot(actor, index, actor)
        self.discard.append(old)
        self.set_ref(old, "replaced", actor)
        self.place(actor, index, self.everyone, actor, False)
        self.played = (old, "replaced", actor)
        self.window()

    # ---- plucks ------------------------------------------------------------------------------
    def window(self) -> None:
        """Everyone but the active player may pluck the card just laid, in the order of priority
        (clockwise from the active player); the first who does gets it."""
        active = self.active
        player = self.next_player(active)
        while player is not active:
            if not self.agents[player].declines():
                plucks = [self.single_plucks(player)]
                if self.german:
                    plucks.append(self.double_plucks(player, False))
                plucks = [form for form in plucks if form]
                if plucks:
                    _, move = self.agents[player].choose([("pluck", plucks)])
                    self.moves += 1
                    self.pluck(player, move)
                    return
            player = self.next_player(player)
        self.ref_open = False           # nobody plucks: a pass
        self.moves += 1

    def shielded(self, actor):
        """The layout no pluck, swap or replacement of this actor may touch (None: none)."""
        return self.bao if self.shield and actor is not self.bao else None

    def single_plucks(self, actor) -> list:
        """Every face-down card (one for each opponent's card to give back); none of a shielded layout."""
        shielded = self.shielded(actor)
        can_give = any(card is not None for card in actor.slots)
        found = []
        for player in self.players:
            if player is shielded or (player is not actor and not can_give):
                continue
            for i, card in enumerate(player.slots):
                if card is not None:
                    found.append(((player, i),))
        return found

    def double_plucks(self, actor, own_draw: bool) -> list:
        """fr: two distinct own cards, after one's own draw. de: any two distinct cards, after
        one's own draw or on another's discard, with an own card left to give for each opponent card."""
        if not self.german:
            own = self.occupied(actor)
            return [(a, b) for a in own for b in own if a is not b]
        if sum(card is not None for card in actor.slots) < 2:   # (each opponent card needs an own card left)
            return []
        shielded = self.shielded(actor)
        slots = [slot for player in self.players if player is not shielded for slot in self.occupied(player)]
        return Pairs(slots) if len(slots) > 1 else []

    def pluck(self, actor, targets: tuple) -> None:
        self.plucks += 1
        self.ref_open = False
        self.plucker = actor
        self.pluck_double = len(targets) == 2
        family = self.ref_card.family
        if all(player.slots[i].family == family for player, i in targets):
            self.pluck_succeeds(actor, targets)
        else:
            self.pluck_fails(actor, targets)

    def pluck_succeeds(self, actor, targets: tuple) -> None:
        self.pluck_success = True
        self.removed1 = targets[0][0].slots[targets[0][1]]
        self.removed2 = targets[1][0].slots[targets[1][1]] if len(targets) == 2 else None
        if self.ref_how == "drawn":
            card = self.held.pop(0)
            self.discard.append(card)
            self.set_ref(card, "laid", actor)
        for player, i in targets:
            card = self.take_from_slot(player, i, actor)
            self.discard.append(card)
            self.set_ref(card, "removed", actor)
        for player, i in targets:
            if player is not actor:    # give an own card into the freed slot
                own = [j for j, card in enumerate(actor.slots) if card is not None]
                if own:
                    j = self.agents[actor].pick(own)
                    card = actor.slots[j]
                    actor.slots[j] = None
                    player.slots[i] = card
                    self.changed(actor, actor)
                    self.changed(player, actor)
                    self.moves += 1

    def pluck_fails(self, actor, targets: tuple) -> None:
        own_draw = self.ref_how == "drawn"
        for player, i in targets:
            card = player.slots[i]
            card.seen = self.everyone
            self.set_ref(card, "shown", actor)
        if own_draw:
            card = self.held.pop(0)
            self.discard.append(card)
            self.set_ref(card, "failed", actor)
        card = self.draw_card()        # the penalty
        if card is not None:
            self.held.append(card)
            self.place_held(actor, actor, False)

    def place_held(self, player, agent, power: bool) -> None:
        """The held card into one of the player's slots, as the player chooses: fr a new slot;
        de an empty slot, a new one when none is empty."""
        index = len(player.slots)
        if self.german:
            empty = [i for i, card in enumerate(player.slots) if card is None]
            if empty:
                index = self.agents[player].pick(empty)
        self.place(player, index, 0, agent, power)
        self.moves += 1

    # ---- powers ------------------------------------------------------------------------------
    def resolve_powers(self) -> None:
        fired = []
        card, how, by = self.played if self.played is not None else (None, None, None)
        success, double, plucker = self.pluck_success, self.pluck_double, self.plucker
        if self.german:
            if how == "discarded":
                fired.append((4, card, by))
            elif success and how == "drawn" and not double:
                fired.append((1, card, plucker))
            if success and not double:
                fired.append((2, self.removed1, plucker))
        else:
            if how == "discarded":
                fired.append((1, card, by))
            elif success and how == "drawn":
                fired.append((1, card, plucker))
            if success:
                fired.append((2, self.removed1, plucker))
        if success and double:
            fired.append((3, self.removed2, plucker))
        fired = [entry for entry in fired if entry[1] is not None and entry[1].power is not None and entry[2] is not None]
        if not fired:
            return
        fired.sort(key=lambda entry: entry[0])
        self.sequence += 1
        for _, card, user in fired:
            self.touched = False
            POWERS[card.power](self, user)
            self.action_end()

    def movable(self, player, index: int, user) -> bool:
        card = player.slots[index]
        if card is None or (self.shield and player is self.bao and user is not self.bao):
            return False
        if self.german:
            return card.moved_turn != self.turn
        return not (card.moved_sequence == self.sequence and card.moved_by is user)

    def all_occupied(self) -> list:
        return [slot for player in self.players for slot in self.occupied(player)]

    def look_one(self, user) -> None:
        slots = self.all_occupied()
        if slots:
            player, i = self.agents[user].pick(slots)
            player.slots[i].seen |= user.bit
            self.moves += 1

    def show_one(self, user) -> None:
        slots = self.all_occupied()
        if slots:
            player, i = self.agents[user].pick(slots)
            card = player.slots[i]
            card.seen = self.everyone
            self.set_ref(card, "shown", user)
            self.moves += 1

    def swap(self, a, b, user) -> None:
        card_a, card_b = a[0].slots[a[1]], b[0].slots[b[1]]
        a[0].slots[a[1]], b[0].slots[b[1]] = card_b, card_a
        self.changed(a[0], user)
        self.changed(b[0], user)
        for card in (card_a, card_b):
            card.moved_turn, card.moved_sequence, card.moved_by = self.turn, self.sequence, user

    def blind_swap(self, user) -> None:
        slots = [(p, i) for p in self.players for i in range(len(p.slots)) if self.movable(p, i, user)]
        pairs = [(a, b) for a in slots for b in slots if a[0] is not b[0]]
        if pairs:
            a, b = self.agents[user].pick(pairs)
            self.swap(a, b, user)
            self.moves += 1

    def look_and_swap(self, user) -> None:
        slots = self.all_occupied()
        pairs = [(a, b) for a in slots for b in slots if a[0] is not b[0]]
        if not pairs:
            return
        agent = self.agents[user]
        a, b = agent.pick(pairs)
        a[0].slots[a[1]].seen |= user.bit
        b[0].slots[b[1]].seen |= user.bit
        self.moves += 1
        options = [("leave", [[None]])]
        if self.movable(a[0], a[1], user) and self.movable(b[0], b[1], user):
            options.append(("swap", [[None]]))
        kind, _ = agent.choose(options)
        if kind == "swap":
            self.swap(a, b, user)
        self.moves += 1

    def add_card(self, user) -> None:
        if not (self.deck or len(self.discard) > 1 or self.under):
            return
        shielded = self.shielded(user)
        chosen = [p for p in self.players if p is not user and p is not shielded]
        if not chosen:
            return
        player = self.agents[user].pick(chosen)
        self.moves += 1
        card = self.draw_card()
        if card is not None:
            self.held.append(card)
            self.place_held(player, user, True)

    def double_replace(self, user) -> None:
        for _ in range(2):
            card = self.draw_card()
            if card is None:
                break
            self.held.append(card)
        held = len(self.held)
        own, others = [], []
        for player in self.players:
            for i in range(len(player.slots)):
                if self.movable(player, i, user):
                    (own if player is user else others).append((player, i))
        forms = []
        if held == 2 and own and others:      # one own card and one opponent's, in either order
            forms.append([(a, b) for a in own for b in others] + [(b, a) for a in own for b in others])
        elif held:
            movable = own + others
            if movable:                        # only the possible one
                forms.append([(slot,) for slot in movable])
                if held == 2:
                    forms.append([(None, slot) for slot in movable])
            else:                              # none possible
                forms.append([()])
        if forms:
            _, targets = self.agents[user].choose([("replace", forms)])
            self.moves += 1
            for slot in targets:
                if slot is None:
                    self.under.append(self.held.pop(0))
                else:
                    self.under.append(self.take_from_slot(slot[0], slot[1], user))
                    self.place(slot[0], slot[1], user.bit, user, True)
        while self.held:
            self.under.append(self.held.pop(0))

    # ---- the end of a turn and of the round --------------------------------------------------
    def plays_last_turn(self, player) -> bool:
        caller = self.bao if self.bao is not None else self.voided_bao
        if self.german and self.final_phase:
            return player is not self.final_trigger
        if player is caller:
            return False
        if self.final_phase:
            return player is not self.final_trigger
        return True

    def end_of_turn(self) -> None:
        stop = self.bao if self.bao is not None else self.final_trigger
        following = self.next_player(self.active)
        while stop is not None and following is not stop and not self.plays_last_turn(following):
            following = self.next_player(following)
        if stop is not None and following is stop:
            self.round_over = True
        else:
            self.active = following

    def score(self) -> None:
        points = {player: sum(card.value for card in player.slots if card is not None) for player in self.players}
        bao = self.bao
        for player in self.players:
            if player is not bao:
                player.score = points[player]
            elif all(points[bao] < points[other] for other in self.players if other is not bao):
                player.score = min(points[player], 0)
            else:
                player.score = max(2 * points[player], 5)
            player.total += player.score


POWERS = {"look_one": Round.look_one, "show_one": Round.show_one, "blind_swap": Round.blind_swap,
          "look_and_swap": Round.look_and_swap, "add_card": Round.add_card, "double_replace": Round.double_replace}


class Counts:
    __slots__ = ("games", "rounds", "turns", "moves", "plucks", "seconds")

    def __init__(self):
        self.games = self.rounds = self.turns = self.moves = self.plucks = 0
        self.seconds = 0.0


def play_game(german: bool, count: int, seed: int, counts: Counts) -> str | None:
    """One seeded game to its end; the winner's name."""
    rng = random.Random(seed)
    uniform = rng.random
    players = [Player(f"P{i + 1}") for i in range(count)]
    agents = {player: RandomAgent(rng) for player in players}
    playing = players
    first = int(uniform() * count)
    tiebreak = False
    for _ in range(MAX_ROUNDS):
        rnd = Round(german, playing, agents, uniform, first, tiebreak)
        rnd.play()
        counts.rounds += 1
        counts.turns += rnd.turn
        counts.moves += rnd.moves
        counts.plucks += rnd.plucks
        if tiebreak or any(player.total >= THRESHOLD for player in playing):
            mark = (lambda p: p.score) if tiebreak else (lambda p: p.total)
            best = min(mark(player) for player in playing)
            leaders = [player for player in playing if mark(player) == best]
            if len(leaders) == 1:
                return leaders[0].name
            playing, tiebreak = leaders, True          # a tie-break round between the leaders
            first = int(uniform() * len(playing))
        else:                                          # the highest score of the round starts the next
            high = max(player.score for player in playing)
            first = playing.index(next(player for player in rnd.order if player.score == high))
    raise RuntimeError(f"the game did not end after {MAX_ROUNDS} rounds")


def game_seed(seed: int, index: int) -> int:
    """As baobei's simulate derives each game's seed (interpreter/simulate.py)."""
    return seed * 1_000_003 + index


def simulate(variant: str, players: int, games: int, seed: int) -> Counts:
    counts = Counts()
    german = {"fr": False, "de": True}[variant]
    started = time.perf_counter()
    for index in range(games):
        play_game(german, players, game_seed(seed, index), counts)
        counts.games += 1
    counts.seconds = time.perf_counter() - started
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", choices=("fr", "de"), default="fr")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    counts = simulate(args.variant, args.players, args.games, args.seed)
    print(f"reference engine, {args.variant}, {args.players} players, seed {args.seed}: {counts.games} games, "
          f"{counts.rounds} rounds, {counts.turns} turns, {counts.moves} moves in {counts.seconds:.2f} s: "
          f"{counts.turns / counts.seconds:.0f} turns/s, {counts.turns / counts.rounds:.1f} turns/round, "
          f"{counts.plucks / counts.turns:.3f} plucks/turn")


if __name__ == "__main__":
    main()
