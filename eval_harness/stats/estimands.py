"""What a number pooled over seeds estimates: the estimands' one declaration.

Their formulas are in :mod:`eval_harness.stats.pooling`. This module imports nothing beyond the
standard library, so that the contract's records and the command line read it without scipy.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Estimand:
    """One estimand: its rule's name in the records, its words in a summary and a method line, the
    degrees of freedom of its t tests, its sentence."""

    pooling: str  # the rule's name in a pooled record's ``pooling`` field
    words: str  # how a summary line names it: "mean over 3 seeds"
    label: str  # how a list of the tests names it: "(mean over seeds) t tests"
    df_rule: str  # whose degrees of freedom its t tests take
    sentence: str  # what the report, xbias compare and eec_crosslingual say of a pooled number


# The estimands by name (``pool_estimates(estimand=...)``, ``xbias report --seed-estimand``). The
# records' pooling names, the outputs' sentences and every default are read from here.
ESTIMANDS = {
    "seed_mean": Estimand(
        pooling="seed_mean",
        words="mean over",
        label="mean over seeds",
        df_rule="Satterthwaite",
        sentence=(
            "each number is the mean over the seeds' trained heads; its standard error is the "
            "mean's: the sampling variance the seeds share plus the between-seed variance divided "
            "by the number of seeds, with Satterthwaite's df"
        ),
    ),
    "one_head": Estimand(
        pooling="rubin",
        words="one retrained head (Rubin's rules) from",
        label="one retrained head, Rubin's rules",
        df_rule="Barnard-Rubin",
        sentence=(
            "each number is the mean over the seeds' trained heads, tested by Rubin's rules: its "
            "standard error is what one retrained head would show (the sampling variance plus "
            "(1 + 1/m) times the between-seed variance, which more seeds do not shrink), with "
            "Barnard-Rubin df"
        ),
    ),
}
DEFAULT_ESTIMAND = "seed_mean"
