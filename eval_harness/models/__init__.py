"""Model adapters: transformer encoders, static vectors, the embedding cache and emotion regressors."""

from eval_harness.models.cache import EmbeddingCache
from eval_harness.models.encoder import ContextVectors, TransformerEncoder, load_encoder
from eval_harness.models.templates import DEFAULT_TEMPLATES

__all__ = ["DEFAULT_TEMPLATES", "ContextVectors", "EmbeddingCache", "TransformerEncoder", "load_encoder"]
