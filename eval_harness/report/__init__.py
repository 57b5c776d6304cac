"""Reports of a run folder: HTML / Markdown / CSV with the paper's tables and plots, and model-card metadata."""

from .build import FORMATS, ReportFiles, build_document, write_report
from .findings import adjust_p_values, annotate, flag_poor_regressors
from .run_folder import RunFolder, load_run

__all__ = [
    "FORMATS",
    "ReportFiles",
    "RunFolder",
    "adjust_p_values",
    "annotate",
    "build_document",
    "flag_poor_regressors",
    "load_run",
    "write_report",
]
