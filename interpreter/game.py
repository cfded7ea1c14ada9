"""Whole games: rounds one after another until the spec says the game is over.

The machinery deals, runs each round's decisions through the players' agents,
and carries the game variables (totals) from round to round. Who opens the
first round and a tie-break round (from a player the machinery draws by lot), who
starts the next round, when the game ends, who wins and who plays a tie-break
round are the spec's decisions (opening_player, next_first, game_over, winner,
in_tiebreak).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from operator import attrgetter

from baobei.dsl.errors import RuleRuntimeError

from .agents import RandomAgent, RandomTable, Table, make_agent
from .engine import Round
from .moves import Move
from .rules import Rules
from .state import EMPTY_CTX, Rng

MAX_ROUNDS = 10_000
MAX_MOVES_PER_ROUND = 20_000


@dataclass
class RoundRecord:
    players: list[str]
    first: str
    tiebreak: bool
    moves: int
    turns: int
    bao: str | None                 # the caller whose BAO is scored
    bao_success: bool | None
    bao_called: str | None          # who called BAO, also when the call no longer counts (de final phase)
    final_phase: bool
    scores: dict[str, int]


@dataclass
class GameRecord:
    seed: int
    rounds: list[RoundRecord] = field(default_factory=list)
    totals: dict[str, int] = field(default_factory=dict)
    winner: str | None = None
    agents: dict[str, str] = field(default_factory=dict)   # player -> the agent playing the seat
    deal_seconds: float = 0.0       # time spent making rounds ready to play (shuffle, deal, setup)


def new_round(rules: Rules, names: list[str], rng: Rng, *, first: int | None, totals: dict[str, int],
              tiebreak: bool = False, deck: list[str] | None = None, lot: int | None = None,
              reshuffles: list[list[str]] | None = None, copyable: bool = True, cards: list | None = None) -> Round:
    """A round dealt from a shuffled full deck, waiting for its first decision (the peeks).
    `first` None: the spec's opening_player decides, with `lot` drawn at random. `deck` and
    `reshuffles`: a recorded deal and the draw piles its recycles made (top first). `copyable`
    False: the round cannot be cloned or rebuilt. `cards`: the game's cards (a shuffled full deck
    only), made into the list by its first round; each later round is dealt from them once the
    round before has released them (Round.release_cards): the cards of a finished round change
    when the next one is dealt."""
    edition = rules.edition
    count = len(names)
    rnd = Round(rules.program, names, rng, threshold=edition.threshold[count], edition_deal=edition.deal[count],
                tiebreak=tiebreak, first=first, lot=lot, totals=totals)
    if deck is None:
        if cards:
            rnd.deck = list(cards)
        else:
            rnd.deck = rnd.new_cards(rules.deck())
            if cards is not None:
                cards += rnd.deck
        rng.shuffle(rnd.deck)
    else:
        rnd.deck = rnd.new_cards(reversed(deck))
    rnd.dealt = list(rnd.deck)
    if reshuffles is not None:
        rnd.reshuffles = [list(order) for order in reshuffles]
    if copyable:    # a copy is the same deal played again (Round.clone: with the same recycled piles)
        seed, dealt = rng.seed, rnd.dealt
        rnd.rebuild = lambda: _unstarted(rules, names, seed, first, totals, tiebreak,
                                         [card.kind.name for card in reversed(dealt)], lot, reshuffles)
    rnd.start(["setup", "turns"])
    return rnd


def _unstarted(rules, names, seed, first, totals, tiebreak, deck, lot, reshuffles) -> Round:
    copy = Rng(seed)
    edition = rules.edition
    rnd = Round(rules.program, names, copy, threshold=edition.threshold[len(names)],
                edition_deal=edition.deal[len(names)], tiebreak=tiebreak, first=first, lot=lot, totals=totals)
    rnd.deck = rnd.new_cards(reversed(deck))
    rnd.dealt = list(rnd.deck)
    rnd.initial_deck = list(deck)
    if reshuffles is not None:
        rnd.reshuffles = [list(order) for order in reshuffles]
    return rnd


def decide(rnd: Round, agents: dict, rng: Rng) -> Move:
    """The next move: the asked player's agent decides; when several players are asked (a
    pluck window), they may act in the order of priority the spec gives; the first who does
    gets it."""
    return _decided({player: agents[player.name].choose for player in rnd.players}, rnd.pending)


def _decided(choosing: dict, ask) -> Move:
    """decide, with each player's agent's choose (player -> function)."""
    rnd = ask.round
    actor = ask.actor
    if actor is not None:
        return _chosen(ask, choosing[actor](rnd, actor, False))
    site = ask.site
    anyone = ask.several is site.clauses
    if anyone:    # every player, in the order of priority (kept per active player where it may be)
        actors = rnd.orders.get(rnd.active) or rnd.program.by_priority(rnd, EMPTY_CTX, rnd.players)
    else:
        actors = _actors_in_order(rnd, ask)
    if len(actors) == 1:
        actor = actors[0]
        return _chosen(ask, choosing[actor](rnd, actor, False))
    for actor in actors:
        move = choosing[actor](rnd, actor, True)
        if move is not None:
            return move
    if anyone and site.free_decline is not None:   # nobody acts: the first declines, as it always may
        return Move(actors[0], site.free_decline)
    move = ask.first_decline(actors)     # nobody acts: the window is declined, by the first who may decline
    if move is None:
        raise RuleRuntimeError(f"no player can move at {ask.label}")
    return move


class AgentsTable(Table):
    """Each player's agent decides (its choose) where it is asked alone; where several are, the
    agents together (decide)."""

    def __init__(self, choosing: dict, by_agents):
        super().__init__(by_agents)
        self.by_agent = lambda rnd, C, player, ask, uniform: choosing[player](rnd, player, False)

    def one_plan(self, site):
        plan = self.one[site] = self.by_agent
        return plan

    def several_plan(self, site):
        plan = self.several[site] = self.by_agents
        return plan


def _chosen(ask, move: Move | None) -> Move:
    """The move an agent had to make; none at all (no rule allows it any move) is a stuck game."""
    if move is None:
        raise RuleRuntimeError(f"no player can move at {ask.label}")
    return move


def _actors_in_order(rnd: Round, ask) -> list:
    """The players asked, in the spec's order of priority (define priority(p))."""
    clauses = ask.clauses
    if ask.several is ask.site.clauses:     # anyone (a pluck window)
        asked = rnd.players
    else:
        askers = [asker for asker, _ in clauses]
        asked = rnd.players if None in askers else [p for p in rnd.players if p in askers]
    return rnd.program.by_priority(rnd, EMPTY_CTX, asked)


def play_round(rnd: Round, agents: dict, rng: Rng, on_move=None, trusted: bool = True, watched=None) -> int:
    """Play a round to its end. Agents choose among generated legal moves, so by default a
    move is not judged a second time; `trusted=False` judges every move again. `on_move` is
    called after every move, or only after those of the kinds in `watched` when given."""
    choosing = {player: agents[player.name].choose for player in rnd.players}
    if trusted:
        def by_agents(ask):   # (a Python function, not a partial: called from Python, its call is cheaper)
            return _decided(choosing, ask)
        all_random = all(type(agent) is RandomAgent and agent.rng is rng for agent in agents.values())
        table = RandomTable(rnd.program, rng.random.random, by_agents) if all_random else \
            AgentsTable(choosing, by_agents)
        return rnd.play_trusted(table, on_move, MAX_MOVES_PER_ROUND, watched)
    moves = 0
    while rnd.pending is not None:
        move = _decided(choosing, rnd.pending)
        rnd.apply(move)
        moves += 1
        if on_move is not None and (watched is None or move.kind in watched):
            on_move(rnd, move)
        if moves > MAX_MOVES_PER_ROUND:
            raise RuleRuntimeError(f"a round went on for {MAX_MOVES_PER_ROUND} moves without ending")
    return moves


def play_game(rules: Rules, player_count: int, seed: int, agent_names: list[str], *, on_move=None,
              on_round=None, on_round_start=None, trusted: bool = True, watched=None,
              copyable: bool = True) -> GameRecord:
    """One seeded game. `copyable` False: its rounds cannot be cloned or rebuilt (new_round), as
    a study that only counts does not need."""
    rng = Rng(seed)
    names = [f"P{i + 1}" for i in range(player_count)]
    record = GameRecord(seed, agents={name: agent_names[i % len(agent_names)] for i, name in enumerate(names)})
    agents = {name: make_agent(agent, name, rng) for name, agent in record.agents.items()}
    totals = {name: 0 for name in names}
    playing = list(names)
    first = None            # the first round and every tie-break round: the spec's opening_player
    lot = rng.randrange(len(playing))
    tiebreak = False
    cards: list = []        # the game's cards, dealt again each round
    for _ in range(MAX_ROUNDS):
        started = time.perf_counter()
        rnd = new_round(rules, playing, rng, first=first, lot=lot, totals=totals, tiebreak=tiebreak,
                        copyable=copyable, cards=cards)
        record.deal_seconds += time.perf_counter() - started
        for agent in agents.values():
            agent.new_round(rnd)
        if on_round_start is not None:
            on_round_start(rnd)
        moves = play_round(rnd, agents, rng, on_move, trusted, watched)
        for player in rnd.players:
            totals[player.name] = player.v_total
        record.rounds.append(_round_record(rnd, moves))
        if on_round is not None:
            on_round(rnd, record)
        program, C = rnd.program, EMPTY_CTX
        if program.define("game_over")(rnd, C):
            winner = program.define("winner")(rnd, C)
            if winner is not None:
                record.winner = winner.name
                break
            in_tiebreak = program.define("in_tiebreak")
            playing = [p.name for p in rnd.players if in_tiebreak(rnd, C, p)]
            tiebreak = True
            first, lot = None, rng.randrange(len(playing))
        else:
            first_player = program.decision("next_first")(rnd, C)
            first, lot = playing.index(first_player.name), None
        rnd.release_cards()     # (the next round is dealt from them)
    else:
        raise RuleRuntimeError(f"the game did not end after {MAX_ROUNDS} rounds")
    record.totals = dict(totals)
    return record


_KIND = attrgetter("kind")


def _round_record(rnd: Round, moves: int) -> RoundRecord:
    bao = rnd.v_bao
    kinds = list(map(_KIND, rnd.history))       # (the moves' kinds listed in C: every round is read)
    called = rnd.history[kinds.index("bao")].actor.name if "bao" in kinds else None
    success = None
    if bao is not None:
        success = bool(rnd.program.define("bao_succeeds")(rnd, EMPTY_CTX))
    return RoundRecord(players=[p.name for p in rnd.players], first=rnd.first.name, tiebreak=rnd.tiebreak,
                       moves=moves, turns=rnd.turn, bao=bao.name if bao else None, bao_success=success,
                       bao_called=called,
                       final_phase=bool(rnd.v_final_phase),
                       scores={p.name: p.v_score for p in rnd.players})
