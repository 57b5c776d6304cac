"""Short neutral templates for word vectors from a contextual encoder (SEAT style, May et al. 2019).

A template holds ``{word}`` exactly once; the word's vector is pooled over the word's own
subword tokens inside the template and averaged over the templates of the word's language.
The sentences are semantically bleached ("This is X.") so that the context adds as little
meaning as possible. Pass ``templates=[...]`` to use others.
"""

from collections.abc import Sequence

from eval_harness.errors import InputError

PLACEHOLDER = "{word}"

DEFAULT_TEMPLATES: dict[str, tuple[str, ...]] = {
    "en": (
        "This is {word}.",
        "That is {word}.",
        "There is {word}.",
        "Here is {word}.",
        "{word} is here.",
    ),
    "de": (
        "Das ist {word}.",
        "Dies ist {word}.",
        "Da ist {word}.",
        "Hier ist {word}.",
        "{word} ist hier.",
    ),
    "es": (
        "Esto es {word}.",
        "Eso es {word}.",
        "Ahí está {word}.",
        "Aquí está {word}.",
        "{word} está aquí.",
    ),
    "it": (
        "Questo è {word}.",
        "Quello è {word}.",
        "Ecco {word}.",
        "Qui c'è {word}.",
        "{word} è qui.",
    ),
    "hr": (
        "Ovo je {word}.",
        "To je {word}.",
        "Tamo je {word}.",
        "Ovdje je {word}.",
        "{word} je ovdje.",
    ),
    "ru": ("Это {word}.", "Вот {word}.", "Там {word}.", "Здесь {word}.", "{word} здесь."),
    "tr": ("Bu {word}.", "Şu {word}.", "İşte {word}.", "Burada {word} var.", "{word} burada."),
    "ar": ("هذا {word}.", "هذه {word}.", "هنا {word}.", "ذلك {word}.", "{word} هنا."),
}


def templates_for(language: str | None, templates: Sequence[str] | None = None) -> tuple[str, ...]:
    """The templates to use: ``templates`` if given (validated), else the defaults of ``language``
    (None: English)."""
    if templates is None:
        language = language or "en"
        if language not in DEFAULT_TEMPLATES:
            raise InputError(
                f"no default templates for language {language!r} (have "
                f"{sorted(DEFAULT_TEMPLATES)}); pass templates=['... {{word}} ...', ...]"
            )
        return DEFAULT_TEMPLATES[language]
    if isinstance(templates, str):
        templates = [templates]
    templates = tuple(templates)
    bad = [
        template
        for template in templates
        if not isinstance(template, str) or template.count(PLACEHOLDER) != 1
    ]
    if not templates or bad:
        raise InputError(
            f"every template must hold {PLACEHOLDER!r} exactly once; bad: {bad or 'none given'}"
        )
    return templates


def fill(template: str, word: str) -> tuple[str, int, int]:
    """``(sentence, start, end)``: the template with ``word`` in place and the word's character
    span."""
    start = template.index(PLACEHOLDER)
    return template[:start] + word + template[start + len(PLACEHOLDER) :], start, start + len(word)
