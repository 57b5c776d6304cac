"""One seed, one probe, whatever the thread count: the MLP head trains to the same bits with 1, 2 or
3 intra-op threads, and runs on one thread whatever the process's setting
(docs/reproducibility.md)."""

import contextlib
import subprocess
import sys

import numpy as np
import torch
from helpers.accelerate_ranks import environment_without

from eval_harness.models.heads import MlpHead, pearson_r


@contextlib.contextmanager
def torch_threads(count: int):
    previous = torch.get_num_threads()
    torch.set_num_threads(count)
    try:
        yield
    finally:
        torch.set_num_threads(previous)


def synthetic_probe_data(seed: int = 0, dim: int = 32, n_train: int = 165):
    """Features and intensities in (0, 1) driven by the sum of five features, split ``n_train`` / 40
    / 60. 165 training rows leave a last mini-batch of 5, whose gradient is summed in another order
    with two threads: unpinned, the probe below ends 7.5e-8 apart in its first layer's weights (PyPI
    torch 2.13 CPU wheel, MKL strict mode on)."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n_train + 100, dim)).astype(np.float32)
    signal = x[:, :5].sum(1)
    y = 1 / (1 + np.exp(-(0.5 * signal + 0.5 * rng.normal(size=len(x)))))
    cuts = [n_train, n_train + 40]
    return np.split(x, cuts), np.split(y, cuts), signal[cuts[1] :]


def test_a_synthetic_probe_trains_to_the_same_bits_with_any_thread_count(monkeypatch):
    (x_train, x_validation, x_test), (y_train, y_validation, _), test_signal = (
        synthetic_probe_data()
    )
    threads_in_training = []
    squared_error = torch.nn.functional.mse_loss

    def recording_mse_loss(*args, **kwargs):
        threads_in_training.append(torch.get_num_threads())
        return squared_error(*args, **kwargs)

    monkeypatch.setattr(torch.nn.functional, "mse_loss", recording_mse_loss)
    fits = {}
    for threads in (1, 2, 3):
        with torch_threads(threads):
            head = MlpHead(hidden_size=16, learning_rate=1e-2, max_epochs=12, patience=4, seed=5)
            head.fit(x_train, y_train, x_validation, y_validation)
            fits[threads] = head, head.predict(x_test)
            assert (
                torch.get_num_threads() == threads
            )  # the process's setting is given back after fit and predict
    # every mini-batch of every fit ran on one thread, whatever the process had
    batches = -(-len(x_train) // 32) * fits[1][0].selected["epochs_run"]
    assert set(threads_in_training) == {1} and len(threads_in_training) == 3 * batches
    reference, reference_predictions = fits[1]
    for head, predictions in fits.values():
        assert head.selected == reference.selected
        weights, reference_weights = (
            head.state()["fitted"]["weights"],
            reference.state()["fitted"]["weights"],
        )
        assert weights.keys() == reference_weights.keys()
        for name, array in reference_weights.items():
            np.testing.assert_array_equal(weights[name], array)
        np.testing.assert_array_equal(predictions, reference_predictions)
    # a real fit, not an untrained network: it found the planted signal
    assert pearson_r(reference_predictions, test_signal) > 0.8


SMALL_PRODUCT = """
import os, sys, torch
import eval_harness.models
torch.manual_seed(0)
x, w = torch.randn(7, 384), torch.randn(1536, 384)
products = []
for threads in (1, 2):
    torch.set_num_threads(threads)
    products.append(x @ w.T)
print(os.environ["MKL_CBWR"], torch.equal(*products))
"""


def test_the_model_layer_makes_mkl_products_independent_of_the_thread_count():
    """One short text alone in its batch: a 7-row product, which MKL splits another way with two
    threads (3e-5 apart without the fix). MKL reads ``MKL_CBWR`` at its first call; importing the
    model layer sets it, and a user's own setting wins."""
    fresh = environment_without(["MKL_CBWR"])
    finished = subprocess.run(
        [sys.executable, "-c", SMALL_PRODUCT], env=fresh, capture_output=True, text=True
    )
    assert finished.stdout.split() == ["AUTO,STRICT", "True"], finished.stderr[-2000:]
    own = {**fresh, "MKL_CBWR": "COMPATIBLE"}
    finished = subprocess.run(
        [sys.executable, "-c", SMALL_PRODUCT], env=own, capture_output=True, text=True
    )
    assert finished.stdout.split()[0] == "COMPATIBLE", finished.stderr[-2000:]
