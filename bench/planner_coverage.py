"""The power planner's 80 % interval in simulation (issue 46; docs/conventions.md, "The power
planner"): how often the interval it prints for the whole EEC's MDE holds the true one, its median
predicted over true MDE, and the mean sigma2_TN and sigma2_T it estimates, reading a whole EEC or a
``sample: 4`` run of it.

Designs: the shipped EECs' layout (7 templates, 10 names x 5 words per identity cell), sigma2_TN =
1e-4,
sigma2_E = 6e-4, names' and words' variances 4e-4 and 2.25e-4, with sigma2_T template-dominated
(7.2e-5) or noise-dominated (8e-6); and a 3 x 3 identity design (3 names x 3 words per cell, the
same variances). The simulation is tests/helpers/planner_simulation.py's
(tests/stats/test_planner_coverage.py checks the issue's bars).

Run: ``.venv/bin/python bench/planner_coverage.py [--replicates 1000]`` (about 30 s of CPU; prints a
markdown table; asserts nothing). For the numbers before the fix, run it with ``PYTHONPATH`` on a
checkout of the earlier
code (bf516ec): it falls back to one additive fit per replicate there (minutes).
"""

import argparse
import sys
import time
from pathlib import Path

from eval_harness.thread_policy import apply_thread_policy

apply_thread_policy()  # before numpy loads its BLAS, as every bench does

import numpy as np

sys.path.insert(
    0, str(Path(__file__).resolve().parents[1] / "tests")
)  # the simulation the tests use

from helpers.planner_simulation import Truth, predictions  # noqa: E402

NAME_TEMPLATE_VAR, ERROR_VAR, NAME_VAR, WORD_VAR = 1e-4, 6e-4, 4e-4, 2.25e-4
DESIGNS = {
    "template-dominated": Truth(7.2e-5, NAME_TEMPLATE_VAR, ERROR_VAR, NAME_VAR, WORD_VAR),
    "noise-dominated": Truth(8e-6, NAME_TEMPLATE_VAR, ERROR_VAR, NAME_VAR, WORD_VAR),
    "3 x 3 identity, template-dominated": Truth(
        7.2e-5, NAME_TEMPLATE_VAR, ERROR_VAR, NAME_VAR, WORD_VAR, 3, 3
    ),
    "3 x 3 identity, noise-dominated": Truth(
        8e-6, NAME_TEMPLATE_VAR, ERROR_VAR, NAME_VAR, WORD_VAR, 3, 3
    ),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--replicates", type=int, default=1000, help="replicates per row (a multiple of 20)"
    )
    args = parser.parse_args()
    import eval_harness

    print(
        f"eval_harness from {Path(eval_harness.__file__).parent}; "
        f"{args.replicates} replicates per row\n"
    )
    print(
        "| design the planner reads | true σ²_T | true whole-EEC MDE in the "
        "80% interval | predicted / true MDE (median) | σ²_TN estimated "
        "(true 1.0e-4; measured in) | σ²_T estimated (mean) | CPU s |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, truth in DESIGNS.items():
        for layout, per_cell in (("whole EEC", None), ("`sample: 4`", 4)):
            start = time.process_time()
            found = predictions(truth, args.replicates, per_cell, seed=1)
            measured = found.name_template_var[~np.isnan(found.name_template_var)]
            name_var = (
                f"{measured.mean():.1e} ({len(measured) / args.replicates:.0%})"
                if len(measured)
                else "none"
            )
            print(
                f"| {layout}, {name} | {truth.template_var:.1e} | {found.covered.mean():.3f} | "
                f"{np.median(found.ratio):.2f} | {name_var} | {found.template_var.mean():.1e} | "
                f"{time.process_time() - start:.0f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
