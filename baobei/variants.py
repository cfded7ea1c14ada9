"""Which of a project's variants builds on which (baobei.yaml's `variants:`, by their layers)."""
from __future__ import annotations

from baobei.dsl.loader import Config


def built_on(config: Config, variants: list[str]) -> dict[int, int]:
    """For each of these variants that builds on one listed before it (its layers start with all
    of that one's: a house variant on its edition), the index of the longest such. Most of its
    questions are that variant's: checked after it, it takes their answers rather than solving
    them a second time side by side (parallel.in_forked_workers' `after`)."""
    layers = [config.layers_of(variant) for variant in variants]
    bases = {}
    for index, own in enumerate(layers):
        below = [(len(theirs), position) for position, theirs in enumerate(layers[:index])
                 if len(theirs) < len(own) and own[:len(theirs)] == theirs]
        if below:
            bases[index] = max(below)[1]
    return bases
