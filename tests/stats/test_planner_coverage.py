"""The power planner's 80 % interval in simulation (issue 46): from a whole EEC and from a ``sample:
4`` run of it, the interval the planner prints for the whole EEC's MDE holds the true MDE (the MDE
of the simulated components on the whole EEC) at least 0.75 of the time, its point prediction's
median is the true MDE within 0.8 to 1.25, and a sample's sigma2_TN averages to the truth within 25
%. The designs are the issue's: the shipped EECs' layout (7 templates, 10 names x 5 words per cell),
sigma2_TN = 1e-4, sigma2_T 3 times (template-dominated) or a third (noise-dominated) of the whole
EEC's noise share; the residual, names' and words' variances make the sample's noise share about 10
times the whole EEC's (tests/helpers/planner_simulation.py; bench/planner_coverage.py prints the
same table, before and after). Slow: 2 x 1,000 whole EECs and 2 x 4,000 samples (about 60 s of
CPU)."""

import math

import numpy as np
import pytest
from helpers.planner_simulation import Truth, predictions

from eval_harness.stats.design_power import LEVEL

pytestmark = pytest.mark.slow

NAME_TEMPLATE_VAR, ERROR_VAR, NAME_VAR, WORD_VAR = 1e-4, 6e-4, 4e-4, 2.25e-4
TEMPLATE_VARS = {"template-dominated": 7.2e-5, "noise-dominated": 8e-6}
REPLICATES = {"whole EEC": 1000, "sample: 4": 4000}


@pytest.fixture(scope="module")
def simulated():
    """(design, layout) -> the planner's predictions of the whole EEC's MDE over the replicates."""
    found = {}
    for design, template_var in TEMPLATE_VARS.items():
        truth = Truth(template_var, NAME_TEMPLATE_VAR, ERROR_VAR, NAME_VAR, WORD_VAR)
        for seed, (layout, replicates) in enumerate(REPLICATES.items()):
            found[design, layout] = predictions(
                truth, replicates, 4 if layout == "sample: 4" else None, seed
            )
    return found


@pytest.mark.parametrize("design", TEMPLATE_VARS)
@pytest.mark.parametrize("layout", REPLICATES)
def test_the_printed_interval_holds_the_true_whole_eec_mde(simulated, design, layout):
    """At least 0.75 of the replicates (the issue's bar; before: 0.56 and 0.46 from a sample), and
    no more than LEVEL plus three binomial standard errors and 0.1 (an interval of a difference of
    chi-squares is close to its level, not exact: not a wide interval that says nothing)."""
    covered = simulated[design, layout].covered
    assert 0.75 <= covered.mean() <= LEVEL + 3 * math.sqrt(LEVEL * (1 - LEVEL) / len(covered)) + 0.1


@pytest.mark.parametrize("design", TEMPLATE_VARS)
@pytest.mark.parametrize("layout", REPLICATES)
def test_the_median_prediction_is_the_true_mde(simulated, design, layout):
    """The median of predicted over true MDE lies within 0.8 to 1.25 (before: 1.12 and 1.80 from a
    sample)."""
    assert 0.8 <= np.median(simulated[design, layout].ratio) <= 1.25


def test_a_samples_name_template_variance_averages_to_the_truth(simulated):
    """Over the 8,000 samples (the two designs share sigma2_TN), the mean of sigma2_TN where the
    sample measures it (a name drawn twice in a template, and a residual df left beside the template
    x name terms: about 60 % of them) is within 25 % of the truth, and within three Monte-Carlo
    standard errors of it (before, truncated at 0: about 3 times the truth)."""
    estimates = np.concatenate(
        [simulated[design, "sample: 4"].name_template_var for design in TEMPLATE_VARS]
    )
    measured = estimates[~np.isnan(estimates)]
    assert len(measured) > 0.4 * len(estimates)
    assert measured.mean() == pytest.approx(NAME_TEMPLATE_VAR, rel=0.25)
    assert measured.mean() == pytest.approx(
        NAME_TEMPLATE_VAR, abs=3 * measured.std() / math.sqrt(len(measured))
    )
