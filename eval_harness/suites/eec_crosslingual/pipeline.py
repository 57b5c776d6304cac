"""Cross-language contrasts on aligned EEC sentences: does a model's bias change with the language
it reads?

The Spanish and Arabic EECs translate two English EECs row by row (Câmara et al. 2022): each
translated row names its English original (``sentence_en``). For one model, the English sentences
are scored by its English emotion regressor and their translations by its regressor of the other
language (the paper's set-up: one regressor per language over the same multilingual encoder), and
one joint Beta regression is fitted over both
(:func:`eval_harness.suites.eec.paired.fit.paired_contrasts`, condition ``language``, English the
reference):

    logit(mu) = [group x gender, saturated] + language + [group x gender] x language,
    log(phi)  = g0 + g1 language

Every identity effect on the predicted-intensity scale (the group contrast within each gender, the
gender contrast within each group, their averages over the fitted rows, the interaction as a
difference-in-differences) is evaluated in each language, and its difference, translated minus
English, gets its own delta-method Wald test from the joint covariance. Standard errors are
clustered by the aligned template by default (``template_id``: the rows of one template in both
languages share a cluster, so what a template does to both languages cancels out of the difference),
with t(G - 1) tests; ``person`` (the English person term, shared by both rows of a pair) adds a
second way, and ``sentence`` makes each aligned pair its own cluster.

Alignment (:func:`align`): a translated row and an English row are partners when the translated
row's ``sentence_en`` is the English row's ``sentence``, compared case-insensitively with white
space collapsed and the article "an" read as "a" (the translations' ``sentence_en`` write "in a
annoying situation" where the English EEC has "an annoying"). Partners must agree on template,
group, gender and emotion. Only pairs are fitted; the rows of either EEC without a partner are
counted. Noun-phrase rows ("my mother") carry no group and are not paired (the Beta regression
leaves them out in any case).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ...errors import InputError
from ..eec.paired.fit import paired_contrasts

if TYPE_CHECKING:  # pandas is imported where frames are built: checking a config loads none
    import pandas as pd

ENGLISH = "en"
CONDITION = "language"
# A cluster_by name -> the column of the aligned pairs that labels it (the same label for both rows
# of a pair).
CLUSTER_SOURCES = {"template_id": "template_id", "person": "person", "sentence": "pair"}
# What partners must agree on.
AGREEING = ("template_id", "group", "gender", "emotion")
_ARTICLE = re.compile(r"\ban\b")
_SPACE = re.compile(r"\s+")


def alignment_key(sentence: str) -> str:
    """The form in which an English sentence and a translation's ``sentence_en`` are compared
    (module docstring)."""
    return _SPACE.sub(" ", _ARTICLE.sub("a", sentence.lower())).strip()


@dataclass(frozen=True)
class Alignment:
    """The aligned pairs of an English EEC and its translation.

    ``pairs``: one row per pair with a group, columns ``pair`` (0, 1, ...), ``english_row`` and
    ``translated_row`` (the rows' labels in the frames aligned: their positions in the EEC configs,
    as ``load_eec(...).to_pandas()`` gives them), ``template_id``, ``person`` (the English one),
    ``group``, ``gender``, ``emotion``, ``sentence_en`` (the English sentence) and ``sentence`` (its
    translation); ``n_english_only``/``n_translation_only``: rows with a group of either EEC without
    a partner.
    """

    pairs: pd.DataFrame
    n_english_only: int
    n_translation_only: int


def align(english: pd.DataFrame, translation: pd.DataFrame) -> Alignment:
    """Pair the rows of an English EEC with those of its translation (EEC columns; module
    docstring).

    Raises:
        InputError: two rows of one EEC with the same English sentence (no one-to-one pairing), or
            partners that disagree on template, group, gender or emotion (the EECs are not
            translations of each other).
    """
    named = {
        "English EEC": english[english["group"].notna()],
        "translated EEC": translation[translation["group"].notna()],
    }
    keys = {
        "English EEC": named["English EEC"]["sentence"].map(alignment_key),
        "translated EEC": named["translated EEC"]["sentence_en"].map(alignment_key),
    }
    for what, key in keys.items():
        repeated = key[key.duplicated()]
        if len(repeated):
            raise InputError(
                f"the {what} holds the English sentence {repeated.iloc[0]!r} "
                "twice: its rows cannot be paired one to one"
            )
    left = named["English EEC"].assign(
        key=keys["English EEC"].to_numpy(), row=named["English EEC"].index
    )
    right = named["translated EEC"].assign(
        key=keys["translated EEC"].to_numpy(), row=named["translated EEC"].index
    )
    merged = left.merge(right, on="key", suffixes=("", "_translated"))
    for column in AGREEING:
        differ = merged[column].fillna("").astype(str) != merged[f"{column}_translated"].fillna(
            ""
        ).astype(str)
        if differ.any():
            row = merged[differ].iloc[0]
            raise InputError(
                f"the translated row {row['sentence_translated']!r} "
                f"names the English sentence {row['sentence']!r} "
                f"but has {column} {row[f'{column}_translated']!r}, "
                f"not {row[column]!r}: these EECs are not aligned"
            )
    import pandas as pd

    pairs = pd.DataFrame(
        {
            "pair": np.arange(len(merged)),
            "english_row": merged["row"].to_numpy(),
            "translated_row": merged["row_translated"].to_numpy(),
            "template_id": merged["template_id"].to_numpy(),
            "person": merged["person"].to_numpy(),
            "group": merged["group"].to_numpy(),
            "gender": merged["gender"].to_numpy(),
            "emotion": merged["emotion"].to_numpy(),
            "sentence_en": merged["sentence"].to_numpy(),
            "sentence": merged["sentence_translated"].to_numpy(),
        }
    )
    return Alignment(pairs, len(left) - len(merged), len(right) - len(merged))


def language_contrasts(
    pairs: pd.DataFrame,
    english_scores: Sequence[float],
    translated_scores: Sequence[float],
    language: str,
    reference_levels: Mapping[str, str],
    *,
    cov_type: str = "cluster",
    cluster_by: Sequence[str] = ("template_id",),
    use_t: bool | None = None,
):
    """The joint fit of the module docstring over aligned ``pairs`` (:attr:`Alignment.pairs`, or
    some of its rows): ``english_scores[i]`` is the predicted intensity of pair ``i``'s English
    sentence, ``translated_scores[i]`` that of its translation into ``language``
    (:func:`paired_contrasts`; differences: ``language`` minus English).
    """
    return paired_contrasts(
        pairs,
        english_scores,
        translated_scores,
        CONDITION,
        (ENGLISH, language),
        reference_levels,
        cluster_sources=CLUSTER_SOURCES,
        cov_type=cov_type,
        cluster_by=cluster_by,
        use_t=use_t,
    )
