"""Answer phrases in the reader's language (en, es; anything else falls back to en)."""

from __future__ import annotations

PHRASES = {
    "en": {
        "from": "From",
        "on_this_page": "On this page",
        "latest_release": "The newest release in the release notes is {release}:",
        "install_with": "Install it with:",
        "release_notes": "The release notes of {release}:",
        "released": "The release notes date it: {release}.",
        "checked": "I couldn't confirm this in the documentation. I checked {places}.",
        "checked_nothing": "I couldn't find anything about this in the documentation.",
        "contact": "Contact support",
        "no_support": "This site has no support page configured; the documentation is all I can search.",
        "human": "Of course. Our support team can help you directly.",
        "unclear": (
            "What would you like to know? Ask about what you are trying to do (a task, a command, "
            "a setting or an error message) and I will look it up in the documentation."
        ),
        "fallback": "(The language model was unavailable, so this answer quotes the documentation directly.)",
        "and": "and",
        "ask_in_one": (
            "The documentation is written in {languages}: ask in {languages} and I will look again."
        ),
        "ask_in_many": (
            "The documentation is written in {languages}: ask in one of them and I will look again."
        ),
    },
    "es": {
        "from": "Fuente",
        "on_this_page": "En esta página",
        "latest_release": "La versión más reciente en las notas de la versión es {release}:",
        "install_with": "Se instala con:",
        "release_notes": "Las notas de la versión {release}:",
        "released": "Las notas de la versión la fechan: {release}.",
        "checked": "No pude confirmarlo en la documentación. Revisé {places}.",
        "checked_nothing": "No encontré nada sobre esto en la documentación.",
        "contact": "Contactar con soporte",
        "no_support": (
            "Este sitio no tiene una página de soporte configurada; solo puedo buscar en la documentación."
        ),
        "human": "Por supuesto. Nuestro equipo de soporte puede ayudarle directamente.",
        "unclear": (
            "¿Qué le gustaría saber? Pregunte por lo que intenta hacer (una tarea, un comando, "
            "un ajuste o un mensaje de error) y lo buscaré en la documentación."
        ),
        "fallback": (
            "(El modelo de lenguaje no estaba disponible, así que esta respuesta cita "
            "la documentación directamente.)"
        ),
        "and": "y",
        "ask_in_one": (
            "La documentación está escrita en {languages}: pregunte en {languages} y volveré a buscar."
        ),
        "ask_in_many": (
            "La documentación está escrita en {languages}: pregunte en uno de ellos y volveré a buscar."
        ),
    },
}


def phrase(locale: str, key: str, **values: str) -> str:
    table = PHRASES.get(locale, PHRASES["en"])
    return table.get(key, PHRASES["en"][key]).format(**values)


# Language names for the refusal that suggests asking in the docs' language (`ask_in_language`):
# the locales askdocs ships stop words for; any other is named by its code.
LANGUAGE_NAMES = {
    "en": {
        "da": "Danish", "de": "German", "en": "English", "es": "Spanish", "fi": "Finnish",
        "fr": "French", "hu": "Hungarian", "it": "Italian", "nl": "Dutch", "no": "Norwegian",
        "pt": "Portuguese", "ro": "Romanian", "ru": "Russian", "sv": "Swedish", "tr": "Turkish",
    },
    "es": {
        "da": "danés", "de": "alemán", "en": "inglés", "es": "español", "fi": "finés",
        "fr": "francés", "hu": "húngaro", "it": "italiano", "nl": "neerlandés", "no": "noruego",
        "pt": "portugués", "ro": "rumano", "ru": "ruso", "sv": "sueco", "tr": "turco",
    },
}  # fmt: skip


def ask_in_language(locale: str, languages: tuple[str, ...]) -> str:
    """The sentence that names the docs' languages ("… written in English and Spanish: ask in one …")."""
    locale = locale if locale in PHRASES else "en"  # the reader's language when phrased in it
    names = LANGUAGE_NAMES[locale]
    named = [names.get(code.split("-")[0].lower(), code) for code in languages]
    joined = named[0] if len(named) == 1 else ", ".join(named[:-1]) + f" {phrase(locale, 'and')} " + named[-1]
    return phrase(locale, "ask_in_one" if len(named) == 1 else "ask_in_many", languages=joined)
