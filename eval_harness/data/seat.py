"""SEAT's semantically bleached sentence templates (May et al. 2019), as data, and the loader for a
language.

SEAT is WEAT over *sentence* vectors: every word of a test is placed in short templates ("This is a
flower.", "Katie is here.") and the sentence encoder's vectors of those sentences are the test's
rows. The English templates are in ``seat_templates.yaml`` beside this module (with their
provenance); templates for any other language come from the user — asking for a language without
templates is an error that says how to give them, never a silent machine translation.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

import yaml

from eval_harness.errors import ConfigError, InputError, unreadable_file
from eval_harness.io import load_yaml, parse_json, read_text

TEMPLATES_FILE = Path(__file__).resolve().parent / "seat_templates.yaml"
PLACEHOLDER = "{word}"
ARTICLE = "{a}"
USER_KIND = "default"


@dataclass(frozen=True)
class SeatTemplates:
    """The SEAT templates of one language.

    Attributes:
        language: the language code (or ``"user"`` for templates given without one).
        templates: word kind -> templates (read-only); each holds ``{word}`` once, English ones may
        hold ``{a}``.
        default_kind: the kind used for a word whose kind is not given.
        capitalize_first: upper-case the first letter of every sentence.
        article: ``{"before_vowel", "otherwise", "vowels"}`` for ``{a}``, or ``None``.
        source: where the templates come from.
    """

    language: str
    templates: Mapping[str, tuple[str, ...]]
    default_kind: str
    capitalize_first: bool
    article: Mapping[str, str] | None
    source: str

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(self.templates)

    def kind_of(self, word: str) -> str:
        """``"name"`` for a capitalised word (not all capitals) when there are name templates, else
        the default."""
        if "name" in self.templates and word[:1].isupper() and not word.isupper():
            return "name"
        return self.default_kind

    def sentences(self, word: str, kind: str | None = None) -> tuple[str, ...]:
        """``word`` placed in every template of ``kind`` (default: :meth:`kind_of`)."""
        if not isinstance(word, str) or not word.strip():
            raise InputError(f"a SEAT word must be a non-empty string; got {word!r}")
        kind = self.kind_of(word) if kind is None else kind
        if kind not in self.templates:
            raise InputError(
                f"no {self.language!r} SEAT templates of kind "
                f"{kind!r}; kinds: {list(self.templates)}"
            )
        return tuple(self._fill(template, word) for template in self.templates[kind])

    def _fill(self, template: str, word: str) -> str:
        sentence = template.replace(PLACEHOLDER, word)
        if ARTICLE in sentence:
            rule = self.article
            article = rule["before_vowel"] if word[:1] in rule["vowels"] else rule["otherwise"]
            sentence = sentence.replace(ARTICLE, article)
        return sentence[:1].upper() + sentence[1:] if self.capitalize_first else sentence


def seat_languages() -> tuple[str, ...]:
    """The languages with packaged SEAT templates."""
    return tuple(_read_packaged())


def load_seat_templates(
    language: str = "en",
    templates: Sequence[str] | Mapping[str, Sequence[str]] | str | Path | None = None,
) -> SeatTemplates:
    """The SEAT templates of ``language``: the packaged ones, or the user's ``templates``.

    Args:
        language: language code; its packaged templates are used when ``templates`` is None.
        templates: the user's templates, which take precedence: a list (one kind, ``"default"``, for
            every word), a mapping ``kind -> list``, or the path of a YAML/JSON file holding either
            (or the layout of the packaged file, ``languages: {code: {templates: ...}}``, from which
            ``language`` is taken). A word whose kind is not given is a ``"name"`` when capitalised
            (if there are name templates), else of the first other kind.
            Each template holds ``{word}`` exactly once; ``{a}`` is only for the packaged English
            article rule.
    """
    if templates is None:
        packaged = _read_packaged()
        if language not in packaged:
            raise ConfigError(
                f"no SEAT templates for language {language!r} (packaged: "
                f"{sorted(packaged)}). SEAT templates are never machine-translated: "
                "write short, semantically bleached sentences in that language, each "
                "holding {word} once (e.g. German 'Das ist {word}.', '{word} ist "
                "hier.'), and pass them as templates=[...] (or {kind: [...]}, or the "
                f"path of a YAML/JSON file in the layout of {TEMPLATES_FILE.name})"
            )
        entry = packaged[language]
        return _build(
            language, entry["templates"], entry, source=f"packaged ({TEMPLATES_FILE.name})"
        )
    source = "user"
    if isinstance(templates, str | Path) and not (
        isinstance(templates, str) and PLACEHOLDER in templates
    ):
        path = Path(templates)
        if not path.is_file():
            raise ConfigError(f"SEAT templates file {str(path)!r} does not exist")
        templates, source = _read_file(path), f"user file {path}"
        if isinstance(templates, Mapping) and "languages" in templates:
            languages = templates["languages"] or {}
            if not isinstance(languages, Mapping) or language not in languages:
                raise ConfigError(f"{path} has no templates for language {language!r}")
            entry = languages[language]
            if not isinstance(entry, Mapping):
                raise ConfigError(
                    f"{path}: languages.{language} must be a mapping with `templates`"
                )
            return _build(language, entry.get("templates"), entry, source=source, file=path)
        if isinstance(templates, str):
            raise ConfigError(
                f"{path} holds no SEAT templates (one piece of text, not a list "
                f"or a mapping kind -> list of sentences holding {PLACEHOLDER})"
            )
        return _build(language, *_user_templates(templates), source=source, file=path)
    if isinstance(templates, str):
        templates = [templates]
    return _build(language, *_user_templates(templates), source=source)


def _user_templates(templates) -> tuple[object, dict]:
    """The user's templates as ``kind -> list`` (a list is one kind, ``"default"``) and their
    settings: a word of no given kind that is not a name takes the first kind other than
    ``"name"``."""
    if not isinstance(templates, Mapping):
        templates = {USER_KIND: templates}
    default_kind = next(
        (kind for kind in templates if kind != "name"), next(iter(templates), USER_KIND)
    )
    return templates, {"default_kind": default_kind}


def _build(
    language: str, templates, settings: Mapping, source: str, file: Path | None = None
) -> SeatTemplates:
    """Checked templates. ``file``: where they were read from; an error then names the file and the
    positions of what is wrong, never its content (a file named by mistake may hold anything)."""
    where = f"{file}: " if file is not None else ""
    if not isinstance(templates, Mapping) or not templates or not isinstance(settings, Mapping):
        raise InputError(
            f"{where}SEAT templates must be a non-empty list or a mapping kind -> non-empty list"
        )
    article = settings.get("article")
    checked = {}
    for position, (kind, entries) in enumerate(templates.items(), start=1):
        named = f"kind {kind!r}" if file is None else f"the kind at position {position}"
        entries = (
            [entries]
            if isinstance(entries, str)
            else list(entries)
            if isinstance(entries, list | tuple)
            else []
        )
        bad = [
            i
            for i, t in enumerate(entries, start=1)
            if not isinstance(t, str) or t.count(PLACEHOLDER) != 1
        ]
        if not entries or bad:
            shown = [entries[i - 1] for i in bad] if file is None else f"template(s) {bad}"
            raise InputError(
                f"{where}SEAT templates of {named}: every template must hold "
                f"{PLACEHOLDER!r} exactly once; bad: {shown or 'none given'}"
            )
        if article is None and any(ARTICLE in t for t in entries):
            raise InputError(
                f"{where}SEAT templates of {named} use {ARTICLE!r} but no article rule is given"
            )
        checked[str(kind)] = tuple(entries)
    default_kind = settings.get("default_kind", next(iter(checked)))
    if default_kind not in checked:
        named = repr(default_kind) if file is None else "given"
        raise InputError(f"{where}default_kind {named} is not one of the template kinds")
    return SeatTemplates(
        language=language,
        templates=MappingProxyType(checked),
        default_kind=default_kind,
        capitalize_first=bool(settings.get("capitalize_first", False)),
        article=MappingProxyType(dict(article)) if article else None,
        source=source,
    )


def _read_packaged() -> dict:
    return yaml.safe_load(TEMPLATES_FILE.read_text(encoding="utf-8"))["languages"]


def _read_file(path: Path):
    try:
        text = read_text(path)
        return parse_json(text) if path.suffix == ".json" else load_yaml(text)
    except (OSError, ValueError, yaml.YAMLError) as error:
        raise ConfigError(unreadable_file(path, error, "SEAT templates file")) from None
