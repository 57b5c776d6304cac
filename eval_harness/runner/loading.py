"""A config's model, loaded once per run, on this rank's device, with the run's caches.

Suites get models through :func:`model_resources` (a :class:`~eval_harness.models.ModelResources`
per config model, whose encoders shard ``encode`` over the accelerate ranks, freed after the
model's last task) and :func:`fit_or_load_regressor`
(the emotion regressor of a model for one language and emotion: loaded from the run's cache
when a verified copy is there, else trained by every rank together and saved by rank 0).

Sharded encoding: ``encode(texts)`` cuts the texts into consecutive chunks of
:data:`ENCODE_CHUNK` *before* handing them out, so every chunk, its batches and its embedding
cache entry are the same whatever the number of ranks; a warm cache serves a 1-rank and a
2-rank run alike.
"""

import hashlib
import json
import shutil
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ModelLoadError
from ..models.packaged import GLOVE, canonical_source, resolve_source
from .config import ModelSpec
from .context import RunContext
from .store import atomic_write_text

ENCODE_CHUNK = 1024
CHECKSUMS = "checksums.json"


class ShardedEncoder:
    """A :class:`~eval_harness.models.TransformerEncoder` whose ``encode`` is shared between the ranks.

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

    def __getattr__(self, name: str) -> Any:
        return getattr(self.encoder, name)


def model_resources(spec: ModelSpec, ctx: RunContext):
    """The :class:`~eval_harness.models.ModelResources` of one config model: its encoder (sharded), classifier
    or vectors, loaded once per run on this rank's device, with the run's embedding cache."""

    def build():
        from ..models import EmbeddingCache, ModelResources

        class RunResources(ModelResources):
            def encoder(self, source: str, **options):
                return ShardedEncoder(super().encoder(source, **options), ctx.dist, progress=ctx.show_progress)

        # The encoders' own bars would count one chunk at a time: ShardedEncoder shows one bar per call.
        return RunResources(
            EmbeddingCache(ctx.cache_dir / "embeddings"), device=str(ctx.dist.accelerator.device), progress=False
        )

    return ctx.shared((spec.name, "resources"), build)


def factory_source(spec: ModelSpec) -> str | None:
    """What the models factory loads for ``spec``: a path for ``pypi:`` models, else the id/path as given."""
    if spec.source is None:
        return None
    # The packaged GloVe is loaded by name (ModelResources.static_vectors), not from its folder.
    return GLOVE if canonical_source(spec.source) == GLOVE else resolve_source(spec.source)


def emotion_model_config(spec: ModelSpec, seed: int) -> dict:
    """The models factory's config (``build_emotion_model``) for ``spec``, trained with ``seed``.

    The sweep's seed is the regressor's seed (subsampling, head initialisation): types that
    train take ``seed`` from ``seeds:``, so a model's own ``options.seed`` is refused.
    """
    from ..errors import ConfigError

    options = dict(spec.options)
    if spec.type != "classifier":
        if "seed" in options:
            raise ConfigError(f"model {spec.name!r}: set the regressor seed with the config's `seeds:`, not options")
        options["seed"] = seed
    config = {"type": spec.type, "options": options}
    if spec.source is not None:
        config["path"] = factory_source(spec)
    return config


def word_embedder(spec: ModelSpec, ctx: RunContext):
    """A WordEmbedder for ``spec``: its encoder (``encoder`` models) or its static vectors (``static_mlp``)."""
    from ..models.factory import ENCODER_LOAD_OPTIONS, VECTOR_OPTIONS

    resources = model_resources(spec, ctx)
    if spec.type == "encoder":
        return resources.encoder(factory_source(spec), **_pick(spec.options, ENCODER_LOAD_OPTIONS))
    return resources.static_vectors(factory_source(spec) or GLOVE, **_pick(spec.options, VECTOR_OPTIONS))


def fit_or_load_regressor(spec: ModelSpec, config: Mapping[str, Any], language: str, dimension: str, ctx: RunContext):
    """The emotion regressor ``config`` (:func:`emotion_model_config` of ``spec``) for (``language``,
    ``dimension``): the cached one when its files pass their checksums and it is this model (type,
    source fingerprint, options, language, dimension), else trained now — by every rank together
    (their encoders shard the texts) — and saved by rank 0.

    A cached regressor whose files fail their checksums is reported, deleted and trained again.
    """
    from ..models import EmotionRegressor, build_emotion_model

    resources = model_resources(spec, ctx)
    model = build_emotion_model(config, resources)
    identity = model.identity(language, dimension)
    key = hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:32]
    folder = ctx.cache_dir / "regressors" / key
    loaded = None
    if folder.is_dir():
        if verify_checksums(folder):
            try:
                loaded = EmotionRegressor.load(folder, resources)
            except ModelLoadError:
                loaded = None
        if loaded is None or loaded.identity() != identity:
            warnings.warn(
                f"cached regressor {folder} is corrupted or incomplete; it is trained again",
                RuntimeWarning,
                stacklevel=2,
            )
            loaded = None
    # Every rank must take the same branch: training is collective.
    if all(ctx.dist.gather([loaded is not None])):
        return loaded
    model.fit(language, dimension)
    if ctx.dist.is_main:
        shutil.rmtree(folder, ignore_errors=True)
        model.save(folder)
        write_checksums(folder)
    ctx.dist.barrier()
    return model


def write_checksums(folder: Path) -> None:
    """Record the sha256 of every file in ``folder`` (written last: its presence marks a complete save)."""
    digests = {
        path.relative_to(folder).as_posix(): _sha256(path)
        for path in sorted(folder.rglob("*"))
        if path.is_file() and path.name != CHECKSUMS
    }
    atomic_write_text(folder / CHECKSUMS, json.dumps(digests, indent=1, sort_keys=True))


def verify_checksums(folder: Path) -> bool:
    """Whether ``folder`` holds exactly the files its checksums list, with those contents."""
    try:
        digests = json.loads((folder / CHECKSUMS).read_text())
    except (FileNotFoundError, ValueError):
        return False
    present = {
        path.relative_to(folder).as_posix() for path in folder.rglob("*") if path.is_file() and path.name != CHECKSUMS
    }
    return present == set(digests) and all(_sha256(folder / name) == digest for name, digest in digests.items())


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _pick(options: Mapping[str, Any], names: tuple[str, ...]) -> dict:
    return {key: value for key, value in options.items() if key in names}
