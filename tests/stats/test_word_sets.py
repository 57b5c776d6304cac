"""Duplicate words count once (WEFE's convention), with one warning naming them: WEAT and every
association measure, through the metrics' row-wise inputs; expected values computed directly in
numpy."""

import warnings

import numpy as np
import pytest

from eval_harness.errors import DuplicateWordsWarning, InputError
from eval_harness.stats.weat import weat, weat_from_roles
from eval_harness.stats.word_sets import distinct_rows, first_occurrences, repeated_words
from eval_harness.suites.xweat.measures import association_from_roles


def random_sets(seed: int = 3, dim: int = 6) -> dict[str, tuple[list[str], np.ndarray]]:
    rng = np.random.default_rng(seed)
    sizes = {"X": 5, "Y": 5, "A": 4, "B": 4}
    return {
        role: ([f"{role.lower()}{i}" for i in range(size)], rng.normal(size=(size, dim)))
        for role, size in sizes.items()
    }


def with_copies(words: list[str], vectors: np.ndarray, row: int, copies: int):
    """The set with word ``row`` listed ``copies`` more times, at the end."""
    return words + [words[row]] * copies, np.vstack([vectors] + [vectors[row : row + 1]] * copies)


def rows_and_roles(sets):
    embeddings = np.vstack([vectors for _, vectors in sets.values()])
    roles = [role for role, (words, _) in sets.items() for _ in words]
    words = [word for words, _ in sets.values() for word in words]
    return embeddings.tolist(), roles, words


def duplicate_warnings(caught) -> list[str]:
    return [str(w.message) for w in caught if issubclass(w.category, DuplicateWordsWarning)]


def test_first_occurrences_keep_each_word_once_in_order_and_name_the_copies():
    words = ["rose", "tulip", "rose", "Rose", "tulip", "rose"]
    assert first_occurrences(words) == [0, 1, 3]
    assert repeated_words(words) == {"rose": 3, "tulip": 2}
    with pytest.warns(DuplicateWordsWarning) as caught:
        kept = distinct_rows({"X": words, "Y": ["a", "b"]})
    assert kept == {"X": [0, 1, 3], "Y": [0, 1]}
    assert len(caught) == 1
    assert "set X: 'rose' x3, 'tulip' x2" in str(caught[0].message) and "set Y" not in str(
        caught[0].message
    )


def test_weat_with_a_duplicated_word_equals_weat_of_the_deduplicated_lists_with_one_warning():
    sets = random_sets()
    clean = weat(
        *(vectors for _, vectors in sets.values()), words={r: w for r, (w, _) in sets.items()}
    )
    doubled = dict(
        sets, X=with_copies(*sets["X"], row=1, copies=3), A=with_copies(*sets["A"], row=0, copies=2)
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = weat(
            *(vectors for _, vectors in doubled.values()),
            words={r: w for r, (w, _) in doubled.items()},
        )
    assert duplicate_warnings(caught) == [
        "duplicate words collapsed, each word counts once "
        "(as in WEFE): set X: 'x1' x4; set A: 'a0' x3"
    ]
    assert (result.n_x, result.n_a) == (5, 4)
    assert result.effect_size == clean.effect_size and result.p_value == clean.p_value
    # Independently: counted per copy, d would be another number (the collapse changes something).
    unit = {
        role: vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
        for role, (_, vectors) in doubled.items()
    }
    s = {
        role: (unit[role] @ unit["A"].T).mean(1) - (unit[role] @ unit["B"].T).mean(1)
        for role in "XY"
    }
    per_copy = (s["X"].mean() - s["Y"].mean()) / np.concatenate([s["X"], s["Y"]]).std()
    assert abs(per_copy - clean.effect_size) > 0.05


def test_the_weat_metric_input_collapses_duplicate_rows_of_a_role_only():
    sets = random_sets(5)
    embeddings, roles, words = rows_and_roles(sets)
    clean = weat_from_roles(embeddings, roles, words=words)
    # "a0" twice in A, and once in B too: the B row is another role's word and stays
    extra = [sets["A"][1][0].tolist()]
    with pytest.warns(DuplicateWordsWarning, match="set A: 'a0' x2"):
        doubled = weat_from_roles(embeddings + extra, roles + ["A"], words=words + ["a0"])
    assert doubled.effect_size == clean.effect_size and doubled.n_a == clean.n_a
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        across = weat_from_roles(
            embeddings + extra, roles + ["B"], words=words + ["a0"]
        )  # no warning
    assert across.n_b == clean.n_b + 1


def independent_rnd(x: np.ndarray, y: np.ndarray, attributes: np.ndarray) -> float:
    """Garg et al.'s sum over the attribute words of |a - mean x| - |a - mean y| on unit vectors, by
    loops."""
    unit = [[v / np.sqrt(sum(c * c for c in v)) for v in rows] for rows in (x, y, attributes)]
    centroid_x, centroid_y = (sum(rows) / len(rows) for rows in unit[:2])
    return float(
        sum(
            np.sqrt(((a - centroid_x) ** 2).sum()) - np.sqrt(((a - centroid_y) ** 2).sum())
            for a in unit[2]
        )
    )


@pytest.mark.parametrize("measure", ["rnd", "mac", "ect", "ripa", "rnsb"])
def test_every_association_measure_gives_the_deduplicated_number_with_one_warning(measure):
    sets = random_sets(7)
    embeddings, roles, words = rows_and_roles(sets)
    clean = association_from_roles(measure, embeddings, roles, words=words)
    rows = [i for i, role in enumerate(roles) if role == "X"]
    copies = [embeddings[rows[2]]] * 5
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        doubled = association_from_roles(
            measure, embeddings + copies, roles + ["X"] * 5, words=words + [words[rows[2]]] * 5
        )
    assert duplicate_warnings(caught) == [
        "duplicate words collapsed, each word counts once (as in WEFE): set X: 'x2' x6"
    ]
    assert {label: result.value for label, result in doubled.items()} == {
        label: result.value for label, result in clean.items()
    }


def test_rnd_with_rose_six_times_equals_rnd_with_rose_once_computed_directly():
    rng = np.random.default_rng(11)
    flowers = ["rose", "tulip", "daisy", "lily"]
    x, y, pleasant = rng.normal(size=(4, 8)), rng.normal(size=(4, 8)), rng.normal(size=(5, 8))
    x[0] += 2.0  # "rose" far from the other flowers: its copies would drag X's centroid
    words = (
        flowers + ["rose"] * 5 + [f"insect{i}" for i in range(4)] + [f"good{i}" for i in range(5)]
    )
    roles = ["X"] * 9 + ["Y"] * 4 + ["A"] * 5
    embeddings = np.vstack([x, np.repeat(x[:1], 5, axis=0), y, pleasant]).tolist()
    with pytest.warns(DuplicateWordsWarning, match="'rose' x6"):
        result = association_from_roles("rnd", embeddings, roles, words=words)["A"]
    once = independent_rnd(x, y, pleasant)
    six_times = independent_rnd(np.vstack([x, np.repeat(x[:1], 5, axis=0)]), y, pleasant)
    assert result.value == pytest.approx(once, abs=1e-12) and result.n_x == 4
    assert abs(six_times - once) > 0.1  # counted per copy, "rose" x6 would move RND this much
    # Without words the rows are the user's: taken as given, the per-copy number
    as_given = association_from_roles("rnd", embeddings, roles)["A"]
    assert as_given.value == pytest.approx(six_times, abs=1e-12)


def test_words_of_another_length_than_the_rows_are_an_input_error():
    embeddings, roles, words = rows_and_roles(random_sets())
    with pytest.raises(InputError, match="18 embeddings but 17 words"):
        association_from_roles("rnd", embeddings, roles, words=words[:-1])
