"""A new association measure is one function and one entry: a toy measure, the mean cosine
difference of each attribute word to the two target centroids, registered for these tests only,
reaches the xweat suite's records (a run, checked against its record schema), the report's
association section (its column and legend) and the ``word_association`` metric, with no other edit;
its numbers equal a direct computation."""

import math
from dataclasses import dataclass

import numpy as np
import pytest
from helpers.association_run import run_records, static_model, write_static_vectors, xweat_config

from eval_harness.contract.records import Field
from eval_harness.errors import ConfigError, InputError
from eval_harness.report import write_report
from eval_harness.stats.results import Result
from eval_harness.suites.xweat import load_word_sets, measure_names
from eval_harness.suites.xweat.measures import (
    PER_ATTRIBUTE_SET,
    WORD_MEASURES,
    WordMeasure,
    association_from_roles,
)
from eval_harness.suites.xweat.records import XWEAT_RECORDS


@dataclass(frozen=True)
class CosineDifferenceResult(Result):
    value: float
    cosine_differences: tuple[float, ...]
    n_attributes: int


def mean_cosine_difference(x, y, attributes) -> CosineDifferenceResult:
    """The mean over the attribute words of cos(a, mean X) - cos(a, mean Y)."""
    x, y, words = (np.asarray(vectors, dtype=np.float64) for vectors in (x, y, attributes))
    centroids = np.vstack([x.mean(axis=0), y.mean(axis=0)])
    cosines = (
        words
        @ centroids.T
        / np.outer(np.linalg.norm(words, axis=1), np.linalg.norm(centroids, axis=1))
    )
    differences = cosines[:, 0] - cosines[:, 1]
    return CosineDifferenceResult(
        float(differences.mean()), tuple(map(float, differences)), len(words)
    )


TOY = WordMeasure(
    "mcd",
    mean_cosine_difference,
    PER_ATTRIBUTE_SET,
    description="toy: mean cosine difference of an attribute "
    "set to the target centroids (term A or B)",
    fields={
        "cosine_differences": Field(list, "each attribute word's cosine difference"),
        "n_attributes": Field(int, "attribute words"),
    },
    label="MCD",
    legend="mean cosine of the set's words to X's centroid minus Y's (> 0: nearer X).",
)


@pytest.fixture
def toy():
    WORD_MEASURES.register(TOY)
    yield TOY
    WORD_MEASURES.unregister(TOY.name)


def by_hand(x_words, y_words, attribute_words, vectors) -> list[float]:
    """Each attribute word's cosine difference, one word at a time in plain Python."""

    def centroid(words):
        return [
            sum(vectors[word][i] for word in words) / len(words)
            for i in range(len(vectors[words[0]]))
        ]

    def cosine(u, v):
        dot = sum(a * b for a, b in zip(u, v, strict=True))
        return dot / (math.sqrt(sum(a * a for a in u)) * math.sqrt(sum(b * b for b in v)))

    cx, cy = centroid(x_words), centroid(y_words)
    return [cosine(vectors[word], cx) - cosine(vectors[word], cy) for word in attribute_words]


def read_vectors(path) -> dict[str, list[float]]:
    """The vector file's words, each value as the suite holds it (float32: its word vectors'
    precision)."""
    rows = (line.split(" ") for line in path.read_text(encoding="utf-8").splitlines())
    return {row[0]: [float(np.float32(value)) for value in row[1:]] for row in rows}


def test_the_toy_measure_reaches_the_records_and_the_report(toy, tmp_path):
    vectors_file = write_static_vectors(tmp_path / "vectors.txt")
    config = xweat_config(
        [static_model(vectors_file)], tests=["T7"], measures=["weat", "mcd"], n_bootstrap=0
    )
    records = run_records(config, tmp_path / "run")
    mine = {record["term"]: record for record in records if record["metric"] == "mcd"}
    assert list(mine) == ["A", "B"]
    vectors, sets = read_vectors(vectors_file), load_word_sets("en")["T7"]
    x_words, y_words = list(sets["X"].words), list(sets["Y"].words)
    for term, record in mine.items():
        expected = by_hand(x_words, y_words, list(sets[term].words), vectors)
        assert record["cosine_differences"] == pytest.approx(expected, abs=1e-12)
        assert record["value"] == pytest.approx(sum(expected) / len(expected), abs=1e-12)
        assert record["n_attributes"] == len(expected) and record["words"] == list(sets[term].words)
        assert record["set"] == sets[term].name and record["status"] == "ok"
        assert XWEAT_RECORDS.problem(record) is None
    files = write_report(tmp_path / "run")
    text = "".join(path.read_text() for path in sorted(files.folder.rglob("*.md")))
    # the association section's table: a column per term beside WEAT's, each cell its record's value
    lines = text.splitlines()
    header = lines.index("| test | language | WEAT d | MCD (A) | MCD (B) |")
    cells = [cell.strip() for cell in lines[header + 2].strip("|").split("|")]
    assert cells[:2] == ["T7", "en"] and cells[3:] == [
        f"{mine[term]['value']:.3f}" for term in "AB"
    ]
    assert (
        "MCD (A) / (B): mean cosine of the set's words to X's centroid minus Y's (> 0: nearer X)."
        in text
    )


def test_the_toy_measure_reaches_the_metric(toy, load_metric_elsewhere):
    rng = np.random.default_rng(5)
    x, y, a = (rng.normal(size=(n, 4)) for n in (3, 4, 5))
    words = {f"w{i}": list(row) for i, row in enumerate(np.vstack([x, y, a]))}
    names = list(words)
    result = load_metric_elsewhere("word_association").compute(
        embeddings=[words[name] for name in names],
        roles=["X"] * 3 + ["Y"] * 4 + ["A"] * 5,
        measure="mcd",
    )
    expected = by_hand(names[:3], names[3:7], names[7:], words)
    assert list(result["results"]) == ["A"]
    assert result["results"]["A"]["cosine_differences"] == pytest.approx(expected, abs=1e-12)
    assert result["results"]["A"]["value"] == pytest.approx(sum(expected) / 5, abs=1e-12)


def test_the_entry_is_all_there_is_and_a_clash_is_refused(toy):
    assert "mcd" in measure_names() and XWEAT_RECORDS.field("cosine_differences") == Field(
        list, "mcd: each attribute word's cosine difference"
    )
    assert XWEAT_RECORDS.field("n_attributes").doc == "rnd, ect, mcd: attribute words"
    with pytest.raises(ConfigError, match="exists already"):
        WORD_MEASURES.register(TOY)
    clash = WordMeasure(
        "other", mean_cosine_difference, PER_ATTRIBUTE_SET, "", {"mean": Field(int)}, "O", ""
    )
    with pytest.raises(ConfigError, match="one type a field"):
        WORD_MEASURES.register(clash)
    WORD_MEASURES.unregister("mcd")
    assert "mcd" not in measure_names() and XWEAT_RECORDS.field("cosine_differences") is None
    with pytest.raises(InputError, match="unknown measure 'mcd'"):
        association_from_roles("mcd", [[1.0, 0.0]], ["X"])
