"""The project's datasets: builders (sources -> Hub-ready folders) and loaders (-> ``datasets``
objects).

Each loader builds its dataset on first use into ``paths.datasets_dir()/<name>``
(again when that folder came from other sources or another builder version) and
returns ``datasets.load_dataset(folder, config)``. Source files come from
``source_dir``/``--source-dir``, else ``$XBIAS_SOURCE_DIR``, else are downloaded.
"""

from ..lazy import lazy_exports

# name -> the submodule that defines it, imported on first use (datasets and pyarrow only when
# needed)
_EXPORTS = {
    "DATASETS": "catalog",
    "build_dataset": "builders",
    "build_datasets": "builders",
    "build_summary": "builders",
    "dataset_folder": "builders",
    "dataset_fingerprint": "builders",
    "push_dataset": "builders",
    "load_corpus": "corpus",
    "EEC_CONFIGS": "catalog",
    "EEC_CONFIGS_BY_LANGUAGE": "catalog",
    "EEC_EMOTIONS": "catalog",
    "EEC_REFERENCE_GROUP": "catalog",
    "EEC_FEATURES": "eec",
    "generate_eec": "eec",
    "SemEvalSplits": "emotion_splits",
    "TextSplit": "emotion_splits",
    "clean_tweet": "emotion_splits",
    "semeval_splits": "emotion_splits",
    "GENDER_LIST_CONFIGS": "catalog",
    "push_to_hub": "hub_folder",
    "validate_card": "hub_folder",
    "load_eec": "loaders",
    "load_gender_lists": "loaders",
    "load_semeval": "loaders",
    "load_xweat": "loaders",
    "load_xweat_translations": "loaders",
    "SEMEVAL_DIMENSIONS": "catalog",
    "SEMEVAL_LANGUAGES": "catalog",
    "XWEAT_LANGUAGES": "catalog",
}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)
