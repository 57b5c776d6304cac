"""DerSimonian–Laird random effects against published numbers and against statsmodels' independent
code."""

import numpy as np
import pytest
from statsmodels.stats.meta_analysis import combine_effects

from eval_harness.errors import InputError
from eval_harness.stats.meta_analysis import random_effects

# BCG vaccine trials (Colditz et al. 1994, JAMA 271: 698-702), as R metafor's `dat.bcg`: per trial
# the vaccinated TB cases, vaccinated non-cases, control cases, control non-cases.
BCG = np.array(
    [
        [4, 119, 11, 128],
        [6, 300, 29, 274],
        [3, 228, 11, 209],
        [62, 13536, 248, 12619],
        [33, 5036, 47, 5761],
        [180, 1361, 372, 1079],
        [8, 2537, 10, 619],
        [505, 87886, 499, 87892],
        [29, 7470, 45, 7232],
        [17, 1699, 65, 1600],
        [186, 50448, 141, 27197],
        [5, 2493, 3, 2338],
        [27, 16886, 29, 17825],
    ],
    dtype=float,
)


def _bcg_log_risk_ratios():
    cases_t, healthy_t, cases_c, healthy_c = BCG.T
    effects = np.log(cases_t / (cases_t + healthy_t)) - np.log(cases_c / (cases_c + healthy_c))
    variances = 1 / cases_t - 1 / (cases_t + healthy_t) + 1 / cases_c - 1 / (cases_c + healthy_c)
    return effects, variances


def test_bcg_matches_metafor_published_dersimonian_laird_fit():
    # metafor (Viechtbauer 2010, J. Stat. Softw. 36(3)): escalc(measure="RR", ...) then rma(yi, vi,
    # method="DL") prints tau^2 = 0.3088, I^2 = 92.12%, Q(df = 12) = 152.2330, estimate -0.7141, se
    # 0.1787, zval -3.9952, 95% CI [-1.0644, -0.3638].
    effects, variances = _bcg_log_risk_ratios()
    result = random_effects(effects, variances, alternative="two-sided")
    assert result.tau2 == pytest.approx(0.3088, abs=5e-5)
    assert result.i2 == pytest.approx(0.9212, abs=5e-5)
    assert result.q == pytest.approx(152.2330, abs=5e-5) and result.df == 12
    assert result.combined_effect == pytest.approx(-0.7141, abs=5e-5)
    assert result.std_err == pytest.approx(0.1787, abs=5e-5)
    assert result.z == pytest.approx(-3.9952, abs=5e-5)
    assert result.combined_effect - 1.959964 * result.std_err == pytest.approx(-1.0644, abs=5e-5)
    assert result.p_value < 1e-4 and result.p_heterogeneity < 1e-4


@pytest.mark.parametrize("spread", [0.0, 0.05, 0.5])
def test_agrees_with_statsmodels_combine_effects(spread):
    rng = np.random.default_rng(int(spread * 100))
    variances = rng.uniform(0.01, 0.2, size=30)
    effects = 0.3 + rng.normal(scale=np.sqrt(variances + spread**2))
    ours = random_effects(effects, variances)
    theirs = combine_effects(effects, variances, method_re="dl")
    frame = theirs.summary_frame()
    assert ours.q == pytest.approx(theirs.q)
    assert ours.fixed_effect == pytest.approx(frame.loc["fixed effect", "eff"])
    assert ours.fixed_std_err == pytest.approx(frame.loc["fixed effect", "sd_eff"])
    if theirs.tau2 > 0:
        assert ours.tau2 == pytest.approx(theirs.tau2) and ours.i2 == pytest.approx(theirs.i2)
        assert ours.combined_effect == pytest.approx(frame.loc["random effect", "eff"])
        assert ours.std_err == pytest.approx(frame.loc["random effect", "sd_eff"])
    else:
        # Q < df. DerSimonian & Laird (and metafor, and CEAT's code) truncate tau2 at 0, so the
        # random-effects result is the fixed-effect one; statsmodels 0.15 keeps the negative moment
        # estimate in its weights.
        assert spread == 0.0
        assert ours.tau2 == 0 and ours.i2 == 0
        assert ours.combined_effect == pytest.approx(ours.fixed_effect)
        assert ours.std_err == pytest.approx(ours.fixed_std_err)


def test_homogeneous_effects_give_zero_tau2_and_the_fixed_effect():
    result = random_effects([0.5, 0.5, 0.5], [0.1, 0.2, 0.4])
    assert result.tau2 == 0 and result.q == 0 and result.i2 == 0
    assert result.combined_effect == pytest.approx(0.5) == result.fixed_effect
    # SE = 1 / sqrt(10 + 5 + 2.5)
    assert result.std_err == pytest.approx(1 / np.sqrt(17.5))


def test_p_values_by_alternative():
    effects, variances = [0.2, 0.4, 0.3], [0.04, 0.04, 0.04]
    greater = random_effects(effects, variances, alternative="greater")
    # No heterogeneity (Q = 0.5 < df = 2): mean 0.3, SE sqrt(0.04 / 3), z = 0.3 / 0.11547 = 2.598
    assert greater.z == pytest.approx(0.3 / np.sqrt(0.04 / 3))
    assert greater.p_value == pytest.approx(0.004687, abs=1e-6)
    assert random_effects(effects, variances, alternative="less").p_value == pytest.approx(
        1 - greater.p_value
    )
    assert random_effects(effects, variances, alternative="two-sided").p_value == pytest.approx(
        2 * greater.p_value
    )


def test_clear_errors():
    with pytest.raises(InputError, match="at least 2"):
        random_effects([0.1], [0.1])
    with pytest.raises(InputError, match="one variance per effect"):
        random_effects([0.1, 0.2], [0.1])
    with pytest.raises(InputError, match="> 0"):
        random_effects([0.1, 0.2], [0.1, 0.0])
    with pytest.raises(InputError, match="finite"):
        random_effects([0.1, np.nan], [0.1, 0.1])
    with pytest.raises(InputError, match="alternative"):
        random_effects([0.1, 0.2], [0.1, 0.1], alternative="both")
