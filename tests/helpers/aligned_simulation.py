"""Scores of the same EEC sentences under two conditions (two languages of aligned pairs, two
models), simulated with what real EECs have: templates that shift every score of both conditions
alike (a template intercept) and that move each condition's identity effects on their own (template
slopes drawn per condition).

    logit(mu_c) = -0.8 + shift_c + b . x + u_t + s_i + v_(c, t) . x,    y ~ Beta(mu phi, (1 - mu) phi)

``x`` the identity columns (minority, female, minority x female), ``b`` shared effects, ``u_t ~ N(0,
template_sd)``, ``s_i ~ N(0, sentence_sd)`` a sentence's own effect shared by both conditions (two
models scoring one sentence), ``v_(c, t) ~ N(0, slope_sd)`` per column. ``planted`` is added to the
mean of the second condition's rows about the minority group: the only true difference of effects
between the conditions (0: none).
"""  # noqa: E501

import numpy as np
from scipy.special import expit


def pair_scores(
    groups: np.ndarray,
    genders: np.ndarray,
    templates: np.ndarray,
    rng: np.random.Generator,
    *,
    minority: str,
    planted: float = 0.0,
    slope_sd: float = 0.15,
    template_sd: float = 0.2,
    shift: float = 0.3,
    phi: float = 30.0,
    sentence_sd: float = 0.0,
) -> tuple[np.ndarray, np.ndarray]:
    """The scores of the rows under the first and the second condition (module docstring)."""
    codes = np.unique(templates, return_inverse=True)[1].ravel()
    is_minority = (np.asarray(groups) == minority).astype(float)
    female = (np.asarray(genders) == "female").astype(float)
    x = np.column_stack([is_minority, female, is_minority * female])
    common = -0.8 + x @ rng.normal(0, 0.15, 3) + rng.normal(0, template_sd, codes.max() + 1)[codes]
    common = common + rng.normal(0, sentence_sd, len(codes)) if sentence_sd else common
    scores = []
    for condition_shift, added in ((0.0, 0.0), (shift, planted)):
        slopes = rng.normal(0, slope_sd, (codes.max() + 1, 3))[codes]
        mu = expit(common + condition_shift + np.sum(slopes * x, axis=1)) + added * is_minority
        scores.append(rng.beta(mu * phi, (1 - mu) * phi))
    return scores[0], scores[1]
