r"""CEAT, the Contextualized Embedding Association Test (Guo & Caliskan 2021, AIES).

A contextual model gives a word a different vector in every sentence. CEAT takes, for every word of
the four WEAT sets, vectors from many contexts, and draws :math:`N` samples; sample :math:`i` picks
one context vector per word, uniformly at random and independently (with replacement across samples,
as CEAT's code does with ``np.random.randint``), and computes on those vectors WEAT's (cosine)
per-word associations
:math:`s(w) = \operatorname{mean}_a \cos(w, a) - \operatorname{mean}_b \cos(w, b)`, then

- the sample's effect size :math:`ES_i = (\operatorname{mean}_{x} s(x) - \operatorname{mean}_{y}
  s(y)) / \operatorname{sd}_{w \in X \cup Y}\, s(w)`, and
- the sample's variance :math:`v_i = \operatorname{var}_{w \in X \cup Y}\, s(w)` — CEAT's choice
  (the variance of the associations over the target words, the square of the effect size's
  denominator; both with ``ddof=1`` in CEAT's code, our default). It is not the sampling variance of
  :math:`ES_i` (for a standardised mean difference that would be about :math:`(n_x + n_y) / (n_x
  n_y) + ES_i^2 / (2 (n_x + n_y))`, Hedges & Olkin 1985); we follow CEAT so that results compare
  with the paper's.

The :math:`(ES_i, v_i)` are combined by a DerSimonian–Laird random-effects model
(:func:`eval_harness.stats.meta_analysis.random_effects`): the combined effect size (CES), its
standard error and p-value, the between-sample variance :math:`\tau^2`, Q and :math:`I^2`. CEAT's
code reports the one-sided p-value ``norm.sf(CES / SE)`` (``alternative="greater"``, the default
here; the paper speaks of a two-sided test, available as ``"two-sided"``).

Everything is deterministic given ``seed``: the context indices are drawn from
``numpy.random.default_rng(seed)`` word by word in the order X, Y, A, B (each word's ``n_samples``
indices at once).

The interval (:func:`word_context_bootstrap`). The combination treats the :math:`N` samples as
:math:`N` independent studies, so its standard error shrinks as :math:`1/\sqrt{N}` (T1: 0.024,
0.0082, 0.0026 at
:math:`N` = 30, 300, 3000) while the sampled effect sizes keep their spread: the samples differ only
in which context each word was read in, the *same* words every time, and averaging more of them
removes context noise, never the uncertainty of which words the lists hold. The population a bias
claim is about is one of words and of their contexts, so the interval comes from a bootstrap over
both: a replicate draws each set's words with replacement (as WEAT's word bootstrap), then
``samples_per_replicate`` samples of one context per drawn word, and combines them exactly as CEAT
does; the interval is ``CES -/+ z SE`` with ``SE`` the replicates' standard deviation (a normal
interval around the combined estimate CEAT reports, which we keep). It does not shrink with
:math:`N`. A replicate's combination rests on fewer samples than CEAT's, so its context noise is a
little larger (by at most the sampled effect sizes' variance over ``samples_per_replicate``): the
interval errs, slightly, on the wide side. We chose this over the percentile interval of the sampled
effect sizes, which does not shrink either but measures only the context noise of the words at hand:
it covers the population effect only by accident of the two variances' ratio.
tests/stats/test_ceat_interval.py measures all three on populations of words and contexts (400
studies of 16 words per set, 95 % intervals): ours covers 0.958 and 0.940, CEAT's 0.292 and 0.220,
the percentile interval 0.965 when contexts vary as much as words do but 0.540 when they vary less.
"""

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from .meta_analysis import MetaAnalysisResult, dersimonian_laird, random_effects
from .results import Result
from .weat import bootstrap_generator

DEFAULT_SAMPLES = 10_000
DEFAULT_BOOTSTRAP = 1000
DEFAULT_SAMPLES_PER_REPLICATE = 20
CONFIDENCE_LEVEL = 0.95
# Samples handled per vectorised block (memory: block x |X u Y| x dim floats).
_BLOCK = 256
# Floats of gathered context vectors per block of bootstrap replicates (64 MB).
_BOOTSTRAP_FLOATS = 8_000_000


@dataclass(frozen=True)
class WordContextBootstrap(Result):
    """The interval of the combined effect size from a bootstrap over words and contexts (module
    docstring).

    Attributes:
        ci_low, ci_high: ``CES -/+ z_{(1 + level) / 2} std_err``.
        std_err: the standard deviation (ddof 1) of the replicates' combined effect sizes.
        confidence_level: of the interval.
        n_bootstrap: replicates drawn; n_undefined: those left out (every drawn target word with the
            same association in some sample: no effect size).
        samples_per_replicate: samples of one context per word combined in a replicate.
    """

    ci_low: float
    ci_high: float
    std_err: float
    confidence_level: float
    n_bootstrap: int
    n_undefined: int
    samples_per_replicate: int


@dataclass(frozen=True)
class CEATResult(Result):
    """A CEAT test: the random-effects combination of ``n_samples`` sampled WEAT effect sizes.

    Attributes:
        meta: the random-effects result (combined effect size, SE, p, tau^2, Q, I^2, fixed effect).
        sample_effect_mean, sample_effect_std: mean and standard deviation (ddof=1) of the sampled
        effect sizes. n_samples, ddof: the sampling settings; seed: the seed used (``None``: fresh
        entropy, not reproducible). n_x, n_y, n_a, n_b: words per set; min_contexts, max_contexts:
        fewest and most contexts of a word.
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
    bootstrap: WordContextBootstrap | None = None

    def to_dict(self) -> dict:
        """Flat: the meta-analysis fields (``combined_effect`` is the CES), then the sampling
        fields, then ``bootstrap`` (the interval's fields, or None)."""
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
            bootstrap=None if self.bootstrap is None else self.bootstrap.to_dict(),
        )
        return flat

    def summary(self) -> str:
        return (
            f"CEAT (|X|={self.n_x} |Y|={self.n_y} |A|={self.n_a} |B|={self.n_b}; "
            f"{self.n_samples:,} samples from {self.min_contexts}-{self.max_contexts} "
            f"contexts per word, seed {self.seed}): CES {self.meta.combined_effect:.3f} (SE "
            f"{self.meta.std_err:.3g}, p={self.meta.p_value:.3g} {self.meta.alternative}), "
            f"tau^2={self.meta.tau2:.3g}, I^2={self.meta.i2:.1%}; sampled effect sizes "
            f"{self.sample_effect_mean:.3f} ± {self.sample_effect_std:.3f}"
            + (
                ""
                if self.bootstrap is None
                else f"; {self.bootstrap.confidence_level:.0%} word-and-context "
                f"bootstrap interval [{self.bootstrap.ci_low:.3f}, "
                f"{self.bootstrap.ci_high:.3f}] (SE {self.bootstrap.std_err:.3g})"
            )
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
    """The sampled effect sizes and CEAT variances ``(ES, v)``, two ``(n_samples,)`` arrays (module
    docstring).

    Each set maps a word to its context vectors, an ``(n_contexts, dim)`` array (e.g. the rows of
    :meth:`eval_harness.models.encoder.TransformerEncoder.embed_words_in_contexts`' result for that
    word).

    Examples
    --------
    >>> import numpy as np
    >>> from eval_harness.stats.ceat import ceat_samples
    >>> def word(*contexts):
    ...     return np.array(contexts)
    >>> x = {"he": word([1.0, 0.1], [0.9, 0.2]), "man": word([1.0, 0.3], [0.8, 0.1])}
    >>> y = {"she": word([0.1, 1.0], [0.2, 0.9]), "woman": word([0.3, 1.0], [0.1, 0.8])}
    >>> a, b = {"career": word([1.0, 0.0], [0.9, 0.1])}, {"family": word([0.0, 1.0], [0.1, 0.9])}
    >>> effects, variances = ceat_samples(x, y, a, b, n_samples=5, seed=0)
    >>> effects.shape, bool((effects > 1.5).all())
    ((5,), True)
    """
    if isinstance(n_samples, bool) or not isinstance(n_samples, int | np.integer) or n_samples < 2:
        raise InputError(
            "n_samples must be an integer >= 2 (a "
            f"meta-analysis needs 2 effects); got {n_samples!r}"
        )
    if ddof not in (0, 1):
        raise InputError(f"ddof must be 0 or 1; got {ddof!r}")
    sets = {
        name: _context_set(words, name) for name, words in (("X", x), ("Y", y), ("A", a), ("B", b))
    }
    dims = {vectors.shape[1] for words in sets.values() for vectors in words.values()}
    if len(dims) > 1:
        raise InputError(f"all context vectors must have the same dimension; got {sorted(dims)}")
    if len(sets["X"]) + len(sets["Y"]) <= ddof:
        raise InputError("need more target words than ddof to compute a standard deviation")
    rng = np.random.default_rng(seed)
    # One draw of n_samples context indices per word, in the order X, Y, A, B.
    drawn = {
        name: [
            (vectors, rng.integers(0, len(vectors), size=n_samples)) for vectors in words.values()
        ]
        for name, words in sets.items()
    }
    n_x = len(sets["X"])
    effects, variances = np.empty(n_samples), np.empty(n_samples)
    for start in range(0, n_samples, _BLOCK):
        block = slice(start, min(start + _BLOCK, n_samples))
        targets = _gather(drawn["X"] + drawn["Y"], block)  # (samples, words, dim)
        difference = _gather(drawn["A"], block).mean(axis=1) - _gather(drawn["B"], block).mean(
            axis=1
        )
        effects[block], variances[block], defined = _sample_effect_sizes(
            targets, difference, n_x, ddof
        )
        if not defined.all():
            raise InputError(
                "in some sample every target word has the same association "
                "(standard deviation 0): the effect size is undefined; check "
                "that the context vectors of different words are not identical"
            )
    return effects, variances


def _sample_effect_sizes(
    targets: np.ndarray, difference: np.ndarray, n_x: int, ddof: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(ES, v, defined)`` of samples (any leading axes): ``targets`` ``(..., |X| + |Y|, dim)``
    unit context vectors (X first), ``difference`` ``(..., dim)`` the mean unit A vector minus the
    mean unit B vector, since mean_a cos(w, a) - mean_b cos(w, b) = w_hat . (mean_a a_hat - mean_b
    b_hat). ``defined``: the associations have a spread (else ES is 0 and undefined)."""
    associations = np.einsum("...wd,...d->...w", targets, difference)
    spread = associations.std(axis=-1, ddof=ddof)
    defined = spread > 1e-12 * np.abs(associations).max(axis=-1)
    safe = np.where(defined, spread, 1.0)
    effects = (associations[..., :n_x].mean(axis=-1) - associations[..., n_x:].mean(axis=-1)) / safe
    return np.where(defined, effects, 0.0), spread**2, defined


def word_context_bootstrap(
    x: Mapping[str, object],
    y: Mapping[str, object],
    a: Mapping[str, object],
    b: Mapping[str, object],
    combined_effect: float,
    n_bootstrap: int = DEFAULT_BOOTSTRAP,
    samples_per_replicate: int = DEFAULT_SAMPLES_PER_REPLICATE,
    confidence_level: float = CONFIDENCE_LEVEL,
    seed: int | np.random.SeedSequence | np.random.Generator | None = None,
    ddof: int = 1,
) -> WordContextBootstrap:
    """The interval of ``combined_effect`` (CEAT's CES of these sets) from a bootstrap over words
    and contexts.

    A replicate draws ``|X|`` words of X with replacement (likewise Y, A, B), then
    ``samples_per_replicate`` samples of one context per drawn word (uniformly among the word's
    contexts, independently), computes each sample's effect size and CEAT variance as
    :func:`ceat_samples` does, and combines them by the same DerSimonian-Laird model; the
    replicates' standard deviation is the interval's standard error (module
    docstring: why over words and contexts, and why it does not shrink with CEAT's ``N``). The draws
    come from their own stream of ``seed`` (:func:`~eval_harness.stats.weat.bootstrap_generator`),
    so they never reuse the context samples' draws; the work is vectorised over blocks of
    replicates.
    """
    for name, value, lowest in (
        ("n_bootstrap", n_bootstrap, 2),
        ("samples_per_replicate", samples_per_replicate, 2),
    ):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < lowest:
            raise InputError(f"{name} must be an integer >= {lowest}; got {value!r}")
    if not 0 < confidence_level < 1:
        raise InputError(f"confidence_level must be in (0, 1), e.g. 0.95; got {confidence_level!r}")
    sets = [
        _padded(_context_set(words, name))
        for name, words in (("X", x), ("Y", y), ("A", a), ("B", b))
    ]
    rng = bootstrap_generator(seed)
    n_x = len(sets[0][1])
    floats = samples_per_replicate * sum(len(counts) for _, counts in sets) * sets[0][0].shape[-1]
    block = max(1, _BOOTSTRAP_FLOATS // floats)
    replicates, undefined = [], 0
    for start in range(0, n_bootstrap, block):
        rows = min(block, n_bootstrap - start)
        gathered = [
            _draw_words_and_contexts(vectors, counts, rows, samples_per_replicate, rng)
            for vectors, counts in sets
        ]
        targets = np.concatenate(gathered[:2], axis=2)  # (rows, samples, |X| + |Y|, dim)
        difference = gathered[2].mean(axis=2) - gathered[3].mean(axis=2)
        effects, variances, defined = _sample_effect_sizes(targets, difference, n_x, ddof)
        ok = defined.all(axis=1)
        undefined += int((~ok).sum())
        if ok.any():
            replicates.append(dersimonian_laird(effects[ok], variances[ok])["combined"])
    values = np.concatenate(replicates) if replicates else np.empty(0)
    if len(values) < 2:
        raise InputError(
            f"only {len(values)} of {n_bootstrap} bootstrap replicates have target words "
            "with different associations; the sets are too small for a bootstrap interval"
        )
    std_err = float(values.std(ddof=1))
    from scipy import stats as scipy_stats  # scipy on use: `xbias list` and config checks load none

    half = float(scipy_stats.norm.ppf((1 + confidence_level) / 2)) * std_err
    return WordContextBootstrap(
        ci_low=float(combined_effect - half),
        ci_high=float(combined_effect + half),
        std_err=std_err,
        confidence_level=float(confidence_level),
        n_bootstrap=int(n_bootstrap),
        n_undefined=undefined,
        samples_per_replicate=int(samples_per_replicate),
    )


def _padded(words: Mapping[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """``((n_words, most contexts, dim) vectors padded with zeros, (n_words,) context counts)``."""
    arrays = list(words.values())
    counts = np.array([len(array) for array in arrays])
    padded = np.zeros((len(arrays), counts.max(), arrays[0].shape[1]))
    for row, array in enumerate(arrays):
        padded[row, : len(array)] = array
    return padded, counts


def _draw_words_and_contexts(
    vectors: np.ndarray, counts: np.ndarray, rows: int, samples: int, rng: np.random.Generator
) -> np.ndarray:
    """``(rows, samples, n_words, dim)``: per replicate the set's words drawn with replacement, then
    per sample one context of each drawn word."""
    n_words = len(counts)
    words = rng.integers(0, n_words, size=(rows, 1, n_words))
    contexts = (rng.random((rows, samples, n_words)) * counts[words]).astype(np.intp)
    return vectors[words, contexts]


def ceat(
    x: Mapping[str, object],
    y: Mapping[str, object],
    a: Mapping[str, object],
    b: Mapping[str, object],
    n_samples: int = DEFAULT_SAMPLES,
    seed: int | None = None,
    ddof: int = 1,
    alternative: str = "greater",
    n_bootstrap: int = DEFAULT_BOOTSTRAP,
    samples_per_replicate: int = DEFAULT_SAMPLES_PER_REPLICATE,
) -> CEATResult:
    """Run CEAT: :func:`ceat_samples`, then
    :func:`~eval_harness.stats.meta_analysis.random_effects`, and the interval of
    :func:`word_context_bootstrap`.

    Args:
        x, y, a, b: word -> ``(n_contexts, dim)`` context vectors, for the targets X, Y and
        attributes A, B.
        n_samples: samples ``N`` (CEAT uses 10,000).
        seed: seed of the context draws (an int makes the result reproducible).
        ddof: of the per-sample standard deviation and variance (CEAT: 1).
        alternative: ``"greater"`` (CEAT's code), ``"less"`` or ``"two-sided"``.
        n_bootstrap: replicates of the word-and-context bootstrap (0: no interval).
        samples_per_replicate: samples combined per replicate.

    Examples
    --------
    >>> import numpy as np
    >>> from eval_harness.stats.ceat import ceat
    >>> rng = np.random.default_rng(0)
    >>> def contexts(centre):
    ...     return {f"w{i}": centre + 0.1 * rng.standard_normal((3, 2)) for i in range(3)}
    >>> x, y = contexts(np.array([1.0, 0.2])), contexts(np.array([0.2, 1.0]))
    >>> a, b = contexts(np.array([1.0, 0.0])), contexts(np.array([0.0, 1.0]))
    >>> r = ceat(x, y, a, b, n_samples=200, seed=0, n_bootstrap=0)
    >>> r.n_samples, round(r.meta.combined_effect, 2), r.meta.p_value < 0.001
    (200, 1.82, True)
    """
    effects, variances = ceat_samples(x, y, a, b, n_samples=n_samples, seed=seed, ddof=ddof)
    meta = random_effects(effects, variances, alternative=alternative)
    bootstrap = None
    if n_bootstrap:
        bootstrap = word_context_bootstrap(
            x,
            y,
            a,
            b,
            meta.combined_effect,
            n_bootstrap,
            samples_per_replicate,
            seed=seed,
            ddof=ddof,
        )
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
        bootstrap=bootstrap,
    )


def _context_set(words: Mapping[str, object], name: str) -> dict[str, np.ndarray]:
    """``word -> unit-length float64 (n_contexts, dim)`` for one set, or an InputError naming the
    problem."""
    if not isinstance(words, Mapping) or not words:
        raise InputError(
            f"set {name} must be a non-empty mapping word -> (n_contexts, dim) context vectors"
        )
    checked, empty = {}, []
    for word, vectors in words.items():
        try:
            array = np.asarray(vectors, dtype=np.float64)
        except (TypeError, ValueError) as error:
            raise InputError(
                f"set {name}, word {word!r}: context vectors must be numbers ({error})"
            ) from error
        if array.ndim != 2:
            raise InputError(
                f"set {name}, word {word!r}: expected (n_contexts, "
                f"dim) vectors; got shape {array.shape}"
            )
        if len(array) == 0:
            empty.append(word)
            continue
        norms = np.linalg.norm(array, axis=1, keepdims=True)
        if not np.isfinite(array).all() or not (norms > 0).all():
            raise InputError(
                f"set {name}, word {word!r}: a context vector is zero or contains NaN/inf"
            )
        checked[word] = array / norms
    if empty:
        raise InputError(
            f"set {name}: no context vectors for {len(empty)} word(s) {empty[:10]}; "
            "find sentences with these words or drop them from the test"
        )
    return checked


def _gather(drawn: list[tuple[np.ndarray, np.ndarray]], block: slice) -> np.ndarray:
    """``(samples in block, words, dim)``: each word's drawn context vector for each sample of the
    block."""
    return np.stack([vectors[indices[block]] for vectors, indices in drawn], axis=1)
