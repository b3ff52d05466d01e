"""The site's own name and home page, read from its shards: what a reader calls the docs ("What is
vdirsyncer?", "How do I install Flask-Babel?") and what every page of them says."""

from __future__ import annotations

import re

import numpy as np
from askdocs.edge_runtime.corpus import ChunkRef

# Words a home page's title adds to the site's name.
TITLE_WORDS = {
    "en": "welcome to documentation docs home introduction overview the s user guide manual reference",
    "es": "bienvenido bienvenida a documentación documentacion inicio introducción guía de la el",
}
# The subject starts with what is not a space: with a space allowed at both its start and the
# runs of spaces around it, a page opening with a long run of spaces took cubic time.
FIRST_SENTENCE = re.compile(
    r"^\s*(?:#[^\n]*\n+\s*)?(?P<subject>[^\s.:;!?][^\n.:;!?]{0,79}?)\s+(?:is|are|es|son)\s", re.I
)
_NAME_END = re.compile(r"\s*(?::|\s[-–—|]\s)")
PROSE_WORD = re.compile(r"[^\W\d_]{2,}")


def home_chunk(scope, locale: str) -> ChunkRef | None:
    """The first chunk of the locale's visible home page ("/", "/es/"). Once per scope."""
    key = ("home", locale)
    if key not in scope.derived:
        scope.derived[key] = _find_home(scope, locale)
    return scope.derived[key]


def _find_home(scope, locale: str) -> ChunkRef | None:
    default = scope.corpus.default_locale
    for url in (("/",) if locale == default else (f"/{locale}/",)) + ("/index.html",):
        where = scope.paths.get(url)
        if where is not None and scope.corpus.page(*where).locale == locale:
            return first_chunk(scope, *where)
    return None


def first_chunk(scope, set_index: int, page_index: int) -> ChunkRef | None:
    found = np.flatnonzero(scope.corpus.sets[set_index].chunk_page == page_index)
    return ChunkRef(set_index, int(found[0])) if len(found) else None


def site_names(scope, locale: str) -> frozenset[str]:
    """The site's name as written (lowercased words of three letters or more): its home page's
    title up to a colon or dash ("Cookiecutter: Better Project Templates"), less the words
    titles add ("Welcome to", "documentation"). Once per scope."""
    key = ("site_names", locale)
    if key not in scope.derived:
        scope.derived[key] = _find_site_names(scope, locale)
    return scope.derived[key]


def _find_site_names(scope, locale: str) -> frozenset[str]:
    home = home_chunk(scope, locale)
    if home is None:
        return frozenset()
    title = _NAME_END.split(scope.corpus.chunk_page(home).title, maxsplit=1)[0]
    first = FIRST_SENTENCE.match(scope.corpus.text(home))  # "Starlette is a lightweight…"
    said = f"{title} {first.group('subject') if first else ''}"
    added = set(TITLE_WORDS[locale].split())
    words = {w.lower() for w in PROSE_WORD.findall(said)}
    return frozenset(w for w in words if len(w) >= 3 and w not in added)


_TOKEN_PART = re.compile(r"[a-z0-9]+")


def names_the_site(token: str, words: frozenset[str]) -> bool:
    """Every part of `token` ("flask-babel", "flufl.lock") is a word of the site's name (`words`:
    `site_names`)."""
    parts = set(_TOKEN_PART.findall(token.lower()))
    return bool(parts) and parts <= words
