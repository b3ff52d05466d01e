"""The two questions every new reader asks first, answered from where every docs site answers them.

"What is vdirsyncer?" is answered by the site's home page, whatever page says the name most
often (it was the install page; Borg's "authors" page). "How do I get started?" is answered by
the page a docs site has for that (Quickstart, Getting started, First steps, Tutorial), not by
whatever section says "get started" (it was "get started with contributing"). Both are
recognised by their wording alone, and the thing asked about must be the site's own subject:
its home page's title, or the subject of its home page's first sentence ("Starlette is a
lightweight ASGI framework"), or "this"/"it". Anything else goes through search as usual.

A third is asked of every site that publishes release notes: "What's new in the latest release?",
"What is the current version?". Search matched the words "latest" and "release" (Uvicorn's
"Compare `master` with the tag of the latest release" in its contributing guide; on the example
site the 3.0.0 and 2.4.0 notes, whose text says "release" where 3.2.0's does not). The answer is
where a careful reader looks: the release notes' newest release, the one with the highest
version among the visible release-notes pages' release headings (a heading's date breaks a tie),
or the release a version names ("What changed in 3.2?", "When was 3.0 released?").

And "How do I install it?": httpx's was answered from its contributing guide ("install the
project and its dependencies"). The answer is the page titled Install or Installation, else a
section headed so (the home page's first): the step that installs and its command. "What
license is it under?" likewise reads the page titled License (else a section headed so).
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
from askdocs.edge_runtime.sitename import (
    FIRST_SENTENCE,
    PROSE_WORD,
    TITLE_WORDS,
    first_chunk,
    home_chunk,
    site_names,
)

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
_RECENT = r"(?:latest|newest|most\s+recent|current|last|recent)"
_RELEASE = r"(?:release|version)"
_RECENT_RELEASE = _RECENT + r"\s+" + _RELEASE
LATEST = {
    "en": re.compile(
        rf"^\W*(?:(?:what|which)(?:'s|\s+is|\s+was|\s+are)?\s+(?:the\s+)?{_RECENT_RELEASE}"
        rf"|what(?:'s|\s+is|\s+are)\s+(?:new|the\s+(?:latest\s+|recent\s+)?changes)"
        rf"(?:\s+in\s+(?:the\s+)?{_RECENT_RELEASE})?"
        rf"|what\s+(?:changed|(?:was|has\s+been)\s+(?:added|changed|fixed))\s+in\s+(?:the\s+)?{_RECENT_RELEASE}"
        r"|(?:is\s+there\s+an?|where\s+(?:is|are|can\s+i\s+(?:find|see|read))\s+the)"
        r"\s+(?:changelog|change\s*log|release\s+notes|list\s+of\s+changes))"
        rf"(?:\s+(?:of|in|for)\s+(?:the\s+)?{_SUBJECT})?\s*[?.!]*\s*$",
        re.I,
    ),
    "es": re.compile(
        r"^\W*(?:(?:cu[aá]l|qu[eé])\s+es\s+la\s+(?:(?:[uú]ltima|m[aá]s\s+reciente|actual)\s+versi[oó]n"
        r"|versi[oó]n\s+(?:m[aá]s\s+reciente|actual))"
        r"|(?:qu[eé]\s+hay\s+de\s+nuevo|(?:cu[aá]les\s+son\s+las\s+)?novedades|qu[eé]\s+cambi[oó])"
        r"(?:\s+(?:en|de)\s+la\s+(?:[uú]ltima|m[aá]s\s+reciente|actual)\s+versi[oó]n)?"
        r"|(?:d[oó]nde\s+(?:est[aá]n?|encuentro|veo)|hay)\s+(?:las\s+|el\s+|un\s+|unas\s+)?"
        r"(?:notas\s+de\s+(?:la\s+)?versi[oó]n|registro\s+de\s+cambios|changelog))"
        rf"(?:\s+(?:de|del)\s+(?:la\s+|el\s+)?{_SUBJECT})?\s*[?.!]*\s*$",
        re.I,
    ),
}
_POSSESSIVE = re.compile(r"\b(?P<x>[^\W\d_][\w.-]{0,40})['’]s\s+(?=" + _RECENT + r"\s)", re.I)
# What a version question may name before the version ("Tallyfox", "the agent"): it starts and
# ends with what is not a space, so a run of spaces is split one way only (with a space allowed
# at its ends, "What's new in" and 4,000 spaces took 30 s).
_NAMED = r"(?P<x>[^?¿!\s\d](?:[^?¿!\n\d]{0,38}[^?¿!\s\d])?)"
# "What changed in 3.2?", "What's new in Tallyfox 3.2?", "¿Qué hay de nuevo en la versión 3.2?"
_ASKED_VERSION = r"(?:version\s+|versi[oó]n\s+|release\s+)?(?P<v>v?\d+(?:\.\d+)*)"
IN_VERSION = {
    "en": re.compile(
        r"^\W*(?:what(?:'s|\s+is|\s+was|\s+are)\s+(?:new|different|the\s+changes?)"
        r"|what\s+(?:changed|(?:was|were|has\s+been|have\s+been)\s+(?:added|changed|fixed|removed))"
        r"|(?:list\s+|show\s+me\s+)?(?:the\s+)?(?:changes|release\s+notes))\s+(?:in|for|of)\s+(?:the\s+)?"
        rf"(?:{_NAMED}\s+)?{_ASKED_VERSION}\s*[?.!]*\s*$",
        re.I,
    ),
    "es": re.compile(
        r"^\W*(?:qu[eé]\s+(?:hay\s+de\s+nuevo|cambi[oó]|cambia|se\s+(?:a[nñ]adi[oó]|cambi[oó]))"
        r"|(?:cu[aá]les\s+son\s+las\s+)?(?:novedades|cambios))\s+(?:en|de)\s+(?:la\s+)?"
        rf"(?:{_NAMED}\s+)?{_ASKED_VERSION}\s*[?.!]*\s*$",
        re.I,
    ),
}
_RELEASE_WORD = re.compile(r"(?:la\s+)?(?:version|versi[oó]n|release)", re.I)
RELEASED = {
    "en": re.compile(
        r"^\W*when\s+(?:was|did|has)\s+(?:the\s+)?"
        rf"(?:{_NAMED}\s+)?{_ASKED_VERSION}\s+(?:been\s+)?(?:released|come\s+out|published|ship(?:ped)?)"
        r"\s*[?.!]*\s*$",
        re.I,
    ),
    "es": re.compile(
        r"^\W*cu[aá]ndo\s+(?:se\s+)?(?:public[oó]|lanz[oó]|sali[oó])\s+(?:la\s+)?"
        rf"(?:{_NAMED}\s+)?{_ASKED_VERSION}\s*[?.!]*\s*$",
        re.I,
    ),
}
# A release's version in its heading or title ("Scrapy 2.11.0 (2023-09-18)", "v2.5.3", "3.2.0",
# "What's new in Tornado 6.3"), with a pre-release's tag ("2.6.0b1", "1.0.0-rc.2").
_VERSION = re.compile(
    r"(?<![\w.])v?(\d+(?:\.\d+)+)(?:[-.]?(a|b|rc|c|dev|alpha|beta|pre)\.?(\d*))?(?![\w.])", re.I
)
RELEASE_HEADING_WORDS = 6  # a release's heading is short; a longer one merely names a version
# Not released yet: "1.8.0 (Current master, in development)", "2.0.0 (unreleased)".
_UNRELEASED = re.compile(
    r"\b(?:unreleased|upcoming|in\s+development|in\s+progress|not\s+yet\s+released|current\s+master"
    r"|sin\s+publicar|en\s+desarrollo)\b",
    re.I,
)
# The site itself, named without its name.
_THIS = re.compile(
    r"^(?:this|it|this\s+(?:tool|project|library|package|framework|software|product|program|app|site|thing))$"
    r"|^(?:esto|esta?\s+(?:herramienta|biblioteca|librer[ií]a|proyecto|programa|aplicaci[oó]n))$",
    re.I,
)
# "How do I install it?", "Installation instructions?", "¿Cómo instalo Tallyfox?": where the docs
# say how to install the site's subject (a platform or a part named after it goes through search:
# "How do I install Tallyfox on Windows?", "How do I install the agent?").
INSTALL = {
    "en": re.compile(
        r"^\W*(?:how\s+(?:do|can|should|would)\s+(?:i|we|you|one)\s+(?:get\s+and\s+)?install|how\s+to\s+install"
        r"|(?:what\s+are\s+the\s+)?install(?:ation|ing)?\s+(?:instructions|steps|guide)|installation"
        r"|what(?:'s|\s+is)\s+the\s+install(?:ation)?\s+command)"
        rf"(?:\s+(?:for\s+|of\s+)?(?:the\s+)?{_SUBJECT})?\s*[?.!]*\s*$",
        re.I,
    ),
    "es": re.compile(
        r"^\W*(?:c[oó]mo\s+(?:se\s+)?instal(?:o|a|ar|amos|arlo|arla)|instalaci[oó]n|instrucciones\s+de\s+instalaci[oó]n)"
        rf"(?:\s+(?:de\s+|del\s+)?(?:el\s+|la\s+)?{_SUBJECT})?\s*[?.!]*\s*$",
        re.I,
    ),
}
# "What license is it under?", "Is it open source?", "¿Qué licencia tiene?": the page titled
# License (pytest's, MkDocs'; a short title naming one: Flask's "BSD-3-Clause License"), else a
# section headed so (FastAPI's and DRF's home page).
LICENSE = {
    "en": re.compile(
        r"^\W*(?:(?:what|which)(?:'s|\s+is)?\s+(?:the\s+)?licen[cs]e(?:\s+(?:is|does|of|for|has))?"
        r"|under\s+(?:what|which)\s+licen[cs]e(?:\s+is)?|is|licen[cs]e(?:\s+(?:of|for))?)"
        rf"(?:\s+(?:the\s+)?{_SUBJECT})??"
        r"(?:\s+(?:under|use|uses|(?:released|distributed|licensed)(?:\s+under)?|have|has"
        r"|open[\s-]?source|free\s+software))?\s*[?.!]*\s*$",
        re.I,
    ),
    "es": re.compile(
        r"^\W*(?:qu[eé]\s+licencia\s+(?:tiene|usa|sigue)|bajo\s+qu[eé]\s+licencia\s+(?:est[aá]|se\s+distribuye)"
        r"|cu[aá]l\s+es\s+(?:la\s+)?licencia(?:\s+de)?|licencia(?:\s+de)?)"
        rf"(?:\s+(?:el\s+|la\s+)?{_SUBJECT})?\s*[?.!]*\s*$",
        re.I,
    ),
}
_LICENSE_ASKED = re.compile(r"licen[cs]|open[\s-]?source|free\s+software", re.I)
_LICENSE_TITLE = re.compile(r"^\W*(?:licen[cs]e|licencia)s?\b|^(?:\S+\s+){0,3}licen[cs]e\W*$", re.I)
_LICENSE_WORD = re.compile(r"\blicen[cs]", re.I)
_BARE_LICENSE = re.compile(r"^\W*(?:licen[cs]e|licencia)s?\W*$", re.I)
# A page or section that says how to install: its title or heading, then its text.
_INSTALL_TITLE = re.compile(r"^\W*(?:install(?:ation|ing)?|instalaci[oó]n|instalar)\b", re.I)
_INSTALL_WORD = re.compile(r"\binstal", re.I)
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


@dataclass(frozen=True)
class Intent:
    # "about" (what the site's subject is) | "start" (where a new reader starts) | "install" (how to
    # install it) | "license" (its license) | "latest" (the newest release's notes) | "release" (the
    # notes of the release a version names) | "released" (when it was: its date)
    kind: str
    lead: ChunkRef  # the chunk read first: the home page's first, the start page's, the release's…
    at: int = 0  # where the section read first starts in its page's text (a release, an install section)


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
    if query.text != query.message:  # a follow-up borrowed the previous question: none of these
        return None
    locale = query.locale
    about, start = _worded(query)
    asked = query.message.strip()
    owner = _POSSESSIVE.search(asked)  # "Tallyfox's latest release": the latest release of Tallyfox
    if owner:
        asked = f"{asked[: owner.start()]}the {asked[owner.end() :]}"
    licensing = LICENSE[locale].match(asked) if locale in LICENSE and _LICENSE_ASKED.search(asked) else None
    if licensing:
        subject = licensing.group("x")
        if subject is not None:  # "is it", "does Flask": the subject without its pronoun
            subject = re.sub(r"^(?:it|this)\s+|\s+(?:it|this)$", "", subject.strip(), flags=re.I) or "it"
        if not _of_the_site(scope, locale, subject):
            return None
        where = _titled_section(scope, locale, "license", _LICENSE_TITLE)
        return Intent("license", *where) if where is not None else None
    install = INSTALL[locale].match(asked) if locale in INSTALL else None
    if install:
        if not _of_the_site(scope, locale, install.group("x")):
            return None
        where = _titled_section(scope, locale, "install", _INSTALL_TITLE)
        return Intent("install", *where) if where is not None else None
    released = RELEASED[locale].match(asked) if locale in RELEASED else None
    versioned = released or (IN_VERSION[locale].match(asked) if locale in IN_VERSION else None)
    if versioned:
        subject = versioned.group("x")
        if subject and _RELEASE_WORD.fullmatch(subject.strip()):
            subject = None  # "What changed in version 2.4?": the word, not a subject
        if not _of_the_site(scope, locale, subject):
            return None
        release = _release_of(scope, locale, versioned.group("v"))
        return Intent("released" if released else "release", *release) if release is not None else None
    latest = LATEST[locale].match(asked) if locale in LATEST else None
    if latest:
        if not _of_the_site(scope, locale, latest.group("x") or (owner.group("x") if owner else None)):
            return None
        newest = _newest_release(scope, locale)
        return Intent("latest", *newest) if newest is not None else None
    if not (about or start):
        return None
    home = home_chunk(scope, locale)
    if home is None:
        return None
    if about and _the_site(scope, locale, home, about.group("x")):
        return Intent("about", home)
    if start and (start.group("x") is None or _the_site(scope, locale, home, start.group("x"))):
        return Intent("start", _start_page(scope, locale) or home)  # no start page: the home page
    return None


def _of_the_site(scope, locale: str, subject: str | None) -> bool:
    """A question's subject is the site's own: none named, "it"/"this", or `_the_site`."""
    if subject is None or _THIS.match(subject.strip()):
        return True
    home = home_chunk(scope, locale)
    return home is not None and _the_site(scope, locale, home, subject)


def worded_as_first_question(query: Query) -> bool:
    """The message is worded as one of the two first questions about the site itself ("What is
    this?", "What can it do?", "How do I get started?"), though it holds no key term."""
    about, start = _worded(query)
    return bool(
        (about and _THIS.match(about.group("x").strip()))
        or (start and (start.group("x") is None or _THIS.match(start.group("x").strip())))
    )


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
            return first_chunk(scope, *where)
    return None


def _license_named(corpus, set_index: int, page_index: int, names: frozenset[str]) -> tuple[int, str] | None:
    """(offset, text) of what names a license page's license: its title when that says more than
    "License" ("BSD-3-Clause License"), else a heading of it naming the site and a license
    ("MkDocs License (BSD)")."""
    title = corpus.page(set_index, page_index).title
    if _LICENSE_WORD.search(title) and not _BARE_LICENSE.match(title):
        return 0, title
    for at, _, path in corpus.sets[set_index].sections(page_index):
        heading = path.split(" › ")[-1]
        if _LICENSE_WORD.search(heading) and any(name in heading.lower() for name in names):
            return at, heading
    return None


def _titled_section(scope, locale: str, what: str, titled: re.Pattern) -> tuple[ChunkRef, int] | None:
    """Where the locale's visible docs say `what` (once per scope): the shallowest page titled so
    ("Installation", "Installing Scrapy", "License"), else a section headed so, the home page's
    first ("## Installation" on httpx's), then the shallowest page's."""
    key = (what, locale)
    if key not in scope.derived:
        scope.derived[key] = _find_titled_section(scope, locale, titled)
    return scope.derived[key]


def _find_titled_section(scope, locale: str, titled: re.Pattern) -> tuple[ChunkRef, int] | None:
    corpus = scope.corpus
    pages = sorted(
        (url.strip("/").count("/"), url, where)
        for url, where in scope.paths.items()
        if corpus.page(*where).locale == locale and corpus.page(*where).kind == "page"
    )
    for _, _, (set_index, page_index) in pages:
        if titled.search(corpus.page(set_index, page_index).title):
            ref = first_chunk(scope, set_index, page_index)
            return (ref, 0) if ref is not None else None
    home = home_chunk(scope, locale)
    home_page = (home.set, corpus.chunk(home).page) if home is not None else None
    ordered = sorted(pages, key=lambda p: (p[2] != home_page, p[0], p[1]))
    for _, _, (set_index, page_index) in ordered:
        loaded = corpus.sets[set_index]
        for at, _, path in loaded.sections(page_index):
            if titled.search(path.split(" › ")[-1]):
                chunks = np.flatnonzero(loaded.chunk_page == page_index)
                ref = _chunk_at(loaded, chunks, set_index, at)
                if ref is not None:
                    return ref, at
    return None


def _releases(scope, locale: str) -> list[tuple[tuple, str, int, str, ChunkRef, int]]:
    """The releases of the locale's visible release-notes pages, oldest first: (version key, date,
    the page's number of releases, URL, the chunk holding the start of the release's section, that
    offset). A release is a short section heading naming a version, or a page of one release by
    its title ("What's new in Tornado 6.3"). Once per scope."""
    key = ("releases", locale)
    if key not in scope.derived:
        scope.derived[key] = _find_releases(scope, locale)
    return scope.derived[key]


def _newest_release(scope, locale: str) -> tuple[ChunkRef, int] | None:
    """The newest release: the highest version (a final release above its pre-releases); of
    equal versions the newer date, then the page with more releases."""
    releases = _releases(scope, locale)
    return releases[-1][4:] if releases else None


def _release_of(scope, locale: str, asked: str) -> tuple[ChunkRef, int] | None:
    """The release a version names ("3.2" is 3.2.0, else the first 3.2.x; "v2" is 2.0.0): the
    lowest final release whose version starts with the asked numbers, else the lowest of any."""
    numbers = tuple(int(n) for n in asked.lstrip("vV").split("."))
    matching = [r for r in _releases(scope, locale) if r[0][: len(numbers)] == numbers]
    finals = [r for r in matching if r[0][4] == 1]
    if not matching:
        return None
    version = min(r[0] for r in finals or matching)
    return max(r for r in matching if r[0] == version)[4:]


def _version_key(text: str) -> tuple | None:
    found = _VERSION.search(text)
    if found is None:
        return None
    numbers = tuple(int(n) for n in found.group(1).split("."))
    numbers += (0,) * (4 - len(numbers))
    tag, tag_number = found.group(2), found.group(3)
    return (*numbers[:4], 0 if tag else 1, int(tag_number) if tag_number else 0)


def _find_releases(scope, locale: str) -> list[tuple[tuple, str, int, str, ChunkRef, int]]:
    corpus = scope.corpus
    found = []
    for url, (set_index, page_index) in sorted(scope.paths.items()):
        page = corpus.page(set_index, page_index)
        if page.locale != locale or page.kind != "changelog":
            continue
        loaded = corpus.sets[set_index]
        chunks = np.flatnonzero(loaded.chunk_page == page_index)
        releases = []
        for at, _, path in loaded.sections(page_index):
            heading = path.split(" › ")[-1]
            short = len(heading.split()) <= RELEASE_HEADING_WORDS and not _UNRELEASED.search(heading)
            version = _version_key(heading) if short else None
            if version is not None:
                releases.append((version, at))
        if not releases and (version := _version_key(page.title)) is not None:
            releases.append((version, 0))  # one release's page ("What's new in Tornado 6.3")
        for version, at in releases:
            ref = _chunk_at(loaded, chunks, set_index, at)
            if ref is not None:
                found.append((version, corpus.chunk(ref).lastmod or "", len(releases), url, ref, at))
    found.sort(key=lambda r: r[:4])
    return found


def _chunk_at(loaded, chunks, set_index: int, at: int) -> ChunkRef | None:
    """The chunk of a page that holds offset `at` (its section's first)."""
    for index in chunks:
        chunk = loaded.chunks[int(index)]
        if chunk.kind == "section" and chunk.start <= at < max(chunk.end, chunk.start + 1):
            return ChunkRef(set_index, int(index))
    return None


# -- the answer: the docs' own words from the page the intent names
_PARAGRAPH = re.compile(r"\n\s*\n")
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
    return len(PROSE_WORD.findall(plain)) >= words and text.count("](") <= 3


def _sentences(paragraph: str, limit: int) -> str:
    return " ".join(SENTENCE_BREAK.split(" ".join(paragraph.split()))[:limit])


def intent_reply(scope, intent: Intent, query: Query):
    """(parts, citations) of the answer to an intent, or None when its page has no prose:
    "about" quotes the home page's first paragraph that says what the subject is ("Starlette
    is a lightweight ASGI framework…"), "start" the start page's first paragraph and what the
    page goes through (its headings)."""
    if intent.kind in ("latest", "release", "released"):
        return _release_reply(scope, intent.lead, intent.at, query.locale, intent.kind)
    corpus = scope.corpus
    locale = query.locale
    set_index, page_index = intent.lead.set, corpus.chunk(intent.lead).page
    page = corpus.page(set_index, page_index)
    content = page.content[:READ_CHARS]
    base = 0  # where `content` starts in the page's text
    if intent.kind in ("install", "license") and intent.at:  # a section of a page, with its subsections
        base, end = _region(corpus, set_index, page_index, intent.at)
        content = page.content[base:end][:READ_CHARS]
    pieces, offset = [], 0
    for piece in _PARAGRAPH.split(content):
        at = content.find(piece, offset)
        offset = at + len(piece)
        pieces.append((at, piece))
    # A start page may open with a short step ("First, start by importing HTTPX:" and its code);
    # an installation section with a shorter one ("Install with pip:").
    least = {"start": START_LEAD_WORDS, "install": INSTALL_LEAD_WORDS, "license": START_LEAD_WORDS}
    least = least.get(intent.kind, 8)
    paragraphs = [(i, at, piece) for i, (at, piece) in enumerate(pieces) if _prose(piece, least)]
    if not paragraphs:
        return None
    chosen = 0
    command = None  # an install command standing right under its heading, with no step above it
    if intent.kind == "install":
        chosen, command = _install_step(pieces, paragraphs, site_names(scope, locale))
    named = None  # a license's name: the page's title ("BSD-3-Clause License"), a heading of it
    if intent.kind == "license":  # the sentence that names the license, else the license's own words
        said = [n for n, (_, _, text) in enumerate(paragraphs) if _LICENSE_WORD.search(text)]
        chosen = said[0] if said else 0
        if not intent.at:
            named = _license_named(corpus, set_index, page_index, site_names(scope, locale))
        if named is not None:  # "## MkDocs License (BSD)": its first paragraph, not "The legal stuff."
            later = [n for n, (_, at, _) in enumerate(paragraphs) if at > named[0]]
            chosen = later[0] if later else chosen
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
    if named is not None:
        parts = [Part("lead", f"**{named[1]}**", page.url), Part("support", "> " + lead, page.url)]
    if command is not None:  # "## Installation", then `pip install starlette`: that, then the step after
        at = pieces[command][0]
        parts = [Part("lead", phrase(locale, "install_with"), page.url)]
        parts += [Part("code", pieces[command][1].strip(), page.url), Part("support", "> " + lead, page.url)]
    following = pieces[index + 1][1].strip() if index + 1 < len(pieces) else ""
    code = _code_after(pieces, index) if lead.endswith(":") or intent.kind == "install" else []
    if intent.kind == "install" and not code and command is None:  # its install command, wherever it is
        blocks = [piece.strip() for _, piece in pieces if piece.lstrip().startswith("```")]
        code = next(([block] for block in blocks if _INSTALL_WORD.search(block)), [])
    if code:  # "To install MkDocs, run:" and the command (under a tab's label: "**pip**")
        parts.extend(Part("code", block, page.url) for block in code)
    elif len(lead.split()) < SHORT_LEAD_WORDS and _prose(following) and not following.endswith(":"):
        parts.append(Part("support", "> " + _sentences(following, LEAD_SENTENCES), page.url))
    if intent.kind == "start" or intent.kind == "install" and not intent.at:
        headings = [heading for _, _, heading in corpus.sets[set_index].sections(page_index)]
        headings = [h for h in headings if "›" not in h and h != page.title][:OUTLINE_HEADINGS]
        if headings:
            parts.append(
                Part("support", phrase(locale, "on_this_page") + ": " + " · ".join(headings), page.url)
            )
    _, _, anchor, heading = section_at(corpus, set_index, page_index, base + at)
    url = f"{page.url}#{anchor}" if anchor else page.url
    label = page.title if heading == page.title else f"{page.title} › {heading}"
    parts.append(source_line(locale, label, url))
    return parts, [{"url": url, "title": label}]


def _install_step(pieces, paragraphs, names: frozenset[str]) -> tuple[int, int | None]:
    """Which paragraph leads an install answer (it may be a numbered step, added to
    `paragraphs`), and the piece of a command that stands under its heading with no step above
    it (`pip install starlette`), if that comes first. The step that installs and its command
    ("… is as simple as:"), the subject's own before a prerequisite's ("pip install starlette",
    not the ASGI server it also needs; "pip install cookiecutter", not Python from python.org)."""

    def names_it(text: str) -> bool:
        return any(name in text.lower() for name in names)

    steps = [
        (n, text + "\n" + "\n".join(_code_after(pieces, i)))
        for n, (i, _, text) in enumerate(paragraphs)
        if _INSTALL_WORD.search(text) and _code_after(pieces, i)
    ]
    own = [n for n, said in steps if names_it(said)]
    if own:
        return own[0], None
    for i, (_, piece) in enumerate(pieces):
        text = piece.strip()
        if text.startswith("```") and _INSTALL_WORD.search(text) and names_it(text):
            if i == 0 or pieces[i - 1][1].lstrip().startswith("#"):
                later = [n for n, (j, _, _) in enumerate(paragraphs) if j > i]
                return (later[0] if later else 0), i
            break
    if steps:
        return steps[0][0], None
    for i, (at, piece) in enumerate(pieces):  # a numbered step ("1. Run the following command…")
        commands = _code_after(pieces, i)
        if not piece.lstrip().startswith("#") and any(_INSTALL_WORD.search(c) for c in commands):
            paragraphs.insert(0, (i, at, _LIST_MARK.sub("", piece.strip())))
            return 0, None
    said = [n for n, (_, _, text) in enumerate(paragraphs) if _INSTALL_WORD.search(text)]
    return (said[0] if said else 0), None


INSTALL_LEAD_WORDS = 2
_LIST_MARK = re.compile(r"^(?:[-*+]|\d+[.)])\s+")
TAB_LABEL_WORDS = 3  # "**pip**", "**Using uv**": a tab's label between a step and its command
FENCE_PIECES = 12  # a code block with blank lines in it spans paragraphs: read this many at most


def _code_after(pieces: list[tuple[int, str]], index: int) -> list[str]:
    """The code block right after paragraph `index` (past one tab label, "**pip**", kept above
    it), whole even when it holds blank lines; [] when none follows."""
    at = index + 1
    label = ""
    if at < len(pieces) and not pieces[at][1].lstrip().startswith("```"):
        candidate = pieces[at][1].strip()
        if len(candidate.split()) > TAB_LABEL_WORDS or "\n" in candidate:
            return []
        label, at = candidate, at + 1
    if at >= len(pieces) or not pieces[at][1].lstrip().startswith("```"):
        return []
    block = pieces[at][1].strip()
    for _, more in pieces[at + 1 : at + FENCE_PIECES]:
        if block.count("```") % 2 == 0:
            break
        block = f"{block}\n\n{more.strip()}"
    if block.count("```") % 2:
        block += "\n```"  # cut at the reading limit: closed, not left open
    return [f"{label}\n\n{block}" if label else block]


RELEASE_LINES = 12  # of the newest release's notes, quoted
RELEASE_CHARS = 1200
_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")
_DATE_LINE = re.compile(r"^\W*(?:released\s+(?:on\s+)?)?[\w ,.-]{0,30}\d{4}\W*$", re.I)


def _region(corpus, set_index: int, page_index: int, at: int) -> tuple[int, int]:
    """(start, end) in a page's text of the section holding `at`, with its subsections."""
    start, _, _, path = section_at(corpus, set_index, page_index, at)
    depth = path.count(" › ")
    for later, _, later_path in corpus.sets[set_index].sections(page_index):
        if later > start and later_path.count(" › ") <= depth:
            return start, later  # the next section not inside this one
    return start, len(corpus.page(set_index, page_index).content)


def _release_reply(scope, lead: ChunkRef, at: int, locale: str, kind: str):
    """The newest release, named, and the first lines of its notes (its subsections' too) as
    the site writes them."""
    corpus = scope.corpus
    chunk, page = corpus.chunk(lead), corpus.chunk_page(lead)
    _, _, anchor, path = section_at(corpus, lead.set, chunk.page, at)
    start, end = _region(corpus, lead.set, chunk.page, at)  # the release and its subsections
    body = page.content[start:end]
    heading = path.split(" › ")[-1] if anchor else page.title
    lines: list[str] = []
    in_code = False
    for line in body.split("\n")[1:]:  # below the release's own heading
        line = line.rstrip()
        if not line.strip():
            continue
        if not lines and _DATE_LINE.match(line) and _VERSION.search(line) is None:
            continue  # the release's date, said with its name
        if len(lines) >= RELEASE_LINES or sum(len(x) for x in lines) + len(line) > RELEASE_CHARS:
            if in_code:
                lines.append("```")
            lines.append("> …")
            break
        if line.startswith("```"):
            in_code = not in_code
            lines.append(line)
        elif in_code:
            lines.append(line)
        elif line.startswith("#"):
            lines.append(f"> **{line.lstrip('#').strip()}**")  # a subsection ("### Fixed")
        else:
            lines.append(f"> {line}")
    dated = f" ({chunk.lastmod})" if chunk.lastmod and chunk.lastmod not in heading else ""
    said = {"latest": "latest_release", "release": "release_notes"}.get(kind, "release_notes")
    if kind == "released" and (dated or _YEAR.search(heading)):
        said = "released"  # its date is the answer, its notes follow
    parts = [Part("lead", phrase(locale, said, release=f"{heading}{dated}"), page.url)]
    if lines:
        parts.append(Part("support", "\n".join(lines), page.url))
    url = f"{page.url}#{anchor}" if anchor else page.url
    label = page.title if not anchor or heading == page.title else f"{page.title} › {path}"
    parts.append(source_line(locale, label, url))
    return parts, [{"url": url, "title": label}]


def _subject_terms(scope, locale: str, home: ChunkRef) -> frozenset[str]:
    corpus = scope.corpus
    page = corpus.chunk_page(home)
    named = lexical.stem_terms(locale, page.title) - lexical.stem_terms(locale, TITLE_WORDS[locale])
    first = FIRST_SENTENCE.match(corpus.text(home))
    if first:
        named |= lexical.stem_terms(locale, first.group("subject"))
    return frozenset(named)
