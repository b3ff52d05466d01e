"""What an ordinary passage looks like to the model, for locales too thin to say it themselves.

Confidence reads how far the question's best dense match stands out from every other passage
of the reader's docs in that locale (`evidence.features`: `dense_z`). A site translated into
Spanish on one page has one Spanish passage: its cosines have no spread, the best match
stands out from nothing, and no Spanish question would ever be answered. Below
`MIN_OWN_PASSAGES`, the spread is measured over the locale's passages and these: short
documentation passages on unrelated subjects, embedded once per model (as passages, with the
model's own prefix) the first time a thin locale is asked.
"""

from __future__ import annotations

import logging
import threading

import numpy as np

from askdocs.embedder import Embedder

log = logging.getLogger("askdocs.background")

MIN_OWN_PASSAGES = 16

_PASSAGES = {
    "en": (
        "To rotate the log files every night, set the retention to seven days in the settings file.",
        "The report lists every invoice of the month, grouped by customer, with the totals at the end.",
        "Open the color panel and choose a theme; the preview updates as soon as you pick one.",
        "Each row of the table is a sensor reading with its timestamp, unit and the station that sent it.",
        "The printer driver must be reinstalled after upgrading the operating system.",
        "Use the calendar view to drag a meeting to another day; attendees are notified by email.",
        "Photos are resized to 1024 pixels on the longest side before they are uploaded.",
        "The warehouse module tracks stock levels and reorders an item when it falls below the minimum.",
        "Keyboard shortcuts can be changed under Preferences, in the section called Input.",
        "A playlist holds up to five hundred tracks; duplicates are removed when it is saved.",
        "The thermostat schedule switches to eco mode at night and back to comfort at seven.",
        "Translations are stored in one file per language and loaded when the application starts.",
        "The mobile app works offline and synchronises the notes when the connection returns.",
        "Students submit assignments before the deadline; late work is marked and graded separately.",
        "The map layer shows bike lanes in green and roads closed for construction in red.",
        "Backups of the recipe database are written to the external drive every Sunday.",
        "A survey can mix multiple choice, rating scales and free text answers on one page.",
        "The audio mixer has eight channels, each with its own gain, panning and mute button.",
        "Shipping costs are calculated from the parcel weight and the destination country.",
        "The chart updates every minute and keeps the last twenty-four hours of measurements.",
        "Library members can borrow up to ten books at a time for three weeks.",
        "The camera firmware adds support for time-lapse recording and a new night mode.",
        "Expense claims need a receipt for any amount above fifty euros.",
        "The editor highlights spelling mistakes and suggests corrections in the margin.",
    ),
    "es": (
        "Para rotar los registros cada noche, fija la retención en siete días en los ajustes.",
        "El informe enumera todas las facturas del mes, agrupadas por cliente, con los totales al final.",
        "Abre el panel de colores y elige un tema; la vista previa se actualiza en cuanto eliges uno.",
        "Cada fila de la tabla es una lectura de un sensor con su fecha, su unidad y su estación.",
        "El controlador de la impresora debe reinstalarse después de actualizar el sistema operativo.",
        "Usa la vista de calendario para mover una reunión a otro día; los asistentes reciben un correo.",
        "Las fotos se reducen a 1024 píxeles en el lado más largo antes de subirse.",
        "El módulo de almacén controla las existencias y repone un artículo cuando baja del mínimo.",
        "Los atajos de teclado se cambian en Preferencias, en la sección Entrada.",
        "Una lista de reproducción admite quinientas canciones; los duplicados se eliminan al guardar.",
        "El termostato pasa al modo ahorro por la noche y vuelve al modo confort a las siete.",
        "Las traducciones se guardan en un archivo por idioma y se cargan al iniciar la aplicación.",
        "La aplicación móvil funciona sin conexión y sincroniza las notas cuando vuelve la red.",
        "Los alumnos entregan los trabajos antes de la fecha límite; los retrasos se califican aparte.",
        "La capa del mapa muestra los carriles bici en verde y las calles cortadas por obras en rojo.",
        "Las copias de la base de datos de recetas se escriben en el disco externo cada domingo.",
        "Una encuesta puede combinar opción múltiple, escalas de valoración y texto libre en una página.",
        "El mezclador de audio tiene ocho canales, cada uno con su ganancia, panorama y silencio.",
        "Los gastos de envío se calculan según el peso del paquete y el país de destino.",
        "El gráfico se actualiza cada minuto y conserva las mediciones de las últimas veinticuatro horas.",
        "Los socios de la biblioteca pueden llevarse hasta diez libros durante tres semanas.",
        "El firmware de la cámara añade la grabación a intervalos y un nuevo modo nocturno.",
        "Los gastos necesitan un recibo para cualquier importe superior a cincuenta euros.",
        "El editor resalta las faltas de ortografía y propone correcciones en el margen.",
    ),
}

_vectors: dict[tuple[str, str], np.ndarray] = {}
_lock = threading.Lock()


def passages(locale: str) -> tuple[str, ...]:
    """The background passages for a locale (its language's, else English)."""
    return _PASSAGES.get(locale.split("-")[0].lower(), _PASSAGES["en"])


def vectors(embedder: Embedder, locale: str) -> np.ndarray:
    """The background passages embedded with `embedder` (once per model and language)."""
    texts = passages(locale)
    key = (embedder.info.sha256, texts[0])
    with _lock:
        found = _vectors.get(key)
        if found is None:
            found = embedder.embed_passages(texts)
            _vectors[key] = found
            log.info(
                "embedded %d background passages for thin locale %s with %s",
                len(texts),
                locale,
                embedder.info.id,
            )
    return found


def moments(embedder: Embedder, query: np.ndarray, locale: str) -> tuple[int, float, float]:
    """Count, sum and sum of squares of the question's cosines to the background passages."""
    background = vectors(embedder, locale)
    q = np.asarray(query, dtype=np.float32)
    norm = float(np.linalg.norm(q)) or 1.0
    cosines = background @ (q / norm)
    return len(cosines), float(cosines.sum()), float((cosines * cosines).sum())
