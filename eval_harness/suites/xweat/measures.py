r"""The association measures over word vectors, one declaration each (:data:`WORD_MEASURES`), and
their run on one XWEAT test: RND, MAC, ECT, RIPA and RNSB.

A measure is one pure function of :mod:`eval_harness.stats` and one :class:`WordMeasure` entry: its
name, the function, its :class:`Shape` (how the function meets the roles), the options it reads,
its record fields with their descriptions, its report label and legend. The suite
(:func:`run_association`), its records (:mod:`.records`), its report section
(:mod:`.report_measures`) and the ``word_association`` metric (:func:`association_from_roles`) read
every measure from the table; none names one. A plug-in adds one with
``WORD_MEASURES.register(entry)``.

They read the same word vectors as WEAT (the found words of the four sets, after the same coverage
rule). How each meets a WEAT test (targets :math:`X, Y`, attributes :math:`A, B`), and the ``term``
of each result:

- ``rnd``: :func:`~eval_harness.stats.association.relative_norm_distance` of ``X, Y`` to the
  attribute set, once for ``A`` and once for ``B`` (terms ``"A"``, ``"B"``; negative: the attribute
  words are nearer X).
- ``mac``: :func:`~eval_harness.stats.association.mean_average_cosine` of the targets ``[X, Y]`` to
  ``[A, B]`` (one result, term ``None``; 1 = no association).
- ``ect``: :func:`~eval_harness.stats.association.embedding_coherence`, for ``A`` and for ``B`` (1 =
  no bias).
- ``ripa``: :func:`~eval_harness.stats.association.relational_inner_product` with the relation of
  the *attribute* sets, scoring the *target* words: terms ``"X"`` and ``"Y"``, each the mean of its
  words' :math:`\langle w, b\rangle` (> 0: on A's side). Why this way round: in Ethayarajh et al.
  (2019) the relation vector is the attribute dimension (gender from (man, woman), (king, queen)...)
  and the scored words are the targets (occupations...) — RIPA replaces WEAT's per-word association
  :math:`s(w, A, B)` by :math:`\langle w, b\rangle`. Why the relation is the single pair of
  attribute *centroids*,
  :math:`b = (\bar a - \bar b) / \lVert \bar a - \bar b \rVert`: the paper's first principal
  component needs counterpart pairs (man-woman, he-she), and XWEAT's attribute lists are not
  counterpart lists — pleasant and unpleasant words have no pairing, and the translations break the
  order of the few lists that do pair in English (T7/T8's male/female terms: Spanish T7 has 7 male
  and 8 female terms). Without pairs the centroid difference is the one choice that does not depend
  on the list order (it is the mean difference of *any* one-to-one pairing of equal-size sets),
  whereas the principal component of arbitrary pairs follows the within-set spread (for all
  :math:`|A| \cdot |B|` pairs it is the top eigenvector of :math:`\Sigma_A + \Sigma_B + (\bar a -
  \bar b)(\bar a - \bar b)^\top`, not the relation). Compare the two
  terms: RIPA(X) - RIPA(Y) > 0 is the direction of WEAT's bias.
- ``rnsb``: :func:`~eval_harness.stats.association.relative_negative_sentiment` with target groups
  ``[X, Y]``, ``A`` as the positive and ``B`` as the negative class (one result). In T1-T5 and T10,
  B is unpleasant (the paper's negative sentiment); in T6-T9 it is the test's second attribute
  (family, female terms, permanent), so RNSB there measures how unevenly the groups are classified
  as B. Its seeded fits draw from :func:`~.pipeline.measure_seed` (the unit's seed).
"""

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...contract import WordEmbedder
from ...contract.records import Field
from ...errors import ConfigError, InputError
from ...stats.association import (
    embedding_coherence,
    mean_average_cosine,
    relational_inner_product,
    relative_negative_sentiment,
    relative_norm_distance,
)
from ...stats.results import Result
from ...stats.vectors import matrix
from ...stats.weat import check_draw_counts
from ...stats.word_sets import distinct_role_rows
from .pipeline import (
    COVERAGE_THRESHOLD,
    SetCoverage,
    WordSet,
    _check_min_coverage,
    _coverage_problem,
    measure_seed,
    set_coverage,
)

TARGET_ROLES = ("X", "Y")
ATTRIBUTE_ROLES = ("A", "B")
# WEAT's test on the words in other vectors: template sentences (SEAT), sampled contexts (CEAT).
CONTEXT_MEASURES = ("seat", "ceat")
# Names a word measure cannot take: the suite's other measures and the metrics of WEAT's records.
RESERVED_NAMES = ("weat", *CONTEXT_MEASURES, "effect_size", "statistic", "coverage")

Sets = Mapping[str, np.ndarray]
Results = dict[str | None, Result]


# ------------------------------------------------------------------------------------------- shapes


@dataclass(frozen=True)
class Shape:
    """How a measure's function meets the roles: a test's sets in the suite, labelled rows in the
    metric.

    Attributes:
        terms: the terms of the measure's records on a test, in order (``None``: one result).
        on_test: ``(function, sets, keywords) -> term -> result`` on a test's sets ``X, Y, A, B``.
        on_rows: ``(measure, rows, options) -> label -> result`` on the metric's rows by role.
        any_label: the metric takes rows of any role label (more attribute sets), not only X, Y, A,
        B.
    """

    terms: tuple[str | None, ...]
    on_test: Callable[[Callable[..., Result], Sets, dict[str, Any]], Results]
    on_rows: Callable[["WordMeasure", Sets, dict[str, Any]], dict[str, Result]]
    any_label: bool = False


def _require(measure: "WordMeasure", rows: Sets, roles: Sequence[str]) -> None:
    missing = [role for role in roles if role not in rows]
    if missing:
        raise InputError(f"measure {measure.name!r} needs rows with role(s) {missing}")


def _per_attribute_rows(
    measure: "WordMeasure", rows: Sets, options: dict[str, Any]
) -> dict[str, Result]:
    _require(measure, rows, ("X", "Y", "A"))
    return {
        label: measure.function(rows["X"], rows["Y"], rows[label], **options)
        for label in ATTRIBUTE_ROLES
        if label in rows
    }


def _all_sets_rows(
    measure: "WordMeasure", rows: Sets, options: dict[str, Any]
) -> dict[str, Result]:
    label = measure.label
    if "X" not in rows:
        raise InputError(f"{label} needs target rows with role 'X' (and optionally 'Y')")
    attribute_labels = [role for role in rows if role not in TARGET_ROLES]
    if not attribute_labels:
        raise InputError(
            f"{label} needs at least one attribute set: rows with a role other than 'X' and 'Y'"
        )
    targets = [rows[role] for role in TARGET_ROLES if role in rows]
    attributes = [rows[role] for role in attribute_labels]
    return {"+".join(attribute_labels): measure.function(targets, attributes, **options)}


def _two_classes_rows(
    measure: "WordMeasure", rows: Sets, options: dict[str, Any]
) -> dict[str, Result]:
    _require(measure, rows, ("X", "Y", "A", "B"))
    return {"A+B": measure.function([rows["X"], rows["Y"]], rows["A"], rows["B"], **options)}


def _relation_of_centroids(
    function: Callable[..., Result], sets: Sets, keywords: dict[str, Any]
) -> Results:
    # One pair, the attribute centroids (module docstring): b = (mean A - mean B) / |mean A - mean
    # B|.
    centroid_a = sets["A"].mean(axis=0, keepdims=True)
    centroid_b = sets["B"].mean(axis=0, keepdims=True)
    return {role: function(centroid_a, centroid_b, sets[role], **keywords) for role in TARGET_ROLES}


# f(X, Y, attribute set): once for A and once for B (rnd, ect).
PER_ATTRIBUTE_SET = Shape(
    terms=ATTRIBUTE_ROLES,
    on_test=lambda function, sets, keywords: {
        role: function(sets["X"], sets["Y"], sets[role], **keywords) for role in ATTRIBUTE_ROLES
    },
    on_rows=_per_attribute_rows,
)
# f(x_pairs, y_pairs, words): the relation of the attribute centroids scoring X and Y in the suite;
# the X, Y rows as pairs scoring A (and B) in the metric (ripa).
RELATION = Shape(terms=TARGET_ROLES, on_test=_relation_of_centroids, on_rows=_per_attribute_rows)
# f(target sets, attribute sets): one result for every set (mac).
ALL_SETS = Shape(
    terms=(None,),
    on_test=lambda function, sets, keywords: {
        None: function([sets["X"], sets["Y"]], [sets["A"], sets["B"]], **keywords)
    },
    on_rows=_all_sets_rows,
    any_label=True,
)
# f(target groups, positive set, negative set): A the positive, B the negative class (rnsb).
TWO_CLASSES = Shape(
    terms=(None,),
    on_test=lambda function, sets, keywords: {
        None: function([sets["X"], sets["Y"]], sets["A"], sets["B"], **keywords)
    },
    on_rows=_two_classes_rows,
)


# ---------------------------------------------------------------------------------------- the table


@dataclass(frozen=True)
class WordMeasure:
    """One association measure over word vectors, declared once for the suite, its records, its
    report and the ``word_association`` metric.

    Attributes:
        name: its name in the suite's ``measures``, the metric's ``measure=``, the records'
        ``metric``.
        function: the pure :mod:`eval_harness.stats` function; its result's ``value`` is the value.
        shape: how the function meets the roles (:class:`Shape`).
        description: what its records are (the record schema's metric description).
        fields: its records' fields besides ``value`` (the function result's, ``record_constants``),
            name -> :class:`~eval_harness.contract.records.Field`; the fields every measure's
            records share (``set``, ``words``, ``n_x``, ...) are the suite's (:mod:`.records`).
        label: its report column (``"RND"``; with a term: ``"RND (A)"``).
        legend: what its report column means, one sentence after the column's name.
        options: the function's keywords the metric passes on (any other is refused).
        draw_options: those of ``options`` that count random draws, bounded as WEAT's are.
        seeded: whether the suite passes the unit's measure seed (``seed=``) to the function.
        record_constants: fields the suite's records state in place of the result's (ripa:
        relation).
        record_omits: fields of the result the suite's records leave out (constant by construction).
    """

    name: str
    function: Callable[..., Result]
    shape: Shape
    description: str
    fields: Mapping[str, Field]
    label: str
    legend: str
    options: tuple[str, ...] = ()
    draw_options: tuple[str, ...] = ()
    seeded: bool = False
    record_constants: Mapping[str, Any] = field(default_factory=dict)
    record_omits: tuple[str, ...] = ()

    def column(self, term: str | None) -> str:
        """The report's column of one term."""
        return self.label if term is None else f"{self.label} ({term})"

    def legend_line(self) -> str:
        """The report legend's sentence: its columns, then what they mean."""
        terms = self.shape.terms
        if terms == (None,):
            return f"{self.label}: {self.legend}"
        return f"{self.label} " + " / ".join(f"({term})" for term in terms) + f": {self.legend}"


class MeasureTable(Mapping[str, WordMeasure]):
    """The word measures by name, in the order declared (the order of records and report columns).

    ``version`` counts the changes, so that what is built from the table (the record schema)
    follows.
    """

    def __init__(self, measures: Sequence[WordMeasure]):
        self._measures: dict[str, WordMeasure] = {}
        self.version = 0
        for measure in measures:
            self.register(measure)

    def register(self, measure: WordMeasure) -> WordMeasure:
        """Add ``measure`` after the others; returns it.

        Raises:
            ConfigError: the name is taken (by a measure or by the suite's other records).
        """
        if measure.name in self._measures or measure.name in RESERVED_NAMES:
            taken = ", ".join(self.taken())
            raise ConfigError(f"a measure named {measure.name!r} exists already; taken: {taken}")
        for other in self._measures.values():
            for name in measure.fields.keys() & other.fields.keys():
                mine, theirs = measure.fields[name].type.__name__, other.fields[name].type.__name__
                if mine != theirs:
                    raise ConfigError(
                        f"measure {measure.name!r} declares field {name!r} as {mine}, measure "
                        f"{other.name!r} as {theirs}: one type a field"
                    )
        self._measures[measure.name] = measure
        self.version += 1
        return measure

    def unregister(self, name: str) -> None:
        """Remove the measure ``name`` (nothing when there is none)."""
        if self._measures.pop(name, None) is not None:
            self.version += 1

    def taken(self) -> tuple[str, ...]:
        return (*RESERVED_NAMES, *self._measures)

    def __getitem__(self, name: str) -> WordMeasure:
        return self._measures[name]

    def __iter__(self) -> Iterator[str]:
        return iter(tuple(self._measures))

    def __len__(self) -> int:
        return len(self._measures)


WORD_MEASURES = MeasureTable(
    [
        WordMeasure(
            "rnd",
            relative_norm_distance,
            PER_ATTRIBUTE_SET,
            description="Garg's relative norm distance of an attribute set (term A or B)",
            fields={
                "mean": Field(float, "the mean distance difference"),
                "per_word": Field(list, "each attribute word's distance difference"),
                "n_attributes": Field(int, "attribute words"),
                "normalize": Field(bool, "whether vectors were normalised"),
            },
            label="RND",
            legend="summed distance of the set's words to X's "
            "centroid minus Y's (< 0: nearer X; 0: none).",
            options=("normalize",),
        ),
        WordMeasure(
            "mac",
            mean_average_cosine,
            ALL_SETS,
            description="mean average cosine distance of the targets to the attributes (1: none)",
            fields={
                "by_target_set": Field(list, "per target set"),
                "by_attribute_set": Field(list, "per attribute set"),
                "target_set_sizes": Field(list, "words per target set"),
                "attribute_set_sizes": Field(list, "words per attribute set"),
            },
            label="MAC",
            legend="mean cosine distance of the target words to A and B (1: no association).",
        ),
        WordMeasure(
            "ect",
            embedding_coherence,
            PER_ATTRIBUTE_SET,
            description="embedding coherence test: Spearman rho of the "
            "targets' similarities to a set (term A or B)",
            fields={
                "n_attributes": Field(int, "attribute words"),
                "similarities_x": Field(list, "X's similarity to each attribute word"),
                "similarities_y": Field(list, "Y's similarity to each attribute word"),
            },
            label="ECT",
            legend="Spearman rho of the two targets' similarities to the set's words (1: no bias).",
        ),
        WordMeasure(
            "ripa",
            relational_inner_product,
            RELATION,
            description="mean projection of a target set's words on "
            "the attributes' relation vector (term X or Y)",
            fields={
                "scores": Field(list, "each word's projection"),
                "std": Field(float, "the spread"),
                "relation": Field(str, "how the relation vector was made"),
                "n_words": Field(int, "words projected"),
            },
            label="RIPA",
            legend="mean projection of the set's words on the unit A-B relation vector "
            "(> 0: on A's side; X above Y is WEAT's direction).",
            options=("relation",),
            # One pair, the attribute centroids: the principal-component share is 1 by construction.
            record_constants={"relation": "attribute_centroids"},
            record_omits=("explained_variance", "n_pairs"),
        ),
        WordMeasure(
            "rnsb",
            relative_negative_sentiment,
            TWO_CLASSES,
            description="relative negative sentiment bias: KL divergence from uniform",
            fields={
                "std": Field(float, "the spread"),
                "min": Field(float, "the smallest fit's divergence"),
                "max": Field(float, "the largest fit's divergence"),
                "per_seed": Field(list, "each fit's divergence"),
                "negative_share": Field(list, "per group, the share classified negative"),
                "mean_negative_probability": Field(
                    list, "per group, the mean negative probability"
                ),
                "holdout_accuracy": Field(float, "the classifier's held-out accuracy"),
                "unit": Field(str, "what a group's probability is averaged over"),
                "n_seeds": Field(int, "classifier fits"),
                "train_fraction": Field(
                    float, "share of the attribute words the classifier trains on"
                ),
                "C": Field(float, "the classifier's inverse regularisation"),
                "group_sizes": Field(list, "words per target group"),
                "n_positive": Field(int, "positive training words"),
                "n_negative": Field(int, "negative training words"),
            },
            label="RNSB",
            legend="KL divergence from uniform of the groups' "
            "probabilities of being classified B (0: no bias).",
            options=("unit", "n_seeds", "seed", "train_fraction", "C"),
            draw_options=("n_seeds",),
            seeded=True,
        ),
    ]
)


# ---------------------------------------------------------------------------------------- on a test


@dataclass(frozen=True)
class AssociationResult:
    """The word-vector measures of one test on one (target language, attribute language) pair.

    Attributes:
        test, target_language, attribute_language: the unit.
        coverage: the four sets' :class:`~.pipeline.SetCoverage`, in X, Y, A, B order (as WEAT's).
        measures: the measures asked for, in order.
        results: measure -> term (``"A"``, ``"B"``, ``"X"``, ``"Y"`` or ``None``) -> the stats
        result;
            empty when skipped.
        words: role -> the found words, in set order (the rows the measures saw).
        seeds: measure -> the integer seed of its draws (the seeded measures only).
        skip_reason: why the coverage rule skipped the test (``None`` when it ran).
    """

    test: str
    target_language: str
    attribute_language: str
    coverage: tuple[SetCoverage, ...]
    measures: tuple[str, ...]
    results: Mapping[str, Mapping[str | None, Result]]
    words: Mapping[str, tuple[str, ...]]
    seeds: Mapping[str, int]
    skip_reason: str | None = None

    @property
    def status(self) -> str:
        return "skipped" if self.skip_reason else "ok"

    def set_name(self, role: str) -> str:
        return self.coverage["XYAB".index(role)].name


def run_association(
    embedder: WordEmbedder,
    test: str,
    targets: Mapping[str, WordSet],
    attributes: Mapping[str, WordSet],
    measures: Sequence[str] | None = None,
    min_coverage: float = COVERAGE_THRESHOLD,
    seed: int = 0,
) -> AssociationResult:
    """``measures`` (default: all of :data:`WORD_MEASURES`) on one test: ``targets`` holds sets
    ``"X"``, ``"Y"``; ``attributes`` holds ``"A"``, ``"B"``.

    The sets are embedded and checked by WEAT's coverage rule (:func:`~.pipeline.run_test`); a
    skipped test gives no result, only the reason. ``seed`` is the base seed; each seeded measure
    draws from :func:`~.pipeline.measure_seed` of the unit.
    """
    _check_min_coverage(min_coverage)
    measures = tuple(WORD_MEASURES) if measures is None else tuple(measures)
    unknown = [measure for measure in measures if measure not in WORD_MEASURES]
    if unknown or not measures:
        known = ", ".join(WORD_MEASURES)
        raise InputError(
            f"unknown word-vector measure(s) {unknown or list(measures)}; use some of {known}"
        )
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
        if WORD_MEASURES[measure].seeded
    }
    reasons = [
        reason
        for reason in (_coverage_problem(report, min_coverage) for report in coverage)
        if reason
    ]
    unit = (test, target_language, attribute_language, coverage, measures)
    if reasons:
        return AssociationResult(
            *unit, results={}, words=words, seeds=seeds, skip_reason="; ".join(reasons)
        )
    vectors = {
        word_set.role: np.asarray(rows) for word_set, (rows, _) in zip(sets, embedded, strict=True)
    }
    results = {}
    for name in measures:
        measure = WORD_MEASURES[name]
        keywords = {"seed": seeds[name]} if measure.seeded else {}
        results[name] = measure.shape.on_test(measure.function, vectors, keywords)
    return AssociationResult(*unit, results=results, words=words, seeds=seeds)


# ------------------------------------------------------------------------------------------ on rows


def association_from_roles(
    measure: str, embeddings, roles: Sequence[str], words: Sequence[str] | None = None, **options
) -> dict[str, Result]:
    """Run ``measure`` on row-wise input (one vector per row and its role): the metric's core.

    Roles: ``"X"`` and ``"Y"`` are the target sets, ``"A"`` and ``"B"`` the attribute sets (WEAT's
    roles). Returns a dict from the attribute set(s) used to the result; how the rows meet the
    function is the measure's :class:`Shape`:

    - per attribute set (``"rnd"``, ``"ect"``): X, Y and A are required; the measure is computed for
      A and, when B rows are given, again for B: ``{"A": result, "B": result}``.
    - relation (``"ripa"``): the X and Y rows are the pairs ``(x_i, y_i)`` in row order (as many X
      as Y rows); the words scored are A's, and B's separately when given.
    - all sets (``"mac"``): targets X (and Y, a second target set, when given); every other role is
      an attribute set (any label, any number, in order of first appearance): ``{"A+B": result}``
      (the labels joined by ``+``).
    - two classes (``"rnsb"``): target groups X and Y, positive attribute set A, negative attribute
      set B: ``{"A+B": result}``.

    ``words`` (optional) gives each row's word: a word listed twice in one role counts once (its
    later rows are dropped, with one :class:`~eval_harness.errors.DuplicateWordsWarning`;
    :mod:`eval_harness.stats.word_sets`, WEFE's convention); without words, rows are taken as given.
    ``options`` are the measure's keywords (:attr:`WordMeasure.options`); any other is an
    InputError.
    """
    if measure not in WORD_MEASURES:
        known = tuple(WORD_MEASURES)
        raise InputError(f"unknown measure {measure!r}; give measure= one of {known}")
    declared = WORD_MEASURES[measure]
    unknown = sorted(set(options) - set(declared.options))
    if unknown:
        allowed = declared.options or "none"
        raise InputError(
            f"option(s) {unknown} do not apply to measure {measure!r}; its options: {allowed}"
        )
    check_draw_counts({name: options[name] for name in declared.draw_options if name in options})
    roles = [str(role) for role in roles]
    vectors = matrix(embeddings, "embeddings")
    if len(roles) != len(vectors):
        raise InputError(f"{len(vectors)} embeddings but {len(roles)} roles; give one role per row")
    if words is not None:
        words = [str(word) for word in words]
        if len(words) != len(roles):
            raise InputError(
                f"{len(roles)} embeddings but {len(words)} words; give one word per row"
            )
        keep = distinct_role_rows(roles, words)
        vectors, roles = (
            vectors[keep],
            [role for role, kept in zip(roles, keep, strict=True) if kept],
        )
    labels = list(dict.fromkeys(roles))
    if not declared.shape.any_label:
        extra = sorted(set(labels) - set(TARGET_ROLES) - set(ATTRIBUTE_ROLES))
        if extra:
            known = TARGET_ROLES + ATTRIBUTE_ROLES
            raise InputError(f"unknown role(s) {extra}; every row's role must be one of {known}")
    role_array = np.asarray(roles)
    rows = {label: vectors[role_array == label] for label in labels}
    return declared.shape.on_rows(declared, rows, options)
