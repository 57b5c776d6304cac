# Copyright 2024 The xbias authors. Licensed under the Apache License, Version 2.0.
#
# Thin evaluate wrapper: all logic lives in eval_harness.stats.weat.
# One import per line: evaluate's import parser misreads "import a, b".
# "# From: xbias" names the distribution of eval_harness: evaluate's missing-dependency message then
# says `pip install xbias`, not `pip install eval_harness` (an unrelated PyPI project).
"""weat: the Word Embedding Association Test (Caliskan et al. 2017) with XWEAT's similarities and
conventions."""

import evaluate

from eval_harness.metric_modules import CheckedRowsModule  # From: xbias
from eval_harness.stats import weat as weat_stats  # From: xbias

_CITATION = """\
@article{caliskan2017semantics,
    title = "Semantics derived automatically from language corpora contain human-like biases",
    author = "Caliskan, Aylin and Bryson, Joanna J. and Narayanan, Arvind",
    journal = "Science",
    volume = "356",
    number = "6334",
    pages = "183--186",
    year = "2017",
}
@inproceedings{lauscher-glavas-2019-consistently,
    title = "Are We Consistently Biased? Multidimensional Analysis of Biases in Distributional Word Vectors",
    author = "Lauscher, Anne and Glava{\\v{s}}, Goran",
    booktitle = "Proceedings of the Eighth Joint Conference on Lexical and Computational Semantics (*SEM 2019)",
    year = "2019",
    publisher = "Association for Computational Linguistics",
    pages = "85--91",
}
"""  # noqa: E501

_DESCRIPTION = """\
WEAT compares two target sets X, Y (e.g. flowers / insects) by their relative association with two
attribute sets A, B (e.g. pleasant / unpleasant). s(w) = mean_a sim(w, a) - mean_b sim(w, b);
statistic = sum_x s(x) - sum_y s(y); effect size = (mean_x s - mean_y s) / std_{X u Y} s (population
standard deviation unless ddof=1). The p-value comes from a permutation test over the re-partitions of
X u Y into sets of sizes |X| and |Y|: exact when there are at most exact_limit of them, else Monte
Carlo with p = (k + 1) / (n + 1) and its Monte-Carlo standard error. On request, how well the
effect size is known: a percentile bootstrap interval resampling words within X, Y, A and B
(n_bootstrap), and each word's leave-one-out influence on the effect size (influence). See the metric card.
"""  # noqa: E501

_KWARGS_DESCRIPTION = """
Args:
    embeddings (list of list of float): one word vector per row; all rows of one dimension.
    roles (list of str): each row's set: "X" or "Y" (targets), "A" or "B" (attributes).
    similarity ("cosine", "euclidean" or "csls"): default "cosine". euclidean is 1 / (1 + distance) of
        L2-normalised vectors; csls is 2 cos - r(u) - r(v) with r the mean cosine to the csls_k nearest
        other vectors of the test.
    permutations (int): Monte-Carlo draws when the exact test is too large. Default 100000.
    exact_limit (int): enumerate all re-partitions when there are at most this many (0 forces Monte
        Carlo). Default 1000000.
    alternative ("greater" or "two-sided"): default "greater" (X more associated with A than Y is).
    ddof (0 or 1): of the effect size's standard deviation. Default 0.
    seed (int, optional): seed of the Monte-Carlo draws and of the bootstrap (a stream of its own).
    csls_k (int): neighbourhood size of csls. Default 10.
    words (list of str, optional): each row's word: names bad rows in errors and words in the influence;
        a word listed twice in one role counts once (its later rows are dropped, with a DuplicateWordsWarning).
    n_bootstrap (int): bootstrap replicates of the effect size, resampling words with replacement within
        each of X, Y, A, B. Default 0 (none); else at least 2 (e.g. 10000).
    confidence_level (float): of the bootstrap's percentile interval. Default 0.95.
    influence (bool): also report each word's leave-one-out influence on the effect size. Default False.
Returns:
    statistic (float), effect_size (float), p_value (float), p_value_method ("exact" or "monte_carlo"),
    n_permutations (int), mc_std_err (float, None when exact), n_x, n_y, n_a, n_b (int),
    similarity (str), ddof (int), alternative (str).
    bootstrap (dict, only when n_bootstrap > 0): confidence_level, ci_low, ci_high, std_err,
        n_bootstrap, n_undefined.
    influence (dict, only when influence=True): effect_size, words (role, index, word,
        effect_size_without, change; largest |change| first), skipped.
Examples:
    >>> import evaluate
    >>> weat = evaluate.load("weat")
    >>> r = weat.compute(
    ...     embeddings=[[1.0, 0.1], [0.9, 0.3], [0.1, 1.0], [0.2, 0.9], [1.0, 0.0], [0.0, 1.0]],
    ...     roles=["X", "X", "Y", "Y", "A", "B"])
    >>> r["p_value_method"], r["n_permutations"], round(r["effect_size"], 2)
    ('exact', 6, 1.98)
"""  # noqa: E501


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Weat(CheckedRowsModule, evaluate.Measurement):
    check_rows = staticmethod(weat_stats.check_weat_rows)

    def _info(self):
        return evaluate.MeasurementInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            homepage="https://aclanthology.org/S19-1010/",
            license="apache-2.0",
            codebase_urls=[
                "https://github.com/umanlp/XWEAT",
            ],
            features=self.role_row_features(),
            reference_urls=[
                "https://doi.org/10.1126/science.aal4230",
                "https://aclanthology.org/S19-1010/",
            ],
        )

    def _compute(
        self,
        embeddings,
        roles,
        similarity="cosine",
        permutations=weat_stats.DEFAULT_PERMUTATIONS,
        exact_limit=weat_stats.DEFAULT_EXACT_LIMIT,
        alternative="greater",
        ddof=0,
        seed=None,
        csls_k=weat_stats.DEFAULT_CSLS_K,
        words=None,
        n_bootstrap=0,
        confidence_level=weat_stats.DEFAULT_CONFIDENCE_LEVEL,
        influence=False,
    ):
        weat_stats.check_draw_counts({"permutations": permutations, "n_bootstrap": n_bootstrap})
        result = weat_stats.weat_from_roles(
            embeddings,
            roles,
            words=words,
            similarity=similarity,
            permutations=permutations,
            exact_limit=exact_limit,
            alternative=alternative,
            ddof=ddof,
            seed=seed,
            csls_k=csls_k,
            n_bootstrap=n_bootstrap,
            confidence_level=confidence_level,
            influence=influence,
        )
        return result.to_dict()
