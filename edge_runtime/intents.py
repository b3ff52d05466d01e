"""The two questions every new reader asks first, answered from where every docs site answers them.

"What is vdirsyncer?" is answered by the site's home page, whatever page says the name most
often (it was the install page; Borg's "authors" page). "How do I get started?" is answered by
the page a docs site has for that (Quickstart, Getting started, First steps, Tutorial), not by
whatever section says "get started" (it was "get started with contributing"). Both are
recognised by their wording alone, and the thing asked about must be the site's own subject:
its home page's title, or the subject of its home page's first sentence ("Starlette is a
lightweight ASGI framework"), or "this"/"it". Anything else goes through search as usual.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
from askdocs.edge_runtime.answer_types import Part
from askdocs.edge_runtime.corpus import ChunkRef
from askdocs.edge_runtime.evidence import section_at
from askdocs.edge_runtime.extractive import SENTENCE_BREAK, source_line
from askdocs.edge_runtime.i18n import phrase
from askdocs.edge_runtime.query import GENERIC, Query

from askdocs import lexical

_SUBJECT = r"(?P<x>[^?¿!.\n]{1,60}?)"
ABOUT = {
    "en": re.compile(
        rf"^\W*(?:what(?:'s|\s+is|\s+are)|tell\s+me\s+about|what\s+does|what\s+can)\s+(?:the\s+|an?\s+)?{_SUBJECT}"
        r"(?:\s+(?:do|does|for|about|all\s+about|be\s+used\s+for))?\s*[?.!]*\s*$",
        re.I,
    ),
    "es": re.compile(
        rf"^\W*(?:qu[eé]\s+(?:es|son|hace)|h[aá]blame\s+de)\s+(?:el\s+|la\s+|los\s+|las\s+|un\s+|una\s+)?"
        rf"{_SUBJECT}\s*[?.!]*\s*$",
        re.I,
    ),
}
START = {
    "en": re.compile(
        r"^\W*(?:how\s+(?:do|can|should|would)\s+(?:i|we|you|one)\s+(?:get\s+started|start|begin)"
        r"|where\s+(?:do|should|can|would)\s+(?:i|we|you|one)\s+(?:start|begin)"
        r"|(?:getting|get)\s+started|first\s+steps?)"
        rf"(?:\s+(?:with|using|on|in)\s+(?:the\s+)?{_SUBJECT})?\s*[?.!]*\s*$",
        re.I,
    ),
    "es": re.compile(
        r"^\W*(?:c[oó]mo\s+(?:empiezo|empezar|empiezo\s+a\s+usar|comienzo|comenzar)"
        r"|por\s+d[oó]nde\s+(?:empiezo|empezar|comienzo|comenzar)|primeros\s+pasos)"
        rf"(?:\s+(?:con|en)\s+(?:el\s+|la\s+)?{_SUBJECT})?\s*[?.!]*\s*$",
        re.I,
    ),
}
# The site itself, named without its name.
_THIS = re.compile(
    r"^(?:this|it|this\s+(?:tool|project|library|package|framework|software|product|program|app|site|thing))$"
    r"|^(?:esto|esta?\s+(?:herramienta|biblioteca|librer[ií]a|proyecto|programa|aplicaci[oó]n))$",
    re.I,
)
# Titles of the page a docs site has for starting, best first.
START_TITLES = {
    "en": (
        r"quick\s*start",
        r"getting\s+started|get\s+started",
        r"first\s+steps",
        r"tutorial",
        r"introduction",
        r"install",
    ),
    "es": (
        r"inicio\s+r[aá]pido|gu[ií]a\s+r[aá]pida",
        r"primeros\s+pasos",
        r"tutorial",
        r"introducci[oó]n",
        r"instala",
    ),
}
# Words a home page's title adds to the site's name.
_TITLE_WORDS = {
    "en": "welcome to documentation docs home introduction overview the s user guide manual reference",
    "es": "bienvenido bienvenida a documentación documentacion inicio introducción guía de la el",
}
# The subject starts with what is not a space: with a space allowed at both its start and the
# runs of spaces around it, a page opening with a long run of spaces took cubic time.
_FIRST_SENTENCE = re.compile(
    r"^\s*(?:#[^\n]*\n+\s*)?(?P<subject>[^\s.:;!?][^\n.:;!?]{0,79}?)\s+(?:is|are|es|son)\s", re.I
)


@dataclass(frozen=True)
class Intent:
    kind: str  # "about" (what the site's subject is) | "start" (where a new reader starts)
    lead: ChunkRef  # the section read first: the home page's first, or the start page's


def _worded(query: Query) -> tuple[re.Match | None, re.Match | None]:
    """The message read as "what is X?" and as "how do I get started (with X)?" (a follow-up:
    neither)."""
    locale = query.locale
    if locale not in ABOUT or query.text != query.message:
        return None, None
    asked = query.message.strip()
    return ABOUT[locale].match(asked), START[locale].match(asked)


def recognise(scope, query: Query) -> Intent | None:
    """The first-questions intent of `query` in `scope` (None: an ordinary question)."""
    locale = query.locale
    about, start = _worded(query)
    if not (about or start):
        return None
    home = _home(scope, locale)
    if home is None:
        return None
    if about and _the_site(scope, locale, home, about.group("x")):
        return Intent("about", home)
    if start and (start.group("x") is None or _the_site(scope, locale, home, start.group("x"))):
        return Intent("start", _start_page(scope, locale) or home)  # no start page: the home page
    return None


def worded_as_first_question(query: Query) -> bool:
    """The message is worded as one of the two first questions about the site itself ("What is
    this?", "What can it do?", "How do I get started?"), though it holds no key term."""
    about, start = _worded(query)
    return bool(
        (about and _THIS.match(about.group("x").strip()))
        or (start and (start.group("x") is None or _THIS.match(start.group("x").strip())))
    )


def _home(scope, locale: str) -> ChunkRef | None:
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
            return _first_chunk(scope, *where)
    return None


def _first_chunk(scope, set_index: int, page_index: int) -> ChunkRef | None:
    found = np.flatnonzero(scope.corpus.sets[set_index].chunk_page == page_index)
    return ChunkRef(set_index, int(found[0])) if len(found) else None


def _the_site(scope, locale: str, home: ChunkRef, subject: str) -> bool:
    """`subject` names the site's own subject: "this", or words of its home page's title (less
    the words titles add: "Welcome to", "documentation") or of its first sentence's subject."""
    subject = subject.strip()
    if _THIS.match(subject):
        return True
    asked = lexical.stem_terms(locale, subject) - GENERIC.get(locale, frozenset())
    if not asked:
        return False
    return asked <= _subject_terms(scope, locale, home)


def _start_page(scope, locale: str) -> ChunkRef | None:
    """The first chunk of the visible page of the locale whose title says it is where to start
    (by `START_TITLES`' order; of two, the shallower, then the first by URL). Once per scope."""
    key = ("start_page", locale)
    if key not in scope.derived:
        scope.derived[key] = _find_start_page(scope, locale)
    return scope.derived[key]


def _find_start_page(scope, locale: str) -> ChunkRef | None:
    pages = [
        (url, where)
        for url, where in scope.paths.items()
        if scope.corpus.page(*where).locale == locale and url not in ("/", f"/{locale}/", "/index.html")
    ]
    for pattern in START_TITLES[locale]:
        title = re.compile(pattern, re.I)
        found = [
            (url.strip("/").count("/"), url, where)
            for url, where in pages
            if title.search(scope.corpus.page(*where).title)
        ]
        if found:
            _, _, where = min(found)
            return _first_chunk(scope, *where)
    return None


# -- the answer: the docs' own words from the page the intent names
_PARAGRAPH = re.compile(r"\n\s*\n")
_PROSE_WORD = re.compile(r"[^\W\d_]{2,}")
_NOT_PROSE = re.compile(r"^\s*(?:#|[-*+] |\d+[.)] |\||```|>|!\[|\[[^\]]*\]\([^)]*\)\s*(?:\[|$))")
_DEFINES = {"en": re.compile(r"\b(?:is|are)\b", re.I), "es": re.compile(r"\b(?:es|son)\b", re.I)}
READ_CHARS = 8000  # of the page, from its top
LEAD_SENTENCES = 3
SHORT_LEAD_WORDS = 25  # a lead this short is followed by the paragraph after it
OUTLINE_HEADINGS = 8
START_LEAD_WORDS = 4


def _prose(paragraph: str, words: int = 8) -> bool:
    """A paragraph of sentences (`words` or more): not a heading, list, table, code, quote,
    badge line or a line of links."""
    text = paragraph.strip()
    plain = re.sub(r"\]\([^)]*\)", "]", text)
    if not text or _NOT_PROSE.match(text) or "://" in plain:
        return False
    return len(_PROSE_WORD.findall(plain)) >= words and text.count("](") <= 3


def _sentences(paragraph: str, limit: int) -> str:
    return " ".join(SENTENCE_BREAK.split(" ".join(paragraph.split()))[:limit])


def intent_reply(scope, intent: Intent, query: Query):
    """(parts, citations) of the answer to an intent, or None when its page has no prose:
    "about" quotes the home page's first paragraph that says what the subject is ("Starlette
    is a lightweight ASGI framework…"), "start" the start page's first paragraph and what the
    page goes through (its headings)."""
    corpus = scope.corpus
    locale = query.locale
    set_index, page_index = intent.lead.set, corpus.chunk(intent.lead).page
    page = corpus.page(set_index, page_index)
    content = page.content[:READ_CHARS]
    pieces, offset = [], 0
    for piece in _PARAGRAPH.split(content):
        at = content.find(piece, offset)
        offset = at + len(piece)
        pieces.append((at, piece))
    # A start page may open with a short step ("First, start by importing HTTPX:" and its code).
    least = START_LEAD_WORDS if intent.kind == "start" else 8
    paragraphs = [(i, at, piece) for i, (at, piece) in enumerate(pieces) if _prose(piece, least)]
    if not paragraphs:
        return None
    chosen = 0
    if intent.kind == "about":
        name = _subject_terms(scope, locale, intent.lead)
        defining = _DEFINES.get(locale, _DEFINES["en"])
        ranked = [
            n
            for n, (_, _, text) in enumerate(paragraphs)
            if name & lexical.stem_terms(locale, text) and defining.search(text)
        ] or [n for n, (_, _, text) in enumerate(paragraphs) if name & lexical.stem_terms(locale, text)]
        chosen = ranked[0] if ranked else 0
    index, at, text = paragraphs[chosen]
    lead = _sentences(text, LEAD_SENTENCES)
    parts = [Part("lead", lead, page.url)]
    following = pieces[index + 1][1].strip() if index + 1 < len(pieces) else ""
    if lead.endswith(":") and following.startswith("```"):  # "To install MkDocs, run:" and the command
        parts.append(Part("code", following, page.url))
    elif len(lead.split()) < SHORT_LEAD_WORDS and _prose(following) and not following.endswith(":"):
        parts.append(Part("support", "> " + _sentences(following, LEAD_SENTENCES), page.url))
    if intent.kind == "start":
        headings = [heading for _, _, heading in corpus.sets[set_index].sections(page_index)]
        headings = [h for h in headings if "›" not in h and h != page.title][:OUTLINE_HEADINGS]
        if headings:
            parts.append(
                Part("support", phrase(locale, "on_this_page") + ": " + " · ".join(headings), page.url)
            )
    _, _, anchor, heading = section_at(corpus, set_index, page_index, at)
    url = f"{page.url}#{anchor}" if anchor else page.url
    label = page.title if heading == page.title else f"{page.title} › {heading}"
    parts.append(source_line(locale, label, url))
    return parts, [{"url": url, "title": label}]


def _subject_terms(scope, locale: str, home: ChunkRef) -> frozenset[str]:
    corpus = scope.corpus
    page = corpus.chunk_page(home)
    named = lexical.stem_terms(locale, page.title) - lexical.stem_terms(locale, _TITLE_WORDS[locale])
    first = _FIRST_SENTENCE.match(corpus.text(home))
    if first:
        named |= lexical.stem_terms(locale, first.group("subject"))
    return frozenset(named)
