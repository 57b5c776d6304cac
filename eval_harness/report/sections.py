"""How the report finds the methods' sections (:class:`~.method_section.ReportSection`): part of its
assembly, which knows no method's records.

The report reaches sections only through registries, never by import (docs/architecture.md):
:func:`report_sections` gives the section each registered suite names (``Suite.report_section``, a
lazy ``"module:object"`` reference), and :data:`SECTIONS` holds sections registered on their own
(:func:`register_section`, or an entry point in the ``xbias.report_sections`` group): a section
shows the records of its ``suite``, and one registered under a suite's name takes the place of the
suite's own. A suite without a section has its records shown in the generic "Other results" table.
The assembly hands what :func:`report_sections` finds to the building blocks as an argument
(``ReportSettings.sections``).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping

from ..errors import ConfigError, InputError
from ..registry import Registry, resolve
from ..suites import SUITES, get_suite
from .kit.method_section import KnownSections, ReportSection, ReportSettings

ENTRY_POINT_GROUP = "xbias.report_sections"
SECTIONS = Registry("report section", entry_point_group=ENTRY_POINT_GROUP)


def report_sections() -> KnownSections:
    """The section of every registered suite (built in, registered, plug-ins) and every section of
    :data:`SECTIONS`, which replaces a suite's own under its name (module docstring). Worked out
    again only when a registry has changed.

    Raises:
        ConfigError: a registered suite or section does not import.
    """
    registered = tuple((name, _identity(SUITES.reference(name))) for name in SUITES.names())
    own = tuple((name, _identity(SECTIONS.reference(name))) for name in SECTIONS.names())
    if _known.get("key") != (registered, own):
        declared: dict[str, ReportSection] = {}
        for name in SUITES.names():
            reference = get_suite(name).report_section
            if reference is not None:
                declared[name] = _bound(_resolved(name, reference), name)
        declared.update({name: _bound(SECTIONS.get(name), name) for name in SECTIONS.names()})
        ordered = sorted(declared.values(), key=lambda section: (section.order, section.suite))
        _known.update(
            key=(registered, own),
            sections=KnownSections(tuple(ordered), {s.suite: s for s in ordered}),
        )
    return _known["sections"]


_known: dict = {}


def _bound(section: ReportSection, suite: str) -> ReportSection:
    """``section`` showing the records of the suite registered as ``suite`` (a suite's records carry
    the name it is registered under, which a plug-in's section cannot know)."""
    if section.suite == suite:
        return section
    bound = copy.copy(section)
    bound.suite = suite
    return bound


def _identity(entry) -> object:
    return entry if isinstance(entry, str) else id(entry)


def _resolved(suite: str, reference) -> ReportSection:
    if not isinstance(reference, str):
        return reference
    try:
        return resolve(reference)
    except (ImportError, AttributeError) as error:
        raise ConfigError(
            f"suite {suite!r}: its report section {reference!r} does not import ({error})"
        ) from None


def report_options(options: Mapping[str, float] | None) -> dict[str, float]:
    """The reader's report ``options`` (name -> a finite number), checked against what the known
    sections read (:attr:`~.method_section.ReportSection.options`).

    Raises:
        InputError: an option no section reads, or a value that is no finite number: one line.
    """
    defaults = {
        name: value
        for section in report_sections().sections
        for name, value in section.options.items()
    }
    for name, value in (options or {}).items():
        if name not in defaults:
            known = ", ".join(sorted(defaults)) or "none"
            raise InputError(f"unknown report option {name!r}; the report's sections read: {known}")
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
        ):
            raise InputError(
                f"report option {name!r} takes a finite number "
                f"(default {defaults[name]}); got {value!r}"
            )
    return dict(options or {})


def report_settings(
    alpha: float, family: str, options: Mapping[str, float] | None = None
) -> ReportSettings:
    """The settings every section is handed: the reader's ``alpha``, ``family`` and report
    ``options`` (checked: :func:`report_options`) and every known section (:func:`report_sections`),
    which the kit's tables read.

    Raises:
        InputError: as :func:`report_options`.
    """
    return ReportSettings(alpha, family, report_options(options), report_sections())


def register_section(section: ReportSection | str, name: str | None = None, replace: bool = False):
    """Register a report section (an instance or a ``"module:object"`` reference) under ``name``
    (default: the instance's ``suite``). Returns what was registered.

    Raises:
        ConfigError: no name, a malformed reference, or the name is taken and ``replace`` is not
        set.
    """
    name = name or (None if isinstance(section, str) else section.suite)
    return SECTIONS.register(name, section, replace=replace)


def unregister_section(name: str) -> None:
    SECTIONS.unregister(name)
