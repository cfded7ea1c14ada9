"""What procedures, handlers, powers, cards and definitions do is compared (checker/bodies.py):
a change that makes seeded play go otherwise is never "no difference"."""
from __future__ import annotations

from pathlib import Path

from baobei.checker.diff import Differ
from baobei.checker.symbolic import Bounds
from baobei.dsl.errors import BaobeiError, RuleRuntimeError
from baobei.dsl.layers import load_layers
from baobei.dsl.mutations import apply_to_layers, mutations
from baobei.dsl.resolve import resolve
from baobei.interpreter.game import play_game
from baobei.interpreter.program import program_of
from baobei.interpreter.rules import Rules, load_rules

from conftest import ROOT

KINDS = ("procedure", "on", "power", "card", "define")
SAMPLE = 14          # mutants of those kinds, spread over the list


def _played(rules: Rules) -> list:
    """What seeded random play does under these rules: every move of a few games at 2 and 3
    players, and their scores (an error of the rules is an outcome too)."""
    found = []
    for players in (2, 3):
        for seed in range(3):
            moves: list[str] = []
            try:
                record = play_game(rules, players, seed, ["random"], on_move=lambda rnd, move: moves.append(str(move)))
            except (RuleRuntimeError, RecursionError) as error:
                found.append(("error", str(error)))
                continue
            found.append((moves, [r.scores for r in record.rounds], record.totals))
    return found


def test_a_change_that_changes_play_is_never_no_difference(config):
    """Mutants of bodies, cards and definitions (one change each, as `baobei mutate` makes them):
    wherever seeded random play goes otherwise under the mutant, diff reports a difference, or
    names what it could not compare; it never says "no difference"."""
    variant = "fr"
    rules = load_rules(config, variant)
    layered = load_layers(config.spec_dir, config.layers_of(variant), config.config_dir)
    candidates = [m for m in mutations(layered, rules.edition) if m.decl_kind in KINDS]
    step = max(1, len(candidates) // SAMPLE)
    baseline = _played(rules)
    changed_play = 0
    for mutation in candidates[::step][:SAMPLE]:
        try:
            spec = resolve(apply_to_layers(layered, mutation), Path(rules.spec.spec_dir))
            mutant = Rules(variant, spec, program_of(spec), rules.edition, rules.version)
        except BaobeiError:
            continue            # a mutant that does not load changes nothing that plays
        if _played(mutant) == baseline:
            continue
        changed_play += 1
        report = Differ(("spec", rules.spec), ("mutant", spec), rules.edition, Bounds(3, 5)).run()
        assert report.findings or report.uncompared or report.unknown, \
            f"{mutation.title}: play changes, and diff found no difference"
    assert changed_play >= SAMPLE // 2, f"only {changed_play} of the sampled mutants change play"
