"""The EEC Beta regression row by row (statsmodels BetaModel) vs from sufficient statistics, side by
side.

1. Fit: an EEC-shaped 2 x 2 design (group x gender, 11 templates) at 10^4, 10^5 and 10^6 rows.
   - Row-wise: one statsmodels ``BetaModel`` Newton fit (``tol=1e-12``) on the prebuilt design
     matrix (the baseline the issue measured: 14.7 s at 10^6 rows on a quiet machine), plus its
     reduced fit (for the likelihood-ratio test) and the CR1 sandwich of its per-row scores (the
     tests' independent one, tests/helpers/betareg_reference.py), for the comparison of numbers
     only.
   - Ours: ``fit_intersectional`` (the whole stats-layer call: checks, the full and the reduced fit,
     effects, tests), model-based and template-clustered, from pandas categorical columns (coded, as
     the row-wise side's prebuilt design matrix is), from numpy fixed-width string arrays (compared
     level by level, no objects) and from Python lists (scores and labels: what the eec suite
     passes), each the fastest of ``REPEATS`` calls.
   Printed: seconds, the ratio row-wise fit / ours, and the largest difference of coefficients, both
   kinds of standard errors, effects and the LR statistic (relative to |loglik|: both sum n rounded
   terms).
2. Resampling: 1,000 template-bootstrap refits of one EEC x emotion unit (7 templates x 40 names x 5
   emotion
   words = 1,400 rows, template-clustered SEs), as one batched reweighting of per-block sums
   (``stability.scheme_resamples`` + ``stability.refit``), beside a loop of ``fit_intersectional``
   on the resampled rows (run 50 times, per refit).
3. ``evaluate.load("eec_bias")``: ``compute`` on the same rows, split into our part (the stats-layer
   call on the lists evaluate hands back) and evaluate's (its per-row encoding, the Arrow write and
   read-back).

Run: ``.venv/bin/python bench/betareg_aggregate.py`` (sizes 10^4-10^6) or ``--quick`` (10^4, 10^5;
about a minute on a loaded machine). Prints; asserts nothing. Runs under the thread policy of
``xbias run`` (:mod:`eval_harness.thread_policy`).

Measured at 10^6 rows (2026-12-03, the shared 2-core Xeon with AMX, nothing else running, load
average 0.6-1.0; the ratios come from the same process, and they rise with the load: the row-wise
fit slows down more than ours):

    row-wise 10.26 s    ours (model-based / clustered): categoricals 0.039 / 0.064 s (265x / 161x), numpy strings
    0.083 / 0.104 s (124x / 99x), Python lists 0.074 / 0.109 s (139x / 94x). The row-wise time is
    its fit alone: the clustered ratios also charge ours for the CR1 sandwich, which the row-wise
    side computes untimed. max |ours - row-wise|: coefficients 6.8e-14, model SEs 1.4e-16, clustered
    SEs 6.0e-15, effects 1.5e-14, effect SEs 2.9e-17, LR statistic 2.1e-14 relative to 1 + |loglik|;
    every label kind gives the same numbers (0.0). Before this round's label coding (load average
    3-4): row-wise 10.8 s, categoricals 0.067 / 0.102 s (160x / 106x), numpy strings 0.131 / 0.161 s
    (82x / 67x), lists 0.187 / 0.202 s (58x / 53x).

    1,000 template-bootstrap refits of one EEC x emotion unit (1,400 rows, 280 blocks): 0.043 s,
    against 2.6 ms a refit for fit_intersectional on the resampled rows (61x).

    evaluate.load("eec_bias").compute: 10^4 rows 0.04 s, 10^5 0.23 s, 10^6 2.62 s; ours (the
    stats-layer call on the lists evaluate hands back) 0.00, 0.01 and 0.07 s of it, evaluate's
    per-row encoding and Arrow round trip the rest (92-97 %).

Where a list's time goes (model-based fit, 10^6 rows, about 70 ms): the scores' conversion by
``array.array("d")`` (13 ms: one C pass, which also refuses strings and None; the items' types are
looked at only where a value is exactly 0 or 1, the values a boolean converts to), each label
column's object array (8 ms) and its coding by the objects' addresses (1 ms a level: a list's labels
are a few shared objects), and the fit from the rows (about 35 ms, what categoricals cost too). A
fixed-width string array is compared level by level (10 ms a level a column). Three things cost most
before: a masked ``np.add`` (5.6 ms a level), the set of the scores' types (15 ms) and comparisons
of strings on an object array (12 ms a level); and each new array of 10^6 floats costs page faults,
so the per-row terms of the sums share one buffer.
"""  # noqa: E501

import argparse
import os

from eval_harness.thread_policy import apply_thread_policy

apply_thread_policy()  # before numpy and torch load OpenMP, as `xbias run` does

import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.special import expit

from eval_harness.stats import factorial, label_coding, stability
from eval_harness.stats.beta_likelihood import Covariances
from eval_harness.stats.betareg import EFFECTS, factorial_effect_names, fit_intersectional

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the tests' CR1 sandwich

from helpers.betareg_reference import cr1_sandwich

GROUPS, GENDERS = ("European", "African-American"), ("male", "female")
TEMPLATES = 11
# our fits are timed this many times, the fastest kept (the row-wise fit once: it takes seconds)
REPEATS = 3


def eec_rows(n: int, seed: int = 0) -> dict:
    """n rows of a 2 x 2 design with template shifts: Beta scores around 0.3."""
    rng = np.random.default_rng(seed)
    group, gender, template = (
        rng.integers(0, 2, n),
        rng.integers(0, 2, n),
        rng.integers(0, TEMPLATES, n),
    )
    mu = expit(
        -0.8
        + 0.1 * group
        - 0.05 * gender
        + 0.05 * group * gender
        + rng.normal(0, 0.1, TEMPLATES)[template]
    )
    return {
        "y": rng.beta(mu * 30, (1 - mu) * 30),
        "group": np.array(GROUPS, dtype=object)[group],
        "gender": np.array(GENDERS, dtype=object)[gender],
        "template": template,
        "X": np.column_stack([np.ones(n), group, gender, group * gender]).astype(float),
    }


def timed(function, *args, **kwargs):
    start = time.perf_counter()
    result = function(*args, **kwargs)
    return result, time.perf_counter() - start


def row_wise_fit(y, X):
    from statsmodels.othermod.betareg import BetaModel

    model = BetaModel(y, X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return model, model.fit(method="newton", cov_type="eim", maxiter=100, tol=1e-12, disp=False)


def compare_fit(n: int) -> None:
    rows = eec_rows(n)
    (model, fitted), row_seconds = timed(row_wise_fit, rows["y"], rows["X"])
    _, reduced = row_wise_fit(rows["y"], rows["X"][:, :3])
    params = np.asarray(fitted.params)
    scores, hessian = model.score_obs(params), model.hessian(params, observed=True)
    clustered_cov = cr1_sandwich(scores, hessian, rows["template"])
    columns = {
        "categoricals": (rows["y"], pd.Categorical(rows["group"]), pd.Categorical(rows["gender"])),
        "numpy strings": (rows["y"], rows["group"].astype(str), rows["gender"].astype(str)),
        "lists": (rows["y"].tolist(), rows["group"].tolist(), rows["gender"].tolist()),
    }
    seconds, results = {}, {}
    for source, (y, group, gender) in columns.items():
        for cov_type in ("model", "cluster"):
            options = (
                {"cov_type": "cluster", "clusters": {"template_id": rows["template"]}}
                if cov_type == "cluster"
                else {}
            )
            runs = [
                timed(fit_intersectional, y, group, gender, "European", "male", **options)
                for _ in range(REPEATS)
            ]
            results[source, cov_type], seconds[source, cov_type] = min(runs, key=lambda run: run[1])
    ours, clustered = results["lists", "model"], results["lists", "cluster"]
    # Effects from the row-wise parameters with the same weights (the delta method on its
    # covariance).
    design = factorial.FactorialDesign.up_to_order(
        (label_coding.Factor("group", GROUPS), label_coding.Factor("gender", GENDERS)), 2
    )
    counts = np.bincount(
        design.cell_of([rows["X"][:, 1].astype(int), rows["X"][:, 2].astype(int)]), minlength=4
    )
    specs = {spec.name: spec for spec in factorial.effect_specs(design, counts / n)}
    names = factorial_effect_names(GROUPS, GENDERS)
    weights = np.stack([specs[names[name]].weights for name in EFFECTS])
    row_cov = np.asarray(fitted.cov_params())[None]
    row_effects, row_effect_se, _ = factorial.effect_values(
        weights,
        params[None],
        Covariances(row_cov, row_cov, np.empty((1, 0, *row_cov.shape[1:]))),
        design.mean_design,
    )
    differences = {
        "coefficients": np.max(
            np.abs(np.array([c.estimate for c in ours.coefficients]) - params[:4])
        ),
        "model SEs": np.max(
            np.abs(np.sqrt(np.diag(ours.covariance)) - np.sqrt(np.diag(fitted.cov_params())))
        ),
        "clustered SEs": np.max(
            np.abs(np.sqrt(np.diag(clustered.covariance)) - np.sqrt(np.diag(clustered_cov)))
        ),
        "effects": np.max(np.abs(np.array([e.estimate for e in ours.effects]) - row_effects[0])),
        "effect SEs": np.max(
            np.abs(np.array([e.std_err for e in ours.effects]) - row_effect_se[0])
        ),
        "LR / (1 + |loglik|)": abs(
            ours.intersection_lr_test.statistic - 2 * (fitted.llf - reduced.llf)
        )
        / (1 + abs(fitted.llf)),
    }
    between_sources = max(
        abs(a.estimate - b.estimate) + abs(a.std_err - b.std_err)
        for source, cov_type in results
        for a, b in zip(
            results[source, cov_type].effects, results["lists", cov_type].effects, strict=True
        )
    )
    print(f"\n{n:>9,} rows: row-wise BetaModel fit {row_seconds:8.3f} s")
    for (source, cov_type), value in seconds.items():
        print(
            f"           ours from {source:<13} {cov_type:<7} "
            f"{value:8.3f} s   ratio {row_seconds / value:7.1f}x"
        )
    print(
        "           max |ours - row-wise|: "
        + ", ".join(f"{k} {v:.1e}" for k, v in differences.items())
    )
    print(f"           max |effect or SE from one label kind - from lists|: {between_sources:.1e}")


def eec_unit(seed: int = 1) -> dict:
    """One EEC x emotion unit: 7 templates x 40 persons (10 a cell) x 5 emotion words."""
    rng = np.random.default_rng(seed)
    person = np.tile(np.arange(40), 7 * 5)
    template = np.repeat(np.tile(np.arange(7), 5), 40)
    group, gender = (person // 10) // 2, (person // 10) % 2
    mu = expit(
        -0.8 + 0.1 * group + rng.normal(0, 0.1, 7)[template] + rng.normal(0, 0.05, 40)[person]
    )
    return {
        "y": rng.beta(mu * 30, (1 - mu) * 30),
        "group": np.array(GROUPS, dtype=object)[group].tolist(),
        "gender": np.array(GENDERS, dtype=object)[gender].tolist(),
        "template": template,
        "person": person,
    }


def compare_bootstrap(refits: int = 1000, naive_refits: int = 50) -> None:
    unit = eec_unit()
    rows = label_coding.prepare_rows(
        unit["y"],
        {"group": unit["group"], "gender": unit["gender"]},
        {"group": "European", "gender": "male"},
        groupings={"template_id": unit["template"], "person": unit["person"]},
    )
    design = factorial.FactorialDesign.up_to_order(rows.factors, 2)
    fit = factorial.fit_design(rows, design, "cluster", ("template_id",), None)
    labels = rows.group_labels["template_id"]

    def ours():
        resamples = stability.scheme_resamples(
            "template_bootstrap",
            fit.blocks,
            ("template_id",),
            labels,
            np.random.default_rng(0),
            refits,
        )
        return stability.refit(fit, resamples)

    ours()  # warm the caches once
    result, seconds = timed(ours)

    def naive():
        rng = np.random.default_rng(0)
        for _ in range(naive_refits):
            drawn = rng.integers(0, 7, 7)
            picked = np.concatenate([np.flatnonzero(unit["template"] == t) for t in drawn])
            copy = np.concatenate(
                [np.full(np.sum(unit["template"] == t), k) for k, t in enumerate(drawn)]
            )
            group, gender = (
                np.asarray(unit[name], dtype=object)[picked] for name in ("group", "gender")
            )
            fit_intersectional(
                unit["y"][picked],
                group,
                gender,
                "European",
                "male",
                cov_type="cluster",
                clusters={"template_id": copy},
            )

    _, naive_seconds = timed(naive)
    per_naive = naive_seconds / naive_refits
    print(
        f"\n{refits:,} template-bootstrap refits of one EEC x emotion unit ({len(unit['y'])} "
        f"rows, {len(fit.blocks.cell)} blocks, template-clustered): {seconds:.3f} s "
        f"({result.ok.mean():.0%} converged); a loop of fit_intersectional on the resampled "
        f"rows: {per_naive * 1000:.1f} ms a refit, {per_naive * refits:.1f} s for {refits:,} "
        f"(ratio {per_naive * refits / seconds:.0f}x)"
    )


def compare_evaluate(n: int) -> None:
    import evaluate

    metric = evaluate.load(
        str(Path(__file__).resolve().parents[1] / "metrics" / "eec_bias" / "eec_bias.py")
    )
    rows = eec_rows(n, seed=2)
    y, group, gender = rows["y"].tolist(), rows["group"].tolist(), rows["gender"].tolist()
    _, total = timed(metric.compute, predictions=y, group=group, gender=gender)
    _, ours = timed(fit_intersectional, y, group, gender, "European", "male")
    print(
        f"\nevaluate.load('eec_bias').compute on {n:,} rows: {total:.2f} s, "
        "of which ours (the stats-layer call on the lists evaluate hands "
        f"back) {ours:.2f} s and evaluate's (per-row encoding, Arrow write "
        f"and read-back) {total - ours:.2f} s ({(total - ours) / total:.0%})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="10^4 and 10^5 rows only")
    args = parser.parse_args()
    sizes = (10_000, 100_000) if args.quick else (10_000, 100_000, 1_000_000)
    compare_fit(2_000)  # warm imports and caches
    print(f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)")
    for n in sizes:
        compare_fit(n)
    compare_bootstrap()
    for n in sizes:
        compare_evaluate(n)


if __name__ == "__main__":
    main()
