"""The report a person reads (issue 40): report.md holds the answer (the verdict per model first,
the verdict table, the method) within 10,000 words, links the page of full tables, which holds every
method's section, and each model's verdict sentence cites an effect record of results.csv with its
value and interval."""

import re

import pandas as pd
import pytest
from helpers.synthetic_run import write_synthetic_run

from eval_harness.report import write_report

MAX_WORDS = 10_000
SENTENCE = re.compile(
    r"^- (?P<model>\S+): of (?P<n>\d+) EEC effects on the intensity scale, "
    r"(?P<beyond>\d+) are beyond ±0\.01, (?P<within>\d+) within ±0\.01, "
    r"(?P<undecided>\d+) undecided and (?P<unmeasured>\d+) not measured; its largest "
    r"robust effect is (?P<config>\S+) (?P<emotion>\w+): (?P<contrast>.+), "
    r"(?P<value>[-+][0-9.e-]+) \(95% CI (?P<low>[-0-9.e]+) to (?P<high>[-0-9.e]+)\)\.$",
    re.MULTILINE,
)


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    run_dir = write_synthetic_run(tmp_path_factory.mktemp("answer") / "run")
    files = write_report(run_dir)
    return files.folder


def test_the_main_page_is_short_and_links_the_full_tables(report):
    main, tables = (report / "report.md").read_text(), (report / "tables.md").read_text()
    assert len(main.split()) <= MAX_WORDS and len(main.split()) * 5 < len(tables.split())
    assert (
        main.index("## Summary")
        < main.index("beyond ±0.01")
        < main.index("**Verdict per model and language")
    )
    assert "[Full tables: per EEC, per test" in main and "](tables.md)" in main
    assert (
        "## Equity Evaluation Corpora (EEC)" in tables
        and "## Equity Evaluation Corpora (EEC)" not in main
    )
    assert '<a href="tables.html">' in (report / "report.html").read_text()


def test_each_models_verdict_sentence_cites_an_effect_record(report):
    main = (report / "report.md").read_text()
    results = pd.read_csv(report / "results.csv")
    effects = results[(results["suite"] == "eec") & (results["metric"] == "effect")]
    found = list(SENTENCE.finditer(main))
    assert {m["model"] for m in found} == set(effects["model"])  # one sentence per EEC model
    for sentence in found:
        own = effects[effects["model"] == sentence["model"]]
        assert int(sentence["n"]) == len(own)
        counts = own["verdict"].value_counts()
        assert int(sentence["beyond"]) == counts.get("beyond", 0) and int(
            sentence["within"]
        ) == counts.get("within", 0)
        cited = own[
            (own["config"] == sentence["config"])
            & (own["emotion"] == sentence["emotion"])
            & (own["contrast"] == sentence["contrast"])
        ]
        assert len(cited) == 1, sentence.group(0)
        record = cited.iloc[0]
        assert float(sentence["value"]) == pytest.approx(record["value"], rel=5e-3)
        assert float(sentence["low"]) == pytest.approx(record["ci_low"], rel=5e-3)
        assert float(sentence["high"]) == pytest.approx(record["ci_high"], rel=5e-3)
        assert record["survives_holm"] and not record["poor_regressor"]
        robust = own[
            own["survives_holm"]
            & ~own["poor_regressor"]
            & ~own["fragile"].fillna(False).astype(bool)
        ]
        assert (
            abs(record["value"]) == robust["value"].abs().max()
        )  # the largest robust one: by size, not by p
