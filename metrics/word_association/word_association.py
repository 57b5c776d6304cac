# Copyright 2024 The xbias authors. Licensed under the Apache License, Version 2.0.
#
# Thin evaluate wrapper: the measures are eval_harness.stats.association's functions, each declared
# once (its roles, its options) in eval_harness.suites.xweat.measures.WORD_MEASURES, which also runs
# them on the rows. One import per line: evaluate's import parser misreads "import a, b".
# "# From: xbias" names the distribution of eval_harness: evaluate's missing-dependency message then
# says `pip install xbias`, not `pip install eval_harness` (an unrelated PyPI project).
"""word_association: RND, MAC, ECT, RIPA and RNSB, the word-embedding association measures besides
WEAT."""

import evaluate

from eval_harness.metric_modules import CheckedRowsModule  # From: xbias
from eval_harness.stats.vectors import check_role_rows  # From: xbias
from eval_harness.suites.xweat import measures  # From: xbias

_CITATION = """\
@article{garg2018word,
    title = "Word embeddings quantify 100 years of gender and ethnic stereotypes",
    author = "Garg, Nikhil and Schiebinger, Londa and Jurafsky, Dan and Zou, James",
    journal = "Proceedings of the National Academy of Sciences",
    volume = "115", number = "16", pages = "E3635--E3644", year = "2018",
}
@inproceedings{manzini-etal-2019-black,
    title = "Black is to Criminal as Caucasian is to Police: Detecting and Removing Multiclass Bias in Word Embeddings",
    author = "Manzini, Thomas and Lim, Yao Chong and Black, Alan W. and Tsvetkov, Yulia",
    booktitle = "Proceedings of NAACL-HLT 2019", pages = "615--621", year = "2019",
}
@inproceedings{dev2019attenuating,
    title = "Attenuating Bias in Word Vectors",
    author = "Dev, Sunipa and Phillips, Jeff",
    booktitle = "Proceedings of AISTATS 2019", pages = "879--887", year = "2019",
}
@inproceedings{ethayarajh-etal-2019-understanding,
    title = "Understanding Undesirable Word Embedding Associations",
    author = "Ethayarajh, Kawin and Duvenaud, David and Hirst, Graeme",
    booktitle = "Proceedings of ACL 2019", pages = "1696--1705", year = "2019",
}
@inproceedings{sweeney-najafian-2019-transparent,
    title = "A Transparent Framework for Evaluating Unintended Demographic Bias in Word Embeddings",
    author = "Sweeney, Chris and Najafian, Maryam",
    booktitle = "Proceedings of ACL 2019", pages = "1662--1667", year = "2019",
}
"""  # noqa: E501

_DESCRIPTION = """\
Association measures over word vectors labelled with WEAT's roles (targets X, Y; attributes A, B), chosen
with measure=: "rnd" (relative norm distance, Garg et al. 2018), "mac" (mean average cosine, Manzini et
al. 2019), "ect" (embedding coherence test, Dev & Phillips 2019), "ripa" (relational inner product
association, Ethayarajh et al. 2019) or "rnsb" (relative negative sentiment bias, Sweeney & Najafian 2019).
See the metric card for every formula and convention.
"""  # noqa: E501

_KWARGS_DESCRIPTION = """
Args:
    embeddings (list of list of float): one word vector per row; all rows of one dimension.
    roles (list of str): each row's set: "X" or "Y" (targets), "A" or "B" (attributes); for "mac" any other
        label is a further attribute set.
    measure ("rnd", "mac", "ect", "ripa" or "rnsb"): required.
    words (list of str, optional): each row's word; a word listed twice in one role counts once (its later
        rows are dropped, with a DuplicateWordsWarning). Without words, rows are taken as given.
    Options of one measure only (any other is an error):
        rnd: normalize (bool, default True: unit-length word vectors, as Garg et al.).
        ripa: relation ("pca", default: first principal component of the X_i - Y_i pairs; or "pair_mean", WEFE's).
        rnsb: unit ("group", default, or "word"), n_seeds (int, default 10), seed (int, default 0),
            train_fraction (float in (0, 1], default 0.8), C (float, default 1.0).
Returns:
    measure (str) and results: a dict from the attribute set(s) used to that computation's values.
    rnd, ect, ripa: one entry per attribute set ("A", and "B" when B rows are given).
    mac: one entry named by the attribute labels joined with "+" (e.g. "A+B"); rnsb: "A+B" (A positive, B negative).
    Every entry has "value" (the measure) and its details (see the card).
Examples:
    >>> import evaluate
    >>> word_association = evaluate.load("word_association")
    >>> r = word_association.compute(
    ...     embeddings=[[2.0, 0.0], [0.0, 2.0], [-3.0, 0.0], [1.0, 0.0], [1.0, 1.0], [-1.0, 1.0]],
    ...     roles=["X", "X", "Y", "Y", "A", "A"], measure="rnd", normalize=False)
    >>> round(r["results"]["A"]["value"], 4)  # 1 - sqrt(5)
    -1.2361
"""  # noqa: E501


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class WordAssociation(CheckedRowsModule, evaluate.Measurement):
    check_rows = staticmethod(check_role_rows)

    def _info(self):
        return evaluate.MeasurementInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            homepage="https://wefe.readthedocs.io/en/latest/about.html#metrics",
            license="apache-2.0",
            codebase_urls=[
                "https://github.com/dccuchile/wefe",
                "https://github.com/kawine/ripa",
            ],
            features=self.role_row_features(),
            reference_urls=[
                "https://doi.org/10.1073/pnas.1720347115",
                "https://aclanthology.org/N19-1062/",
                "https://proceedings.mlr.press/v89/dev19a.html",
                "https://aclanthology.org/P19-1166/",
                "https://aclanthology.org/P19-1162/",
            ],
        )

    def _compute(self, embeddings, roles, measure=None, words=None, **options):
        results = measures.association_from_roles(
            measure, embeddings, roles, words=words, **options
        )
        return {
            "measure": measure,
            "results": {label: result.to_dict() for label, result in results.items()},
        }
