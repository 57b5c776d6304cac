"""Which units of two runs (or two models of one run) are compared, and the check that they scored
the same things.

A side is a run folder and one of its models. Two units pair when their keys agree but for the model
(suite, language, dataset, config, emotion, test, seed) and both kept samples
(:mod:`eval_harness.contract.samples`). An ``eec`` pair must hold the same sentences (the same
``sentence_id`` with the same text, the same rows), an ``xweat`` pair the same words in each role of
its test; anything else is :class:`RunsDiffer`, naming the unit and what differs (another EEC
version, another sample, another word list).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..contract.samples import read_samples, samples_units
from ..errors import InputError, XBiasError, shown
from ..io import parse_json, read_json, read_text

# The suites whose samples `xbias compare` reads.
COMPARED_SUITES = ("eec", "xweat")
PAIR_KEY = ("suite", "language", "dataset", "config", "emotion", "test", "seed")


class RunsDiffer(XBiasError):
    """The two sides did not score the same sentences (words): their numbers cannot be compared
    pairwise."""


@dataclass(frozen=True)
class Side:
    """One side of a comparison: ``run`` (a run folder) and ``model`` (a model of that run);
    ``label`` says it in the output (the model's name, with the run's folder name when both sides
    have the same model name)."""

    run: Path
    model: str
    label: str


@dataclass(frozen=True)
class UnitPair:
    """Two units with the same key: ``key`` (:data:`PAIR_KEY` -> value), their ids, and the unit
    file's records of side A (the EEC's factor levels come from them)."""

    key: dict
    unit_a: str
    unit_b: str
    records_a: tuple[dict, ...]


def run_models(run: Path) -> list[str]:
    """The models of ``run`` with samples of a compared suite, in order of first unit."""
    models = {}
    for key in samples_units(run).values():
        if key.get("suite") in COMPARED_SUITES:
            models.setdefault(key["model"], None)
    return list(models)


def unfinished_run(run: Path) -> str | None:
    """What to say of ``run`` when its ``run.json`` does not say ``complete`` (interrupted, failed,
    running, or no readable run.json): its finished units are compared, and the others are missing
    from the comparison."""
    info = read_json(run / "run.json")
    status = info.get("status") if isinstance(info, dict) else None
    if status == "complete":
        return None
    said = (
        f"run.json says it is {shown(status)}"
        if status is not None
        else "it has no readable run.json"
    )
    return (
        f"{run} is not a complete run ({said}): only its finished units are "
        "compared; resume it with the same `xbias run` for a whole comparison"
    )


def sides(
    run_a: str | Path, run_b: str | Path | None, model_a: str | None, model_b: str | None
) -> tuple[Side, Side]:
    """The two sides: ``run_b`` None compares two models of ``run_a``. A model left out is the run's
    only model (of a run with two models and no choice: the first and the second).

    Raises:
        InputError: a folder that is no run with samples, a model the run does not have, or one side
        twice.
    """
    run_a = Path(run_a)
    run_b = run_a if run_b is None else Path(run_b)
    found = {}
    for run in dict.fromkeys((run_a, run_b)):
        if not (run / "units").is_dir():
            raise InputError(
                f"{run} is not a run folder (no units/): give the --out of an `xbias run`"
            )
        found[run] = run_models(run)
        if not found[run]:
            raise InputError(f"{run} has no eec or xweat unit with per-sentence samples to compare")
    if run_a == run_b and (model_a is None or model_b is None):
        rest = [m for m in found[run_a] if m not in (model_a, model_b)]
        if len(rest) < (model_a is None) + (model_b is None):
            raise InputError(
                f"{run_a} has the models {found[run_a]}: compare "
                "two of them (--model-a, --model-b) or two runs"
            )
        model_a = model_a or rest.pop(0)
        model_b = model_b or rest.pop(0)
    chosen = []
    for run, model, flag in ((run_a, model_a, "--model-a"), (run_b, model_b, "--model-b")):
        if model is None:
            if len(found[run]) != 1:
                raise InputError(f"{run} has the models {found[run]}: pick one with {flag}")
            model = found[run][0]
        if model not in found[run]:
            raise InputError(f"{run} has no model {model!r} with samples; it has {found[run]}")
        chosen.append((run, model))
    (run_a, model_a), (run_b, model_b) = chosen
    if (run_a.resolve(), model_a) == (run_b.resolve(), model_b):
        raise InputError(
            f"both sides are model {model_a!r} of {run_a}: compare two models or two runs"
        )
    same_name = model_a == model_b
    return (
        Side(run_a, model_a, f"{model_a} ({run_a.name})" if same_name else model_a),
        Side(run_b, model_b, f"{model_b} ({run_b.name})" if same_name else model_b),
    )


def _keys(side: Side) -> dict[tuple, str]:
    return {
        tuple(key.get(name) for name in PAIR_KEY): unit_id
        for unit_id, key in samples_units(side.run).items()
        if key.get("model") == side.model and key.get("suite") in COMPARED_SUITES
    }


def _records(run: Path, unit_id: str) -> tuple[dict, ...]:
    return tuple(parse_json(read_text(run / "units" / f"{unit_id}.json"))["records"])


def unit_pairs(a: Side, b: Side) -> list[UnitPair]:
    """Every unit both sides measured, in key order.

    Raises:
        RunsDiffer: the sides share no unit (naming what each measured).
    """
    keys_a, keys_b = _keys(a), _keys(b)
    shared = sorted(set(keys_a) & set(keys_b), key=lambda key: tuple(map(str, key)))
    if not shared:
        raise RunsDiffer(
            f"{a.label} and {b.label} measured no unit alike: A has "
            f"{describe_keys(keys_a)}, B {describe_keys(keys_b)}"
        )
    return [
        UnitPair(
            dict(zip(PAIR_KEY, key, strict=True)),
            keys_a[key],
            keys_b[key],
            _records(a.run, keys_a[key]),
        )
        for key in shared
    ]


def describe_keys(keys) -> str:
    """``eec en_arab_anglo anger seed 0, ...`` (the first three)."""
    words = sorted(" ".join(str(part) for part in key if part not in (None, "")) for key in keys)
    return (
        ", ".join(words[:3]) + (f" and {len(words) - 3} more" if len(words) > 3 else "")
        if words
        else "nothing"
    )


def unit_words(pair: UnitPair) -> str:
    """``eec en_arab_anglo anger (en, seed 0)``, ``xweat T1 (en-de, seed 0)``."""
    key = pair.key
    what = [key["suite"], key["config"] if key["suite"] == "eec" else key["test"], key["emotion"]]
    return (
        " ".join(str(part) for part in what if part) + f" ({key['language']}, seed {key['seed']})"
    )


def paired_sentences(pair: UnitPair, a: Side, b: Side) -> pd.DataFrame:
    """The eec samples of both sides on the same sentences: side A's rows (in ``sentence_id`` order)
    with ``score_a`` and ``score_b``.

    Raises:
        RunsDiffer: other sentence ids, another text for an id (another EEC version), or rows scored
        twice.
    """
    first, second = read_samples(a.run, pair.unit_a), read_samples(b.run, pair.unit_b)
    where = f"{unit_words(pair)}: {a.label} and {b.label}"
    ids_a, ids_b = set(first["sentence_id"]), set(second["sentence_id"])
    if ids_a != ids_b or len(first) != len(second):
        only_a, only_b = len(ids_a - ids_b), len(ids_b - ids_a)
        raise RunsDiffer(
            f"{where} scored different sentences: {len(first)} and {len(second)} "
            f"rows, {only_a} only in A and {only_b} only in B (another sample or "
            "another EEC version); compare runs of the same sentences"
        )
    first, second = first.sort_values("sentence_id"), second.sort_values("sentence_id")
    texts = first["sentence"].to_numpy() != second["sentence"].to_numpy()
    if texts.any():
        index = int(texts.argmax())
        raise RunsDiffer(
            f"{where} scored another text for sentence "
            f"{int(first['sentence_id'].iloc[index])}: {first['sentence'].iloc[index]!r} "
            f"vs {second['sentence'].iloc[index]!r} (another EEC version)"
        )
    rows = first.reset_index(drop=True).rename(columns={"score": "score_a"})
    rows["score_b"] = second["score"].to_numpy()
    return rows


def paired_words(pair: UnitPair, a: Side, b: Side) -> dict[str, pd.DataFrame]:
    """The xweat samples of both sides, per target role (``X``, ``Y``): the words both found, with
    ``association_a`` and ``association_b``.

    Raises:
        RunsDiffer: another word list in some role.
    """
    first, second = read_samples(a.run, pair.unit_a), read_samples(b.run, pair.unit_b)
    for role in ("X", "Y", "A", "B"):
        words_a = first.loc[first["role"] == role, "word"].tolist()
        words_b = second.loc[second["role"] == role, "word"].tolist()
        if words_a != words_b:
            differ = sorted(set(words_a) ^ set(words_b))[:3]
            raise RunsDiffer(
                f"{unit_words(pair)}: {a.label} and {b.label} used other "
                f"words in {role} ({len(words_a)} and {len(words_b)} words; "
                f"e.g. {differ or 'another order'}): another word list"
            )
    paired = {}
    for role in ("X", "Y"):
        left = first[first["role"] == role].reset_index(drop=True)
        right = second[second["role"] == role].reset_index(drop=True)
        both = left["association"].notna().to_numpy() & right["association"].notna().to_numpy()
        paired[role] = pd.DataFrame(
            {
                "word": left.loc[both, "word"].to_numpy(),
                "association_a": left.loc[both, "association"].to_numpy(),
                "association_b": right.loc[both, "association"].to_numpy(),
            }
        )
    return paired
