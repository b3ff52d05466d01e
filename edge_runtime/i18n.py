"""Answer phrases in the reader's language (en, es; anything else falls back to en)."""

from __future__ import annotations

PHRASES = {
    "en": {
        "from": "From",
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
    },
    "es": {
        "from": "Fuente",
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
    },
}


def phrase(locale: str, key: str, **values: str) -> str:
    table = PHRASES.get(locale, PHRASES["en"])
    return table.get(key, PHRASES["en"][key]).format(**values)
