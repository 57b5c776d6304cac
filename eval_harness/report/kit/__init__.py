"""The report's kit: the building blocks a method's section is made of, which know no method and
nothing of the report's assembly (docs/architecture.md).

:mod:`.document` (the document model and its HTML, Markdown and CSV), :mod:`.tables` (formats, marks
and the tables no method owns), :mod:`.plots` (figures), :mod:`.families` (alpha and the
multiple-testing families) and :mod:`.method_section` (:class:`~.method_section.ReportSection`, its
flags and options, and the settings a section is handed). What every known section declares reaches
the kit as an argument (:class:`~.method_section.KnownSections`, carried by
:class:`~.method_section.ReportSettings`), never through state an import sets, so a table is the
same whatever was imported first.
"""
