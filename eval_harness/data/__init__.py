"""The project's datasets: builders (sources -> Hub-ready folders) and loaders (-> ``datasets`` objects).

Each loader builds its dataset on first use into ``paths.datasets_dir()/<name>``
(again when that folder came from other sources or another builder version) and
returns ``datasets.load_dataset(folder, config)``. Source files come from
``source_dir``/``--source-dir``, else ``$XBIAS_SOURCE_DIR``, else are downloaded.
"""

from .builders import DATASETS, build_dataset, build_datasets, build_summary, dataset_folder
from .corpus import load_corpus
from .eec import (
    EEC_CONFIGS,
    EEC_CONFIGS_BY_LANGUAGE,
    EEC_EMOTIONS,
    EEC_FEATURES,
    EEC_REFERENCE_GROUP,
    generate_eec,
)
from .emotion_splits import TextSplit, clean_tweet, semeval_splits
from .gender_lists import GENDER_LIST_CONFIGS
from .hub_folder import push_to_hub, validate_card
from .loaders import load_eec, load_gender_lists, load_semeval, load_xweat, load_xweat_translations
from .semeval import SEMEVAL_DIMENSIONS, SEMEVAL_LANGUAGES
from .xweat import XWEAT_LANGUAGES

__all__ = [
    "DATASETS",
    "EEC_CONFIGS",
    "EEC_CONFIGS_BY_LANGUAGE",
    "EEC_EMOTIONS",
    "EEC_FEATURES",
    "EEC_REFERENCE_GROUP",
    "GENDER_LIST_CONFIGS",
    "SEMEVAL_DIMENSIONS",
    "SEMEVAL_LANGUAGES",
    "XWEAT_LANGUAGES",
    "TextSplit",
    "build_dataset",
    "build_datasets",
    "build_summary",
    "clean_tweet",
    "dataset_folder",
    "generate_eec",
    "load_corpus",
    "load_eec",
    "load_gender_lists",
    "load_semeval",
    "load_xweat",
    "load_xweat_translations",
    "push_to_hub",
    "semeval_splits",
    "validate_card",
]
