"""Reports of a run folder: HTML / Markdown / CSV with the methods' tables and plots, and model-card metadata.

The report assembles the sections the methods own (``suites/<method>/report.py``, found through the registries of
:mod:`.sections`) around what every run has: an overview, the findings after multiple-testing control and the
records no section shows. :mod:`.document`, :mod:`.tables`, :mod:`.plots` and :mod:`.sections` are the building
blocks a method's section uses.
"""

from .build import FORMATS, ReportFiles, build_document, write_report
from .findings import adjust_p_values, annotate
from .run_folder import RunFolder, load_run
from .sections import ReportSection, register_section, unregister_section

__all__ = [
    "FORMATS",
    "ReportFiles",
    "ReportSection",
    "RunFolder",
    "adjust_p_values",
    "annotate",
    "build_document",
    "load_run",
    "register_section",
    "unregister_section",
    "write_report",
]
