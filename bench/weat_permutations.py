"""WEAT permutation test: a per-permutation loop in the style of the XWEAT reference code vs
eval_harness.

Both sides start from the same random vectors and the same seed, in one process. The baseline works
like XWEAT's ``weat_p_value_precomputed_sims``: similarities are precomputed once, then for every
sampled partition (X_i, Y_i) it recomputes the differential association word by word in Python
(``sum_x mean_a sim - mean_b sim`` ...). Ours computes each word's association once and treats a
re-partition as a subset sum, vectorised over blocks of partitions (eval_harness.stats.weat).

Cases: a 25 + 25 Monte-Carlo test (the baseline gets fewer partitions because it is slow; compared
per partition) and an 8 + 8 exact test (all C(16, 8) = 12,870 partitions on both sides).
Run: ``.venv/bin/python bench/weat_permutations.py`` (prints; asserts nothing).
"""

import itertools
import math
import random
import time

from eval_harness.thread_policy import apply_thread_policy

apply_thread_policy()  # before torch loads OpenMP, as `xbias run` does

import numpy as np

from eval_harness.stats.weat import similarity_matrix, weat

SEED = 0
BASELINE_DRAWS = 2_000
OUR_DRAWS = 1_000_000


def reference_style_p_value(x, y, a, b, draws=None, seed=SEED):
    """XWEAT-style: precomputed cosine matrix, then a Python loop recomputing T for every partition.

    ``draws=None`` enumerates every partition (exact); otherwise ``draws`` partitions are sampled
    with ``random.sample`` (with replacement across draws, as eval_harness samples), p = (k + 1) /
    (n + 1).
    """
    vectors = np.vstack([x, y, a, b])
    sims = similarity_matrix(vectors, vectors)
    n_x, n_y, n_a = len(x), len(y), len(a)
    targets = list(range(n_x + n_y))
    attributes_a = list(range(n_x + n_y, n_x + n_y + n_a))
    attributes_b = list(range(n_x + n_y + n_a, len(vectors)))

    def association(w):
        return np.mean([sims[w, i] for i in attributes_a]) - np.mean(
            [sims[w, j] for j in attributes_b]
        )

    def differential_association(first, second):
        return np.sum([association(w) for w in first]) - np.sum([association(w) for w in second])

    observed = differential_association(targets[:n_x], targets[n_x:])
    if draws is None:
        partitions = itertools.combinations(targets, n_x)
    else:
        rng = random.Random(seed)
        partitions = (rng.sample(targets, n_x) for _ in range(draws))
    statistics = []
    for first in partitions:
        chosen = set(first)
        second = [w for w in targets if w not in chosen]
        statistics.append(differential_association(first, second))
    extreme = sum(statistic >= observed - 1e-12 for statistic in statistics)
    if draws is None:
        return extreme / len(statistics), len(statistics)
    return (extreme + 1) / (draws + 1), draws


def timed(function, *args, **kwargs):
    start = time.perf_counter()
    value = function(*args, **kwargs)
    return value, time.perf_counter() - start


def main():
    rng = np.random.default_rng(SEED)
    dim = 50
    shift = rng.normal(size=dim) * 0.15

    # 25 + 25, Monte Carlo.
    x, y, a, b = (rng.normal(size=(25, dim)) for _ in range(4))
    x = x + shift
    a = a + shift
    (p_base, n_base), t_base = timed(reference_style_p_value, x, y, a, b, draws=BASELINE_DRAWS)
    ours, t_ours = timed(weat, x, y, a, b, permutations=OUR_DRAWS, seed=SEED)
    per_base, per_ours = t_base / n_base, t_ours / ours.n_permutations
    print(f"25+25 Monte Carlo (C(50,25) = {math.comb(50, 25):.3g} partitions), seed {SEED}")
    print(
        f"  XWEAT-style loop : {n_base:>9,} partitions {t_base:8.3f} "
        f"s  {per_base * 1e6:10.3f} us/partition  p={p_base:.4f}"
    )
    print(
        f"  eval_harness     : {ours.n_permutations:>9,} partitions {t_ours:8.3f} s"
        f"  {per_ours * 1e6:10.3f} us/partition"
        f"  p={ours.p_value:.4f} (MC s.e. {ours.mc_std_err:.4f})"
    )
    print(f"  speed-up per partition: {per_base / per_ours:,.0f}x  (target >= 1000x)")
    print(
        f"  time for 1e6 partitions: XWEAT-style ~{per_base * 1e6:,.0f} "
        f"s (extrapolated) vs {per_ours * 1e6:.2f} s"
    )

    # 8 + 8, exact.
    x, y, a, b = (rng.normal(size=(8, dim)) for _ in range(4))
    x = x + shift
    a = a + shift
    (p_base, n_base), t_base = timed(reference_style_p_value, x, y, a, b)
    ours, t_ours = timed(weat, x, y, a, b)
    print(f"8+8 exact ({n_base:,} partitions)")
    print(f"  XWEAT-style loop : {t_base:8.3f} s  p={p_base:.6f}")
    print(f"  eval_harness     : {t_ours:8.4f} s  p={ours.p_value:.6f} ({ours.p_value_method})")
    print(f"  speed-up: {t_base / t_ours:,.0f}x  (same p: {math.isclose(p_base, ours.p_value)})")


if __name__ == "__main__":
    main()
