"""The eec_crosslingual suite's samples: one row per aligned pair a unit fitted, with the scores of
both sentences.

Beside the unit's ``model`` and ``seed``: ``config`` (the translated EEC), ``english_config``,
``language`` (the pair, ``en-ar``), ``pair`` (its number in the alignment),
``english_row``/``translated_row`` (the rows' positions in their EEC configs), ``template_id``,
``person`` (the English person term), ``group``, ``gender``, ``emotion``, ``sentence_en``,
``sentence`` (the translation), ``english_score``/``translated_score`` (each side's predicted
intensity: the joint fit's input, float64) and, for a zero-shot judge, ``english_numeral_mass`` /
``translated_numeral_mass`` (null for regressors). The joint fit is ``language_contrasts(samples,
samples.english_score, samples.translated_score, language, reference_levels)``
(:func:`.pipeline.language_contrasts`).
"""

from ...contract.samples import SampleColumn, SampleSchema

CROSSLINGUAL_SAMPLES = SampleSchema(
    (
        SampleColumn("config", "string", "the translated EEC config"),
        SampleColumn("english_config", "string", "the English EEC it translates"),
        SampleColumn("language", "string", "the language pair, en-<language>"),
        SampleColumn("pair", "int64", "the pair's number in the alignment"),
        SampleColumn("english_row", "int64", "the English row's position in its EEC config"),
        SampleColumn("translated_row", "int64", "the translated row's position in its EEC config"),
        SampleColumn("template_id", "int64", "the template (the same on both sides)"),
        SampleColumn("person", "string", "the English person term"),
        SampleColumn("group", "string", "the person's group"),
        SampleColumn("gender", "string", "the person's gender"),
        SampleColumn("emotion", "string", "the unit's emotion"),
        SampleColumn("sentence_en", "string", "the English sentence"),
        SampleColumn("sentence", "string", "its translation"),
        SampleColumn("english_score", "float64", "the English sentence's predicted intensity"),
        SampleColumn("translated_score", "float64", "the translation's predicted intensity"),
        SampleColumn(
            "english_numeral_mass",
            "float64",
            "a zero-shot judge's numeral mass (null: a regressor)",
            True,
        ),
        SampleColumn("translated_numeral_mass", "float64", "likewise on the translation", True),
    )
)
PAIR_COLUMNS = (
    "pair",
    "english_row",
    "translated_row",
    "template_id",
    "person",
    "group",
    "gender",
    "emotion",
    "sentence_en",
    "sentence",
)


def crosslingual_samples(
    config: str, english_config: str, language: str, pairs, english: dict, other: dict
) -> dict:
    """The sample columns of one unit: its ``pairs`` and each side's scores (``{"y",
    "numeral_mass"}``, the mass one value per sentence or None)."""
    n = len(pairs)

    def mass(side: dict):
        return [None] * n if side["numeral_mass"] is None else side["numeral_mass"]

    return {
        "config": [config] * n,
        "english_config": [english_config] * n,
        "language": [language] * n,
        **{name: pairs[name].to_numpy() for name in PAIR_COLUMNS},
        "english_score": english["y"],
        "translated_score": other["y"],
        "english_numeral_mass": mass(english),
        "translated_numeral_mass": mass(other),
    }
