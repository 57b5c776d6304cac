"""eval_harness.suites.gender_space.pipeline on a planted world: static and context mode, skipped
words, bad input.

The world: random word vectors plus a known gender direction g. Definitional pairs differ
by 2g; the biased words carry +-2 g; professions carry a graded share of g. The fake
encoder returns a word's vector plus sentence-dependent noise, so context mode must find
the same structure through sentences, swaps and draws.
"""

import itertools
import json
import zlib

import numpy as np
import pytest

from eval_harness.data import load_corpus
from eval_harness.errors import ConfigError, InputError
from eval_harness.models import ContextVectors
from eval_harness.models.static import StaticVectors
from eval_harness.suites.gender_space import gender_space_records
from eval_harness.suites.gender_space.pipeline import (
    ContextIndex,
    GenderSpaceSettings,
    GenderWordLists,
    evaluate_contextual,
    evaluate_static,
    reference_biased_words,
    swap_words,
)

DIM = 32
PAIRS = (
    ("man", "woman"),
    ("boy", "girl"),
    ("he", "she"),
    ("father", "mother"),
    ("son", "daughter"),
)
N_BIASED = 40  # per gender
N_PROFESSIONS = 24


def _names(prefix: str, n: int) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    return [prefix + a + b for a, b in itertools.islice(itertools.product(letters, repeat=2), n)]


class PlantedWorld:
    def __init__(self, seed=0):
        rng = np.random.default_rng(seed)
        self.g = rng.standard_normal(DIM)
        self.g /= np.linalg.norm(self.g)
        noise = lambda n: rng.standard_normal((n, DIM)) / np.sqrt(DIM)  # noqa: E731
        self.male = _names("mal", N_BIASED)
        self.female = _names("fem", N_BIASED)
        self.professions = _names("job", N_PROFESSIONS)
        self.filler = _names("fil", 200)
        self.profession_strength = np.linspace(-0.3, 0.3, N_PROFESSIONS)
        pair_base = noise(len(PAIRS))
        vectors = {}
        for (m, f), base in zip(PAIRS, pair_base, strict=True):
            vectors[m], vectors[f] = base + self.g, base - self.g
        vectors.update(zip(self.male, noise(N_BIASED) + 2.0 * self.g, strict=True))
        vectors.update(zip(self.female, noise(N_BIASED) - 2.0 * self.g, strict=True))
        vectors.update(
            zip(
                self.professions,
                noise(N_PROFESSIONS) + self.profession_strength[:, None] * self.g,
                strict=True,
            )
        )
        vectors.update(zip(self.filler, noise(200), strict=True))
        self.vectors = vectors
        self.reference = StaticVectors.from_arrays(list(vectors), np.array(list(vectors.values())))
        self.lists = GenderWordLists(
            definitional_pairs=PAIRS,
            professions=tuple(self.professions) + ("ghostjob",),
            gender_specific=frozenset(w for pair in PAIRS for w in pair),
        )

    def corpus(self, absent=()):
        templates = (
            "i met the {} today .",
            "a {} was here",
            "we saw one {} there",
            "the {} left early",
        )
        words = [w for w in self.vectors if w not in absent]
        return [t.format(w) for w in words for t in templates]


class FakeContextEncoder:
    """A word's static vector plus noise seeded by the sentence; cannot locate words in
    ``blind``."""

    def __init__(self, world, noise=0.05, blind=()):
        self.world, self.noise, self.blind = world, noise, set(blind)

    def embed_words_in_contexts(self, words, sentences_per_word, on_missing="warn"):
        vectors, indices, missing = {}, {}, {}
        for word in words:
            rows, kept, lost = [], [], []
            for position, sentence in enumerate(sentences_per_word[word]):
                if word in self.blind or word.lower() not in sentence.lower().split():
                    lost.append((position, "not in the sentence"))
                    continue
                rng = np.random.default_rng(zlib.crc32(sentence.encode()))
                rows.append(
                    self.world.vectors[word.lower()] + self.noise * rng.standard_normal(DIM)
                )
                kept.append(position)
            vectors[word] = np.array(rows).reshape(-1, DIM)
            indices[word] = np.array(kept, dtype=np.int64)
            missing[word] = lost
        return ContextVectors(vectors, indices, missing)


SMALL = GenderSpaceSettings(
    n_cluster_words=20,
    n_extended_words=N_BIASED,
    n_train=30,
    n_runs=3,
    k=10,
    contexts_per_pair=3,
    n_baseline_draws=4,
)


@pytest.fixture(scope="module")
def world():
    return PlantedWorld()


def test_reference_lists_follow_the_planted_bias(world):
    biased = reference_biased_words(world.reference, world.lists, SMALL)
    assert set(biased.extended_male) == set(world.male)
    assert set(biased.extended_female) == set(world.female)
    assert not set(biased.vocabulary) & set(world.lists.gender_specific)
    assert biased.missing_professions == ("ghostjob",)
    # profession bias = cos(w, he - she), computed here directly
    he, she = world.vectors["he"], world.vectors["she"]
    axis = he / np.linalg.norm(he) - she / np.linalg.norm(she)
    job = world.vectors[world.professions[0]]
    assert biased.profession_bias[0] == pytest.approx(
        job @ axis / (np.linalg.norm(job) * np.linalg.norm(axis))
    )


def test_static_mode_recovers_planted_structure(world):
    biased = reference_biased_words(world.reference, world.lists, SMALL)
    report = evaluate_static(world.reference, biased, world.lists, SMALL)
    m = report.measures
    assert abs(m.subspace.direction @ world.g) > 0.99
    baseline = m.subspace.baseline_first_component_ratio + 5 * m.subspace.baseline_std[0]
    assert m.subspace.first_component_ratio > max(
        baseline, 2 * m.subspace.baseline_first_component_ratio
    )
    assert m.clustering.values.tolist() == [1.0]
    assert m.classification.min == 1.0 and len(m.classification.values) == 3
    assert m.knn.min > 0.8 and m.knn.max_p_value < 1e-5
    assert report.skipped["professions"] == (
        {"word": "ghostjob", "reason": "not in the reference space"},
    )
    assert report.counts["definitional_pairs"] == len(PAIRS)
    records = gender_space_records(report)
    assert {r["test"] for r in records} == {
        "subspace",
        "direct_bias",
        "clustering",
        "classification",
        "knn",
    }
    assert all(r["mode"] == "static" for r in records)
    knn = next(r for r in records if r["metric"] == "knn_profession_r")
    assert (knn["value"], knn["p_value"], knn["min"]) == (m.knn.mean, m.knn.max_p_value, m.knn.min)
    baseline = [r for r in records if r["metric"] == "baseline_explained_variance_ratio"]
    assert [r["term"] for r in baseline] == [f"pc{i}" for i in range(1, len(PAIRS) + 1)]
    assert baseline[0]["std_err"] == pytest.approx(m.subspace.baseline_std[0] / 2)  # 4 draws
    json.dumps(report.to_dict())
    assert "skipped 1 professions (not in the reference space): ghostjob" in report.summary()


def test_context_mode_recovers_planted_structure_and_reports_missing_words(world):
    biased = reference_biased_words(world.reference, world.lists, SMALL)
    absent = {"son", "daughter", world.male[0], world.professions[1]}
    corpus = world.corpus(absent=absent) + [f"the {world.professions[2]} and his father"]
    encoder = FakeContextEncoder(world, blind={world.female[5]})
    report = evaluate_contextual(encoder, corpus, biased, world.lists, SMALL, show_progress=False)
    m = report.measures
    assert abs(m.subspace.direction @ world.g) > 0.99
    assert m.subspace.n_differences == 4 * SMALL.contexts_per_pair  # son/daughter skipped
    assert m.subspace.first_component_ratio > 2 * m.subspace.baseline_first_component_ratio
    assert len(m.clustering.values) == SMALL.n_runs and m.clustering.min == 1.0
    assert m.knn.min > 0.8
    skipped = {
        name: {item["word"]: item["reason"] for item in items}
        for name, items in report.skipped.items()
    }
    assert skipped["definitional_pairs"] == {
        "son/daughter": "no sentence of the corpus contains it: son, daughter"
    }
    assert skipped["biased_words"][world.male[0]] == "no sentence of the corpus contains it"
    assert "the encoder found no token of it" in skipped["biased_words"][world.female[5]]
    assert "without a definitional word" in skipped["professions"][world.professions[1]]
    assert (
        world.professions[2] not in skipped["professions"]
    )  # it has sentences without "father" too
    assert report.counts["extended_words"] == 2 * N_BIASED - 2
    assert m.direct_bias.n_words == N_PROFESSIONS - 1
    assert m.direct_bias.n_vectors == (N_PROFESSIONS - 1) * SMALL.n_runs


def test_context_professions_avoid_definitional_sentences(world):
    """A profession seen only next to a definitional word has no usable context."""
    biased = reference_biased_words(world.reference, world.lists, SMALL)
    job = world.professions[3]
    corpus = world.corpus(absent={job}) + [f"The {job} met her mother", f"the {job} and the boy"]
    report = evaluate_contextual(
        FakeContextEncoder(world), corpus, biased, world.lists, SMALL, show_progress=False
    )
    assert [item["word"] for item in report.skipped["professions"]] == ["ghostjob", job]


@pytest.mark.filterwarnings("ignore:gender_space. n_components=10")
def test_a_space_without_the_professions_gives_records_no_attribute_error_but_one_line(world):
    biased = reference_biased_words(world.reference, world.lists, SMALL)
    jobless = {
        word: vector for word, vector in world.vectors.items() if word not in world.professions
    }
    space = StaticVectors.from_arrays(list(jobless), np.array(list(jobless.values())))
    report = evaluate_static(space, biased, world.lists, SMALL)
    assert report.measures.direct_bias is None and report.measures.knn is None
    with pytest.raises(InputError, match=r"^gender_space: no direct_bias, knn: .*professions 25"):
        gender_space_records(report)


def test_definitional_pair_missing_from_vocabulary_is_reported_and_skipped(world):
    lists = GenderWordLists(
        definitional_pairs=PAIRS + (("zzmale", "zzfemale"), ("king", "queen")),
        professions=world.lists.professions,
        gender_specific=world.lists.gender_specific,
    )
    biased = reference_biased_words(world.reference, lists, SMALL)
    report = evaluate_static(world.reference, biased, lists, SMALL)
    assert report.skipped["definitional_pairs"] == (
        {"word": "zzmale/zzfemale", "reason": "not in the vocabulary: zzmale, zzfemale"},
        {"word": "king/queen", "reason": "not in the vocabulary: king, queen"},
    )
    assert report.measures.subspace.n_differences == len(PAIRS)


def test_more_components_than_the_pairs_have_is_said_with_one_warning(world):
    """Guards: n_components=100 silently reported 5: the suite reports the 5 the pairs have and says
    so (a run is not stopped because a model's vocabulary missed some definitional pairs)."""
    settings = GenderSpaceSettings(**{**SMALL.to_dict(), "n_components": 100})
    biased = reference_biased_words(world.reference, world.lists, settings)
    with pytest.warns(RuntimeWarning) as caught:
        report = evaluate_static(world.reference, biased, world.lists, settings)
    (message,) = [str(item.message) for item in caught if "n_components" in str(item.message)]
    assert message == (
        f"gender_space: n_components=100, but {len(PAIRS)} definitional pair rows of "
        f"dimension {DIM} have {len(PAIRS)} principal components; {len(PAIRS)} are reported"
    )
    assert len(report.measures.subspace.explained_variance_ratio) == len(PAIRS)


def test_too_few_definitional_pairs_is_an_error(world):
    lists = GenderWordLists(
        definitional_pairs=(("he", "she"), ("zzmale", "zzfemale"), ("king", "woman")),
        professions=world.lists.professions,
        gender_specific=world.lists.gender_specific,
    )
    biased = reference_biased_words(world.reference, lists, SMALL)
    with pytest.raises(
        InputError, match=r"only 1 definitional pair\(s\) usable \(need 2\).*zzmale/zzfemale"
    ):
        evaluate_static(world.reference, biased, lists, SMALL)
    corpus = world.corpus(
        absent={"man", "woman", "boy", "girl", "father", "mother", "son", "daughter"}
    )
    with pytest.raises(InputError, match=r"only 1 definitional pair\(s\) usable"):
        evaluate_contextual(
            FakeContextEncoder(world), corpus, biased, world.lists, SMALL, show_progress=False
        )


def test_k_larger_than_candidates_is_a_clear_error(world):
    settings = GenderSpaceSettings(**{**SMALL.to_dict(), "k": 2 * N_BIASED + 1})
    biased = reference_biased_words(world.reference, world.lists, settings)
    with pytest.raises(
        InputError, match=rf"k={2 * N_BIASED + 1} nearest neighbours .* only {2 * N_BIASED} word"
    ):
        evaluate_static(world.reference, biased, world.lists, settings)


def test_settings_and_list_sizes_are_checked(world):
    with pytest.raises(ConfigError, match="must not exceed n_extended_words"):
        GenderSpaceSettings(n_cluster_words=10, n_extended_words=5)
    with pytest.raises(ConfigError, match=r"must be positive: \['k'\]"):
        GenderSpaceSettings(k=0)
    with pytest.raises(ConfigError, match="unknown gender_space setting"):
        GenderSpaceSettings.from_mapping({"n_run": 3})
    with pytest.raises(
        InputError,
        match=r"most biased words of each gender but only \d+ male- and \d+ female-biased",
    ):
        reference_biased_words(
            world.reference,
            world.lists,
            GenderSpaceSettings(n_cluster_words=5, n_extended_words=500),
        )


def test_swap_words_and_context_index():
    assert swap_words(
        "She said he saw HER, and he's here.", {"he": "she", "she": "he", "her": "his"}
    ) == ("He said she saw HIS, and she's here.")
    assert swap_words("the sheep and theme", {"he": "she"}) == "the sheep and theme"
    index = ContextIndex(["The nurse's day", "nurse2 is not a nurse word", "", "Nurse and doctor"])
    assert len(index) == 3
    assert index.sentence_ids("NURSE") == [0, 1, 2]
    assert index.sentence_ids("nurse", avoid=frozenset({"doctor"})) == [0, 1]
    rng = np.random.default_rng(0)
    assert len(index.sample("doctor", 4, rng)) == 4  # one sentence, reused
    assert index.sample("pilot", 4, rng) == []
    with pytest.raises(InputError, match="no sentences"):
        ContextIndex(["", "  "])


def test_load_corpus_from_text_and_data_files(tmp_path):
    (tmp_path / "corpus.txt").write_text("the nurse left\n\n  he stayed  \nshe saw it\n")
    assert load_corpus(str(tmp_path / "corpus.txt")) == [
        "the nurse left",
        "he stayed",
        "she saw it",
    ]
    sample = load_corpus(str(tmp_path / "corpus.txt"), max_sentences=2, seed=1)
    assert len(sample) == 2 and set(sample) <= {"the nurse left", "he stayed", "she saw it"}
    (tmp_path / "corpus.csv").write_text("id,sentence\n1,a doctor spoke\n2,the boy ran\n")
    assert load_corpus(str(tmp_path / "corpus.csv"), column="sentence") == [
        "a doctor spoke",
        "the boy ran",
    ]
    with pytest.raises(InputError, match=r"has no column 'text' \(it has 2 columns\)") as error:
        load_corpus(str(tmp_path / "corpus.csv"))
    assert "'sentence'" not in str(
        error.value
    )  # a header is the file's first line: named by count, never quoted
    with pytest.raises(InputError, match="is not a file"):
        load_corpus(str(tmp_path / "missing.txt"))
    (tmp_path / "empty.txt").write_text("\n \n")
    with pytest.raises(InputError, match="has no sentences"):
        load_corpus(str(tmp_path / "empty.txt"))
