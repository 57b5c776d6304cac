"""An independent Beta regression for the tests: log-likelihood, score and expected information
written out.

Nothing here imports eval_harness: the tests compare eval_harness.stats.betareg with these.
"""

import numpy as np
from scipy import optimize
from scipy.special import digamma, expit, gammaln, polygamma

GROUPS = ("European", "African-American")  # reference first
GENDERS = ("male", "female")

# theta = (b0, b1, b2, b3, gamma) with logit(mu) = X b and phi = exp(gamma).


def beta_loglik_rows(theta, y, X):
    """Each row's log Beta density (Ferrari & Cribari-Neto 2004, eq. 1)."""
    mu, phi = expit(X @ theta[:-1]), np.exp(theta[-1])
    return (
        gammaln(phi)
        - gammaln(mu * phi)
        - gammaln((1 - mu) * phi)
        + (mu * phi - 1) * np.log(y)
        + ((1 - mu) * phi - 1) * np.log1p(-y)
    )


def beta_loglik(theta, y, X):
    return np.sum(beta_loglik_rows(theta, y, X))


def beta_score(theta, y, X):
    """d loglik / d theta (Ferrari & Cribari-Neto 2004, eq. for U_beta and U_phi; chain rule d phi/d
    gamma = phi)."""
    mu, phi = expit(X @ theta[:-1]), np.exp(theta[-1])
    y_star = np.log(y) - np.log1p(-y)
    mu_star = digamma(mu * phi) - digamma((1 - mu) * phi)
    dmu_deta = mu * (1 - mu)
    u_beta = X.T @ (phi * (y_star - mu_star) * dmu_deta)
    u_phi = np.sum(mu * (y_star - mu_star) + np.log1p(-y) - digamma((1 - mu) * phi) + digamma(phi))
    return np.append(u_beta, phi * u_phi)


def beta_expected_information(theta, X):
    """Fisher information of (beta, gamma = log phi): F&CN 2004 section 2, phi block by the chain
    rule."""
    mu, phi = expit(X @ theta[:-1]), np.exp(theta[-1])
    trigamma = polygamma(1, mu * phi), polygamma(1, (1 - mu) * phi)
    dmu_deta = mu * (1 - mu)
    w = phi * (trigamma[0] + trigamma[1]) * dmu_deta**2
    c = phi * (trigamma[0] * mu - trigamma[1] * (1 - mu))
    d = trigamma[0] * mu**2 + trigamma[1] * (1 - mu) ** 2 - polygamma(1, phi)
    k_bb = phi * (X.T * w) @ X
    k_bphi = X.T @ (dmu_deta * c)
    k_phiphi = np.sum(d)
    k = X.shape[1]
    info = np.empty((k + 1, k + 1))
    info[:k, :k] = k_bb
    info[:k, k] = info[k, :k] = phi * k_bphi  # d phi / d gamma = phi
    info[k, k] = phi**2 * k_phiphi
    return info


def independent_fit(y, X):
    """BFGS on the analytic score, then Fisher scoring to a score of ~1e-10: (theta, std errors,
    loglik)."""
    start = np.zeros(X.shape[1] + 1)
    start[0] = np.log(np.mean(y) / (1 - np.mean(y)))
    start[-1] = np.log(10.0)
    found = optimize.minimize(
        lambda t: -beta_loglik(t, y, X),
        start,
        jac=lambda t: -beta_score(t, y, X),
        method="BFGS",
        options={"gtol": 1e-8, "maxiter": 10_000},
    )
    theta = found.x
    for _ in range(100):
        step = np.linalg.solve(beta_expected_information(theta, X), beta_score(theta, y, X))
        theta = theta + step
        if np.max(np.abs(step)) < 1e-13:
            break
    assert np.max(np.abs(beta_score(theta, y, X))) < 1e-8, (
        "the independent fit did not reach the optimum"
    )
    std_err = np.sqrt(np.diag(np.linalg.inv(beta_expected_information(theta, X))))
    return theta, std_err, beta_loglik(theta, y, X)


def simulate(rng, params, phi, rows_per_cell):
    """Beta data for the four cells (rows_per_cell in the order (0,0), (0,1), (1,0), (1,1) of
    (minority, female))."""
    minority = np.repeat([0, 0, 1, 1], rows_per_cell)
    female = np.repeat([0, 1, 0, 1], rows_per_cell)
    mu = expit(
        params[0] + params[1] * minority + params[2] * female + params[3] * minority * female
    )
    y = rng.beta(mu * phi, (1 - mu) * phi)
    group = np.array(GROUPS)[minority].tolist()
    gender = np.array(GENDERS)[female].tolist()
    return y, group, gender, minority, female


def central_differences(function, theta, step):
    """d function / d theta by central differences; the derivative is the last axis of the
    result."""
    columns = []
    for k in range(len(theta)):
        shift = np.zeros(len(theta))
        shift[k] = step
        columns.append(
            (np.asarray(function(theta + shift)) - np.asarray(function(theta - shift))) / (2 * step)
        )
    return np.stack(columns, axis=-1)


def numeric_row_scores(theta, y, X):
    """Per-row gradients of the log-likelihood by central differences: an (n, 5) matrix."""
    return central_differences(lambda t: beta_loglik_rows(t, y, X), theta, step=1e-6)


def numeric_hessian(theta, y, X):
    """Hessian of the log-likelihood by central differences of the analytic score, symmetrised."""
    hessian = central_differences(lambda t: beta_score(t, y, X), theta, step=1e-5)
    return (hessian + hessian.T) / 2


def cr1_sandwich(row_scores, hessian, labels):
    """One-way CR1 sandwich, written with a dict of per-cluster score sums:
    G/(G-1) (n-1)/(n-k) H^{-1} (sum_g s_g s_g') H^{-1}."""
    sums = {}
    for label, score in zip(labels, row_scores, strict=True):
        sums[label] = sums.get(label, 0) + score
    meat = sum(np.outer(s, s) for s in sums.values())
    n, k = row_scores.shape
    g = len(sums)
    bread = np.linalg.inv(-hessian)
    return g / (g - 1) * (n - 1) / (n - k) * bread @ meat @ bread


def cgm_two_way(row_scores, hessian, first, second):
    """Cameron-Gelbach-Miller two-way ``V_1 + V_2 - V_12`` (``V_12`` by the pairs of labels),
    unclipped, and the one-way ``[V_1, V_2]``."""
    pairs = [f"{a}/{b}" for a, b in zip(first, second, strict=True)]
    one_way = [cr1_sandwich(row_scores, hessian, labels) for labels in (first, second)]
    return one_way[0] + one_way[1] - cr1_sandwich(row_scores, hessian, pairs), one_way


def two_way_variance(gradient, two_way, one_way):
    """A quantity's two-way variance as xbias defines it: ``max(d' V d, d' V_1 d, d' V_2 d)``."""
    return max(gradient @ matrix @ gradient for matrix in (two_way, *one_way))


# --- k-level designs, written here independently of eval_harness.stats.factorial ------------------


def crossed_rows(levels, templates, persons_per_cell):
    """An EEC-shaped design: every combination of the factors' levels (``levels``: name -> levels,
    the reference first) holds ``persons_per_cell`` persons, and every person appears once in every
    template.

    Returns per-row arrays: ``labels`` (name -> level strings), ``index`` (name -> level index),
    ``template``, ``person`` (ints).
    """
    import itertools

    names = list(levels)
    combos = list(itertools.product(*(range(len(levels[name])) for name in names)))
    cell_of_person = np.repeat(np.arange(len(combos)), persons_per_cell)
    n_persons = len(cell_of_person)
    person = np.tile(np.arange(n_persons), templates)
    template = np.repeat(np.arange(templates), n_persons)
    index = {
        name: np.array([combos[c][j] for c in cell_of_person])[person]
        for j, name in enumerate(names)
    }
    labels = {name: np.array(levels[name], dtype=object)[index[name]].tolist() for name in names}
    return {"labels": labels, "index": index, "template": template, "person": person}


def treatment_columns(index, levels, order):
    """Treatment-coded mean design (n, p) and its column names, in the documented order: the
    intercept, then every term of 1 .. order factors (itertools.combinations of the factors in
    order), each term's non-reference level combinations in itertools.product order; a column is the
    product of its levels' indicators."""
    import itertools

    names = list(levels)
    n = len(next(iter(index.values())))
    columns, column_names = [np.ones(n)], ["intercept"]
    for k in range(1, order + 1):
        for term in itertools.combinations(names, k):
            for combo in itertools.product(*(range(1, len(levels[name])) for name in term)):
                column = np.ones(n)
                for name, level in zip(term, combo, strict=True):
                    column = column * (index[name] == level)
                columns.append(column)
                column_names.append(
                    ":".join(
                        f"{name}[{levels[name][level]}]"
                        for name, level in zip(term, combo, strict=True)
                    )
                )
    return np.column_stack(columns), column_names
