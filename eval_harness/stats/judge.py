"""A zero-shot judge's reading of its numerals' log-probabilities: the expected numeral, the numeral
mass and the arg-max numeral. One home for both readers: xbias's own judge
(:mod:`eval_harness.models.prompt_judge`, the model's next-token log-probabilities) and the
lm-evaluation-harness import (:mod:`eval_harness.lmeval`, the choices' log-likelihoods lm-eval
logged).
"""

from collections.abc import Sequence

import numpy as np
from scipy.special import logsumexp


def numeral_statistics(
    logprobs: np.ndarray, candidate_numerals: Sequence[int], low: int, high: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Score each text by a judge's numeral log-probabilities: expected numeral, mass, top numeral.

    Returns ``(expected mapped to [0, 1], numeral mass, arg-max numeral)``, one entry per row of
    ``logprobs``.

    ``logprobs[i, k]``: the log-probability that text ``i``'s answer starts with candidate ``k``, a
    single-token spelling (``"7"``, ``" 7"``) of the numeral ``candidate_numerals[k]`` of the scale
    ``low..high``. With ``p(n)`` the numeral's spellings summed,

        mass = sum_n p(n),   q(n) = p(n) / mass,   E = sum_n n q(n),   expected = (E - low) / (high - low)

    computed in log space (``logsumexp``), so a tiny mass loses no precision in ``q``.

    Examples
    --------
    >>> import numpy as np
    >>> from eval_harness.stats.judge import numeral_statistics
    >>> logprobs = np.log([[0.1, 0.2, 0.5], [0.3, 0.4, 0.2]])
    >>> expected, mass, top = numeral_statistics(logprobs, [0, 5, 10], low=0, high=10)
    >>> expected.round(4).tolist(), mass.round(4).tolist(), top.tolist()
    ([0.75, 0.4444], [0.8, 0.9], [10, 5])
    """  # noqa: E501
    numerals = np.arange(low, high + 1)
    owner = np.asarray(candidate_numerals) - low
    log_p = np.stack(
        [logsumexp(logprobs[:, owner == column], axis=1) for column in range(len(numerals))], axis=1
    )  # log p(n): the numeral's spellings summed
    log_mass = logsumexp(log_p, axis=1)
    q = np.exp(log_p - log_mass[:, None])
    expected = (q @ numerals - low) / (high - low)
    return np.clip(expected, 0.0, 1.0), np.exp(log_mass), numerals[q.argmax(axis=1)]
