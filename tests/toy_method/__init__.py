"""A bias method that lives only in the tests: one folder (its suite, its record schema in
``records.py``, its report section in ``report.py``), registered by one line
(``register_suite("toy_method:SUITE")``), run through ``xbias run`` and ``xbias report`` like a
built-in one."""

from .suite import EMOTIONS, SUITE, ToySuite, register_toy_suite

__all__ = ["EMOTIONS", "SUITE", "ToySuite", "register_toy_suite"]
