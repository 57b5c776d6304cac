r"""Word-embedding association measures besides WEAT: RND, MAC, ECT, RIPA and RNSB.

Every function takes the vectors of role-labelled word sets as ``(n_words, dim)`` arrays, the same
input as :func:`eval_harness.stats.weat.weat`: target sets :math:`X, Y` (the groups) and attribute
sets :math:`A, B` (MAC takes any number of attribute sets, RNSB any number of target groups). How
each meets a test's roles, and its name, record fields and report label, is its entry in
:data:`eval_harness.suites.xweat.measures.WORD_MEASURES`, which the xweat suite, its report and the
``word_association`` metric read.

=======  ==========================================  =============  ============================  ================
measure  value                                       range          no bias / no association      reference
=======  ==========================================  =============  ============================  ================
RND      :math:`\sum_a \lVert a-\bar x\rVert -        real           0                             Garg et al. 2018
         \lVert a-\bar y\rVert`
MAC      mean cosine distance of target words to     [0, 2]         1 (orthogonal: no             Manzini et al.
         each attribute set                                         association at all)           2019
ECT      Spearman correlation of the two target      [-1, 1]        1 (both groups rank the       Dev & Phillips
         means' cosines with the attribute words                    attributes alike)             2019
RIPA     mean of :math:`w \cdot b`, b the unit       real           0                             Ethayarajh et al.
         relation vector of the (x_i, y_i) pairs                                                  2019
RNSB     KL divergence from uniform of the           [0, ln k]      0                             Sweeney &
         normalised negative-class probabilities                                                  Najafian 2019
=======  ==========================================  =============  ============================  ================

Conventions of WEFE 1.0.1 (Badilla et al. 2020), where they differ from ours, are stated in each
docstring.
"""  # noqa: E501

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from .results import Result

# weat's input checks, shared so that every measure rejects bad vectors with the same messages.
from .vectors import is_whole_number, unit_rows, vector_sets
from .weat import similarity_matrix

RELATIONS = ("pca", "pair_mean")
RNSB_UNITS = ("group", "word")
DEFAULT_RNSB_SEEDS = 10
DEFAULT_TRAIN_FRACTION = 0.8


# ---------------------------------------------------------------------------------------------- RND


@dataclass(frozen=True)
class RNDResult(Result):
    """Relative norm distance of two target groups with respect to one attribute set.

    Attributes:
        value: Garg et al.'s sum over the attribute words of ``|a - mean X| - |a - mean Y|``;
            negative when the attribute words are nearer X's centroid.
        mean: ``value / n_attributes`` (WEFE's ``rnd``).
        per_word: each attribute word's ``|a - mean X| - |a - mean Y|``, in input order.
        n_x, n_y, n_attributes: set sizes; normalize: whether word vectors were L2-normalised first.
    """

    value: float
    mean: float
    per_word: tuple[float, ...]
    n_x: int
    n_y: int
    n_attributes: int
    normalize: bool

    def summary(self) -> str:
        side = "X" if self.value < 0 else "Y"
        return (
            f"RND (|X|={self.n_x} |Y|={self.n_y} |attributes|={self.n_attributes}, "
            f"normalize={self.normalize}): {self.value:.4f} (mean {self.mean:.4f} "
            f"per word; the attributes are nearer {side}'s centroid)"
        )


def relative_norm_distance(x, y, attributes, normalize: bool = True) -> RNDResult:
    r"""Relative norm distance (Garg et al. 2018, PNAS 115(16), eq. in "Metrics").

    .. math:: \mathrm{RND} = \sum_{a \in A} \big(\lVert a - \bar x \rVert_2 - \lVert a - \bar y \rVert_2\big),
       \qquad \bar x = \tfrac{1}{|X|} \sum_{x \in X} x, \quad \bar y = \tfrac{1}{|Y|} \sum_{y \in Y} y

    With ``normalize=True`` (Garg et al.) every word vector is scaled to unit length before the
    centroids are taken (the centroids themselves are not re-normalised). Negative: the attribute
    words are, on the whole, nearer X's centroid than Y's; 0: equally near.

    WEFE's ``RND`` reports the *mean* over the attribute words (our ``mean``), does not normalise by
    default (``normalize=False``), and its ``distance="cos"`` option sums cosine *similarities*
    (sign reversed); we keep Garg's Euclidean sum as ``value``.

    Examples
    --------
    >>> import numpy as np
    >>> from eval_harness.stats.association import relative_norm_distance
    >>> x, y = np.array([[2.0, 0.0], [0.0, 2.0]]), np.array([[-3.0, 0.0], [1.0, 0.0]])
    >>> r = relative_norm_distance(x, y, np.array([[1.0, 1.0], [-1.0, 1.0]]), normalize=False)
    >>> round(r.value, 4), round(r.mean, 4)
    (-1.2361, -0.618)
    """  # noqa: E501
    sets = vector_sets({"X": x, "Y": y, "attributes": attributes}, allow_zero=not normalize)
    if normalize:
        sets = {name: unit_rows(vectors, f"set {name}") for name, vectors in sets.items()}
    centroid_x, centroid_y = sets["X"].mean(axis=0), sets["Y"].mean(axis=0)
    words = sets["attributes"]
    per_word = np.linalg.norm(words - centroid_x, axis=1) - np.linalg.norm(
        words - centroid_y, axis=1
    )
    return RNDResult(
        value=float(per_word.sum()),
        mean=float(per_word.mean()),
        per_word=tuple(float(v) for v in per_word),
        n_x=len(sets["X"]),
        n_y=len(sets["Y"]),
        n_attributes=len(words),
        normalize=bool(normalize),
    )


# ---------------------------------------------------------------------------------------------- MAC


@dataclass(frozen=True)
class MACResult(Result):
    """Mean average cosine distance of target words to attribute sets.

    Attributes:
        value: the mean over every (target word, attribute set) pair of the word's mean cosine
            distance to the set's words; in [0, 2], 1 when targets and attributes are orthogonal.
        by_target_set: the same mean restricted to each target set, in input order.
        by_attribute_set: the same mean restricted to each attribute set, in input order.
        target_set_sizes, attribute_set_sizes: set sizes.
    """

    value: float
    by_target_set: tuple[float, ...]
    by_attribute_set: tuple[float, ...]
    target_set_sizes: tuple[int, ...]
    attribute_set_sizes: tuple[int, ...]

    def summary(self) -> str:
        targets = ", ".join(f"{v:.4f}" for v in self.by_target_set)
        return (
            f"MAC ({len(self.target_set_sizes)} target set(s) of "
            f"{list(self.target_set_sizes)} words, {len(self.attribute_set_sizes)} attribute "
            f"set(s)): {self.value:.4f} (1 = no association; per target set: {targets})"
        )


def mean_average_cosine(target_sets: Sequence, attribute_sets: Sequence) -> MACResult:
    r"""Mean average cosine (Manzini et al. 2019, NAACL, section 3.2 "MAC").

    .. math:: S(t, A_j) = \frac{1}{|A_j|} \sum_{a \in A_j} \big(1 - \cos(t, a)\big), \qquad
       \mathrm{MAC}(T, \mathcal{A}) = \frac{1}{|T|\,|\mathcal{A}|} \sum_{t \in T} \sum_{A_j \in \mathcal{A}}
       S(t, A_j)

    where :math:`T` is the union of the target sets (every target word counts once per attribute
    set) and :math:`\mathcal{A}` any number of attribute sets. Lower means the targets lie closer to
    the attributes; 1 is orthogonality (no association), and a debiased space should move towards
    it. MAC measures closeness, not a difference between groups: compare ``by_target_set`` across
    groups for that. Same as WEFE's ``MAC``.

    Examples
    --------
    >>> import numpy as np
    >>> from eval_harness.stats.association import mean_average_cosine
    >>> targets = [np.array([[1.0, 0.0], [1.0, 1.0]])]
    >>> r = mean_average_cosine(targets, [np.array([[1.0, 0.0]]), np.array([[0.0, 1.0]])])
    >>> round(r.value, 4), [round(v, 4) for v in r.by_attribute_set]
    (0.3964, [0.1464, 0.6464])
    """  # noqa: E501
    targets = _named_sets(target_sets, "target set")
    attributes = _named_sets(attribute_sets, "attribute set")
    vector_sets({**targets, **attributes})
    all_targets = np.vstack(list(targets.values()))
    distances = np.column_stack(
        [
            1.0 - similarity_matrix(all_targets, vectors).mean(axis=1)
            for vectors in attributes.values()
        ]
    )  # (target words, attribute sets)
    bounds = np.cumsum([0] + [len(v) for v in targets.values()])
    return MACResult(
        value=float(distances.mean()),
        by_target_set=tuple(
            float(distances[start:end].mean())
            for start, end in zip(bounds[:-1], bounds[1:], strict=True)
        ),
        by_attribute_set=tuple(float(v) for v in distances.mean(axis=0)),
        target_set_sizes=tuple(len(v) for v in targets.values()),
        attribute_set_sizes=tuple(len(v) for v in attributes.values()),
    )


# ---------------------------------------------------------------------------------------------- ECT


@dataclass(frozen=True)
class ECTResult(Result):
    """Embedding coherence test: do the two groups rank the attribute words alike?

    Attributes:
        value: Spearman's rho between ``cos(mean X, a)`` and ``cos(mean Y, a)`` over the attribute
        words;
            in [-1, 1], 1 when both groups order the attributes identically (no bias).
        similarities_x, similarities_y: the two cosine profiles, in attribute order.
        n_x, n_y, n_attributes: set sizes.
    """

    value: float
    similarities_x: tuple[float, ...]
    similarities_y: tuple[float, ...]
    n_x: int
    n_y: int
    n_attributes: int

    def summary(self) -> str:
        return (
            f"ECT (|X|={self.n_x} |Y|={self.n_y} |attributes|={self.n_attributes}): "
            f"Spearman rho {self.value:.4f} (1 = both groups rank the attributes alike)"
        )


def embedding_coherence(x, y, attributes) -> ECTResult:
    r"""Embedding coherence test (Dev & Phillips 2019, AISTATS, section 5 "ECT").

    .. math:: s_X = \big(\cos(\bar x, a)\big)_{a \in A}, \quad s_Y = \big(\cos(\bar y, a)\big)_{a \in A}, \qquad
       \mathrm{ECT} = \rho_{\text{Spearman}}(s_X, s_Y)

    with :math:`\bar x, \bar y` the means of the (unnormalised) target vectors; ties get average
    ranks. A biased space ranks the attribute words (e.g. occupations) differently by group, so
    lower means more bias. Same as WEFE's ``ECT`` (which also averages raw vectors unless
    ``normalize=True``).

    Examples
    --------
    >>> import numpy as np
    >>> from eval_harness.stats.association import embedding_coherence
    >>> x, y = np.array([[1.0, 0.0], [0.9, 0.1]]), np.array([[0.0, 1.0], [0.1, 0.9]])
    >>> attributes = np.array([[1.0, 0.2], [0.5, 0.5], [0.2, 1.0]])
    >>> r = embedding_coherence(x, y, attributes)
    >>> round(r.value, 4), r.n_attributes
    (-1.0, 3)
    """  # noqa: E501
    sets = vector_sets({"X": x, "Y": y, "attributes": attributes})
    if len(sets["attributes"]) < 2:
        raise InputError("ECT ranks the attribute words: give at least 2 of them")
    means = np.vstack([sets["X"].mean(axis=0), sets["Y"].mean(axis=0)])
    similarities = similarity_matrix(means, sets["attributes"])
    if np.ptp(similarities[0]) == 0 or np.ptp(similarities[1]) == 0:
        raise InputError(
            "ECT is undefined: one target mean is equally similar to every attribute "
            "word (no ranking); check that the attribute vectors are not all identical"
        )
    from scipy import stats as scipy_stats  # scipy on use: `xbias list` and config checks load none

    rho = scipy_stats.spearmanr(similarities[0], similarities[1]).statistic
    return ECTResult(
        value=float(rho),
        similarities_x=tuple(float(v) for v in similarities[0]),
        similarities_y=tuple(float(v) for v in similarities[1]),
        n_x=len(sets["X"]),
        n_y=len(sets["Y"]),
        n_attributes=len(sets["attributes"]),
    )


# --------------------------------------------------------------------------------------------- RIPA


@dataclass(frozen=True)
class RIPAResult(Result):
    """Relational inner product association of words with the relation defined by (x_i, y_i) pairs.

    Attributes:
        value: mean of the words' scores; > 0 when the words lie on x's side of the relation.
        scores: each word's ``w . b``, in input order.
        std: population standard deviation of the scores.
        relation: ``"pca"`` or ``"pair_mean"`` (see :func:`relational_inner_product`).
        explained_variance: share of the pair differences' squared norm along ``b`` (``"pca"``: the
            first singular value squared over the sum of all; 1 when all pairs point the same way).
            ``None`` for ``"pair_mean"``.
        n_pairs, n_words: sizes.
    """

    value: float
    scores: tuple[float, ...]
    std: float
    relation: str
    explained_variance: float | None
    n_pairs: int
    n_words: int

    def summary(self) -> str:
        how = f"first principal component, {self.explained_variance:.0%} of the pairs' variance"
        if self.relation == "pair_mean":
            how = "mean over pairs (WEFE)"
        return (
            f"RIPA ({self.n_pairs} pair(s), {how}; {self.n_words} word(s)): mean {self.value:.4f}, "
            f"std {self.std:.4f} (> 0: on the X side of the relation)"
        )


def relational_inner_product(x_pairs, y_pairs, words, relation: str = "pca") -> RIPAResult:
    r"""Relational inner product association (Ethayarajh, Duvenaud & Hirst 2019, ACL, section 5).

    .. math:: \beta(w; b) = \langle w, b \rangle, \qquad \lVert b \rVert = 1

    The relation vector :math:`b` comes from the pairs :math:`(x_i, y_i)` (``x_pairs[i]``,
    ``y_pairs[i]``; e.g. (man, woman), (king, queen)) through their differences :math:`d_i = x_i -
    y_i`:

    - ``relation="pca"`` (the paper): the first principal component of the pairs, i.e. the top right
      singular vector of the matrix of rows :math:`d_i` (the uncentred SVD of the differences, which
      is also the first principal component of the pair-centred vectors :math:`\pm d_i / 2`,
      Bolukbasi et al.'s construction), oriented so that :math:`\sum_i \langle d_i, b \rangle > 0`;
      with one pair, :math:`b = d_1 / \lVert d_1 \rVert`.
    - ``relation="pair_mean"`` (WEFE's ``RIPA``): the mean over pairs of
      :math:`\langle w, d_i / \lVert d_i \rVert \rangle`, i.e. the projection on the (not
      re-normalised) mean of the unit pair directions.

    Word vectors are used as given (not normalised): RIPA's interpretation rests on the raw inner
    product.

    Why RIPA (the paper's robustness argument): WEAT's effect size is a difference of mean
    associations divided by their spread, so it is a property of the chosen *attribute sets* as much
    as of the words — the authors show that it can be inflated, or its sign flipped, by the choice
    of attribute words, and that it implicitly assumes the attribute words are equally frequent.
    RIPA instead scores *each word* by its inner product with one relation vector, so a word's score
    does not change when other words are added or removed. The paper also shows that, for vectors
    that factorise the word-context
    PMI matrix without reconstruction error (SGNS, GloVe), :math:`\beta(w; b)` is a scaled
    difference of :math:`w`'s PMI with :math:`x` and with :math:`y` — a log ratio of co-occurrence
    probabilities, i.e. an interpretable quantity — whereas cosine-based scores (WEAT, Bolukbasi et
    al.'s projection) divide by the vector norms and lose that reading. Taking :math:`b` from
    several pairs (the first principal component) makes the score less dependent on any one pair.
    Its limits: without a coherent relation (low ``explained_variance``) the scores mean little, and
    the theory is for static embeddings (SGNS, GloVe).

    Examples
    --------
    >>> import numpy as np
    >>> from eval_harness.stats.association import relational_inner_product
    >>> he_she = (np.array([[1.0, 0.2]]), np.array([[-1.0, 0.2]]))
    >>> r = relational_inner_product(*he_she, np.array([[0.5, 1.0], [-0.3, 1.0]]))
    >>> np.round(r.scores, 4).tolist(), round(r.value, 4)
    ([0.5, -0.3], 0.1)
    """
    if relation not in RELATIONS:
        raise InputError(f"unknown relation {relation!r}; use one of {RELATIONS}")
    # Raw inner products: a zero vector is a valid input (it projects to 0).
    sets = vector_sets({"x_pairs": x_pairs, "y_pairs": y_pairs, "words": words}, allow_zero=True)
    if len(sets["x_pairs"]) != len(sets["y_pairs"]):
        raise InputError(
            f"RIPA needs (x_i, y_i) pairs: x_pairs has {len(sets['x_pairs'])} rows but y_pairs has "
            f"{len(sets['y_pairs'])}; give one y per x, in the same order"
        )
    differences = sets["x_pairs"] - sets["y_pairs"]
    lengths = np.linalg.norm(differences, axis=1)
    if not (lengths > 0).all():
        same = np.flatnonzero(lengths == 0)[:5].tolist()
        raise InputError(f"pair(s) {same}: x and y are the same vector, so they define no relation")
    if relation == "pca":
        _, singular_values, right = np.linalg.svd(differences, full_matrices=False)
        direction = right[0] if (differences @ right[0]).sum() > 0 else -right[0]
        explained = float(singular_values[0] ** 2 / (singular_values**2).sum())
    else:
        direction = (differences / lengths[:, None]).mean(axis=0)
        explained = None
    scores = sets["words"] @ direction
    return RIPAResult(
        value=float(scores.mean()),
        scores=tuple(float(v) for v in scores),
        std=float(scores.std()),
        relation=relation,
        explained_variance=explained,
        n_pairs=len(differences),
        n_words=len(scores),
    )


# --------------------------------------------------------------------------------------------- RNSB


@dataclass(frozen=True)
class RNSBResult(Result):
    """Relative negative sentiment bias over target groups, over several seeded classifier fits.

    Attributes:
        value: mean over seeds of the KL divergence (natural log) of the negative-probability
            distribution from uniform; 0 when every unit is equally likely to be classified
            negative.
        std, min, max: spread of the divergence over the seeds (``std`` with ddof=1; 0 for one fit).
        per_seed: the divergence of each fit.
        negative_share: the mean (over seeds) normalised distribution, one share per unit (group or
            word, in input order); the units above ``1 / k`` are the ones the classifier finds more
            negative.
        mean_negative_probability: per target group, the mean over its words and the seeds of
            ``P(negative | w)``.
        holdout_accuracy: mean accuracy of the classifiers on their held-out attribute words
            (``None`` when ``train_fraction`` is 1); near 0.5 means the attribute sets are not
            separable and RNSB means little.
        unit: ``"group"`` or ``"word"``; n_seeds, train_fraction, C: the fitting settings.
        group_sizes, n_positive, n_negative: set sizes.
    """

    value: float
    std: float
    min: float
    max: float
    per_seed: tuple[float, ...]
    negative_share: tuple[float, ...]
    mean_negative_probability: tuple[float, ...]
    holdout_accuracy: float | None
    unit: str
    n_seeds: int
    train_fraction: float
    C: float
    group_sizes: tuple[int, ...]
    n_positive: int
    n_negative: int

    def summary(self) -> str:
        accuracy = (
            ""
            if self.holdout_accuracy is None
            else f", held-out accuracy {self.holdout_accuracy:.2f}"
        )
        return (
            f"RNSB ({len(self.group_sizes)} groups of {list(self.group_sizes)} words, "
            f"over {self.unit}s; {self.n_seeds} fit(s){accuracy}): KL {self.value:.4f} ± "
            f"{self.std:.4f} [{self.min:.4f}, {self.max:.4f}]; mean P(negative) per group "
            + ", ".join(f"{p:.3f}" for p in self.mean_negative_probability)
        )


def kl_from_uniform(weights) -> float:
    r"""The Kullback-Leibler divergence of the normalised weights from the uniform distribution.

    :math:`D_{KL}(P \,\Vert\, U) = \sum_i P_i \ln(k P_i)` for :math:`P = w / \sum w` over :math:`k`
    units and :math:`U` uniform (natural log, :math:`0 \ln 0 = 0`); in :math:`[0, \ln k]`.

    Examples
    --------
    >>> import math
    >>> from eval_harness.stats.association import kl_from_uniform
    >>> kl_from_uniform([0.2, 0.2]), round(kl_from_uniform([1.0, 0.0]), 4), round(math.log(2), 4)
    (0.0, 0.6931, 0.6931)
    """
    weights = np.asarray(weights, dtype=np.float64)
    if weights.ndim != 1 or len(weights) < 2:
        raise InputError(
            "need at least 2 non-negative weights to "
            f"compare with uniform; got shape {weights.shape}"
        )
    if not np.isfinite(weights).all() or (weights < 0).any() or weights.sum() <= 0:
        raise InputError("the weights must be finite, non-negative and not all zero")
    share = weights / weights.sum()
    positive = share > 0
    return float(np.sum(share[positive] * np.log(len(share) * share[positive])))


def relative_negative_sentiment(
    target_groups: Sequence,
    positive,
    negative,
    unit: str = "group",
    n_seeds: int = DEFAULT_RNSB_SEEDS,
    seed: int | None = 0,
    train_fraction: float = DEFAULT_TRAIN_FRACTION,
    C: float = 1.0,
) -> RNSBResult:
    r"""Relative negative sentiment bias (Sweeney & Najafian 2019, ACL, section 3).

    1. A logistic regression (L2 penalty with inverse strength ``C``, unpenalised intercept;
       scikit-learn's Newton solver to a tight tolerance) learns ``negative`` (label 1) vs
       ``positive`` (label 0) attribute words from a stratified random ``train_fraction`` of each
       set (all of them when ``train_fraction`` is 1).
    2. Each target word gets :math:`p(w) = P(\text{negative} \mid w)`.
    3. ``unit="group"``: each target group :math:`g` gets :math:`\bar p_g = \operatorname{mean}_{w
       \in g} p(w)`; ``unit="word"``: every target word is its own unit. The units' values are
       normalised to a distribution :math:`P` and

       .. math:: \mathrm{RNSB} = D_{KL}(P \,\Vert\, U) = \sum_i P_i \ln(k P_i)

       over the :math:`k` units (:func:`kl_from_uniform`).
    4. Steps 1-3 are repeated for ``n_seeds`` splits drawn from ``numpy.random.SeedSequence(seed)``
       (one child sequence per fit, so a result is reproducible from ``seed``); the reported value
       is the mean divergence, with its spread. With ``train_fraction=1`` there is nothing random
       and one fit is made.

    ``unit="group"`` (default) measures the difference between groups: with groups of several words,
    the per-word divergence is also driven by how words vary within a group, and is > 0 with no
    group bias at all. ``unit="word"`` is the paper's definition when each identity is one word
    (e.g. "American", "Mexican"), and WEFE's (over all target words of all sets). WEFE's defaults
    also differ: scikit-learn's ``liblinear`` solver (which penalises the intercept too), a held-out
    split of 20% per fit, and ``n_iterations=1``.

    Examples
    --------
    >>> import numpy as np
    >>> from eval_harness.stats.association import relative_negative_sentiment
    >>> positive = np.array([[1.0, 0.1], [0.9, 0.0], [1.1, -0.1], [0.8, 0.2]])
    >>> negative = -positive
    >>> groups = [np.array([[0.5, 0.0], [0.4, 0.1]]), np.array([[-0.5, 0.0], [-0.4, 0.1]])]
    >>> r = relative_negative_sentiment(groups, positive, negative, train_fraction=1.0)
    >>> round(r.value, 3), r.n_seeds, np.round(r.mean_negative_probability, 3).tolist()
    (0.053, 1, [0.339, 0.659])
    """
    if unit not in RNSB_UNITS:
        raise InputError(f"unknown unit {unit!r}; use one of {RNSB_UNITS}")
    if not is_whole_number(n_seeds) or n_seeds < 1:
        raise InputError(f"n_seeds must be a whole number >= 1; got {n_seeds!r}")
    if (
        isinstance(train_fraction, bool)
        or not isinstance(train_fraction, numbers.Real)
        or not 0 < train_fraction <= 1
    ):
        raise InputError(f"train_fraction must be in (0, 1]; got {train_fraction!r}")
    if isinstance(C, bool) or not isinstance(C, numbers.Real) or not (math.isfinite(C) and C > 0):
        raise InputError(
            f"C (inverse regularisation strength) must be a positive number; got {C!r}"
        )
    groups = _named_sets(target_groups, "target group")
    if len(groups) < 2 and unit == "group":
        raise InputError("RNSB over groups needs at least 2 target groups (or unit='word')")
    sets = vector_sets({**groups, "positive": positive, "negative": negative}, allow_zero=True)
    for name in ("positive", "negative"):
        if train_fraction < 1 and len(sets[name]) < 2:
            raise InputError(
                f"the {name} attribute set has {len(sets[name])} word(s): a "
                "held-out split needs at least 2 per set (or set train_fraction=1)"
            )
    attributes = np.vstack([sets["positive"], sets["negative"]])
    labels = np.repeat([0, 1], [len(sets["positive"]), len(sets["negative"])])
    targets = np.vstack([sets[name] for name in groups])
    group_of_word = np.repeat(np.arange(len(groups)), [len(sets[name]) for name in groups])
    n_fits = 1 if train_fraction == 1 else int(n_seeds)
    children = np.random.SeedSequence(seed).spawn(n_fits)
    divergences, shares, group_means, accuracies = [], [], [], []
    for child in children:
        train = _stratified_train_mask(labels, train_fraction, np.random.default_rng(child))
        classifier = _fit_logistic(attributes[train], labels[train], C)
        if not train.all():
            accuracies.append(
                float((classifier.predict(attributes[~train]) == labels[~train]).mean())
            )
        negative_probability = classifier.predict_proba(targets)[:, 1]
        per_group = np.array(
            [negative_probability[group_of_word == g].mean() for g in range(len(groups))]
        )
        units = per_group if unit == "group" else negative_probability
        divergences.append(kl_from_uniform(units))
        shares.append(units / units.sum())
        group_means.append(per_group)
    divergences = np.array(divergences)
    return RNSBResult(
        value=float(divergences.mean()),
        std=float(divergences.std(ddof=1)) if len(divergences) > 1 else 0.0,
        min=float(divergences.min()),
        max=float(divergences.max()),
        per_seed=tuple(float(v) for v in divergences),
        negative_share=tuple(float(v) for v in np.mean(shares, axis=0)),
        mean_negative_probability=tuple(float(v) for v in np.mean(group_means, axis=0)),
        holdout_accuracy=float(np.mean(accuracies)) if accuracies else None,
        unit=unit,
        n_seeds=n_fits,
        train_fraction=float(train_fraction),
        C=float(C),
        group_sizes=tuple(len(sets[name]) for name in groups),
        n_positive=len(sets["positive"]),
        n_negative=len(sets["negative"]),
    )


def _stratified_train_mask(
    labels: np.ndarray, train_fraction: float, rng: np.random.Generator
) -> np.ndarray:
    """Boolean mask of a stratified random training split: ``round(fraction * n)`` words of each
    class, at least 1 and (when ``fraction < 1``) at most ``n - 1``, so that every class is trained
    on and tested."""
    mask = np.zeros(len(labels), dtype=bool)
    if train_fraction == 1:
        mask[:] = True
        return mask
    for label in np.unique(labels):
        members = np.flatnonzero(labels == label)
        size = min(max(round(train_fraction * len(members)), 1), len(members) - 1)
        mask[rng.permutation(members)[:size]] = True
    return mask


def _fit_logistic(vectors: np.ndarray, labels: np.ndarray, C: float):
    from sklearn.linear_model import LogisticRegression

    # Newton steps with a tight tolerance: the fit is the penalised maximum-likelihood optimum, not
    # an early stop, in a few iterations (lbfgs reaches the same optimum ~10x slower on 50-d word
    # vectors).
    return LogisticRegression(C=C, solver="newton-cholesky", max_iter=100, tol=1e-10).fit(
        vectors, labels
    )


# ------------------------------------------------------------------------------------------ helpers


def _named_sets(sets: Sequence, what: str) -> dict[str, object]:
    if isinstance(sets, np.ndarray) and sets.ndim == 2:
        raise InputError(
            f"give the {what}s as a list of (n, dim) arrays, one per set, not one 2-D array"
        )
    sets = list(sets)
    if not sets:
        raise InputError(f"give at least one {what}")
    return {f"{what} {i}": vectors for i, vectors in enumerate(sets)}
