"""A decoder-only LLM as a zero-shot emotion-intensity judge (the ``prompt`` mode of model type
``llm``).

For a text and an emotion (a SemEval-2018 dimension), the judge asks the LLM, in the text's
language and through its chat template when it has one, how strongly the text expresses the
emotion on a numeric scale ``low..high`` (default 0-9). The prompts are data
(``judge_prompts.yaml``: English, Spanish, Arabic), overridable with ``prompts=``.

Prompt paraphrases: each language ships, beside its prompt (named :data:`DEFAULT_PROMPT`), at least
three meaning-preserving paraphrases (``paraphrases:``, each a name and the keys it rewords; the
others are the prompt's). :meth:`PromptJudge.prompt_names` lists them and
:meth:`PromptJudge.with_prompt` gives the judge that asks with one, so a bias measure can say how
far its findings move with the wording of the question (the ``eec`` suite's prompt spread).

Score (``answer="expected"``, the default): with ``p(n)`` the probability that the answer's
first token is numeral ``n`` (summed over the numeral's single-token spellings, ``"7"`` and
``" 7"``) under the next-token distribution after the prompt,

    mass = sum_n p(n),   q(n) = p(n) / mass,   E = sum_n n q(n),   score = (E - low) / (high - low)

so the score is in [0, 1]. ``mass`` is the validity signal (little mass: the model is not
answering the question) and ``argmax_n q(n)`` the answer it would most likely give; both are
returned by :meth:`PromptJudge.score` (:class:`PromptScores`). Every numeral must be a single
token for the tokenizer (checked).

``answer="generate"``: the greedy answer (``max_new_tokens`` tokens), the first number in it
(Arabic-Indic digits read too) taken when it lies on the scale and mapped to [0, 1]; an answer
without one (a refusal, a sentence) is a parse failure, counted in :meth:`PromptScores.validity`,
and scored by the expected value instead (a result never holds NaN).

``fit(language, dimension)`` trains nothing: it scores a seeded sample (``fit_sample`` texts) of
the SemEval-2018 validation and test tweets of that language and dimension and records Pearson
r in :class:`RegressorScores` (``n_train = 0``), with the validity numbers in ``selected``, so a
judge that cannot do the task is flagged like a poor regressor.

Speed: every prompt of one (language, dimension) shares the text before ``{text}``; its
key/value cache is computed once (:meth:`CausalLM.next_token_logprobs`), so each text costs
only its own tokens and the chat template's closing tokens.
"""

import copy
import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import yaml

from eval_harness.data.emotion_splits import SemEvalSplits, TextSplit, clean_tweet
from eval_harness.errors import InputError, unreadable_file
from eval_harness.io import load_yaml, read_text
from eval_harness.models.cache import EmbeddingCache
from eval_harness.models.causal_lm import CausalLM
from eval_harness.models.encoder import unique_texts
from eval_harness.models.heads import pearson_r
from eval_harness.models.judge_definition import (
    DEFAULT_PROMPT,
    TEXT_MARK,
    judge_messages,
    numeral_spellings,
    prompt_names,
)
from eval_harness.models.regressors import EmotionRegressor, RegressorScores
from eval_harness.stats.judge import numeral_statistics

PROMPTS_FILE = Path(__file__).with_name("judge_prompts.yaml")
ANSWERS = ("expected", "generate")
PROMPT_KEYS = ("system", "user", "answer", "questions", "paraphrases")
PARAPHRASE_KEYS = ("name", "system", "user", "answer", "questions")
LOW_MASS = 0.5  # a text whose numerals get less probability than this was probably not answered
_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")
_EASTERN_DIGITS = str.maketrans("٠١٢٣٤٥٦٧٨٩۰۱۲۳۴۵۶۷۸۹", "01234567890123456789")


def judge_prompts(overrides: Mapping | str | Path | None = None) -> dict[str, dict]:
    """The prompt table: ``judge_prompts.yaml`` with ``overrides`` (a mapping or a YAML file) merged
    per language.

    A language given in ``overrides`` replaces the listed keys (``questions`` entry by entry).
    """
    table = yaml.safe_load(PROMPTS_FILE.read_text(encoding="utf-8"))
    for language, spec in _read_overrides(overrides).items():
        if not isinstance(spec, Mapping):
            raise InputError(
                f"prompts[{language!r}] must be a mapping with keys {PROMPT_KEYS}, got {spec!r}"
            )
        unknown = set(spec) - set(PROMPT_KEYS)
        if unknown:
            raise InputError(
                f"prompts[{language!r}] has unknown key(s) {sorted(unknown)}; keys: {PROMPT_KEYS}"
            )
        merged = dict(table.get(language, {}))
        merged.update({key: value for key, value in spec.items() if key != "questions"})
        merged["questions"] = {**merged.get("questions", {}), **dict(spec.get("questions") or {})}
        table[language] = merged
    for language, spec in table.items():
        _check_paraphrases(language, spec.get("paraphrases"))
    return table


def _check_paraphrases(language: str, paraphrases) -> None:
    """Each paraphrase of a language's prompt is a mapping with a new ``name`` and keys of
    :data:`PARAPHRASE_KEYS`."""
    if paraphrases is None:
        return
    if not isinstance(paraphrases, list):
        raise InputError(
            f"prompts[{language!r}]['paraphrases'] must be a list of mappings, got {paraphrases!r}"
        )
    names = [DEFAULT_PROMPT]
    for paraphrase in paraphrases:
        name = paraphrase.get("name") if isinstance(paraphrase, Mapping) else None
        if not isinstance(name, str) or not name or name in names:
            raise InputError(
                f"prompts[{language!r}]: every paraphrase needs a name of its "
                f"own (not {DEFAULT_PROMPT!r} or a repeat), got {paraphrase!r}"
            )
        unknown = set(paraphrase) - set(PARAPHRASE_KEYS)
        if unknown:
            raise InputError(
                f"prompts[{language!r}] paraphrase {name!r} has unknown "
                f"key(s) {sorted(unknown)}; keys: {PARAPHRASE_KEYS}"
            )
        names.append(name)


def paraphrased_prompt(spec: Mapping, name: str) -> dict:
    """The prompt ``spec`` reworded by its paraphrase ``name`` (keys it leaves out stay the
    prompt's, questions entry by entry); ``spec`` itself, without its paraphrases, for
    :data:`DEFAULT_PROMPT`."""
    prompt = {key: value for key, value in spec.items() if key != "paraphrases"}
    if name == DEFAULT_PROMPT:
        return prompt
    for paraphrase in spec.get("paraphrases") or ():
        if paraphrase["name"] == name:
            prompt.update(
                {
                    key: value
                    for key, value in paraphrase.items()
                    if key not in ("name", "questions")
                }
            )
            prompt["questions"] = {
                **prompt.get("questions", {}),
                **dict(paraphrase.get("questions") or {}),
            }
            return prompt
    raise InputError(f"no prompt paraphrase {name!r}; the prompts are {list(prompt_names(spec))}")


def _read_overrides(overrides: Mapping | str | Path | None) -> dict:
    if overrides is None:
        return {}
    if isinstance(overrides, str | Path):
        path = overrides
        try:
            overrides = load_yaml(read_text(path))
        except (OSError, ValueError, yaml.YAMLError) as error:
            raise InputError(unreadable_file(path, error, "prompts file")) from None
        if not isinstance(overrides, Mapping):  # named, never quoted: the file may be anything
            raise InputError(
                f"the prompts file {path} does not hold a mapping {{language: {{...}}}}"
            )
    if not isinstance(overrides, Mapping):
        raise InputError(
            "prompts must be a mapping {language: {...}} "
            f"or a YAML file of one, got {overrides!r}"
        )
    return {str(language): spec for language, spec in overrides.items()}


def render_prompt(
    tokenizer: Any, spec: Mapping, dimension: str, low: int, high: int
) -> tuple[str, str]:
    """``(before, after)``: the full prompt text for a text ``t`` is ``before + t + after``.

    Through the tokenizer's chat template (a system message folded into the user message when
    the template refuses a system role), else a plain prompt ending with ``spec["answer"]`` and a
    space (after the tokenizer's BOS when it adds one).
    """
    system, user = judge_messages(spec, dimension, low, high)
    if getattr(tokenizer, "chat_template", None):
        messages = [{"role": "user", "content": user}]
        try:
            rendered = _chat(
                tokenizer, ([{"role": "system", "content": system}] if system else []) + messages
            )
        except Exception:  # noqa: BLE001 - templates without a system role raise; fold it into the user turn
            rendered = _chat(tokenizer, [{"role": "user", "content": f"{system}\n\n{user}"}])
    else:
        adds_bos = tokenizer.bos_token_id is not None and tokenizer("a")["input_ids"][:1] == [
            tokenizer.bos_token_id
        ]
        rendered = (tokenizer.bos_token if adds_bos else "") + (f"{system}\n\n" if system else "")
        # The cue ends with a space: tokenizers that split a space from a digit (SmolLM2, Qwen,
        # Llama 3, Gemma) then have the numeral as the next token (Gemma-3-270m: 0.9 of the mass,
        # not 0.006).
        rendered += f"{user}\n{spec.get('answer') or ''} "
    if rendered.count(TEXT_MARK) != 1:
        raise InputError(
            "the chat template changed or repeated the text of a judge prompt; use plain prompts"
        )
    before, after = rendered.split(TEXT_MARK)
    return before, after


def _chat(tokenizer: Any, messages: list[dict]) -> str:
    return tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)


def numeral_candidates(tokenizer: Any, low: int, high: int) -> tuple[list[int], list[int]]:
    """``(token ids, numeral of each)``: every single-token spelling (``"7"``, ``" 7"``) of each
    numeral.

    Raises:
        InputError: a numeral of the scale has no single-token spelling.
    """
    token_ids, numerals, missing = [], [], []
    for numeral in range(low, high + 1):
        spellings = {
            ids[0]
            for ids in (
                tokenizer.encode(form, add_special_tokens=False)
                for form in numeral_spellings(numeral)
            )
            if len(ids) == 1
        }
        if not spellings:
            missing.append(numeral)
        for token in sorted(spellings - set(token_ids)):
            token_ids.append(token)
            numerals.append(numeral)
    if missing:
        raise InputError(
            f"numeral(s) {missing} of the scale {low}-{high} are not "
            "single tokens for this tokenizer; use a scale whose "
            "numerals are (0-9 works for every tokenizer we know)"
        )
    return token_ids, numerals


def parse_answer(text: str, low: int, high: int) -> float | None:
    """The first number in ``text`` (Arabic-Indic digits read too) when it lies in ``[low, high]``,
    else None."""
    match = _NUMBER.search(text.translate(_EASTERN_DIGITS))
    if match is None:
        return None
    value = float(match.group().replace(",", "."))
    return value if low <= value <= high else None


@dataclass(frozen=True, eq=False)
class PromptScores:
    """What the judge read from the LLM for each text (arrays of one row per text).

    Attributes:
        value: the score ``predict`` returns, in [0, 1] (the expected value, or the parsed greedy
        answer).
        expected: the expected numeral under the renormalised numeral distribution, mapped to [0,
        1].
        numeral_mass: the probability that the answer's first token is a numeral of the scale.
        argmax: the most probable numeral.
        answers: the greedy answers (``answer="generate"``), else None.
        parsed: whether each greedy answer held a number on the scale (``answer="generate"``), else
        None.
    """

    value: np.ndarray
    expected: np.ndarray
    numeral_mass: np.ndarray
    argmax: np.ndarray
    answers: tuple[str, ...] | None = None
    parsed: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.value)

    def records(self) -> list[dict]:
        """One dict per text (``value``, ``expected``, ``numeral_mass``, ``argmax``, and ``answer``,
        ``parsed`` when generated): the form to gather from ranks (``dist.map``) and to write next
        to a result."""
        rows = []
        for index in range(len(self)):
            row = {
                "value": float(self.value[index]),
                "expected": float(self.expected[index]),
                "numeral_mass": float(self.numeral_mass[index]),
                "argmax": int(self.argmax[index]),
            }
            if self.answers is not None:
                row.update(answer=self.answers[index], parsed=bool(self.parsed[index]))
            rows.append(row)
        return rows

    @classmethod
    def from_records(cls, rows: Sequence[Mapping]) -> "PromptScores":
        """The inverse of :meth:`records` (e.g. over the concatenated records of several ranks)."""
        generated = bool(rows) and "answer" in rows[0]
        return cls(
            np.array([row["value"] for row in rows], dtype=np.float64),
            np.array([row["expected"] for row in rows], dtype=np.float64),
            np.array([row["numeral_mass"] for row in rows], dtype=np.float64),
            np.array([row["argmax"] for row in rows], dtype=np.int64),
            tuple(row["answer"] for row in rows) if generated else None,
            np.array([row["parsed"] for row in rows], dtype=bool) if generated else None,
        )

    def validity(self) -> dict:
        """Mean and median numeral mass, the share of texts below :data:`LOW_MASS`, the arg-max
        numerals' counts and (generate) the parse-failure rate: the numbers that say whether the
        judge answered."""
        numerals, counts = np.unique(self.argmax, return_counts=True)
        return {
            "n": len(self),
            "numeral_mass_mean": float(self.numeral_mass.mean()),
            "numeral_mass_median": float(np.median(self.numeral_mass)),
            "low_mass_share": float((self.numeral_mass < LOW_MASS).mean()),
            "argmax_counts": {
                str(int(numeral)): int(count)
                for numeral, count in zip(numerals, counts, strict=True)
            },
            "parse_failure_rate": None if self.parsed is None else float(1.0 - self.parsed.mean()),
        }


class PromptJudge(EmotionRegressor):
    """A causal LM asked, in the text's language, how strongly a text expresses an emotion (see the
    module docstring).

    Args:
        lm: the loaded :class:`CausalLM` (shared with probes and word vectors of the same model).
        answer: ``"expected"`` (expected numeral under the next-token distribution) or
            ``"generate"`` (greedy answer parsed; failures fall back to the expected value and are
            counted).
        scale: ``(low, high)`` integers, ``0 <= low < high``; each numeral must be one token.
        prompts: overrides of ``judge_prompts.yaml`` (a mapping or a YAML file, per language).
        fit_sample: how many validation and test tweets ``fit`` scores (each, seeded); None: all.
        max_new_tokens: length of a greedy answer (``answer="generate"``).
        cache: an :class:`EmbeddingCache` for the numerals' log-probabilities (``"expected"``).
        preprocess, seed: as every emotion model (tweet cleaning; the sample's seed).
    """

    model_type: ClassVar[str] = "llm"
    # predict() runs the LM: a harness shares it out over its ranks.
    heavy_predict: ClassVar[bool] = True

    def __init__(
        self,
        lm: CausalLM,
        *,
        answer: str = "expected",
        scale: Sequence[int] = (0, 9),
        prompts: Mapping | str | Path | None = None,
        fit_sample: int | None = 200,
        max_new_tokens: int = 8,
        cache: EmbeddingCache | None = None,
        preprocess: str | None = "tweet",
        seed: int = 0,
    ):
        super().__init__(preprocess=preprocess, seed=seed)
        if answer not in ANSWERS:
            raise InputError(f"answer must be one of {ANSWERS}, got {answer!r}")
        scale = tuple(scale) if isinstance(scale, Sequence) and not isinstance(scale, str) else ()
        if len(scale) != 2 or not all(
            isinstance(end, int) and not isinstance(end, bool) for end in scale
        ):
            raise InputError("scale must be two integers (low, high), e.g. (0, 9)")
        if not 0 <= scale[0] < scale[1]:
            raise InputError(f"scale must have 0 <= low < high, got {scale}")
        if fit_sample is not None and (not isinstance(fit_sample, int) or fit_sample < 2):
            raise InputError(
                f"fit_sample must be None (every tweet) or an integer >= 2, got {fit_sample!r}"
            )
        if not isinstance(max_new_tokens, int) or max_new_tokens < 1:
            raise InputError(f"max_new_tokens must be a positive integer, got {max_new_tokens!r}")
        self.lm = lm
        self.answer = answer
        self.low, self.high = scale
        self.prompts = judge_prompts(prompts)
        self.fit_sample = fit_sample
        self.max_new_tokens = max_new_tokens
        self.cache = cache
        self.candidates, self.candidate_numerals = numeral_candidates(
            lm.tokenizer, self.low, self.high
        )
        self._rendered: dict[tuple[str, str], tuple[str, str, list[int]]] = {}

    # ---- identity
    def source_name(self) -> str:
        return self.lm.name

    def source_fingerprint(self) -> str:
        return self.lm.fingerprint

    def options(self) -> dict:
        return {
            "preprocess": self.preprocess,
            "seed": self.seed,
            "answer": self.answer,
            "scale": [self.low, self.high],
            "prompts": self.prompts,
            "fit_sample": self.fit_sample,
            "max_new_tokens": self.max_new_tokens,
            "lm": self.lm.options(),
        }

    @classmethod
    def build(cls, source, options, resources) -> "PromptJudge":
        """The ``llm`` model type's ``mode: prompt`` emotion model: this judge on the shared
        :class:`CausalLM` of ``resources`` (loaded once per source, dtype and precision)."""
        from eval_harness.models.registry import LLM_LOAD_OPTIONS

        options = dict(options)
        lm_options = {name: options.pop(name) for name in LLM_LOAD_OPTIONS if name in options}
        return cls(resources.causal_lm(source, **lm_options), cache=resources.cache, **options)

    @classmethod
    def rebuild(cls, source, options, resources) -> "PromptJudge":
        # The identity records the LM's load options under "lm" (see options()).
        options = dict(options)
        return cls(
            resources.causal_lm(source, **options.pop("lm")), cache=resources.cache, **options
        )

    # ---- the prompt
    def prompt_names(self, language: str | None = None) -> tuple[str, ...]:
        """The names of the prompt and its paraphrases for ``language`` (default: the fitted one),
        the prompt's (:data:`DEFAULT_PROMPT`) first."""
        return prompt_names(self.prompts.get(language or self.language) or {})

    def with_prompt(self, name: str) -> "PromptJudge":
        """This judge (fitted as it is, on the same LM) asking with the paraphrase ``name`` of each
        language's prompt (:func:`paraphrased_prompt`); itself for :data:`DEFAULT_PROMPT`. Languages
        without that paraphrase are left out of the copy's prompts."""
        if name == DEFAULT_PROMPT:
            return self
        if name not in self.prompt_names():
            raise InputError(
                f"no prompt paraphrase {name!r} for {self.language!r}; "
                f"the prompts are {self.prompt_names()}"
            )
        judge = copy.copy(self)
        judge.prompts = {
            language: paraphrased_prompt(spec, name)
            for language, spec in self.prompts.items()
            if name in self.prompt_names(language)
        }
        judge._rendered = {}
        return judge

    def prompt(self, language: str, dimension: str) -> tuple[str, str]:
        """``(before, after)`` of (language, dimension)'s prompt: a text ``t`` is judged on
        ``before + t + after``."""
        return self._prompt(language, dimension)[:2]

    def _prompt(self, language: str, dimension: str) -> tuple[str, str, list[int]]:
        key = (language, dimension)
        if key not in self._rendered:
            if language not in self.prompts:
                raise InputError(
                    f"no judge prompt for language {language!r} (have "
                    f"{sorted(self.prompts)}); pass prompts={{{language!r}: {{'user': "
                    f"'... {{text}}', 'questions': {{{dimension!r}: '...'}}}}}}"
                )
            before, after = render_prompt(
                self.lm.tokenizer, self.prompts[language], dimension, self.low, self.high
            )
            self._rendered[key] = (before, after, self.lm.tokenize([before])[0])
        return self._rendered[key]

    # ---- fitting: nothing is trained; the prompt is scored on SemEval-2018
    def fit(
        self, language: str, dimension: str, semeval: SemEvalSplits | None = None
    ) -> RegressorScores:
        """Score the prompt on a seeded sample of SemEval-2018 validation and test tweets; record
        Pearson r (``semeval``: where the splits come from, as for every emotion model)."""
        self._prompt(
            language, dimension
        )  # an unknown language or dimension fails before the data loads
        splits = (semeval or SemEvalSplits()).splits(
            language, dimension, preprocess=self.preprocess
        )
        return self.fit_splits(splits, language, dimension)

    def fit_splits(
        self, splits: Mapping[str, TextSplit], language: str, dimension: str
    ) -> RegressorScores:
        """:meth:`fit` on given splits (texts already cleaned); ``train`` is not used."""
        self._prompt(
            language, dimension
        )  # an unknown language or dimension fails before any scoring
        rng = np.random.default_rng(self.seed)
        correlations, sizes, validity = {}, {}, {}
        for name in ("validation", "test"):
            if name not in splits or len(splits[name]) < 2:
                raise InputError(f"the judge's fit needs a {name} split of at least 2 texts")
            split = splits[name]
            keep = np.arange(len(split))
            if self.fit_sample is not None and len(split) > self.fit_sample:
                keep = np.sort(rng.choice(len(split), size=self.fit_sample, replace=False))
            scores = self._score_prepared(
                [split.texts[index] for index in keep], language, dimension
            )
            correlations[name] = pearson_r(scores.value, split.intensity[keep])
            sizes[name] = len(keep)
            validity[name] = scores.validity()
        self.language, self.dimension = language, dimension
        selected = {
            "answer": self.answer,
            "scale": [self.low, self.high],
            "prompt_sha256": self.prompt_digest(),
        }
        for name, numbers in validity.items():
            selected[f"numeral_mass_{name}"] = numbers["numeral_mass_mean"]
            selected[f"low_mass_share_{name}"] = numbers["low_mass_share"]
            if numbers["parse_failure_rate"] is not None:
                selected[f"parse_failure_rate_{name}"] = numbers["parse_failure_rate"]
        self.scores = RegressorScores(
            model_type=self.model_type,
            language=language,
            dimension=dimension,
            pearson_validation=correlations["validation"],
            pearson_test=correlations["test"],
            n_train=0,
            n_validation=sizes["validation"],
            n_test=sizes["test"],
            selected=selected,
        )
        return self.scores

    def prompt_digest(self) -> str:
        """sha256 of the fitted prompt (before, after) and the scale's candidate tokens."""
        before, after, _ = self._prompt(self.language, self.dimension)
        payload = json.dumps(
            [before, after, self.candidates, self.candidate_numerals], ensure_ascii=False
        )
        return hashlib.sha256(payload.encode()).hexdigest()

    # ---- scoring
    def score(self, texts: Sequence[str]) -> PromptScores:
        """Scores, numeral mass and arg-max (and greedy answers) of ``texts`` for the fitted
        (language, dimension)."""
        if self.dimension is None:
            raise InputError(
                "PromptJudge is not fitted; call fit(language, dimension) or load() first"
            )
        texts = [] if isinstance(texts, str) else list(texts)
        if not texts or not all(isinstance(text, str) for text in texts):
            raise InputError("score() takes a non-empty list of strings (not one string)")
        if self.preprocess == "tweet":
            texts = [clean_tweet(text) for text in texts]
        return self._score_prepared(texts, self.language, self.dimension)

    def _raw_predict(self, texts: list[str]) -> np.ndarray:
        return self._score_prepared(texts, self.language, self.dimension).value

    def _score_prepared(self, texts: list[str], language: str, dimension: str) -> PromptScores:
        before, after, prefix_ids = self._prompt(language, dimension)
        unique, inverse = unique_texts(texts)
        generate = self.answer == "generate"

        def candidate_logprobs(batch: list[str]) -> np.ndarray:
            sequences = self.lm.tokenize([before + text + after for text in batch])
            return self.lm.next_token_logprobs(sequences, self.candidates, prefix_ids)[0]

        if generate:
            sequences = self.lm.tokenize([before + text + after for text in unique])
            logprobs, generated = self.lm.next_token_logprobs(
                sequences, self.candidates, prefix_ids, new_tokens=self.max_new_tokens
            )
        elif self.cache is not None:
            mode = (
                "judge-"
                + hashlib.sha256(json.dumps([before, after, self.candidates]).encode()).hexdigest()[
                    :16
                ]
            )
            logprobs = self.cache.get_or_compute(
                self.lm.fingerprint, mode, unique, candidate_logprobs
            )
        else:
            logprobs = candidate_logprobs(unique)
        expected, mass, argmax = numeral_statistics(
            logprobs, self.candidate_numerals, self.low, self.high
        )
        value, answers, parsed = expected, None, None
        if generate:
            answers = tuple(self._decode(tokens) for tokens in generated)
            readings = [parse_answer(text, self.low, self.high) for text in answers]
            parsed = np.array([reading is not None for reading in readings])
            value = np.array(
                [
                    (reading - self.low) / (self.high - self.low)
                    if reading is not None
                    else fallback
                    for reading, fallback in zip(readings, expected, strict=True)
                ]
            )
            answers = tuple(answers[index] for index in inverse)
            parsed = parsed[inverse]
        return PromptScores(
            value[inverse], expected[inverse], mass[inverse], argmax[inverse], answers, parsed
        )

    def _decode(self, tokens: list[int]) -> str:
        """A greedy answer's text, up to its first special token (end of turn)."""
        special = set(getattr(self.lm.tokenizer, "all_special_ids", []) or [])
        end = next((index for index, token in enumerate(tokens) if token in special), len(tokens))
        return self.lm.tokenizer.decode(tokens[:end]).strip()


def llm_probe_defaults(source: str, trust_remote_code: bool = False) -> dict:
    """The probe's defaults for a causal LM: the masked mean of the layer at 2/3 of the depth
    (strong r there for SmolLM2 and Qwen: docs/environment.md), read from the model's config (its
    own config class only with ``trust_remote_code``: passed explicitly, so that transformers never
    asks on a terminal)."""
    from transformers import AutoConfig

    from eval_harness.models.causal_lm import default_probe_layer
    from eval_harness.models.loading import remote_code_refused
    from eval_harness.models.packaged import resolve_source

    try:
        config = AutoConfig.from_pretrained(
            resolve_source(source), trust_remote_code=bool(trust_remote_code)
        )
    except ValueError as error:  # a model type only its own code knows
        if trust_remote_code or "custom code" not in str(error):
            raise
        raise remote_code_refused(source) from None
    return {"pooling": "mean", "layer": default_probe_layer(config)}
