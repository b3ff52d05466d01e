"""The offline synthesiser: the one thing asked, in the documentation's own words.

Evidence sections are cut into units (sentences, list items, table rows, whole
code blocks); each unit is scored for how well it answers the question: the
question's key terms it holds (rarer terms weigh more, a follow-up's own words
more than borrowed ones), the heading it sits under, the question's exact
identifiers, its meaning (the dense model), and how strongly retrieval rated
its section. The answer leads with the best unit (the sentence, or the one
table row, that answers), then quotes the few units around it that carry its
conditions (or the list or code block it introduces; a short section is quoted
whole, since it is one answer), then names its section. When the question asks
for something that part does not hold (a second fact, a second page), the best
unit holding it follows, with its own source. Of two near-identical dated
passages only the newest is quoted.

Rendered per source group:

    <the lead: sentence(s) or table row(s)>

    > <supporting context, quoted>        (or a fenced code block, or a list)

    From: [Page › Section](/page/#anchor)
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

from askdocs.edge_runtime.answer_types import Part
from askdocs.edge_runtime.evidence import FENCED_BLOCK, Evidence, heading_names, is_table_rule, item_term
from askdocs.edge_runtime.i18n import phrase
from askdocs.edge_runtime.query import (
    NOT_A_PROTOCOL,
    Query,
    counted,
    identifier_tokens,
    key_terms,
    mentions,
    names_in,
    opposed,
    platform_pattern,
    spelled_out,
    telling_platform,
)
from askdocs.edge_runtime.rarity import FREQUENT_ZIPF, frequent_words
from askdocs.edge_runtime.search import SITE_LINK

from askdocs import lexical

SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+(?=[A-ZÁÉÍÓÚÑ¿¡\"'`(\[*])")
_PROCEDURAL = re.compile(
    r"\b(how|command|install|run|start|configure|set ?up|enable|example|syntax|create|add|register|"
    r"cómo|como|comando|instalar|instalo|ejecutar|iniciar|configurar|habilitar|ejemplo|crear|añadir)\b",
    re.I,
)
# "What is the default for --flush-interval on tallyfox agent start?" asks for a value, not for
# steps, whatever words the names in it hold ("start"); a command or an example is still asked for.
_ASKS_WHAT_IT_IS = re.compile(
    r"^\W*(what|which)(\s+\w+)?\s+(is|are|does|do)\s+(?!I\b|we\b)|^\W*(qu[eé]|cu[aá]l(es)?)\s+(es|son|significa)\b",
    re.I,
)
_ASKS_FOR_STEPS = re.compile(r"\b(command|syntax|example|comando|sintaxis|ejemplo)\b", re.I)
# A signature or a command's synopsis names the thing and its arguments, not what it does or when
# to use it: "net.listen(addresses[, port = 53, { kind = 'dns', freebind = false }])" led "what is
# the freebind=true option of net.listen() for?", "borg [common options] break-lock [options]
# [REPOSITORY]" led "when is it safe to run borg break-lock?". Sphinx writes what kind of member it
# is before the name ("classmethod get_or_none(*query, **filters)" led "What is the difference
# between get() and get_or_none()?" above "Identical to Model.get() but returns None..."), and a
# property or an exception without arguments ("property query_string").
_SIG_KIND = (
    r"abstract|abstractmethod|async|await|class|classmethod|coroutine|exception|final|property|static"
    r"|staticmethod"
)
_SIG_BARE_KIND = r"class|classmethod|staticmethod|abstractmethod|exception|property"  # written without "()"
# The start of a call signature, whatever follows its closing parenthesis (`→ List[BLEDevice]`).
_SIGNATURE_START = re.compile(rf"(?:(?:{_SIG_KIND})\s+)*[\w.]+\(")
_SIGNATURE = re.compile(
    rf"{_SIGNATURE_START.pattern}.*\)"
    rf"|(?:(?:{_SIG_BARE_KIND})\s+)+[\w.]+(?:\s*:\s*\S[^\n]*)?"
)
_SYNOPSIS = re.compile(r"```[^\n]*\n[^\n]*\[(options|OPTIONS|common options|-[\w-]+)\][^\n]*\n```")


def procedural(message: str) -> bool:
    """The question asks how to do something (an example or a command answers it)."""
    if _ASKS_WHAT_IT_IS.search(message) and not _ASKS_FOR_STEPS.search(message):
        return False
    return bool(_PROCEDURAL.search(message))


_POINTER = re.compile(
    r"^\W*(see|refer to|for more|véase|vea|consulte|ver|más información)\b"
    # "Read the [Deployment guide](…)", "Check the FAQ page", not "Read data from the file" (what
    # a function does) nor "Check that the port is free"
    r"|^\W*(?:read|check)\b(?=[^.;!?\n]{0,80}?(?:\]\(|\b(?:more|page|section|guide|chapter|docs|"
    r"documentation|tutorial|reference|article|faq)\b))"
    # "For custom filters see [Custom Filters](…)", "Para más detalles, consulte …"
    r"|^\W*(?:for|para)\s[^.;:!?\n]{0,80}?\s(?:see|refer to|véase|vea|consulte)\b"
    # "To learn more about how to write plugins:", "Learn more in [the guide](…)"
    r"|^\W*(?:to\s+)?(?:learn|find\s+out|read)\s+more\b",
    re.I,
)
# A section listing other places to read: its items are the titles of other pages ("- Redis rate
# limiting pattern #2" under Flask-Limiter's "References" led "How do I store rate limit counters
# in Redis?", which its storage backend section answers).
_SIGNPOST_HEADING = re.compile(
    r"(references?|see also|further reading|external (links|resources)|(useful |related )?links"
    r"|(other |related |external )?resources|bibliography|referencias|véase también|enlaces)",
    re.I,
)
_LINKED = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")  # a Markdown link: its text, its target
_LIST_ITEM = re.compile(r"\s*(\d+\.|[-*])\s")
# A sentence about the page itself ("This page lists the ports Tallyfox uses, how to configure TLS,
# and how to route outbound traffic through a proxy."): it repeats the words of every question its
# page answers and answers none of them.
_OVERVIEW = re.compile(
    r"^\W*(?:(?:this|the\s+following|these)\s+(?:pages?|guides?|sections?|chapters?|documents?|documentation|"
    r"tutorials?|articles?|reference)\s+(?:lists?|describes?|explains?|covers?|shows?|documents?|introduces?|"
    r"outlines?|summari[sz]es?|walks?|gives?|provides?|contains?|is\s+about|will\s+\w+)"
    r"|(?:in|on)\s+this\s+(?:page|guide|section|chapter|document|tutorial|article)\b"
    r"|estas?\s+(?:p[aá]ginas?|gu[ií]as?|secci[oó]n|secciones|cap[ií]tulos?)\s+(?:enumeran?|describen?|"
    r"explican?|cubren?|muestran?|documentan?|presentan?|resumen?|recogen?|contienen?|tratan?)"
    r"|en\s+esta\s+(?:p[aá]gina|gu[ií]a|secci[oó]n)\b)",
    re.I,
)
OVERVIEW_WEIGHT = 0.3
# A tab's label, which extraction puts before each tab panel ("**pip**", "**Windows**").
_TAB_LABEL = re.compile(r"^\*\*[^*\n]{1,40}\*\*$")
# A sentence that announces code ("such as this example", "like this", "as follows"): the code
# it announces is part of what it says.
_EXAMPLE = re.compile(
    r"\b(this\s+example|example\s+below|for\s+example|like\s+this|as\s+follows|the\s+following|e\.g\.|"
    r"for\s+instance|este\s+ejemplo|por\s+ejemplo|como\s+este|lo\s+siguiente|as[ií])\b",
    re.I,
)
# Questions that ask for an amount (a size, a count, a duration, a price): the unit that
# states a number answers them, not the sentence that talks about the subject.
_QUANTITY = re.compile(
    r"\b(how (much|many|long|big|large|often|fast|old)|what (size|port|limit|timeout|price)|"
    r"at (the )?(very )?(least|most)|minimum|maximum|cu[aá]nt[oa]s?|qu[eé] (tama[nñ]o|puerto))\b",
    re.I,
)
# Asked the default of a measure ("What is parfive's default sock_read timeout?"), a number is the
# answer as well: "- `PARFIVE_SOCK_READ_TIMEOUT` - Overrides the default aiohttp `sock_read` timeout
# value" (the asked name, and the word "default") led over "the `sock_read` timeout is set to `90`
# seconds".
_MEASURE = re.compile(
    r"\b(?:time-?outs?|size|limit|port|length|interval|delay|retries|attempts|duration|ttl|expiry|"
    r"lifetime|threshold|capacity|concurrency|tama[nñ]o|l[ií]mite|puerto|longitud|intervalo|"
    r"reintentos|duraci[oó]n|umbral|capacidad)\b",
    re.I,
)


def asks_amount(message: str) -> bool:
    """The question asks for an amount (`_QUANTITY`), or for the default of a measure."""
    return bool(_QUANTITY.search(message) or (_ASKS_DEFAULT.search(message) and _MEASURE.search(message)))


_NUMBER = re.compile(r"\d")
# A number that is no part of a name: not the 2 of `cmd2`, `h2` or `s3` ("Which Python version does
# cmd2 need?" counted "The latest version of `cmd2` can be installed ..." as naming one), nor the
# digits of `R12` or `AC1027` (a digit after a digit of a name). The lead that joins the sentence
# after it (`_lead_with_amount`) reads numbers as the refusal does, each number whole ("3.7", "1,000").
_STANDALONE_NUMBER = re.compile(r"(?<!\w)\d+(?:[.,]\d+)*")
# A count written out is a number too: Betamax's "Betamax, like VCR, has four modes that it can use
# to record cassettes:" answers "How many record modes does Betamax have?" (refused as naming no
# number). Not "one" nor "uno" (a pronoun and an article as often as a count), and each language's
# own words ("once" is eleven in Spanish, an adverb in English).
_NUMBER_WORDS = {
    "en": r"two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
    r"|(?:thir|four|fif|six|seven|eigh|nine)teen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|dozen",
    "es": r"dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|once|doce|trece|catorce|quince|diecis[eé]is"
    r"|diecisiete|dieciocho|diecinueve|veinte|treinta|cuarenta|cincuenta|sesenta|setenta|ochenta"
    r"|noventa|cien|ciento|mil|mill[oó]n",
}
_WRITTEN_NUMBER = {locale: re.compile(rf"\b(?:{words})\b", re.I) for locale, words in _NUMBER_WORDS.items()}


def amounts(text: str, locale: str) -> list[str]:
    """The numbers `text` states: each standing alone (`_STANDALONE_NUMBER`: "125", "1,000", not the
    8 of "PEP8") or written out in `locale`'s words ("four")."""
    written = _WRITTEN_NUMBER.get(locale)
    return _STANDALONE_NUMBER.findall(text) + ([w.lower() for w in written.findall(text)] if written else [])


# A question that opens by asking an amount ("How many webhooks can I register?", "What is the
# maximum request body size?"): an answer whose lead (or its code) names no number does not give
# it. DRF's "How long does a JWT access token stay valid by default?" was answered with what JWT
# authentication is. Anywhere in the question it cost answers: "I want to measure how long every
# request takes" asks how to measure it, and "letting the client choose how many items" a setting.
_ASKS_AMOUNT = re.compile(
    r"^\W*(?:how\s+(?:much|many|long|big|large)\b|what(?:'s|\s+is|\s+are)\s+the\s+"
    r"(?:max(?:imum)?|min(?:imum)?|largest|smallest|highest|lowest)\b)",
    re.I,
)
# So does one that opens by asking which version ("Which Python versions does debtcollector
# support?" was answered with the project's overview): a version is written with a number, in
# the lead or in the heading of the section it leads (release notes: "Version 1.5.0 › New command
# mkdocs get-deps").
_ASKS_WHICH_VERSION = re.compile(rf"^\W*(?:which|what)\s+{NOT_A_PROTOCOL}(?:\w+\s+){{0,3}}?versions?\b", re.I)
# A number the question states on its own ("exited with code 7", "a 409"): a table row whose
# first cell is that number is the entry it looks up ("| `7` | Another process holds the lock |"),
# and weighs like a section headed by an asked name (4.0, below); so does a term ending in it
# ("Exit code 5: No tests were collected", "- HTTP 409: …"). Not a part of a larger number ("1,000",
# "2.5"); a comma or a full stop after it ends it ("exited with code 7, what does that mean?").
_NUMBER_ASKED = re.compile(r"(?<![\w.,-])\d{1,6}(?!\w|[.,]\d)")
NAMED_ROW = 4.0
# A question about a default ("what does lookup_field default to?", "the default ordering of
# CursorPagination?", "¿el valor por defecto?") is answered by a unit that states one.
_DEFAULT = re.compile(r"\bdefault|\bpor defecto\b|\bpredeterminad", re.I)
# So is one that asks what holds when nothing is set ("What timeout does MPDClient use if I
# don't set one?", "If I call initialize() without arguments, which state ...?"; not "How do I run
# it without arguments?").
# ... or whether it does ("If I do not pass any security-related options, will my connection be
# encrypted?": aiosmtplib's "unencrypted connections are the default if no options are specified").
_ASKS_VALUE = (
    r"(?:\b(?:what|which|how (?:long|many|much|often|big|large))\b"
    r"|(?:^|[,;]\s*)(?:will|would|does|do|is|are)\b(?!\s+there\b))"
)
_UNSET = (
    r"(?:\bif (?:i|you|we) (?:don'?t|do not|never) (?:set|specify|pass|give|change|configure|provide|say)\b"
    r"|\bwithout (?:any )?(?:arguments?|parameters?)\b)"
)
_ASKS_DEFAULT = re.compile(
    r"\b(what|which)\b[^?.]{0,40}(?<!by )\bdefaults?\b(?!_)|\bdefaults? to\b|"
    r"\b(qu[eé]|cu[aá]l)\b[^?.]{0,40}\b(por defecto|predeterminad[oa])\b|"
    rf"{_ASKS_VALUE}[^?]{{0,100}}{_UNSET}|{_UNSET}[^?]{{0,100}}{_ASKS_VALUE}",
    re.I,
)
# A question that asks how to install something ("How do I install the jirashell command-line
# tool?") is answered by the command that installs it (`pip install jira[cli]`), not by how to run
# what it installs ("Run it from the command line", then `jirashell -s ...`).
_ASKS_INSTALL = re.compile(r"\bhow\b[^?]{0,30}\binstall\b|\bc[oó]mo\b[^?]{0,30}\binstal[oa]r?\b", re.I)
_INSTALL_COMMAND = re.compile(
    r"\b(?:pip3?|pipx|uv\s+pip|uv|poetry|conda|mamba|apt(?:-get)?|dnf|yum|zypper|brew|npm|yarn|pnpm|gem|"
    r"cargo|winget|choco|scoop|snap)\s+(?:-\S+\s+)*(?:install|add)\b"
)
INSTALL_WEIGHT = 1.0
# A question that asks where a file is kept ("where is the config file on Windows?", "which directory
# holds the logs?") is answered by a unit that names a path ("C:\\ProgramData\\Tallyfox\\…",
# `/etc/tallyfox/config.yaml`, `mkdocs.yml`), not by the sentences about the file. One question
# asked for one place (two asks are left to `_other_ask`). Tuning fact recall 0.764 -> 0.766 (the
# one question of the kind, "On Windows, where is the config file…"), nothing else changed.
_WHERE = re.compile(
    r"\bwhere\s+(?:is|are|does|do|can|should)\b[^?]{0,80}?\b(?:stored|kept|located|saved|written|live|"
    r"file|files|directory|folder|logs?|config)\b|\bwhich\s+(?:directory|folder|path|file)\b"
    r"|\bd[oó]nde\s+(?:est[aá]n?|se\s+guardan?|guarda|queda)\b",
    re.I,
)
# A path starts only where its run of name characters starts: from every position of a long run
# ("a.a.a…", a base64 blob in a page), 4,000 characters took 0.11 s. A file named alone has an
# extension of two to four letters (`tallyfox.yaml`, `backup.tfxb`); `log.level` is a setting.
_PATH = re.compile(r"(?<![\w.~:/-])[\w.~-]*[/\\][\w.-]+|\b[A-Z]:\\|`[^`\s]*\.[a-z]{2,4}`")
# A question that asks which version did something (`Query.asks_version`) is answered by a unit
# that names a version, in its text or in its section's heading (release notes: "## 0.28.0"
# then "* Added zstd decoding").
_VERSION = re.compile(r"\bv?\d+\.\d+")
# A version note (Sphinx's "New in version 19.2.0: pass_foreign_args", "Deprecated since version
# 21.3.0: …") says when something changed, not what it does: it names the thing, and led "what does
# the pass_foreign_args parameter do?" over the parameter's own description.
# ... and a sentence opening on how earlier versions did it ("This is a change from previous
# versions of Apache httpd." led "How do I change the port Apache listens on?" on "change").
# ... and one set as an admonition, the version without the word ("**Note:** New in 61.0.0" led
# setuptools' "What build backend do I put in pyproject.toml for setuptools?").
_VERSION_NOTE = re.compile(
    r"(?:\W*(?:note|nota)\W+)?(?:(new|added|changed|deprecated|removed) (in|since) (version\b|v?\d)|"
    r"(nuevo|añadido|cambiado|obsoleto) (en|desde) (la )?versión\b)|"
    r"\W*(?:(?:this|that|it) (?:is|was) a change from |(?:in|unlike|before|prior to) (?:the )?)"
    r"(?:previous|earlier|older|prior) (?:versions?|releases?)\b",
    re.I,
)
# A question that asks which named thing does it ("Which environment variable points it at a
# config file?", "what option avoids that?", "¿qué parámetro…?") is answered by a unit that names
# one: a code span, a flag, an UPPER_CASE or snake_case name, a call; in its text or in its
# section's heading (an option list's "-c, --checkout" then "branch, tag or commit to checkout").
_ASKS_NAME = re.compile(
    r"\b(?:which|what)\s+(?:\w+\s+){0,2}?(?:environment\s+variable|env\s+var|option|flag|switch|setting|"
    r"parameter|argument|keyword|command|subcommand|hook|key|attribute|method|function|class|exception|"
    r"header|field|decorator|filter|extra|module|package|config(?:uration)?\s+(?:key|name|value))s?\b|"
    r"\b(?:qu[eé]|cu[aá]l(?:es)?)\s+(?:\w+\s+){0,2}?(?:variable\s+de\s+entorno|opci[oó]n|par[aá]metro|"
    r"argumento|comando|clase|funci[oó]n|excepci[oó]n|encabezado|cabecera|atributo|m[eé]todo)(?:es|s)?\b|"
    # ... and so does one asking where to set it or what to pass ("Where do I set that?", "What do
    # I pass?", "¿dónde lo configuro?"): tuning citation precision 0.851 -> 0.854, three answers
    # changed (a flag's command now leads "What do I pass?"), none lost a fact.
    r"\bwhere\s+(?:do|can|should|would)\s+(?:i|we|you)\s+(?:set|configure|change|specify|define|turn|"
    r"enable|disable)\b|\bwhat\s+(?:do|should|must)\s+(?:i|we|you)\s+(?:set|configure|pass|add)\b|"
    r"\bd[oó]nde\s+(?:lo\s+|la\s+|los\s+|las\s+|se\s+)?(?:configuro|defino|cambio|activo|desactivo|"
    r"configura|define|cambia|activa|desactiva)\b|\bqu[eé]\s+(?:tengo\s+que\s+|debo\s+)?(?:configurar|pasar|"
    r"a[nñ]adir|poner)\b",
    re.I,
)
_NAMED = re.compile(
    r"`[^`\n]{2,80}`|(?<![\w-])--?[A-Za-z][\w-]+|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b|\b[a-z]+_[a-z0-9_]+\b|\b\w+\.\w+\("
)
# A question that asks two things ("which plan … and what does a seat cost?").
_TWO_ASKS = re.compile(r"\b(and|also|both|plus|as well as|y|también|además|ambos)\b|[,;]", re.I)
MAX_POOL = 8  # evidence sections considered
MAX_UNITS = 60
PAST_BUDGET_UNITS = 8  # units past MAX_UNITS read for holding the question (`_past_budget`)
MAX_CODE_LINES = 24
RELEVANCE_CHARS = 200  # of each unit (with its heading), for the dense model
# A unit's meaning (standardised cosine) against its words. Since each unit is embedded alone
# (`Embedder.similarity`) its cosine no longer moves with its batch-mates, and the tuning sets
# trust it more: citation precision 0.838 -> 0.847, fact recall 0.769 -> 0.771 (1.2 -> 1.6;
# at 2.0 and 2.5, 0.852 but fact recall 0.764 and 0.762).
DENSE_WEIGHT = 1.6
CONTEXT_WORDS = 45  # supporting context quoted around the lead
SAID_OF_SHOWN_WORDS = 20  # a sentence after announced code that says what it showed
ROW_RATIO = 0.85  # other rows of the lead's table quoted when they score this close to it
ALTERNATIVES_RATIO = 0.5  # ... in a short table whose rows' labels the question names none of
FAQ_OTHER_QUESTION = 0.5  # an FAQ entry whose question lacks an asked word another unit read holds
# ... and at most MAX_ITEMS other items of the lead's list: tuning fact recall 0.773 -> 0.778,
# four answers changed, two gained a fact, none lost one.
MAX_ITEMS = 2
# ... an item when it scores ITEM_RATIO of the lead (not ROW_RATIO): a list's items are each a short
# statement about the same thing, where one table row is one case of many ("--log-config <path>"
# beside "a YAML file for your logging config needs PyYAML" for "uvicorn log config yaml").
# Tuning: fact recall 0.796 -> 0.798 / 0.801 / 0.801 at 0.75 / 0.7 / 0.65; 8 answers changed at
# 0.7, two gained a fact, none lost one; the median answer 771 -> 786 characters.
ITEM_RATIO = 0.7
SECOND_RATIO = 0.45  # a second part must score at least this share of the lead
SECOND_RATIO_ONE_ASK = 0.8  # ... when the question asks one thing: nearly as good an answer
MISSING_SHARE = 0.25  # ... the first part must leave this share of the question unanswered,
# ... and the second part must hold this share of the whole question's (idf-weighted) terms
SECOND_COVER = 0.3
SECOND_EVIDENCE = 0.2  # ... and come from evidence retrieval rated at least this (relative to the best)
HEADING_WEIGHT = 0.8  # a key term in a unit's section heading: the section is about it
# In a section whose heading already says most of the question ("plugins › Search ›
# prebuild_index" for "what does the search plugin's prebuild_index option need installed?"), the
# key term the heading leaves out ("installed") is what is asked of it: a sentence holding it
# counts it RESIDUAL_WEIGHT more times. Tuning fact recall 0.783 -> 0.786 (1.0: unchanged, 5.0:
# 0.785; a heading share of 0.3 / 0.5 / 0.7 alike). Measured once after: held-out citation
# precision 0.894 -> 0.901 and fact recall 0.780 -> 0.776, fresh fact recall 0.665 -> 0.670.
RESIDUAL_WEIGHT = 3.0
RESIDUAL_HEADING_SHARE = 0.5
QUANTITY_PENALTY = 0.5
# A unit of this many words or fewer that holds no asked word or name is a label, not an answer
# ("Default: `None`" under the heading ROBOTSTXT_USER_AGENT led "how do I set a custom user
# agent?"; a file name above its code, a release's date under its heading): the heading's words
# speak for it, but it leads only when it is what is asked (a default, an amount, a date).
BARE_WORDS = 3
# ... and a unit of one to three bare words (no punctuation, no name) labels what follows it even
# under a heading that names the asked token: Sphinx's field names ("Parameters", "Return type",
# "Raises") led Kombu's "What is SimpleQueue?" on the heading's name and its embedding alone.
_FIELD_LABEL = re.compile(r"[^\W\d_]+(?:[ \t]+[^\W\d_]+){0,2}")
# ... and so does a paragraph that is all bold, a heading the docs set as text ("**Example
# @transform with suffix(…)**" led Ruffus' "What is the difference between add_inputs() and
# inputs()?" on its one asked word; "**Powershell**" over click's exit codes).
# Not one that ends in a colon: that announces what follows ("**The following changes are also
# included**:" over its list).
_BOLD_LABEL = re.compile(r"\*\*[^*\n]*[^*\n:]\*\*")
# Asked what a named thing is ("What is SimpleQueue?"), the first sentence of the section headed
# by its name is its definition (a docstring's summary line: "Simple persistent queue API."),
# not the parameters listed after it.
_ASKS_DEFINITION = re.compile(
    r"^\W*(?:what\s+(?:is|are)|qu[eé]\s+(?:es|son))\s+(?:an?\s+|the\s+|el\s+|la\s+)?"
    r"(?P<name>[^\s?]+)(?:\s+(?:for|used\s+for))?\W*$"
    r"|^\W*what\s+does\s+(?:an?\s+|the\s+)?(?P<does>[^\s?]+)\s+do\W*$"
    r"|^\W*qu[eé]\s+hace\s+(?:el\s+|la\s+)?(?P<hace>[^\s?]+)\W*$",
    re.I,
)
SUMMARY_WEIGHT = 1.5
_HEADING_NAME = re.compile(r"^[\W_]+|\(\)$|[\W_]+$")  # the marks around a heading's name: `x`, x()
_BASES = re.compile(r"Bases:\s")  # Sphinx's line naming a class's bases, before its summary
_WORD = re.compile(r"\w+")
# A sentence of the docs that asks ("What should happen next?"): what follows it answers. Holding
# none of the asked words it still rated closest for the dense model (bidict's, for "What happens
# when I insert a value that is already there?"): a question is close to a question. Only such a
# one weighs less: every docs' question of the question sets' answers (structlog's "How about
# dropping only log entries … ?") holds asked words, and penalising those lost that blind answer its
# fact (citation precision 0.761 -> 0.746); as adopted, no answer of any question group changed.
_DOCS_ASK = re.compile(r"\?[\W_]*$")
# ... and such a label that ends as a sentence ("General guidelines.") says nothing of what its
# heading names either (it led rsyslog's "What is RainerScript?" under "RainerScript format"). A
# label that names nothing itself, whatever its heading, weighed the same way lost one tuning fact
# (scrapy's "Default: `True`" under the setting's heading, which the answer needs); so only this.
_BARE_SENTENCE = re.compile(r"[^\W\d_][.!]\W*$")
_YES_NO = re.compile(r"(yes|no|s[ií])\b", re.I)
_ASKS_WHEN = re.compile(r"\b(when|what\s+date|which\s+date|cu[aá]ndo|qu[eé]\s+fecha)\b", re.I)
# Asked which release did something ("which pytest release introduced @pytest.mark.skip?"), a line
# of release notes that fixes it ("Fix `pytest.mark.skip` mark when used in strict mode") is not
# the release that did it, unless the question asks about a fix.
_FIX_LINE = re.compile(r"\s*(?:[-*]\s+)?(?:\*\*)?(?:bug ?)?fix(?:e[sd])?\b", re.I)
_ASKS_FIX = re.compile(r"\b(fix|bug|regression|corregid|arreglad|error)", re.I)
MAX_NAMED = 3  # units added so that each thing a question names is answered
FAQ_WORDS = 80  # a FAQ answer this short is quoted whole: it was written as the answer
# A section this short (words of prose) is quoted whole after its lead, with its code (at most
# SHORT_SECTION_CODE blocks): a short section is one answer ("Install on Windows": one sentence,
# the winget command, the silent msiexec one). A list item still answers alone, and a sentence
# that ends with a colon still brings what it announces (a table too). Tuning sets: fact recall
# 0.624 -> 0.668 (prose leads only: 0.651; 70 words 0.638, 140 words 0.664), and 0.678 when a
# lead ending with a colon gets the rest of its short section too; citation precision
# unchanged at 0.807; answers about a sixth longer.
SHORT_SECTION_WORDS = 100
# A list item that leads is quoted with the sentence announcing its list, and with the list's
# other items when the list is this short (items, words).
WHOLE_LIST_ITEMS = 5
WHOLE_LIST_WORDS = 90
SHORT_SECTION_CODE = 2
# A changelog line names a thing ("Added `raise_app_exceptions`"); the page that documents it
# explains it. Unless the question is about versions or changes, the explanation answers.
CHANGELOG_WEIGHT = 0.6
# ... and so does a section headed by a release alone ("Version 1.3", "v2.6.2", "1.0.3 (2020-01-01)",
# "2.5.0b1 - 2024-03-01") on a page of another kind: Blinker's one-page manual ends with its
# changes, whose "Previously, weak references were held in the mapping" led "Are receivers held with
# weak references?".
_RELEASE_SECTION = re.compile(
    r"(?:(?:version|release|versi[oó]n)\s+)?v?\d+\.\d+(?:\.\d+)*[a-z]*\d*(?:\s*\([^()]{0,40}\)|\s+[-–—]\s+[^\s]{1,30})?\s*$",
    re.I,
)
# ... and so does a section whose heading says what it holds is obsolete, deprecated or legacy
# (Autoconf's "Obsolete Macros" entry for `AC_INIT`, its old one-argument form, led "What does
# AC_INIT do?" above the macro's own entry), unless the question is about such things.
_OBSOLETE_SECTION = re.compile(
    r"\b(obsolete|deprecated|deprecations|legacy|obsoleto|obsoleta|en desuso)\b", re.I
)
_ASKS_OBSOLETE = re.compile(r"\b(obsolete|deprecat\w*|legacy|old|older|obsolet\w*|desuso|antigu\w*)\b", re.I)
# A section headed by the opposite of an asked word ("Streaming Uploads" for "download a large
# file"), and a sentence that says it: each weighs this much. No answer of the three dev columns
# changed (96 of their questions hold such a word); Requests' "download a large file without
# loading it into memory" is answered from `stream=True`, not from streaming uploads.
OPPOSITE_WEIGHT = 0.3
# A follow-up that borrowed the previous question's words: units of other pages than retrieval's
# first (README, Quality: chosen on the tuning follow-ups; held-out follow-ups' citation
# precision 0.65 -> 0.80).
FOLLOW_UP_OTHER_PAGE = 0.6


_DANGLING = (" –", " —")
# A block of at most this many words ending in ":" is a term the next paragraph defines (a
# definition list rendered as paragraphs).
TERM_WORDS = 5


@dataclass
class Unit:
    evidence: int
    order: int
    kind: str  # prose | code | row
    text: str
    score: float = 0.0
    cut: bool = False  # a sentence its code block cuts off ("To create a key export use")


def _units(index: int, evidence: Evidence) -> list[Unit]:
    units: list[Unit] = []
    text = evidence.text
    if evidence.kind == "faq":
        _, _, answer = text.partition("\n\n")
        text = answer or text
    position = 0
    table_header: str | None = None
    term_block: str | None = None  # the last block, when it is a short term ending in ":"
    for block in _blocks(text):
        if block.startswith("```"):
            before = units[-1] if units else None
            if before is not None and before.kind == "prose" and before.order == position - 1:
                end = before.text.rstrip()[-1:]
                before.cut = (end.isalnum() or end == "`") and not _LIST_ITEM.match(before.text)
            units.append(Unit(index, position, "code", block))
        elif block.startswith("#"):
            table_header = None
            continue
        elif block.startswith("|"):
            rows = [r for r in block.split("\n") if r.strip()]
            if len(rows) > 1 and is_table_rule(rows[1]):
                table_header, rows = rows[0], rows[2:]
            else:
                # No rule under the first row: the build writes one under a row of <th> cells
                # only, so the table has no header and its first row is a row like the others
                # (Flask-Login's cookie settings: `REMEMBER_COOKIE_NAME` was every row's header).
                table_header = "|" + " |" * len(_cells(rows[0])) if rows else None
            for row in rows:
                units.append(Unit(index, position, "row", f"{table_header}\n{row}"))
                position += 1
            continue
        elif block.lstrip().startswith(("- ", "* ")) or re.match(r"\s*\d+\.\s", block):
            for item in block.split("\n"):
                if item.strip():
                    units.append(Unit(index, position, "prose", item.strip()))
                    position += 1
            continue
        else:
            sentences = [t.strip() for t in SENTENCE_BREAK.split(block) if t.strip()]
            before = units[-1] if units else None
            if (
                sentences
                and before is not None
                and before.kind == "prose"
                and (
                    before.text.endswith(_DANGLING)
                    or before.text == term_block
                    and not sentences[0].endswith(_DANGLING)
                )
            ):
                # A term whose definition is the next paragraph (Sphinx's single parameter:
                # "**log_level** (int | None) –", then "If `None`, don't configure…"; a definition
                # list's "Exit code 5:", then "No tests were collected") reads as one.
                before.text = f"{before.text} {sentences.pop(0)}"
            term_block = block if block.endswith(":") and len(block.split()) <= TERM_WORDS else None
            for sentence in sentences:
                units.append(Unit(index, position, "prose", sentence))
                position += 1
            continue
        position += 1
    return units


def _blocks(text: str) -> list[str]:
    """Paragraph-level blocks, keeping fenced code intact."""
    out: list[str] = []
    cursor = 0
    for match in FENCED_BLOCK.finditer(text):
        out.extend(p.strip() for p in text[cursor : match.start()].split("\n\n") if p.strip())
        out.append(match.group(0).strip())
        cursor = match.end()
    out.extend(p.strip() for p in text[cursor:].split("\n\n") if p.strip())
    return out


def _terms(locale: str, text: str) -> set[str]:
    return lexical.stem_terms(locale, SITE_LINK.sub(r"\1", text))


def _message_words(query: Query) -> set[str]:
    """The words of the reader's message as written, lowercased (no stemming)."""
    return {w.lower() for w in _WORD.findall(query.message)}


_NUMBERED = re.compile(r"_?\d+$")  # the number a name is written with ("arm64", "x86_64")


def _abbreviating(
    query: Query, terms: set[str], unsaid: frozenset[str] = frozenset(), text: str = ""
) -> set[str]:
    """`terms` with the key terms they abbreviate: a name that is no word of the language
    ("approx", "auth", "param") and starts an asked word ("approximately"). pytest's
    `pytest.approx` section answers "compare floating point numbers approximately" (a doctest
    option sharing "floating-point numbers" led). Tuning citation precision 0.823 -> 0.825, fact
    recall unchanged; measured once after, held-out 0.853 -> 0.860, fresh unchanged."""
    starts = _starts(query.key_terms)
    found = {k for t in terms & starts.keys() if _abbreviation(query.locale, t) for k in starts[t]}
    # And the other way: words that spell out an asked shorthand ("Standard Output" for stdout).
    table = spelled_out(query.locale)
    found |= {k for k in query.key_terms if k in table and table[k] <= terms}
    # And a shorthand the docs write for asked words ("--data-dir" for "data directory").
    found |= {k for t in terms & table.keys() if table[t] <= query.key_terms for k in table[t]}
    # And the initials the docs write for asked words in a row: "DRF" for "Django REST framework".
    initials = _initialisms(query.locale, query.message, query.key_terms)
    found |= {k for t in terms & initials.keys() if _abbreviation(query.locale, t) for k in initials[t]}
    # And the asked words a joined name is made of: "obey" in `ROBOTSTXT_OBEY`, "age" and "day" in
    # `max_age_days` (the reader says the words, the reference writes the name); "timestamp" in
    # `TimeStampedModel`, read from `text` (`terms` are lowercased).
    found |= {k for t in terms if "_" in t for k in _name_parts(query.locale, t) & query.key_terms}
    for name in set(_CAMEL_NAME.findall(text)):
        found |= _camel_parts(query.locale, name) & query.key_terms
    # And an asked name the docs only write with a number after it: "ARM" in `arm64`, "x86" in
    # `x86_64`, "Python" in `python3`, where the docs never say the name alone (`unsaid`).
    found |= {k for t in terms if t[-1:].isdigit() and (k := _NUMBERED.sub("", t)) in unsaid}
    return terms | found if found else terms


_LETTERS = re.compile(r"[^\W\d_]+")
INITIALISM_WORDS = (2, 5)  # an initialism abbreviates this many words


@lru_cache(maxsize=256)
def _initialisms(locale: str, message: str, key_terms: frozenset[str]) -> dict[str, frozenset[str]]:
    """The initials of each run of asked words (every one a key term) -> their key terms: "drf" ->
    {"django", "rest", "framework"}. django-filter's docs say "Integration with DRF" where the
    reader asks how to use it "with Django REST framework" (its requirements, which spell the name
    out once, led)."""
    words = [(w, lexical.stem_terms(locale, w)) for w in _LETTERS.findall(message)]
    low, high = INITIALISM_WORDS
    found: dict[str, set[str]] = {}
    for start in range(len(words)):
        for end in range(start + low, min(start + high, len(words)) + 1):
            run = words[start:end]
            if not all(len(stemmed) == 1 and stemmed <= key_terms for _, stemmed in run):
                break
            found.setdefault("".join(w[0].lower() for w, _ in run), set()).update(*(s for _, s in run))
    return {short: frozenset(stems) for short, stems in found.items()}


@lru_cache(maxsize=65536)
def _name_parts(locale: str, term: str) -> frozenset[str]:
    return frozenset(lexical.stem_terms(locale, term.replace("_", " ")))


# A camelCase name, and the words two of its parts make joined: "timestamp" in `TimeStampedModel`,
# whose section answers "How do I add created and modified timestamps to a model?" (a FieldTracker
# note saying "`modified` timestamp" led). Its single parts were tried as well: "request" in
# `BaseRequest` or "authentication" in `TokenAuthentication` cost fresh citation precision and
# fact recall (0.808 -> 0.799, 0.703 -> 0.693) and tuning fact recall (0.783 -> 0.780).
_CAMEL_NAME = re.compile(r"(?<![^\W\d_])[A-Za-z][a-z]+(?:[A-Z][a-z]+)+")
_CAMEL_PART = re.compile(r"[A-Z]?[a-z]+")


@lru_cache(maxsize=65536)
def _camel_parts(locale: str, name: str) -> frozenset[str]:
    parts = [p.lower() for p in _CAMEL_PART.findall(name)]
    joined = [a + b for a, b in zip(parts, parts[1:], strict=False)]
    return frozenset(lexical.stem_terms(locale, " ".join(joined)))


@lru_cache(maxsize=256)
def _starts(key_terms: frozenset[str]) -> dict[str, frozenset[str]]:
    """Each beginning of four letters or more of the key terms (not a whole one): the terms."""
    starts: dict[str, set[str]] = {}
    for term in key_terms:
        for end in range(4, len(term)):
            starts.setdefault(term[:end], set()).add(term)
    return {start: frozenset(found) for start, found in starts.items()}


@lru_cache(maxsize=65536)
def _abbreviation(locale: str, term: str) -> bool:
    frequent = frequent_words(locale)
    if frequent is not None:
        return term.isalpha() and term not in frequent
    from wordfreq import zipf_frequency

    try:
        return term.isalpha() and zipf_frequency(term, locale) < FREQUENT_ZIPF
    except LookupError:  # no word list for the language: nothing is called an abbreviation
        return False


def _contrary(opposite: dict[str, frozenset[str]], terms: set[str]) -> bool:
    """`terms` name the opposite of an asked word (`query.opposed`) and not the word itself."""
    return any(o & terms and t not in terms for t, o in opposite.items())


@dataclass
class Composition:
    parts: list[Part]
    cited: list[Evidence]


@dataclass
class _Group:
    evidence: int
    leads: list[Unit]
    support: list[Unit] = field(default_factory=list)
    intro: Unit | None = None  # the quoted sentence that announces the list a list item lead is in

    @property
    def units(self) -> list[Unit]:
        return self.leads + self.support


def compose(
    query: Query,
    evidence: list[Evidence],
    term_weights: dict[str, float] | None = None,
    relevance: Callable[[list[str]], list[float]] | None = None,
    outline: list[Evidence] | tuple[Evidence, ...] = (),
    relevance_to: Callable[[str, list[str]], list[float]] | None = None,
) -> Composition:
    """The answer's parts and the evidence it quotes (its citations).

    `relevance` (optional) gives each unit's semantic similarity to the question (the dense
    model). `term_weights`: how telling each key term is in these docs
    (`Investigation.term_weights`): "memory" says more than "server" in a server's docs.
    `outline`: sections of the pages read whose heading names how something is done
    (`evidence.outline`), for `_mechanism_part` only.
    """
    pool, units = _read(evidence)
    if len(units) > MAX_UNITS:
        units = units[:MAX_UNITS] + _past_budget(query, pool, units, term_weights or {})
    if not units:
        return Composition([], [])
    # Asked words the docs never use (`term_weights` holds the ones they do; none given: unknown).
    unsaid = frozenset(query.key_terms - term_weights.keys()) if term_weights else frozenset()
    unit_terms = _counts_whole(
        query,
        pool,
        units,
        [_abbreviating(query, _terms(query.locale, u.text), unsaid, u.text) for u in units],
    )
    _score(query, pool, units, unit_terms, term_weights or {}, relevance)
    stale = {id(units[i]) for i in _superseded(units, unit_terms, pool)}
    ranked = sorted((u for u in units if u.score > 0 and id(u) not in stale), key=lambda u: -u.score)
    # The outline's sections join the pool last; their units only ever answer as `_mechanism_part`.
    read, base = {e.url for e in pool}, len(pool)
    pool = pool + [e for e in outline if e.url not in read]
    aside = [u for i in range(base, len(pool)) for u in _units(i, pool[i])]
    if aside:
        aside_terms = [_terms(query.locale, u.text) for u in aside]
        _score(query, pool, aside, aside_terms, term_weights or {}, None)
        units, unit_terms = units + aside, unit_terms + aside_terms
    if not ranked:
        return Composition([], [])
    terms_of = {id(u): t for u, t in zip(units, unit_terms, strict=True)}
    first = _group(ranked[0], units, query, stale, pool[ranked[0].evidence].kind)
    groups = [first]
    second = _second_part(query, ranked, first, pool, terms_of, term_weights or {}, relevance_to)
    if second is None:
        second = _same_page_part(ranked, first, pool)
    extra = ([second] if second is not None else []) + _named_parts(query, ranked, groups, second, pool)
    mechanism = _mechanism_part(query, units, stale, groups, extra, pool)
    if mechanism is not None:
        extra.append(mechanism)
    naming = _naming_part(query, units, stale, groups, extra, pool)
    if naming is not None:
        extra.append(naming)
    said = {_said(u) for u in first.units}
    for unit in extra:
        words = _said(unit)
        if words in said:
            # The same words under another heading (an API reference repeats a method's text for
            # each class that has it): quoted once.
            continue
        said.add(words)
        home = next((g for g in groups if g.evidence == unit.evidence), None)
        lead_kind = home.leads[0].kind if home is not None else ""
        if (
            home is not None
            and lead_kind != "code"
            and (unit.kind == "row") == (lead_kind == "row")
            and not _announces(home.leads[-1])  # what a lead announces follows it, not this
        ):
            home.leads.append(unit)
        elif home is not None:
            home.support.append(unit)  # a sentence that qualifies a table row is quoted after it
        else:
            groups.append(_group(unit, units, query, stale, pool[unit.evidence].kind))
    for group in groups:
        _keep_announced(group, units, stale)
        group.intro = _quoted_list_intro(group, units, stale)
    parts: list[Part] = []
    cited: list[Evidence] = []
    for group in groups:
        source = pool[group.evidence]
        parts += _render(group, source, query.locale)
        cited.append(source)
    return Composition(parts, cited)


def _states_default(units: list[Unit], pool: list[Evidence]) -> list[bool]:
    """Of each unit, whether it states a default: in its words or its section's heading, or in the
    list it announces ("The configuration can take three values:" over "- `'ignore'`: Providing
    extra data is ignored (the default).")."""
    out = [bool(_DEFAULT.search(u.text) or _DEFAULT.search(pool[u.evidence].heading)) for u in units]
    for at, unit in enumerate(units):
        if out[at] or unit.kind != "prose" or not unit.text.rstrip().endswith(":"):
            continue
        for after in range(at + 1, len(units)):
            item = units[after]
            if item.evidence != unit.evidence or not _LIST_ITEM.match(item.text):
                break
            if _DEFAULT.search(item.text):
                out[at] = True
                break
    return out


def _call_mentions(query: Query) -> Callable[[str, str], bool]:
    """Whether a lowercased text says an identifier of the question, a method the reader calls on
    an object of their own ("interaction.ignore()") said by its name alone too ("you can call the
    `ignore()`"): Betamax's "What happens if I call interaction.ignore() inside a before_record
    hook?" led with the hooks' introduction (it says `before_record`) over "If you wish to ignore
    an interaction and prevent it from being recorded or replayed, you can call the `ignore()`."."""
    lowered = query.message.lower()
    tails = {
        token: re.compile(rf"(?<!\w){re.escape(token.rpartition('.')[2])}\(")
        for token in query.identifiers
        if "." in token and f"{token}(" in lowered
    }

    def said(text: str, token: str) -> bool:
        return mentions(text, token) or (token in tails and tails[token].search(text) is not None)

    return said


def _past_budget(
    query: Query, pool: list[Evidence], units: list[Unit], rarity: dict[str, float]
) -> list[Unit]:
    """Of the units past the first MAX_UNITS, those still read: the sections whose heading names how
    it is done (`_mechanism_part`), and, asked a value (an amount, a default, a version: one unit
    states it, maybe deep in a long entry), the PAST_BUDGET_UNITS that hold the most of the
    question's key terms (by `rarity`; two at least), in the pool's order. flufl.lock's
    "- **lifetime** (…) – The expected maximum lifetime of the lock … Defaults to 15 seconds." was
    the 21st unit of the fifth section read, past the budget: "How long is the default lifetime of
    a Lock if I don't specify one?" was answered with the class's signature (`lifetime=None`) and
    refused as naming no number."""
    last = units[MAX_UNITS - 1].evidence
    past = units[MAX_UNITS:]
    out = {id(u) for u in past if u.evidence > last and heading_names(pool[u.evidence])}
    if not (_QUANTITY.search(query.message) or _ASKS_DEFAULT.search(query.message) or query.asks_version):
        return [u for u in past if id(u) in out]
    key_terms = set(query.key_terms)
    least = min(2, len(key_terms))
    held = []
    for i, u in enumerate(past):
        terms = _terms(query.locale, u.text) & key_terms
        if terms and len(terms) >= least:
            held.append((sum(rarity.get(t, 1.0) for t in terms), i))
    best = sorted(held, key=lambda h: (-h[0], h[1]))[:PAST_BUDGET_UNITS]
    out |= {id(past[i]) for _, i in best}
    return [u for u in past if id(u) in out]


def _read(evidence: list[Evidence]) -> tuple[list[Evidence], list[Unit]]:
    """The evidence an answer is composed from (the first MAX_POOL) and all its units."""
    pool = evidence[:MAX_POOL]
    return pool, [u for i, e in enumerate(pool) for u in _units(i, e)]


def _counts_whole(query: Query, pool, units: list[Unit], unit_terms: list[set[str]]) -> list[set[str]]:
    """A number the reader counts or measures with ("scale to 1000 hosts") is held by a unit that
    says what it counts as well: "`agent.max_batch` | `1000`" (samples per batch) does not hold
    "1000 hosts", and led the answer with its number."""
    amounts = {}
    for number, what in counted(query.message).items():
        if number in query.key_terms and (stems := _terms(query.locale, what)):
            amounts[number] = stems
    if not amounts:
        return unit_terms
    out = []
    for unit, terms in zip(units, unit_terms, strict=True):
        said = terms | _terms(query.locale, pool[unit.evidence].heading)
        out.append({t for t in terms if t not in amounts or amounts[t] & said})
    return out


def _install_sections(query: Query, pool, text_terms: list[set[str]], rarity: dict[str, float]) -> set[int]:
    """The evidence sections (`text_terms`: the stems of each one's text) that hold the weightiest
    key term besides the install verb, in their text or heading."""
    others = [t for t in query.key_terms if not t.startswith("instal")]
    if not others:
        return set(range(len(pool)))
    heaviest = max(others, key=lambda t: (rarity.get(t, 0.0), t))
    return {
        i
        for i, e in enumerate(pool)
        if heaviest in text_terms[i] or heaviest in _terms(query.locale, e.heading)
    }


def _score(query: Query, pool, units, unit_terms, rarity: dict[str, float], relevance) -> None:
    key_terms, identifiers = set(query.key_terms), query.identifiers
    says_name = _call_mentions(query)
    how_to = procedural(query.message)
    follow_up = query.text != query.message  # it borrowed the previous question's words
    quantity = asks_amount(query.message)
    named_asked = bool(_ASKS_NAME.search(query.message)) and not quantity
    where = bool(_WHERE.search(query.message)) and len(asks(query.message)) < 2
    # Asked how to install something, the command that installs it, where the docs say the rest of
    # what is asked (the heaviest other key term: "Windows" in "¿Cómo instalo Tallyfox en
    # Windows?", not the macOS section's `brew install`).
    text_terms = [_terms(query.locale, e.text) for e in pool]
    install_sections = (
        _install_sections(query, pool, text_terms, rarity) if _ASKS_INSTALL.search(query.message) else set()
    )
    # Asked where: which units name a place (a link to another page of the docs is none). When one
    # names a place and holds every asked word, the units that name none say less still.
    places = [where and bool(_PATH.search(_LINK_TARGET.sub("]", u.text))) for u in units]
    placed = any(key_terms <= terms for terms, place in zip(unit_terms, places, strict=True) if place)
    version = query.asks_version
    platform = telling_platform(query, rarity) if version else None
    platform_versioned = re.compile(platform_pattern(platform), re.I) if platform else None
    syntax = bool(_ASKS_FOR_STEPS.search(query.message))
    default = bool(_ASKS_DEFAULT.search(query.message))
    states_default = _states_default(units, pool) if default else []
    asks_output = bool(_ASKS_OUTPUT.search(query.message))
    dense = None
    if relevance is not None:
        dense = _standardized(relevance([_relevance_text(pool, u) for u in units]))
    frequency: dict[str, int] = {}
    for terms in unit_terms:
        for t in terms & key_terms:
            frequency[t] = frequency.get(t, 0) + 1
    headings = [_abbreviating(query, _terms(query.locale, e.heading), text=e.heading) for e in pool]
    # FAQ entries whose question (read in the words of its answer's units) lacks an asked word
    # another unit read holds: their answer ("No.") is another question's ("Does the agent need
    # to run as root?" for "Can agents run on ARM?", where the docs say `arm64`).
    other_question = [
        e.kind == "faq"
        and bool(frequency.keys() - _abbreviating(query, _terms(query.locale, e.text.partition("\n\n")[0])))
        for e in pool
    ]
    opposite = opposed(query.locale, key_terms)
    # Sections headed by the opposite of an asked word and not by the word itself.
    contrary = [_contrary(opposite, h) for h in headings]
    # How much of the question each whole section covers: answers come from sections that
    # address all of it, not from stray sentences that share a word or two.
    # Each term weighs its rarity in the reader's docs ("memory" says more than "server").
    weight = {t: rarity.get(t, 1.0) for t in key_terms}
    total = sum(weight.values())
    coverage = [
        sum(weight[t] for t in (text_terms[i] | headings[i]) & key_terms) / total if total else 1.0
        for i in range(len(pool))
    ]
    numbers = set(_NUMBER_ASKED.findall(query.message))
    pages_read = {e.page_url for e in pool}
    heading_share = [sum(weight[t] for t in h & key_terms) / total if total else 0.0 for h in headings]
    # Sections headed by a name made of the asked words, generic ones too (`_names_the_ask`).
    action = [_names_the_ask(query, e) for e in pool]
    # Sections listing references, whose items point elsewhere (`_SIGNPOST_HEADING`).
    signposts = [bool(_SIGNPOST_HEADING.fullmatch(_heading(e).strip())) for e in pool]
    # Each section's heading and its page's title: what a paragraph repeating them says.
    titled = [_titles(e) for e in pool]
    summaries = _summaries(query, pool, units)
    # A release's section of another page (a one-page manual's "Version 1.3") is release notes too.
    releases = [bool(_RELEASE_SECTION.match(_heading(e))) for e in pool]
    if not _ASKS_OBSOLETE.search(query.message):
        releases = [
            r or bool(_OBSOLETE_SECTION.search(e.heading)) for r, e in zip(releases, pool, strict=True)
        ]
    # A callable's parameters ("Parameters", then "- **aliases** – …"): how to do a thing is its
    # summary's to say, unless the question names the parameter or asks about parameters.
    # Asked an amount or a default, a parameter's item may state it (flufl.lock's "- **lifetime** (…)
    # – … Defaults to 15 seconds." for "How long is the default lifetime of a Lock …?").
    details = (
        set()
        if not how_to or _ASKS_PARAMETER.search(query.message) or quantity or default
        else _parameter_items(units)
    )
    for position, (unit, terms) in enumerate(zip(units, unit_terms, strict=True)):
        source = pool[unit.evidence]
        matched = terms & key_terms
        counts = {t: query.weight(t) * rarity.get(t, 1.0) / math.sqrt(frequency[t]) for t in matched}
        score = sum(counts.values())
        if heading_share[unit.evidence] >= RESIDUAL_HEADING_SHARE:
            score += RESIDUAL_WEIGHT * sum(w for t, w in counts.items() if t not in headings[unit.evidence])
        # The section heading speaks for its body ("## TFX-2210" then "Batch too large."), and
        # names what the section is about ("## Register an endpoint").
        score += HEADING_WEIGHT * sum(
            query.weight(t) * rarity.get(t, 1.0) / math.sqrt(frequency.get(t, 1))
            for t in headings[unit.evidence] & key_terms
        )
        if dense is not None:
            score += DENSE_WEIGHT * dense[position]
        lowered, heading = unit.text.lower(), source.heading.lower()
        # A section whose heading names the token is where it is defined ("## TFX-1042"); a
        # sentence elsewhere that merely mentions it ("prints a code such as TFX-1042") is not.
        # Asked what it is or does, an item whose term it is defines it as well, and names it
        # ("- **`-e`**: Exit immediately…" under "The Set Builtin", not "…while -e was being
        # ignored"); asked how to do something, the item naming it is not the answer ("- **ReDoc**:
        # served at /redoc" for "how do I disable ReDoc?").
        term = item_term(lowered) if unit.kind == "prose" and not how_to else None
        named = sum(
            (4.0 if mentions(heading, token) or (term and mentions(term, token)) else 0.0)
            + (2.5 if says_name(lowered, token) and not mentions(heading, token) else 0.0)
            for token in identifiers
        )
        if action[unit.evidence]:
            named += NAMED_ACTION
        if unit.kind == "code":
            # What a block shows as the result of the code before it ("Result:", "This
            # produces:") is not how to do it: Mako's escaped output led "How do I escape HTML in
            # expressions by default?" above the `<%page expression_filter="h"/>` that does it.
            example = how_to and not _shows_output(units, position)
            score = score * (1.3 if example else 0.6) + (0.5 if example else 0.0)
        # After the code factor: a heading that names the token speaks for every unit of its
        # section, not for the code's own match (it made a `raise_for_status` example lead "a
        # timeout for all requests of a ClientSession?"). Tuning citation precision 0.821 ->
        # 0.823, fact recall 0.718 -> 0.724; measured once after, held-out 0.845 -> 0.853 and
        # 0.688 -> 0.695, fresh 0.778 -> 0.773 and 0.598 -> 0.593 (DRF gained, Knot Resolver lost).
        score += named
        if position in summaries:
            score += SUMMARY_WEIGHT
        if source.kind == "faq":
            score += 0.3
            if other_question[unit.evidence]:
                score *= FAQ_OTHER_QUESTION
        if unit.kind == "row":  # a row's first cell names what the row is about ("Per seat")
            label = _row_label(unit.text)
            score += sum(
                query.weight(t) * rarity.get(t, 1.0) for t in _terms(query.locale, label) & key_terms
            )
            if label.strip("`*' ") in numbers:
                score += NAMED_ROW
        elif numbers and unit.kind == "prose":
            # So does a term ending in that number ("Exit code 5: No tests were collected").
            label, colon, _ = _LIST_ITEM.sub("", unit.text, count=1).partition(":")
            label = label.strip("`*' ")
            if (
                colon
                and len(label.split()) <= TERM_WORDS
                and label.rpartition(" ")[2].strip("`*'") in numbers
            ):
                score += NAMED_ROW
        if platform and platform_versioned.search(unit.text):
            score += NAMED_ROW  # "- Ubuntu 22.04 LTS and 24.04 LTS" for "Which Ubuntu versions ...?"
        if unit.evidence in install_sections and unit.kind == "code" and _INSTALL_COMMAND.search(unit.text):
            score += INSTALL_WEIGHT  # asked how to install: the command that installs it
        if quantity and not amounts(unit.text, query.locale):
            score *= QUANTITY_PENALTY  # an amount is asked: a unit without a number does not answer
        elif version and not (_VERSION.search(unit.text) or _VERSION.search(source.heading)):
            score *= QUANTITY_PENALTY  # a version is asked: a unit that names none does not answer
        elif platform and platform not in lowered and platform not in source.heading.lower():
            score *= QUANTITY_PENALTY  # a platform's versions are asked: one that names it not, none
        elif version and _FIX_LINE.match(unit.text) and not _ASKS_FIX.search(query.message):
            score *= QUANTITY_PENALTY  # a release is asked: the one that fixed it did not do it
        elif where and not places[position]:
            # A place is asked: a unit that names no path does not answer.
            score *= QUANTITY_PENALTY * (QUANTITY_PENALTY if placed else 1.0)
        elif default and not states_default[position]:
            # A default is asked: a unit that states none does not answer (twice the penalty: "A
            # different way would be to update the recording mode used by Betamax." led Betamax's
            # "Which record mode does Betamax use if I don't specify one?" over "`'once'` is the
            # default record mode, used when you do not set one." on its more asked words).
            score *= QUANTITY_PENALTY * QUANTITY_PENALTY
        elif named_asked and not (_NAMED.search(unit.text) or _NAMED.search(source.heading)):
            score *= QUANTITY_PENALTY  # a name is asked: a unit that names nothing does not answer
        if position in details and not any(mentions(lowered, t) for t in identifiers):
            score *= PARAMETER_WEIGHT
        if _field_label(unit) or (unit.kind == "prose" and _BOLD_LABEL.fullmatch(unit.text.strip())):
            score *= QUANTITY_PENALTY  # a field's name ("Parameters", "Date"): what follows it answers
        elif (
            unit.kind == "prose"
            and not matched
            and not (named and not _BARE_SENTENCE.search(unit.text))
            and len(_WORD.findall(unit.text)) <= BARE_WORDS
            and not _YES_NO.match(unit.text)
            and not (default and _DEFAULT.search(unit.text))
            and not ((quantity or version or _ASKS_WHEN.search(query.message)) and _NUMBER.search(unit.text))
        ):
            score *= QUANTITY_PENALTY  # a bare label ("Default: `None`", "main.py", a date): nothing asked
        elif unit.kind == "prose" and matched and not named and _restates(query, unit.text):
            score *= QUANTITY_PENALTY  # it says only the question's own words ("3. The config file.")
        if unit.kind == "prose" and not matched and source.kind != "faq" and _DOCS_ASK.search(unit.text):
            score *= QUANTITY_PENALTY  # the docs' own question, none of the asked words: a setup
        if unit.kind == "prose" and not asks_output and _ANNOUNCES_OUTPUT.search(unit.text):
            # "When we run this program, it will output the following:" introduces what a program
            # prints, which answers no question but what it prints (it led the Rust book's "What is
            # shadowing?" on the heading's word alone).
            score *= QUANTITY_PENALTY
        if _VERSION_NOTE.match(unit.text) and not (query.temporal or version):
            score *= QUANTITY_PENALTY
        if (_SIGNATURE.fullmatch(unit.text) or _SYNOPSIS.fullmatch(unit.text)) and not syntax:
            score *= QUANTITY_PENALTY
        if contrary[unit.evidence]:
            score *= OPPOSITE_WEIGHT
        if _contrary(opposite, terms):
            score *= OPPOSITE_WEIGHT  # the sentence itself says the other way
        if (
            _POINTER.match(unit.text)
            or (unit.kind == "row" and _signpost(unit.text))
            or (unit.kind == "prose" and _ONLY_LINKS.fullmatch(_LIST_ITEM.sub("", unit.text, count=1)))
            or signposts[unit.evidence]
        ):
            # "See X for more" points elsewhere, and so does an entry of a table of contents
            # ("- [Configuring your Application](#configuring-your-application)") or of a list of
            # references (`_SIGNPOST_HEADING`): the target says it better.
            score *= 0.5
        if matched and _points_to_read(unit, matched, source, pages_read, query.locale):
            score *= 0.5  # so does a sentence whose asked words are a link to a page read too
        if _OVERVIEW.match(unit.text):
            score *= OVERVIEW_WEIGHT
        if unit.kind == "prose" and (said := _bare_words(unit.text)) and said in titled[unit.evidence]:
            score *= HEADING_TEXT_WEIGHT
        if (source.page_kind == "changelog" or releases[unit.evidence]) and not query.temporal:
            score *= CHANGELOG_WEIGHT

        score *= (0.55 + 0.45 * source.score) * (0.4 + 0.6 * coverage[unit.evidence])
        if follow_up and source.page_url != pool[0].page_url:
            # A follow-up's words are few and the ones it borrows from the previous question
            # match that question's answer; retrieval read both the right way round (BM25 on the
            # new words, the dense model on both), so its best page is trusted more.
            score *= FOLLOW_UP_OTHER_PAGE
        score *= 1.0 if unit.order > 0 else 1.1  # a section's first sentence frames it
        unit.score = score


# A short sentence ending in a colon that announces what some code gives, not the code itself.
_OUTPUT_INTRO = re.compile(
    r"^\W*(?:(?:the\s+)?(?:example\s+|sample\s+|produced\s+|expected\s+|resulting\s+)?"
    r"(?:result|results|output|outcome|resultado|salida)"
    r"|(?:this|that|which|it)\s+(?:will\s+)?(?:produce|print|output|render|give|yield|return|display|show)s?"
    r"(?:\s+(?:the\s+following|something\s+like|as\s+follows|as))?"
    r"|(?:produces|prints|outputs|renders\s+as|gives|yields|displays)(?:\s+the\s+following)?)"
    r"(?:\s+(?:is|would\s+be|will\s+be|looks\s+like|es))?\s*:\s*$",
    re.I,
)


# A paragraph that only repeats its section's heading or its page's title (SQLite's pages print
# their title, "CREATE TRIGGER", under the heading that holds it) says nothing: it led "How do I
# create a trigger?", "How do I use JSON functions?" ("JSON Functions And Operators").
HEADING_TEXT_WEIGHT = 0.2
_NOT_WORD = re.compile(r"[\W_]+")


_PLAIN_NAME = re.compile(r"[a-z]+")


def _titles(evidence: Evidence) -> set[str]:
    """What a paragraph only repeating says (`_bare_words`): its section's heading, its page's title,
    and the name its heading ends with (an API entry's attribute alone on its line: "config" under
    "behave.runner.Context.config" led "How do I configure behave in a configuration file?")."""
    name = _heading(evidence).rpartition(".")[2]
    titles = {_bare_words(evidence.heading), _bare_words(evidence.title)}
    # A name that is a word of the language only: "PYTEST_DISABLE_PLUGIN_AUTOLOAD" or
    # "empty_parameter_set_mark" alone on its line is the answer to which setting does it.
    return titles | {name} if _PLAIN_NAME.fullmatch(name) else titles


def _bare_words(text: str) -> str:
    """`text`'s words alone, lowercased, one space apart."""
    return _NOT_WORD.sub(" ", text).strip().lower()


# "You'd get the following choices when running Cookiecutter:", "you should see:": what the
# reader gets from the code before, not how to do it (Cookiecutter's prompt led "How do I offer
# the user a list of licenses to pick from?" above the `cookiecutter.json` that offers them).
_YOU_GET = re.compile(
    r"^\W*(?:(?:and|then)\s+)?(?:you|we)(?:['’]d|['’]ll|\s+would|\s+will|\s+should)?\s+(?:get|see)\b"
    r"[^.!?:\n]{0,80}:\s*$",
    re.I,
)


_ANNOUNCES_OUTPUT = re.compile(
    r"\b(?:will|would|should|it)\s+(?:output|print|display|produce)s?\s+(?:the\s+following|something\s+like)"
    r"[^.!?:\n]{0,40}:\s*$",
    re.I,
)
_ASKS_OUTPUT = re.compile(
    r"\b(?:output|outputs|print|prints|printed|display|displays|show|shows|look\s+like)\b", re.I
)


def _shows_output(units: list[Unit], position: int) -> bool:
    """The code unit at `position` follows, in its section, a sentence announcing a result."""
    if position == 0:
        return False
    before, unit = units[position - 1], units[position]
    return (
        before.evidence == unit.evidence
        and before.order == unit.order - 1
        and before.kind == "prose"
        and bool(_OUTPUT_INTRO.match(before.text) or _YOU_GET.match(before.text))
    )


_SYMBOL = re.compile(r"[^\w\s.,;:!?()'-]|'[^\w\s]")  # "`", "^", "=", "/": a unit that names something


FRAGMENT_WORDS = 8


def _restates(query: Query, text: str) -> bool:
    """`text`, a list item, says no word the question does not, and names nothing: "3. The
    config file." for "Where is the config file?". Its words match, and it answers nothing. A
    name or a path is an answer in the question's words ("- `~/.vdirsyncer/config`." for "Where
    does vdirsyncer look for its config file?"); a sentence in them most often introduces the
    answer ("The address the server listens on. Default: `127.0.0.1:8000`."). So does a short
    fragment, an attribute's docstring that names its attribute: Logbook's "the bubble flag of
    this handler" led "What is a handler's bubble flag for?"."""
    if _LIST_ITEM.match(text):
        said = _LIST_ITEM.sub("", text, count=1)
    elif text[:1].islower() and len(_WORD.findall(text)) <= FRAGMENT_WORDS:
        said = text
    else:
        return False
    if _YES_NO.match(said) or _SYMBOL.search(said) or _PATH.search(said):
        return False  # "- '^' Starts-with search.": the symbol is what it says
    return _terms(query.locale, said) <= query.terms


def _points_to_read(
    unit: Unit, matched: set[str], source: Evidence, pages_read: set[str], locale: str
) -> bool:
    """`unit` holds the asked words (`matched`) only in the text of links to other pages that were
    read as well: "And then you also read how to handle [CORS with the `CORSMiddleware`](/tutorial/cors/)"
    led "How do I add CORS?" over the page it links to, which says how."""
    if "](" not in unit.text:
        return False
    # A link that opens the sentence is its subject, not a pointer: Sphinx links every API name
    # it cross-references ("[`frozenbidict`](/api.html#bidict.frozenbidict) is an immutable,
    # hashable bidirectional mapping type.").
    said = _LIST_ITEM.sub("", unit.text, count=1)
    subject = _LINKED.match(said)
    linked = [
        text
        for text, url in _LINKED.findall(said[subject.end() :] if subject else said)
        if url.split("#")[0] in pages_read - {source.page_url}
    ]
    return bool(linked) and matched <= _terms(locale, " ".join(linked))


def _heading(evidence: Evidence) -> str:
    return evidence.heading.split(" › ")[-1]


# Asked how to do something, a reference's member named by the doing and the thing in the
# question's own words: `set_timeout` for "How do I set a timeout?" (pycurl's `CurlMulti.timeout`,
# which only reads the multi handle's timeout, led on the one key term both hold),
# `get_response_code` for "How do I get the response code?". The doing is a word too common to
# search on ("set", "get"), the thing key terms: when the doing is a key term too ("enable_x"),
# the heading already holds every asked word. Any name made of asked words (a setting
# `broker_transport_options` for "what transport option do I need ...?") cost one blind answer
# its fact.
NAMED_ACTION = 2.0
_MEMBER = re.compile(
    r"(?:[\w.]*\.)?([A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+|[a-z]+(?:[A-Z][a-z0-9]+)+)(?:\(.*\))?"
)


def _names_the_ask(query: Query, evidence: Evidence) -> bool:
    """Asked how to do something, the section's heading is a joined name (`set_timeout`,
    `setTimeout`) of two or more words, every one of them a word of the question: the first one
    none of its key terms (the doing), the others key terms (the thing done)."""
    if not procedural(query.message):
        return False
    match = _MEMBER.fullmatch(_HEADING_NAME.sub("", _heading(evidence).strip()))
    if match is None:
        return False
    doing, *thing = _MEMBER_PART.findall(match.group(1))
    said = _message_words(query)
    stems = [lexical.stem_terms(query.locale, w) for w in thing]
    return (
        bool(thing)
        and doing.lower() in said  # "get" is a stop word: no stem to compare
        and not lexical.stem_terms(query.locale, doing) & query.key_terms
        and all(len(s) == 1 and s <= query.key_terms for s in stems)
    )


_MEMBER_PART = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def _asked_name(query: Query) -> tuple[str, list[str]] | None:
    """Asked what a named thing is or does (`_ASKS_DEFINITION`): the name as asked, lowercased, and
    the question's exact tokens (`identifiers`) it holds."""
    asked = _ASKS_DEFINITION.match(query.message)
    if asked is None:
        return None
    name = (asked.group("name") or asked.group("does") or asked.group("hace")).lower()
    return name, [t for t in query.identifiers if mentions(name, t)]


def _headed_by(evidence: Evidence, tokens: list[str]) -> bool:
    """The section's own heading names one of `tokens`."""
    heading = _heading(evidence).lower()
    return any(mentions(heading, t) for t in tokens)


def gives_no_amount(
    query: Query, composition: Composition, term_weights: dict[str, float] | None = None
) -> bool:
    """The question opens by asking an amount (`_ASKS_AMOUNT`) or which version
    (`_ASKS_WHICH_VERSION`) and the composed answer names no number where it starts (its lead or
    its code; for a version, also the heading of the section it leads). Asked which versions of a
    thing the docs name here and there are supported (`query.telling_platform`: "Which Ubuntu versions
    does Tallyfox support?"; `term_weights` says how telling the thing's name is), a start that
    does not name that thing gives none of its versions ("This documentation describes Tallyfox
    3.2." is no Ubuntu version)."""
    version = _ASKS_WHICH_VERSION.match(query.message) is not None
    if not version and _ASKS_AMOUNT.match(query.message) is None:
        return False
    said = [p.text for p in composition.parts if p.kind in ("lead", "code")]
    # What a lead announces ("... can create drawings for following DXF versions:") is its list.
    said += [
        after.text
        for part, after in zip(composition.parts, composition.parts[1:], strict=False)
        if part.kind == "lead" and part.text.rstrip().endswith(":") and after.kind == "support"
    ]
    if version and composition.cited:
        said.append(composition.cited[0].heading)
    if version and (platform := telling_platform(query, term_weights)):
        lowered = " ".join(said).lower()
        if platform not in lowered:
            return True
    # A number the question itself states is no answer to it: "Which Django versions are supported
    # by django-csp 3.7?" was answered "3.7".
    stated = set(amounts(query.message, query.locale))
    if any(n not in stated for text in said for n in amounts(text, query.locale)):
        return False
    if not version:
        return True
    # A version may be named by a code that holds its number (ezdxf's "AC1027", "R2013"), but not
    # by a name the question itself says ("Which Python version does cmd2 need?").
    asked = _message_words(query)
    return not any(w.lower() not in asked for text in said for w in _CODED.findall(text))


_CODED = re.compile(r"\w*[^\W\d_]\d\w*")  # a word with a digit after a letter: R2013, AC1027, v2


def defined_name(query: Query, evidence: list[Evidence]) -> Evidence | None:
    """Asked what a name is or does ("What does to_unicode do?", an exact name: `identifiers`), the
    section read that is headed by it (an API entry, `kitchen.text.converters.to_unicode`), if one
    is. Where the docs define the very name asked about, they answer the question."""
    asked = _asked_name(query)
    return next((e for e in evidence if _headed_by(e, asked[1])), None) if asked else None


def _summaries(query: Query, pool, units: list[Unit]) -> set[int]:
    """Asked what a named thing is: the positions of the units that open a section headed by its
    name (the first prose that is not the signature nor a field's name)."""
    asked = _asked_name(query)
    if asked is None:
        return set()
    name, tokens = asked
    headed = {
        i
        for i, e in enumerate(pool)
        if _headed_by(e, tokens)
        # A plain word is a name when the section is headed by it alone (bidict's "frozenbidict",
        # "namedbidict()"; a "Caching" section for "What is caching?").
        or _HEADING_NAME.sub("", _heading(e)).lower() == name
    }
    first: dict[int, int] = {}
    for position, unit in enumerate(units):
        if (
            unit.evidence in headed
            and unit.kind == "prose"
            and not _SIGNATURE.fullmatch(unit.text)
            and not _field_label(unit)
            and not _BASES.match(unit.text)
            and not _VERSION_NOTE.match(unit.text)
            and (unit.evidence not in first or unit.order < units[first[unit.evidence]].order)
        ):
            first[unit.evidence] = position
    return set(first.values())


# A callable's parameter weighs this much in a how-to question that neither names it nor asks
# about parameters: Whoosh's `correct_query` "- **aliases** – an optional dictionary …" and pyte's
# "**data** (str) – text to display." led "How do I suggest corrections …?" and "How do I get
# the screen contents as text?" (short, and close to the question for the dense model).
PARAMETER_WEIGHT = 0.5
_PARAMETERS = re.compile(
    r"(?:parameters?|arguments?|keyword arguments|args|kwargs|par[aá]metros?)\s*:?", re.I
)
_ASKS_PARAMETER = re.compile(
    r"\b(?:parameters?|arguments?|args|kwargs|options?|par[aá]metros?|argumentos?)\b", re.I
)
# A parameter's item under "Parameters": "- **aliases** – …", "**data** (str) – …".
_PARAMETER_ITEM = re.compile(r"\s*(?:(?:\d+\.|[-*])\s+)?\*\*")


def _parameter_items(units: list[Unit]) -> set[int]:
    """The positions of the list items under a "Parameters" field (a callable's parameters)."""
    found: set[int] = set()
    under = None  # the evidence whose "Parameters" field the units read now are under
    for position, unit in enumerate(units):
        if unit.kind == "prose" and _PARAMETERS.fullmatch(unit.text.strip()):
            under = unit.evidence
        elif under == unit.evidence and unit.kind == "prose" and _PARAMETER_ITEM.match(unit.text):
            found.add(position)
        else:
            under = None
    return found


def _relevance_text(pool, unit: Unit) -> str:
    """What the dense model reads of a unit: its section's heading, then its text; a table row as
    the answer shows it ("`--max-batch N` — Default: `1000` — Meaning: …"), its header's names
    beside its values, not two lines of Markdown pipes (tuning citation precision 0.846 -> 0.848,
    fact recall 0.779 -> 0.780; measured once after, fresh 0.791 -> 0.796 and 0.686 -> 0.696, the
    other groups unchanged); a code block without its fence lines, which say nothing of what the
    code does and take a share of its 200 characters ("```bash"; tuning citation precision 0.848 ->
    0.851; measured once after, fresh 0.796 / 0.696 -> 0.806 / 0.701, new-user 0.767 -> 0.773,
    blind 0.780 / 0.606 -> 0.788 / 0.614, held-out 0.886 -> 0.879)."""
    if unit.kind == "row":
        text = _row_item(unit.text).removeprefix("- ")
    elif unit.kind == "code":
        text = "\n".join(line for line in unit.text.splitlines() if not line.startswith("```"))
    else:
        text = unit.text
    return f"{_heading(pool[unit.evidence])}: {text}"[:RELEVANCE_CHARS]


def passage_signals(
    query: Query,
    evidence: list[Evidence],
    term_weights: dict[str, float],
    relevance: Callable[[list[str]], list[float]],
    baseline: float = 0.0,
) -> dict[str, float]:
    """How well the one best passage of what was read answers the question: confidence signals
    (`evidence.features`) read from the units an answer would quote, not from whole chunks.

    A model's cosines sit in a band of their own (the multilingual model rates any two texts
    0.8 apart, the English one 0.2): each is read as its lift above `baseline`, the question's
    mean cosine with the reader's docs (`SearchOutcome.dense_stats`), towards 1.0.
    `passage_lift`: the best unit's (as `_relevance_text` gives it); `passage_z`: how far that
    best stands out from the other units read (z / 4, as `dense_z`); `passage_fit`: the most
    any unit's lift times the share of the key terms (by `term_weights`) it holds with its
    section's heading. A near miss ("cap httpx at 10 requests per second" beside the timeout
    settings) matches chunks on topic, but no sentence of them says what was asked; an answer's
    sentence does."""
    pool, units = _read(evidence)
    # A field's name ("Date" over a release date) is never quoted as an answer.
    units = [u for u in units[:MAX_UNITS] if not _field_label(u)]
    if not units:
        return {}
    cosines = relevance([_relevance_text(pool, u) for u in units])
    mean = sum(cosines) / len(cosines)
    spread = (sum((c - mean) ** 2 for c in cosines) / len(cosines)) ** 0.5
    lifts = [max(0.0, (c - baseline) / (1.0 - baseline)) if baseline < 1.0 else 0.0 for c in cosines]
    key_terms = set(query.key_terms)
    total = sum(term_weights.get(t, 0.0) for t in key_terms) or 1.0
    headings = [_terms(query.locale, e.heading) for e in pool]

    def held(unit: Unit) -> float:
        terms = (_terms(query.locale, unit.text) | headings[unit.evidence]) & key_terms
        return sum(term_weights.get(t, 0.0) for t in terms) / total

    return {
        "passage_lift": max(lifts),
        "passage_z": (max(cosines) - mean) / (spread + 1e-6) / 4.0,
        "passage_fit": max(held(u) * lift for u, lift in zip(units, lifts, strict=True)),
    }


def _group(lead: Unit, units: list[Unit], query: Query, stale: set[int], pool_kind: str) -> _Group:
    """The lead and the few units that carry its conditions, its list or its code."""
    group = _grouped(lead, units, query, stale, pool_kind)
    if asks_amount(query.message):
        _lead_with_amount(group, query.locale)
    if _ASKS_DEFAULT.search(query.message):
        _lead_with_signature(group, _section_units(units, lead.evidence, stale), query)
    return group


def _lead_with_signature(group: _Group, same: list[Unit], query: Query) -> None:
    """Asked a parameter's default, a lead that states none, in an API entry whose signature
    gives it (`discover(timeout: float = 5.0, ...)`): the signature leads and the lead follows
    as its support. Bleak's "What is the default timeout of BleakScanner.discover()?" was
    answered "**timeout** – Time, in seconds, to scan for." and never said 5.0."""
    if any(_DEFAULT.search(u.text) for u in group.leads):
        return
    asked = _message_words(query)
    signature = next(
        (
            u
            for u in same
            if u.kind == "prose"
            and _SIGNATURE_START.match(u.text)
            and asked & signature_defaults(u.text)
            and not any(u is lead for lead in group.leads)
        ),
        None,
    )
    if signature is None or any(asked & signature_defaults(u.text) for u in group.leads):
        return
    group.support = sorted(
        [u for u in group.support if u is not signature] + group.leads, key=lambda u: u.order
    )
    group.leads = [signature]


def signature_defaults(text: str) -> set[str]:
    """The parameters of a call signature that have a default (`resolve=False`, `timeout: float
    = 5.0`), lowercased; the parameters between its first parenthesis and the one closing it."""
    start = text.find("(")
    if start < 0:
        return set()
    names: set[str] = set()
    depth, current = 0, []
    for char in text[start + 1 :]:
        if char in "([{":
            depth += 1
        elif char in ")]}":
            if depth == 0:
                break
            depth -= 1
        if char == "," and depth == 0:
            names |= _defaulted("".join(current))
            current = []
        else:
            current.append(char)
    else:
        return set()  # no closing parenthesis: not a signature we can read
    return names | _defaulted("".join(current))


_DEFAULTED = re.compile(r"\s*\**(\w+)\s*(?::[^=]*)?=")


def _defaulted(parameter: str) -> set[str]:
    found = _DEFAULTED.match(parameter)
    return {found.group(1).lower()} if found else set()


def _lead_with_amount(group: _Group, locale: str) -> None:
    """Asked an amount, a lead that names no number and the sentence right after it that does
    read as one lead: terminaltables' "Number of spaces to pad on the left side of every cell."
    then "Default is **1**." for "How many spaces of padding does a cell get?" (the number was
    quoted below a lead that did not give it, and the answer refused as naming no number)."""
    lead = group.leads[0]
    following = next((u for u in group.support if u.order == lead.order + 1), None)
    if (
        len(group.leads) == 1
        and lead.kind == "prose"
        and following is not None
        and following.kind == "prose"
        and not _LIST_ITEM.match(lead.text)
        and not _LIST_ITEM.match(following.text)
        and not amounts(lead.text, locale)
        and amounts(following.text, locale)
    ):
        group.leads.append(following)
        group.support = [u for u in group.support if u is not following]


def _grouped(lead: Unit, units: list[Unit], query: Query, stale: set[int], pool_kind: str) -> _Group:
    same = _section_units(units, lead.evidence, stale)
    group = _Group(lead.evidence, [lead])
    if pool_kind == "faq" and sum(len(u.text.split()) for u in same) <= FAQ_WORDS:
        group.leads = [u for u in same if u.kind != "code"] or [lead]
        return group
    if lead.kind == "row":  # other rows only when they answer about as well (never the whole table)
        header = lead.text.partition("\n")[0]
        rows = [u for u in same if u.kind == "row" and u is not lead and u.text.partition("\n")[0] == header]
        ratio = ROW_RATIO
        if len(rows) < WHOLE_LIST_ITEMS and not any(
            _label_terms(query.locale, _row_label(u.text)) & query.terms for u in [lead, *rows]
        ):
            # A short table of alternatives the question picks none of ("Where is the config
            # file?" over Linux, Windows and macOS rows): the others answer as well as the lead.
            ratio = ALTERNATIVES_RATIO
        group.leads += _answering_as_well(lead, rows, 6, ratio)  # after the lead, in the table's order
        return group
    at = next(i for i, u in enumerate(same) if u is lead)
    following = same[at + 1 :]
    # What a sentence ending with a colon announces: its list, its table or its code.
    announced = _continuation(following) if _announces(lead) else []
    if (
        lead.kind in ("prose", "code")
        and not _LIST_ITEM.match(lead.text)  # an item answers alone: its neighbours are other facts
        and sum(len(u.text.split()) for u in same if u.kind == "prose") <= SHORT_SECTION_WORDS
    ):
        kept = {id(u) for u in [u for u in same if u.kind == "code"][:SHORT_SECTION_CODE] + announced}
        group.support += [u for u in same if u is not lead and (u.kind == "prose" or id(u) in kept)]
        return group
    if announced:
        group.support += announced
        after = same[same.index(announced[-1]) + 1 :]
        group.support += _rest_of_cut(lead, after) or _said_of_shown(announced, after)
        group.support[:0] = _framing(same, at)
        return group
    if lead.kind == "code":
        before = same[at - 1] if at > 0 else None
        if before is not None and before.kind == "prose":
            group.support.append(before)  # what the code does, in the docs' words
            if _announces(before):
                group.support += _framing(same, at - 1) + _rest_of_cut(before, following)
        return group
    if _LIST_ITEM.match(lead.text):
        # A list item's neighbours are other items (other facts), not its conditions: quote only
        # the sentence that introduces the list ("It takes instances of `httpx.Limits` which
        # define:"), and the code or text the item itself introduces.
        intro = _list_intro(same, at)
        named = any(mentions(lead.text.lower(), token) for token in query.identifiers)
        if intro is not None:
            group.support.append(intro)
            # ... and the list's other items when it is short: "three types of exceptions can be
            # used:" quoted with one of them promises what it does not show. Not when the item
            # names what was asked ("the default keepalive_expiry?"): that item is the answer.
            items = _continuation(same[same.index(intro) + 1 :])
            if (
                not named
                and len(items) <= WHOLE_LIST_ITEMS
                and sum(len(u.text.split()) for u in items) <= WHOLE_LIST_WORDS
                and all(u.kind == "prose" for u in items)
            ):
                group.support += [u for u in items if u is not lead]
        # Other items of its list that answer about as well follow it, in the list's order, like
        # the rows of a table (a list is a table of one column); not when it names what was asked.
        quoted = {id(u) for u in group.support}
        siblings = [u for u in _list_around(same, at) if u is not lead]
        if not named and not any(id(u) in quoted for u in siblings):
            group.leads += _answering_as_well(lead, siblings, MAX_ITEMS, ITEM_RATIO)
        return group
    words = 0
    for unit in following:  # what follows a sentence usually qualifies it
        if unit.kind == "code":
            # How-to questions get the example; the sentences after it still qualify the lead
            # ("... returns a 500 instead.", "Note that ..."): tuning sets, fact recall +0.01.
            wanted = procedural(query.message) or _EXAMPLE.search(
                " ".join(u.text for u in [lead, *group.support][-2:])
            )
            if wanted and not any(u.kind == "code" for u in group.support):
                group.support.append(unit)
            continue
        if unit.kind == "row" or words >= CONTEXT_WORDS:
            break
        group.support.append(unit)
        words += len(unit.text.split())
        if _announces(unit):
            group.support += _continuation(same[same.index(unit) + 1 :])
            break
    if words < CONTEXT_WORDS // 3:
        group.support[:0] = _before(same, at)
    return group


_LINK_TARGET = re.compile(r"\]\([^)\s]*\)")


def _said(unit: Unit) -> str:
    """What a unit says, whatever its links point to."""
    return " ".join(_LINK_TARGET.sub("]", unit.text).split()).lower()


def _said_of_shown(announced: list[Unit], after: list[Unit]) -> list[Unit]:
    """The short sentence right after the code a lead announces, which says what it showed:
    GeoAlchemy's "When `InitSpatialMetaData` is executed again it will report an error:", the
    error, then "You can safely ignore that error." (the answer, which was left out)."""
    if (
        announced[-1].kind == "code"
        and after
        and after[0].kind == "prose"
        and after[0].order == announced[-1].order + 1
        and not _LIST_ITEM.match(after[0].text)
        and not _announces(after[0])
        and len(after[0].text.split()) <= SAID_OF_SHOWN_WORDS
    ):
        return [after[0]]
    return []


def _rest_of_cut(sentence: Unit, after: list[Unit]) -> list[Unit]:
    """The rest of a sentence its code block cuts off, after that code ("For example, the units
    of" [code] "may be unexpected at first but, are a consequence of applying this rule.")."""
    if sentence.cut and after and after[0].kind == "prose" and after[0].text[:1].islower():
        return [after[0]]
    return []


def _framing(same: list[Unit], at: int) -> list[Unit]:
    """The sentence before `same[at]` when that one is too short to say what it is about alone
    ("Never do things like this:", "For example, the units of")."""
    return _before(same, at) if len(same[at].text.split()) < CONTEXT_WORDS // 3 else []


def _before(same: list[Unit], at: int) -> list[Unit]:
    """The unit before `same[at]` when it can say what that one is about (`_frames`)."""
    if at > 0 and _frames(same[at - 1], same[at - 2] if at > 1 else None):
        return [same[at - 1]]
    return []


def _frames(unit: Unit, before: Unit | None) -> bool:
    """Whether `unit` (`before` it in the docs, if any) can say what the unit after it is about:
    prose, not a field's name ("Raises") nor the value of one ("See `coerce_seconds()`." under
    humanfriendly's "Raise", which framed the "Some examples:" after it)."""
    return (
        unit.kind == "prose" and not _field_label(unit) and not (before is not None and _field_label(before))
    )


def _field_label(unit: Unit) -> bool:
    """A prose unit of one to three bare words (`_FIELD_LABEL`): a field's name, "Parameters"."""
    return unit.kind == "prose" and _FIELD_LABEL.fullmatch(unit.text.strip()) is not None


def _answering_as_well(lead: Unit, others: list[Unit], limit: int, ratio: float = ROW_RATIO) -> list[Unit]:
    """At most `limit` of `others` (rows of the lead's table, items of its list) scoring at least
    `ratio` of the lead, the best ones, in the docs' order."""
    chosen = [u for u in sorted(others, key=lambda u: -u.score) if u.score >= ratio * lead.score]
    return sorted(chosen[:limit], key=lambda u: u.order)


def _list_around(same: list[Unit], at: int) -> list[Unit]:
    """The items of the list `same[at]`, a list item, is in: the run of items around it."""
    start = at
    while start > 0 and same[start - 1].kind == "prose" and _LIST_ITEM.match(same[start - 1].text):
        start -= 1
    end = at + 1
    while end < len(same) and same[end].kind == "prose" and _LIST_ITEM.match(same[end].text):
        end += 1
    return same[start:end]


def _section_units(units: list[Unit], evidence: int, stale: set[int]) -> list[Unit]:
    """The units of one evidence section still standing, in the docs' order."""
    return sorted((u for u in units if u.evidence == evidence and id(u) not in stale), key=lambda u: u.order)


def _announces(unit: Unit) -> bool:
    """A sentence ending with a colon announces what follows it: its code, its list or its table;
    so does one that its code block cuts off ("To create a key export use", then the command) or
    a file's label ("`main.py`")."""
    return unit.kind == "prose" and (unit.text.rstrip().endswith(":") or unit.cut)


def _continuation(following: list[Unit]) -> list[Unit]:
    """What a sentence ending with a colon introduces: its list items, or one code block."""
    out: list[Unit] = []
    for unit in following[:8]:
        if unit.kind == "code":
            # The code right after the colon (under its tab's label, when it has one).
            if all(_TAB_LABEL.match(u.text) for u in out):
                return [*out, unit]
            return out  # a list
        if (
            unit.kind == "prose"
            and not _LIST_ITEM.match(unit.text)
            and out
            and not _TAB_LABEL.match(out[-1].text)
        ):
            break
        out.append(unit)
    return out


def _keep_announced(group: _Group, units: list[Unit], stale: set[int]) -> None:
    """A quoted sentence that ends with a colon announces its code, its list or its table:
    quoted without them, the answer promises what it does not show ("You can modify the default
    redirection handling with the `follow_redirects` parameter:" and no example)."""
    same = _section_units(units, group.evidence, stale)
    quoted = {id(u) for u in group.units}
    for unit in list(group.units):
        if not _announces(unit):
            continue
        at = next((i for i, u in enumerate(same) if u is unit), None)
        shown = _continuation(same[at + 1 :]) if at is not None else []
        if shown and not any(id(u) in quoted for u in shown):
            group.support += shown
            quoted.update(id(u) for u in shown)


# The name of an API reference's field listing a member's arguments, attributes or results (a
# changelog's "Bug fixes:" or "Other changes:" says what its items are, and stays).
_FIELD_NAME = re.compile(
    r"(?:(?:keyword|positional|optional|required)\s+)?(?:arguments?|args|kwargs|parameters?|params|options"
    r"|attributes|returns?|return\s+type|raises|yields|type|parámetros|argumentos|devuelve)\s*:",
    re.I,
)


def _list_intro(same: list[Unit], at: int) -> Unit | None:
    """The sentence announcing the list that `same[at]`, a list item, is in ("It takes instances
    of `httpx.Limits` which define:"), if the list has one. A field's name is none ("Keyword
    argument:", "Parameters:"): it says nothing the item does not, and read first it was all a
    reader saw of polib's answer to "How do I find untranslated entries?"."""
    before = next((i for i in range(at - 1, -1, -1) if not _LIST_ITEM.match(same[i].text)), None)
    if before is None:
        return None
    intro = same[before]
    if not _announces(intro) or _FIELD_NAME.fullmatch(intro.text.strip()):
        return None
    # Items of another shape between them make another list: a definition list read as items
    # ("- **ACCOUNT_FORMS (={})**: ...") whose entry holds its own list ("Possible keys (and
    # default values):" then "- `login`: ...") is not announced by that entry's sentence.
    shape = _item_shape(same[at].text)
    if any(_item_shape(u.text) != shape for u in same[before + 1 : at]):
        return None
    return intro


_ENTRY = re.compile(r"\*\*[^*\n]+\*\*:")  # a definition list's entry as the Markdown has it


def _item_shape(text: str) -> tuple[str, str]:
    """A list item's marker (numbered or not) and whether it is a definition list's entry ("- **term**:
    what it is", `_ENTRY`) or not."""
    marker = _LIST_ITEM.match(text)
    rest = text[marker.end() :] if marker else text
    opening = "term" if _ENTRY.match(rest) else "plain"
    return ("numbered" if marker and marker.group(1)[0].isdigit() else "bullet", opening)


def _quoted_list_intro(group: _Group, units: list[Unit], stale: set[int]) -> Unit | None:
    """When a list item leads and the sentence announcing its list is quoted too, that sentence:
    it reads before the item, as in the docs."""
    lead = group.leads[0]
    if lead.kind != "prose" or not _LIST_ITEM.match(lead.text):
        return None
    same = _section_units(units, group.evidence, stale)
    at = next((i for i, u in enumerate(same) if u is lead), None)
    intro = _list_intro(same, at) if at is not None else None
    return intro if intro is not None and any(u is intro for u in group.support) else None


SAME_PAGE_RATIO = 0.35  # tuning sets: fact recall 0.577 -> 0.614 at 0.35-0.5, citation precision unchanged


def _same_page_part(ranked: list[Unit], first: _Group, pool) -> Unit | None:
    """The best unit of another section of the lead's page, when it scores near the lead."""
    lead = first.leads[0]
    page = pool[first.evidence].page_url
    taken = {id(u) for u in first.units}
    for unit in ranked:
        if unit.score < SAME_PAGE_RATIO * lead.score:
            return None
        if unit.evidence != first.evidence and pool[unit.evidence].page_url == page and id(unit) not in taken:
            return unit
    return None


def _second_part(query, ranked, first: _Group, pool, terms_of, rarity, relevance_to=None) -> Unit | None:
    """The best unit holding what the first part leaves unanswered (a second fact, a second
    page), or the section the first part points to ("as described on [Networking](...)")."""
    key_terms = set(query.key_terms)
    heading = _terms(query.locale, pool[first.evidence].heading)
    # What the first part says in prose, and with its code too.
    stated = heading.union(*(terms_of[id(u)] for u in first.units if u.kind != "code"))
    covered = stated.union(*(terms_of[id(u)] for u in first.units if u.kind == "code"))
    # Terms the docs never use cannot be answered by any part: they do not count as missing.
    weight = {t: rarity.get(t, 1.0) for t in key_terms if t in rarity or not rarity}
    total = sum(weight.values()) or 1.0
    missing = {t for t in weight if t not in covered}
    lead = first.leads[0]
    taken = {id(u) for u in first.units}
    ratio = SECOND_RATIO if _TWO_ASKS.search(query.message) else SECOND_RATIO_ONE_ASK
    # An ask is answered by what the first part states, not by the words of its code: a command's
    # `--config-file` and `--remote-branch` do not say which setting changes the remote. Tuning:
    # one answer changed, gaining its other ask's fact (b-mkdocs-13; two-page facts 0.620 -> 0.635).
    other = _other_ask(query, ranked, first, pool, terms_of, rarity, stated, taken, relevance_to)
    if other is not None:
        return other
    if sum(weight[t] for t in missing) / total >= MISSING_SHARE:
        for unit in ranked:
            if unit.score < ratio * lead.score:
                break
            held = terms_of[id(unit)] & missing
            if (
                id(unit) not in taken
                and sum(weight[t] for t in held) / total >= SECOND_COVER
                and pool[unit.evidence].score >= SECOND_EVIDENCE
            ):
                return unit
    # The lead sends the reader elsewhere for the detail ("configure it as described on the
    # [Networking](...) page"): the best part of that page, when it is among the evidence.
    targets = {t.split("#")[0] for u in first.leads for _, t in SITE_LINK.findall(u.text)}
    for unit in ranked:
        if pool[unit.evidence].page_url in targets and unit.evidence != first.evidence:
            return unit
    return None


# Where a question asks a second thing: "…, and which …", "… and how do I …", "¿… y cómo …?".
# A whitespace run is only tried from its start (`(?<!\s)`): from every position of it, a long run
# cost quadratic time (a 4,000-character message of spaces and tabs: 0.25 s).
_ASK_SPLIT = re.compile(
    r"(?<=[.?!])\s+|[,;]\s*(?:and|but|then|y|pero)\s+|(?<!\s)\s+(?:and|y)\s+(?=(?:then\s+)?(?:how|what|which|where|when|"
    r"why|who|is|are|do|does|can|could|should|c[oó]mo|qu[eé]|cu[aá]l|cu[aá]les|d[oó]nde|cu[aá]ndo|cu[aá]nt[oa]s?|"
    r"por\s+qu[eé])\b)",
    re.I,
)
_ASK_START = re.compile(
    r"^\W*(how|what|which|where|when|why|who|is|are|do|does|did|can|could|should|would|will|"
    r"c[oó]mo|qu[eé]|cu[aá]l|cu[aá]les|d[oó]nde|cu[aá]ndo|cu[aá]nt[oa]s?|por\s+qu[eé]|hay|se\s+puede|puedo)\b",
    re.I,
)
# ... and so is one after a leading clause ("On Windows, where is the config file", "Porting a v1
# @validator to v2: what's the replacement decorator"), not a relative clause ("XFS, which has no
# blocks reserved"). Nine questions of all the sets changed, all two-page; one tuning answer (the
# Windows one) gained the other ask's fact (fact recall 0.778 -> 0.780).
_ASK_AFTER_CLAUSE = re.compile(
    r"^[^,:;?]{1,80}[,:]\s*¿?(?:how|what|where\s+(?:is|are|was|were|do|does|did|can|should|would|will)|which\s+"
    r"(?!(?:is|are|was|were|has|have|had|means|makes|does|do|did|can|could|will|would|should|may|might|i|we|"
    r"you|they|it)\b)\w+|c[oó]mo|qu[eé]|cu[aá]l(?:es)?|d[oó]nde|cu[aá]ndo)\b",
    re.I,
)
OTHER_ASK_COVER = 0.5  # a unit answers the other ask when it holds this share of its own words
OTHER_ASK_RATIO = 0.25  # ... and scores at least this share of the lead
# ... or, when no unit holds its words (a paraphrased ask), the unit the dense model finds closest to
# that ask alone when it stands out this far (z over the evidence's units). Tuning: 1.5 / 2.0 / 2.5 ->
# citation precision 0.843 / 0.849 / 0.851 (0.854 without), fact recall 0.781 / 0.783 / 0.780
# (0.778); at 2.0 both gold pages of a two-page question are cited in 12 of 35, 9 without.
OTHER_ASK_DENSE_Z = 2.0
# An ask of this many key terms or fewer says what it asks about only through the statement before
# it ("I need email address fields. What do I install for that, and …"). Tuning: fact recall 0.795
# -> 0.796, two-page 0.635 -> 0.651, both gold pages cited in one more (2: one fact gained and one
# lost; 3: 0.794).
CONTEXT_TERMS = 1


def asks(message: str, locale: str | None = None) -> list[str]:
    """The questions one message asks ("Which command compiles the catalogs, and which entry
    point group makes the theme discoverable?" asks two); statements around them are context.
    With `locale`, an ask of at most CONTEXT_TERMS key terms ("What do I install for that") is
    read with the statement just before it ("I need email address fields.")."""
    pieces = [p.strip() for p in _ASK_SPLIT.split(message) if p and p.strip()]
    out = []
    for i, piece in enumerate(pieces):
        if not _is_ask(piece):
            continue
        context = i > 0 and locale is not None and not _is_ask(pieces[i - 1])
        if context and len(key_terms(locale, piece)) <= CONTEXT_TERMS:
            piece = f"{pieces[i - 1]} {piece}"
        out.append(piece)
    return out


def _is_ask(piece: str) -> bool:
    return piece.endswith("?") or bool(_ASK_START.match(piece) or _ASK_AFTER_CLAUSE.search(piece))


def _other_ask(
    query, ranked, first: _Group, pool, terms_of, rarity, covered, taken, relevance_to=None
) -> Unit | None:
    """When the question asks two things and the first part answers one of them: the best unit
    holding most of the words only the other ask uses (a long question's second ask is a small
    share of all its words, too small for the whole-question measure in `_second_part`)."""
    parts = asks(query.message, query.locale)
    if len(parts) < 2:
        return None
    own = [set(key_terms(query.locale, p)) & set(query.key_terms) for p in parts]
    distinct = [terms - set().union(*(o for j, o in enumerate(own) if j != i)) for i, terms in enumerate(own)]

    def share(terms: set[str], held: set[str]) -> float:
        total = sum(rarity.get(t, 1.0) for t in terms)
        return sum(rarity.get(t, 1.0) for t in terms & held) / total if total else 1.0

    # An ask for an amount ("how many times is it retried") is answered only by units that say a
    # number: "A webhook endpoint failed every retry attempt" holds its words, not its answer.
    quantity = [bool(_QUANTITY.search(p)) for p in parts]
    counted = set().union(*(terms_of[id(u)] for u in first.units if amounts(u.text, query.locale)))
    counted |= _terms(query.locale, pool[first.evidence].heading)
    seen = [counted if q else covered for q in quantity]
    # The ask the first part leaves most unanswered.
    at = min(
        (i for i, d in enumerate(distinct) if d), key=lambda i: share(distinct[i], seen[i]), default=None
    )
    if at is None or share(distinct[at], seen[at]) >= OTHER_ASK_COVER:
        return None
    wanted = distinct[at]
    lead = first.leads[0]
    for unit in ranked:
        if unit.score < OTHER_ASK_RATIO * lead.score:
            break
        held = terms_of[id(unit)] | _terms(query.locale, pool[unit.evidence].heading)
        if (
            id(unit) not in taken
            and share(wanted, held) >= OTHER_ASK_COVER
            and share(wanted, held) > share(wanted, seen[at])
            and pool[unit.evidence].score >= SECOND_EVIDENCE
            and (not quantity[at] or amounts(unit.text, query.locale))
        ):
            return unit
    if relevance_to is None:
        return None
    # A paraphrased ask holds few of its own words anywhere: the unit the dense model finds
    # closest to that ask alone, when it stands out among the evidence's units.
    candidates = [
        u
        for u in ranked
        if id(u) not in taken
        and pool[u.evidence].score >= SECOND_EVIDENCE
        and (not quantity[at] or amounts(u.text, query.locale))
    ]
    if len(candidates) < 3:
        return None
    dense = _standardized(relevance_to(parts[at], [_relevance_text(pool, u) for u in candidates]))
    best = max(range(len(candidates)), key=lambda i: dense[i])
    return candidates[best] if dense[best] >= OTHER_ASK_DENSE_Z else None


def _named_parts(
    query: Query, ranked: list[Unit], groups: list[_Group], second: Unit | None, pool
) -> list[Unit]:
    """A question that names several things ("the defaults of `max_connections`,
    `max_keepalive_connections` and `keepalive_expiry`") is answered for each of them: for
    every name the parts so far do not explain, the best sentence, item or row of the quoted
    sections that holds it (at most MAX_NAMED)."""
    # Only names that point somewhere: the product's own name, said everywhere, explains nothing.
    names = names_in(tuple(t for t in identifier_tokens(query.message) if t in query.identifiers))
    if len(names) < 2:
        return []
    chosen = [u for g in groups for u in g.units] + ([second] if second is not None else [])
    # A code block names things without saying what they are: only prose and rows count.
    said = " ".join(u.text.lower() for u in chosen if u.kind != "code")
    said += " " + " ".join(pool[g.evidence].heading.lower() for g in groups)
    out: list[Unit] = []
    # Only from the sections already quoted: the list that defines one name usually defines all,
    # and a name merely mentioned elsewhere (a changelog line) would cite a page for nothing.
    quoted = {g.evidence for g in groups}
    candidates = [u for u in ranked if u.evidence in quoted]
    for name in names:
        if mentions(said, name) or len(out) >= MAX_NAMED:
            continue
        for unit in candidates:
            if (
                unit.kind != "code"
                and mentions(unit.text.lower(), name)
                and all(unit is not u for u in chosen + out)
            ):
                out.append(unit)
                said += " " + unit.text.lower()
                break
    return out


def _mechanism_part(
    query: Query, units: list[Unit], stale: set[int], groups: list[_Group], extra: list[Unit], pool
) -> Unit | None:
    """How it is done, when the parts so far only describe it: a section of a quoted page whose
    heading names the thing (a class, a parameter, an attribute) that does what was asked ("send
    the email after the response" → "Using BackgroundTasks", "partial updates" → "Using Pydantic's
    exclude_unset parameter"), and the answer does not name it yet: that section's best unit."""
    if _QUANTITY.search(query.message) or query.asks_version:
        return None
    pages = {pool[g.evidence].page_url for g in groups}
    chosen = [u for g in groups for u in g.units] + extra
    said = (
        " ".join(u.text.lower() for u in chosen)
        + " "
        + " ".join(pool[g.evidence].label.lower() for g in groups)
    )
    taken = {id(u) for u in chosen}
    names = {
        i: {n.lower() for n in heading_names(e) if n.lower() not in said}
        for i, e in enumerate(pool)
        if e.page_url in pages and e.score >= SECOND_EVIDENCE and e.kind == "section"
    }
    names = {i: n for i, n in names.items() if n}
    # A sentence that says the name explains it; its section's code block only shows it.
    candidates = sorted(
        (u for u in units if u.evidence in names and id(u) not in stale),
        key=lambda u: (u.kind == "code", -u.score),
    )
    for unit in candidates:  # the best-rated unit that says the name (its section's words need not
        # match the question's: that is why it was missing)
        if id(unit) not in taken and any(n in unit.text.lower() for n in names[unit.evidence]):
            return unit
    return None


# A question asked in the reader's own words ("without making them wait for it. How?") is answered
# first by the sentences that say it in the same words: the docs' motivation ("send the email
# notification in the background"), not what does it (`BackgroundTasks`). The best sentence of a
# quoted page that names a thing the answer does not name yet follows. Tuning fact recall 0.750 ->
# 0.764 (paraphrases 0.537 -> 0.575; six answers gained a fact, none lost one; answered and
# citation precision unchanged); only when it scores at least NAMING_RATIO of the lead: 0.761 at
# 0.3. The best sentence naming anything new (not the best naming sentence, if its names are said):
# 24 more answers grew, none gained.
NAMING_RATIO = 0.0
_NAME_SPAN = re.compile(r"`([^`\n]{2,80})`")
# What a code span names: a dotted, called, assigned or decorated name, a flag, a camelCase word.
_NAME_LIKE = re.compile(r"[._@=(]|^--?\w|[a-z][A-Z]|^[A-Z][a-z]+[A-Z]")
_ASKS_POSSIBLE = re.compile(
    r"\b(possible|can (i|we|the|it|my|you)|is there (a|any) way|what do i (configure|set|use|need)|"
    r"es posible|se puede|puedo)\b",
    re.I,
)


def _names(text: str) -> list[str]:
    return [span.strip() for span in _NAME_SPAN.findall(text) if _NAME_LIKE.search(span.strip())]


def _naming_part(
    query: Query, units: list[Unit], stale: set[int], groups: list[_Group], extra: list[Unit], pool
) -> Unit | None:
    """What does it, by name, when a question that names nothing and asks how (or whether it
    can be done) is answered so far in words: the best-scoring sentence of a quoted page that
    names something (a parameter, a class, a flag), when the answer does not say that name."""
    if query.identifiers or _QUANTITY.search(query.message) or query.asks_version:
        return None
    if not (procedural(query.message) or _ASKS_POSSIBLE.search(query.message)):
        return None
    chosen = [u for g in groups for u in g.units] + extra
    pages = {pool[g.evidence].page_url for g in groups}
    candidates = [
        u
        for u in units
        if u.kind == "prose"
        and id(u) not in stale
        and u.evidence < MAX_POOL
        and pool[u.evidence].page_url in pages
        and _names(u.text)
    ]
    best = max(candidates, key=lambda u: u.score, default=None)
    if best is None or any(best is u for u in chosen) or best.score < NAMING_RATIO * groups[0].leads[0].score:
        return None
    said = " ".join(u.text for u in chosen)
    return None if all(name in said for name in _names(best.text)) else best


def _render(group: _Group, source: Evidence, locale: str) -> list[Part]:
    parts: list[Part] = []
    if group.leads[0].kind == "row":
        lines = [_row_item(u.text) if u.kind == "row" else u.text for u in group.leads]
        parts.append(Part("lead", "\n".join(lines), source.url))
    elif group.leads[0].kind == "code":
        lead = group.leads[0]
        # The sentence that introduces the code ("You can modify the default redirection
        # handling with the `follow_redirects` parameter:") reads before it, not after.
        intro = next(
            (u for u in group.support if u.order == lead.order - 1 and _announces(u)),
            None,
        )
        if intro is not None:
            # ... after the quoted sentences just before it ("On Windows the agent and server ship
            # as one MSI. Install it with winget:"), at most two, in the docs' order.
            prose = {u.order: u for u in group.support if u.kind == "prose" and not _LIST_ITEM.match(u.text)}
            opening = [intro]
            while len(opening) < 3 and (previous := prose.get(opening[0].order - 1)) is not None:
                if _announces(previous) or not _frames(previous, prose.get(previous.order - 1)):
                    break  # it announces something else, or is a field's name or value ("Raises")
                opening.insert(0, previous)
            parts.append(Part("lead", " ".join(u.text for u in opening), source.url))
            taken = {id(u) for u in opening}
            group = _Group(group.evidence, group.leads, [u for u in group.support if id(u) not in taken])
        parts.append(Part("code" if intro is not None else "lead", _trim_code(lead.text), source.url))
    elif group.intro is not None:
        # The intro, then its list's items that are quoted, in the docs' order.
        items = [u for u in group.support if u.order > group.intro.order and _LIST_ITEM.match(u.text)]
        items = sorted(group.leads + items, key=lambda u: u.order)
        listed = [u for i, u in enumerate(items) if u.order - i == items[0].order or u in group.leads]
        parts.append(Part("lead", f"{group.intro.text}\n\n" + "\n".join(u.text for u in listed), source.url))
        taken = {id(u) for u in listed} | {id(group.intro)}
        group = _Group(group.evidence, group.leads, [u for u in group.support if id(u) not in taken])
    elif len(group.leads) > 1 and all(_LIST_ITEM.match(u.text) for u in group.leads):
        parts.append(Part("lead", "\n".join(u.text for u in group.leads), source.url))
    else:
        parts.append(Part("lead", " ".join(u.text for u in group.leads), source.url))
    # What the last lead announces (its code, its list) reads right after it; the rest in order.
    support = {u.order: u for u in group.support}
    announced: list[Unit] = []
    if _announces(group.leads[-1]):
        at = group.leads[-1].order + 1
        while at in support:
            announced.append(support.pop(at))
            at += 1
    for block in _blocks_of(announced) + _blocks_of(sorted(support.values(), key=lambda u: u.order)):
        kind = "code" if block.startswith("```") else "support"
        text = block if kind == "code" else "\n".join("> " + line for line in block.split("\n"))
        parts.append(Part(kind, text, source.url))
    dated = (
        f" — {source.lastmod}"
        if source.lastmod and source.kind != "faq" and _has_section_date(source)
        else ""
    )
    parts.append(source_line(locale, source.label, source.url, dated))
    return parts


def source_line(locale: str, label: str, url: str, dated: str = "") -> Part:
    """`From: [Page › Section](/url/#anchor)`, the line that names a part's section."""
    escaped = re.sub(r"([\\\[\]])", r"\\\1", label)  # `#[doc]` stays `#[doc]` in the link text
    return Part("source", f"{phrase(locale, 'from')}: [{escaped}]({url}){dated}", url)


def _blocks_of(units: list[Unit]) -> list[str]:
    """Quoted units in document order: sentences run on, list items keep their lines,
    table rows become list items that name their columns, code blocks stay whole."""
    blocks: list[str] = []
    current: list[str] = []
    mode = ""

    def flush() -> None:
        nonlocal current, mode
        if current:
            blocks.append((" " if mode == "prose" else "\n").join(current))
        current, mode = [], ""

    previous = None
    for unit in units:
        if previous is not None and unit.order != previous.order + 1:
            flush()  # something between them is not quoted here (the lead, quoted first): no run-on
        previous = unit
        if unit.kind == "code":
            flush()
            blocks.append(_trim_code(unit.text))
            continue
        kind = "list" if unit.kind == "row" or _LIST_ITEM.match(unit.text) else "prose"
        if kind != mode:
            flush()
            mode = kind
        current.append(_row_item(unit.text) if unit.kind == "row" else unit.text)
    flush()
    return blocks


def _cells(line: str) -> list[str]:
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]


def _row_cells(text: str) -> list[str]:
    """A row unit's cells (its first line is the table's header)."""
    return _cells(text.partition("\n")[2])


def _row_label(text: str) -> str:
    """A row unit's first cell, which names what the row is about ("Per seat", "Linux")."""
    return _row_cells(text)[0]


_ONLY_LINKS = re.compile(r"(?:\[[^\]]+\]\([^)\s]+\)[\s,;/]*)+")


def _signpost(text: str) -> bool:
    """A row whose every cell but its label is a link: a table of where to read what ("| Tune the
    config file | [Configuration](/configuration/) |") names the reader's words and says nothing of
    them; the page it points to does."""
    values = [cell for cell in _row_cells(text)[1:] if cell]
    return bool(values) and all(_ONLY_LINKS.fullmatch(cell) for cell in values)


def _label_terms(locale: str, label: str) -> set[str]:
    """A row label's terms, with the words of the names it holds: `REMEMBER_COOKIE_DURATION`
    names a remember cookie's duration (the question that asks how long it lasts picks that row)."""
    return _terms(locale, label) | _terms(locale, _NAME_SEPARATORS.sub(" ", label))


_NAME_SEPARATORS = re.compile(r"(?<=[A-Za-z0-9])[_-](?=[A-Za-z0-9])")


def _row_item(text: str) -> str:
    """ "| Key | Default |" + "| `port` | `7000` |" → "- `port` — Default: `7000`"."""
    header, _, row = text.partition("\n")
    names, values = _cells(header), _cells(row)
    parts = [
        f"{name}: {value}" if name else value
        for name, value in zip(names[1:], values[1:], strict=False)
        if value
    ]
    return "- " + " — ".join([values[0], *parts]) if values else "- " + row


def _has_section_date(evidence: Evidence) -> bool:
    return evidence.heading != evidence.title


def _standardized(values: list[float]) -> list[float]:
    if not values:
        return []
    mean = sum(values) / len(values)
    spread = (sum((v - mean) ** 2 for v in values) / len(values)) ** 0.5 or 1.0
    return [max(-1.0, (v - mean) / spread) for v in values]


def _superseded(units: list[Unit], unit_terms: list[set[str]], pool: list[Evidence]) -> set[int]:
    """Units with a near-identical passage in newer-dated evidence (only the newest is quoted)."""
    stale: set[int] = set()
    for i, unit in enumerate(units):
        mine = pool[unit.evidence].lastmod
        if not mine or len(unit_terms[i]) < 3:
            continue
        for j, other in enumerate(units):
            theirs = pool[other.evidence].lastmod
            if other.evidence == unit.evidence or not theirs or theirs <= mine:
                continue
            union = unit_terms[i] | unit_terms[j]
            if len(unit_terms[i] & unit_terms[j]) / len(union) >= 0.4:
                stale.add(i)
                break
    return stale


def _trim_code(block: str) -> str:
    lines = block.split("\n")
    if len(lines) <= MAX_CODE_LINES + 2:
        return block
    return "\n".join(lines[: MAX_CODE_LINES + 1] + ["…", "```"])


def refusal(locale: str, checked: list[str]) -> str:
    if checked:
        places = (
            ", ".join(checked[:-1]) + (f" {phrase(locale, 'and')} " if len(checked) > 1 else "") + checked[-1]
        )
        return phrase(locale, "checked", places=places)
    return phrase(locale, "checked_nothing")
