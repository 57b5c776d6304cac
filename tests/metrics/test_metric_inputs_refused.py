"""The four metrics refuse bad input with an XBiasError that names the problem (issue 31, section
4), never evaluate's bare ValueError, a MemoryError or a count that would run for years; sizes are
checked before any array is allocated, counts against the one XBIAS_MAX_DRAWS rule."""

import numpy as np
import pytest

from eval_harness.errors import XBiasError
from eval_harness.metric_modules import CheckedRowsModule
from eval_harness.stats.weat import DEFAULT_MAX_DRAWS

ROWS = {
    "embeddings": [[1.0, 0.1], [0.9, 0.3], [0.1, 1.0], [0.2, 0.9], [1.0, 0.0], [0.0, 1.0]],
    "roles": ["X", "X", "Y", "Y", "A", "B"],
}


@pytest.fixture(scope="module")
def metrics(load_metric_elsewhere):
    return {
        name: load_metric_elsewhere(name)
        for name in ("weat", "word_association", "gender_space", "eec_bias")
    }


@pytest.mark.parametrize("name", ["weat", "word_association", "gender_space"])
def test_one_role_fewer_than_embeddings_is_named(metrics, name):
    extra = {"measure": "rnd"} if name == "word_association" else {}
    with pytest.raises(XBiasError, match="6 embeddings but 5 roles; give one role per row"):
        metrics[name].compute(embeddings=ROWS["embeddings"], roles=ROWS["roles"][:5], **extra)


@pytest.mark.parametrize("name", ["weat", "word_association", "gender_space"])
def test_the_embedding_metrics_share_one_add_batch_that_runs_their_own_row_check(metrics, name):
    assert type(metrics[name]).add_batch is CheckedRowsModule.add_batch
    with pytest.raises(XBiasError, match="6 embeddings but 5 roles"):
        metrics[name].add_batch(embeddings=ROWS["embeddings"], roles=ROWS["roles"][:5])
    if name == "weat":  # its own rule on top: the roles of a WEAT
        with pytest.raises(XBiasError, match="unknown role"):
            roles = ["X", "X", "Y", "Y", "A", "C"]
            metrics[name].add_batch(embeddings=ROWS["embeddings"], roles=roles)


@pytest.mark.parametrize("name", ["weat", "word_association", "gender_space"])
def test_integer_roles_are_named(metrics, name):
    extra = {"measure": "rnd"} if name == "word_association" else {}
    with pytest.raises(XBiasError, match="roles must be strings .* row 0 has int 0"):
        metrics[name].compute(embeddings=ROWS["embeddings"], roles=[0, 0, 1, 1, 2, 3], **extra)


def test_eec_bias_columns_of_other_lengths_are_named(metrics):
    with pytest.raises(XBiasError, match="3 predictions, 2 group, 3 gender"):
        metrics["eec_bias"].compute(
            predictions=[0.1, 0.2, 0.3], group=["a", "b"], gender=["m", "f", "m"]
        )


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("weat", {"permutations": 10**15, "exact_limit": 0}),
        ("weat", {"n_bootstrap": 10**12}),
        ("word_association", {"measure": "rnsb", "n_seeds": 10**12}),
        ("gender_space", {"n_runs": 10**9}),
    ],
)
def test_a_count_above_the_draw_limit_is_refused_before_it_runs(metrics, name, options):
    (option, count) = next(
        (key, value) for key, value in options.items() if key not in ("exact_limit", "measure")
    )
    assert count > DEFAULT_MAX_DRAWS
    with pytest.raises(XBiasError, match=f"{option}=.* is more than XBIAS_MAX_DRAWS"):
        metrics[name].compute(**ROWS, **options)


def test_the_draw_limit_is_the_environment_s(metrics, monkeypatch):
    monkeypatch.setenv("XBIAS_MAX_DRAWS", "10")
    with pytest.raises(XBiasError, match="permutations=11 is more than XBIAS_MAX_DRAWS=10"):
        metrics["weat"].compute(**ROWS, permutations=11, exact_limit=0)
    result = metrics["weat"].compute(**ROWS, permutations=10, exact_limit=0)
    assert result["n_permutations"] == 10


def test_a_million_word_weat_is_refused_before_its_similarity_matrix_is_allocated(metrics):
    roles = [role for role in "XYAB" for _ in range(250_000)]
    with pytest.raises(
        XBiasError, match="500,000 x 500,000 .*1,862.6 GiB"
    ):  # 2.5e11 float64 entries
        metrics["weat"].compute(embeddings=np.ones((len(roles), 2)), roles=roles)
