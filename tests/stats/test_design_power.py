"""The power planner (stats/design_power.py): its variance components against simulated truth, the
measured design's variance against the clustered estimator's own, its search against a scan, and in
simulation that a design it says reaches delta detects delta with 80 % power."""

import math

import numpy as np
import pytest
from scipy import stats
from threadpoolctl import threadpool_limits

from eval_harness.errors import InputError
from eval_harness.stats.design_power import (
    EFFECT_WEIGHTS,
    REFUTING_ALPHA,
    Design,
    VarianceComponents,
    additive_fit,
    adjusted_template_var,
    current_design,
    design_mde,
    design_variance,
    noise_scale,
    smallest_design,
    variance_components,
)

TEMPLATE_SD, WITHIN_SD = 0.03, 0.08
MEANS = {(0, 0): 0.40, (1, 0): 0.40, (0, 1): 0.45, (1, 1): 0.46}


def simulated_eec(rng, templates: int, per_cell: int, effect: float = 0.0):
    """Rows of an EEC: every template x (minority, female) cell with ``per_cell`` sentences; each
    template shifts each cell by its own N(0, TEMPLATE_SD^2 / 2) (so a two-cell contrast's template
    spread is TEMPLATE_SD^2) and each sentence by N(0, WITHIN_SD^2); ``effect`` is added to the
    (1, 0) cell (the group effect among men)."""
    t, m, f = np.meshgrid(np.arange(templates), [0, 1], [0, 1], indexing="ij")
    t, m, f = (np.repeat(a.ravel(), per_cell) for a in (t, m, f))
    cell_shift = rng.normal(0, TEMPLATE_SD / math.sqrt(2), (templates, 2, 2))[t, m, f]
    mean = np.array([MEANS[int(a), int(b)] for a, b in zip(m, f, strict=True)]) + effect * (
        (m == 1) & (f == 0)
    )
    return mean + cell_shift + rng.normal(0, WITHIN_SD, t.size), t, m, f


def clustered_test(y, t, m, f, effect: str = "group_within_reference_gender"):
    """The template-clustered test of a contrast computed here: per template the contrast of its
    cell means, then their mean, SD / sqrt(T) and a two-sided t test on T - 1 df. Returns (estimate,
    std_err, p). The rows are :func:`simulated_eec`'s, in template x minority x female x sentence
    order."""
    weights = EFFECT_WEIGHTS[effect](f.mean(), m.mean())
    cell_means = y.reshape(len(np.unique(t)), 2, 2, -1).mean(-1)
    per_template = sum(w * cell_means[:, c[0], c[1]] for c, w in weights.items())
    estimate, std_err = (
        np.mean(per_template),
        np.std(per_template, ddof=1) / math.sqrt(len(per_template)),
    )
    return estimate, std_err, 2 * stats.t.sf(abs(estimate / std_err), len(per_template) - 1)


def test_components_recover_the_simulated_variances():
    """Over 300 simulated EECs (40 templates x 20 sentences: the spread rarely falls below the
    noise, where the estimate is clipped at 0) the mean estimated within variance and template
    variance of a two-cell contrast are the simulated ones, within three Monte-Carlo standard
    errors."""
    rng = np.random.default_rng(0)
    found = [
        variance_components(*simulated_eec(rng, 40, 20), "group_within_reference_gender")
        for _ in range(300)
    ]
    within = np.array([c.within_var for c in found])
    template = np.array([c.template_var for c in found])
    assert within.mean() == pytest.approx(
        WITHIN_SD**2, abs=3 * within.std() / math.sqrt(len(found))
    )
    assert template.mean() == pytest.approx(
        TEMPLATE_SD**2, abs=3 * template.std() / math.sqrt(len(found))
    )
    assert (
        found[0].weight_square_sum == 2
        and found[0].templates == 40
        and found[0].per_cell == pytest.approx(20)
    )


@pytest.mark.parametrize("effect", list(EFFECT_WEIGHTS))
def test_measured_design_variance_is_the_clustered_estimators(effect):
    """On the design it was measured on (template spread above the cells' noise, so nothing is
    clipped), the planner's variance is the clustered estimator's squared standard error, and its df
    T - 1."""
    rng = np.random.default_rng(1)
    y, t, m, f = simulated_eec(rng, 9, 30)
    components = variance_components(y, t, m, f, effect)
    assert components.template_var > 0
    _, std_err, _ = clustered_test(y, t, m, f, effect)
    variance, df = design_variance(components, current_design(components))
    assert variance == pytest.approx(std_err**2, rel=1e-9)
    assert df == 8


def test_smallest_design_is_the_first_of_a_scan():
    components = VarianceComponents(4e-4, 6.4e-3, 2.0, templates=7, per_cell=4)
    start = current_design(components).__dict__
    for vary, counts, target in (
        ("templates", range(2, 400), 0.02),
        ("per_cell", range(1, 400), 0.03),
    ):
        found = smallest_design(components, target, vary)
        scan = next(
            n for n in counts if design_mde(components, Design(**{**start, vary: n})) <= target
        )
        assert getattr(found, vary) == scan


def test_more_names_alone_cannot_pass_the_template_floor():
    """The floor sigma2_T / T with 7 templates: t_6's delta* x 0.02 / sqrt(7) = 0.0254 is above
    0.02."""
    components = VarianceComponents(4e-4, 6.4e-3, 2.0, templates=7, per_cell=4)
    assert smallest_design(components, 0.02, "per_cell") is None
    assert smallest_design(components, 0.03, "per_cell").per_cell > 4


def test_seeds_add_their_variance_over_m_with_satterthwaite_df():
    components = VarianceComponents(
        4e-4, 6.4e-3, 2.0, templates=7, per_cell=4, seed_var=1e-4, seeds=3
    )
    a, b = (4e-4 + 2 * 6.4e-3 / 4) / 7, 1e-4 / 3
    variance, df = design_variance(components, current_design(components))
    assert variance == pytest.approx(a + b, rel=1e-12)
    assert df == pytest.approx((a + b) ** 2 / (a**2 / 6 + b**2 / 2), rel=1e-12)
    more_seeds = smallest_design(components, 0.02, "seeds")
    assert more_seeds is None or more_seeds.seeds > 3


def test_a_design_the_planner_says_reaches_delta_detects_delta_with_80_percent_power():
    """From a pilot of 200 templates x 4 sentences (long, so that its components are near the
    truth), the smallest number of templates whose MDE is 0.02; 1,000 EECs of that design with a
    true effect of 0.02 are found significant at 5 % by the clustered test in 80 % of them, within
    three binomial standard errors (0.038) and the rounding up to whole templates."""
    rng = np.random.default_rng(2)
    pilot = variance_components(*simulated_eec(rng, 200, 4), "group_within_reference_gender")
    design = smallest_design(pilot, 0.02, "templates")
    assert 7 < design.templates < 200
    truth = VarianceComponents(TEMPLATE_SD**2, WITHIN_SD**2, 2.0, design.templates, design.per_cell)
    planned = design_mde(truth, current_design(truth))
    n = 1000
    rejected = np.mean(
        [
            clustered_test(*simulated_eec(rng, design.templates, 4, effect=0.02))[2] <= 0.05
            for _ in range(n)
        ]
    )
    assert planned == pytest.approx(
        0.02, rel=0.1
    )  # the pilot's components are the truth's, near enough
    # 3 binomial SEs, plus the rounding up to a whole number of templates (power a little above 80
    # %)
    assert rejected == pytest.approx(0.80, abs=3 * math.sqrt(0.8 * 0.2 / n) + 0.02)


def test_bad_planner_inputs_are_one_line_errors():
    components = VarianceComponents(4e-4, 6.4e-3, 2.0, templates=7, per_cell=4)
    with pytest.raises(InputError, match="target MDE must be a finite number > 0"):
        smallest_design(components, 0.0, "templates")
    with pytest.raises(InputError, match="vary must be one of"):
        smallest_design(components, 0.01, "names")
    with pytest.raises(InputError, match="unknown effect"):
        variance_components([0.1, 0.2], [1, 2], [0, 1], [0, 1], "gap")
    with pytest.raises(InputError, match=">= 2 templates with every cell"):
        variance_components([0.1, 0.2], [1, 2], [0, 1], [0, 1], "group_ame")


NAME_SD, WORD_SD, RESIDUAL_SD = 0.05, 0.03, 0.05


def crossed_eec(
    rng,
    templates: int,
    names: int = 5,
    words: int = 3,
    name_template_sd: float = 0.0,
    template_sd: float = TEMPLATE_SD,
):
    """An EEC laid out as the shipped ones: every template x (minority, female) cell holds the same
    ``names`` x ``words`` sentences (its own names; the emotion words shared by the cells). Each
    template shifts each cell by N(0, ``template_sd``^2 / 2), each name and word its sentences by
    N(0, NAME_SD^2) and N(0, WORD_SD^2), each name its sentences in each template by N(0,
    ``name_template_sd``^2) (sigma2_TN), each sentence by N(0, RESIDUAL_SD^2). Returns (y, template,
    minority, female, name, word)."""
    t, m, f, n, w = np.meshgrid(
        np.arange(templates), [0, 1], [0, 1], np.arange(names), np.arange(words), indexing="ij"
    )
    t, m, f, n, w = (a.ravel() for a in (t, m, f, n, w))
    name = (m * 2 + f) * names + n  # each cell its own names
    y = (
        np.array([MEANS[int(a), int(b)] for a, b in zip(m, f, strict=True)])
        + rng.normal(0, template_sd / math.sqrt(2), (templates, 2, 2))[t, m, f]
        + rng.normal(0, NAME_SD, 4 * names)[name]
        + rng.normal(0, WORD_SD, words)[w]
        + rng.normal(0, name_template_sd, (templates, 4 * names))[t, name]
        + rng.normal(0, RESIDUAL_SD, t.size)
    )
    return y, t, m, f, name, w


def sampled(rng, rows, per_cell: int):
    """``per_cell`` rows of every template x cell of ``rows``, drawn without replacement (as
    ``sample:`` does)."""
    t, m, f = rows[1], rows[2], rows[3]
    keys = (t * 2 + m) * 2 + f
    keep = np.concatenate(
        [
            rng.choice(np.flatnonzero(keys == key), per_cell, replace=False)
            for key in np.unique(keys)
        ]
    )
    return tuple(column[np.sort(keep)] for column in rows)


def clustered_variance(y, t, m, f, effect: str = "group_within_reference_gender") -> float:
    """The squared standard error of the template-clustered estimate, computed here: the
    per-template contrasts of cell means, their variance (ddof 1) over T."""
    weights = EFFECT_WEIGHTS[effect](f.mean(), m.mean())
    per_template = [
        sum(w * y[(t == template) & (m == c[0]) & (f == c[1])].mean() for c, w in weights.items())
        for template in np.unique(t)
    ]
    return float(np.var(per_template, ddof=1) / len(per_template))


def test_the_planner_predicts_a_sample_from_the_whole_crossed_eec_and_back():
    """Known truth: 150 simulated crossed EECs (12 templates, 5 names x 3 words per cell) and from
    each a sample of 5 sentences per template x cell. The planner's variance of the sample design,
    from the whole EEC's components, and of the whole crossed design, from the sample's, are on
    average the clustered estimator's squared standard errors on those designs, within three
    Monte-Carlo standard errors of the paired differences."""
    rng = np.random.default_rng(5)
    forward, backward = [], []
    with threadpool_limits(1):  # small matrices: BLAS threads only contend for the cores
        for _ in range(150):
            whole = crossed_eec(rng, 12)
            sample = sampled(rng, whole, 5)
            from_whole = variance_components(
                *whole[:4], "group_within_reference_gender", names=whole[4], words=whole[5]
            )
            from_sample = variance_components(
                *sample[:4],
                "group_within_reference_gender",
                names=sample[4],
                words=sample[5],
                pool=15,
            )
            assert from_whole.pool == pytest.approx(15) and from_sample.pool == 15
            actual_sample, actual_whole = (
                clustered_variance(*sample[:4]),
                clustered_variance(*whole[:4]),
            )
            forward.append(design_variance(from_whole, Design(12, 5, pool=15))[0] - actual_sample)
            backward.append(design_variance(from_sample, Design(12, 15, pool=15))[0] - actual_whole)
    for differences in (forward, backward):
        assert np.mean(differences) == pytest.approx(
            0, abs=3 * np.std(differences) / math.sqrt(len(differences))
        )


def test_more_sentences_in_a_crossed_layout_are_a_larger_crossed_pool():
    """A crossed run's plan for more sentences per cell keeps the layout: the pool of names x words
    grows with them (beyond the run's pool there are no more of its sentences to draw), and the plan
    is the first that reaches."""
    components = VarianceComponents(
        1e-5, 6.4e-3, 2.0, templates=7, per_cell=50, residual_var=1e-3, pool=50
    )
    found = smallest_design(components, 0.006, "per_cell")
    assert found.pool == found.per_cell > 50
    assert (
        design_mde(components, found)
        <= 0.006
        < design_mde(components, Design(7, found.per_cell - 1, pool=50))
    )


def test_a_names_reading_in_a_template_is_measured_and_carried_between_layouts():
    """Known truth with a template x name component (sigma2_TN = 0.04^2, near the residual's
    0.05^2): 150 simulated crossed EECs (20 templates, 5 names x 3 words per cell, sigma2_T =
    0.05^2: the template spread rarely falls below the noise, where the estimate is clipped at 0)
    and a sample of 5 sentences per template x cell of each. Within three Monte-Carlo standard
    errors: sigma2_TN's estimates from both layouts average to the truth; the whole EEC's sigma2_T
    to 0.05^2 (a planner that took the names' share 2 sigma2_TN (1/5 - 1/15) = 4.3e-4 for template
    spread is about 5 standard errors above it); and the planner's variance of the other design,
    each way, to the clustered estimator's squared standard error on it."""
    rng = np.random.default_rng(6)
    truth, template_var_truth, effect = 0.04**2, 0.05**2, "group_within_reference_gender"
    whole_name_var, sample_name_var, template_var, forward, backward = [], [], [], [], []
    with threadpool_limits(1):  # small matrices: BLAS threads only contend for the cores
        for _ in range(150):
            whole = crossed_eec(
                rng,
                20,
                name_template_sd=math.sqrt(truth),
                template_sd=math.sqrt(template_var_truth),
            )
            sample = sampled(rng, whole, 5)
            from_whole = variance_components(*whole[:4], effect, names=whole[4], words=whole[5])
            from_sample = variance_components(
                *sample[:4], effect, names=sample[4], words=sample[5], pool=15, pool_names=5
            )
            assert (from_whole.pool, from_whole.names, from_sample.names) == (15, 5, 5)
            whole_name_var.append(from_whole.name_template_var)
            sample_name_var.append(from_sample.name_template_var)
            template_var.append(from_whole.template_var)
            actual_sample, actual_whole = (
                clustered_variance(*sample[:4]),
                clustered_variance(*whole[:4]),
            )
            forward.append(
                design_variance(from_whole, Design(20, 5, pool=15, names=5))[0] - actual_sample
            )
            backward.append(
                design_variance(from_sample, Design(20, 15, pool=15, names=5))[0] - actual_whole
            )
    for values, expected in (
        (whole_name_var, truth),
        (sample_name_var, truth),
        (template_var, template_var_truth),
        (forward, 0.0),
        (backward, 0.0),
    ):
        assert np.mean(values) == pytest.approx(
            expected, abs=3 * np.std(values) / math.sqrt(len(values))
        )


def test_the_names_share_of_a_template_mean_is_the_finite_population_variance():
    """k(N, M, P) sigma2_TN + sigma2_TN / N is the variance of the mean of u over N of a template's
    M = P x W sentences drawn without replacement (the mean over templates of the population mean's
    and the draw's parts), computed here by enumerating every name count of a draw of N = 2 from P =
    3 names x W = 2 words, with u_n iid of variance 1: Var = E_draw[sum_n c_n^2] / N^2 for counts
    c_n."""
    from itertools import combinations

    from eval_harness.stats.design_power import name_share

    items = [name for name in range(3) for _ in range(2)]  # M = 6 sentences: each name twice
    draws = list(combinations(range(6), 2))
    brute = np.mean(
        [sum(np.bincount([items[i] for i in draw], minlength=3) ** 2) / 4 for draw in draws]
    )
    assert name_share(2, 6, 3) + 1 / 2 == pytest.approx(brute, rel=1e-12)
    assert name_share(6, 6, 3) == pytest.approx(1 / 3 - 1 / 6, rel=1e-12)  # crossed: 1/P - 1/M
    assert name_share(2, None, 3) == name_share(2, 6, None) == 0.0


def test_more_sentences_in_a_crossed_layout_are_more_names_with_the_same_words():
    """With P names x W words per cell, a crossed plan for more sentences keeps the W = 5 words and
    adds names, so the names' share sigma2_TN (1/P - 1/M) of its template spread is that of P = N /
    5 names."""
    components = VarianceComponents(
        1e-5,
        6.4e-3,
        2.0,
        templates=7,
        per_cell=50,
        residual_var=1e-3,
        pool=50,
        name_template_var=5e-4,
        names=10,
    )
    found = smallest_design(components, 0.01, "per_cell")
    assert found.pool == found.per_cell > 50 and found.names == pytest.approx(found.per_cell / 5)
    cells = 1e-5 + 2.0 * (1e-3 / found.per_cell + 5e-4 * (1 / found.names - 1 / found.pool))
    assert design_variance(components, found)[0] == pytest.approx(cells / 7, rel=1e-12)


def test_the_interval_of_another_designs_mde_covers_the_true_mde_at_its_level():
    """Known truth, with as few templates as the shipped EECs: 400 simulated crossed EECs (7
    templates: sigma2_T on 6 df; 5 names x 3 words per cell, sigma2_TN = 0.03^2, sigma2_T = 0.04^2)
    and a sample of 5 sentences per template x cell of each. The interval at LEVEL for the MDE of 14
    templates of the crossed layout, from the whole EEC, and of the whole EEC, from the sample,
    holds the MDE of the true components on that design in 80 % of the replicates, each way, within
    three binomial standard errors (0.06): for the crossed layout (T - 1) S / E[S] is chi2(6)
    exactly, for the sample nearly so on Satterthwaite's df. The interval takes the other components
    as known, so it is checked where sigma2_T's uncertainty dominates: with sigma2_T = 0.02^2, a
    quarter of the sample's noise share, the sample's interval for the whole EEC holds the truth in
    0.75 of 600 replicates here and 0.65 with 10 names x 5 words and 4 sentences
    (docs/conventions.md)."""
    from eval_harness.stats.design_power import LEVEL, mde_interval

    rng = np.random.default_rng(7)
    template_var, name_var, effect, n = 0.04**2, 0.03**2, "group_within_reference_gender", 400
    truth = VarianceComponents(
        template_var,
        NAME_SD**2 + WORD_SD**2 + name_var + RESIDUAL_SD**2,
        2.0,
        templates=7,
        per_cell=15,
        residual_var=name_var + RESIDUAL_SD**2,
        pool=15,
        name_template_var=name_var,
        names=5,
    )
    longer, whole_design = Design(14, 15, pool=15, names=5), Design(7, 15, pool=15, names=5)
    covered = {"forward": [], "backward": []}
    with threadpool_limits(1):  # small matrices: BLAS threads only contend for the cores
        for _ in range(n):
            whole = crossed_eec(
                rng, 7, name_template_sd=math.sqrt(name_var), template_sd=math.sqrt(template_var)
            )
            sample = sampled(rng, whole, 5)
            from_whole = variance_components(*whole[:4], effect, names=whole[4], words=whole[5])
            from_sample = variance_components(
                *sample[:4], effect, names=sample[4], words=sample[5], pool=15, pool_names=5
            )
            for way, found, design in (
                ("forward", from_whole, longer),
                ("backward", from_sample, whole_design),
            ):
                low, high = mde_interval(found, design)
                covered[way].append(low <= design_mde(truth, design) <= high)
    for way, hits in covered.items():
        assert np.mean(hits) == pytest.approx(LEVEL, abs=3 * math.sqrt(LEVEL * (1 - LEVEL) / n)), (
            way
        )


def test_the_template_variance_interval_is_the_spreads_chi_square_interval_less_the_noise():
    """Without names and words, sigma2_T's 80 % interval with the noise share sum w^2 sigma2_W / N
    taken as known is [(T - 1) S / chi2_0.9(T - 1), (T - 1) S / chi2_0.1(T - 1)] less it, S the
    per-template contrasts' spread computed here; the planner's, which also carries sigma2_W's
    uncertainty (1,044 df), moves either end by under 2 % of that width (measured 0.1 %); a crossed
    layout's fitted contrasts carry the same noise in every template, so its chi-square df are T - 1
    too."""
    from eval_harness.stats.design_power import TemplateSpread, centring

    y, t, m, f = simulated_eec(np.random.default_rng(8), 9, 30)
    found = variance_components(y, t, m, f, "group_within_reference_gender")
    spread = clustered_variance(y, t, m, f) * 9
    noise = 2 * found.within_var / 30
    expected = [8 * spread / stats.chi2.ppf(q, 8) - noise for q in (0.9, 0.1)]
    assert list(TemplateSpread(spread, noise * centring(9)).interval()) == pytest.approx(
        expected, rel=1e-9
    )
    width = expected[1] - expected[0]
    assert [found.template_var_low, found.template_var_high] == pytest.approx(
        expected, abs=0.02 * width
    )
    assert found.template_var_low < found.template_var < found.template_var_high
    rows = crossed_eec(np.random.default_rng(9), 7)
    fit = additive_fit(rows[0], rows[1], rows[2] * 2 + rows[3], rows[4], rows[5], list(range(7)))
    crossed = adjusted_template_var(fit, EFFECT_WEIGHTS["group_within_reference_gender"](0.5, 0.5))
    assert crossed.dof() == pytest.approx(6, rel=1e-9)
    sample = sampled(np.random.default_rng(10), rows, 5)
    fit = additive_fit(
        sample[0], sample[1], sample[2] * 2 + sample[3], sample[4], sample[5], list(range(7))
    )
    assert (
        adjusted_template_var(fit, EFFECT_WEIGHTS["group_within_reference_gender"](0.5, 0.5)).dof()
        < 6
    )


def test_a_units_effects_share_one_additive_fit():
    """The additive fit does not depend on the effect: all seven effects of a crossed EEC with every
    cell in every template make one fit when they share ``fits``, and their components are those
    each effect gets on its own."""
    y, t, m, f, name, word = crossed_eec(np.random.default_rng(11), 7, name_template_sd=0.03)
    fits: dict = {}
    for effect in EFFECT_WEIGHTS:
        alone = variance_components(y, t, m, f, effect, names=name, words=word)
        assert variance_components(y, t, m, f, effect, names=name, words=word, fits=fits) == alone
    assert len(fits) == 1


def test_a_sentence_effect_fixed_in_every_template_is_not_counted_as_template_noise():
    """A name x word interaction, the same in every template of a crossed EEC, stays out of the
    template spread but inflates sigma2_R: the spread refutes that noise share, which is scaled to
    what the spread allows, so that the planner's variance of the measured design is the clustered
    estimator's (17x it without the scaling)."""
    rng = np.random.default_rng(11)
    ratios = []
    for _ in range(20):
        y, t, m, f, name, word = crossed_eec(rng, 7, names=5, words=3, template_sd=0.0)
        y = (
            y + rng.normal(0, 0.2, (20, 3))[name, word]
        )  # each (name, word) sentence its own fixed shift
        c = variance_components(y, t, m, f, "group_within_reference_gender", names=name, words=word)
        assert c.pool == 15 and c.template_var < 1e-12  # the spread is all noise
        ratios.append(design_variance(c, current_design(c))[0] / clustered_variance(y, t, m, f))
    assert np.median(ratios) == pytest.approx(1.0, abs=0.05)


def test_the_noise_share_is_kept_where_the_spread_does_not_refute_it():
    """Without the fixed sentence effects the spread refutes the noise share at about
    REFUTING_ALPHA, no more."""
    rng = np.random.default_rng(12)
    refuted = []
    for _ in range(300):
        y, t, m, f, name, word = crossed_eec(rng, 7, names=5, words=3, template_sd=0.0)
        fit = additive_fit(y, t, m * 2 + f, name, word, list(range(7)))
        spread = adjusted_template_var(
            fit, EFFECT_WEIGHTS["group_within_reference_gender"](0.5, 0.5)
        )
        refuted.append(noise_scale(spread) < 1)
    se = math.sqrt(REFUTING_ALPHA * (1 - REFUTING_ALPHA) / len(refuted))
    assert np.mean(refuted) <= REFUTING_ALPHA + 3 * se


def test_the_interval_of_a_difference_of_mean_squares_holds_its_level():
    """The interval of E[S1] - E[S2] (design_power.difference_interval) from 2,000 draws of two
    independent scaled chi-squares, S1 on 6 df (a spread over 7 templates) and S2 on 20 (a noise
    share): each end misses E1 - E2 about (1 - LEVEL) / 2 of the time, within three binomial
    standard errors and 0.02 (the modified large-sample interval is close to its level, not exact);
    with S2 known it is the exact chi-square interval less S2, computed here."""
    from eval_harness.stats.design_power import LEVEL, difference_interval

    rng = np.random.default_rng(13)
    first, second, n = 1.0, 0.6, 2000
    draws = zip(first * rng.chisquare(6, n) / 6, second * rng.chisquare(20, n) / 20, strict=True)
    ends = np.array([difference_interval(a, 6, b, 20) for a, b in draws])
    tail, truth = (1 - LEVEL) / 2, first - second
    for missed in (np.mean(ends[:, 0] > truth), np.mean(ends[:, 1] < truth)):
        assert missed == pytest.approx(tail, abs=3 * math.sqrt(tail * (1 - tail) / n) + 0.02)
    known = [6 * 0.9 / stats.chi2.ppf(q, 6) - 0.6 for q in (1 - tail, tail)]
    assert list(difference_interval(0.9, 6, 0.6, math.inf)) == pytest.approx(known, rel=1e-12)


@pytest.mark.parametrize("seed_share", [0.01, 0.3, 1.0, 10.0])
def test_the_mde_does_not_rise_as_seeds_are_added(seed_share):
    """The seed term sigma2_B / m for every m (docs/conventions.md): with a seed component the MDE
    never rises from
    m = 1 to 10; one seed cannot test the mean over seeds (its seed term on 0 df: no MDE), and
    without a seed component one seed's design is the templates' alone, on T - 1 df."""
    template_part = 1e-4 + 2 * 2e-3 / 50
    components = VarianceComponents(
        1e-4, 2e-3, 2.0, templates=7, per_cell=50, seed_var=seed_share * template_part, seeds=3
    )
    mdes = [design_mde(components, Design(7, 50, seeds=m)) for m in range(1, 11)]
    assert all(later <= earlier for earlier, later in zip(mdes, mdes[1:], strict=False))
    assert math.isinf(mdes[0]) and math.isfinite(mdes[1])
    variance, df = design_variance(components, Design(7, 50, seeds=4))
    assert variance == pytest.approx(template_part / 7 + seed_share * template_part / 4, rel=1e-12)
    alone = VarianceComponents(1e-4, 2e-3, 2.0, templates=7, per_cell=50)
    assert design_variance(alone, Design(7, 50, seeds=1)) == (
        pytest.approx(template_part / 7, rel=1e-12),
        6.0,
    )
