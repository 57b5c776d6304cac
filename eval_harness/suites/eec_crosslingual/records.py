"""The eec_crosslingual suite's records: one per identity effect's difference between English and
its translation.

:data:`CROSSLINGUAL_RECORDS` is their schema, in one place: a paired difference's fields
(:data:`eval_harness.suites.eec.paired.records.DIFFERENCE_FIELDS`, the records its
:func:`~eval_harness.suites.eec.paired.records.difference_records` makes) and the languages' own.
"""

from ...contract.records import Field, RecordSchema
from ..eec.paired.records import DIFFERENCE_FIELDS

DIFFERENCE_METRIC = "language_difference"

CROSSLINGUAL_RECORDS = RecordSchema(
    metrics={
        DIFFERENCE_METRIC: "an identity effect's difference on the predicted-intensity scale "
        "between the translated EEC and its English original (translated "
        "minus English), from one joint fit over the aligned sentences",
    },
    fields={
        **DIFFERENCE_FIELDS,
        "reference_language": Field(str, "the language subtracted: en"),
        "other_language": Field(str, "the translated EEC's language"),
        "english_config": Field(str, "the English EEC the unit's config translates"),
        "n_pairs": Field(int, "aligned sentence pairs fitted"),
        "n_english_only": Field(
            int, "rows with a group of the English EEC that no translated row names"
        ),
        "n_translation_only": Field(
            int, "translated rows with a group whose English original is missing"
        ),
        "reference_regressor_r": Field(
            float,
            "the English regressor's test Pearson r on SemEval-2018 (pooled: the seeds' mean)",
            seed_mean=True,
        ),
        "other_regressor_r": Field(
            float,
            "the other language's regressor's test Pearson "
            "r on SemEval-2018 (pooled: the seeds' mean)",
            seed_mean=True,
        ),
        "reference_numeral_mass": Field(
            float, "a zero-shot judge's mean numeral mass on the English sentences", seed_mean=True
        ),
        "other_numeral_mass": Field(
            float, "a zero-shot judge's mean numeral mass on the translations", seed_mean=True
        ),
    },
    mde="mde",
)
