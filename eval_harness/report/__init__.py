"""Reports of a run folder: HTML / Markdown / CSV with the methods' tables and plots, and model-card
metadata.

The report is two packages (docs/architecture.md). Its kit, the building blocks a method's section
uses, which import nothing of the rest: :mod:`.kit` (``document``, ``tables``, ``plots``,
``families``, ``method_section``). Its assembly, beside the kit in this package, which finds the
sections the methods own (``suites/<method>/report.py``) through the registries of :mod:`.sections`
and puts them around what every run
has (an overview, the findings after multiple-testing control, the records no section shows):
:mod:`.build`, :mod:`.findings`, :mod:`.model_card` and the rest. The names below are imported on
first use (PEP 562), so that importing a building block loads no assembly and no suite.
"""

from ..lazy import lazy_exports

# name -> the submodule that defines it (imported on first use)
_EXPORTS = {
    "FORMATS": "build",
    "ReportFiles": "build",
    "build_document": "build",
    "write_report": "build",
    "adjust_p_values": "findings",
    "annotate": "findings",
    "RunFolder": "run_folder",
    "load_run": "run_folder",
    "ReportSection": "kit.method_section",
    "register_section": "sections",
    "unregister_section": "sections",
}
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
__getattr__ = lazy_exports(__name__, _EXPORTS)
