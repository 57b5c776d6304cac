"""The datasets' registry, names, configs and languages: importable without ``datasets`` or pyarrow
(the suites read them when a config is validated; the builders and loaders import them from
here)."""

from ..registry import Registry

# name -> its builder (eval_harness.data.builders), imported on first use; plug-ins add theirs in
# the "xbias.datasets" entry-point group or with DATASETS.register(name, "pkg.module:BUILDER").
BUILTIN_DATASETS = {
    "eec": "eval_harness.data.builders:EEC",
    "xweat": "eval_harness.data.builders:XWEAT",
    "gender_lists": "eval_harness.data.builders:GENDER_LISTS",
    "semeval2018_affect": "eval_harness.data.builders:SEMEVAL2018_AFFECT",
}
DATASETS = Registry("dataset", BUILTIN_DATASETS, entry_point_group="xbias.datasets")

EEC_CONFIGS = (
    "en_black_white",
    "en_latino_anglo",
    "es_latino_anglo",
    "en_arab_anglo",
    "ar_arab_anglo",
)
EEC_CONFIGS_BY_LANGUAGE = {
    "en": ["en_black_white", "en_latino_anglo", "en_arab_anglo"],
    "es": ["es_latino_anglo"],
    "ar": ["ar_arab_anglo"],
}
EEC_REFERENCE_GROUP = {
    "en_black_white": "European",
    "en_latino_anglo": "Anglo",
    "es_latino_anglo": "Anglo",
    "en_arab_anglo": "Anglo",
    "ar_arab_anglo": "Anglo",
}
# A translated EEC -> the English EEC it translates row by row (each of its rows names its original:
# sentence_en).
EEC_TRANSLATIONS = {"es_latino_anglo": "en_latino_anglo", "ar_arab_anglo": "en_arab_anglo"}
EEC_EMOTIONS = ("anger", "fear", "joy", "sadness")

XWEAT_LANGUAGES = ("en", "de", "es", "it", "hr", "ru", "tr")

SEMEVAL_LANGUAGES = ("en", "es", "ar")
SEMEVAL_DIMENSIONS = ("anger", "fear", "joy", "sadness", "valence")

GENDER_LIST_CONFIGS = (
    "definitional_pairs",
    "equalize_pairs",
    "gender_specific_seed",
    "gender_specific_full",
    "professions",
    "male_words",
    "female_words",
)
