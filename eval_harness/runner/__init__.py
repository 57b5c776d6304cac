"""The sweep harness: configs, plans, running units sharded over accelerate ranks, the run folder.

- :mod:`~eval_harness.runner.config`: sweep configs; :mod:`~eval_harness.runner.plan`: units;
- :mod:`~eval_harness.runner.sweep`: running them, sharded over accelerate ranks
  (:mod:`~eval_harness.runner.distributed`), with the run's models
  (:mod:`~eval_harness.runner.provider`);
- :mod:`~eval_harness.runner.store`: the run folder.

The contract a method implements is not here but in :mod:`eval_harness.contract` (``Suite``,
``Unit``, ``Task``, the record format) and the suite registry in :mod:`eval_harness.suites`; both
are re-exported.
The harness's own names are imported on first use (PEP 562), so ``from eval_harness.runner import
load_config`` loads neither the sweep nor a model library.

>>> from eval_harness.runner import load_config, run_sweep
>>> summary = run_sweep(load_config("configs/demo.yaml"), "runs/demo")   # doctest: +SKIP
>>> print(summary.summary())                                              # doctest: +SKIP
"""

from ..contract import RECORD_FIELDS, Suite, Task, Unit, UnitKey, make_record, unit_rng
from ..lazy import lazy_exports
from ..suites import get_suite, register_suite, suite_names, unregister_suite

# name -> the submodule that defines it (imported on first use)
_EXPORTS = {
    "ModelSpec": "config",
    "RunConfig": "config",
    "SuiteSpec": "config",
    "load_config": "config",
    "parse_config": "config",
    "read_config": "config",
    "RunContext": "context",
    "Distributed": "distributed",
    "Plan": "plan",
    "plan_units": "plan",
    "RunStore": "store",
    "RunSummary": "sweep",
    "run_sweep": "sweep",
    "summary_table": "sweep",
}
__all__ = [
    "Distributed",
    "ModelSpec",
    "Plan",
    "RECORD_FIELDS",
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
    "read_config",
    "register_suite",
    "run_sweep",
    "suite_names",
    "summary_table",
    "unit_rng",
    "unregister_suite",
]
__getattr__ = lazy_exports(__name__, _EXPORTS)
