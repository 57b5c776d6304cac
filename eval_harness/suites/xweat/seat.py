"""SEAT (May et al. 2019) on the XWEAT tests: WEAT over the sentence vectors of the words in
bleached templates.

Every word of a set is placed in its language's templates
(:func:`eval_harness.data.seat.load_seat_templates`: English ones packaged, any other language's
from the user — never machine-translated); each *sentence* is one row of the set, so a set of ``n``
words with ``k`` templates each has ``n k`` rows, and :func:`eval_harness.stats.weat.weat` runs on
the four sets of sentence vectors (its permutation test then re-partitions sentences, as May et
al.'s code does). The template of a word is chosen by
:meth:`~eval_harness.data.seat.SeatTemplates.kind_of`: a capitalised word takes the name templates,
any other word the default kind (English: the singular-noun templates). May et al. also pick
adjective, mass-noun, pronoun and verb templates from word lists of their own, which XWEAT's lists
do not carry; to use one template list for every word, give it for the language (``seat_templates:
{en: [...]}``).

A sentence encoder is anything with ``encode(texts) -> (n, d)`` (an encoder model; static vectors
have none). Cross-lingual: the target sentences are in the target language's templates, the
attribute sentences in the attribute language's.

The effect size divides by the *sample* standard deviation of the sentences' associations
(``ddof=1``, :data:`SEAT_DDOF`), as May et al.'s code does (``sentbias/weat.py``: ``stdev_s_wAB`` is
``np.std(..., ddof=1)``); WEAT on words keeps XWEAT's population deviation (``ddof=0``). Each
measure takes its own reference code's
convention: docs/conventions.md lists them beside WEFE's.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...contract import SentenceEncoder
from ...data.seat import SeatTemplates, load_seat_templates, seat_languages
from ...errors import ConfigError, InputError
from ...stats.weat import WEATResult, weat
from .pipeline import WordSet, measure_seed

TEMPLATES_KEY = "seat_templates"
SEAT_DDOF = 1  # May et al.'s sample standard deviation (module docstring)


@dataclass(frozen=True)
class SEATResult:
    """SEAT on one test and (target language, attribute language) pair, or why it did not run.

    Attributes:
        test, target_language, attribute_language: the unit.
        weat: the WEAT result over the sentence vectors (``None`` when skipped).
        n_sentences: sentences per set, X, Y, A, B (empty when skipped).
        templates: language -> where its templates come from.
        seed: the integer seed of the permutation draws (:func:`~.pipeline.measure_seed`).
        skip_reason: why SEAT did not run (e.g. the model has no sentence vectors).
    """

    test: str
    target_language: str
    attribute_language: str
    weat: WEATResult | None
    n_sentences: tuple[int, ...] = ()
    templates: Mapping[str, str] | None = None
    seed: int | None = None
    skip_reason: str | None = None

    @property
    def status(self) -> str:
        return "skipped" if self.weat is None else "ok"


class PrecomputedSentences:
    """A sentence encoder over vectors computed beforehand: ``sentence -> vector``."""

    def __init__(self, table: Mapping[str, np.ndarray]):
        self.table = table

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([self.table[text] for text in texts])


def set_sentences(word_set: WordSet, templates: SeatTemplates) -> list[str]:
    """Every word of ``word_set`` in its templates, word by word, in set order."""
    return [sentence for word in word_set.words for sentence in templates.sentences(word)]


def run_seat(
    encoder: SentenceEncoder,
    test: str,
    targets: Mapping[str, WordSet],
    attributes: Mapping[str, WordSet],
    templates: Mapping[str, SeatTemplates],
    seed: int = 0,
    ddof: int = SEAT_DDOF,
    **weat_options,
) -> SEATResult:
    """SEAT on one test: ``targets`` holds sets ``"X"``, ``"Y"``; ``attributes`` holds ``"A"``,
    ``"B"``.

    Args:
        encoder: has ``encode(texts)`` (sentence vectors).
        templates: language -> :class:`~eval_harness.data.seat.SeatTemplates` for both languages of
        the test.
        seed: base seed; the permutation draws use :func:`~.pipeline.measure_seed` of the unit.
        ddof: of the effect size's standard deviation; default 1, May et al.'s (module docstring).
        weat_options: :func:`eval_harness.stats.weat.weat`'s keywords (similarity, permutations,
        ...).
    """
    sets = [targets["X"], targets["Y"], attributes["A"], attributes["B"]]
    target_language, attribute_language = sets[0].language, sets[2].language
    sentences = [set_sentences(word_set, templates[word_set.language]) for word_set in sets]
    unit_seed = measure_seed(seed, test, target_language, attribute_language, "seat")
    x, y, a, b = (np.asarray(encoder.encode(rows)) for rows in sentences)
    result = weat(x, y, a, b, seed=unit_seed, ddof=ddof, **weat_options)
    return SEATResult(
        test,
        target_language,
        attribute_language,
        result,
        n_sentences=tuple(len(rows) for rows in sentences),
        templates={
            language: templates[language].source
            for language in (target_language, attribute_language)
        },
        seed=unit_seed,
    )


def resolve_templates(language: str, given: Mapping[str, Any] | None) -> SeatTemplates:
    """The SEAT templates of ``language`` for a run: the ``seat_templates`` option's entry for it (a
    list, a mapping ``kind -> list``, or the path of a YAML/JSON file), else the packaged ones.

    Raises:
        ConfigError: no templates for ``language`` (naming the key to set), or the given ones are
        malformed.
    """
    entry = (given or {}).get(language)
    if entry is None and language not in seat_languages():
        raise ConfigError(
            f"SEAT has no templates for language {language!r} (packaged: "
            f"{', '.join(seat_languages())}), and they are never machine-translated: "
            f"set `{TEMPLATES_KEY}: {{{language}: ['<sentence with {{word}}>', "
            "...]}` (short, semantically bleached sentences in that language, each "
            "holding {word} once), or a YAML/JSON file of them"
        )
    try:
        return load_seat_templates(language, entry)
    except (ConfigError, InputError) as error:
        raise ConfigError(f"{TEMPLATES_KEY}.{language}: {error}") from None
