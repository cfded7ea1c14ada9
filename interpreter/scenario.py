"""Scenario files (the contract): read, check, run, compare.

A scenario sets a table, plays scripted steps under each variant it names and
states what must hold. A file that cannot be read or is not a valid scenario
raises ScenarioError (file, key, line); a scenario that runs but does not
hold gives a failed Result with the step, what was expected and what happened.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path

from baobei.dsl import ast
from baobei.dsl.errors import BaobeiError, Loc, MoveError, RuleRuntimeError, ScenarioError
from baobei.dsl.loader import Config
from baobei.dsl.yamlfile import YamlDoc, read_yaml

from .engine import IllegalMove, Round, same_move
from .explain import Explainer, explain
from .invariants import InvariantBroken, Watch, cards_on_table
from .moves import Move, parse_move
from .rules import Rules, load_rules
from .table import EMPTY, round_from_table
from .tracing import Step as TraceStep
from .tracing import StepRecorder

TABLE_KEYS = {"players", "layouts", "deck", "discard", "under_discard", "active", "totals", "bao", "shield",
              "recycles", "seed", "reshuffle", "first", "tiebreak"}
# Project additions to the contract (docs/scenario-format.md): `expect_variants` / `then_variants`
# (checks per variant), a step's `variants` (played only under these), the check `waiting` (who
# is asked for what), a step's `refused_by` / `allowed_by` (the rule that must decide it),
# `invariants` (checked after every step), the table's `first` (the round's first player) and
# `tiebreak` (a tie-break round): the last three make a round of random play replayable.
TOP_KEYS = TABLE_KEYS | {"title", "variants", "steps", "expect", "expect_variants", "invariants"}
STEP_KEYS = {"expect", "then", "variants", "then_variants", "refused_by", "allowed_by"}
CHECK_KEYS = {"layouts", "discard_top", "discard", "deck", "deck_size", "active", "shown", "known", "unknown",
              "bao", "shield", "recycles", "final_phase", "round_over", "scores", "totals", "next_first",
              "game_over", "winner", "tiebreak", "waiting"}


@dataclass
class Step:
    index: int
    actor: str
    move: str
    illegal: bool
    then: dict | None
    variants: list[str] | None
    loc: Loc
    then_variants: dict | None = None
    refused_by: str | None = None       # the rule that must refuse the move (with expect: illegal)
    allowed_by: str | None = None       # the rule that must allow it

    @property
    def decided_by(self) -> tuple[str, str] | None:
        """(key, rule) when the step names the rule that must decide it."""
        if self.refused_by is not None:
            return ("refused_by", self.refused_by)
        if self.allowed_by is not None:
            return ("allowed_by", self.allowed_by)
        return None


@dataclass
class Scenario:
    path: str
    title: str
    variants: list[str]
    table: dict
    steps: list[Step]
    expect: dict | None
    doc: YamlDoc
    expect_variants: dict | None = None
    invariants: bool = False            # check the invariants of random play after every step


@dataclass
class Result:
    scenario: Scenario
    variant: str
    passed: bool
    message: str = ""
    step: int | None = None
    round: Round | None = field(default=None, repr=False)
    step_rules: dict[int, list[str]] = field(default_factory=dict)   # step number -> the rules that decided in it


# ---- reading -----------------------------------------------------------------------------

def scenario_files(paths: list[str]) -> list[Path]:
    files: list[Path] = []
    for text in paths:
        path = Path(text)
        if path.is_dir():
            files += sorted(p for p in path.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())
        elif path.is_file():
            files.append(path)
        else:
            raise ScenarioError("no such file or folder", Loc(str(path)))
    return files


def load_scenario(path: str | Path) -> Scenario:
    doc = read_yaml(path, ScenarioError)
    data = doc.data
    where = str(path)
    if not isinstance(data, dict):
        raise ScenarioError("a scenario is a mapping (title, variants, players, layouts, ..., steps, expect)",
                            Loc(where, 1, 1))
    for key in data:
        if key not in TOP_KEYS:
            raise ScenarioError(f"unknown key '{key}'", doc.loc(key), notes=(_keys(TOP_KEYS),))
    for key in ("variants", "players", "active"):
        if key not in data:
            raise ScenarioError(f"missing key '{key}'", Loc(where, 1, 1))
    variants = _names(data["variants"], doc, "variants", "variant")
    if not variants:
        raise ScenarioError("'variants' names at least one variant, e.g. [fr, de]", doc.loc("variants"))
    players = _names(data["players"], doc, "players", "player name")
    if not 2 <= len(players) <= 6 or len(set(players)) != len(players):
        raise ScenarioError("'players' lists 2 to 6 different names", doc.loc("players"))
    _check_table(data, doc, players)
    steps = _steps(data.get("steps") or [], doc, players)
    expect = data.get("expect")
    if expect is not None:
        _check_checks(expect, doc, ("expect",), players)
    expect_variants = _per_variant(data.get("expect_variants"), doc, ("expect_variants",), players)
    title = data.get("title", Path(where).stem)
    invariants = data.get("invariants", False)
    if not isinstance(invariants, bool):
        raise ScenarioError("'invariants' is true or false", doc.loc("invariants"))
    return Scenario(where, str(title), variants, {k: data[k] for k in TABLE_KEYS if k in data}, steps, expect, doc,
                    expect_variants, invariants)


def _per_variant(value, doc: YamlDoc, path: tuple, players: list[str]) -> dict | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ScenarioError(f"'{path[-1]}' maps variants to checks", doc.loc(*path))
    for variant, checks in value.items():
        _check_checks(checks, doc, path + (variant,), players)
    return value


def _keys(keys) -> str:
    return "allowed keys: " + ", ".join(sorted(keys))


def _names(value, doc: YamlDoc, key: str, what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ScenarioError(f"'{key}' is a list of {what}s", doc.loc(key))
    return list(value)


def _card_list(value, doc, *path) -> None:
    if value is None:
        return
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ScenarioError(f"'{'.'.join(map(str, path))}' is a list of card ids", doc.loc(*path))


def _check_table(data: dict, doc: YamlDoc, players: list[str]) -> None:
    if data["active"] not in players:
        raise ScenarioError(f"'active' is '{data['active']}', not one of the players", doc.loc("active"))
    layouts = data.get("layouts") or {}
    if not isinstance(layouts, dict):
        raise ScenarioError("'layouts' maps each player to a list of cards", doc.loc("layouts"))
    for name, layout in layouts.items():
        if name not in players:
            raise ScenarioError(f"'layouts' names '{name}', who is not a player", doc.loc("layouts", name))
        _card_list(layout, doc, "layouts", name)
    for key in ("deck", "discard", "under_discard"):
        _card_list(data.get(key), doc, key)
    if "totals" in data and data["totals"] is not None:
        _int_map(data["totals"], doc, ("totals",), players)
    bao = data.get("bao")
    if bao is not None and bao not in players:
        raise ScenarioError(f"'bao' is '{bao}', not one of the players", doc.loc("bao"))
    for key in ("shield", "tiebreak"):
        if key in data and not isinstance(data[key], bool):
            raise ScenarioError(f"'{key}' is true or false", doc.loc(key))
    if "first" in data and data["first"] not in players:
        raise ScenarioError(f"'first' is '{data['first']}', not one of the players", doc.loc("first"))
    for key in ("recycles", "seed"):
        if key in data and data[key] is not None and (not isinstance(data[key], int) or isinstance(data[key], bool)
                                                      or data[key] < 0):
            raise ScenarioError(f"'{key}' is a number of 0 or more", doc.loc(key))
    reshuffle = data.get("reshuffle")
    if reshuffle is not None:
        if not isinstance(reshuffle, list):
            raise ScenarioError("'reshuffle' is a list with one draw pile (top first) per recycle",
                                doc.loc("reshuffle"))
        for index, order in enumerate(reshuffle):
            _card_list(order, doc, "reshuffle", index)


def _int_map(value, doc, path, players) -> None:
    if not isinstance(value, dict):
        raise ScenarioError(f"'{'.'.join(path)}' maps players to numbers", doc.loc(*path))
    for name, number in value.items():
        if name not in players:
            raise ScenarioError(f"'{'.'.join(path)}' names '{name}', who is not a player", doc.loc(*path, name))
        if not isinstance(number, int) or isinstance(number, bool):
            raise ScenarioError(f"'{'.'.join(path)}.{name}' is a number", doc.loc(*path, name))


def _steps(value, doc: YamlDoc, players: list[str]) -> list[Step]:
    if not isinstance(value, list):
        raise ScenarioError("'steps' is a list of moves like '- Ana: draw'", doc.loc("steps"))
    steps = []
    for index, item in enumerate(value):
        loc = doc.loc("steps", index)
        if not isinstance(item, dict):
            raise ScenarioError("a step is a mapping 'PLAYER: MOVE' (with optional expect, then)", loc)
        movers = [k for k in item if k not in STEP_KEYS]
        if len(movers) != 1:
            raise ScenarioError("a step names exactly one player and a move, e.g. '- Ana: draw'", loc,
                                notes=("step keys besides the player: " + ", ".join(sorted(STEP_KEYS)),))
        actor = movers[0]
        if not isinstance(actor, str):
            raise ScenarioError(f"'{actor}' is not a player name", loc)
        move = item[actor]
        if not isinstance(move, str):
            raise ScenarioError(f"the move of '{actor}' should be text like 'pluck Ben.2'", loc)
        expect = item.get("expect")
        if expect not in (None, "illegal"):
            raise ScenarioError("a step's 'expect' can only be 'illegal'", doc.loc("steps", index, "expect"))
        then = item.get("then")
        if then is not None:
            _check_checks(then, doc, ("steps", index, "then"), players)
        variants = item.get("variants")
        if variants is not None:
            if not isinstance(variants, list) or not all(isinstance(v, str) for v in variants):
                raise ScenarioError("a step's 'variants' is a list of variants", doc.loc("steps", index, "variants"))
        then_variants = _per_variant(item.get("then_variants"), doc, ("steps", index, "then_variants"), players)
        refused_by, allowed_by = _deciding_rule_keys(item, doc, index)
        steps.append(Step(index + 1, actor, move, expect == "illegal", then, variants, loc, then_variants,
                          refused_by, allowed_by))
    return steps


def _deciding_rule_keys(item: dict, doc: YamlDoc, index: int) -> tuple[str | None, str | None]:
    """A step's refused_by (with expect: illegal) or allowed_by: the name of a rule."""
    found = {}
    for key in ("refused_by", "allowed_by"):
        if key in item:
            if not isinstance(item[key], str) or not item[key]:
                raise ScenarioError(f"'{key}' names a rule, e.g. {key}: pluck.on_own_draw",
                                    doc.loc("steps", index, key))
            found[key] = item[key]
    illegal = item.get("expect") == "illegal"
    if "refused_by" in found and "allowed_by" in found:
        raise ScenarioError("a step is refused_by a rule or allowed_by one, not both", doc.loc("steps", index,
                                                                                            "allowed_by"))
    if "refused_by" in found and not illegal:
        raise ScenarioError("'refused_by' goes with 'expect: illegal': the step must be refused, by this rule",
                            doc.loc("steps", index, "refused_by"))
    if "allowed_by" in found and illegal:
        raise ScenarioError("a step with 'expect: illegal' cannot be 'allowed_by' a rule; use refused_by",
                            doc.loc("steps", index, "allowed_by"))
    return found.get("refused_by"), found.get("allowed_by")


def _check_checks(checks, doc: YamlDoc, path: tuple, players: list[str]) -> None:
    if not isinstance(checks, dict):
        raise ScenarioError(f"'{'.'.join(map(str, path))}' is a mapping of checks", doc.loc(*path))
    for key, value in checks.items():
        here = path + (key,)
        if key not in CHECK_KEYS:
            raise ScenarioError(f"unknown check '{key}'", doc.loc(*here), notes=(_keys(CHECK_KEYS),))
        if key in ("layouts", "known", "unknown", "scores", "totals") and not isinstance(value, dict):
            raise ScenarioError(f"'{key}' maps players to values", doc.loc(*here))
        if key in ("layouts", "known", "unknown", "scores", "totals"):
            for name in value:
                if name not in players:
                    raise ScenarioError(f"'{key}' names '{name}', who is not a player", doc.loc(*here, name))
        if key in ("scores", "totals"):
            _int_map(value, doc, here, players)
        if key in ("shield", "final_phase", "round_over", "game_over") and not isinstance(value, bool):
            raise ScenarioError(f"'{key}' is true or false", doc.loc(*here))
        if key in ("recycles", "deck_size") and (not isinstance(value, int) or isinstance(value, bool)):
            raise ScenarioError(f"'{key}' is a number", doc.loc(*here))
        if key in ("discard", "deck", "shown", "tiebreak") and not (isinstance(value, list) and
                                                                 all(isinstance(v, str) for v in value)):
            raise ScenarioError(f"'{key}' is a list", doc.loc(*here))
        if key in ("active", "next_first") and value not in players:
            raise ScenarioError(f"'{key}' is '{value}', not one of the players", doc.loc(*here))
        if key in ("bao", "winner") and value is not None and value not in players:
            raise ScenarioError(f"'{key}' is '{value}', not one of the players", doc.loc(*here))
        if key == "waiting" and not (isinstance(value, dict) and all(
                (name in players or name == "anyone") and isinstance(kinds, list) for name, kinds in value.items())):
            raise ScenarioError("'waiting' maps players (or anyone) to the moves they are asked for",
                                doc.loc(*here))


# ---- running ---------------------------------------------------------------------------------

def run_file(path: Path, config: Config) -> list[Result]:
    scenario = load_scenario(path)
    return [run_scenario(scenario, variant_rules(scenario, variant, config)) for variant in scenario.variants]


def variant_rules(scenario: Scenario, variant: str, config: Config) -> Rules:
    """The rules of one variant the scenario names; an unknown variant is an error at its name."""
    try:
        return load_rules(config, variant)
    except BaobeiError as error:
        if error.code == "E310" and not (error.loc and error.loc.line):   # no such layer
            raise ScenarioError(f"unknown variant '{variant}': {error.message}",
                                scenario.doc.loc("variants", scenario.variants.index(variant))) from None
        raise


def _validate_cards(scenario: Scenario, rules: Rules) -> None:
    doc, known = scenario.doc, rules.spec.cards
    table = scenario.table

    def check(name, *path):
        if name != EMPTY and name not in known:
            raise ScenarioError(f"unknown card '{name}' (variant {rules.variant})", doc.loc(*path))
    for player, layout in (table.get("layouts") or {}).items():
        for i, name in enumerate(layout or []):
            check(name, "layouts", player, i)
    for key in ("deck", "discard", "under_discard"):
        for i, name in enumerate(table.get(key) or []):
            if name == EMPTY:
                raise ScenarioError(f"'{key}' holds cards, not empty slots", doc.loc(key, i))
            check(name, key, i)
    for r, order in enumerate(table.get("reshuffle") or []):
        for i, name in enumerate(order or []):
            check(name, "reshuffle", r, i)
    for path, checks in _all_checks(scenario):
        _validate_check_cards(checks, path, check)


def _all_checks(scenario: Scenario):
    """Every mapping of checks in the file, with the path of keys to it."""
    if scenario.expect:
        yield ("expect",), scenario.expect
    for variant, checks in (scenario.expect_variants or {}).items():
        yield ("expect_variants", variant), checks
    for step in scenario.steps:
        here = ("steps", step.index - 1)
        if step.then:
            yield here + ("then",), step.then
        for variant, checks in (step.then_variants or {}).items():
            yield here + ("then_variants", variant), checks


def _validate_check_cards(checks: dict, path: tuple, check) -> None:
    """A card id in a check must be a card of the variant: a typo is an error, not a failed comparison."""
    if isinstance(checks.get("discard_top"), str):
        check(checks["discard_top"], *path, "discard_top")
    for key in ("discard", "deck", "shown"):
        for i, name in enumerate(checks.get(key) or []):
            check(name, *path, key, i)
    for player, layout in (checks.get("layouts") or {}).items():
        for i, name in enumerate(layout or []):
            check(str(name), *path, "layouts", player, i)
    for player, entries in (checks.get("known") or {}).items():
        for slot, name in (entries.items() if isinstance(entries, dict) else ()):
            check(str(name), *path, "known", player, slot)


def _validate_rules(scenario: Scenario, rules: Rules) -> None:
    """The rule a step's refused_by or allowed_by names must be a legality rule of the variant that
    decides the step's kind of move, with that verdict: a typo is an error, not a failed step."""
    for step in scenario.steps:
        if step.decided_by is None or step.variants is not None and rules.variant not in step.variants:
            continue
        key, name = step.decided_by
        loc = scenario.doc.loc("steps", step.index - 1, key)
        kind = step.move.split()[0] if step.move.split() else ""
        rule = rules.spec.rules.get(name)
        judging = [r.name for r in rules.spec.legality_rules(kind) if r.body.allow == (key == "allowed_by")]
        if rule is None:
            close = difflib.get_close_matches(name, judging or list(rules.spec.rules), n=1)
            raise ScenarioError(f"unknown rule '{name}' (variant {rules.variant})", loc,
                                notes=(f"did you mean '{close[0]}'?",) if close else ())
        verdict = rule.body.allow if isinstance(rule.body, ast.Verdict) else None
        if verdict is None or kind not in rule.body.moves:
            decides = f"whether {', '.join(rule.body.moves)} is legal" if verdict is not None else "no move"
            raise ScenarioError(f"rule '{name}' decides {decides}, not this step's '{kind}'", loc,
                                notes=(f"rules that {'allow' if key == 'allowed_by' else 'refuse'} {kind}: "
                                       f"{', '.join(judging) or 'none'}",))
        if verdict != (key == "allowed_by"):
            raise ScenarioError(f"rule '{name}' {'allows' if verdict else 'refuses'} {kind}: {key} names a rule "
                                f"that {'allows' if key == 'allowed_by' else 'refuses'} it", loc)


def run_scenario(scenario: Scenario, rules: Rules, trace=None, until: int | None = None) -> Result:
    """Plays the scenario under one variant. `trace`: a callable that gets every step as it is
    played (tracing.Step; step 0 is the table before the first); `until`: stop after the step of
    this number (0: before the first), leaving out the final checks."""
    _validate_cards(scenario, rules)
    _validate_rules(scenario, rules)
    rnd = round_from_table(rules, scenario.table, start=False)
    rnd.strict = True
    runner = _Runner(rnd, rules, scenario, trace)
    try:
        rnd.start(["turns"])
    except RuleRuntimeError as error:
        return Result(scenario, rules.variant, False, f"before the first step: {error.message}", None, rnd)
    runner.started()
    step_rules: dict[int, list[str]] = {}
    for step in scenario.steps:
        if until is not None and step.index > until:
            return Result(scenario, rules.variant, True, "", None, rnd, step_rules)
        if step.variants is not None and rules.variant not in step.variants:
            continue
        label = f"step {step.index} ({step.actor}: {step.move})"
        logged = len(rnd.decided_log)
        try:
            failure = runner.play(step)
            step_rules[step.index] = list(dict.fromkeys(rnd.decided_log[logged:]))
            if failure is None:
                runner.check_invariants()
            if failure is None and step.then:
                failure = compare(rnd, step.then, rules)
            if failure is None and step.then_variants and rules.variant in step.then_variants:
                failure = compare(rnd, step.then_variants[rules.variant], rules)
        except InvariantBroken as error:
            failure = f"an invariant broke: {error.message}"
        except RuleRuntimeError as error:
            failure = f"the rules cannot go on: {error.message}"
        if failure:
            return Result(scenario, rules.variant, False, f"{label}: {failure}", step.index, rnd, step_rules)
    for checks in (scenario.expect, (scenario.expect_variants or {}).get(rules.variant)):
        failure = compare(rnd, checks, rules) if checks else None
        if failure:
            return Result(scenario, rules.variant, False, f"after the last step: {failure}", None, rnd, step_rules)
    return Result(scenario, rules.variant, True, "", None, rnd, step_rules)


class _Runner:
    """Plays a scenario's steps on one round: judges each as the contract says, checks the rule a
    step names, the invariants when the file asks for them, and hands each step to the trace."""

    def __init__(self, rnd: Round, rules: Rules, scenario: Scenario, trace):
        self.rnd = rnd
        self.rules = rules
        self.trace = trace
        self.steps = StepRecorder(rnd) if trace is not None else None
        self.invariants = Watch(rnd, rules, len(cards_on_table(rnd))) if scenario.invariants else None
        self._explainer = None

    def started(self) -> None:
        if self.trace is not None:
            start = TraceStep(0, None)
            self.steps.note_waiting(start)
            self.trace(start)

    def check_invariants(self) -> None:
        """What simulate --check checks after a move, after the step (a file that asks for it):
        raises InvariantBroken."""
        rnd = self.rnd
        if self.invariants is not None and rnd.history:
            self.invariants.after(rnd, rnd.history[-1])
            self.invariants.round_trip(rnd, rnd.history[-1])

    def play(self, step: Step) -> str | None:
        """Plays one step; what went wrong, or None."""
        rnd = self.rnd
        try:
            move = parse_move(step.actor, step.move, rnd.by_name)
        except MoveError as error:
            self._unreadable(step, error)
            if step.illegal and step.refused_by is None:
                return None
            if step.illegal:
                return f"expected the move to be refused by {step.refused_by}, but it cannot be read: {error.message}"
            return f"refused: {error.message}"
        try:
            return self._refused(step, move) if step.illegal else self._played(step, move)
        finally:
            self._hand_on(step)

    def _played(self, step: Step, move: Move) -> str | None:
        rnd = self.rnd
        try:
            _close_pluck_window(rnd, move)
            if step.allowed_by is not None and rnd.before_rules(move) is None:
                rule = rnd.deciding_rule(move)
                if rule is not None and rule.allow and rule.name != step.allowed_by:   # checked before it plays
                    return f"expected the move to be allowed by {step.allowed_by}, but: {self._why(move, step)}"
            rnd.apply(move)
        except IllegalMove:
            return self._why(move, step)
        except RuleRuntimeError as error:
            if "reshuffle" in error.message:
                raise ScenarioError(error.message, step.loc) from None
            raise
        return None

    def _refused(self, step: Step, move: Move) -> str | None:
        """A step that must be refused is judged on a copy of the round, so that nothing changes."""
        rnd = self.rnd
        probe = rnd.clone()
        steps = StepRecorder(probe) if self.trace is not None else None
        move_in_probe = same_move(probe, move)
        rule = None
        try:
            _close_pluck_window(probe, move_in_probe)
            probe.apply(move_in_probe)
            accepted = True
        except IllegalMove as refusal:
            accepted, rule = False, refusal.rule
        finally:
            rnd.decided |= probe.decided   # the rule that refused it counts as exercised
            rnd.decided_log += probe.decided_log[len(rnd.decided_log):]
            if steps is not None:
                self._hand_on_probe(step, steps.flush())
        if accepted:
            return f"expected the move to be refused, but it was accepted: {self._why(move, step)}"
        if step.refused_by is not None and (rule is None or rule.name != step.refused_by):
            return f"expected the move to be refused by {step.refused_by}, but: {self._why(move, step)}"
        return None

    def _why(self, move: Move, step: Step) -> str:
        """The short explanation of the move as the step judged it, naming what the rule the step
        names made of it."""
        if self._explainer is None:
            self._explainer = Explainer(self.rules.spec)
        named = step.decided_by[1] if step.decided_by else None
        return self._explainer.short(explain_as_a_step(self.rnd, move), named)

    # -- the trace -------------------------------------------------------------------------------
    def _hand_on(self, step: Step) -> None:
        if self.steps is None:
            return
        found = self.steps.flush()
        for number, played in enumerate(found):
            played.number = step.index
            played.implicit = number < len(found) - 1      # a pass the step played first
            self.trace(played)

    def _hand_on_probe(self, step: Step, found: list) -> None:
        """A refused step as the trace shows it: judged after the pass a step plays first, with
        the round as it was (nothing changed)."""
        if not found:
            return
        judged = found[-1]
        if not judged.legal:
            judged.judged_after = found[0].move if len(found) > 1 else None
            self.steps.note_waiting(judged)
            found = [judged]
        for number, played in enumerate(found):
            played.number = step.index
            played.implicit = number < len(found) - 1
            self.trace(played)

    def _unreadable(self, step: Step, error: MoveError) -> None:
        if self.trace is not None:
            found = TraceStep(step.index, f"{step.actor}: {step.move}", False, decided_by="notation",
                              reason=error.message)
            self.steps.note_waiting(found)
            self.trace(found)


def explain_as_a_step(rnd: Round, move: Move):
    """Why the move is legal or refused as a step would judge it (explain.py): on a copy of the
    round, after the pass that closes an open pluck window."""
    copy = rnd.clone()
    copied = same_move(copy, move)
    played = len(copy.history)
    _close_pluck_window(copy, copied)
    return explain(copy, copied, str(copy.history[-1]) if len(copy.history) > played else None)


# The one decision a step closes by itself (the contract): a pluck window, which any step
# that is not a pluck closes with `pass`. Every other pending decision needs its own step.
WINDOW_MOVE, WINDOW_CLOSE = "pluck", "pass"


def _close_pluck_window(rnd: Round, move: Move) -> None:
    ask = rnd.pending
    if ask is None or move.kind == WINDOW_MOVE or move.kind in rnd.program.anytime:
        return
    if any((asker is None or asker is move.actor) and move.kind in kinds for asker, kinds in ask.clauses):
        return          # the step answers the decision itself
    closers = [asker for asker, kinds in ask.clauses if WINDOW_CLOSE in kinds]
    if not closers:
        return
    closer = move.actor if any(asker is None or asker is move.actor for asker in closers) else closers[0]
    rnd.apply(Move(closer, WINDOW_CLOSE))


# ---- checks --------------------------------------------------------------------------------

def _slot_name(text: str, rnd: Round):
    if not isinstance(text, str) or "." not in text:
        return None
    name, _, number = text.rpartition(".")
    player = rnd.by_name.get(name)
    if player is None or not number.isdigit():
        return None
    return (player.index, int(number))


def observed(rnd: Round, key: str, rules: Rules):
    """The value of one check key in the round as it is now."""
    names = lambda cards: [c.kind.name for c in cards]  # noqa: E731
    if key == "discard_top":
        return rnd.discard[-1].kind.name if rnd.discard else None
    if key == "discard":
        return names(rnd.discard)
    if key == "deck":
        return names(reversed(rnd.deck))
    if key == "deck_size":
        return len(rnd.deck)
    if key == "active":
        return rnd.active.name
    if key == "shown":
        return [k.name for k in rnd.shown]
    if key == "bao":
        return rnd.vars["bao"].name if rnd.vars["bao"] is not None else None
    if key in ("shield", "recycles", "final_phase", "round_over"):
        return rnd.vars[key]
    C = rnd.context(Move(rnd.active, "end"), None)
    program = rnd.program
    if key == "next_first":
        player = program.decision("next_first")(rnd, C)
        return player.name if player is not None else None
    if key == "game_over":
        return bool(program.define("game_over")(rnd, C))
    if key == "winner":
        player = program.define("winner")(rnd, C)
        return player.name if player is not None else None
    if key == "tiebreak":
        in_tiebreak = program.define("in_tiebreak")
        return [p.name for p in rnd.order if in_tiebreak(rnd, C, p)]
    if key == "waiting":
        return waiting(rnd)
    raise KeyError(key)


def waiting(rnd: Round) -> dict:
    """Who the game waits for and which moves each is asked for and may make now (an ask of
    anyone: 'anyone')."""
    found: dict[str, list[str]] = {}
    for asker, kinds in rnd.awaited():
        name = "anyone" if asker is None else asker.name
        found[name] = sorted(set(found.get(name, [])) | set(kinds))
    return found


def compare(rnd: Round, checks: dict, rules: Rules) -> str | None:
    problems = []
    for key, wanted in checks.items():
        if key == "layouts":
            for name, layout in wanted.items():
                got = [EMPTY if c is None else c.kind.name for c in rnd.by_name[name].layout]
                if [str(x) for x in (layout or [])] != got:
                    problems.append(f"layouts.{name}: expected {_show(layout)}, got {_show(got)}")
        elif key in ("scores", "totals"):
            var = "score" if key == "scores" else "total"
            for name, number in wanted.items():
                got = rnd.by_name[name].vars[var]
                if got != number:
                    problems.append(f"{key}.{name}: expected {number}, got {got}")
        elif key in ("known", "unknown"):
            problems += _knowledge(rnd, key, wanted)
        else:
            got = observed(rnd, key, rules)
            if key == "tiebreak":
                same = sorted(got) == sorted(wanted)
            elif key == "waiting":
                same = {k: sorted(v) for k, v in got.items()} == {k: sorted(v) for k, v in wanted.items()}
            else:
                same = got == wanted
            if not same:
                problems.append(f"{key}: expected {_show(wanted)}, got {_show(got)}")
    return "; ".join(problems) if problems else None


def _knowledge(rnd: Round, key: str, wanted: dict) -> list[str]:
    problems = []
    for name, entries in wanted.items():
        known = rnd.known[rnd.by_name[name].index]
        items = entries.items() if key == "known" and isinstance(entries, dict) else \
            ((entry, None) for entry in (entries or []))
        for slot_text, card in items:
            slot = _slot_name(slot_text, rnd)
            if slot is None:
                problems.append(f"{key}.{name}: '{slot_text}' is not a slot like Ben.2")
                continue
            got = known.get(slot)
            if key == "known" and (got is None or got.name != card):
                problems.append(f"known.{name}.{slot_text}: expected {name} to know {card}, "
                                f"{'knows ' + got.name if got else 'knows nothing there'}")
            if key == "unknown" and got is not None:
                problems.append(f"unknown.{name}: {name} knows {slot_text} ({got.name})")
    return problems


def _show(value) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(str(v) for v in value) + "]"
    return str(value)


# ---- for an editor ------------------------------------------------------------------------

def load_scenario_text(text: str, path: str) -> Scenario:
    """load_scenario for text not saved yet (an editor's): the same checks, the same errors,
    located in `path`."""
    import dataclasses
    import tempfile
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / Path(path).name
        copy.write_text(text, encoding="utf-8")
        try:
            scenario = load_scenario(copy)
        except ScenarioError as error:
            if error.loc is not None:
                error.loc = dataclasses.replace(error.loc, file=str(path))
            raise
    scenario.path = scenario.doc.path = str(path)
    for step in scenario.steps:
        step.loc = dataclasses.replace(step.loc, file=str(path))
    return scenario
