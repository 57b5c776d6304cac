# Copyright 2024 The xbias authors. Licensed under the Apache License, Version 2.0.
#
# Thin evaluate wrapper: all logic lives in eval_harness.stats.gender_space.
# One import per line: evaluate's import parser misreads "import a, b".
# "# From: xbias" names the distribution of eval_harness: evaluate's missing-dependency message then
# says `pip install xbias`, not `pip install eval_harness` (an unrelated PyPI project).
"""gender_space: the gender-subspace measures of Basta et al. (2019) for static and contextual word
vectors."""

import evaluate

from eval_harness.metric_modules import CheckedRowsModule  # From: xbias
from eval_harness.stats import gender_space  # From: xbias
from eval_harness.stats.vectors import check_role_rows  # From: xbias
from eval_harness.stats.weat import check_draw_counts  # From: xbias

_CITATION = """\
@inproceedings{basta-etal-2019-evaluating,
    title = "Evaluating the Underlying Gender Bias in Contextualized Word Embeddings",
    author = "Basta, Christine and Costa-juss{\\`a}, Marta R. and Casas, Noe",
    booktitle = "Proceedings of the First Workshop on Gender Bias in Natural Language Processing",
    year = "2019",
    publisher = "Association for Computational Linguistics",
    pages = "33--39",
}
@inproceedings{bolukbasi2016man,
    title = "Man is to Computer Programmer as Woman is to Homemaker? Debiasing Word Embeddings",
    author = "Bolukbasi, Tolga and Chang, Kai-Wei and Zou, James Y. and Saligrama, Venkatesh and Kalai, Adam T.",
    booktitle = "Advances in Neural Information Processing Systems 29",
    year = "2016",
}
@inproceedings{gonen-goldberg-2019-lipstick,
    title = "Lipstick on a Pig: Debiasing Methods Cover up Systematic Gender Biases in Word Embeddings
             But do not Remove Them",
    author = "Gonen, Hila and Goldberg, Yoav",
    booktitle = "Proceedings of NAACL-HLT 2019",
    year = "2019",
    pages = "609--614",
}
"""  # noqa: E501

_DESCRIPTION = """\
Five measures of how much gender a word-vector space (static, or contextual vectors of words in
sentences) carries. (1) Gender subspace: uncentred PCA of the differences of definitional pairs
(she-he, woman-man...), explained-variance ratios against random word pairs; the first component is
the gender direction g. (2) Direct bias: (1/|N|) sum_{w in N} |cos(w, g)|^c over neutral words.
(3) Clustering: k-means (k=2) accuracy over the most male-/female-biased words (the better of the two
matchings). (4) Classification: RBF-SVM accuracy on held-out biased words. (5) kNN: Pearson r between
each profession's share of male-biased words among its k nearest neighbours and its original bias.
Every vector is scaled to unit length. See the metric card for the formulas and conventions.
"""  # noqa: E501

_KWARGS_DESCRIPTION = """
Args:
    embeddings (list of list of float): one vector per row, all of one dimension.
    roles (list of str): each row's role: "pair_male" / "pair_female" (the i-th of each are one
        definitional pair), "random_first" / "random_second" (random pairs: the baseline),
        "neutral" (professions: direct bias and kNN), "male" / "female" (the biased-word list, most
        biased first: clustering, classification, kNN candidates).
    words (list of str, optional): each row's word; contexts of one neutral word are averaged in the
        direct bias, and a profession is never its own kNN neighbour.
    runs (list of int, optional): each row's context draw (default all 0: static vectors); for the
        random pairs, the baseline draw. Every run must list the same neutral and male/female words
        in the same order.
    bias (list of float, optional): each neutral row's original bias (e.g. cos(w, he - she) in a
        reference space); needed for kNN. Other rows: any value (None).
    direction (list of float, optional): a gender direction for the direct bias instead of the
        subspace's first component.
    n_components (int, optional): principal components reported, at most min(pairs, dimension) (more is an
        error). Default: up to 10, as many as there are.
    c (float): direct-bias exponent. Default 1.
    n_cluster_words (int): most biased words per gender clustered. Default 500.
    n_train (int): SVM training words per run. Default 1000.
    n_runs (int, optional): classification runs for static vectors (default 10); with several
        context draws, one run per draw.
    k (int): neighbours per profession. Default 100.
    seed (int): seed of the k-means starts and the SVM splits. Default 0.
Returns:
    subspace (dict or None): explained_variance_ratio, first_component_ratio, baseline_* (random
        pairs, mean and std over draws), n_differences, direction.
    direct_bias (dict or None): value, c, n_words, n_vectors, per_word.
    clustering, classification (dict or None): min, mean, max accuracy over runs, values, n_words.
    knn (dict or None): min, mean, max Pearson r over runs, correlations, p_values, max_p_value,
        male_share, k, n_professions, n_candidates.
Examples:
    >>> import evaluate
    >>> gender_space = evaluate.load("gender_space")
    >>> r = gender_space.compute(
    ...     embeddings=[[1.0, 0.1], [1.0, -0.1], [0.9, 0.3], [0.9, 0.1], [0.2, 1.0], [0.3, 0.8]],
    ...     roles=["pair_male", "pair_female", "pair_male", "pair_female", "neutral", "neutral"],
    ...     n_components=2)
    >>> round(r["subspace"]["first_component_ratio"], 3), round(r["direct_bias"]["value"], 3)
    (0.988, 0.921)
"""  # noqa: E501


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class GenderSpace(CheckedRowsModule, evaluate.Measurement):
    check_rows = staticmethod(check_role_rows)

    def _info(self):
        return evaluate.MeasurementInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            homepage="https://aclanthology.org/W19-3805/",
            license="apache-2.0",
            codebase_urls=[
                "https://github.com/tolga-b/debiaswe",
                "https://github.com/gonenhila/gender_bias_lipstick",
            ],
            features=self.role_row_features(),
            reference_urls=[
                "https://aclanthology.org/W19-3805/",
                "https://arxiv.org/abs/1607.06520",
                "https://aclanthology.org/N19-1061/",
            ],
        )

    def _compute(
        self,
        embeddings,
        roles,
        words=None,
        runs=None,
        bias=None,
        direction=None,
        n_components=None,
        c=1.0,
        n_cluster_words=500,
        n_train=1000,
        n_runs=None,
        k=100,
        seed=0,
    ):
        check_draw_counts({"n_runs": n_runs})
        if bias is not None:
            bias = [float("nan") if value is None else value for value in bias]
        result = gender_space.gender_space_measures(
            embeddings,
            roles,
            word=words,
            run=runs,
            bias=bias,
            direction=direction,
            n_components=n_components,
            c=c,
            n_cluster_words=n_cluster_words,
            n_train=n_train,
            n_runs=n_runs,
            k=k,
            seed=seed,
        )
        return result.to_dict()
