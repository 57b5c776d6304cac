"""The emotion-intensity judge's definition, once for every runner that asks it: xbias's own judge
(:mod:`.prompt_judge`), the lm-evaluation-harness task pack (:mod:`eval_harness.lmeval.tasks`) and
the Inspect task pack (:mod:`eval_harness.inspect_pack`).

- **Prompts and paraphrases**: ``judge_prompts.yaml`` (read by :func:`.prompt_judge.judge_prompts`);
  the names of a language's prompts are :func:`prompt_names`, and the chat messages asked about a
  text are :func:`judge_messages` (a runner with a tokenizer renders them through its chat template:
  :func:`.prompt_judge.render_prompt`; a runner that talks to a model through messages, as Inspect
  does, sends them as they are).
- **Numerals**: the answer is read from the first token's distribution; the tokens that count for
  numeral ``n`` are its spellings :func:`numeral_spellings` (``"7"`` and ``" 7"``) that are single
  tokens. :func:`numeral_of_token` reads a token's text back (as providers spell them: ``" 7"``,
  ``"Ġ7"``, ``"▁7"``).
- **Scoring rule**: :func:`eval_harness.stats.judge.numeral_statistics` (the expected numeral on [0,
  1], the numeral mass, the arg-max numeral).
"""

from collections.abc import Mapping

DEFAULT_PROMPT = "default"
DEFAULT_SCALE = (0, 9)
TEXT_MARK = "@@xbias-text@@"
# How tokenizers spell a leading space in their vocabularies: byte-level BPE (GPT-2, SmolLM2, Llama
# 3, Qwen) and SentencePiece (Llama 2, Gemma, Mistral). Providers that return vocabulary pieces
# (Inspect's HF provider) show these; those that return decoded text (vLLM, OpenAI) show the space.
_SPACE_MARKS = ("Ġ", "▁")


def prompt_names(spec: Mapping) -> tuple[str, ...]:
    """The names of a language's prompt (:data:`DEFAULT_PROMPT`, first) and of its paraphrases."""
    return (DEFAULT_PROMPT, *(paraphrase["name"] for paraphrase in spec.get("paraphrases") or ()))


def judge_messages(spec: Mapping, dimension: str, low: int, high: int) -> tuple[str | None, str]:
    """``(system, user)``: the system message (None when the prompt has none) and the user message
    asking about :data:`TEXT_MARK` (the text's place), for the prompt ``spec`` (one language's, a
    paraphrase applied) and the ``dimension`` on the scale ``low..high``.

    Raises:
        InputError: the prompt has no question for ``dimension``, or its ``user`` does not hold
        ``{text}`` once.
    """
    from eval_harness.errors import InputError

    questions = spec.get("questions") or {}
    if dimension not in questions:
        raise InputError(
            f"the judge prompts have no question for {dimension!r} (have {sorted(questions)})"
        )
    scale = {"low": str(low), "high": str(high)}
    question = _fill(questions[dimension], scale)
    user = spec.get("user") or ""
    if user.count("{text}") != 1:
        raise InputError(f"a judge prompt's `user` must hold {{text}} exactly once, got {user!r}")
    return spec.get("system") or None, _fill(
        user, {**scale, "question": question, "text": TEXT_MARK}
    )


def _fill(template: str, values: Mapping[str, str]) -> str:
    """``template`` with each ``{name}`` of ``values`` replaced (other braces left alone)."""
    for name, value in values.items():
        template = template.replace("{" + name + "}", value)
    return template


def numeral_spellings(numeral: int) -> tuple[str, str]:
    """The texts of the tokens that count for ``numeral`` when they are single tokens: bare and
    after a space."""
    return str(numeral), f" {numeral}"


def token_spelling(token: str) -> str:
    """A token's text with its vocabulary's space mark (``"Ġ7"``, ``"▁7"``) read as the space it
    stands for."""
    for mark in _SPACE_MARKS:
        if token.startswith(mark):
            return " " + token[len(mark) :]
    return token


def numeral_of_token(token: str, low: int, high: int) -> int | None:
    """The numeral of ``low..high`` that ``token`` (a token's text or vocabulary piece) spells as
    one of :func:`numeral_spellings`; None for any other token."""
    spelling = token_spelling(token)
    bare = spelling[1:] if spelling.startswith(" ") else spelling
    if not (bare.isascii() and bare.isdigit()) or bare != str(int(bare)):
        return None
    return int(bare) if low <= int(bare) <= high else None
