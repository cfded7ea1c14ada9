"""The statistics of balance studies: distributions against published values, Holm's
correction, accumulators that merge exactly in any order, intervals that cover."""
from __future__ import annotations

import random

import pytest

from baobei.statistics import (HistogramSums, RatioSums, compare_distributions, f_upper_p, holm,
                               t_quantile, t_two_sided_p, welch)


@pytest.mark.parametrize("t,df,p", [(2.0, 10, 0.073388), (2.228139, 10, 0.05), (1.959964, 1e9, 0.05),
                                    (3.0, 3, 0.057669), (1.0, 1, 0.5)])
def test_student_t_tail_matches_tables(t, df, p):
    assert t_two_sided_p(t, df) == pytest.approx(p, abs=2e-6)


def test_t_quantile_inverts_the_tail():
    assert t_quantile(0.05, 10) == pytest.approx(2.228139, abs=1e-5)
    assert t_quantile(0.05, 40_000) == pytest.approx(1.960, abs=1e-3)
    assert t_quantile(0.001, 30) == pytest.approx(3.646, abs=1e-3)


@pytest.mark.parametrize("f,df1,df2,p", [(3.841459, 1, 1e9, 0.05), (2.5, 3, 20, 0.088844), (1.0, 5, 5, 0.5)])
def test_f_tail_matches_tables(f, df1, df2, p):
    assert f_upper_p(f, df1, df2) == pytest.approx(p, abs=2e-6)


def test_holm_steps_down_and_keeps_the_order_of_the_metrics():
    assert holm([0.01, 0.04, 0.03, 0.5]) == pytest.approx([0.04, 0.09, 0.09, 0.5])
    assert holm([0.5, 0.001]) == pytest.approx([0.5, 0.002])


def clustered_game(rng: random.Random) -> list[int]:
    """Observations of one game: they share the game's own offset, so they are not independent."""
    offset = rng.gauss(0, 3)
    return [round(offset + rng.gauss(10, 4)) for _ in range(rng.randint(1, 8))]


def test_merging_batches_in_any_order_gives_the_same_sums_and_figures():
    rng = random.Random(3)
    games = [clustered_game(rng) for _ in range(300)]
    batches = []
    for start in range(0, 300, 50):
        histogram, ratio = HistogramSums(), RatioSums()
        for values in games[start:start + 50]:
            histogram.add(values)
            ratio.add(sum(values), len(values))
        batches.append((histogram, ratio))
    merged = []
    for order in (range(6), reversed(range(6)), [3, 0, 5, 1, 4, 2]):
        histogram, ratio = HistogramSums(), RatioSums()
        for index in order:
            histogram.merge(batches[index][0])
            ratio.merge(batches[index][1])
        merged.append((histogram.as_json(), ratio.as_json(), histogram.mean(), histogram.spread()))
    assert merged[0] == merged[1] == merged[2]
    restored = HistogramSums.from_json(merged[0][0])
    assert restored.mean() == merged[0][2] and RatioSums.from_json(merged[0][1]).as_json() == merged[0][1]


def test_game_clustered_intervals_cover_the_true_values():
    """95% intervals of a mean, a spread and a ratio cover the true value about 95% of the time when
    a game's observations are correlated (an interval that treated them as independent would be
    too narrow and cover far less often)."""
    rng = random.Random(5)
    population = [v for _ in range(60_000) for v in clustered_game(rng)]
    mean = sum(population) / len(population)
    spread = (sum((v - mean) ** 2 for v in population) / len(population)) ** 0.5
    covered = {"mean": 0, "spread": 0, "ratio": 0, "naive": 0}
    repeats = 300
    for _ in range(repeats):
        histogram, ratio = HistogramSums(), RatioSums()
        for _ in range(200):
            values = clustered_game(rng)
            histogram.add(values)
            ratio.add(sum(values), len(values))
        for name, estimate, truth in (("mean", histogram.mean(), mean), ("spread", histogram.spread(), spread),
                                      ("ratio", ratio.estimate(), mean)):
            low, high = estimate.interval()
            covered[name] += low <= truth <= high
        naive_se = histogram.spread().value / histogram.observations ** 0.5
        covered["naive"] += abs(histogram.mean().value - mean) <= 1.96 * naive_se
    for name in ("mean", "spread", "ratio"):
        assert 0.92 <= covered[name] / repeats <= 0.98, (name, covered)
    assert covered["naive"] / repeats < 0.90


def test_a_shifted_distribution_is_found_and_the_same_one_is_not():
    rng = random.Random(8)
    same_a, same_b, shifted = HistogramSums(), HistogramSums(), HistogramSums()
    for _ in range(1500):
        same_a.add(clustered_game(rng))
        same_b.add(clustered_game(rng))
        shifted.add([v + (v % 3 == 0) for v in clustered_game(rng)])   # mean nearly the same, shape not
    assert compare_distributions(same_a, same_b).p > 0.05
    test = compare_distributions(same_a, shifted)
    assert test.p < 1e-6 and test.df1 == len(test.bins) - 1


def test_welch_with_no_spread_on_either_side():
    ones = RatioSums()
    for _ in range(10):
        ones.add(1, 1)
    zeros = RatioSums()
    for _ in range(10):
        zeros.add(0, 1)
    assert welch(ones.estimate(), ones.estimate()).p == 1.0
    assert welch(ones.estimate(), zeros.estimate()).p == 0.0
