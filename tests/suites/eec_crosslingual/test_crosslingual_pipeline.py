"""The cross-language pipeline: the alignment of the shipped EECs, the joint fit's wiring (each
language its own fit under model-based errors, the aligned clusters), and, at the level of the
suite's own function on the real Arab/Anglo alignment, calibration under the null and power at the
reported minimum detectable difference."""

import numpy as np
import pandas as pd
import pytest
from helpers.aligned_simulation import pair_scores

from eval_harness.data import load_eec
from eval_harness.errors import InputError
from eval_harness.stats.factorial import fit_factorial
from eval_harness.suites.eec_crosslingual.pipeline import align, language_contrasts

REFERENCE = {"group": "Anglo", "gender": "male"}


@pytest.fixture(scope="module")
def arabic():
    english, arabic = load_eec("en_arab_anglo").to_pandas(), load_eec("ar_arab_anglo").to_pandas()
    return english, arabic, align(english, arabic)


@pytest.fixture(scope="module")
def spanish():
    english, spanish = (
        load_eec("en_latino_anglo").to_pandas(),
        load_eec("es_latino_anglo").to_pandas(),
    )
    return english, spanish, align(english, spanish)


@pytest.mark.parametrize("which", ["arabic", "spanish"])
def test_every_translated_row_with_a_group_finds_its_english_original(which, request):
    """Counted from the corpora: every named translated row pairs; the English rows left over are
    those the translation lacks. Each pair's English sentence is its translation's sentence_en, but
    for "an" written "a"."""
    english, translation, alignment = request.getfixturevalue(which)
    pairs = alignment.pairs
    named_english, named_translation = (
        english[english["group"].notna()],
        translation[translation["group"].notna()],
    )
    assert len(pairs) == len(named_translation) and alignment.n_translation_only == 0
    assert alignment.n_english_only == len(named_english) - len(pairs) > 0
    assert (
        pairs["pair"].tolist() == list(range(len(pairs)))
        and not pairs["sentence_en"].duplicated().any()
    )
    english_rows, translated_rows = (
        english.loc[pairs["english_row"]],
        translation.loc[pairs["translated_row"]],
    )
    for name in ("template_id", "person"):
        assert (english_rows[name].to_numpy() == pairs[name].to_numpy()).all()
    assert (english_rows["sentence"].to_numpy() == pairs["sentence_en"].to_numpy()).all()
    assert (translated_rows["sentence"].to_numpy() == pairs["sentence"].to_numpy()).all()
    originals = translated_rows["sentence_en"].to_numpy()
    exact = pairs["sentence_en"].to_numpy() == originals
    for english_sentence, written in zip(
        pairs["sentence_en"][~exact], originals[~exact], strict=True
    ):
        assert " an " in english_sentence and english_sentence.replace(" an ", " a ") == " ".join(
            written.split()
        )
    assert (~exact).sum() > 0  # the "a annoying situation" rows are paired too


def test_rows_that_cannot_be_paired_one_to_one_or_disagree_are_refused(arabic):
    english, translation, _ = arabic
    doubled = pd.concat([english, english.iloc[[0]]])
    with pytest.raises(
        InputError, match=r"English EEC holds the English sentence 'ellen feels angry' twice"
    ):
        align(doubled, translation)
    wrong = translation.copy()
    wrong.loc[wrong.index[0], "gender"] = "male"
    with pytest.raises(
        InputError, match=r"names the English sentence 'Ellen feels angry' but has gender 'male'"
    ):
        align(english, wrong)


def test_each_language_is_its_own_fit_under_model_based_errors(arabic):
    """With a precision per language the joint likelihood separates: each language's effects are
    those of a fit of that language's scores alone (fit_factorial, another code path), and the
    difference is theirs."""
    pairs = arabic[2].pairs
    pairs = pairs[pairs["emotion"] == "anger"]
    rng = np.random.default_rng(3)
    english, translated = pair_scores(
        pairs["group"], pairs["gender"], pairs["template_id"], rng, minority="Arab"
    )
    result = language_contrasts(pairs, english, translated, "ar", REFERENCE, cov_type="model")
    for language, scores in (("en", english), ("ar", translated)):
        alone = fit_factorial(
            scores, {"group": pairs["group"], "gender": pairs["gender"]}, REFERENCE
        )
        for effect, own in zip(result.effects_in(language), alone.effects, strict=True):
            assert effect.estimate == pytest.approx(own.estimate, abs=1e-9)
            assert effect.std_err == pytest.approx(own.std_err, rel=1e-6)
    difference = result.difference("group[Arab]|gender=female")
    assert difference.estimate == pytest.approx(
        difference.other_estimate - difference.reference_estimate, abs=1e-12
    )


@pytest.mark.parametrize(
    ("cluster_by", "clusters"),
    [
        (["template_id"], lambda p: [7]),
        (["sentence"], lambda p: [len(p)]),
        (["template_id", "person"], lambda p: [7, p["person"].nunique()]),
    ],
)
def test_both_rows_of_a_pair_share_their_clusters(arabic, cluster_by, clusters):
    pairs = arabic[2].pairs
    pairs = pairs[pairs["emotion"] == "fear"]
    rng = np.random.default_rng(4)
    english, translated = pair_scores(
        pairs["group"], pairs["gender"], pairs["template_id"], rng, minority="Arab"
    )
    result = language_contrasts(pairs, english, translated, "ar", REFERENCE, cluster_by=cluster_by)
    assert list(result.joint.n_clusters) == clusters(pairs) and result.joint.n == 2 * len(pairs)
    assert result.joint.df == min(clusters(pairs)) - 1


def test_bad_inputs_are_clear_errors(arabic):
    pairs = arabic[2].pairs.iloc[:10]
    with pytest.raises(
        InputError, match=r"10 paired rows need as many scores under en and under ar, got 9 and 10"
    ):
        language_contrasts(pairs, [0.5] * 9, [0.5] * 10, "ar", REFERENCE)
    with pytest.raises(
        InputError, match=r"cluster_by must be one or two distinct names of template_id, person"
    ):
        language_contrasts(pairs, [0.5] * 10, [0.5] * 10, "ar", REFERENCE, cluster_by=["row"])


@pytest.mark.slow
def test_language_contrasts_hold_their_level_and_have_the_power_they_report(arabic):
    """The real Arab/Anglo fear alignment (7 emotional templates, 1,400 pairs), scores with a
    template intercept shared by the languages and template slopes per language (SD 0.15), no true
    difference: 500 data sets, the 7 differences tested at 5 % with template-clustered SEs and t(6).
    The pooled rate must lie in the binomial band of one rate over 500 (0.031-0.069), each rate
    within 0.02-0.09 (about 3 binomial SEs: 7 rates cannot all be expected inside their 95 % band).
    Then the group difference averaged over genders is planted at the mean MDE the 500 null fits
    reported: 300 more data sets reject it about 80 % of the time (binomial SE 0.023: the band is
    0.8 +- 0.07, 3 SEs).

    Pilots (seeds 1-3, 300-1,000 data sets): pooled null rates 0.066, 0.053, 0.051; power 0.798 at
    an MDE of 0.068 (seed 1)."""
    pairs = arabic[2].pairs
    pairs = pairs[pairs["emotion"] == "fear"]
    rng = np.random.default_rng(5)

    def fitted(planted):
        english, translated = pair_scores(
            pairs["group"],
            pairs["gender"],
            pairs["template_id"],
            rng,
            minority="Arab",
            planted=planted,
        )
        return language_contrasts(pairs, english, translated, "ar", REFERENCE).differences

    null = [fitted(0.0) for _ in range(500)]
    rates = np.mean([[d.p_value < 0.05 for d in differences] for differences in null], axis=0)
    assert len(rates) == 7 and 0.031 <= rates.mean() <= 0.069, rates
    assert np.all((0.02 <= rates) & (rates <= 0.09)), rates
    name = "group[Arab]|average"
    mde = float(np.mean([d.mde for differences in null for d in differences if d.name == name]))
    planted = [next(d for d in fitted(mde) if d.name == name) for _ in range(300)]
    power = np.mean([d.p_value < 0.05 for d in planted])
    assert 0.73 <= power <= 0.87, (mde, power)
    assert np.mean([d.estimate for d in planted]) == pytest.approx(mde, rel=0.1)
