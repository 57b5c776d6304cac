"""The difference of two WEAT effect sizes over the same target words (two models, two revisions): a
paired test.

Each model ``m`` gives every target word ``w`` of ``X u Y`` its association ``s_m(w) = s(w, A, B)``
(with its own attribute vectors, held fixed here), and WEAT's effect size (population SD,
``ddof=0``, as :mod:`.weat`)::

    d_m = (mean_X s_m - mean_Y s_m) / sd_(X u Y)(s_m) = mean_X z_m - mean_Y z_m,
    z_m(w) = (s_m(w) - mean_(X u Y) s_m) / sd_(X u Y)(s_m)

so the difference is ``delta = d_B - d_A``.

Test (paired swaps, two-sided): under the null that each word's two standardised associations
``(z_A(w), z_B(w))`` are exchangeable between the models, swapping them for any subset of words
leaves the distribution of ``delta`` unchanged. For a swap vector ``e`` the statistic is recomputed
from the swapped vectors,
``delta(e) = d(z_B^e) - d(z_A^e)`` (each re-standardised: a swap changes their means and spreads;
the linear shortcut ``mean_X D - mean_Y D`` with ``D = z_B - z_A`` ignores that and rejects about
half as often as it should at large effects). ``p`` is the share of swap vectors with ``|delta(e)|
>= |delta|`` (ties within a relative ``1e-9`` count), exact over all ``2^n`` vectors when ``2^n <=
exact_limit``, else Monte Carlo with
``p = (k + 1) / (permutations + 1)`` (:mod:`.weat`'s conventions).

Interval: a paired percentile bootstrap, resampling the words within X and within Y (the same draw
for both
models: :func:`.weat.bootstrap_resamples`), each model's ``d*`` recomputed from its raw
associations; ``std_err`` is the SD (``ddof=1``) of ``delta*``, and ``mde`` the smallest difference
a z test with that standard error detects with 80 % power
(:func:`.power.minimum_detectable_effect`), a normal approximation.
"""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from .power import minimum_detectable_effect
from .results import Result
from .weat import DEFAULT_EXACT_LIMIT, TIE_TOLERANCE, bootstrap_resamples, effect_size

DEFAULT_SIGN_FLIPS = 100_000
DEFAULT_BOOTSTRAP = 10_000
_BLOCK = 1 << 14


@dataclass(frozen=True)
class PairedEffectSizeDifference(Result):
    """Result of :func:`paired_effect_size_difference` (module docstring): ``estimate = effect_b -
    effect_a``, the paired-swap ``p_value`` (``method`` ``"exact"`` over ``n_flips`` swap vectors or
    ``"monte_carlo"`` with ``p_value_std_err``), the bootstrap ``ci_low``/``ci_high``/``std_err``
    (``n_bootstrap``, ``n_undefined`` replicates with a zero spread left out) and ``mde`` (None when
    the bootstrap SE is 0: the models agree on every word); ``n_x``/``n_y`` the paired target
    words."""

    effect_a: float
    effect_b: float
    estimate: float
    p_value: float
    method: str
    n_flips: int
    p_value_std_err: float | None
    ci_low: float
    ci_high: float
    std_err: float
    mde: float | None
    n_bootstrap: int
    n_undefined: int
    n_x: int
    n_y: int


def _standardised(s: np.ndarray) -> np.ndarray:
    return (s - s.mean()) / s.std()


def _swapped_differences(
    z_a: np.ndarray, z_b: np.ndarray, swaps: np.ndarray, n_x: int
) -> np.ndarray:
    """``|d(z_B^e) - d(z_A^e)|`` for each row ``e`` of the boolean ``swaps`` (module docstring)."""
    a, b = np.where(swaps, z_b, z_a), np.where(swaps, z_a, z_b)
    return np.abs(_effect_sizes(b[:, :n_x], b[:, n_x:]) - _effect_sizes(a[:, :n_x], a[:, n_x:]))


def swap_test(
    z_a: np.ndarray,
    z_b: np.ndarray,
    n_x: int,
    permutations: int,
    exact_limit: int,
    rng: np.random.Generator,
) -> tuple[float, str, int, float | None]:
    """Two-sided paired-swap p-value of ``d_B - d_A`` (module docstring).

    Returns ``(p, method, swaps, its MC SE)``.

    Examples
    --------
    >>> import numpy as np
    >>> from eval_harness.stats.paired_weat import swap_test
    >>> z_a = np.array([0.2, 0.3, 0.25, 0.1, 0.0, 0.15])  # model A: X's words, then Y's
    >>> z_b = np.array([0.4, 0.5, 0.35, 0.0, -0.1, 0.05])
    >>> rng = np.random.default_rng(0)
    >>> p, method, swaps, mc_std_err = swap_test(z_a, z_b, 3, 10_000, 10_000, rng)
    >>> round(p, 4), method, swaps, mc_std_err
    (0.3438, 'exact', 64, None)
    """
    n = len(z_a)
    observed = float(_swapped_differences(z_a, z_b, np.zeros((1, n), dtype=bool), n_x)[0])
    threshold = observed - TIE_TOLERANCE * max(observed, 1.0)
    if 2**n <= exact_limit:
        extreme = 0
        bits = np.arange(n)
        for start in range(0, 2**n, _BLOCK):
            codes = np.arange(start, min(start + _BLOCK, 2**n))
            swaps = ((codes[:, None] >> bits) & 1).astype(bool)
            extreme += int(
                np.count_nonzero(_swapped_differences(z_a, z_b, swaps, n_x) >= threshold)
            )
        return extreme / 2**n, "exact", 2**n, None
    extreme = 0
    for start in range(0, permutations, _BLOCK):
        swaps = rng.random((min(_BLOCK, permutations - start), n)) < 0.5
        extreme += int(np.count_nonzero(_swapped_differences(z_a, z_b, swaps, n_x) >= threshold))
    p_value = (extreme + 1) / (permutations + 1)
    return (
        p_value,
        "monte_carlo",
        permutations,
        float(np.sqrt(p_value * (1 - p_value) / permutations)),
    )


def paired_effect_size_difference(
    a_x: Sequence[float],
    a_y: Sequence[float],
    b_x: Sequence[float],
    b_y: Sequence[float],
    *,
    permutations: int = DEFAULT_SIGN_FLIPS,
    exact_limit: int = DEFAULT_EXACT_LIMIT,
    n_bootstrap: int = DEFAULT_BOOTSTRAP,
    seed: int | None = 0,
) -> PairedEffectSizeDifference:
    """The paired difference ``d_B - d_A`` of the module docstring. ``a_x[i]`` and ``b_x[i]`` are
    the associations of the same word of X under models A and B (likewise Y).

    Raises:
        InputError: sets of different lengths between the models, an empty set, non-finite values, a
            model whose associations do not vary (no effect size), or bad counts.

    Examples
    --------
    >>> from eval_harness.stats.paired_weat import paired_effect_size_difference
    >>> d = paired_effect_size_difference(
    ...     a_x=[0.2, 0.3, 0.25], a_y=[0.1, 0.0, 0.15], b_x=[0.4, 0.5, 0.35], b_y=[0.0, -0.1, 0.05],
    ...     n_bootstrap=200)
    >>> round(d.effect_a, 3), round(d.effect_b, 3), round(d.estimate, 3)
    (1.69, 1.922, 0.232)
    >>> round(d.p_value, 3), d.method
    (0.094, 'exact')
    """
    arrays = [np.asarray(values, dtype=np.float64) for values in (a_x, a_y, b_x, b_y)]
    if (
        any(array.ndim != 1 for array in arrays)
        or len(arrays[0]) != len(arrays[2])
        or len(arrays[1]) != len(arrays[3])
    ):
        raise InputError(
            "the two models need associations of the same target words: X has "
            f"{len(arrays[0])} and {len(arrays[2])}, Y {len(arrays[1])} and {len(arrays[3])}"
        )
    if not len(arrays[0]) or not len(arrays[1]):
        raise InputError("need at least one target word in X and in Y found by both models")
    if not all(np.isfinite(array).all() for array in arrays):
        raise InputError("the associations contain NaN or inf")
    for name, value in (
        ("permutations", permutations),
        ("n_bootstrap", n_bootstrap),
        ("exact_limit", exact_limit),
    ):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
            raise InputError(f"{name} must be a whole number >= 1, got {value!r}")
    a_x, a_y, b_x, b_y = arrays
    effect_a, effect_b = effect_size(a_x, a_y), effect_size(b_x, b_y)
    n_x, n_y = len(a_x), len(a_y)
    z_a, z_b = _standardised(np.concatenate([a_x, a_y])), _standardised(np.concatenate([b_x, b_y]))
    sequence = np.random.SeedSequence(seed)
    flips_seed, bootstrap_seed = sequence.spawn(2)
    p_value, method, n_flips, p_std_err = swap_test(
        z_a, z_b, n_x, int(permutations), int(exact_limit), np.random.default_rng(flips_seed)
    )
    replicates = []
    for x_index, y_index in bootstrap_resamples((n_x, n_y), int(n_bootstrap), bootstrap_seed):
        replicates.append(
            _effect_sizes(b_x[x_index], b_y[y_index]) - _effect_sizes(a_x[x_index], a_y[y_index])
        )
    replicates = np.concatenate(replicates)
    defined = replicates[np.isfinite(replicates)]
    if len(defined) < 2:
        raise InputError("the bootstrap has fewer than 2 defined replicates: too few target words")
    std_err = float(defined.std(ddof=1))
    low, high = np.quantile(defined, [0.025, 0.975])
    return PairedEffectSizeDifference(
        effect_a=effect_a,
        effect_b=effect_b,
        estimate=effect_b - effect_a,
        p_value=float(p_value),
        method=method,
        n_flips=n_flips,
        p_value_std_err=p_std_err,
        ci_low=float(low),
        ci_high=float(high),
        std_err=std_err,
        mde=minimum_detectable_effect(std_err) if std_err > 0 else None,
        n_bootstrap=int(n_bootstrap),
        n_undefined=int(len(replicates) - len(defined)),
        n_x=n_x,
        n_y=n_y,
    )


def _effect_sizes(s_x: np.ndarray, s_y: np.ndarray) -> np.ndarray:
    """Effect sizes of resampled rows ``(R, n_x)`` and ``(R, n_y)``; NaN where the resample's spread
    is 0."""
    pooled = np.concatenate([s_x, s_y], axis=1)
    spread = pooled.std(axis=1)
    defined = spread > 1e-12 * np.abs(pooled).max(axis=1)
    return np.where(
        defined, (s_x.mean(axis=1) - s_y.mean(axis=1)) / np.where(defined, spread, 1.0), np.nan
    )
