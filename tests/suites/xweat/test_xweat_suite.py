"""The xweat suite through the harness: planning of language pairs, records, and agreement with
run_xweat."""

import json

import pytest
from helpers.tiny_models import build_tiny_bert

from eval_harness.errors import ConfigError
from eval_harness.models import TransformerEncoder
from eval_harness.runner import parse_config, plan_units, run_sweep
from eval_harness.suites.xweat import load_word_sets, run_xweat


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory):
    return build_tiny_bert(tmp_path_factory.mktemp("tiny") / "bert")


def xweat_config(model_path, **suite):
    settings = {"languages": ["en", "de"], "tests": ["T1", "T7"], "permutations": 999, **suite}
    return parse_config(
        {
            "models": [
                {
                    "name": "tiny",
                    "path": str(model_path),
                    "type": "encoder",
                    "options": {"pooling": "mean"},
                }
            ],
            "suites": {"xweat": settings},
        }
    )


def test_cross_lingual_plans_every_ordered_pair_and_models_without_word_vectors_are_skipped(
    tiny_bert,
):
    config = parse_config(
        {
            "models": [
                {"name": "tiny", "path": str(tiny_bert)},
                {"name": "svm", "type": "svm_tfidf"},
                {"name": "en-only", "path": str(tiny_bert), "languages": ["en", "es"]},
            ],
            "suites": {"xweat": {"languages": ["en", "de", "es"], "cross_lingual": True}},
        }
    )
    plan = plan_units(config)
    tiny_languages = [task.language for task in plan.tasks if task.model.name == "tiny"]
    assert tiny_languages == [
        "en",
        "de",
        "es",
        "en-de",
        "en-es",
        "de-en",
        "de-es",
        "es-en",
        "es-de",
    ]
    assert [t.language for t in plan.tasks if t.model.name == "en-only"] == [
        "en",
        "es",
        "en-es",
        "es-en",
    ]
    assert len(plan.units) == (9 + 4) * 10
    assert any("svm x xweat" in note for note in plan.skipped)
    with pytest.raises(ConfigError, match="suite 'xweat' has no language 'ar'"):
        parse_config(
            {"models": [{"path": str(tiny_bert)}], "suites": {"xweat": {"languages": ["en", "ar"]}}}
        )


def test_xweat_records_agree_with_run_xweat_on_the_same_encoder(tiny_bert, tmp_path):
    summary = run_sweep(
        xweat_config(tiny_bert, cross_lingual=True), tmp_path / "run", progress=False
    )
    assert summary.planned == summary.computed == 4 * 2
    records = [json.loads(line) for line in (tmp_path / "run" / "results.jsonl").open()]
    effect = {(r["language"], r["test"]): r for r in records if r["metric"] == "effect_size"}
    assert set(effect) == {
        (lang, test) for lang in ("en", "de", "en-de", "de-en") for test in ("T1", "T7")
    }
    cross = effect[("en-de", "T7")]
    assert (cross["targets_language"], cross["attributes_language"]) == ("en", "de")
    assert cross["config"] == "en-de" and cross["dataset"] == "xweat" and cross["emotion"] is None

    # the library call on the same encoder, template word vectors and seed gives the same numbers
    encoder = TransformerEncoder.from_pretrained(tiny_bert, pooling="mean")

    class TemplateWords:
        def embed_words(self, words, language=None):
            return encoder.embed_words(words, language, mode="template")

    sets = {language: load_word_sets(language) for language in ("en", "de")}
    direct = run_xweat(
        TemplateWords(),
        [("en", "en"), ("en", "de")],
        tests=["T1", "T7"],
        word_sets=sets,
        seed=0,
        permutations=999,
    )
    for result in direct:
        language = result.target_language if not result.cross_lingual else "en-de"
        record = effect[(language, result.test)]
        if result.weat is None:
            assert record["value"] is None and record["note"] == result.skip_reason
        else:
            assert record["value"] == pytest.approx(result.weat.effect_size, rel=1e-5)
            assert record["p_value"] == pytest.approx(result.weat.p_value, rel=1e-3)
            assert record["n_permutations"] == result.weat.n_permutations
    coverage = [r for r in records if r["metric"] == "coverage"]
    assert len(coverage) == 8 and all(0 <= r["value"] <= 1 for r in coverage)


def test_word_vectors_are_embedded_once_per_language_and_reused_from_the_cache(
    tiny_bert, tmp_path, monkeypatch
):
    """A cross-lingual sweep embeds each language's words once (not once per pair); a forced re-run
    reads them all from the embedding cache and gives the same records."""
    from eval_harness.models.encoder import TransformerEncoder

    calls = []
    original = TransformerEncoder.embed_words

    def counting(self, words, language=None, **options):
        calls.append(language)
        return original(self, words, language, **options)

    monkeypatch.setattr(TransformerEncoder, "embed_words", counting)
    config = xweat_config(tiny_bert, cross_lingual=True)
    run_sweep(config, tmp_path / "run", progress=False)
    assert calls and set(calls) == {"en", "de"}
    per_language = {language: calls.count(language) for language in ("en", "de")}
    first = (tmp_path / "run" / "results.jsonl").read_text()

    calls.clear()
    run_sweep(config, tmp_path / "run", force=True, progress=False)
    assert calls == []  # every chunk came from the cache
    assert (tmp_path / "run" / "results.jsonl").read_text() == first
    # the four tasks (en, de, en-de, de-en) shared one embedding per language: 64-word chunks of
    # each
    sets = {language: load_word_sets(language) for language in ("en", "de")}
    for language, count in per_language.items():
        words = {
            w for roles in sets[language].values() for role in roles.values() for w in role.words
        }
        assert count == -(-len(words) // 64)
