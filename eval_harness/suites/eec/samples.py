"""The eec suite's samples: the score of every sentence an EEC unit fitted (or left out), one row
per sentence.

An EEC unit (``dataset="eec"``; the regressor-quality units, ``dataset="semeval2018_affect"``, keep
none) keeps one row per sentence it scored, in the corpus' order (a ``sample:`` keeps the drawn
rows). :data:`EEC_SAMPLES` declares the columns, what each holds and whether it may be null (the one
list of them: ``EEC_SAMPLES.describe()`` prints it);
:func:`eec_samples` makes them from what :meth:`~.suite.EECSuite.prepare` kept of one EEC x emotion.
"""

import json

from ...contract.samples import SampleColumn, SampleSchema
from .corpora import IDENTITY_COLUMNS

EEC_SAMPLES = SampleSchema(
    (
        SampleColumn(
            "config", "string", "the EEC config (en_arab_anglo, or a generated corpus's name)"
        ),
        SampleColumn("language", "string", "the sentence's language"),
        SampleColumn(
            "sentence_id",
            "int64",
            "the row's position in the EEC config (load_eec(config)[sentence_id])",
        ),
        SampleColumn(
            "template_id",
            "int64",
            "the template, 1-11 in the shipped EECs (what clustered tests cluster by)",
        ),
        SampleColumn(
            "person", "string", "the person term (a name, or a noun phrase such as 'my mother')"
        ),
        SampleColumn(
            "group",
            "string",
            "the person's group (null for noun phrases: the fit leaves those out)",
            True,
        ),
        SampleColumn("gender", "string", "the person's gender"),
        SampleColumn(
            "other_factors",
            "string",
            "null but for a generated corpus with further identity "
            "factors: the person's level of each, as a JSON "
            'object ({"age": "young"})',
            True,
        ),
        SampleColumn("emotion", "string", "the unit's emotion"),
        SampleColumn("emotion_word", "string", "the sentence's emotion word"),
        SampleColumn("sentence", "string", "the text scored"),
        SampleColumn(
            "sentence_en",
            "string",
            "the aligned English sentence, for pairing across languages "
            "(the English sentence itself in an English EEC; the row-by-row "
            "source of a translated one; null where the EEC has none)",
            True,
        ),
        SampleColumn(
            "score",
            "float64",
            "the model's predicted intensity in [0, 1], exactly the Beta regression's input "
            "(float64, so that a refit from the file reproduces the unit's coefficients)",
        ),
        SampleColumn(
            "numeral_mass",
            "float64",
            "a zero-shot judge's probability that its answer starts with a numeral "
            "of its scale (its validity on this sentence; null for regressors)",
            True,
        ),
    )
)
# The corpus columns a unit's samples copy as they are.
CORPUS_COLUMNS = (
    "language",
    "template_id",
    "person",
    "group",
    "gender",
    "emotion",
    "emotion_word",
    "sentence",
    "sentence_en",
)


def eec_samples(config: str, data: dict) -> dict:
    """The sample columns of one EEC x emotion from the suite's prepared ``data`` (its ``rows``, the
    corpus rows scored with their positions as index, ``y``, the fit's ``factors`` and, for a judge,
    ``numeral_mass``)."""
    rows = data["rows"]
    mass = data.get("numeral_mass")
    others = [factor for factor in data["factors"] if factor not in IDENTITY_COLUMNS]
    return {
        "config": [config] * len(rows),
        "sentence_id": rows.index.to_numpy(),
        **{name: rows[name] for name in CORPUS_COLUMNS},
        "other_factors": _as_json(rows, others) if others else [None] * len(rows),
        "score": data["y"],
        "numeral_mass": [None] * len(rows) if mass is None else mass,
    }


def _as_json(rows, factors: list[str]) -> list[str]:
    """Each row's levels of ``factors`` as a JSON object."""
    return [
        json.dumps(dict(zip(factors, levels, strict=True)))
        for levels in rows[factors].itertuples(index=False)
    ]
