r"""The minimum detectable effect (MDE) of a WEAT test: the smallest effect size :math:`d` that a
test of its set sizes detects with probability ``power`` at level ``alpha``.

**Scale: the permutation distribution** (not the bootstrap). Under the null hypothesis the
re-partitions of :math:`X \cup Y` give the mean difference :math:`\bar s_X - \bar s_Y` the standard
deviation :math:`S \sqrt{N/(N-1)} \sqrt{1/n_X + 1/n_Y}` (:math:`S` the spread of the :math:`N =
n_X + n_Y` associations): the standard error of the pooled two-sample t test, of which WEAT's
permutation test is the randomisation version. So the power of the permutation test is that of the t
test: for associations with a common within-set spread :math:`\sigma` and a shift :math:`\Delta =
\delta \sigma` between the sets, Student's noncentral t with :math:`N - 2` degrees of freedom and
noncentrality :math:`\delta / \sqrt{1/n_X + 1/n_Y}` (:mod:`eval_harness.stats.power`, whose
two-sided level-:math:`2\alpha` test is the one-sided level-:math:`\alpha` test of
``alternative="greater"`` plus a lower tail that adds less than 1e-4 of power at 80 %):

.. math:: \delta^* = t^*_{N-2}(\alpha, \pi) \sqrt{1/n_X + 1/n_Y}

WEAT's :math:`d` divides by the spread over :math:`X \cup Y`, which holds the shift as well: in a
population with shares :math:`p = n_X / N` and :math:`1 - p` its variance is :math:`\sigma^2 (1 + p
(1 - p) \delta^2)`, so

.. math:: d^* = \delta^* / \sqrt{1 + p (1 - p) \delta^{*2}}

(the population value, for either ``ddof``). The MDE depends only on the set sizes, the sidedness,
``alpha`` and ``power``: a one-sided test of 8 + 8 words (WEAT's default) could not have detected
less than
:math:`d^* = 1.09` at 80 % power and :math:`\alpha = 0.05` (two-sided: 1.20; 25 + 25 words: 0.67).
The bootstrap standard error says something else: how precisely the observed :math:`d` is known. The
approximation assumes roughly normal associations of equal spread in both sets; the tests check it
against a simulated permutation test.
"""

import math

from ..errors import InputError
from .power import ALPHA, POWER, detectable_noncentrality
from .vectors import is_whole_number

ALTERNATIVES = ("greater", "two-sided")


def weat_minimum_detectable_effect(
    n_x: int, n_y: int, alternative: str = "greater", alpha: float = ALPHA, power: float = POWER
) -> float:
    """The MDE :math:`d^*` of a WEAT test with ``n_x`` and ``n_y`` target words (module docstring).

    Raises:
        InputError: fewer than 3 target words in all (the t test needs ``N - 2 >= 1``), or a bad
        alternative.

    Examples
    --------
    >>> from eval_harness.stats.weat_power import weat_minimum_detectable_effect
    >>> round(weat_minimum_detectable_effect(8, 8), 3)
    1.095
    >>> round(weat_minimum_detectable_effect(25, 25, alternative="two-sided"), 3)
    0.75
    """
    if not (
        is_whole_number(n_x) and is_whole_number(n_y) and n_x >= 1 and n_y >= 1 and n_x + n_y >= 3
    ):
        raise InputError(
            f"the MDE needs set sizes n_x, n_y >= 1 with n_x + n_y >= 3; got {n_x!r}, {n_y!r}"
        )
    if alternative not in ALTERNATIVES:
        raise InputError(f"unknown alternative {alternative!r}; use one of {ALTERNATIVES}")
    n_x, n_y = int(n_x), int(n_y)
    two_sided_alpha = alpha if alternative == "two-sided" else 2 * alpha
    if not 0 < two_sided_alpha < 1:
        raise InputError(f"alpha must be in (0, 0.5) for a one-sided test; got {alpha!r}")
    within = detectable_noncentrality(n_x + n_y - 2, two_sided_alpha, power) * math.sqrt(
        1 / n_x + 1 / n_y
    )
    share = n_x / (n_x + n_y)
    return within / math.sqrt(1 + share * (1 - share) * within**2)
