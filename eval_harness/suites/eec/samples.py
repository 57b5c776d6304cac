"""The eec suite's samples: the score of every sentence an EEC unit fitted (or left out), one row per sentence.

:data:`EEC_SAMPLES` declares the columns (:mod:`eval_harness.contract.samples` says what each holds);
:func:`eec_samples` makes them from what :meth:`~.suite.EECSuite.prepare` kept of one EEC x emotion.
"""

from ...contract.samples import SampleColumn, SampleSchema

EEC_SAMPLES = SampleSchema(
    (
        SampleColumn("config", "string", "the EEC config"),
        SampleColumn("language", "string", "the sentence's language"),
        SampleColumn("sentence_id", "int64", "the row's position in the EEC config"),
        SampleColumn("template_id", "int64", "the sentence's template"),
        SampleColumn("person", "string", "the person term"),
        SampleColumn("group", "string", "the person's group (null for noun phrases, left out of the fit)", True),
        SampleColumn("gender", "string", "the person's gender"),
        SampleColumn("emotion", "string", "the unit's emotion"),
        SampleColumn("emotion_word", "string", "the sentence's emotion word"),
        SampleColumn("sentence", "string", "the text scored"),
        SampleColumn("sentence_en", "string", "the aligned English sentence (null where the EEC has none)", True),
        SampleColumn("score", "float64", "the predicted intensity: the Beta regression's input"),
        SampleColumn("numeral_mass", "float64", "a zero-shot judge's numeral mass (null for regressors)", True),
    )
)
# The corpus columns a unit's samples copy as they are.
CORPUS_COLUMNS = ("language", "template_id", "person", "group", "gender", "emotion", "emotion_word", "sentence",
                  "sentence_en")  # fmt: skip


def eec_samples(config: str, data: dict) -> dict:
    """The sample columns of one EEC x emotion from the suite's prepared ``data`` (its ``rows``, the corpus rows
    scored with their positions as index, ``y`` and, for a judge, ``numeral_mass``)."""
    rows = data["rows"]
    mass = data.get("numeral_mass")
    return {
        "config": [config] * len(rows),
        "sentence_id": rows.index.to_numpy(),
        **{name: rows[name] for name in CORPUS_COLUMNS},
        "score": data["y"],
        "numeral_mass": [None] * len(rows) if mass is None else mass,
    }
