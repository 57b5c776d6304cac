r"""CEAT, the Contextualized Embedding Association Test (Guo & Caliskan 2021, AIES).

A contextual model gives a word a different vector in every sentence. CEAT takes, for every word of the four
WEAT sets, vectors from many contexts, and draws :math:`N` samples; sample :math:`i` picks one context vector
per word, uniformly at random and independently (with replacement across samples, as CEAT's code does with
``np.random.randint``), and computes on those vectors WEAT's (cosine) per-word associations
:math:`s(w) = \operatorname{mean}_a \cos(w, a) - \operatorname{mean}_b \cos(w, b)`, then

- the sample's effect size :math:`ES_i = (\operatorname{mean}_{x} s(x) - \operatorname{mean}_{y} s(y)) /
  \operatorname{sd}_{w \in X \cup Y}\, s(w)`, and
- the sample's variance :math:`v_i = \operatorname{var}_{w \in X \cup Y}\, s(w)` — CEAT's choice (the
  variance of the associations over the target words, the square of the effect size's denominator; both with
  ``ddof=1`` in CEAT's code, our default). It is not the sampling variance of :math:`ES_i` (for a
  standardised mean difference that would be about :math:`(n_x + n_y) / (n_x n_y) + ES_i^2 / (2 (n_x + n_y))`,
  Hedges & Olkin 1985); we follow CEAT so that results compare with the paper's.

The :math:`(ES_i, v_i)` are combined by a DerSimonian–Laird random-effects model
(:func:`eval_harness.stats.meta_analysis.random_effects`): the combined effect size (CES), its standard error
and p-value, the between-sample variance :math:`\tau^2`, Q and :math:`I^2`. CEAT's code reports the one-sided
p-value ``norm.sf(CES / SE)`` (``alternative="greater"``, the default here; the paper speaks of a two-sided
test, available as ``"two-sided"``).

Everything is deterministic given ``seed``: the context indices are drawn from ``numpy.random.default_rng(seed)``
word by word in the order X, Y, A, B (each word's ``n_samples`` indices at once).
"""

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from .meta_analysis import MetaAnalysisResult, random_effects

DEFAULT_SAMPLES = 10_000
# Samples handled per vectorised block (memory: block x |X u Y| x dim floats).
_BLOCK = 256


@dataclass(frozen=True)
class CEATResult:
    """A CEAT test: the random-effects combination of ``n_samples`` sampled WEAT effect sizes.

    Attributes:
        meta: the random-effects result (combined effect size, SE, p, tau^2, Q, I^2, fixed effect).
        sample_effect_mean, sample_effect_std: mean and standard deviation (ddof=1) of the sampled effect sizes.
        n_samples, ddof: the sampling settings; seed: the seed used (``None``: fresh entropy, not reproducible).
        n_x, n_y, n_a, n_b: words per set; min_contexts, max_contexts: fewest and most contexts of a word.
    """

    meta: MetaAnalysisResult
    sample_effect_mean: float
    sample_effect_std: float
    n_samples: int
    ddof: int
    seed: int | None
    n_x: int
    n_y: int
    n_a: int
    n_b: int
    min_contexts: int
    max_contexts: int

    def to_dict(self) -> dict:
        """Flat: the meta-analysis fields (``combined_effect`` is the CES), then the sampling fields."""
        flat = self.meta.to_dict()
        flat.update(
            sample_effect_mean=self.sample_effect_mean,
            sample_effect_std=self.sample_effect_std,
            n_samples=self.n_samples,
            ddof=self.ddof,
            seed=self.seed,
            n_x=self.n_x,
            n_y=self.n_y,
            n_a=self.n_a,
            n_b=self.n_b,
            min_contexts=self.min_contexts,
            max_contexts=self.max_contexts,
        )
        return flat

    def summary(self) -> str:
        return (
            f"CEAT (|X|={self.n_x} |Y|={self.n_y} |A|={self.n_a} |B|={self.n_b}; {self.n_samples:,} samples from "
            f"{self.min_contexts}-{self.max_contexts} contexts per word, seed {self.seed}): "
            f"CES {self.meta.combined_effect:.3f} (SE {self.meta.std_err:.3g}, p={self.meta.p_value:.3g} "
            f"{self.meta.alternative}), tau^2={self.meta.tau2:.3g}, I^2={self.meta.i2:.1%}; sampled effect sizes "
            f"{self.sample_effect_mean:.3f} ± {self.sample_effect_std:.3f}"
        )


def ceat_samples(
    x: Mapping[str, object],
    y: Mapping[str, object],
    a: Mapping[str, object],
    b: Mapping[str, object],
    n_samples: int = DEFAULT_SAMPLES,
    seed: int | None = None,
    ddof: int = 1,
) -> tuple[np.ndarray, np.ndarray]:
    """The sampled effect sizes and CEAT variances ``(ES, v)``, two ``(n_samples,)`` arrays (module docstring).

    Each set maps a word to its context vectors, an ``(n_contexts, dim)`` array (e.g. the rows of
    :meth:`eval_harness.models.encoder.TransformerEncoder.embed_words_in_contexts`' result for that word).
    """
    if isinstance(n_samples, bool) or not isinstance(n_samples, int | np.integer) or n_samples < 2:
        raise InputError(f"n_samples must be an integer >= 2 (a meta-analysis needs 2 effects); got {n_samples!r}")
    if ddof not in (0, 1):
        raise InputError(f"ddof must be 0 or 1; got {ddof!r}")
    sets = {name: _context_set(words, name) for name, words in (("X", x), ("Y", y), ("A", a), ("B", b))}
    dims = {vectors.shape[1] for words in sets.values() for vectors in words.values()}
    if len(dims) > 1:
        raise InputError(f"all context vectors must have the same dimension; got {sorted(dims)}")
    if len(sets["X"]) + len(sets["Y"]) <= ddof:
        raise InputError("need more target words than ddof to compute a standard deviation")
    rng = np.random.default_rng(seed)
    # One draw of n_samples context indices per word, in the order X, Y, A, B.
    drawn = {
        name: [(vectors, rng.integers(0, len(vectors), size=n_samples)) for vectors in words.values()]
        for name, words in sets.items()
    }
    n_x = len(sets["X"])
    effects, variances = np.empty(n_samples), np.empty(n_samples)
    for start in range(0, n_samples, _BLOCK):
        block = slice(start, min(start + _BLOCK, n_samples))
        targets = _gather(drawn["X"] + drawn["Y"], block)  # (samples, words, dim)
        # mean_a cos(w, a) - mean_b cos(w, b) = w_hat . (mean_a a_hat - mean_b b_hat)
        difference = _gather(drawn["A"], block).mean(axis=1) - _gather(drawn["B"], block).mean(axis=1)
        associations = np.einsum("swd,sd->sw", targets, difference)
        spread = associations.std(axis=1, ddof=ddof)
        if not (spread > 1e-12 * np.abs(associations).max(axis=1)).all():
            raise InputError(
                "in some sample every target word has the same association (standard deviation 0): the effect "
                "size is undefined; check that the context vectors of different words are not identical"
            )
        effects[block] = (associations[:, :n_x].mean(axis=1) - associations[:, n_x:].mean(axis=1)) / spread
        variances[block] = spread**2
    return effects, variances


def ceat(
    x: Mapping[str, object],
    y: Mapping[str, object],
    a: Mapping[str, object],
    b: Mapping[str, object],
    n_samples: int = DEFAULT_SAMPLES,
    seed: int | None = None,
    ddof: int = 1,
    alternative: str = "greater",
) -> CEATResult:
    """Run CEAT: :func:`ceat_samples`, then :func:`~eval_harness.stats.meta_analysis.random_effects`.

    Args:
        x, y, a, b: word -> ``(n_contexts, dim)`` context vectors, for the targets X, Y and attributes A, B.
        n_samples: samples ``N`` (CEAT uses 10,000).
        seed: seed of the context draws (an int makes the result reproducible).
        ddof: of the per-sample standard deviation and variance (CEAT: 1).
        alternative: ``"greater"`` (CEAT's code), ``"less"`` or ``"two-sided"``.
    """
    effects, variances = ceat_samples(x, y, a, b, n_samples=n_samples, seed=seed, ddof=ddof)
    meta = random_effects(effects, variances, alternative=alternative)
    counts = [len(vectors) for words in (x, y, a, b) for vectors in words.values()]
    return CEATResult(
        meta=meta,
        sample_effect_mean=float(effects.mean()),
        sample_effect_std=float(effects.std(ddof=1)),
        n_samples=int(n_samples),
        ddof=ddof,
        seed=seed,
        n_x=len(x),
        n_y=len(y),
        n_a=len(a),
        n_b=len(b),
        min_contexts=min(counts),
        max_contexts=max(counts),
    )


def _context_set(words: Mapping[str, object], name: str) -> dict[str, np.ndarray]:
    """``word -> unit-length float64 (n_contexts, dim)`` for one set, or an InputError naming the problem."""
    if not isinstance(words, Mapping) or not words:
        raise InputError(f"set {name} must be a non-empty mapping word -> (n_contexts, dim) context vectors")
    checked, empty = {}, []
    for word, vectors in words.items():
        try:
            array = np.asarray(vectors, dtype=np.float64)
        except (TypeError, ValueError) as error:
            raise InputError(f"set {name}, word {word!r}: context vectors must be numbers ({error})") from error
        if array.ndim != 2:
            raise InputError(f"set {name}, word {word!r}: expected (n_contexts, dim) vectors; got shape {array.shape}")
        if len(array) == 0:
            empty.append(word)
            continue
        norms = np.linalg.norm(array, axis=1, keepdims=True)
        if not np.isfinite(array).all() or not (norms > 0).all():
            raise InputError(f"set {name}, word {word!r}: a context vector is zero or contains NaN/inf")
        checked[word] = array / norms
    if empty:
        raise InputError(
            f"set {name}: no context vectors for {len(empty)} word(s) {empty[:10]}; find sentences with these "
            "words or drop them from the test"
        )
    return checked


def _gather(drawn: list[tuple[np.ndarray, np.ndarray]], block: slice) -> np.ndarray:
    """``(samples in block, words, dim)``: each word's drawn context vector for each sample of the block."""
    return np.stack([vectors[indices[block]] for vectors, indices in drawn], axis=1)
