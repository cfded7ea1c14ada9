"""The project's YAML files, checked as the command line checks them: baobei.yaml, the edition
files (against each variant's cards) and the scenario files (their structure, their variants,
their cards, their moves)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from baobei.dsl.edition import load_edition
from baobei.dsl.errors import BaobeiError, MoveError, ScenarioError
from baobei.dsl.loader import CONFIG_NAME, Config
from baobei.dsl.model import Spec
from baobei.interpreter.moves import parse_move
from baobei.interpreter.scenario import Scenario, _validate_cards, load_scenario_text

from .project import Analysis, VariantAnalysis, resolved

YAML_SUFFIXES = (".yaml", ".yml")


def kind_of(path: str, config: Config | None) -> str | None:
    """config, edition, scenario, or None for a YAML file baobei does not read."""
    file = Path(path)
    if file.suffix not in YAML_SUFFIXES:
        return None
    if file.name == CONFIG_NAME:
        return "config"
    if config is not None and (path == resolved(config.edition_path()) or
                               file.parent == (config.spec_dir / "editions").resolve()):
        return "edition"
    if "scenarios" in file.parts:
        return "scenario"
    return None


def edition_errors(path: str, text: str, analysis: Analysis) -> list[BaobeiError]:
    found: list[BaobeiError] = []
    for variant in analysis.variants:
        if variant.errors:
            continue        # its cards are not known for sure
        try:
            load_edition(path, variant.spec, text)
        except BaobeiError as error:
            found.append(error)
    return found


def scenario_errors(path: str, text: str, analysis: Analysis) -> list[BaobeiError]:
    try:
        scenario = load_scenario_text(text, path)
    except BaobeiError as error:
        return [error]
    known = {v.variant.name: v for v in analysis.variants}
    found: list[BaobeiError] = []
    cards: dict = {}        # location -> (the error, the variants that find it)
    for index, name in enumerate(scenario.variants):
        if name not in known:
            found.append(ScenarioError(f"unknown variant '{name}'; the project's variants are "
                                       f"{', '.join(sorted(known))}", scenario.doc.loc("variants", index)))
        elif not known[name].errors:
            for error in _card_errors(scenario, known[name]):
                cards.setdefault(error.loc, (error, []))[1].append(name)
    for error, names in cards.values():
        if len(names) > 1:      # said once, for every variant that finds it
            error.message = error.message.replace(f"(variant {names[0]})", f"(variants {', '.join(names)})")
        found.append(error)
    return found + _move_errors(scenario)


@dataclass
class _Cards:
    """What the scenario runner's card check reads of a variant's rules: its cards, its name
    (the check needs no program or edition, which a broken edition file would keep from building)."""
    spec: Spec
    variant: str


def _card_errors(scenario: Scenario, variant: VariantAnalysis) -> list[BaobeiError]:
    try:
        _validate_cards(scenario, _Cards(variant.spec, variant.variant.name))
    except ScenarioError as error:
        return [error]
    return []


def _move_errors(scenario: Scenario) -> list[BaobeiError]:
    """Moves that cannot be read (a step expected illegal may be unreadable on purpose)."""
    players = {name: name for name in scenario.table.get("players", [])}
    found: list[BaobeiError] = []
    for step in scenario.steps:
        if step.illegal:
            continue
        try:
            parse_move(step.actor, step.move, players)
        except MoveError as error:
            found.append(MoveError(error.message, scenario.doc.span("steps", step.index - 1, step.actor)))
    return found
