"""Estimates and tests for balance studies, from sums that stream and merge exactly.

The unit of independence is the game: games are played from independent seeds, while the
rounds and players of one game are not independent of each other. So every figure is a
ratio of per-game sums (turns per round = the sum of turns over the sum of rounds) and
its variance is the linearised ("cluster-robust") variance over games, as in survey
sampling. Every accumulator holds integers only (counts, sums, sums of products), so
merging batches in any order gives exactly the same sums, and memory does not grow with
the number of games. docs/balance.md explains the choices.
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

# ---- distributions -----------------------------------------------------------------------


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 20_000):
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            step = c * d
            h *= step
        if abs(step - 1.0) < 1e-15:
            break
    return h


def beta_regularized(a: float, b: float, x: float) -> float:
    """I_x(a, b), the regularised incomplete beta function."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_fraction(b, a, 1.0 - x) / b


def t_two_sided_p(t: float, df: float) -> float:
    """P(|T| >= |t|) for Student's t with df degrees of freedom."""
    if math.isinf(t):
        return 0.0
    return beta_regularized(df / 2.0, 0.5, df / (df + t * t))


def t_density(t: float, df: float) -> float:
    """The density of Student's t with df degrees of freedom at t."""
    log_scale = math.lgamma((df + 1.0) / 2.0) - math.lgamma(df / 2.0) - 0.5 * math.log(df * math.pi)
    return math.exp(log_scale - (df + 1.0) / 2.0 * math.log1p(t * t / df))


def t_quantile(p_two_sided: float, df: float) -> float:
    """The t with P(|T| >= t) = p_two_sided: Newton's steps (the tail falls by twice the density),
    kept inside a bracket that halves where a step would leave it; a handful of evaluations of
    the tail, where bisection took some eighty (a report asks for a hundred quantiles)."""
    low, high = 0.0, 1.0
    while t_two_sided_p(high, df) > p_two_sided:
        low, high = high, high * 2.0
    t = (low + high) / 2.0
    for _ in range(200):
        excess = t_two_sided_p(t, df) - p_two_sided
        if excess > 0:
            low = t
        else:
            high = t
        slope = 2.0 * t_density(t, df)
        step = excess / slope if slope > 0 else math.inf
        following = t + step
        if not low < following < high:      # out of the bracket: its middle instead
            following = (low + high) / 2.0
        if abs(following - t) <= 1e-14 * max(1.0, t) or high - low <= 1e-14 * max(1.0, high):
            return following
        t = following
    return t


def f_upper_p(f: float, df1: float, df2: float) -> float:
    """P(F >= f) for Fisher's F with (df1, df2) degrees of freedom."""
    if math.isinf(f):
        return 0.0
    if f <= 0.0:
        return 1.0
    return beta_regularized(df2 / 2.0, df1 / 2.0, df2 / (df2 + df1 * f))


def holm(p_values: list[float]) -> list[float]:
    """Holm-Bonferroni adjusted p-values: reject where the adjusted p is below alpha, and the
    chance of any false rejection among all of them stays below alpha."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    adjusted = [1.0] * len(p_values)
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


# ---- estimates and their comparison ---------------------------------------------------------------

@dataclass(frozen=True)
class Estimate:
    value: float
    se: float          # standard error
    df: float          # degrees of freedom of the standard error (games - 1)

    def interval(self, level: float = 0.95) -> tuple[float, float]:
        half = t_quantile(1.0 - level, self.df) * self.se if self.se > 0 else 0.0
        return self.value - half, self.value + half


@dataclass(frozen=True)
class Comparison:
    """b - a, Welch's t-test on it (unequal variances, Welch-Satterthwaite degrees of freedom)."""

    difference: float
    se: float
    df: float
    t: float
    p: float

    def interval(self, level: float = 0.95) -> tuple[float, float]:
        half = t_quantile(1.0 - level, self.df) * self.se if self.se > 0 else 0.0
        return self.difference - half, self.difference + half


def welch(a: Estimate, b: Estimate) -> Comparison:
    difference = b.value - a.value
    va, vb = a.se ** 2, b.se ** 2
    if va + vb == 0.0:   # no spread on either side: equal or certainly different
        return Comparison(difference, 0.0, math.inf, 0.0 if difference == 0 else math.inf,
                          1.0 if difference == 0 else 0.0)
    se = math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va ** 2 / a.df + vb ** 2 / b.df)
    t = difference / se
    return Comparison(difference, se, df, t, t_two_sided_p(abs(t), df))


# ---- accumulators ----------------------------------------------------------------------------------

@dataclass
class RatioSums:
    """Per game a pair (a, b) of integers; estimates the ratio sum(a) / sum(b): a rate over
    rounds (BAO calls / rounds), a share of games (b = 1), a mean per round."""

    games: int = 0
    a: int = 0
    b: int = 0
    aa: int = 0
    ab: int = 0
    bb: int = 0

    def add(self, a: int, b: int) -> None:
        self.games += 1
        self.a += a
        self.b += b
        self.aa += a * a
        self.ab += a * b
        self.bb += b * b

    def merge(self, other: "RatioSums") -> None:
        for name in ("games", "a", "b", "aa", "ab", "bb"):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def estimate(self) -> Estimate | None:
        if self.b == 0 or self.games < 2:
            return None
        ratio = self.a / self.b
        # linearised variance: the per-game residuals a - ratio * b sum to zero
        squares = max(self.aa - 2 * ratio * self.ab + ratio * ratio * self.bb, 0.0)
        variance = self.games / (self.games - 1) * squares / (self.b * self.b)
        return Estimate(ratio, math.sqrt(variance), self.games - 1)

    def as_json(self) -> list[int]:
        return [self.games, self.a, self.b, self.aa, self.ab, self.bb]

    @classmethod
    def from_json(cls, data: list[int]) -> "RatioSums":
        return cls(*data)


@dataclass
class HistogramSums:
    """Per game a list of integer observations (the scores of its rounds, say). Holds how often
    each value was seen and, for every pair of values, the sum over games of the product of
    their counts in a game: what the cluster variance of any mean, spread or share needs."""

    games: int = 0
    counts: Counter = field(default_factory=Counter)     # value -> observations
    pairs: Counter = field(default_factory=Counter)      # (v, w), v <= w -> sum over games of c_v * c_w

    def add(self, values: list[int]) -> None:
        self.games += 1
        tally: dict[int, int] = {}      # (a plain dict: Counter's constructor costs more on a few values)
        for value in values:
            tally[value] = tally.get(value, 0) + 1
        seen = sorted(tally.items())
        for index, (value, count) in enumerate(seen):
            self.counts[value] += count
            for other, other_count in seen[index:]:
                self.pairs[(value, other)] += count * other_count

    def merge(self, other: "HistogramSums") -> None:
        self.games += other.games
        self.counts.update(other.counts)
        self.pairs.update(other.pairs)

    @property
    def observations(self) -> int:
        return sum(self.counts.values())

    def _cluster_variance(self, h) -> float:
        """G/(G-1) * sum over games of (sum of h(v) over the game's observations)^2."""
        total = 0.0
        for (v, w), count in sorted(self.pairs.items()):   # sorted: the same float sum whatever the merge order
            total += count * h(v) * h(w) * (1 if v == w else 2)
        return self.games / (self.games - 1) * max(total, 0.0)

    def mean(self) -> Estimate | None:
        n = self.observations
        if n == 0 or self.games < 2:
            return None
        mean = sum(v * c for v, c in sorted(self.counts.items())) / n
        variance = self._cluster_variance(lambda v: v - mean) / (n * n)
        return Estimate(mean, math.sqrt(variance), self.games - 1)

    def spread(self) -> Estimate | None:
        """The standard deviation of the observations; its variance by the delta method."""
        n = self.observations
        if n == 0 or self.games < 2:
            return None
        mean = sum(v * c for v, c in sorted(self.counts.items())) / n
        square = sum((v - mean) ** 2 * c for v, c in sorted(self.counts.items())) / n
        if square == 0:
            return Estimate(0.0, 0.0, self.games - 1)
        variance = self._cluster_variance(lambda v: (v - mean) ** 2 - square) / (n * n)
        return Estimate(math.sqrt(square), math.sqrt(variance) / (2 * math.sqrt(square)), self.games - 1)

    def binned(self, bins: list[tuple[int, int]]) -> tuple[list[float], list[list[float]]]:
        """The share of observations in each bin (lo, hi inclusive) and the covariance matrix of
        those shares over games."""
        n = self.observations
        index = {}
        for number, (low, high) in enumerate(bins):
            for value in self.counts:
                if low <= value <= high:
                    index[value] = number
        k = len(bins)
        cross = [[0] * k for _ in range(k)]        # sum over games of c_gB * c_gB'
        for (v, w), count in self.pairs.items():
            b, c = index[v], index[w]
            cross[b][c] += count
            if v != w:
                cross[c][b] += count
        shares = [0.0] * k
        for value, count in sorted(self.counts.items()):
            shares[index[value]] += count / n
        row = [sum(cross[b]) for b in range(k)]    # sum over games of c_gB * n_g
        total = sum(row)                            # sum over games of n_g^2
        factor = self.games / (self.games - 1) / (n * n)
        covariance = [[factor * (cross[b][c] - shares[b] * row[c] - shares[c] * row[b] + shares[b] * shares[c] * total)
                       for c in range(k)] for b in range(k)]
        return shares, covariance

    def as_json(self) -> dict:
        return {"games": self.games, "counts": sorted(self.counts.items()),
                "pairs": [[v, w, c] for (v, w), c in sorted(self.pairs.items())]}

    @classmethod
    def from_json(cls, data: dict) -> "HistogramSums":
        return cls(data["games"], Counter({v: c for v, c in data["counts"]}),
                   Counter({(v, w): c for v, w, c in data["pairs"]}))


# ---- comparing two distributions ------------------------------------------------------------------

def common_bins(a: HistogramSums, b: HistogramSums, most: int = 20, expected: float = 5.0) -> list[tuple[int, int]]:
    """Adjacent values pooled into bins that each expect at least `expected` observations on
    both sides, and at most `most` bins."""
    pooled = a.counts + b.counts
    total = sum(pooled.values())
    smaller = min(a.observations, b.observations)
    if total == 0 or smaller == 0:
        return []
    need = max(expected * total / smaller, total / most)
    bins, low, held = [], None, 0
    for value in sorted(pooled):
        low = value if low is None else low
        held += pooled[value]
        if held >= need:
            bins.append([low, value])
            low, held = None, 0
    if low is not None:
        if bins:
            bins[-1][1] = max(pooled)
        else:
            bins.append([low, max(pooled)])
    return [tuple(b) for b in bins]


@dataclass(frozen=True)
class DistributionTest:
    """Whether two histograms differ: a Wald test on the bin shares with their game-clustered
    covariances, referred to an F distribution (a Hotelling-type correction for covariances
    estimated from a finite number of games)."""

    bins: list
    shares_a: list
    shares_b: list
    se_differences: list       # the standard error of each bin's share difference
    statistic: float           # the Wald statistic
    f: float                   # ... as an F statistic with (df1, df2) degrees of freedom
    df1: int
    df2: int
    p: float


def compare_distributions(a: HistogramSums, b: HistogramSums) -> DistributionTest | None:
    bins = common_bins(a, b)
    if len(bins) < 2 or a.games < 2 or b.games < 2:
        return None
    shares_a, cov_a = a.binned(bins)
    shares_b, cov_b = b.binned(bins)
    k = len(bins) - 1     # the last share is one minus the others
    differences = [shares_b[i] - shares_a[i] for i in range(k)]
    covariance = [[cov_a[i][j] + cov_b[i][j] for j in range(k)] for i in range(k)]
    statistic, rank = quadratic_form(covariance, differences)
    se = [math.sqrt(max(cov_a[i][i] + cov_b[i][i], 0.0)) for i in range(len(bins))]
    nu = min(a.games, b.games) - 1
    if rank == 0:
        p = 1.0 if not math.isinf(statistic) else 0.0
        return DistributionTest(bins, shares_a, shares_b, se, statistic, statistic, 0, nu, p)
    df2 = max(nu - rank + 1, 1)
    f = statistic * df2 / (nu * rank) if not math.isinf(statistic) else math.inf
    return DistributionTest(bins, shares_a, shares_b, se, statistic, f, rank, df2, f_upper_p(f, rank, df2))


def quadratic_form(matrix: list[list[float]], vector: list[float]) -> tuple[float, int]:
    """vector' matrix^-1 vector for a covariance matrix, by elimination on the largest remaining
    variance; directions without variance are left out (the rank says how many were used),
    unless the vector differs along one of them: then the form is infinite."""
    size = len(vector)
    m = [row[:] for row in matrix]
    v = vector[:]
    remaining = list(range(size))
    scale = max((m[i][i] for i in range(size)), default=0.0)
    form, rank = 0.0, 0
    while remaining:
        pivot = max(remaining, key=lambda i: m[i][i])
        if m[pivot][pivot] <= 1e-12 * scale or m[pivot][pivot] <= 0.0:
            break
        remaining.remove(pivot)
        form += v[pivot] ** 2 / m[pivot][pivot]
        rank += 1
        for i in remaining:
            factor = m[i][pivot] / m[pivot][pivot]
            v[i] -= factor * v[pivot]
            for j in remaining:
                m[i][j] -= factor * m[pivot][j]
    if any(abs(v[i]) > 1e-9 for i in remaining):
        return math.inf, rank
    return form, rank
