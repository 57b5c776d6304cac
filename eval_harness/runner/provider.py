"""The models of a run as suites get them (``ctx.models``): loaded once per run on this rank's
device, with the run's caches, their heavy work shared out over the accelerate ranks.

:class:`RunModels` implements the :class:`~eval_harness.contract.ModelProvider` contract on top of
:mod:`eval_harness.models.factory`, the only place that knows the model types.

Sharded encoding: ``encode(texts)`` cuts the texts into consecutive chunks of :data:`ENCODE_CHUNK`
*before* handing them out, so every chunk, its batches and its embedding cache entry are the same
whatever the number of ranks; a warm cache serves a 1-rank and a 2-rank run alike. A model whose
``predict`` runs a network itself (``heavy_predict``, e.g. a classifier) has its predictions shared
out the same way; cheap ones (SVM-tfidf, static vectors) run on every rank.
"""

from pathlib import Path
from typing import Any

import numpy as np

from ..models.cache import FeatureCache, features_root

# The two folders of a cache (``--cache-dir``, or a run folder's ``cache/``): all that a cache
# holds.
EMBEDDING_CACHE, REGRESSOR_CACHE = "embeddings", "regressors"

ENCODE_CHUNK = 1024
# ctx.shared keys of what lives for the whole run (a key whose first item is None outlives every
# model's tasks).
RUN_SEMEVAL = (None, "semeval-splits")


class ShardedEncoder:
    """A :class:`~eval_harness.models.TransformerEncoder` whose ``encode`` is shared between the
    ranks.

    Every rank must call ``encode`` with the same texts (it is a collective step); everything
    else (``fingerprint``, ``embed_words``, ``cache``...) is the wrapped encoder's.
    """

    def __init__(self, encoder, dist, chunk_size: int = ENCODE_CHUNK, progress: bool = True):
        self.encoder = encoder
        self.dist = dist
        self.chunk_size = chunk_size
        self.progress = progress

    def encode(self, texts) -> np.ndarray:
        return self.dist.map(
            self.encoder.encode,
            list(texts),
            chunk_size=self.chunk_size,
            desc=f"encoding ({self.encoder.name})" if self.progress else None,
        )

    # The members of the capability protocols (eval_harness.contract.capabilities) by name: from
    # Python 3.12 on, isinstance() with a protocol looks attributes up statically, past __getattr__.
    word_modes = property(lambda self: self.encoder.word_modes)
    dim = property(lambda self: self.encoder.dim)
    fingerprint = property(lambda self: self.encoder.fingerprint)
    cache = property(lambda self: self.encoder.cache)

    def embed_words(self, *args, **kwargs):
        return self.encoder.embed_words(*args, **kwargs)

    def embed_words_in_contexts(self, *args, **kwargs):
        return self.encoder.embed_words_in_contexts(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.encoder, name)


class ShardedPredictions:
    """An emotion model whose ``predict`` is shared between the ranks (collective, like
    ShardedEncoder)."""

    def __init__(self, model, dist, chunk_size: int = ENCODE_CHUNK):
        self.model = model
        self.dist = dist
        self.chunk_size = chunk_size

    def predict(self, texts) -> np.ndarray:
        return self.dist.map(self.model.predict, list(texts), chunk_size=self.chunk_size)

    scores = property(
        lambda self: self.model.scores
    )  # by name, as ShardedEncoder's protocol members

    def __getattr__(self, name: str) -> Any:
        return getattr(self.model, name)


class ShardedJudge(ShardedPredictions):
    """A zero-shot judge (an LLM asked for a score) whose ``predict`` and ``score`` are shared
    between the ranks."""

    def score(self, texts):
        """A judge's scores with their validity numbers (``PromptScores``), shared out like
        ``predict``."""
        from ..models.prompt_judge import PromptScores

        rows = self.dist.map(
            lambda chunk: self.model.score(chunk).records(), list(texts), chunk_size=self.chunk_size
        )
        return PromptScores.from_records(rows)

    def with_prompt(self, name: str) -> "ShardedJudge":
        """The judge asking with another paraphrase of its prompt, its scores shared out the same
        way."""
        return ShardedJudge(self.model.with_prompt(name), self.dist, self.chunk_size)

    def prompt_names(self, *args, **kwargs) -> tuple[str, ...]:
        return self.model.prompt_names(*args, **kwargs)


class RunModels:
    """``ctx.models``: the config's models for the suites (see the module docstring)."""

    def __init__(self, ctx):
        self.ctx = ctx
        # model name -> the cache its features went through (run.json's "features" says what each
        # reused).
        self.feature_caches: dict = {}

    def resources(self, model):
        """The :class:`~eval_harness.models.ModelResources` of one config model, loaded once per run
        on this rank's device with the run's embedding cache; its encoders shard ``encode``. Freed
        after the model's last task."""
        return self.ctx.shared(
            (model.name, "resources"),
            lambda: self._new_resources(model.trust_remote_code, model.name),
        )

    def feature_use(self) -> dict:
        """What run.json says of each model's features: the cache they went through, and the texts
        it gave back (``reused_texts``) or computed (``computed_texts``; a run-folder cache counts
        calls instead)."""
        use = {}
        for name, cache in self.feature_caches.items():
            counts = (
                {"reused_texts": cache.reused_texts, "computed_texts": cache.computed_texts}
                if isinstance(cache, FeatureCache)
                else {"reused_calls": cache.hits, "computed_calls": cache.misses}
            )
            use[name] = {"cache": str(cache.root), **counts}
        return use

    def _feature_cache(self):
        """The user's feature cache (:class:`~eval_harness.models.cache.FeatureCache`), or the run
        folder's ``cache/embeddings`` when ``$XBIAS_FEATURE_CACHE`` is ``off``."""
        from ..models import EmbeddingCache

        root = features_root()
        return (
            FeatureCache(root)
            if root is not None
            else EmbeddingCache(Path(self.ctx.cache_dir) / EMBEDDING_CACHE)
        )

    def _new_resources(self, trust_remote_code: bool = False, model_name: str | None = None):
        from ..data.emotion_splits import SemEvalSplits
        from ..models import ModelResources

        dist, show_progress = self.ctx.dist, self.ctx.show_progress

        class RunResources(ModelResources):
            def encoder(self, source: str, **options):
                return ShardedEncoder(
                    super().encoder(source, **options), dist, progress=show_progress
                )

        cache = self._feature_cache()
        if model_name is not None:
            self.feature_caches[model_name] = cache
        # The encoders' own bars would count one chunk at a time: ShardedEncoder shows one bar per
        # call.
        return RunResources(
            cache,
            device=str(dist.accelerator.device),
            progress=False,
            trust_remote_code=trust_remote_code,
            # One for the run: every model, emotion and seed trains on splits loaded once.
            semeval=self.ctx.shared(RUN_SEMEVAL, lambda: SemEvalSplits(self.ctx.emotions)),
        )

    def model_config(self, model, seed: int | None = None) -> dict:
        """The factory's config for a config model (``seed``: the sweep seed of a trained model),
        loading it from where the run pinned it (a Hub model's snapshot of the commit resolved when
        the run started)."""
        from ..models.registry import model_type

        options = dict(model.options)
        if seed is not None and model_type(model.type).trains:
            options["seed"] = seed
        config = {"type": model.type, "options": options}
        if model.source is not None:
            config["path"] = self.ctx.sources.get(model.name, model.source)
        return config

    def word_embedder(self, model):
        from ..models.factory import build_word_embedder

        return build_word_embedder(self.model_config(model), self.resources(model))

    def static_vectors(self, source: str):
        from ..models.factory import build_word_embedder

        return self.ctx.shared(
            ("static_vectors", source),
            lambda: build_word_embedder(
                {"type": "static_mlp", "path": source}, self._shared_resources()
            ),
        )

    def _shared_resources(self):
        return self.ctx.shared((None, "resources"), self._new_resources)

    def emotion_regressor(self, model, language: str, emotion: str, seed: int):
        from ..models.factory import fit_or_load

        regressor = fit_or_load(
            self.model_config(model, seed),
            language,
            emotion,
            Path(self.ctx.cache_dir) / REGRESSOR_CACHE,
            self.resources(model),
            group=self.ctx.dist,
        )
        if not getattr(regressor, "heavy_predict", False):
            return regressor
        judge = "judge" in model.capabilities
        return (ShardedJudge if judge else ShardedPredictions)(regressor, self.ctx.dist)
