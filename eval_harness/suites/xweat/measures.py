r"""The association measures besides WEAT on one XWEAT test: RND, MAC, ECT, RIPA and RNSB.

They read the same word vectors as WEAT (the found words of the four sets, after the same coverage rule) and
call :mod:`eval_harness.stats.association`. How each meets a WEAT test (targets :math:`X, Y`, attributes
:math:`A, B`), and the ``term`` of each result:

- ``rnd``: :func:`~eval_harness.stats.association.relative_norm_distance` of ``X, Y`` to the attribute set,
  once for ``A`` and once for ``B`` (terms ``"A"``, ``"B"``; negative: the attribute words are nearer X).
- ``mac``: :func:`~eval_harness.stats.association.mean_average_cosine` of the targets ``[X, Y]`` to ``[A, B]``
  (one result, term ``None``; 1 = no association).
- ``ect``: :func:`~eval_harness.stats.association.embedding_coherence`, for ``A`` and for ``B`` (1 = no bias).
- ``ripa``: :func:`~eval_harness.stats.association.relational_inner_product` with the relation of the
  *attribute* sets, scoring the *target* words: terms ``"X"`` and ``"Y"``, each the mean of its words'
  :math:`\langle w, b\rangle` (> 0: on A's side). Why this way round: in Ethayarajh et al. (2019) the relation
  vector is the attribute dimension (gender from (man, woman), (king, queen)...) and the scored words are the
  targets (occupations...) — RIPA replaces WEAT's per-word association :math:`s(w, A, B)` by
  :math:`\langle w, b\rangle`. Why the relation is the single pair of attribute *centroids*,
  :math:`b = (\bar a - \bar b) / \lVert \bar a - \bar b \rVert`: the paper's first principal component needs
  counterpart pairs (man-woman, he-she), and XWEAT's attribute lists are not counterpart lists — pleasant and
  unpleasant words have no pairing, and the translations break the order of the few lists that do pair in
  English (T7/T8's male/female terms: Spanish T7 has 7 male and 8 female terms). Without pairs the centroid
  difference is the one choice that does not depend on the list order (it is the mean difference of *any*
  one-to-one pairing of equal-size sets), whereas the principal component of arbitrary pairs follows the
  within-set spread (for all :math:`|A| \cdot |B|` pairs it is the top eigenvector of
  :math:`\Sigma_A + \Sigma_B + (\bar a - \bar b)(\bar a - \bar b)^\top`, not the relation). Compare the two
  terms: RIPA(X) - RIPA(Y) > 0 is the direction of WEAT's bias.
- ``rnsb``: :func:`~eval_harness.stats.association.relative_negative_sentiment` with target groups ``[X, Y]``,
  ``A`` as the positive and ``B`` as the negative class (one result). In T1-T5 and T10, B is unpleasant (the
  paper's negative sentiment); in T6-T9 it is the test's second attribute (family, female terms, permanent),
  so RNSB there measures how unevenly the groups are classified as B. Its seeded fits draw from
  :func:`~.pipeline.measure_seed` (the unit's seed).
"""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ...contract import WordEmbedder
from ...errors import InputError
from ...stats.association import (
    MEASURES,
    ECTResult,
    MACResult,
    RIPAResult,
    RNDResult,
    RNSBResult,
    embedding_coherence,
    mean_average_cosine,
    relational_inner_product,
    relative_negative_sentiment,
    relative_norm_distance,
)
from .pipeline import (
    COVERAGE_THRESHOLD,
    SetCoverage,
    WordSet,
    _check_min_coverage,
    _coverage_problem,
    measure_seed,
    set_coverage,
)

WORD_MEASURES = MEASURES  # ("rnd", "mac", "ect", "ripa", "rnsb"): those over the word vectors
RIPA_RELATION = "attribute_centroids"
MeasureResult = RNDResult | MACResult | ECTResult | RIPAResult | RNSBResult


@dataclass(frozen=True)
class AssociationResult:
    """The word-vector measures of one test on one (target language, attribute language) pair.

    Attributes:
        test, target_language, attribute_language: the unit.
        coverage: the four sets' :class:`~.pipeline.SetCoverage`, in X, Y, A, B order (as WEAT's).
        measures: the measures asked for, in order.
        results: measure -> term (``"A"``, ``"B"``, ``"X"``, ``"Y"`` or ``None``) -> the stats result;
            empty when skipped.
        words: role -> the found words, in set order (the rows the measures saw).
        seeds: measure -> the integer seed of its draws (RNSB only).
        skip_reason: why the coverage rule skipped the test (``None`` when it ran).
    """

    test: str
    target_language: str
    attribute_language: str
    coverage: tuple[SetCoverage, ...]
    measures: tuple[str, ...]
    results: Mapping[str, Mapping[str | None, MeasureResult]]
    words: Mapping[str, tuple[str, ...]]
    seeds: Mapping[str, int]
    skip_reason: str | None = None

    @property
    def status(self) -> str:
        return "skipped" if self.skip_reason else "ok"

    def set_name(self, role: str) -> str:
        return self.coverage["XYAB".index(role)].name


def _rnd(sets, seed):
    return {role: relative_norm_distance(sets["X"], sets["Y"], sets[role]) for role in ("A", "B")}


def _mac(sets, seed):
    return {None: mean_average_cosine([sets["X"], sets["Y"]], [sets["A"], sets["B"]])}


def _ect(sets, seed):
    return {role: embedding_coherence(sets["X"], sets["Y"], sets[role]) for role in ("A", "B")}


def _ripa(sets, seed):
    # One pair, the attribute centroids (module docstring): b = (mean A - mean B) / |mean A - mean B|.
    centroid_a, centroid_b = sets["A"].mean(axis=0, keepdims=True), sets["B"].mean(axis=0, keepdims=True)
    return {role: relational_inner_product(centroid_a, centroid_b, sets[role]) for role in ("X", "Y")}


def _rnsb(sets, seed):
    return {None: relative_negative_sentiment([sets["X"], sets["Y"]], sets["A"], sets["B"], seed=seed)}


MEASURE_FUNCTIONS: dict[str, Callable] = {"rnd": _rnd, "mac": _mac, "ect": _ect, "ripa": _ripa, "rnsb": _rnsb}
SEEDED = ("rnsb",)


def run_association(
    embedder: WordEmbedder,
    test: str,
    targets: Mapping[str, WordSet],
    attributes: Mapping[str, WordSet],
    measures: Sequence[str] = WORD_MEASURES,
    min_coverage: float = COVERAGE_THRESHOLD,
    seed: int = 0,
) -> AssociationResult:
    """``measures`` on one test: ``targets`` holds sets ``"X"``, ``"Y"``; ``attributes`` holds ``"A"``, ``"B"``.

    The sets are embedded and checked by WEAT's coverage rule (:func:`~.pipeline.run_test`); a skipped test
    gives no result, only the reason. ``seed`` is the base seed; each seeded measure draws from
    :func:`~.pipeline.measure_seed` of the unit.
    """
    _check_min_coverage(min_coverage)
    unknown = [measure for measure in measures if measure not in MEASURE_FUNCTIONS]
    if unknown or not measures:
        raise InputError(f"unknown word-vector measure(s) {unknown or measures}; use some of {WORD_MEASURES}")
    sets = [targets["X"], targets["Y"], attributes["A"], attributes["B"]]
    embedded = [set_coverage(embedder, word_set) for word_set in sets]
    coverage = tuple(report for _, report in embedded)
    target_language, attribute_language = sets[0].language, sets[2].language
    words = {
        word_set.role: tuple(word for word in word_set.words if word not in report.missing)
        for word_set, report in zip(sets, coverage, strict=True)
    }
    seeds = {
        measure: measure_seed(seed, test, target_language, attribute_language, measure)
        for measure in measures
        if measure in SEEDED
    }
    reasons = [reason for reason in (_coverage_problem(report, min_coverage) for report in coverage) if reason]
    unit = (test, target_language, attribute_language, coverage, tuple(measures))
    if reasons:
        return AssociationResult(*unit, results={}, words=words, seeds=seeds, skip_reason="; ".join(reasons))
    vectors = {word_set.role: np.asarray(rows) for word_set, (rows, _) in zip(sets, embedded, strict=True)}
    results = {measure: MEASURE_FUNCTIONS[measure](vectors, seeds.get(measure)) for measure in measures}
    return AssociationResult(*unit, results=results, words=words, seeds=seeds)
