"""Duplicate words in word sets: each word counts once, with one warning naming the copies.

A word listed ``k`` times in a set would otherwise count ``k`` times in every mean, sum and standard
deviation of a measure (RND's sum over the attribute words, WEAT's association means, ...): "rose"
six times in an attribute set moves a relative norm distance as much as six different words would.
WEFE keeps one vector per word (its ``get_embeddings_from_set`` fills a ``word -> vector`` dict, so
a repeated word overwrites itself), and so do we: the first occurrence of each word is kept, in set
order, and one :class:`DuplicateWordsWarning` per call lists every repeated word of every set with
its count. Words are compared as given (``"Rose"`` and ``"rose"`` are two words, as they are two
vocabulary entries).

Vectors passed without words are taken as given: only words say that two rows are the same word.
"""

import warnings
from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np

from ..errors import DuplicateWordsWarning


def first_occurrences(words: Sequence[str]) -> list[int]:
    """The rows of ``words`` that hold each word's first occurrence, in order.

    Examples
    --------
    >>> from eval_harness.stats.word_sets import first_occurrences
    >>> first_occurrences(["rose", "tulip", "rose", "lily"])
    [0, 1, 3]
    """
    seen: set[str] = set()
    rows = []
    for row, word in enumerate(words):
        if word not in seen:
            seen.add(word)
            rows.append(row)
    return rows


def repeated_words(words: Sequence[str]) -> dict[str, int]:
    """The words listed more than once, each with its count (in order of first appearance).

    Examples
    --------
    >>> from eval_harness.stats.word_sets import repeated_words
    >>> repeated_words(["rose", "tulip", "rose", "lily", "rose"])
    {'rose': 3}
    """
    return {word: count for word, count in Counter(words).items() if count > 1}


def distinct_rows(
    words_by_set: Mapping[str, Sequence[str]], stacklevel: int = 3
) -> dict[str, list[int]]:
    """Per set, the rows that keep each word once (its first occurrence); one
    :class:`DuplicateWordsWarning` naming every repeated word and its count, per set, when any set
    repeats a word.

    ``stacklevel`` is passed to :func:`warnings.warn` (3: the caller of the function that calls this
    one).

    Examples
    --------
    >>> import warnings
    >>> from eval_harness.stats.word_sets import distinct_rows
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     rows = distinct_rows({"X": ["rose", "tulip", "rose"], "Y": ["ant"]})
    >>> rows, len(caught)
    ({'X': [0, 1], 'Y': [0]}, 1)
    """
    repeated = {name: repeated_words(list(words)) for name, words in words_by_set.items()}
    repeated = {name: counts for name, counts in repeated.items() if counts}
    if repeated:
        listed = "; ".join(
            f"set {name}: " + ", ".join(f"{word!r} x{count}" for word, count in counts.items())
            for name, counts in repeated.items()
        )
        warnings.warn(
            f"duplicate words collapsed, each word counts once (as in WEFE): {listed}",
            DuplicateWordsWarning,
            stacklevel=stacklevel,
        )
    return {name: first_occurrences(list(words)) for name, words in words_by_set.items()}


def distinct_role_rows(
    roles: Sequence[str], words: Sequence[str], stacklevel: int = 4
) -> np.ndarray:
    """The rows of row-wise input (one role and one word per row) to keep, as a mask.

    The first row of each (role, word); the same word in two roles is kept in both. Warns as
    :func:`distinct_rows`.

    Examples
    --------
    >>> import warnings
    >>> from eval_harness.stats.word_sets import distinct_role_rows
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     keep = distinct_role_rows(["X", "X", "A", "X"], ["rose", "tulip", "rose", "rose"])
    >>> keep.tolist()
    [True, True, True, False]
    """
    by_role: dict[str, list[int]] = {}
    for row, role in enumerate(roles):
        by_role.setdefault(role, []).append(row)
    kept = distinct_rows(
        {role: [words[row] for row in rows] for role, rows in by_role.items()}, stacklevel
    )
    mask = np.zeros(len(roles), dtype=bool)
    for role, rows in by_role.items():
        mask[[rows[i] for i in kept[role]]] = True
    return mask
