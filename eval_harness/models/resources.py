"""What the models of one process share: each model's weights, each vector file and each causal LM
loaded once, the embedding cache, so the five dimensions' models of one language share one encoder
and each text is encoded once, and the SemEval-2018 splits they train on, each loaded once.

Weights are loaded once per source and model class (:meth:`ModelResources.pretrained`), whatever
options their wrappers take: a probe built from a config (``pooling: mean``) and the same probe
rebuilt from a save (which records every encoder option: ``pooling``, ``layer``, ``prefix``,
``max_length``) share one copy."""

from typing import Any

from eval_harness.data.emotion_splits import SemEvalSplits
from eval_harness.models.cache import EmbeddingCache
from eval_harness.models.packaged import GLOVE, canonical_source, resolve_source


class ModelResources:
    """Per-process store of loaded encoders, classifiers and static vectors, the embedding cache and
    the SemEval-2018 splits (``semeval``: give one to share it with other resources, as a run's
    models do)."""

    def __init__(
        self,
        cache: EmbeddingCache | None = None,
        device: str | None = None,
        progress: bool | None = None,
        trust_remote_code: bool = False,
        semeval: SemEvalSplits | None = None,
    ):
        self.cache = cache if cache is not None else EmbeddingCache()
        self.semeval = semeval if semeval is not None else SemEvalSplits()
        self.device = device
        self.progress = progress
        # Whether transformers may run the code a model repository ships (loading.load_pretrained);
        # off by default.
        self.trust_remote_code = trust_remote_code
        self._loaded: dict[tuple, Any] = {}

    def pretrained(self, source: str, model_class: Any = None) -> tuple:
        """``(model, tokenizer, folder)`` of ``source`` loaded with ``model_class`` (default
        ``AutoModel``), once."""
        from eval_harness.models import loading

        name = getattr(model_class, "__name__", "AutoModel")
        return self._memo(
            ("pretrained", name, str(source)),
            lambda: loading.load_pretrained(
                resolve_source(source), model_class, self.trust_remote_code
            ),
        )

    def encoder(self, source: str, **options):
        """A :class:`TransformerEncoder` (cached by source and options; its weights by source) that
        reads/writes the embedding cache."""
        from eval_harness.models.encoder import TransformerEncoder

        options = {"device": self.device, "progress": self.progress, **options}
        key = (
            "encoder",
            str(source),
            tuple(sorted((name, str(value)) for name, value in options.items())),
        )
        return self._memo(
            key,
            lambda: TransformerEncoder.from_pretrained(
                source, loader=self.pretrained, cache=self.cache, **options
            ),
        )

    def classifier_model(self, source: str) -> tuple:
        """``(model, tokenizer, folder)`` of an ``AutoModelForSequenceClassification``, loaded
        once."""
        from transformers import AutoModelForSequenceClassification

        return self.pretrained(source, AutoModelForSequenceClassification)

    def static_vectors(self, source: str, format: str = "auto", lowercase: bool = False):
        """GloVe 6B 50d for ``"glove"`` (the packaged one), else the vector file at ``source``."""
        from eval_harness.models.static import StaticVectors, load_packaged_glove

        if canonical_source(source) == GLOVE:
            return self._memo(("vectors", GLOVE), load_packaged_glove)
        key = ("vectors", str(source), format, lowercase)
        return self._memo(
            key,
            lambda: StaticVectors.load(resolve_source(source), format=format, lowercase=lowercase),
        )

    def causal_lm(self, source: str, dtype: str | None = None, precision: str = "auto", **runtime):
        """A :class:`~eval_harness.models.causal_lm.CausalLM` (``AutoModelForCausalLM``), loaded
        once per source and the settings that change its numbers (``dtype``, ``precision``);
        ``runtime`` (batch_size, device_map, max_length) applies to the first load."""
        from eval_harness.models.causal_lm import load_causal_lm

        runtime = {
            "device": self.device,
            "progress": self.progress,
            "trust_remote_code": self.trust_remote_code,
            **runtime,
        }
        return self._memo(
            ("causal_lm", str(source), dtype, precision),
            lambda: load_causal_lm(source, dtype=dtype, precision=precision, **runtime),
        )

    def _memo(self, key: tuple, load):
        if key not in self._loaded:
            self._loaded[key] = load()
        return self._loaded[key]
