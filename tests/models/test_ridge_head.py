"""The ridge head against independent computations: scikit-learn's SVD ridge for the coefficients,
and a brute-force leave-one-out (one refit per row) for the penalty it chooses and the held-out
validation r it reports."""

import numpy as np
import pytest
from sklearn.linear_model import Ridge

from eval_harness.errors import InputError
from eval_harness.models.heads import RidgeHead, head_from_state, pearson_r
from eval_harness.models.registry import describe_head

PENALTIES = (0.3, 3.0, 30.0, 300.0)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(11)
    x = rng.normal(size=(90, 12))
    x[:, 4] = 2.0  # a constant feature: standardised to 0, it must not break the fit
    y = x[:, :3] @ np.array([0.3, -0.2, 0.1]) + rng.normal(0, 0.4, 90)
    return x[:60], y[:60], x[60:], y[60:]


def standardised(x: np.ndarray, reference: np.ndarray) -> np.ndarray:
    scale = reference.std(0)
    scale[scale < 1e-8] = 1.0
    return (x - reference.mean(0)) / scale


def brute_force_loo(z: np.ndarray, y: np.ndarray, penalty: float) -> np.ndarray:
    """Each row predicted by a ridge fitted without it (on the same standardisation, as the closed
    form)."""
    held_out = np.empty(len(y))
    for row in range(len(y)):
        keep = np.arange(len(y)) != row
        held_out[row] = (
            Ridge(alpha=penalty, solver="svd").fit(z[keep], y[keep]).predict(z[row : row + 1])[0]
        )
    return held_out


def test_penalty_and_validation_r_equal_a_brute_force_leave_one_out(data):
    x_train, y_train, x_validation, y_validation = data
    head = RidgeHead(penalties=PENALTIES).fit(x_train, y_train, x_validation, y_validation)
    x, y = np.concatenate([x_train, x_validation]), np.concatenate([y_train, y_validation])
    z = standardised(x, x)
    held_out = {penalty: brute_force_loo(z, y, penalty) for penalty in PENALTIES}
    best = min(PENALTIES, key=lambda penalty: np.mean((y - held_out[penalty]) ** 2))
    assert head.selected["penalty"] == best
    expected_r = pearson_r(held_out[best][len(y_train) :], y_validation)
    assert head.selected["validation_r"] == pytest.approx(expected_r, abs=1e-10)
    assert head.selected["held_out_validation_r"] == head.selected["validation_r"]
    reference = Ridge(alpha=best, solver="svd").fit(z, y)
    assert (
        np.max(
            np.abs(head.predict(x_validation) - reference.predict(standardised(x_validation, x)))
        )
        < 1e-10
    )


def test_the_validation_protocol_fits_on_train_and_picks_the_best_validation_r(data):
    x_train, y_train, x_validation, y_validation = data
    head = RidgeHead(penalties=PENALTIES, protocol="validation").fit(
        x_train, y_train, x_validation, y_validation
    )
    z_train, z_validation = standardised(x_train, x_train), standardised(x_validation, x_train)
    scores = {
        penalty: pearson_r(
            Ridge(alpha=penalty, solver="svd").fit(z_train, y_train).predict(z_validation),
            y_validation,
        )
        for penalty in PENALTIES
    }
    assert head.selected["penalty"] == max(scores, key=scores.get)
    assert head.selected["validation_r"] == pytest.approx(max(scores.values()), abs=1e-10)


def test_it_has_no_seed_and_its_state_predicts_the_same_bits(data):
    x_train, y_train, x_validation, y_validation = data
    first = RidgeHead().fit(x_train, y_train, x_validation, y_validation)
    second = RidgeHead().fit(x_train, y_train, x_validation, y_validation)
    assert not describe_head("ridge").seeded and "seed" not in RidgeHead.__dataclass_fields__
    assert np.array_equal(first.predict(x_validation), second.predict(x_validation))
    restored = head_from_state(first.state())
    assert np.array_equal(restored.predict(x_validation), first.predict(x_validation))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"protocol": "gcv"}, "ridge protocol must be one of"),
        ({"penalties": []}, "non-empty list of positive numbers"),
        ({"penalties": [1.0, -1.0]}, "non-empty list of positive numbers"),
    ],
)
def test_bad_options_are_refused(options, message):
    with pytest.raises(InputError, match=message):
        RidgeHead(**options)


def test_the_same_bits_with_one_and_two_blas_threads():
    """numpy's BLAS splits its sums by thread (a 2,000 x 384 fit differs in the last bits between 1
    and 2 threads unpinned): the head fits and predicts on one BLAS thread whatever the process's
    setting."""
    from threadpoolctl import threadpool_limits

    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(2000, 384)).astype(np.float32), rng.normal(size=2000)
    predictions = []
    for threads in (1, 2):
        with threadpool_limits(threads, user_api="blas"):
            head = RidgeHead().fit(x[:1500], y[:1500], x[1500:], y[1500:])
            predictions.append(head.predict(x))
    assert np.array_equal(predictions[0], predictions[1])
