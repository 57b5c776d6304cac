"""The settings of the gender-space measures: plain values, importable without the numerics (the
suite's options are read from them when a config is validated)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields

from ...errors import ConfigError


@dataclass(frozen=True)
class GenderSpaceSettings:
    """The parameters of the five measures (defaults: the papers').

    Attributes:
        vocabulary_size: the reference space's most frequent words the biased lists come
            from (Gonen & Goldberg: 50,000), before filtering.
        max_word_length: longer words are left out of the biased lists (20).
        n_cluster_words: most biased words per gender clustered (500 + 500).
        n_extended_words: most biased words per gender classified and used as kNN
            candidates (2,500 + 2,500).
        n_components: principal components reported (10); fewer, with one warning, when the
            definitional pair rows have fewer (min(pairs, dimension)).
        n_baseline_draws: random-pair draws averaged for the baseline spectrum.
        c: direct-bias strictness exponent (1).
        n_train: SVM training words per run (1,000).
        n_runs: runs of classification (both modes) and of clustering/kNN (context mode:
            one context draw per run; static: clustering and kNN are deterministic, 1 run).
        k: nearest neighbours per profession (100).
        contexts_per_pair: context mode: sentences sampled per definitional pair.
        min_pairs: the fewest definitional pairs the subspace may rest on.
        seed: seed of every random choice (contexts, pairs, splits, k-means).
    """

    vocabulary_size: int = 50_000
    max_word_length: int = 20
    n_cluster_words: int = 500
    n_extended_words: int = 2_500
    n_components: int = 10
    n_baseline_draws: int = 10
    c: float = 1.0
    n_train: int = 1_000
    n_runs: int = 10
    k: int = 100
    contexts_per_pair: int = 20
    min_pairs: int = 2
    seed: int = 0

    def __post_init__(self):
        positive = [
            f.name for f in fields(self) if f.name != "seed" and not getattr(self, f.name) > 0
        ]
        if positive:
            raise ConfigError(f"gender_space settings must be positive: {positive}")
        if self.n_cluster_words > self.n_extended_words:
            raise ConfigError(
                f"n_cluster_words={self.n_cluster_words} must not "
                f"exceed n_extended_words={self.n_extended_words} (the "
                "clustered words are the top of the extended list)"
            )
        if self.min_pairs < 2:
            raise ConfigError(
                f"min_pairs must be at least 2 (a PCA needs two differences); got {self.min_pairs}"
            )

    @classmethod
    def from_mapping(cls, options: Mapping) -> GenderSpaceSettings:
        """Settings from a dict (e.g. a sweep config's suite options); unknown keys are an error."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(options) - known)
        if unknown:
            raise ConfigError(f"unknown gender_space setting(s) {unknown}; known: {sorted(known)}")
        return cls(**dict(options))

    def to_dict(self) -> dict:
        return asdict(self)
