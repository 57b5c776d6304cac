"""The sweep harness: configs, unit planning, accelerate sharding, the run folder, resume.

>>> from eval_harness.runner import load_config, run_sweep
>>> summary = run_sweep(load_config("configs/demo.yaml"), "runs/demo")   # doctest: +SKIP
>>> print(summary.summary())                                              # doctest: +SKIP
"""

from .config import MODEL_TYPES, ModelSpec, RunConfig, SuiteSpec, load_config, parse_config
from .context import RunContext, unit_rng
from .distributed import Distributed
from .plan import Plan, plan_units
from .store import RECORD_FIELDS, RunStore
from .sweep import RunSummary, run_sweep, summary_table

__all__ = [
    "MODEL_TYPES",
    "RECORD_FIELDS",
    "Distributed",
    "ModelSpec",
    "Plan",
    "RunConfig",
    "RunContext",
    "RunStore",
    "RunSummary",
    "SuiteSpec",
    "load_config",
    "parse_config",
    "plan_units",
    "run_sweep",
    "summary_table",
    "unit_rng",
]
