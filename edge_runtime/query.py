"""The reader's question, normalised once: locale, search text, stemmed terms, key terms.

Every later step (retrieval, navigation, confidence, composition) reads the
`Query`; nothing stems the question again. Framing words ("how do I", "is
there", "do you support") say what kind of question it is, not what it is
about: they are terms for search but never key terms, so they are never
taken as evidence that the docs cover the question.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import cache, lru_cache

from askdocs.edge_runtime.conversation import ChatRequest, Turn, escalation_reason, search_query
from askdocs.edge_runtime.rarity import WORD_MIN_LETTERS, common_words, frequent_words, known_words

from askdocs import lexical


# Stems of words that say what kind of question it is, not what it is about.
def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


GENERIC = {
    "en": _words(
        "how what which where when why who whom whose do doe can could should would use us get set make "
        "need want way work there tell explain mean happen someth anyth thing possibl best document doc "
        "page much mani veri realli just abl allow option help know find anoth "
        # "chain filesystems together": that things are combined, not which
        "togeth "
        # What the tokenizer leaves of a contraction ("don't" -> "don", "I've" -> "ve"): a
        # "don" the docs never use counted against answering "so I don't get banned?".
        "don doesn didn isn aren wasn weren won wouldn couldn shouldn haven hasn hadn mustn needn "
        "ain ve ll re"
    ),
    "es": _words(
        "com cóm qué cuál cual dónd dond cuánd cuand quién pued deb hac usar us necesit quier form maner "
        "hay algo cos posibl mejor document pagin funcion sirv usa usan uso usam tien tengo hag sab "
        "permit opcion ayud"
    ),
}
# Whole phrases that frame a question; removed before key terms are taken ("does it support
# SAML?" is about SAML, "¿es compatible con SAML?" too). Search still sees the full text. In the
# passive the thing asked about stands between the verbs and stays ("Is SAML supported?" asked
# nothing once "SAML" went with its frame, and was answered "What would you like to know?").
_FRAMING = re.compile(
    r"\b(?:is|are)\s+(?!(?:you|it|they|we|there|this)\b)(?P<kept>[\w.]+(?:[\s-]+[\w.]+){0,2}?)\s+"
    r"(?:supported|offered|provided)\b"
    r"|\b(?:do|does|did|can|will|would|is|are)\s+(?:you|it|they|we|there|this|the\s+\w+|\w+)?\s*"
    r"(?:support|supports|supported|offer|offers|provide|provides|have|has)\b"
    r"|\b(?:is|are)\s+there\s+(?:any\s+|a\s+|an\s+)?(?:way|support|option|setting|feature)?\b"
    r"|\bsupport\s+for\b|\bhow\s+(?:do|can|should|would)\s+(?:i|we|you)\b"
    # "the difference between X and Y" asks about X and Y: the docs that compare them rarely say
    # "difference" (toolz's "What is the difference between toolz and cytoolz?" led with `diff`,
    # "Return those items that differ between sequences")
    r"|\b(?:the\s+)?differences?\s+between\b|\bla\s+diferencia\s+entre\b"
    # "how long a session lasts", "how often it retries": a duration or a frequency is asked
    r"|\bhow\s+(?:long|often)\b"
    r"|\b(?:soporta|soportan|admite|admiten|ofrece|ofrecen|tiene|tienen)\b"
    r"|\bes\s+compatible\s+con\b|\bhay\s+(?:alguna\s+)?(?:forma|manera|opci[oó]n)\b",
    re.I,
)
# About versions, dates or changes (`Query.temporal`: release notes count as answers, the newest
# wins). "changed", "removed", "cambió" ask about history; "change", "remove", "cambiar", "cambio"
# are how a reader asks to modify something ("how do I change the port?"). "When" asks about
# history with a past tense ("when was it removed?", "¿cuándo se añadió?"); otherwise it is the
# conjunction of "what happens when the server is slow?" or asks about use ("when should I…?").
# Likewise "desde" is "from" ("leer la configuración desde variables de entorno") unless "desde
# cuándo", and "nuevo" is "new" ("crear un recurso nuevo") unless "nuevo en" (as "new in").
# "Added" is history after "was", "which version" and the like ("why was it added?"), not as the
# reader's own doing ("I added an extension and the search box is gone"). A number is a version
# with a "v", three parts (not an address: 1.1.1.1) or after "version", "since" and the like;
# "HTTP/1.1" and "3.0 is accepted but 3.5 isn't" are not. Tuning answers: citation precision
# 0.818 -> 0.821, fact recall 0.715 -> 0.718 (httpx-034's "which httpx version" now reads the
# changelog; "I added one extension" no longer does); measured once after, held-out 0.849 ->
# 0.845 (a question that read the changelog because of "deserialize(12.9)"), fresh unchanged.
TEMPORAL = re.compile(
    r"\b(when\s+(?:was|were|did|has|have|had)|which version|what version|since|until|"
    r"changed|changelog|deprecat\w*|removed|"
    r"(?:was|were|been|got|(?:version|release)s?|\bwhich\s+\w+|\bwhat\s+\w+)\s+(?:\w+\s+)?added|"
    r"added\s+(?:in|since|support)|"
    r"new in|release[sd]?|latest|newest|recent(ly)?|upgrad\w*|migrat\w*|history|"
    r"cu[aá]ndo\s+(?:se\s+)?\w+(?:ó|aron|ieron)|desde\s+cu[aá]ndo|qu[eé] versi[oó]n|"
    r"cambi(?:ó|ad[oa]s?|aron|os)|obsolet\w*|"
    r"elimin(?:ó|ad[oa]s?|aron)|nuev[oa]s?\s+en|novedades|actualiz\w*)\b"
    r"|(?<![\w./])v\d+(?:\.\d+)+\b|(?<![\w./])\d+\.\d+\.\d+(?![.\d])"
    r"|\b(?:version|release|since|before|after|pre|post)\s+\d+(?:\.\d+)+\b",
    re.I,
)
# The same verbs as the state something is in, not its history: "a copy with one field changed",
# "can that be changed?", "is the header removed?".
_NOT_HISTORY = re.compile(
    r"\bwith\s+(?:\w+\s+){0,3}(?:changed|added|removed)\b"
    r"|\b(?:be|is|are|get|gets|getting|being)\s+(?:changed|added|removed)\b",
    re.I,
)


def about_history(text: str) -> bool:
    """The question asks about versions, dates or changes (`Query.temporal`)."""
    return bool(TEMPORAL.search(_NOT_HISTORY.sub(" ", text)) or VERSION_ASKED.search(text))


# A question that asks for a version or release ("which release added zstd decoding?", "since
# which version ...?", "¿desde qué versión ...?"): release notes are where that is written. Not
# a protocol's version ("which HTTP version was used?"). The gap after "when was" is bounded: a
# 4,000-character message of "when was …" took 35 ms unbounded (every start scans to the end).
# The protocols whose version is not a release (shared with `extractive._ASKS_WHICH_VERSION`).
NOT_A_PROTOCOL = r"(?!(?:http|https|protocol|tls|ssl)\b)"
VERSION_ASKED = re.compile(
    rf"\b(which|what)\s+{NOT_A_PROTOCOL}(\w+\s+){{0,2}}(version|release)s?\b|\b(since|until)\s+when\b|"
    r"\bwhen\s+(was|were|did)\b.{0,120}?\b(added|introduced|removed|dropped|deprecated|changed)\b|"
    r"\bqu[eé]\s+(\w+\s+){0,2}versi[oó]n\b|\bcu[aá]ndo\s+se\s+(a[nñ]adi|introdujo|elimin|quit)",
    re.I,
)


# "Which Ubuntu versions does it support?", "What Django versions is it compatible with?": the
# versions of another thing (a platform, a dependency) the product works with, not a release of
# the product ("Which Tornado version dropped support for Python 2.7?" asks a release).
COMPATIBILITY_ASKED = re.compile(
    rf"^\W*(?:which|what)\s+{NOT_A_PROTOCOL}(?:\w+\s+){{0,2}}?([^\W\d_][\w.+-]*)\s+versions?\b"
    r"(?=[^?]{0,120}\b(?:support|supports|supported|compatible|work|works|run|runs|require|requires|"
    r"required|need|needs)\b)(?![^?]{0,120}\b(?:added|introduced|removed|dropped|deprecated|changed|"
    r"fixed|first|shipped|released|since)\b)",
    re.I,
)
# How telling (`evidence.term_weights`, 1.0 the mean) the thing's name must be: a name most pages
# use is the product or the docs' subject ("Which Python versions can run Black?").
PLATFORM_WEIGHT = 1.0


def platform_asked(message: str) -> str | None:
    """The thing whose versions the question asks are supported (`COMPATIBILITY_ASKED`:
    "Which Ubuntu versions does Tallyfox support?" -> "ubuntu"), lowercased."""
    found = COMPATIBILITY_ASKED.match(message)
    return found.group(1).lower() if found else None


def platform_pattern(name: str) -> str:
    """Where the docs name the thing with a version: "Ubuntu 22.04", "Python v3"."""
    return rf"\b{re.escape(name)}\s+v?\d"


def telling_platform(query: Query, term_weights: dict[str, float] | None) -> str | None:
    """The thing whose versions the question asks are supported (`platform_asked`), when the docs
    name it rarely enough for its name to tell (`PLATFORM_WEIGHT` of `term_weights`)."""
    name = platform_asked(query.message)
    if name is None or term_weights is None:
        return None
    stems = lexical.stem_terms(query.locale, name)
    return name if stems and all(term_weights.get(t, 0.0) >= PLATFORM_WEIGHT for t in stems) else None


# A dotted or coded name starts where its run of name characters starts: tried from every position
# of a long run without one ("...." × 4,000) it took 0.3 s a message (4.4 s at 16,000). A flag may
# still start after a slash or a colon ("x/--flag"); a name no longer starts inside a run after
# one ("-e_:0Z": no dev question nor line of the example site holds one).
_IDENTIFIER = re.compile(
    r"(?:(?<![\w-])--?[A-Za-z][\w-]*|(?<![\w.:/-])[\w.:/-]*(?:\d|_|[a-z][A-Z]|\w[.\-/:]\w)[\w.:/-]*)"
)
_WORD = re.compile(r"[^\W\d_]+", re.U)
_SPANISH_MARKS = re.compile(r"[¿¡ñÑáéíóúÁÉÍÓÚ]")
_SPANISH_ASKS = re.compile(r"[¿¡]")


@dataclass(frozen=True)
class Query:
    message: str  # the reader's own words (in the docs' spelling: `docs_spelling`)
    text: str  # what is searched: a follow-up borrows the previous question's words
    locale: str  # the locale searched (the reader's, if it has pages)
    requested_locale: str
    terms: frozenset[str]  # index terms of `text`
    key_terms: frozenset[str]  # `terms` without framing words
    focus: frozenset[str]  # key terms of the reader's own words, when `text` borrowed history
    identifiers: tuple[str, ...]  # flags, env vars, codes, dotted names, verbatim (lowercased)
    temporal: bool  # about versions, dates or changes
    history: tuple[Turn, ...] = ()
    escalation: str | None = None  # why a person should be offered at once (frustration, ...)
    locale_detected: bool = False
    # The language of the reader's words when the site has no pages in it (French on an English
    # and Spanish site), and the site's languages: a refusal then suggests asking in one of them.
    foreign: str | None = None
    ask_in: tuple[str, ...] = ()
    # The reader's words searched as the docs' words one edit away (`docs_typos`), in pairs.
    respelled: tuple[tuple[str, str], ...] = ()
    # Names the docs write that the reader said as words ("create a batch": `create_batch`).
    named: tuple[str, ...] = ()
    # The message as the reader sent it, pasted code and traces included: what a language
    # model is shown (it reads a config or a traceback; search does not).
    written: str = ""

    @property
    def locale_fallback(self) -> bool:
        return self.locale != self.requested_locale

    def weight(self, term: str) -> float:
        """How much a key term counts: a follow-up's own words double, the words it borrowed
        from the previous question half (they find the previous answer again); 1 without
        history. The composer weighs unit scores by it, the second stage its coverage signals."""
        if not self.focus:
            return 1.0
        return 2.0 if term in self.focus else 0.5

    @property
    def asks_version(self) -> bool:
        """The reader asks which version or release did something (their own words)."""
        return bool(VERSION_ASKED.search(self.message))

    @property
    def normalized(self) -> str:
        return " ".join(self.text.lower().split())

    @property
    def lexical_text(self) -> str:
        """What BM25 matches: a follow-up's meaning needs the question it follows (the dense
        model reads both), but its own words say what is new; the previous question's words
        would make BM25 find the previous answer again (follow-ups of the tuning sets: R@1 of
        the fusion 0.76 -> 0.84)."""
        text = self.message if self.history and self.text != self.message else self.text
        text = with_expansions(self.locale, text)
        return f"{text} {' '.join(self.named)}" if self.named else text


# Shorthand readers type for what manuals spell out ("redirect stdout and stderr" for Bash's
# "Redirecting Standard Output and Standard Error"): BM25 also matches the spelled-out words.
_EXPANSIONS = {
    "en": {
        "stdout": "standard output",
        "stderr": "standard error",
        "stdin": "standard input",
        "env": "environment",
        "envvar": "environment variable",
        "envvars": "environment variables",
        "var": "variable",
        "vars": "variables",
        "repo": "repository",
        "repos": "repositories",
        "dir": "directory",
        "dirs": "directories",
        "regex": "regular expression",
        "regexes": "regular expressions",
        "regexp": "regular expression",
        "args": "arguments",
        "arg": "argument",
        "db": "database",
        "dbs": "databases",
        "tz": "time zone",
        "pwd": "password",
        "cwd": "current working directory",
        "perms": "permissions",
        "msg": "message",
        "msgs": "messages",
        "pkg": "package",
        "pkgs": "packages",
        "deps": "dependencies",
        "param": "parameter",
        "params": "parameters",
        "lib": "library",
        "libs": "libraries",
        "cert": "certificate",
        "certs": "certificates",
        "sso": "single sign-on",
        "mfa": "multi-factor authentication",
        "rbac": "role-based access control",
        "acl": "access control list",
        "acls": "access control lists",
        "ttl": "time to live",
        "jwt": "JSON web token",
        "oidc": "OpenID Connect",
        # Stop 50: tuning citation precision 0.853 -> 0.854, fact recall 0.782 -> 0.785 (pytest's
        # "minimum Python version", FastAPI's "file-like obj"), blind 0.634 -> 0.649. Not "config"
        # nor "auth": "configuration" and "authentication" drew Pydantic's mypy settings and
        # FastAPI's OAuth2 page into answers about a model's `extra` config and a test's fake user.
        "info": "information",
        "max": "maximum",
        "min": "minimum",
        "temp": "temporary",
        "tmp": "temporary",
        "attr": "attribute",
        "attrs": "attributes",
        "func": "function",
        "funcs": "functions",
        "obj": "object",
        "objs": "objects",
        # One protocol under both the names docs use for it: a question about TLS where the
        # docs say SSL ("SSL support", `ssl_certificate`), and back.
        "ssl": "TLS",
        "tls": "SSL",
    },
}
_SHORTHAND = re.compile(r"[A-Za-z]+")


@cache
def spelled_out(locale: str) -> dict[str, frozenset[str]]:
    """Each shorthand's stem -> the stems of its spelled-out form ("stdout" -> {"standard",
    "output"})."""
    return {
        short: frozenset(lexical.stem_terms(locale, long))
        for word, long in _EXPANSIONS.get(locale, {}).items()
        for short in lexical.stem_terms(locale, word)
    }


def with_expansions(locale: str, text: str) -> str:
    """The text with the spelled-out form of its shorthand words appended (`_EXPANSIONS`)."""
    table = _EXPANSIONS.get(locale)
    if not table:
        return text
    found = {table[w.lower()] for w in _SHORTHAND.findall(text) if w.lower() in table}
    return f"{text} {' '.join(sorted(found))}" if found else text


# Words whose opposite shares the rest of a passage's words: "Streaming Uploads" ("send large
# streams or files without reading them into memory") matches "download a large file without
# loading it into memory" in every word but the one that says which way.
_OPPOSITES = {
    "en": (
        "download upload",
        "import export",
        "encode decode",
        "encrypt decrypt",
        "serialize deserialize",
        "serialization deserialization",
        "compress decompress",
        "enable disable",
        "install uninstall",
        "inbound outbound",
        "incoming outgoing",
        "login logout",
        "synchronous asynchronous",
        "sync async",
        "minimum maximum",
        "uppercase lowercase",
        "ascending descending",
    ),
    "es": (
        "importar exportar",
        "codificar decodificar",
        "cifrar descifrar",
        "serializar deserializar",
        "comprimir descomprimir",
        "habilitar deshabilitar",
        "instalar desinstalar",
        "síncrono asíncrono",
        "mínimo máximo",
    ),
}


@cache
def _opposite_stems(locale: str) -> dict[str, frozenset[str]]:
    opposite: dict[str, set[str]] = {}
    for pair in _OPPOSITES.get(locale, ()):
        first, second = (lexical.stem_terms(locale, word) for word in pair.split())
        for a in first:
            opposite.setdefault(a, set()).update(second - first)
        for b in second:
            opposite.setdefault(b, set()).update(first - second)
    return {term: frozenset(found) for term, found in opposite.items() if found}


def opposed(locale: str, terms: frozenset[str]) -> dict[str, frozenset[str]]:
    """For each of `terms` that has an opposite the question does not also name: those
    opposites ({"download": {"upload"}})."""
    table = _opposite_stems(locale)
    return {t: table[t] - terms for t in terms if t in table and table[t] - terms}


# What follows a number that counts the reader's things or measures an amount: "scale to 1000 hosts",
# "at most 5 requests in flight", "longer than 300 seconds", "below 85%". Such a number is no name:
# as an exact token it matched an unrelated default of the same value ("`agent.max_batch` | `1000`")
# and led the answer with it. A number after what it names stays one ("port 7431", "exit code 5"), and
# so does one before a plural that names codes ("404 errors", "302 responses").
_COUNTED = re.compile(
    r"\s*(?:%|percent\b|(?!(?:error|code|response|status|statuse|port|exception|warning)s\b)[a-z]{3,}s\b|"
    r"(?:ms|kb|mb|gb|tb|kib|mib|gib|min|sec|secs|hrs?|rps|qps)\b|"
    r"(?:second|minute|hour|day|week|month|year|time|request|host|user|worker|thread|process|connection|"
    r"item|page|row|line|file|test|byte)s?\b)",
    re.I,
)


_BARE_NUMBER = re.compile(r"(?<![\w.,-])\d+(?![\w.,])")


def counted(text: str) -> dict[str, str]:
    """The numbers of `text` that count or measure something (`_COUNTED`), each with the word
    that says what ("1000 hosts": {"1000": "hosts"}, "85%": {"85": "%"})."""
    out = {}
    for match in _BARE_NUMBER.finditer(text):
        after = _COUNTED.match(text, match.end())
        if after:
            out[match.group(0)] = after.group(0).strip()
    return out


def identifier_tokens(text: str) -> tuple[str, ...]:
    """Tokens that name something exactly: flags (`-e` too), env vars, codes, dotted names."""
    out: list[str] = []
    for match in _IDENTIFIER.finditer(text):
        token = match.group(0).strip(".:/")
        if len(token) < 3 and not (_SHORT_FLAG.fullmatch(token.lower()) and _flag_asked(text, match.end())):
            continue
        if token.isdigit() and _COUNTED.match(text, match.end()):
            continue  # a count of the reader's ("1000 hosts", "10 requests per second"), not a name
        if token.lower() not in out:
            out.append(token.lower())
    return tuple(out)


# A plain word the identifier pattern reads as a name ("FastAPI", "cmd2", "OpenAPI") that a fifth
# or more of the reader's docs hold is the product's name or the docs' subject, not a name that
# points anywhere: matched verbatim it ranked the first chunks of the site first (every candidate
# held it; ties kept document order) and made a composer lead with any sentence naming the product.
COMMON_IDENTIFIER = 0.2
_PLAIN_NAME = re.compile(r"[a-z0-9]+")


# A lowercase word of two everyday words joined by a hyphen ("built-in", "per-test",
# "session-wide", "long-lived") is English, not a name: read as one it was an exact token that
# pytest's flag list and plugin list held ("per-test" led "which fixture gets created first: a
# per-test or a session-wide one?" to them). Three parts or more ("class-not-fully-defined", an
# error code), a part the language rarely uses ("pytest-xdist", "gh-deploy") or a capital as
# written ("Content-Length") still name something.
_TWO_WORDS = re.compile(r"(?<![\w-])([a-z]+)-([a-z]+)(?![\w-])")


_SHORT_PARTS = frozenset({"in", "on", "up", "by", "to", "of", "re", "co"})  # "built-in", "re-run"; not "gh"


def _english_compounds(locale: str, written: str) -> set[str]:
    words = common_words(locale)
    if not words:
        return set()

    def everyday(part: str) -> bool:
        return part in _SHORT_PARTS or len(part) >= 3 and part in words

    return {m.group(0) for m in _TWO_WORDS.finditer(written) if everyday(m.group(1)) and everyday(m.group(2))}


def telling_identifiers(scope, locale: str, tokens: tuple[str, ...], written: str = "") -> tuple[str, ...]:
    """`tokens` without the plain words held by `COMMON_IDENTIFIER` of the visible chunks or
    more, nor the everyday hyphenated words `written` holds (`_english_compounds`). Flags, dotted
    names, env vars and codes always stay: their pieces may be common words ("--no-service"), the
    whole is not."""
    if written and (compounds := _english_compounds(locale, written)):
        tokens = tuple(t for t in tokens if t not in compounds)
    plain: dict[str, str] = {}
    for token in tokens:
        if _PLAIN_NAME.fullmatch(token) and len(terms := lexical.stem_terms(locale, token)) == 1:
            plain[token] = next(iter(terms))
    if not plain:
        return tokens
    counts, total = scope.document_frequencies(locale, set(plain.values()))
    if not total:
        return tokens
    return tuple(t for t in tokens if t not in plain or counts.get(plain[t], 0) < COMMON_IDENTIFIER * total)


def _flag_asked(text: str, end: int) -> bool:
    """Whether a one-letter flag is what is asked about ("what does set -e do?", "-x and -v"), not
    the switch before the name that is ("shopt -s globstar": globstar is asked about)."""
    after = _NEXT_WORD.match(text, end)
    return after is None or after.group(1).lower() in _AFTER_FLAG


_NEXT_WORD = re.compile(r"\s+([A-Za-z]\w*)")
# Words after a flag that ask about it, or leave it: the question goes on ("-e do?", "-x option").
_AFTER_FLAG_WORDS = (
    "do does did mean means meant option options flag flags switch switches argument parameter "
    "to for in on and or with when if is are was of by from at vs versus y o con para en es hace "
    "significa opción"
)
_AFTER_FLAG = frozenset(_AFTER_FLAG_WORDS.split())


# A one-letter flag ("set -e", "pytest -k") names an option as exactly as `--verbose`, but as a
# substring it is in every hyphenated word ("pre-empt"): it counts only standing alone.
_SHORT_FLAG = re.compile(r"-[a-z]")
# A long option names one option: "--strip" is not in "--strip-trailing-cr".
_LONG_FLAG = re.compile(r"--[a-z][a-z0-9]*(?:-[a-z0-9]+)*")


# A version number ("2.0") names one release: as a substring it is in "2.12.0", "12.0" and
# "2.0b1" too. It counts standing alone, written bare or as "v2.0", and not inside a longer one.
_VERSION_TOKEN = re.compile(r"\d+(\.\d+)+")


@lru_cache(maxsize=512)  # keyed by readers' tokens: bounded, whatever they send
def _alone(token: str) -> re.Pattern:
    if _VERSION_TOKEN.fullmatch(token):
        return re.compile(rf"(?:(?<![\w.-])|(?<=^v)|(?<=[^\w.-]v)){re.escape(token)}(?!\w|\.\d)")
    return re.compile(rf"(?<![\w-]){re.escape(token)}(?![\w-])")


def identifier_pattern(token: str) -> str:
    """A regular expression for `grep` (RE2: no lookaround) finding the identifier as `mentions`
    does."""
    if _SHORT_FLAG.fullmatch(token) or _LONG_FLAG.fullmatch(token):
        return rf"(?:^|[^\w-]){re.escape(token)}(?:[^\w-]|$)"
    if _VERSION_TOKEN.fullmatch(token):
        return rf"(?:^|[^\w.-]|(?:^|[^\w.-])v){re.escape(token)}(?:[^\w.]|\.(?:[^\d]|$)|$)"
    return re.escape(token)


def mentions(lowered: str, token: str) -> bool:
    """Whether a lowercased text holds an identifier of the question (`identifier_tokens`)."""
    if _SHORT_FLAG.fullmatch(token) or _LONG_FLAG.fullmatch(token) or _VERSION_TOKEN.fullmatch(token):
        return _alone(token).search(lowered) is not None
    return token in lowered


# Tokens the identifier pattern catches that are ordinary words, not names: sizes and
# durations (30s, 10MB), hyphenated or slashed words (air-gapped, js/css), 4xx/5xx, e.g.
_WEAK_IDENTIFIER = re.compile(r"\d+(\.\d+)?[a-z]{1,3}|[a-z]+(-[a-z]+)+|[a-z]+/[a-z]+|\dxx/\dxx|[a-z]\.[a-z]")


def names_in(identifiers: tuple[str, ...]) -> list[str]:
    """The identifiers that name something (a flag, `httpx.Limits`, TFX-1042), not sizes or
    hyphenated words."""
    return [t for t in identifiers if not _WEAK_IDENTIFIER.fullmatch(t)]


# British and American spellings of one word: "colour"/"color", "behaviour", "initialise"/
# "initialize", "serialisation", "analyse", "centre", "licence", "catalogue", "cancelled"/
# "canceled", "modelling". A reader's word the docs never use is searched in the docs' spelling
# when the docs use that one (`docs_spelling`); the rules alone would also turn "filed" into
# "filled", so each needs a few letters before the part it changes, and the docs must use the
# result while never using the reader's word.
_SPELLING_RULES = (
    (re.compile(r"^([a-z]{2,})our(s|ed|ing|ful|able|ite|ites)?$"), r"\1or\2"),
    (re.compile(r"^([a-z]{3,})or(s|ed|ing|ful|able|ite|ites)?$"), r"\1our\2"),
    (re.compile(r"^([a-z]{3,})is(e|es|ed|ing|ation|ations|er|ers)$"), r"\1iz\2"),
    (re.compile(r"^([a-z]{3,})iz(e|es|ed|ing|ation|ations|er|ers)$"), r"\1is\2"),
    (re.compile(r"^([a-z]{2,})ys(e|es|ed|ing)$"), r"\1yz\2"),
    (re.compile(r"^([a-z]{2,})yz(e|es|ed|ing)$"), r"\1ys\2"),
    (re.compile(r"^([a-z]{3,})tre(s)?$"), r"\1ter\2"),
    (re.compile(r"^([a-z]{3,})ter(s)?$"), r"\1tre\2"),
    (re.compile(r"^([a-z]{3,})ence(s)?$"), r"\1ense\2"),
    (re.compile(r"^([a-z]{3,})ense(s)?$"), r"\1ence\2"),
    (re.compile(r"^([a-z]{3,})ogue(s)?$"), r"\1og\2"),
    (re.compile(r"^([a-z]{3,})og(s)?$"), r"\1ogue\2"),
    (re.compile(r"^([a-z]{3,}[aeiou])ll(ed|ing|er|ers)$"), r"\1l\2"),
    (re.compile(r"^([a-z]{3,}[aeiou])l(ed|ing|er|ers)$"), r"\1ll\2"),
)
_LATIN_WORD = re.compile(r"[A-Za-z]+")


def spelling_variants(word: str) -> list[str]:
    """The other spellings of an English word (`_SPELLING_RULES`), lowercased."""
    lowered = word.lower()
    return [rule.sub(replacement, lowered) for rule, replacement in _SPELLING_RULES if rule.match(lowered)]


def docs_spelling(scope, locale: str, text: str) -> str:
    """The text with each word the reader's docs never use, and whose other spelling they do
    use, written the docs' way ("colour" on a site that writes "color")."""
    if locale != "en" or scope is None:
        return text
    variants = {w: v for w in set(_LATIN_WORD.findall(text)) if (v := spelling_variants(w))}
    replace = _docs_choice(scope, locale, variants)
    if not replace:
        return text
    return _LATIN_WORD.sub(lambda m: replace.get(m.group(0), m.group(0)), text)


def _docs_choice(scope, locale: str, options: dict[str, list[str]]) -> dict[str, str]:
    """Each word of `options` (as the reader wrote it) that the docs never use, with the first of
    its other forms (lowercase) that they do use, in the reader's case."""
    if not options:
        return {}
    forms = set(options) | {v for vs in options.values() for v in vs}
    stems = {w: lexical.stem_terms(locale, w) for w in forms}
    counts, _ = scope.document_frequencies(locale, set().union(*stems.values()))
    used = {w: bool(s) and all(counts.get(t, 0) > 0 for t in s) for w, s in stems.items()}
    chosen = {}
    for word, others in options.items():
        # A stop word ("do") is no word the docs could lack: it is not searched at all.
        pick = None if used[word] or not stems[word] else next((v for v in others if used[v]), None)
        if pick:
            chosen[word] = pick.capitalize() if word[:1].isupper() else pick
    return chosen


# A reader's slip of the keyboard ("webhoks", "Windoes", "memroy") is a word neither the docs nor
# the language use; left alone it is searched for nothing and, being rare in the language, taken
# for the name of something the docs do not cover: the question is refused. `docs_typos` searches
# it as the docs' word one edit away (a letter dropped, added, changed, or two swapped). Words
# shorter than `TYPO_MIN_LETTERS` have too many neighbours one edit away to choose from; the
# first letter is never changed (typos seldom touch it, and "gevent" is not "event").
TYPO_MIN_LETTERS = WORD_MIN_LETTERS
# Each word checked costs a few hundred stemmed spellings (about 10 ms): a message of four
# thousand letters of nonsense must not cost seconds. The first few such words are checked.
TYPO_MAX_WORDS = 4
TYPO_MAX_LETTERS = 20
TYPO_MIN_CHUNKS = 2
_TYPO_LETTERS = {"en": "abcdefghijklmnopqrstuvwxyz", "es": "abcdefghijklmnopqrstuvwxyzáéíóúüñ"}
# Only plain words are checked: not part of a name (`max_redirects`, `httpx.Client`, `--env-file`,
# `/api/v2`), written in lower case or capitalised (not `GraphQL`, `JSON`).
_WORD_RUN = re.compile(r"\w+", re.U)
_PLAIN_WORD = re.compile(r"[A-ZÁÉÍÓÚÑ]?[a-záéíóúüñ]+")
_NAME_PART = re.compile(r"[.:/-]\w|[/-]")  # the word is glued to a name's other parts
_SENTENCE_END = re.compile(r"[.!?¿¡:\n]")


def one_edit(word: str, letters: str) -> set[str]:
    """Every spelling one edit from `word` (lowercase) that keeps its first letter."""
    out = set()
    for i in range(1, len(word) + 1):
        head, tail = word[:i], word[i:]
        if tail:
            out.add(head + tail[1:])
            for c in letters:
                out.add(head + c + tail[1:])
        if len(tail) > 1:
            out.add(head + tail[1] + tail[0] + tail[2:])
        for c in letters:
            out.add(head + c + tail)
    out.discard(word)
    return out


def docs_typos(scope, locale: str, text: str) -> dict[str, str]:
    """The reader's words that look mistyped, each with the docs' word one edit away: words that
    are not words of the language (`rarity.known_words`) and that the reader's docs never use,
    for which the docs use a word one edit away (the one they use most; of equals, the longer,
    then the alphabetically first: "install" before "instal"). A capitalised word inside a
    sentence is a name: it is read only as a name the docs use ("Tallyfx" for "Tallyfox"), never
    as a word of the language ("my Procfile" is not "my Profile"). Restricted pages never count:
    a correction never names their words."""
    letters = _TYPO_LETTERS.get(locale)
    words = known_words(locale) if letters else None
    if words is None or scope is None:
        return {}
    suspects: dict[str, int] = {}  # in the order they come
    names, previous = set(), None
    for match in _WORD_RUN.finditer(text):
        word, gap = match.group(0), text[previous : match.start()] if previous is not None else "."
        previous = match.end()
        if not TYPO_MIN_LETTERS <= len(word) <= TYPO_MAX_LETTERS or not _PLAIN_WORD.fullmatch(word):
            continue
        if word.lower() in words:
            continue
        if _NAME_PART.match(text, match.end()) or (
            match.start() and _NAME_PART.match(text, match.start() - 1)
        ):
            continue
        suspects.setdefault(word, len(suspects))
        if word[0].isupper() and not _SENTENCE_END.search(gap):
            names.add(word)
    if not suspects:
        return {}
    own = {w: lexical.stem_terms(locale, w.lower()) for w in suspects}
    counts, _ = scope.document_frequencies(locale, set().union(*own.values()))
    unknown = [w for w, stems in own.items() if stems and not any(counts.get(t, 0) for t in stems)]
    unknown = sorted(unknown, key=suspects.get)[:TYPO_MAX_WORDS]
    corrections: dict[str, str] = {}
    for word in unknown:
        options = {v: lexical.stem_terms(locale, v) for v in one_edit(word.lower(), letters)}
        options = {v: stems for v, stems in options.items() if stems}
        if not options:
            continue
        found, _ = scope.document_frequencies(locale, set().union(*options.values()))
        used = {v: n for v, stems in options.items() if (n := min(found.get(t, 0) for t in stems))}
        # A word of the language the docs use first ("certificate", not "certifate", which stems
        # alike); else a word the docs use in `TYPO_MIN_CHUNKS` chunks or more and index nearly as
        # written ("webhooks": "webhook"), not one that only stems like a docs word ("defful": "def").
        as_written = [
            v for v in used if used[v] >= TYPO_MIN_CHUNKS and all(len(t) >= len(v) - 2 for t in options[v])
        ]
        if word in names:
            chosen = [v for v in as_written if v not in words]
        else:
            chosen = [v for v in used if v in words] or as_written
        if chosen:
            best = min(chosen, key=lambda v: (-used[v], -len(v), v))
            corrections[word] = best.capitalize() if word[:1].isupper() else best
    return corrections


# A word written without the separators of a name the docs use: "TFX1042" for `TFX-1042`,
# "maxagedays" for `max_age_days`. Of four characters or more, holding a digit or of six or more
# (a plain short word is not taken for a name's parts); not a part of a longer name
# (`prebuild_index`, `twisted/internet/_sslverify.py`), and not a name in another convention
# ("firstName" is the reader's own camelCase, not the docs' `first_name`).
_JOINED = re.compile(r"(?<![\w.:/-])[^\W_]{4,40}(?![\w-]|[.:/]\w)", re.U)
_CAMEL = re.compile(r"[a-z][A-Z]")


_CODE = re.compile(r"([^\W\d_]{2,})(\d{2,})", re.U)


def docs_joined_names(scope, locale: str, text: str) -> dict[str, str]:
    """The reader's words the docs never use that are a name the docs use written without its
    separators ("TFX1042": `TFX-1042`), each with that name in the reader's case. Only names on
    pages the reader may read count."""
    if scope is None:
        return {}
    words = list(
        dict.fromkeys(
            m.group(0)
            for m in _JOINED.finditer(text)
            if (any(c.isdigit() for c in m.group(0)) or len(m.group(0)) >= 6)
            and not _CAMEL.search(m.group(0))
        )
    )[:TYPO_MAX_WORDS]
    if not words:
        return {}
    stems = {w: lexical.stem_terms(locale, w.lower()) for w in words}
    counts, _ = scope.document_frequencies(locale, set().union(*stems.values()))
    unused = {w: next(iter(s)) for w, s in stems.items() if len(s) == 1 and not counts.get(next(iter(s)), 0)}
    if not unused:
        return {}
    joined = scope.corpus.joined_names(locale)
    found = {w: joined[t] for w, t in unused.items() if t in joined}
    out = {}
    if found:
        visible, _ = scope.document_frequencies(locale, set(found.values()))
        out = {w: _separated(w, name) for w, name in found.items() if visible.get(name, 0)}
    for word in [w for w in unused if w not in out]:
        # A code the index keeps in two parts ("TFX-1042": "tfx", "1042"): written as the docs
        # write it where a chunk holds both parts.
        parts = _CODE.fullmatch(word)
        if parts is None:
            continue
        head, tail = parts.group(1), parts.group(2)
        terms = [t for p in (head, tail) for t in lexical.stem_terms(locale, p.lower())]
        if len(terms) != 2:
            continue
        for said in scope.texts_holding(locale, terms):
            written = re.search(rf"(?<!\w){re.escape(head)}([-_ ]){re.escape(tail)}(?!\w)", said, re.I)
            if written:
                out[word] = f"{head}{written.group(1)}{tail}"
                break
    return out


_ARTICLES = frozenset({"a", "an", "the"})
NAMED_MAX_WORDS = 3
_PHRASE_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*|[^\sA-Za-z0-9]")


def docs_named_words(scope, locale: str, text: str) -> dict[str, frozenset[str]]:
    """The names the docs write with separators that the reader said as words, two or three in a
    row (articles left out), one of them a word the docs use only inside names: "create a batch"
    where the docs write `create_batch` and never "batch" alone. Each with the index terms of the
    words it stands for that the docs never use. Only names on pages the reader may read count."""
    if scope is None:
        return {}
    stop = _function_words(locale)
    runs, run = [], []
    for token in _PHRASE_WORD.findall(text):
        word = token.lower()
        if not word[0].isalnum():
            runs.append(run)
            run = []
        elif word not in _ARTICLES:
            run.append(word)
    runs.append(run)
    stems = {w: lexical.stem_terms(locale, w) for run in runs for w in run}
    counts, _ = scope.document_frequencies(locale, set().union(*stems.values()))
    unused = {w for w, s in stems.items() if s and not any(counts.get(t, 0) for t in s)}
    if not unused:
        return {}
    joined = scope.corpus.joined_names(locale)
    found: dict[str, frozenset[str]] = {}
    for run in runs:
        for size in range(NAMED_MAX_WORDS, 1, -1):
            for at in range(len(run) - size + 1):
                words = run[at : at + size]
                if words[0] in stop or words[-1] in stop or not unused.intersection(words):
                    continue
                together = "".join(words)
                for key in (together, *lexical.stem_terms(locale, together)):
                    name = joined.get(key)
                    if name is not None and name not in found:
                        found[name] = frozenset().union(*(stems[w] for w in words if w in unused))
                        break
    if not found:
        return {}
    names = list(found)[:TYPO_MAX_WORDS]
    visible, _ = scope.document_frequencies(locale, set(names))
    return {n: found[n] for n in names if visible.get(n, 0)}


def _separated(word: str, name: str) -> str:
    """`word` with the separators `name` has where it has them ("TFX1042", "tfx-1042": "TFX-1042")."""
    out, at = [], 0
    for char in name:
        if char in "-_" and (at >= len(word) or word[at] not in "-_"):
            out.append(char)
        elif at < len(word):
            out.append(word[at])
            at += 1
    return "".join(out) + word[at:]


# A word the reader joins that the docs write as two ("whitespace" where GNU diff's manual writes
# "white space", "filename" for "file name"), or two the docs only ever join ("back up" in docs
# that only write "backup"): searched as the reader wrote it, it finds nothing or only the parts,
# and the question is refused or answered from elsewhere. `docs_compounds` searches it as the docs write
# it, when they never write it the reader's way, the parts are everyday words of the language, and
# the docs write it their way on a page the reader may read (two words: side by side, not merely
# both somewhere; joined: in `TYPO_MIN_CHUNKS` chunks or more).
COMPOUND_MIN_LETTERS = 5
COMPOUND_SAMPLE = 20  # chunks holding both parts read for the two side by side
# Each pair of words (not "built-in", not the "re" of "we're").
_WORD_PAIR = re.compile(r"(?<![\w'’-])(?=([A-Za-z]+)([ \t]+)([a-z]+)(?![\w'’-]))")


def docs_compounds(scope, locale: str, text: str) -> dict[str, str]:
    """The reader's words the docs never use written as the docs write them: one word as two,
    two as one ("back up": "backup")."""
    words = frequent_words(locale)  # the parts: everyday words ("file", "name", "off", "site")
    language = known_words(locale)  # two joined: a word of the language ("backup", "login")
    if words is None or language is None or scope is None:
        return {}
    joined = list(
        dict.fromkeys(
            w
            for w in _WORD_RUN.findall(text)
            if COMPOUND_MIN_LETTERS <= len(w) <= TYPO_MAX_LETTERS and _PLAIN_WORD.fullmatch(w)
        )
    )
    # Two joined: English only (Spanish "devolver la" is a verb and its pronoun, not "devolverla").
    pairs = (
        []
        if locale != "en"
        else list(
            dict.fromkeys(
                ("".join(m.groups()), m.group(1), m.group(3))
                for m in _WORD_PAIR.finditer(text)
                if _PLAIN_WORD.fullmatch(m.group(1))
                and m.group(1).lower() in words
                and m.group(3) in words
                and (m.group(1) + m.group(3)).lower() in language  # "backup", not "mymodel"
            )
        )[:TYPO_MAX_WORDS]
    )
    if not joined and not pairs:
        return {}
    own = {w: lexical.stem_terms(locale, w.lower()) for w in joined}
    together = {pair: lexical.stem_terms(locale, (pair[1] + pair[2]).lower()) for pair in pairs}
    counts, _ = scope.document_frequencies(locale, set().union(*own.values(), *together.values()))
    out: dict[str, str] = {}
    unused = [w for w, stems in own.items() if stems and not any(counts.get(t, 0) for t in stems)]
    for word in unused[:TYPO_MAX_WORDS]:
        lowered = word.lower()
        splits = [
            (lowered[:i], lowered[i:])
            for i in range(2, len(lowered) - 1)
            if lowered[:i] in words and lowered[i:] in words
        ]
        parts = {p: lexical.stem_terms(locale, p) for split in splits for p in split}
        found, _ = scope.document_frequencies(locale, set().union(*parts.values())) if parts else ({}, 0)
        best, most = None, 0
        for first, second in splits:
            stems = sorted(parts[first] | parts[second])
            if stems and all(found.get(t, 0) for t in stems):
                seen = _side_by_side(scope, locale, first, second, stems)
                if seen > most:
                    best, most = f"{first} {second}", seen
        if best:
            out[word] = best.capitalize() if word[:1].isupper() else best
    for (written, first, second), stems in together.items():
        if len(stems) != 1 or min(counts.get(t, 0) for t in stems) < TYPO_MIN_CHUNKS:
            continue  # the docs do not use the joined word (or it stems to more than one)
        apart = sorted(lexical.stem_terms(locale, f"{first} {second}"))
        seen = _side_by_side(scope, locale, first.lower(), second, apart) if apart else 0
        if not seen:
            out[written] = first + second
    return out


def _side_by_side(scope, locale: str, first: str, second: str, stems: list[str]) -> int:
    """How often the chunks holding `stems` (a sample) write `first` and `second` side by side."""
    pattern = re.compile(rf"(?<![^\W\d_]){first}[ \t-]+{second}", re.I)
    return sum(
        len(pattern.findall(chunk)) for chunk in scope.texts_holding(locale, stems, limit=COMPOUND_SAMPLE)
    )


# Two words documentation uses for one thing ("headings" where Python-Markdown's docs say
# "headers", "folder" where others say "directory"): a reader's word the docs never use is searched
# as the other when the docs use that one (`docs_synonyms`, listed in `respelled`); else, never
# written in the docs, it reads as the name of something they do not cover and the question is
# refused. Only pairs that mean the same in any software manual.
_SYNONYMS = {
    "en": (
        ("heading", "header"),
        ("headings", "headers"),
        ("folder", "directory"),
        ("folders", "directories"),
        ("delete", "remove"),
        ("deletes", "removes"),
        ("deleted", "removed"),
        ("deleting", "removing"),
        ("argument", "parameter"),
        ("arguments", "parameters"),
        ("app", "application"),
        ("apps", "applications"),
        ("several", "multiple"),
    ),
}


# The forms of an irregular verb stem apart ("undone" -> "undon", "undoing" -> "undo"; "written",
# "write"): a reader asking "Are patches undone after each test?" of docs that say "undoing the
# mocking automatically after the end of the test" shares no word with them, and was refused. A
# form the docs never use is searched as the first of its verb's other forms they do (base form,
# participle, past). Verbs common in software manuals; not the ones whose forms are other words
# there too ("left", "bound", "found", "saw", "led", "laid", "shot", "won"), nor "go" (a language).
_IRREGULAR_VERBS = {
    "en": (
        "begin began begun; break broke broken; bring brought; build built; buy bought; catch caught;"
        " choose chose chosen; deal dealt; do did done; draw drew drawn; drive drove driven; eat ate eaten;"
        " fall fell fallen; feed fed; fly flew flown; forbid forbade forbidden; forget forgot forgotten;"
        " freeze froze frozen; get got gotten; give gave given; grow grew grown;"
        " hide hid hidden; hold held; keep kept; know knew known; lose lost; make made; mean meant;"
        " override overrode overridden; overwrite overwrote overwritten; rebuild rebuilt; redo redid redone;"
        " rerun reran; rewrite rewrote rewritten; rise rose risen; run ran; seek sought; send sent;"
        " shake shook shaken; show showed shown; shrink shrank shrunk; speak spoke spoken; spend spent;"
        " steal stole stolen; take took taken; teach taught; tear tore torn; think thought;"
        " throw threw thrown; undo undid undone; understand understood; wake woke woken;"
        " withdraw withdrew withdrawn; write wrote written"
    ),
}


@cache
def _synonym_table(locale: str) -> dict[str, tuple[str, ...]]:
    table: dict[str, tuple[str, ...]] = {}
    for one, other in _SYNONYMS.get(locale, ()):
        table[one], table[other] = (other,), (one,)
    for verb in _IRREGULAR_VERBS.get(locale, "").split(";"):
        forms = verb.split()
        for form in forms:
            table.setdefault(form, tuple(f for f in [forms[0], *forms[:0:-1]] if f != form))
    return table


def docs_synonyms(scope, locale: str, text: str) -> dict[str, str]:
    """The reader's words the docs never use whose synonym (`_SYNONYMS`) or other form of the same
    irregular verb (`_IRREGULAR_VERBS`) they do use, each with it."""
    table = _synonym_table(locale)
    if not table or scope is None:
        return {}
    return _docs_choice(
        scope, locale, {w: list(table[w.lower()]) for w in _LATIN_WORD.findall(text) if w.lower() in table}
    )


def respell(text: str, replacements: dict[str, str]) -> str:
    """`text` with each whole word of `replacements` replaced (and each pair of words: "back up")."""
    if not replacements:
        return text
    for written in [w for w in replacements if not _WORD_RUN.fullmatch(w)]:
        text = re.sub(rf"(?<!\w){re.escape(written)}(?!\w)", replacements[written], text)
    return _WORD_RUN.sub(lambda m: replacements.get(m.group(0), m.group(0)), text)


# A pasted stack trace: its frames (file paths, line numbers, function names, the code of each
# line) drown the words that matter, the error's type and message, in words no docs page uses,
# and the question is refused ("Traceback (most recent call last): File "app.py", line 12, in
# <module> ... httpx.ReadTimeout: The read operation timed out"). They are not searched.
_TRACE_FRAME = re.compile(
    r"Traceback \(most recent call last\):?"
    r"|During handling of the above exception, another exception occurred:?"
    r"|The above exception was the direct cause of the following exception:?"
    # Python: `File "path", line 12, in name`, and the source line under it when the paste kept
    # its line breaks (indented, on the next line).
    r'|File "[^"\n]{1,400}", line \d{1,7}(?:, in [^\s]{1,200})?(?:[ \t]*\n[ \t]+[^\n]{0,400})?'
    # JavaScript / Java: `at name (path:12:5)`, `at path:12:5`, `at pkg.Class.method(File.java:12)`.
    r"|\bat [^\s()]{1,300} ?\([^()\n]{0,400}:\d{1,7}(?::\d{1,7})?\)"
    r"|\bat [^\s()]{1,400}:\d{1,7}:\d{1,7}"
)


def without_stack_frames(text: str) -> str:
    """`text` without the frames of a pasted stack trace (the error line itself stays)."""
    if "Traceback" not in text and 'File "' not in text and " at " not in text:
        return text
    cleaned = _TRACE_FRAME.sub(" ", text)
    if cleaned == text:
        return text
    lines = (re.sub(r"[ \t]{2,}", " ", line).strip() for line in cleaned.splitlines())
    return "\n".join(line for line in lines if line)


# Small talk around a question: "Hi! I'm new here and a bit lost. How do I install Tallyfox on
# Windows? Thanks a lot!" was refused, its greeting, thanks and self-description being words no
# page uses. Sentences that are only that, and a greeting or thanks at either end of a sentence,
# are not searched (`without_small_talk`); a message of small talk alone stays as it is (nothing
# is left to search: it is asked what it wants to know).
_GREETING = {
    "en": r"(?:hi|hello|hey|hiya|howdy|greetings|good\s+(?:morning|afternoon|evening|day))"
    r"(?:\s+(?:there|all|everyone|everybody|folks|team|guys|people|again))?",
    "es": r"(?:hola|buenas|buenos\s+d[ií]as|buenas\s+(?:tardes|noches)|saludos)"
    r"(?:\s+(?:a\s+todos|equipo|de\s+nuevo))?",
}
_THANKS = {
    "en": r"(?:many\s+)?(?:thanks|thank\s+you|thx|ty|cheers|tia)"
    r"(?:\s+(?:so\s+much|a\s+lot|very\s+much|in\s+advance|again))*"
    r"(?:\s+for\s+(?:any|your|the|all)(?:\s+\w+){0,2})?"
    r"|(?:any|all)\s+help\s+(?:is\s+|would\s+be\s+)?(?:much\s+|greatly\s+|really\s+)?appreciated"
    r"|(?:i\s+|we\s+)?(?:would\s+|really\s+)?appreciate\s+(?:any|your|the)\s+help"
    r"|much\s+appreciated",
    "es": r"(?:muchas\s+|mil\s+)?gracias(?:\s+de\s+antemano|\s+por\s+(?:la|tu|su|vuestra)\s+ayuda)?"
    r"|un\s+saludo|saludos",
}
_ABOUT_ME = {
    "en": r"(?:i'?m|i\s+am|we'?re|we\s+are)\s+"
    r"(?:(?:pretty|very|quite|totally|completely|a\s+bit|kind\s+of)\s+)?"
    r"(?:new(?:\s+here|\s+to\s+[\w .-]{1,40})?|a\s+(?:beginner|newbie|noob)|lost|confused|stuck)"
    r"(?:\s+and\s+(?:(?:pretty|very|quite|totally|a\s+bit)\s+)?(?:lost|confused|stuck))?"
    r"|(?:quick|simple|dumb|stupid|basic|noob|newbie|beginner)\s+question"
    r"|sorry\s+(?:for|if)\s+[^.?!\n]{0,80}",
    "es": r"soy\s+(?:nuev[oa]|principiante)(?:\s+(?:aqu[ií]|en\s+[\w .-]{1,40}))?"
    r"|(?:pregunta\s+r[aá]pida|perd[oó]n\s+(?:por|si)\s+[^.?!\n]{0,80})",
}


@cache
def _small_talk(locale: str) -> tuple[re.Pattern, re.Pattern, re.Pattern] | None:
    if locale not in _GREETING:
        return None
    # One unit at a time, each matched once where the previous one ended: a pattern repeating
    # these alternatives would try every way of cutting a long run of them (exponential time).
    unit = re.compile(
        rf"[\s¡¿,;:.!-]*(?:{_GREETING[locale]}|{_THANKS[locale]}|{_ABOUT_ME[locale]})\b[\s.!,;:)-]*", re.I
    )
    opening = re.compile(rf"[\s¡]*(?:{_GREETING[locale]}|{_ABOUT_ME[locale]})\s*[,!:;.-]+\s*", re.I)
    # Tried only where a run of separators starts: from every position of a long run of them
    # ("----", 4,000 dots or spaces) it took 1.5 s a message.
    closing = re.compile(rf"(?<![\s,;.-])[\s,;.-]+(?:{_THANKS[locale]})[\s.!]*$", re.I)
    return unit, opening, closing


_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+|\n+")


def _units(pattern: re.Pattern, text: str) -> int:
    """Where a run of `pattern` matched one after the other from the start of `text` ends."""
    position = 0
    while position < len(text) and (match := pattern.match(text, position)) and match.end() > position:
        position = match.end()
    return position


def without_small_talk(text: str, locale: str) -> str:
    """`text` without its greetings, thanks and words about the reader ("I'm new here",
    "quick question"): sentences of nothing else, and a greeting or thanks at either end of one."""
    patterns = _small_talk(locale)
    if patterns is None or len(text) > 4000:
        return text
    unit, opening, closing = patterns
    kept = []
    for sentence in _SENTENCE_SPLIT.split(text):
        if not sentence or _units(unit, sentence) == len(sentence):
            continue
        sentence = closing.sub("", sentence[_units(opening, sentence) :])
        if sentence.strip():
            kept.append(sentence.strip())
    cleaned = " ".join(kept)
    return cleaned if cleaned and cleaned != text else text


# A link to a page of these docs pasted into the question ("I followed https://docs.example.com/
# install/#install-on-windows but the service does not start"): its host and path are words no
# page uses, its page is what the reader read. It is searched as the page's title and the words
# of its anchor. Matched on the end of its path (the site may be served under a prefix: /en/
# latest/), one segment at least (a site's root is every site's root), visible pages only.
_URL = re.compile(r"\bhttps?://[^\s/?#<>\"'`]{1,253}([^\s<>\"'`]{0,2000})")


def docs_links_named(scope, text: str) -> str:
    """`text` with each link to a visible page of the docs as that page's title (and anchor)."""
    if scope is None or "://" not in text:
        return text

    def name(match: re.Match) -> str:
        rest, trailing = _link_end(match)
        path, _, anchor = rest.partition("#")
        segments = [s for s in path.split("?")[0].split("/") if s][:20]
        for start in range(len(segments)):
            tail = "/" + "/".join(segments[start:])
            where = scope.paths.get(tail + "/") or scope.paths.get(tail)
            if where is not None:
                title = scope.corpus.page(*where).title
                return " ".join([title, re.sub(r"[-_]+", " ", anchor)]).strip() + trailing
        return match.group(0)

    return _URL.sub(name, text)


def _link_end(match: re.Match) -> tuple[str, str]:
    """A matched link's path (what follows its host) without the punctuation of the sentence
    it ends, and that punctuation ("see https://x.example/a/b." → "/a/b", ".")."""
    rest = match.group(1).rstrip(".,;:!?)")
    return rest, match.group(1)[len(rest) :]


def without_other_links(text: str, locale: str) -> str:
    """`text` without the links `docs_links_named` left that point at a discussion (an issue,
    a forum thread, a question: two path segments or more, one with a number of three digits
    or more), when what is left still has a key term: their hosts, paths and numbers are words
    no page uses ("I saw https://github.com/encode/httpx/issues/1234 - how do I set a timeout
    for all requests?" 0.49 and the quick start's one line, against 0.72 and the timeouts page
    asked alone); so is a sentence that only says something about one ("I found <link> but it did
    not help."). A link that is a value the question is about stays ("my frontend at
    http://localhost:3000", "the site will live at https://example.com/docs/"), and so does a
    message that is mostly its link."""
    if "://" not in text:
        return text

    def dropped(match: re.Match) -> str:
        rest, trailing = _link_end(match)
        segments = [s for s in re.split(r"[/?#&=]", rest) if s]
        if len(segments) < 2 or not any(re.search(r"\d{3}", s) for s in segments):
            return match.group(0)  # a value the question is about: an origin, a proxy, a site URL
        return "\0" + trailing

    marked = _SEE_LINK.sub("", _URL.sub(dropped, text))
    parts = (_without_link_talk(p) for p in re.split(r"(?<=[.!?])\s+", marked))
    cleaned = re.sub(r"[ \t]{2,}", " ", " ".join(p for p in parts if re.search(r"\w", p))).strip()
    if cleaned == text or not key_terms(locale, cleaned):
        return text
    return cleaned


def _without_link_talk(sentence: str) -> str:
    """A sentence without the words about a dropped link (marked NUL): a lead-in of a few words
    ("I found <link>", "See <link>") and a clause about it after ("… but it did not help.")."""
    if "\0" not in sentence:
        return sentence
    before, _, after = sentence.partition("\0")
    if len(before.split()) <= 4:
        before = ""
    after = re.sub(r"^[\s\-–—:;,)]+", "", after.replace("\0", ""))
    if _LINK_TALK.match(after) and not after.rstrip().endswith("?"):
        after = ""
    return f"{before} {after}".strip()


# "(see <link>)" goes whole, with the full stop after it when the sentence had ended before it.
_SEE_LINK = re.compile(
    r"(?<=[?!.])[ \t]*\((?:see[ \t]+)?\0[ \t]*\)\.?|[ \t]*\((?:see[ \t]+)?\0[ \t]*\)", re.I
)
_LINK_TALK = re.compile(r"(?:but|and|which|that|where|though|however|y|pero|que)\b", re.I)


# Pasted code, configuration or output around a question ("Here is my config: ```yaml …```
# Why does the agent not use the proxy?"): its keys, values and paths drown the question's words
# in words no page uses, and the question was refused (0.40; asked alone, 0.71). A fenced block,
# and a run of three or more lines that read as code (indented, `key: value`, `key = value`, a
# shell prompt, `import`, `def`, a decorator, a line ending with a brace, bracket, parenthesis or
# semicolon), are not searched when the rest of the message still asks something; a message of
# code alone is searched as it is.
_FENCE = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n.*?(?:^[ \t]*\1[ \t]*$|\Z)", re.S | re.M)
_CODE_LINE = re.compile(
    r"^(?:[ \t]{2,}\S|\t\S|[ \t]*[\w.\-\[\]\"']{1,80}[ \t]*[:=][ \t]+\S.*|[ \t]*[$>#%] \S"
    r"|.*[{}\[\]();][ \t]*$|[^(\n]*\([^\n]*:[ \t]*$|[ \t]*@\w"
    r"|[ \t]*(?:import|from[ \t]+\S+[ \t]+import|def|class|return|async|await)\b)"
)
# The sentence announcing the paste: "Here is my code:", "My config:", "…nginx. This is what I have:".
_ANNOUNCES = re.compile(r"(?:^|(?<=[.!?])[ \t]+)[^\n:.!?]{0,60}:[ \t]*$")
_BARE_KEY = re.compile(r"^[ \t]*[\w.\-\[\]\"']{1,80}[ \t]*[:=][ \t]*$")  # code when what follows is indented


def without_pasted_code(text: str, locale: str) -> str:
    """`text` without pasted code and the short line announcing it ("Here is my config:"), when
    what is left still has a key term."""
    if "\n" not in text:
        return text
    lines = _FENCE.sub("\n\0\n", text).split("\n")  # NUL: where a fenced block was
    lines.append("")
    out: list[str] = []
    run: list[str] = []
    for at, line in enumerate(lines):
        nested = _BARE_KEY.match(line) and at + 1 < len(lines) and lines[at + 1][:1] in (" ", "\t")
        if line == "\0" or line.strip() and (_CODE_LINE.match(line) or nested):
            run.append(line)
            continue
        if len(run) >= 3 or "\0" in run:
            while out and not out[-1].strip():
                out.pop()
            if out and (announced := _ANNOUNCES.search(out[-1])):
                out[-1] = out[-1][: announced.start()]
        else:
            out += run
        run = []
        out.append(line)
    cleaned = "\n".join(line for line in out if line.strip())
    if cleaned == text.strip() or not key_terms(locale, cleaned):
        return text
    return cleaned


def _what_is_asked(text: str, locale: str) -> str:
    """A reader's message without what is not searched: stack frames, pasted code, small talk."""
    return without_small_talk(without_pasted_code(without_stack_frames(text), locale), locale)


def _searched_words(scope, text: str, locale: str) -> str:
    """What of a reader's message is searched, whether it is the question or an earlier one a
    follow-up borrows: `_what_is_asked`, links to these docs as their pages' titles, links to a
    discussion elsewhere dropped."""
    return without_other_links(docs_links_named(scope, _what_is_asked(text, locale)), locale)


def _unframed(frame: re.Match) -> str:
    return f" {frame.group('kept') or ''} "


# Asked where something is "stored", "kept" or "located", the verb says only "where": the thing
# is the question ("Where are backups stored?" led with the data directory's row, "Where samples,
# tokens and settings are stored", over the backup guide's `--output /srv/backups/`).
_PLACE_VERB = re.compile(
    r"\bwhere\s+(?:is|are|was|were|does|do|did|can|should|will|would)\b[^?]{0,80}?\b"
    r"(?P<verb>stored|kept|located|saved|placed|written)\b"
    r"|\bd[oó]nde\s+se\s+(?P<verbo>guardan?|almacenan?|ubican?|encuentran?)\b",
    re.I,
)


# Asked whether a thing includes, comes or ships with another, the verb frames the question as
# "support" and "have" do: Bottle's FAQ answers "Does bottle include an ORM?" with "misses some
# advanced features ... found in other frameworks (MVC, ORM, ...)", which says no "include". Asked
# how the reader includes something ("How do I include a file?"), the verb is the question.
_HAS_VERB = re.compile(
    r"\b(?:do|does|did|will|would|is|are|can)\b(?!\s+(?:i|we|you)\b)[^?.]{0,60}?\b"
    r"(?P<verb>include[sd]?|(?:come|comes|ship|ships)\s+with|bundle[sd]?)\b"
    r"|\b(?P<verbo>incluye|incluyen|trae|traen|viene\s+con|vienen\s+con)\b",
    re.I,
)


# "set up" says the doing as "set" alone does ("How do I set up sudo?" is about sudo): its "up",
# a key term, led the Debian Reference's answer with "Do not set up accounts of regular users
# ... like this" above the section on configuring sudo.
_SET_UP = re.compile(r"\b(?:set|sets|setting)\s+(?P<verb>up)\b", re.I)


_QUOTED = re.compile(r'"[^"\n]{1,300}"|“[^”\n]{1,300}”|`[^`\n]{1,300}`')


def key_terms(locale: str, text: str) -> frozenset[str]:
    terms = lexical.stem_terms(locale, _FRAMING.sub(_unframed, text))
    for verb in (_PLACE_VERB.search(text), _HAS_VERB.search(text), _SET_UP.search(text)):
        if verb:
            terms -= lexical.stem_terms(locale, verb.group("verb") or verb.group("verbo"))
    generic = GENERIC.get(locale, frozenset()) | GENERIC["en"]
    # Words quoted from a message or the docs are its text, not the reader's framing ("Cannot run
    # the event loop while another loop is running").
    quoted = lexical.stem_terms(locale, " ".join(_QUOTED.findall(text)))
    return frozenset(t for t in terms if (t not in generic or t in quoted) and len(t) > 1)


def make_query(
    request: ChatRequest, scope, *, default_locale: str | None = None, history: tuple[Turn, ...] | None = None
) -> Query:
    """The question as every later step sees it, for one reader's scope."""
    corpus = scope.corpus
    history = request.history if history is None else history
    default = default_locale or corpus.default_locale
    requested, detected = _requested_locale(request, scope, default)
    locale = effective_locale(scope, requested)
    site_locales = sorted(scope.locales) or [locale]
    foreign = foreign_language(request.message, site_locales)
    message = docs_spelling(scope, locale, _searched_words(scope, request.message, locale))
    typos = {}
    if not foreign:
        typos = {
            **docs_joined_names(scope, locale, message),
            **docs_typos(scope, locale, message),
            **docs_compounds(scope, locale, message),
            **docs_synonyms(scope, locale, message),
        }
    message = respell(message, typos)
    # Only the reader's last question can be borrowed (`search_query`): only it is read.
    previous = next((t for t in reversed(history) if t.role == "user"), None)
    asked = (Turn("user", _searched_words(scope, previous.content, locale)),) if previous else ()
    text = search_query(message, asked)
    if text != message:  # a follow-up borrowed the previous question's words: spell them too
        text = docs_spelling(scope, locale, text)
    keys = key_terms(locale, text)
    named = {} if foreign else docs_named_words(scope, locale, message)
    if named:  # the name is what the reader asked about, not words the docs never say alone
        keys = (keys - frozenset().union(*named.values())) | frozenset(named)
    return Query(
        message=message,
        text=text,
        locale=locale,
        requested_locale=requested,
        terms=frozenset(lexical.stem_terms(locale, text)),
        key_terms=keys,
        focus=key_terms(locale, message) if text != message else frozenset(),
        identifiers=telling_identifiers(scope, locale, identifier_tokens(text), text),
        temporal=about_history(text),
        history=history,
        escalation=escalation_reason(request.message, history),
        locale_detected=detected,
        foreign=foreign,
        ask_in=tuple(sorted(site_locales, key=lambda loc: (loc != default, loc))) if foreign else (),
        respelled=tuple(sorted(typos.items())),
        named=tuple(named),
        written=request.message,
    )


def search_query_for(text: str, locale: str | None, scope) -> Query:
    """A bare search box query (no history, no page)."""
    return make_query(ChatRequest(text, locale, (), None), scope)


def effective_locale(scope, requested: str | None) -> str:
    corpus = scope.corpus
    if requested and requested in scope.locales:
        return requested
    if corpus.default_locale in scope.locales or not scope.locales:
        return corpus.default_locale
    return sorted(scope.locales)[0]


def _requested_locale(request: ChatRequest, scope, default: str) -> tuple[str, bool]:
    """The explicit locale, else the question's own language (when the site has it),
    else the locale of the page the reader is on, else the site default."""
    if request.locale:
        return request.locale.lower(), False
    detected = detect_language(request.message, sorted(scope.locales), default)
    if detected and detected != default:
        return detected, True
    if request.page_url:
        path = re.sub(r"^[a-z]+://[^/]+", "", request.page_url).split("#")[0].split("?")[0]
        where = scope.paths.get(path) or scope.paths.get(path.rstrip("/") + "/")
        if where is not None:
            return scope.corpus.page(*where).locale, False
        first = path.strip("/").split("/")[0]
        if first in scope.locales:
            return first, False
    return default, False


def detect_language(text: str, candidates: list[str], default: str) -> str | None:
    """The candidate locale whose function words the text uses clearly more than the
    default's (stop-word lists of lunr / lunr-languages); None when it is not clear."""
    words = [w.lower() for w in _WORD.findall(text)]
    if not words or len(candidates) < 2:
        return None
    # A question word keeps its accent ("¿Cómo instalo Tallyfox?") where the stop-word list has
    # the plain form ("como"): read both, or that question searched the English pages.
    scores = {
        loc: sum(1 for w in words if w in _function_words(loc) or _unaccented(w) in _function_words(loc))
        for loc in candidates
    }
    if "es" in scores and _SPANISH_MARKS.search(text):
        scores["es"] += 1.5
    best = max(scores, key=lambda loc: (scores[loc], loc == default))
    margin = scores[best] - scores.get(default, 0)
    if best != default and scores[best] >= 2 and margin >= 1.5:
        return best
    return default


# What English writes that another language's function words spell: Latin abbreviations ("e.g.":
# "e" is Italian for "and"; "Units per second e.g. meters" read as Italian) and prefixes joined to
# a word by a hyphen ("non-blocking": "non" is Italian for "not").
_ABBREVIATED = re.compile(
    r"\b(?:e\.\s?g|i\.\s?e|cf|viz|etc)\.|\b(?:non|pre|re|co|de|anti|multi|semi|sub|self|per)-(?=\w)", re.I
)


def foreign_language(text: str, site_locales: list[str]) -> str | None:
    """The language of `text` when it is clearly one the site has no pages in. Of the
    languages whose stop words askdocs ships, the one whose function words the text uses
    most, counting only words that are not function words of a site language: at least two
    and more than the text's function words of the site's languages, or one in a text of
    three words or more that has none of those ("Comment installer Tallyfox sur Windows ?" on
    an English and Spanish site). None otherwise, and for a tie (the text cannot be named)."""
    words = [w.lower() for w in _WORD.findall(_ABBREVIATED.sub(" ", text))]
    own = frozenset().union(*(_function_words(loc) for loc in site_locales))
    at_home = sum(w in own for w in words)
    marks = 1 if _SPANISH_ASKS.search(text) else 0  # "¿", "¡": Spanish, whatever its words
    scores = sorted(
        ((sum(w in _function_words(loc) and w not in own for w in words) + (loc == "es") * marks, loc)
         for loc in ("en", *sorted(lexical._stop_words())) if loc not in site_locales),
        reverse=True,
    )  # fmt: skip
    if not scores or (len(scores) > 1 and scores[0][0] == scores[1][0]):
        return None
    score, language = scores[0]
    if (score >= 2 and score > at_home) or (score == 1 and not at_home and len(words) >= 3):
        return language
    return None


def _unaccented(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", word) if not unicodedata.combining(c))


@cache
def _function_words(locale: str) -> frozenset[str]:
    if locale == "en":
        from lunr.stop_word_filter import WORDS

        # With the Latin words English writes as its own ("per-request timeout" read as Italian).
        return frozenset(WORDS) | {"how", "what", "does", "is", "my", "i", "per", "via", "vs", "versus"}
    return lexical._stop_words().get(locale, frozenset())
