"""A test model type whose EEC scores are known: ``planted``, an emotion model that trains nothing
and scores an EEC sentence from what the sentence is (its template, its English original, its
language), plus a planted shift.

Score of a sentence of language ``L`` whose English original has alignment key ``k`` and template
``t``:

    y = logistic(-0.4 + 0.35 a_t + 0.25 b_k + 0.12 c_(L, k) + 0.02 g_(L, t) [group is the
    reference])
        + shift [L = shift_language, group = shift_group, emotion in shift_emotions]

with ``a``, ``b``, ``c``, ``g`` standard normal draws fixed by hashing their subscripts (and
``noise_seed``): a template effect shared by the languages, a sentence effect shared by a sentence
and its translation, noise of each language, and a template-by-language group slope (templates move
each language's group contrast on their own, as real EECs do). ``training_noise`` adds
``training_noise * e_(seed, L, k)`` to the logit, a draw per training seed: what another seed of a
trained regressor changes. With ``shift = 0`` nothing differs between the languages but that noise:
the planted ``shift`` (e.g. 0.05 for sentences about Arabs in Arabic) is the only true difference.
Scores of texts that are no EEC sentence (none are asked: ``fit`` trains nothing) are 0.5.

``register_planted()`` adds the type to the model registry (in this process) and returns a function
that removes it; ``planted_model(name, **options)`` is a config entry.
"""

import functools
import hashlib

import numpy as np
from scipy.special import expit, ndtri

from eval_harness.models.registry import MODEL_TYPES, ModelType
from eval_harness.models.regressors import EmotionRegressor, RegressorScores

TYPE_NAME = "planted"
OPTIONS = (
    "shift",
    "shift_language",
    "shift_group",
    "shift_emotions",
    "noise_seed",
    "training_noise",
    "preprocess",
    "max_train",
)
# The Pearson r the model reports for itself (no SemEval data is read).
REPORTED_R = 0.9


def normal(*parts) -> float:
    """A standard normal draw fixed by ``parts``."""
    digest = hashlib.sha256("|".join(map(str, parts)).encode()).digest()
    return float(ndtri((int.from_bytes(digest[:8], "little") + 0.5) / 2**64))


@functools.lru_cache(maxsize=8)
def eec_sentences(language: str) -> dict:
    """text -> (alignment key of its English original, template_id, group, emotion) over
    ``language``'s EECs."""
    from eval_harness.data import load_eec
    from eval_harness.data.catalog import EEC_CONFIGS_BY_LANGUAGE, EEC_REFERENCE_GROUP
    from eval_harness.suites.eec_crosslingual.pipeline import alignment_key

    table = {}
    for config in EEC_CONFIGS_BY_LANGUAGE[language]:
        rows = load_eec(config).to_pandas()
        for sentence, english, template, group, emotion in zip(
            rows["sentence"],
            rows["sentence_en"],
            rows["template_id"],
            rows["group"],
            rows["emotion"],
            strict=True,
        ):
            reference = group == EEC_REFERENCE_GROUP[config]
            table[sentence] = (alignment_key(english), int(template), group, emotion, reference)
    return table


class PlantedRegressor(EmotionRegressor):
    model_type = TYPE_NAME

    def __init__(
        self,
        *,
        shift: float = 0.0,
        shift_language: str = "ar",
        shift_group: str = "Arab",
        shift_emotions: list | None = None,
        noise_seed: int = 0,
        training_noise: float = 0.0,
        preprocess: str | None = None,
        max_train: int | None = None,
        seed: int = 0,
    ):
        super().__init__(preprocess=preprocess, max_train=max_train, seed=seed)
        self.shift, self.shift_language, self.shift_group = shift, shift_language, shift_group
        self.shift_emotions, self.noise_seed, self.training_noise = (
            shift_emotions,
            noise_seed,
            training_noise,
        )

    def fit(
        self, language: str, dimension: str, semeval=None
    ) -> RegressorScores:  # trains on nothing
        self.language, self.dimension = language, dimension
        self.scores = RegressorScores(
            TYPE_NAME, language, dimension, REPORTED_R, REPORTED_R, 0, 0, 0
        )
        return self.scores

    def _raw_predict(self, texts: list[str]) -> np.ndarray:
        table, language, seed = eec_sentences(self.language), self.language, self.noise_seed
        scores = []
        for text in texts:
            if text not in table:
                scores.append(0.5)
                continue
            key, template, group, emotion, reference = table[text]
            logit = (
                -0.4
                + 0.35 * normal(seed, "template", template)
                + 0.25 * normal(seed, "sentence", key)
                + 0.12 * normal(seed, "noise", language, key)
                + 0.02 * normal(seed, "slope", language, template) * reference
                + self.training_noise * normal(seed, "training", self.seed, language, key)
            )
            planted = (
                language == self.shift_language
                and group == self.shift_group
                and (self.shift_emotions is None or emotion in self.shift_emotions)
            )
            scores.append(float(expit(logit)) + (self.shift if planted else 0.0))
        return np.asarray(scores)


def register_planted():
    """Add the ``planted`` model type (this process); returns the function that removes it again."""
    MODEL_TYPES.register(
        TYPE_NAME,
        ModelType(
            TYPE_NAME,
            "a test model with known EEC scores and a planted shift",
            needs_source=False,
            options=OPTIONS,
            emotion_model="helpers.planted_model:PlantedRegressor",
        ),
    )
    return lambda: MODEL_TYPES.unregister(TYPE_NAME)


def planted_model(name: str, **options) -> dict:
    """A config's model entry of the planted type."""
    return {"name": name, "type": TYPE_NAME, "options": options}
