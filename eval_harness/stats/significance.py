"""Significance stars, the paper's way of marking a p-value (Câmara et al. 2022, Tables 3-5).

A module of its own, with no import beyond the standard library: the runner's summary table, the
seed pooling of records and the report print stars, and none of them should load statsmodels (as
:mod:`.betareg` does) to do so.
"""

# (largest p-value, stars), strictest first
STAR_THRESHOLDS = ((0.01, "***"), (0.05, "**"), (0.10, "*"))


def significance_stars(p_value: float) -> str:
    """The paper's stars: ``***`` p <= 0.01, ``**`` p <= 0.05, ``*`` p <= 0.10, else ``""``.

    Examples
    --------
    >>> from eval_harness.stats.significance import significance_stars
    >>> [significance_stars(p) for p in (0.004, 0.03, 0.08, 0.2)]
    ['***', '**', '*', '']
    """
    for threshold, stars in STAR_THRESHOLDS:
        if p_value <= threshold:
            return stars
    return ""
