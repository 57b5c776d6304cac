"""``xbias compare``: the bias of two models (two runs, or two models of one run) compared on the
same sentences.

It reads the runs' per-sentence (per-word) samples (:mod:`eval_harness.contract.samples`) and never
runs a model. For every EEC x emotion both measured, one joint fit with a model factor tests each
identity effect's difference B minus A (:mod:`.contrasts`); for every WEAT test, the difference of
effect sizes with paired swaps and a paired bootstrap over words. Several seeds are pooled as the
mean over seeds. The output goes into a folder of its own (:mod:`.output`); runs whose sentences or
words differ are refused (:class:`~.pairing.RunsDiffer`, one line, exit 2).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from pathlib import Path

from ..errors import InputError
from ..stats.equivalence import INTENSITY_WIDTH, check_margin
from ..stats.vectors import is_whole_number
from ..stats.weat import check_draw_counts
from ..suites.eec.paired.fit import check_cluster_by
from .contrasts import (
    CLUSTER_SOURCES,
    eec_differences,
    paired_samples,
    pooled_over_seeds,
    weat_difference,
)
from .output import ComparisonFiles, comparison_folder, write_comparison
from .pairing import RunsDiffer, Side, sides, unfinished_run, unit_pairs

__all__ = ["RunsDiffer", "compare_runs", "default_folder"]


def default_folder(a: Side, b: Side) -> Path:
    """``<A's run's parent>/compare-<model A>-vs-<model B>``: beside the runs, inside neither."""
    name = f"compare-{a.model}-vs-{b.model}".replace("/", "_")
    return a.run.resolve().parent / name


def _inside(folder: Path, run: Path) -> bool:
    folder, run = folder.resolve(), run.resolve()
    return folder == run or run in folder.parents


def compare_runs(
    run_a: str | Path,
    run_b: str | Path | None = None,
    *,
    model_a: str | None = None,
    model_b: str | None = None,
    out: str | Path | None = None,
    cov_type: str = "cluster",
    cluster_by: Sequence[str] = ("template_id",),
    n_bootstrap: int = 10_000,
    progress: Callable[[str], None] | None = None,
    equivalence_margin: float | None = None,
) -> ComparisonFiles:
    """Compare model B with model A (module docstring) and write the comparison's files.
    ``equivalence_margin``: a margin delta on the intensity scale: each EEC difference is also
    tested for equivalence within +-delta (TOST on its own standard error and df), the release-gate
    question "did B change no effect by more than delta?".

    Raises:
        InputError: bad runs, models, covariance options, or an output folder inside a run.
        RunsDiffer: the sides share no unit, or a shared unit scored other sentences (words).
    """
    check_cluster_by(cov_type, list(cluster_by), tuple(CLUSTER_SOURCES))
    if equivalence_margin is not None:
        check_margin(equivalence_margin, INTENSITY_WIDTH)
    if not is_whole_number(n_bootstrap) or n_bootstrap < 2:
        raise InputError(
            "--bootstrap takes a whole number of replicates, "
            f"at least 2 (default 10000); got {n_bootstrap}"
        )
    check_draw_counts({"--bootstrap": n_bootstrap})  # the one XBIAS_MAX_DRAWS rule
    a, b = sides(run_a, run_b, model_a, model_b)
    for run in dict.fromkeys((a.run, b.run)):
        if (note := unfinished_run(run)) is not None:
            warnings.warn(note, RuntimeWarning, stacklevel=2)
    folder = Path(out) if out is not None else default_folder(a, b)
    for side in (a, b):
        if _inside(folder, side.run):
            raise InputError(
                f"the comparison's folder {folder} is inside "
                f"the run {side.run}: give --out elsewhere"
            )
    folder = comparison_folder(
        folder
    )  # one line before any fit: a folder the comparison may not replace
    pairs = unit_pairs(a, b)
    samples = [paired_samples(pair, a, b) for pair in pairs]  # every pair checked before any fit
    records: list[dict] = []
    for number, (pair, paired) in enumerate(zip(pairs, samples, strict=True), 1):
        if progress is not None:
            progress(f"[{number}/{len(pairs)}] {pair.unit_a}")
        if pair.key["suite"] == "eec":
            records.extend(
                eec_differences(pair, a, b, paired, cov_type=cov_type, cluster_by=cluster_by)
            )
        else:
            records.append(weat_difference(pair, a, b, paired, n_bootstrap=n_bootstrap))
    return write_comparison(pooled_over_seeds(records), a, b, folder, equivalence_margin)
