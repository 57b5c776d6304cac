"""A toy suite for the harness tests: cheap, deterministic, and able to interrupt itself.

Each (model, language) has ``n_configs`` x ``emotions`` units. ``prepare`` shards the
task's "texts" over ranks with ``ctx.dist.map`` (as a real suite shards encoding), and
``evaluate`` draws from the unit's own generator, so a unit's numbers depend only on its
identity and seed: whichever rank runs it, in whatever order, after whatever interruption.

``ToySuite.calls`` counts evaluations (to prove that resumed units are not recomputed);
``ToySuite.interrupt_after`` raises KeyboardInterrupt (as Ctrl-C would) once that many units
have been evaluated in this process. With ``$TOY_SUITE_LOG`` set to a folder, each evaluation
also leaves a file ``<rank>__<unit id>`` there (to see which rank ran what).
"""

import os
from pathlib import Path

import numpy as np

from eval_harness.contract import Suite, UnitKey, unit_rng
from eval_harness.errors import InputError
from eval_harness.suites import register_suite

from .records import TOY_RECORDS

EMOTIONS = ("anger", "fear", "joy", "sadness")


class ToySuite(Suite):
    name = "toy"
    description = "a toy suite for the harness tests"
    languages = ("en", "es", "ar")
    model_types = ("encoder", "static_mlp", "svm_tfidf")
    options = {"n_configs": 2, "fail_unit": ""}
    records = TOY_RECORDS
    report_section = "toy_method.report:SECTION"

    def __init__(self):
        self.calls = 0
        self.interrupt_after: int | None = None

    def plan(self, model, language, options):
        return [
            UnitKey(dataset="toy", config=f"{language}_c{index}", emotion=emotion)
            for index in range(options["n_configs"])
            for emotion in EMOTIONS
        ]

    def prepare(self, task, ctx):
        texts = [f"{task.model.name} {task.language} text {i}" for i in range(37)]
        lengths = ctx.dist.map(
            lambda chunk: np.array([len(t) for t in chunk], dtype=np.int64), texts, chunk_size=8
        )
        return {
            "total_length": int(lengths.sum()),
            "n_texts": len(lengths),
            "fail_unit": task.options["fail_unit"],
        }

    def evaluate(self, unit, prepared, ctx):
        if self.interrupt_after is not None and self.calls >= self.interrupt_after:
            raise KeyboardInterrupt
        if unit.id == prepared["fail_unit"]:
            raise InputError(f"planted failure in {unit.id}")
        self.calls += 1
        if os.environ.get("TOY_SUITE_LOG"):
            (Path(os.environ["TOY_SUITE_LOG"]) / f"{ctx.dist.rank}__{unit.id}").touch()
        rng = unit_rng(unit.seed, unit.id)
        estimate, std_err = rng.normal(), 0.1 + rng.uniform()
        return [
            {
                "term": "minority",
                "metric": "estimate",
                "value": estimate,
                "std_err": std_err,
                "p_value": float(rng.uniform() ** 4),
                "n": prepared["n_texts"],
            },
            {"metric": "total_length", "value": prepared["total_length"]},
        ]


SUITE = ToySuite()


def register_toy_suite() -> ToySuite:
    """Register a fresh ToySuite (replacing an earlier one) and return it."""
    return register_suite(ToySuite(), replace=True)
