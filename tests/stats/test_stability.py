"""Resampling stability: a reweighted refit equals a fit of the resampled rows written out, and a
planted finding driven by one template is fragile where a robust one of the same size is not."""

import numpy as np
import pytest
from helpers.betareg_reference import crossed_rows

from eval_harness.errors import InputError
from eval_harness.stats import factorial, label_coding, stability
from eval_harness.stats.factorial import fit_factorial
from eval_harness.stats.stability import resampling_stability

LEVELS = {"group": ("Anglo", "Arab"), "gender": ("male", "female")}
REFERENCES = {"group": "Anglo", "gender": "male"}


def eec_rows(seed, templates=11, persons_per_cell=10, words=1, phi=40.0):
    """Crossed rows (``words`` emotion words per template x person), Beta scores around 0.3."""
    rows = crossed_rows(LEVELS, templates, persons_per_cell)
    rows = {
        key: {k: np.tile(v, words) for k, v in value.items()}
        if isinstance(value, dict)
        else np.tile(value, words)
        for key, value in rows.items()
    }
    rng = np.random.default_rng(seed)
    mu = 0.30 + 0.02 * rows["index"]["gender"] + rng.normal(0, 0.01, templates)[rows["template"]]
    rows["y"] = rng.beta(mu * phi, (1 - mu) * phi)
    return rows


def full_fit(rows, cov_type, cluster_by):
    prepared = label_coding.prepare_rows(
        rows["y"],
        rows["labels"],
        REFERENCES,
        groupings={"template_id": rows["template"], "person": rows["person"]},
    )
    design = factorial.FactorialDesign.up_to_order(prepared.factors, 2)
    return prepared, factorial.fit_design(prepared, design, cov_type, cluster_by, None)


@pytest.mark.parametrize(
    ("scheme", "cov_type", "cluster_by"),
    [
        ("template_bootstrap", "cluster", ("template_id",)),
        ("template_bootstrap", "cluster", ("template_id", "person")),
        ("template_leave_one_out", "cluster", ("template_id",)),
        ("person_bootstrap", "cluster", ("template_id",)),
        ("person_bootstrap", "cluster", ("person",)),
        ("person_leave_one_out", "model", ()),
    ],
)
def test_a_reweighted_refit_equals_a_fit_of_the_resampled_rows(scheme, cov_type, cluster_by):
    """Write each resample out as rows (a unit drawn k times appears k times; as a cluster, each
    copy is a cluster of its own) and fit it with fit_factorial: the same estimates, standard errors
    and degrees of freedom."""
    rows = eec_rows(seed=3, templates=8, persons_per_cell=4, words=2)
    prepared, fit = full_fit(rows, cov_type, cluster_by)
    unit = "template_id" if scheme.startswith("template") else "person"
    resamples = stability.scheme_resamples(
        scheme,
        fit.blocks,
        cluster_by,
        prepared.group_labels[unit],
        np.random.default_rng(5),
        n_bootstrap=3,
    )
    refits = stability.refit(fit, resamples)
    unit_codes = prepared.groups[unit]  # the fitted rows' codes, as the blocks use them
    n_units = int(unit_codes.max()) + 1
    for r in range(len(resamples.weights)):
        counts = np.zeros(n_units)
        block_units = fit.blocks.groups[unit]
        counts[block_units] = resamples.weights[r]
        picked, copy = [], []
        for u in range(n_units):
            for k in range(int(counts[u])):
                members = np.flatnonzero(unit_codes == u)
                picked.append(members)
                copy.append(np.full(len(members), k))
        picked, copy = np.concatenate(picked), np.concatenate(copy)
        labels = {"template_id": rows["template"][picked], "person": rows["person"][picked]}
        # The resampled unit's copies are clusters of their own.
        labels[unit] = [f"{a}/{b}" for a, b in zip(labels[unit], copy, strict=True)]
        options = (
            {"cov_type": "cluster", "clusters": {n: labels[n] for n in cluster_by}}
            if cluster_by
            else {}
        )
        explicit = fit_factorial(
            rows["y"][picked],
            {n: np.asarray(v, dtype=object)[picked].tolist() for n, v in rows["labels"].items()},
            REFERENCES,
            **options,
        )
        expected = [c.estimate for c in explicit.coefficients] + [
            e.estimate for e in explicit.effects
        ]
        errors = [c.std_err for c in explicit.coefficients] + [e.std_err for e in explicit.effects]
        assert refits.ok[r]
        np.testing.assert_allclose(refits.estimates[r], expected, rtol=0, atol=1e-9)
        np.testing.assert_allclose(refits.std_errs[r], errors, rtol=1e-8, atol=1e-12)
        assert (None if refits.df is None else int(refits.df[r])) == explicit.df


def planted(kind, seed=0):
    """Arab sentences 0.04 higher on average over 11 templates: in every template (robust), or 0.44
    higher in template 0 only (fragile: one template drives the whole effect)."""
    rows = eec_rows(seed)
    arab = rows["index"]["group"] == 1
    shift = 0.04 * arab if kind == "robust" else 0.44 * (arab & (rows["template"] == 0))
    rows["y"] = rows["y"] + shift
    return rows


def stability_of(rows, **options):
    return resampling_stability(
        rows["y"], rows["labels"], REFERENCES, templates=rows["template"], persons=rows["person"],
        n_bootstrap=400, seed=1, **options,
    )  # fmt: skip


def test_a_finding_driven_by_one_template_is_fragile_and_a_robust_one_is_not():
    """Both planted effects average 0.04 over the templates and are significant with model-based SEs
    (the paper's, which treat rows as independent). The template bootstrap keeps the robust one in
    >= 95 % of resamples and the one-template one in far fewer; leave-one-template-out names
    template 0, without which it vanishes; its variance is almost all between templates.
    Template-clustered SEs do not call the fragile one significant in the first place."""
    name = "group[Arab]|average"
    robust = stability_of(planted("robust"), cov_type="model").finding(name)
    fragile = stability_of(planted("fragile"), cov_type="model").finding(name)
    for finding in (robust, fragile):
        assert finding.significant and finding.estimate == pytest.approx(0.04, abs=0.01)

    boot = robust.scheme("template_bootstrap")
    assert boot.n_resamples == 400 and boot.sign_kept == 1.0 and boot.significance_kept >= 0.95
    assert robust.scheme("template_leave_one_out").significance_kept == 1.0
    assert not robust.fragile()

    boot = fragile.scheme("template_bootstrap")
    assert boot.significance_kept <= 0.75, boot
    assert fragile.fragile()
    out = fragile.scheme("template_leave_one_out")
    assert out.most_influential == "0" and abs(out.estimate_without) < 0.01
    assert out.significance_kept < 1.0
    assert fragile.template_share > 0.9 > robust.template_share

    clustered = stability_of(planted("fragile"))  # template-clustered by default
    assert not clustered.finding(name).significant and not clustered.finding(name).fragile()
    assert stability_of(planted("robust")).finding(name).significant


def test_summary_to_dict_and_errors():
    rows = eec_rows(seed=4, templates=6, persons_per_cell=3)
    result = resampling_stability(
        rows["y"],
        rows["labels"],
        REFERENCES,
        templates=rows["template"],
        persons=rows["person"],
        n_bootstrap=50,
    )
    text = result.summary()
    assert "template boot" in text and "person LOO" in text
    for finding in result.findings:
        assert finding.name in text
        assert [s.scheme for s in finding.resamples] == list(stability.SCHEMES)
    d = result.to_dict()
    assert set(d["findings"]["group[Arab]|average"]["resamples"]) == set(stability.SCHEMES)
    assert d["fit"]["n"] == len(rows["y"])
    without_persons = resampling_stability(
        rows["y"], rows["labels"], REFERENCES, templates=rows["template"], n_bootstrap=20
    )
    finding = without_persons.finding("group[Arab]|average")
    assert [s.scheme for s in finding.resamples] == ["template_bootstrap", "template_leave_one_out"]
    assert finding.template_share is None
    with pytest.raises(InputError, match=r"n_bootstrap must be a whole number from 1 to 100000"):
        resampling_stability(
            rows["y"], rows["labels"], REFERENCES, templates=rows["template"], n_bootstrap=0
        )
    with pytest.raises(
        InputError, match=r"cluster_by must be one or two distinct of \['template_id'\]"
    ):
        resampling_stability(
            rows["y"], rows["labels"], REFERENCES, templates=rows["template"], cluster_by=["person"]
        )
    with pytest.raises(InputError, match=r"groupings\['template_id'\] must hold one label per row"):
        resampling_stability(rows["y"], rows["labels"], REFERENCES, templates=rows["template"][:5])
