"""Association measures on GloVe 6B 50d, XWEAT T1-T10 (English): time per test next to WEAT's, and
WEFE's values.

Part 1 times, per test, WEAT (effect size and its default permutation p-value) and each measure of
eval_harness.stats.association on the same found (lowercased) word vectors: RND, ECT and RIPA once
for A and once for B (as the word_association metric runs them), MAC over A and B, RNSB with its
default 10 seeded fits. RIPA pairs X_i with Y_i by position, over the first min(|X|, |Y|) words
(XWEAT's sets are not semantic pairs: this is a cost measurement). CEAT (stats.ceat: 10,000 samples
of one context per word, each sample's WEAT effect size, the random-effects combination) runs on 20
synthetic contexts per word, the word's GloVe vector plus Gaussian noise (GloVe has no contexts; the
cost does not depend on the values). In a run CEAT also encodes words x contexts_per_word corpus
sentences (100 per word by default, ~22,000 sentences for T1-T10), which costs far more than the
sampling: see bench/encode.py for an encoder's sentences per second. Times are the best of
``--repeats`` runs; the ratio is the measure's time over WEAT's.

Part 2 (when ``--wefe-python`` names a Python with ``wefe==1.0.1`` installed, e.g. a throwaway venv
``python3 -m venv /tmp/wefe-venv && /tmp/wefe-venv/bin/pip install wefe==1.0.1``; WEFE is never a
dependency of this project) runs WEFE's RND, MAC, ECT, RIPA and RNSB in that interpreter, as a
subprocess, on the same vectors, and prints its values next to ours computed with WEFE's
conventions: RND's mean of unnormalised distances, RIPA's mean over pairs
(``relation="pair_mean"``), RNSB over words on all attribute words (``unit="word"``,
``train_fraction=1``; WEFE with ``holdout=False`` and the lbfgs solver, so that both fit the same
penalised likelihood). Measured: RND, MAC, ECT and RIPA agree to ~1e-7 (gensim stores float32
vectors), RNSB to ~1e-4 (probably because scikit-learn then fits WEFE's classifier in float32).

Run: ``XBIAS_SOURCE_DIR=../shared/data .venv/bin/python bench/association_measures.py [--wefe-python
PY]`` (prints; asserts nothing).
"""

import argparse
import json
import subprocess
import tempfile
import time
from pathlib import Path

from eval_harness.thread_policy import apply_thread_policy

apply_thread_policy()  # before torch loads OpenMP, as `xbias run` does

import numpy as np

from eval_harness.data import load_xweat
from eval_harness.models.static import load_packaged_glove
from eval_harness.stats.association import (
    embedding_coherence,
    mean_average_cosine,
    relational_inner_product,
    relative_negative_sentiment,
    relative_norm_distance,
)
from eval_harness.stats.ceat import DEFAULT_SAMPLES, ceat
from eval_harness.stats.weat import weat

ROLES = {"target_x": "X", "target_y": "Y", "attribute_a": "A", "attribute_b": "B"}
TESTS = [f"T{i}" for i in range(1, 11)]

MEASURES = {
    "weat": lambda x, y, a, b: weat(x, y, a, b, seed=0),
    "rnd": lambda x, y, a, b: (relative_norm_distance(x, y, a), relative_norm_distance(x, y, b)),
    "mac": lambda x, y, a, b: mean_average_cosine([x, y], [a, b]),
    "ect": lambda x, y, a, b: (embedding_coherence(x, y, a), embedding_coherence(x, y, b)),
    "ripa": lambda x, y, a, b: _ripa_both(x, y, a, b, relation="pca"),
    "rnsb": lambda x, y, a, b: relative_negative_sentiment([x, y], a, b, seed=0),
}
CEAT_CONTEXTS = 20
COLUMNS = [*MEASURES, "ceat"]

# Runs in the WEFE interpreter: reads the words and vectors we wrote, prints WEFE's values as JSON.
WEFE_SIDE = r"""
import json, sys, numpy as np
from gensim.models import KeyedVectors
from sklearn.linear_model import LogisticRegression
from wefe.metrics import ECT, MAC, RIPA, RND, RNSB
from wefe.query import Query
from wefe.word_embedding_model import WordEmbeddingModel

data = json.load(open(sys.argv[1]))
out = {}
for name, test in data.items():
    words = [w for s in "XYAB" for w in test[s]["words"]]
    vectors = np.array([v for s in "XYAB" for v in test[s]["vectors"]], dtype=np.float64)
    keyed = KeyedVectors(vector_size=vectors.shape[1])
    keyed.add_vectors(words, vectors)
    model = WordEmbeddingModel(keyed, "glove-test")
    X, Y, A, B = (test[s]["words"] for s in "XYAB")
    n = min(len(X), len(Y))
    q1 = lambda attr: Query([X, Y], [attr], ["X", "Y"], ["attr"])
    out[name] = {
        "rnd_a": RND().run_query(q1(A), model)["result"],
        "rnd_b": RND().run_query(q1(B), model)["result"],
        "mac": MAC().run_query(Query([X, Y], [A, B], ["X", "Y"], ["A", "B"]), model)["result"],
        "ect_a": ECT().run_query(q1(A), model)["result"],
        "ect_b": ECT().run_query(q1(B), model)["result"],
        "ripa_a": RIPA().run_query(Query([X[:n], Y[:n]], [A], ["X", "Y"], ["A"]), model)["result"],
        "rnsb": RNSB().run_query(
            Query([X, Y], [A, B], ["X", "Y"], ["A", "B"]), model, holdout=False,
            estimator_params={"solver": "lbfgs", "max_iter": 10000, "tol": 1e-10},
        )["result"],
    }
print(json.dumps({k: {m: float(v) for m, v in r.items()} for k, r in out.items()}))
"""


def _ripa_both(x, y, a, b, relation):
    n = min(len(x), len(y))
    return (
        relational_inner_product(x[:n], y[:n], a, relation=relation),
        relational_inner_product(x[:n], y[:n], b, relation=relation),
    )


def synthetic_contexts(
    sets, contexts_per_word: int = CEAT_CONTEXTS, noise: float = 0.3
) -> list[dict]:
    """Per set, word -> ``contexts_per_word`` vectors: its vector plus Gaussian noise of ``noise``
    times its per-coordinate scale (made before the clock starts: only ``ceat`` is timed)."""
    rng = np.random.default_rng(0)
    return [
        {
            str(index): row
            + rng.normal(
                scale=noise * np.linalg.norm(row) / np.sqrt(len(row)),
                size=(contexts_per_word, len(row)),
            )
            for index, row in enumerate(vectors)
        }
        for vectors in sets
    ]


def load_tests():
    """``{test: {role: (found words, vectors)}}`` for T1-T10 on lowercased GloVe 6B 50d."""
    glove = load_packaged_glove()
    tests: dict[str, dict] = {}
    for row in load_xweat("en"):
        vectors, found = glove.embed_words(row["words"])
        words = [w.lower() for w, ok in zip(row["words"], found, strict=True) if ok]
        tests.setdefault(row["test"], {})[ROLES[row["role"]]] = (
            words,
            vectors[found].astype(np.float64),
        )
    return tests


def best_time(function, repeats):
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best


def timing_table(tests, repeats):
    print(f"Time per test (best of {repeats}), GloVe 6B 50d, XWEAT English; ratio = measure / WEAT")
    header = f"{'test':<5}{'sizes':>16}" + "".join(f"{m:>16}" for m in COLUMNS)
    print(header)
    totals = dict.fromkeys(COLUMNS, 0.0)
    for name in TESTS:
        sets = [tests[name][role][1] for role in "XYAB"]
        times = {
            m: best_time(lambda f=f, sets=sets: f(*sets), repeats) for m, f in MEASURES.items()
        }
        contexts = synthetic_contexts(sets)
        times["ceat"] = best_time(
            lambda contexts=contexts: ceat(*contexts, n_samples=DEFAULT_SAMPLES, seed=0), repeats
        )
        for m in COLUMNS:
            totals[m] += times[m]
        sizes = "/".join(str(len(s)) for s in sets)
        cells = [f"{times['weat'] * 1e3:9.2f} ms     "]
        cells += [f"{times[m] * 1e3:8.2f} ms {times[m] / times['weat']:4.2f}x" for m in COLUMNS[1:]]
        print(f"{name:<5}{sizes:>16}" + "".join(f"{c:>16}" for c in cells))
    cells = [f"{totals['weat'] * 1e3:9.2f} ms     "]
    cells += [f"{totals[m] * 1e3:8.2f} ms {totals[m] / totals['weat']:4.2f}x" for m in COLUMNS[1:]]
    print(f"{'all':<5}{'':>16}" + "".join(f"{c:>16}" for c in cells))
    print(
        "(WEAT: effect size + permutation p-value, exact "
        "up to 1e6 partitions else 1e5 Monte-Carlo draws;"
    )
    print(" RND/ECT/RIPA: for A and for B; RNSB: 10 seeded logistic fits;")
    print(
        f" CEAT: {DEFAULT_SAMPLES:,} samples over {CEAT_CONTEXTS} "
        "synthetic contexts per word + random effects,"
    )
    print(
        "  not counting the encoder pass over words x "
        "contexts_per_word sentences that a run makes first)"
    )


def values_table(tests):
    print(
        "\nValues (our defaults): WEAT d; RND sum for A, B (unit vectors); MAC; ECT rho for A, B;"
    )
    print(
        "RIPA mean for A, B (PCA relation of the X_i - Y_i "
        "pairs), and as the xweat suite runs it, mean for X, Y"
    )
    print("(relation: the A, B centroids); RNSB KL over groups (mean ± sd, 10 fits)")
    for name in TESTS:
        x, y, a, b = (tests[name][role][1] for role in "XYAB")
        rnd_a, rnd_b = MEASURES["rnd"](x, y, a, b)
        ect_a, ect_b = MEASURES["ect"](x, y, a, b)
        ripa_a, ripa_b = MEASURES["ripa"](x, y, a, b)
        rnsb = MEASURES["rnsb"](x, y, a, b)
        centroids = a.mean(axis=0, keepdims=True), b.mean(axis=0, keepdims=True)
        suite_x, suite_y = (
            relational_inner_product(*centroids, targets).value for targets in (x, y)
        )
        print(
            f"{name:<4} d={weat(x, y, a, b, seed=0).effect_size:6.3f}  RND "
            f"{rnd_a.value:7.3f} {rnd_b.value:7.3f}  MAC "
            f"{mean_average_cosine([x, y], [a, b]).value:.3f}  ECT {ect_a.value:6.3f} "
            f"{ect_b.value:6.3f}  RIPA {ripa_a.value:7.3f} {ripa_b.value:7.3f}  suite "
            f"{suite_x:7.3f} {suite_y:7.3f}  RNSB {rnsb.value:.4f} ± {rnsb.std:.4f}"
        )


def wefe_comparison(tests, wefe_python):
    payload = {
        name: {
            role: {"words": words, "vectors": vectors.tolist()}
            for role, (words, vectors) in sets.items()
        }
        for name, sets in tests.items()
    }
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "tests.json"
        path.write_text(json.dumps(payload))
        start = time.perf_counter()
        done = subprocess.run(
            [wefe_python, "-c", WEFE_SIDE, str(path)], capture_output=True, text=True
        )
        seconds = time.perf_counter() - start
    if done.returncode:
        print(f"\nWEFE run failed ({wefe_python}):\n{done.stderr[-2000:]}")
        return
    theirs = json.loads(done.stdout.strip().splitlines()[-1])
    print(
        f"\nWEFE 1.0.1 ({wefe_python}, {seconds:.1f} s "
        "for all queries) vs ours with WEFE's conventions"
    )
    print(f"{'test':<5}{'quantity':<9}{'WEFE':>14}{'ours':>14}{'|diff|':>11}")
    worst = 0.0
    for name in TESTS:
        x, y, a, b = (tests[name][role][1] for role in "XYAB")
        ours = {
            "rnd_a": relative_norm_distance(x, y, a, normalize=False).mean,
            "rnd_b": relative_norm_distance(x, y, b, normalize=False).mean,
            "mac": mean_average_cosine([x, y], [a, b]).value,
            "ect_a": embedding_coherence(x, y, a).value,
            "ect_b": embedding_coherence(x, y, b).value,
            "ripa_a": _ripa_both(x, y, a, b, relation="pair_mean")[0].value,
            "rnsb": relative_negative_sentiment(
                [x, y], a, b, unit="word", train_fraction=1.0
            ).value,
        }
        for quantity, value in ours.items():
            difference = abs(value - theirs[name][quantity])
            worst = max(worst, difference)
            print(
                f"{name:<5}{quantity:<9}{theirs[name][quantity]:14.8f}{value:14.8f}{difference:11.2e}"
            )
    print(f"largest |difference|: {worst:.2e}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--wefe-python", help="a Python interpreter with wefe==1.0.1 (never this project's venv)"
    )
    args = parser.parse_args()
    tests = load_tests()
    timing_table(tests, args.repeats)
    values_table(tests)
    if args.wefe_python:
        wefe_comparison(tests, args.wefe_python)


if __name__ == "__main__":
    main()
