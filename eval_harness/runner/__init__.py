"""The sweep harness and its plug-in contract.

- :mod:`~eval_harness.runner.suite`: the contract a bias method implements (``Suite``, ``Unit``, ``Task``,
  the model provider and context protocols) and the suite registry — the only module a suite imports;
- :mod:`~eval_harness.runner.config`: sweep configs; :mod:`~eval_harness.runner.plan`: units;
- :mod:`~eval_harness.runner.sweep`: running them, sharded over accelerate ranks
  (:mod:`~eval_harness.runner.distributed`), with the run's models (:mod:`~eval_harness.runner.provider`);
- :mod:`~eval_harness.runner.store`: the run folder; :mod:`~eval_harness.runner.records`: the long format.

>>> from eval_harness.runner import load_config, run_sweep
>>> summary = run_sweep(load_config("configs/demo.yaml"), "runs/demo")   # doctest: +SKIP
>>> print(summary.summary())                                              # doctest: +SKIP
"""

from .config import ModelSpec, RunConfig, SuiteSpec, load_config, parse_config
from .context import RunContext
from .distributed import Distributed
from .plan import Plan, plan_units
from .records import RECORD_FIELDS, make_record
from .store import RunStore
from .suite import Suite, Task, Unit, UnitKey, get_suite, register_suite, suite_names, unit_rng, unregister_suite
from .sweep import RunSummary, run_sweep, summary_table

__all__ = [
    "RECORD_FIELDS",
    "Distributed",
    "ModelSpec",
    "Plan",
    "RunConfig",
    "RunContext",
    "RunStore",
    "RunSummary",
    "Suite",
    "SuiteSpec",
    "Task",
    "Unit",
    "UnitKey",
    "get_suite",
    "load_config",
    "make_record",
    "parse_config",
    "plan_units",
    "register_suite",
    "run_sweep",
    "suite_names",
    "summary_table",
    "unit_rng",
    "unregister_suite",
]
