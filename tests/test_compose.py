"""The extractive composer and the confidence step on hand-built evidence (no index, no server):
what leads, what is quoted, what is cited, and when the docs are judged silent."""

from __future__ import annotations

import re
import time
from dataclasses import replace

import pytest
from askdocs.edge_runtime.answer_types import Part
from askdocs.edge_runtime.conversation import Turn
from askdocs.edge_runtime.corpus import ChunkRef
from askdocs.edge_runtime.evidence import (
    LENGTH_SLOPES,
    MAX_SECTION_CHARS,
    Evidence,
    _defining,
    _section_text,
    assess,
    heading_names,
)
from askdocs.edge_runtime.extractive import (
    _ASKS_DEFAULT,
    _BARE_SENTENCE,
    _BOLD_LABEL,
    _NUMBER_ASKED,
    _PATH,
    _POINTER,
    _VERSION_NOTE,
    MAX_UNITS,
    Composition,
    Unit,
    _abbreviating,
    _call_mentions,
    _camel_parts,
    _frames,
    _names_the_ask,
    _points_to_read,
    _relevance_text,
    _restates,
    _score,
    _signpost,
    _states_default,
    _summaries,
    _terms,
    _units,
    asks,
    asks_amount,
    compose,
    gives_no_amount,
    passage_signals,
    procedural,
    signature_defaults,
)
from askdocs.edge_runtime.query import (
    Query,
    about_history,
    identifier_pattern,
    identifier_tokens,
    key_terms,
    mentions,
    platform_asked,
)
from askdocs.edge_runtime.search import Hit, SearchOutcome

from askdocs import lexical

LIMITS = """# Resource Limits

You can control the connection pool size using the `limits` keyword argument on the client.
It takes instances of `httpx.Limits` which define:

- `max_keepalive_connections`, number of allowable keep-alive connections. (Defaults 20)
- `max_connections`, maximum number of allowable connections, or `None` for no limits. (Default 100)
- `keepalive_expiry`, time limit on idle keep-alive connections in seconds. (Default 5)

```python
limits = httpx.Limits(max_keepalive_connections=5, max_connections=10)
client = httpx.Client(limits=limits)
```"""

PRICING = """## Plans

| Plan | Per seat | SAML single sign-on | Support |
| --- | --- | --- | --- |
| Starter | $0 | no | community |
| Team | $12 / month | no | email |
| Business | $29 / month | yes | 4-hour response |
| Enterprise | contact sales | yes | dedicated |"""


def test_a_verb_that_modifies_is_not_a_question_about_history():
    """`Query.temporal` (release notes count as answers, recency matters): "changed", "removed",
    "cambió", "when was…" ask about history; "how do I change the port?" asks how to modify
    something, "when the server is slow" is a conjunction, and
    its answer is not a changelog line ("Fix bug in calculating the HTTP/2 maximum frame size"
    answered "how do I change the maximum number of redirects?")."""
    history = [
        "What changed in the default timeouts?",
        "Which release removed WatchGod support?",
        "¿Qué cambió en la configuración de los webhooks?",
        "¿Se eliminó el soporte de Windows?",
        "When did the built-in theme stop shipping jQuery?",
        "When was the proxies argument dropped?",
        "¿Cuándo se añadió el soporte de HTTP/2?",
        "¿Desde cuándo está activado por defecto?",
        "¿Qué hay de nuevo en la rama actual?",
        "What changed in 3.1.3?",
        "Why was it added?",
        "Which minor version of Pydantic first added support for Python 3.14?",
    ]
    modifying = [
        "How do I change the maximum number of redirects httpx will follow?",
        "Can I add or remove workers while it's running?",
        "¿Cómo puedo cambiar el puerto del servidor?",
        "¿Cómo elimino un token? ¿Hay que eliminar también la sesión?",
        "¿Cómo cambio el puerto?",
        "My script hangs when the server is slow. How do I make it give up?",
        "When should I use UvicornH11Worker instead of UvicornWorker?",
        "¿Cómo devuelvo un 404 cuando el item no existe?",
        "¿Cuándo uso raw_data en vez de data?",
        "¿Cómo leo la configuración desde variables de entorno?",
        "¿Qué código de estado devuelvo al crear un recurso nuevo?",
        # the verb as a state, a number that is not a version:
        "How do I make a copy of an instance with one field changed?",
        "The search box returns nothing for two-letter words. Can that be changed?",
        "I added one extension to my config and now the search box is gone. Why?",
        "How can I tell whether a request fell back to HTTP 1.1?",
        "Can it use a DNS server like 1.1.1.1?",
        "3.0 is accepted but 3.5 isn't. Why?",
    ]
    assert [q for q in history if not about_history(q)] == []
    assert [q for q in modifying if about_history(q)] == []


CHANGELOG = """## 0.14.0

- The `httpx.Limits(max_keepalive=...)` argument is now deprecated in favour of
  `httpx.Limits(max_keepalive_connections=...)`.
- Keys used with `Client(proxies={...})` should now be in the style of `{"http://": ...}`."""


def query(message: str, locale: str = "en") -> Query:
    return Query(
        message=message,
        text=message,
        locale=locale,
        requested_locale=locale,
        terms=frozenset(lexical.stem_terms(locale, message)),
        key_terms=key_terms(locale, message),
        focus=frozenset(),
        identifiers=identifier_tokens(message),
        temporal=False,
    )


def evidence(
    url: str, title: str, heading: str, text: str, score: float = 1.0, index: int = 0, page_kind: str = "page"
) -> Evidence:
    page = url.split("#")[0]
    return Evidence(
        ChunkRef(0, index), 0, index, url, page, title, heading, text, None, "section", score, "en", page_kind
    )


def rendered(composition) -> str:
    return "\n".join(part.text for part in composition.parts)


def test_each_named_setting_is_answered_from_the_list_that_defines_it():
    ask = query("What are the defaults for max_connections and max_keepalive_connections in httpx.Limits?")
    pool = [
        evidence("/advanced/resource-limits/", "Resource Limits", "Resource Limits", LIMITS),
        evidence("/changelog/#0140", "Changelog", "0.14.0", CHANGELOG, score=0.9, index=1),
    ]
    composition = compose(ask, pool)
    text = rendered(composition)
    assert "(Default 100)" in text and "(Defaults 20)" in text
    # Only the section that defines them is cited, not the changelog line that names one.
    assert [e.url for e in composition.cited] == ["/advanced/resource-limits/"]


TRANSPORTS = """## ASGI Transport

By default the transport raises exceptions that occur in the application. Set
`raise_app_exceptions=False` to return a `500` response instead, as a server would."""

CHANGES = """## 0.25.0 › Fixed

- Return `500` error response instead of exceptions when `raise_app_exceptions=False` is set on
  `ASGITransport`. (#2669)"""


def test_a_page_that_explains_a_name_answers_before_a_changelog_line_that_names_it():
    pool = [
        evidence("/changelog/#fixed", "Changelog", "0.25.0 › Fixed", CHANGES, page_kind="changelog"),
        evidence("/advanced/transports/#asgi", "Transports", "ASGI Transport", TRANSPORTS, 0.9, 1),
    ]
    composition = compose(query("what is raise_app_exceptions on ASGITransport for"), pool)
    assert composition.cited[0].url == "/advanced/transports/#asgi", rendered(composition)
    # Asked about versions, the changelog is what answers.
    temporal = query("in which release did raise_app_exceptions start returning a 500?")
    temporal = replace(temporal, temporal=True)
    assert compose(temporal, pool).cited[0].url == "/changelog/#fixed"


def test_one_named_setting_gets_its_own_line_not_the_whole_list():
    composition = compose(
        query("What is the default keepalive_expiry?"),
        [evidence("/advanced/resource-limits/", "Resource Limits", "Resource Limits", LIMITS)],
    )
    text = rendered(composition)
    assert "(Default 5)" in text
    assert "(Default 100)" not in text


RAISING = """## Raising validation errors

To raise a validation error, three types of exceptions can be used:

- `ValueError`: this is the most common exception raised inside validators.
- `AssertionError`: the assert statement also works, but is skipped under the -O flag.
- `PydanticCustomError`: a bit more verbose, but provides extra flexibility.

Errors raised this way are collected: validation goes on with the other fields, and every
failure is reported together in one `ValidationError`, each with its location, its message and
the input that failed, so that a caller sees at once all that is wrong with the data it sent
instead of fixing one field at a time. The error's message is what you wrote in the exception;
write it for the person who will read it in a log or in an API response, and name the rule
that failed and the value that broke it rather than only saying that the value is invalid. The
errors keep the order of the fields, and nested models report the path to the failing value."""


def test_a_short_list_announced_by_its_intro_is_quoted_whole_unless_one_item_is_named():
    pool = [evidence("/concepts/validators/#raising", "Validators", "Raising validation errors", RAISING)]
    text = rendered(compose(query("Which exception is most commonly raised inside validators?"), pool))
    # "three types ... can be used:" with one of them would promise what it does not show.
    assert "three types of exceptions" in text
    assert all(name in text for name in ("`ValueError`", "`AssertionError`", "`PydanticCustomError`"))
    assert text.index("`ValueError`") < text.index("`AssertionError`") < text.index("`PydanticCustomError`")
    # Asked about one of them by name, that item answers alone.
    named = rendered(compose(query("What is PydanticCustomError for in a validator?"), pool))
    assert "`PydanticCustomError`" in named and "`AssertionError`" not in named, named


RETRIES = """## Retries

A delivery succeeds when the endpoint answers with any 2xx status within 10 seconds.
Otherwise Tallyfox retries up to 6 times with exponential backoff, starting at 30 seconds.
After the last attempt the event moves to the dead-letter list and the server logs an error."""

GAVE_UP = """## TFX-3005

**Webhook delivery gave up.** A webhook endpoint failed every retry attempt.
The event is kept in the dead-letter list for 72 hours.
**Fix:** inspect failures with `tallyfox webhook list --failed`, fix the endpoint, then replay it."""


def test_an_ask_for_an_amount_is_answered_by_a_number_not_by_its_words():
    """Two asks, "how many times … retried" and "how long … kept": the error section answers the
    second with a number and holds the first one's words ("failed every retry attempt") but no
    count, so the count is quoted from the section that says it."""
    pool = [
        evidence("/errors/#tfx-3005", "Error codes", "TFX-3005", GAVE_UP),
        evidence("/guides/webhooks/#retries", "Webhooks", "Retries", RETRIES, 0.8, 1),
    ]
    ask = query("How many times is a failed webhook retried, and how long is the event kept afterwards?")
    composition = compose(ask, pool)
    text = rendered(composition)
    assert "72 hours" in text and "6 times" in text, text
    assert {e.url for e in composition.cited} == {"/errors/#tfx-3005", "/guides/webhooks/#retries"}


def test_one_table_row_answers_not_the_whole_table():
    composition = compose(
        query("How much does a seat on the Business plan cost?"),
        [evidence("/pricing/#plans", "Pricing", "Plans", PRICING)],
    )
    lead = composition.parts[0].text
    assert "Business" in lead and "$29" in lead
    assert "Starter" not in lead and "community" not in rendered(composition)


def outcome_for(ask: Query, pool: list[Evidence], dense: float) -> SearchOutcome:
    hits = [
        Hit(e.ref, 1.0, lexical_rank=i, dense_rank=i, lexical_score=5.0, dense_score=dense)
        for i, e in enumerate(pool)
    ]
    return SearchOutcome(ask, hits, ["lexical", "dense"], dense_stats=(0.2, 0.1))


def test_confidence_is_high_when_the_evidence_holds_the_asked_terms():
    ask = query("What is the default keepalive_expiry in httpx.Limits?")
    pool = [evidence("/advanced/resource-limits/", "Resource Limits", "Resource Limits", LIMITS)]
    confidence, signals = assess(outcome_for(ask, pool, 0.7), pool, ask)
    assert confidence >= 0.6, signals
    assert signals["missing_terms"] == []


def test_words_the_docs_only_say_apart_lower_confidence():
    """A near miss uses only words the docs know, never together (`Scope.support`): the same
    evidence and dense match weigh less than for a question whose words one section says."""
    ask = query("What is the default keepalive_expiry in httpx.Limits?")
    pool = [evidence("/advanced/resource-limits/", "Resource Limits", "Resource Limits", LIMITS)]
    together, _ = assess(outcome_for(ask, pool, 0.5), pool, ask, support=1.0)
    apart, signals = assess(outcome_for(ask, pool, 0.5), pool, ask, support=0.0)
    assert signals["support"] == 0.0
    assert apart < together - 0.1, (apart, together)


PROXY_SECTION = (
    "Set `network.proxy` to configure the outbound proxy the agent sends batches through. "
    "TLS certificates are read from the config directory."
)


def test_a_passage_is_read_for_its_lift_above_its_models_band():
    """The multilingual model rates any two texts about 0.8 apart, the English one about 0.2: the
    best passage's cosine counts by how far it rises above the question's mean cosine with the
    docs (`baseline`) towards 1.0, so the same standing reads the same in either model."""
    ask = query("How do I configure the outbound proxy?")
    pool = [evidence("/networking/#outbound-proxy", "Networking", "Outbound proxy", PROXY_SECTION)]
    weights = dict.fromkeys(ask.key_terms, 1.0)
    english = passage_signals(ask, pool, weights, lambda texts: [0.6, 0.3][: len(texts)], baseline=0.2)
    multilingual = passage_signals(ask, pool, weights, lambda texts: [0.9, 0.825][: len(texts)], baseline=0.8)
    assert english["passage_lift"] == pytest.approx(0.5) == multilingual["passage_lift"]
    # The sentence that holds every asked word is the one the model rates best: a full fit.
    assert english["passage_fit"] == pytest.approx(0.5), english


def test_a_passage_that_says_what_was_asked_raises_confidence():
    """A near miss matches chunks on topic, but no one sentence of them says what was asked; the
    same chunks with a sentence that does (rated best by the model, holding the asked words)
    are more likely to answer. The evidence's words and the chunk-level match are the same."""
    ask = query("How do I configure the outbound proxy?")
    pool = [evidence("/networking/#outbound-proxy", "Networking", "Outbound proxy", PROXY_SECTION)]
    weights = dict.fromkeys(ask.key_terms, 1.0)
    said = passage_signals(ask, pool, weights, lambda texts: [0.6, 0.3][: len(texts)], baseline=0.2)
    # The model prefers the sentence that holds none of the asked words, and only mildly.
    near = passage_signals(ask, pool, weights, lambda texts: [0.3, 0.35][: len(texts)], baseline=0.2)
    assert near["passage_fit"] < said["passage_fit"] and near["passage_lift"] < said["passage_lift"]
    outcome = outcome_for(ask, pool, 0.5)
    high, signals = assess(outcome, pool, ask, passages=said)
    low, _ = assess(outcome, pool, ask, passages=near)
    assert signals["passage_fit"] == pytest.approx(said["passage_fit"])
    assert low < high - 0.1, (low, high)


def test_a_fields_name_is_no_passage_an_answer_would_quote():
    """django-guardian's index page holds "Date" over its release date: for "Can django-guardian
    expire a permission after a date?" that one word held the rarest asked word, rated high, and
    its fit answered a question the docs never address (0.46). A field's name is never quoted as
    an answer: the passage signals read the units that could be."""
    ask = query("Can django-guardian expire a permission after a date?")
    docinfo = "Date\n\nNov 27, 2022\n\nVersion\n\n2.4.0"
    pool = [evidence("/#django-guardian", "django-guardian", "django-guardian", docinfo)]
    weights = {"date": 2.9, "permiss": 0.3, "guardian": 0.2, "django": 0.6}
    # The model rates the label best: it is not read.
    signals = passage_signals(
        ask, pool, weights, lambda texts: [0.6 if t == "Date" else 0.3 for t in texts], 0.2
    )
    assert signals["passage_lift"] == pytest.approx(0.125) and signals["passage_fit"] < 0.05, signals


def test_a_long_question_s_dense_match_is_read_for_its_length():
    """A long question's best passage stands out less (its vector averages more of what it says):
    the same cosine counts for more from a reader who explained their situation than from a
    three-word question, as the answerable tuning questions' cosines say (`LENGTH_SLOPES`)."""
    pool = [evidence("/advanced/resource-limits/", "Resource Limits", "Resource Limits", LIMITS)]
    short = query("keepalive expiry default?")
    long = query(
        "Our service opens many connections to one backend and I see idle sockets kept around "
        "longer than I expected; what is the default keepalive expiry for pooled connections?"
    )
    _, short_signals = assess(outcome_for(short, pool, 0.5), pool, short)
    _, long_signals = assess(outcome_for(long, pool, 0.5), pool, long)
    assert short_signals["dense_z_raw"] == long_signals["dense_z_raw"]
    assert long_signals["key_terms"] > short_signals["key_terms"] + 6
    gained = -LENGTH_SLOPES["dense_z"] * (long_signals["key_terms"] - short_signals["key_terms"])
    assert long_signals["dense_z"] - short_signals["dense_z"] == pytest.approx(gained, abs=1e-3)
    assert gained > 0.1


def test_framing_words_are_not_evidence_and_an_unknown_name_lowers_confidence():
    ask = query("Does httpx support Kerberos authentication with NTLM?")
    pool = [evidence("/advanced/resource-limits/", "Resource Limits", "Resource Limits", LIMITS)]
    weights = {t: 1.0 for t in ask.key_terms if t in {"httpx"}}  # the docs know only "httpx"
    confidence, signals = assess(outcome_for(ask, pool, 0.3), pool, ask, weights)
    assert confidence < 0.3, signals
    assert "kerbero" in " ".join(signals["missing_terms"])


SERVER_TLS = """## HTTPS

The server can answer over HTTPS when it is given a private key and a certificate for the host."""

SERVER_TLS_OPTIONS = """## HTTPS options

To serve HTTPS, pass the server's private key with `--ssl-keyfile` and its certificate with
`--ssl-certfile`."""


def test_another_section_of_the_same_page_completes_the_answer():
    """The best section says what is possible, the next one on the same page how: both are
    quoted, each with its own source (one page cited; no other page brought in)."""
    ask = query("How do I make the server answer over HTTPS with my key and certificate?")
    pool = [
        evidence("/deployment/#https", "Deployment", "HTTPS", SERVER_TLS),
        evidence("/deployment/#https-options", "Deployment", "HTTPS options", SERVER_TLS_OPTIONS, 0.9, 1),
        evidence(
            "/settings/#logging",
            "Settings",
            "Logging",
            "Use `--log-level` to set how much the server logs.",
            0.85,
            2,
        ),
    ]
    composition = compose(ask, pool)
    text = rendered(composition)
    assert "--ssl-keyfile" in text and "private key and a certificate" in text, text
    assert [e.url for e in composition.cited] == ["/deployment/#https", "/deployment/#https-options"]


EXAMPLE_HOOKS = """## Event hooks

You can also use these hooks to install response processing code, such as this
example, which creates a client that always raises on 4xx and 5xx responses.

```python
client = httpx.Client(event_hooks={'response': [raise_on_4xx_5xx]})
```"""


def test_a_sentence_that_announces_an_example_brings_the_example():
    ask = query("I want every error reply to throw for all calls made by my client")
    composition = compose(
        ask, [evidence("/advanced/event-hooks/", "Event Hooks", "Event hooks", EXAMPLE_HOOKS)]
    )
    assert "event_hooks={'response'" in rendered(composition)


def preview_pool() -> list[Evidence]:
    """The settings page retrieval put first, and release notes about the preview server."""
    return [
        evidence(
            "/configuration/#dev_addr",
            "Configuration",
            "dev_addr",
            "The address the server listens on. Default: `127.0.0.1:8000`.",
        ),
        evidence(
            "/release-notes/#preview",
            "Release notes",
            "Preview server",
            "The built-in preview server now reloads a page when you write to its file.",
            0.95,
            1,
        ),
    ]


def test_a_follow_up_is_answered_from_the_page_retrieval_found_for_it():
    """'And what address does it listen on by default?' after a question about the preview
    server: the borrowed words ("preview", "server") match release notes about the preview
    server better than the settings page retrieval put first for the new words."""
    previous = "How do I preview my docs with the built-in server while I write?"
    message = "And what address does it listen on by default?"
    text = f"{previous} {message}"
    ask = replace(
        query(text),
        message=message,
        focus=key_terms("en", message),
        history=(Turn("user", previous), Turn("assistant", "Run `quokka serve`.")),
    )
    pool = preview_pool()
    composition = compose(ask, pool)
    assert composition.cited[0].url == "/configuration/#dev_addr", rendered(composition)
    assert "127.0.0.1:8000" in rendered(composition)


def test_a_new_question_later_in_a_conversation_is_not_a_follow_up():
    """In the widget every question after the first has history; only one that borrowed the
    previous question's words (a follow-up) trusts retrieval's first page more."""
    ask = query("What is the default address of the preview server?")
    pool = preview_pool()
    later = replace(ask, history=(Turn("user", "What does error TFX-1042 mean?"), Turn("assistant", "…")))
    assert rendered(compose(later, pool)) == rendered(compose(ask, pool))


SEPARATE = """## Do not Separate Schemas

In that case, you can disable this feature in **FastAPI**, with the parameter
`separate_input_output_schemas=False`. Probably the main use case for this is autogenerated
client code you do not want to update yet.

**Note:** Support for `separate_input_output_schemas` was added in FastAPI `0.102.0`."""

RELEASES = """## 0.28.0 › Added

- Support for zstd content decoding using the `zstandard` package."""

DECODING = """## Content decoding

Responses are decoded according to their `Content-Encoding` header: gzip, deflate, brotli and
zstd (with the `zstandard` package installed)."""


def test_a_question_asking_which_version_leads_with_the_unit_that_names_one():
    pool = [
        evidence(
            "/how-to/separate-openapi-schemas/#do-not",
            "Separate Schemas",
            "Do not Separate Schemas",
            SEPARATE,
        )
    ]
    ask = query("separate_input_output_schemas=False - which fastapi version added that?")
    assert ask.asks_version
    lead = compose(ask, pool).parts[0].text
    assert "0.102.0" in lead, lead
    # Release notes name the version in their heading ("## 0.28.0"): that counts.
    pool = [
        evidence("/quickstart/#decoding", "QuickStart", "Content decoding", DECODING),
        evidence("/changelog/#added", "Changelog", "0.28.0 › Added", RELEASES, 0.9, 1, "changelog"),
    ]
    release = replace(query("Which release added zstd content decoding?"), temporal=True)
    assert compose(release, pool).cited[0].url == "/changelog/#added"


def test_only_a_question_about_a_release_asks_for_a_version():
    asks = [
        "Which release added zstd content decoding?",
        "In which FastAPI version did the security utilities switch to 401?",
        "Since which release are proxy headers enabled by default?",
        "When was the deprecated proxies= argument finally removed?",
        "¿Desde qué versión de FastAPI puedo declarar las cookies con un modelo?",
    ]
    others = [
        "How can I check which HTTP version a response was sent over?",
        "How do I pin the version of a dependency?",
        "When a request fails, what is retried?",
    ]
    assert all(query(q, "es" if q.startswith("¿") else "en").asks_version for q in asks)
    assert not any(query(q).asks_version for q in others)


WINDOWS = """## Install on Windows

On Windows the agent and server ship as one MSI. Install it with winget:

```powershell
winget install --id Kestrel.Tallyfox --version 3.2.0
```

or download `tallyfox-3.2.0-x64.msi` and run it silently:

```powershell
msiexec /i tallyfox-3.2.0-x64.msi /qn AGENTONLY=1 NOSERVICE=0
```

The Windows service is called `Tallyfox Agent`."""

# The same opening, then far more prose than one answer: only the lead and its own context.
WINDOWS_LONG = WINDOWS.replace(
    "The Windows service",
    "Group policy deployments are covered by the administrator guide, which explains in detail "
    "how organisational units, software installation policies and transforms interact with "
    "the package, how upgrades roll out across a fleet of machines over several maintenance "
    "windows, how to stage a pilot group first, how to read the installer's verbose log when "
    "a machine reports a failure, and how to remove the package cleanly from machines that "
    "leave the organisation, including the data directory and the service account.\n\n"
    "The Windows service",
)


def test_a_short_section_is_quoted_whole_after_its_lead():
    ask = query("What is the Windows service of Tallyfox called, and how is it installed?")
    section = evidence("/install/#install-on-windows", "Install", "Install on Windows", WINDOWS)
    short = rendered(compose(ask, [section]))
    assert short.index("`Tallyfox Agent`") < short.index("winget install")  # the lead first
    assert "winget install" in short and "msiexec /i" in short, short
    long = rendered(compose(ask, [replace(section, text=WINDOWS_LONG)]))
    assert "`Tallyfox Agent`" in long and "msiexec /i" not in long, long


RETURN_CODES = """## Return codes

Borg can exit with the following return codes (rc):

| Return code | Meaning |
| --- | --- |
| 0 | success (logged as INFO) |
| 1 | warning (operation reached its normal end, but there were warnings) |
| 2 | error (like a fatal error, a local or remote exception) |

If you use `--show-rc`, the return code is also logged at the indicated level as the last log entry."""


def test_a_short_section_s_lead_that_announces_a_table_is_quoted_with_it():
    composition = compose(
        query("What are borg's return codes?"),
        [evidence("/man_intro.html#return-codes", "SYNOPSIS", "Return codes", RETURN_CODES)],
    )
    text = rendered(composition)
    assert "return codes (rc):" in text and "success (logged as INFO)" in text and "warning" in text, text


def test_a_short_section_led_by_its_code_keeps_the_rest_and_its_sentences_apart():
    section = evidence("/install/#install-on-windows", "Install", "Install on Windows", WINDOWS)
    composition = compose(query("What is the winget command to install Tallyfox?"), [section])
    parts = [(part.kind, part.text) for part in composition.parts]
    # The code answers; the sentences that introduce it read first, in the docs' order.
    assert parts[0] == ("lead", "On Windows the agent and server ship as one MSI. Install it with winget:"), (
        parts
    )
    assert parts[1][0] == "code" and "winget install" in parts[1][1], parts
    text = rendered(composition)
    assert "msiexec /i" in text and "`Tallyfox Agent`" in text, text
    # The lead left the middle of the section: the sentences around it are not run together.
    assert "winget: or download" not in text, text


INIT_FORBID_EXTRA = """### init_forbid_extra

By default, Pydantic allows (and ignores) any extra provided argument:

```python
class Model(BaseModel):
    a: int = 1

Model(unrelated=2)
```

For this reason, the plugin will add an extra `**kwargs: Any` parameter when synthesizing the
`__init__()` method, unless `init_forbid_extra` is set to `True`."""


def test_a_short_section_s_colon_lead_brings_its_code_and_the_rest_of_the_section():
    composition = compose(
        query("Does Pydantic allow and ignore extra provided arguments by default?"),
        [evidence("/integrations/mypy/#init_forbid_extra", "Mypy", "init_forbid_extra", INIT_FORBID_EXTRA)],
    )
    text = rendered(composition)
    assert text.startswith("By default, Pydantic allows"), text  # the colon sentence leads
    assert "Model(unrelated=2)" in text and "**kwargs: Any" in text, text


BACKGROUND_INTRO = """You can define background tasks to be run after returning a response.

This includes, for example:

- Email notifications: sending an email tends to be "slow", so you can return the response \
right away and send the email notification in the background."""

BACKGROUND_USING = """First, import `BackgroundTasks` and define a parameter in your path operation
function with a type declaration of `BackgroundTasks`:

```python
from fastapi import BackgroundTasks, FastAPI
```

**FastAPI** will create the object of type `BackgroundTasks` for you and pass it as that parameter."""


def test_a_how_question_gets_the_section_whose_heading_names_the_mechanism():
    """The best sentence restates the reader's problem ("send the email notification in the
    background") without naming what does it; the section of the same page whose heading names
    a class the docs write as code ("Using BackgroundTasks") says how, and is quoted after it.
    A heading word that is not a name ("Additional servers", even over `servers`) is not one."""
    ask = query("I want to send a welcome email after someone signs up, without making them wait. How?")
    pool = [
        evidence("/background-tasks/", "Background Tasks", "Background Tasks", BACKGROUND_INTRO),
        evidence("/webhooks/#steps", "Webhooks", "Webhooks steps", "You send the requests yourself.", 0.8, 1),
        evidence(
            "/background-tasks/#using-backgroundtasks",
            "Background Tasks",
            "Using BackgroundTasks",
            BACKGROUND_USING,
            0.45,
            2,
        ),
        evidence(
            "/background-tasks/#servers",
            "Background Tasks",
            "Additional servers",
            "Set `servers` here.",
            0.4,
            3,
        ),
    ]
    composition = compose(ask, pool)
    text = rendered(composition)
    assert "send the email notification in the background" in text, text
    assert "import `BackgroundTasks`" in text, text
    assert {e.page_url for e in composition.cited} == {"/background-tasks/"}
    # Without the section that names it, nothing else is brought in for it.
    text = rendered(compose(ask, pool[:2] + pool[3:]))
    assert "BackgroundTasks" not in text and "Set `servers`" not in text, text


STRICT_INTRO = """# Strict Mode

By default, Pydantic will attempt to coerce values to the desired type when possible. For example,
you can pass the string '123' as the input for an int field, and it will be converted to the value
123. However, there are situations where this is not desirable, and you want Pydantic to error
instead of coercing data."""

STRICT_HOW = """## Strict mode in Field

For individual fields on a model, you can set `strict=True` on the field. Validation then fails
for any input that would need coercion."""


def test_a_question_in_the_reader_s_words_gets_the_sentence_that_names_what_does_it():
    """The reader describes the wish; the best sentence restates it ("you want Pydantic to error
    instead of coercing") and names nothing. The best sentence of the quoted page that names a
    thing the answer does not say (`strict=True`) follows it, even under a heading that names
    nothing; another page's name is not brought in."""
    ask = query("It quietly converts a string into a number. How do I get such input rejected instead?")
    other = evidence(
        "/types/#integers", "Types", "Integers", "Use `conint()` to constrain an integer.", 0.5, 2
    )
    pool = [
        evidence("/strict/", "Strict Mode", "Strict Mode", STRICT_INTRO),
        evidence("/strict/#field", "Strict Mode", "Strict mode in Field", STRICT_HOW, 0.4, 1),
        other,
    ]
    composition = compose(ask, pool)
    text = rendered(composition)
    assert text.index("converted to the value") < text.index("set `strict=True` on the field"), text
    assert "conint" not in text, text
    assert {e.page_url for e in composition.cited} == {"/strict/"}
    # Only another page names something: nothing is added.
    assert "conint" not in rendered(compose(ask, [pool[0], other]))


CONFIG_LOCATION = """## Config file location

| Platform | Default path |
|---|---|
| Linux | `/etc/tallyfox/tallyfox.yaml` |
| Windows | `C:\\ProgramData\\Tallyfox\\tallyfox.yaml` |

Use `--config PATH` or the `TALLYFOX_CONFIG` variable to read a different config file. Validate a
config file on Windows before restarting the service with `tallyfox config check`."""


def test_a_question_asking_where_a_file_is_kept_is_answered_with_its_path():
    """The sentences about the config file share more of the question's words ("config file",
    "Windows") than the table row that holds the path; a question asking where it is kept is
    answered by a unit that names a path, as one asking for an amount is by one with a number."""
    section = evidence(
        "/configuration/#config-file-location", "Configuration", "Config file location", CONFIG_LOCATION
    )
    text = rendered(compose(query("On Windows, where is the config file kept?"), [section]))
    assert text.startswith("- Windows — Default path: `C:\\ProgramData"), text
    # The path pattern reads a page's long runs of name characters in linear time.
    started = time.perf_counter()
    blob = evidence("/keys/", "Keys", "Keys", "The key is " + "a." * 20_000 + "\n\nKeep it in `keys.txt`.")
    assert "keys.txt" in rendered(compose(query("Where is the key file kept?"), [blob]))
    assert time.perf_counter() - started < 2
    # Asked how to check it, the sentence that says so leads.
    text = rendered(compose(query("How do I check a config file on Windows before a restart?"), [section]))
    assert text.startswith("Validate a"), text


USER_SETTINGS = """Frobnik reads your personal settings from a settings file in your home directory.
If the environment variable is not set, the default settings file path is tried before falling back
to the built-in values.

A different settings file can be given on the command line with `--settings-file`, or through
the `FROBNIK_SETTINGS` environment variable."""


def test_a_question_asking_which_name_does_it_is_answered_by_a_unit_that_names_one():
    """ "Which environment variable …" shares its words with the sentence that merely mentions "the
    environment variable"; the answer is the unit that names one, as an amount is answered by a
    number and a place by a path."""
    section = evidence("/settings/", "Settings", "Settings file", USER_SETTINGS)
    asked = query("Which environment variable points frobnik at a custom settings file?")
    text = rendered(compose(asked, [section]))
    assert text.startswith("A different settings file"), text
    assert "FROBNIK_SETTINGS" in text.split("\n\n")[0]
    # Asked where to set it or what to pass, the answer names what to set as well.
    for asked in (
        "Frobnik should read my settings from a different file. What do I pass?",
        "I keep a different settings file for frobnik. Where do I set that?",
    ):
        text = rendered(compose(query(asked), [section]))
        assert text.startswith("A different settings file"), (asked, text)
    # Not asked for a name, the sentence the question's words point at still leads.
    text = rendered(compose(query("What happens if the environment variable is not set?"), [section]))
    assert text.startswith("If the environment variable is not set"), text


def test_a_question_is_cut_into_the_things_it_asks():
    assert asks(
        "I'm packaging my own theme. Which command compiles the catalogs, and which entry point group "
        "makes the theme discoverable?"
    ) == ["Which command compiles the catalogs", "which entry point group makes the theme discoverable?"]
    assert asks("what do I need to install and how do I set it up per host?") == [
        "what do I need to install",
        "how do I set it up per host?",
    ]
    assert asks("¿Qué plan necesito para SAML y cuánto cuesta un asiento?") == [
        "¿Qué plan necesito para SAML",
        "cuánto cuesta un asiento?",
    ]
    # One ask that names two things is one ask.
    assert len(asks("What are the defaults for max_connections and max_keepalive_connections?")) == 1
    assert asks("how do I x   and \t what is y?") == ["how do I x", "what is y?"]
    # An ask may follow a leading clause; a relative clause is no ask.
    assert asks("On Windows, where is the config file and what is the service called?") == [
        "On Windows, where is the config file",
        "what is the service called?",
    ]
    assert asks("En Windows, ¿dónde está el archivo de configuración y cómo se llama el servicio?") == [
        "En Windows, ¿dónde está el archivo de configuración",
        "cómo se llama el servicio?",
    ]
    assert asks("Our disks use XFS, which has no reserved blocks. How do I keep borg from filling them?") == [
        "How do I keep borg from filling them?"
    ]


def test_cutting_a_question_into_asks_is_linear_in_whitespace():
    """A message of spaces and tabs made the split pattern try every position of the run:
    quadratic (0.25 s at the 4,000-character request limit, 25 s at 40 times that)."""
    started = time.perf_counter()
    assert asks(" \t" * 80_000 + "what is it?") == ["what is it?"]
    assert time.perf_counter() - started < 2


INSTALL_EXTRAS = """Uvicorn has a minimal set of dependencies by default.

If you just want to install all of them at once, you can use the `standard` extra:

**pip**

```bash
pip install 'uvicorn[standard]'
```

**uv**

```bash
uv add 'uvicorn[standard]'
```

The `standard` extra installs the following dependencies:

- **uvloop — Fast, drop-in replacement of the built-in asyncio event loop.** When `uvloop` is \
installed, Uvicorn will use it by default.
- **httptools — Python binding for the Node.js HTTP parser.** When `httptools` is installed, \
Uvicorn will use it by default for HTTP/1.1 parsing. You should only use `httptools` if you \
are sure you want it instead of the default.
- **websockets — A library for building WebSocket servers and clients in Python.** When \
`websockets` is installed, Uvicorn will use it by default for WebSocket handling.
- **watchfiles — Simple, modern and high performance file watching and code reload in python.** \
When `watchfiles` is installed, Uvicorn will use it by default for the `--reload` option.
- **colorama — Cross-platform support for ANSI terminal colors.** This is installed only on Windows.
- **python-dotenv — Reads key-value pairs from a `.env` file and sets them as environment variables.**
- **PyYAML — YAML parser and emitter for Python.** This is installed to allow you to provide a \
`.yaml` file to `--log-config`."""

IMPLEMENTATION = """- `--loop <str>` - Set the event loop implementation. The uvloop implementation provides \
greater performance. **Options:** 'auto', 'asyncio', 'uvloop'.
- `--http <str>` - Set the HTTP protocol implementation. **Options:** 'auto', 'h11', 'httptools'.
- `--ws <str>` - Set the WebSockets protocol implementation.
- `--ws-max-size <int>` - Set the WebSockets max message size, in bytes.
- `--ws-ping-interval <float>` - Set the WebSockets ping interval, in seconds.
- `--lifespan <str>` - Set the Lifespan protocol implementation.
- `--h11-max-incomplete-event-size <int>` - Set the maximum number of bytes to buffer of an event."""


def test_the_second_ask_of_a_long_question_is_answered_from_its_own_page():
    """ "Which install extra…, and which options…": the lead answers the second ask from the
    settings page; the first ask's words are a small share of this long question's, yet the
    sentence that holds them ("install … the `standard` extra:") answers it, with the code it
    announces under its tab's label, citing the installation page too."""
    ask = query(
        "I want the fastest event loop and HTTP parser on Linux. Which install extra pulls them in, "
        "and which command-line options pin those event loop implementations explicitly?"
    )
    pool = [
        evidence("/settings/#implementation", "Settings", "Implementation", IMPLEMENTATION),
        evidence("/installation/#extras", "Installation", "Optional Dependencies", INSTALL_EXTRAS, 0.9, 1),
    ]
    composition = compose(ask, pool)
    text = rendered(composition)
    assert "`--loop <str>`" in text, text
    assert "**pip**\n```bash\npip install 'uvicorn[standard]'" in text, text
    assert {e.page_url for e in composition.cited} == {"/settings/", "/installation/"}


AGENT_CLI = """Run the agent on each monitored host.

```bash
tallyfox agent start --max-batch 500 --flush-interval 10s
tallyfox agent stop
```

`tallyfox agent start` options:

| Flag | Default | Meaning |
| --- | --- | --- |
| `--max-batch N` | `1000` | Maximum samples per batch. |
| `--flush-interval DURATION` | `15s` | Ship a partly filled batch after this long. |
| `--buffer-limit SIZE` | `512MiB` | Disk buffer used while the server is unreachable. |"""


def test_a_question_for_a_value_is_not_a_how_to_because_a_name_in_it_says_start():
    """ "What is the default for --flush-interval on tallyfox agent start?" asks for a value: the
    row that gives it leads, not the example command ("start" is part of the command's name)."""
    assert not procedural("What is the default for --flush-interval on tallyfox agent start?")
    assert procedural("How do I start the agent?") and procedural("What command starts the agent?")
    assert procedural("What do I install for that?")
    ask = query("What is the default for --flush-interval on tallyfox agent start?")
    text = rendered(
        compose(ask, [evidence("/cli/#tallyfox-agent", "CLI reference", "tallyfox agent", AGENT_CLI)])
    )
    assert text.startswith("- `--flush-interval DURATION` — Default: `15s`"), text


def test_an_outline_section_only_names_the_mechanism_it_never_leads():
    """A section read only for its heading (`evidence.outline`: not among the evidence)
    adds the unit that names the thing when the parts only describe the wish, and is cited for
    it; it is never the lead, even when it would score higher than the evidence."""
    ask = query("I want to send a welcome email after someone signs up, without making them wait. How?")
    intro = evidence("/background-tasks/", "Background Tasks", "Background Tasks", BACKGROUND_INTRO)
    using = evidence(
        "/background-tasks/#using-backgroundtasks",
        "Background Tasks",
        "Using BackgroundTasks",
        BACKGROUND_USING + "\n\nSend the email in the background without making them wait.",
        0.3,
        5,
    )
    composition = compose(ask, [intro], outline=[using])
    text = rendered(composition)
    assert text.startswith("This includes, for example:\n\n- Email notifications"), text
    assert "import `BackgroundTasks`" in text, text
    assert [e.url for e in composition.cited] == [
        "/background-tasks/",
        "/background-tasks/#using-backgroundtasks",
    ]
    # Without the outline, the answer only describes the wish.
    assert "BackgroundTasks" not in rendered(compose(ask, [intro]))


def test_a_heading_s_words_are_read_in_linear_time():
    """A heading of a name and a long run of dashes made the heading-word pattern try every
    position of the run (0.7 s at 8,000 dashes, per answer reading that section)."""
    heading = "Using root_path " + "-" * 200_000
    started = time.perf_counter()
    section = evidence("/proxy/#x", "Proxy", heading, "Set `root_path` here.")
    assert heading_names(section) == {"root_path"}
    assert time.perf_counter() - started < 2


QUERY_LIST = (
    "## Query parameter list / multiple values\n"
    "\n"
    "When you define a query parameter explicitly with `Query` you can also declare "
    "it to receive a list of values, or said in another way, to receive multiple "
    "values.\n"
    "\n"
    "For example, to declare a query parameter `q` that can appear multiple times in "
    "the URL, you can write:\n"
    "\n"
    "Then, with a URL like:\n"
    "\n"
    "```\n"
    "http://localhost:8000/items/?q=foo&q=bar\n"
    "```\n"
    "\n"
    "you would receive the multiple `q` query parameter values (`foo` and `bar`) "
    "in a Python `list` inside your *path operation function*, in the *function "
    "parameter* `q`.\n"
    "\n"
    "So, the response to that URL would be:\n"
    "\n"
    "```JSON\n"
    "{\n"
    '  "q": [\n'
    '    "foo",\n'
    '    "bar"\n'
    "  ]\n"
    "}\n"
    "```\n"
    "\n"
    "To declare a query parameter with a type of `list`, like in the example above, "
    "you need to explicitly use `Query`, otherwise it would be interpreted as a "
    "request body.\n"
)


def test_a_quoted_sentence_that_ends_with_a_colon_brings_what_it_announces():
    """Quoted without its code, "Then, with a URL like:" promised an example the answer did not
    show (a fifth of the tuning answers ended a quote on such a colon)."""
    section = evidence(
        "/tutorial/query-params/#query-parameter-list",
        "Query Parameters",
        "Query parameter list / multiple values",
        QUERY_LIST,
    )
    for message in (
        "How do I accept the same query parameter several times in the URL?",
        "Can a query parameter receive multiple values from the URL?",
    ):
        text = rendered(compose(query(message), [section]))
        assert "Then, with a URL like:\n```\nhttp://localhost:8000/items/?q=foo&q=bar\n```" in text, text


def test_a_window_cut_inside_a_code_block_keeps_code_as_code_and_prose_as_prose():
    # A long section (Requests' "Proxies"): the evidence is a window around the hit, and the window
    # starts in the middle of the session example. Cut bare, the example's tail read as prose and
    # "You override this default certificate bundle…" as a code block.
    filler = "".join(f"Proxy note {i}: a sentence that pads the section out.\n\n" for i in range(45))
    session = "```python\nimport requests\n\nproxies = {\n" + "".join(
        f"    'http://10.20.1.{i}': 'http://10.10.1.10:{3000 + i}',\n" for i in range(30)
    )
    section = (
        f"## Proxies\n\n{filler}{session}}}\nsession = requests.Session()\n"
        "session.proxies.update(proxies)\n```\n\n"
        "You override this default certificate bundle by setting the standard `curl_ca_bundle` environment "
        "variable to another file path:\n\n"
        '```\n$ export curl_ca_bundle="/usr/local/myproxy_info/cacert.pem"\n```\n\n'
        + filler.replace("Proxy note", "Later note")
    )
    hit = section.index("session.proxies.update")
    window = _section_text(section, 0, len(section), hit)
    assert len(window) < len(section) and "session.proxies.update" in window
    assert window.startswith("```python\n…\n"), window[:80]  # the block it starts in, marked as cut
    assert window.count("```") % 2 == 0
    ask = query("How do I set the CA bundle with the curl_ca_bundle environment variable?")
    composition = compose(ask, [evidence("/user/advanced/#proxies", "Advanced Usage", "Proxies", window)])
    for part in composition.parts:
        if "You override this default certificate bundle" in part.text:
            assert part.kind != "code" and not part.text.startswith("```"), part
    assert any(p.kind == "code" and "export curl_ca_bundle" in p.text for p in composition.parts), rendered(
        composition
    )
    end = _section_text(section, 0, len(section), section.index("'http://10.20.1.0'") - 1500)
    assert end.count("```") % 2 == 0 and end.endswith("…\n```"), end[-80:]  # ends inside it: closed


def test_a_long_sections_terminal_output_does_not_crowd_its_prose_out_of_the_window():
    """pytest's "Rerunning only failures": three 40-line terminal outputs filled the window, which
    began in the middle of one and ended inside a word ("in both cas"). Long blocks are quoted in
    part, as an answer quotes them, unless the window is read at a line the question names."""
    output = (
        "```pytest\n$ pytest --lf\n" + "".join(f"test_50.py line {i} of output\n" for i in range(40)) + "```"
    )
    section = (
        "## Rerunning only failures\n\nThe plugin provides two options: `--lf`, `--last-failed` - to only "
        "re-run the failures.\n\n"
        + "\n\n".join([output, "You have run only the two failing tests from the last run.", output, output])
        + "\n\nNew `--nf`, `--new-first` options: run new tests first followed by the rest of the tests, in "
        "both cases tests are also sorted by the file modified time. " + "More words after it. " * 60
    )
    assert len(section) > 2 * MAX_SECTION_CHARS
    hit = section.index("line 20 of output")
    window = _section_text(section, 0, len(section), hit, defined=False)
    assert "`--lf`, `--last-failed` - to only re-run the failures." in window
    assert "You have run only the two failing tests" in window
    assert window.count("```") % 2 == 0 and "line 30 of output" not in window
    assert window.endswith((".", "```", "…")), window[-40:]  # a line or a sentence, not a word cut
    # Read at a line the question names (`defined`), that block stays whole around it.
    kept = _section_text(section, 0, len(section), hit, defined=True)
    assert "line 30 of output" in kept and kept.count("```") % 2 == 0


def test_a_window_into_a_long_api_entry_keeps_its_signature_and_summary():
    """Whoosh's `correct_query` entry is longer than a window; read around its parameters, the
    window began in its example and "Returns a corrected version of the given user query" was
    not read, so its `aliases` parameter answered "How do I suggest corrections for misspelled
    query words?". The entry's signature and summary open any window of it; a section that does
    not open with a signature gets nothing before its window."""
    example = (
        "```\n" + "".join(f">>> step_{i} = searcher.correct_query(q, qtext)\n" for i in range(30)) + "```"
    )
    body = (
        f"{example}\n\nYou can use the `Correction` object's `format_string` method. "
        + "More words. " * 120
        + "\n\nParameters\n\n- **aliases** – an optional dictionary mapping field names to use as the "
        "source of spelling suggestions."
    )
    entry = (
        "#### correct_query\n\ncorrect_query(q, qstring, correctors=None, aliases=None)\n\n"
        f"Returns a corrected version of the given user query.\n\n{body}"
    )
    assert len(entry) > MAX_SECTION_CHARS
    window = _section_text(entry, 0, len(entry), entry.index("- **aliases**"))
    assert window.startswith(
        "correct_query(q, qstring, correctors=None, aliases=None)\n\n"
        "Returns a corrected version of the given user query.\n\n"
    ), window[:200]
    assert "- **aliases**" in window
    guide = f"## Correcting queries\n\nSpelling suggestions come from the index.\n\n{body}"
    assert not _section_text(guide, 0, len(guide), guide.index("- **aliases**")).startswith("Spelling")


LOOP = """### For

Inside of a for-loop block, you can access some special variables:

| Variable | Description |
| --- | --- |
| loop.length | The current number of items in the sequence. |
| loop.revindex | The iteration number of the loop, counted from the end. |
| loop.index | The current iteration number of the loop. (1 indexed) |
| loop.first | True if the current iteration is the first. |
| loop.index0 | The current iteration number of the loop. (0 indexed) |
| loop.last | True if the current iteration is the last. |
| loop.previtem | The item before the current one. |
| loop.nextitem | The item after the current one. |"""


def test_rows_that_answer_as_well_follow_the_lead_in_the_table_s_order():
    """The lead row answers first; the rows that answer about as well follow it as the table has
    them (they came in score order: Jinja's answer listed index, revindex0, revindex, index0)."""
    composition = compose(
        query("How do I get the current iteration number inside a for loop?"),
        [evidence("/templates/#for", "Templates", "For", LOOP)],
    )
    lines = composition.parts[0].text.split("\n")
    names = [line.split(" ")[1] for line in lines]
    assert len(names) >= 3 and names[0] == "loop.index", lines
    table = [line.split(" ")[1] for line in LOOP.split("\n")[6:]]
    assert names[1:] == sorted(names[1:], key=table.index), lines


OPTIONS = """## borg create

**options**

|  |  |
| --- | --- |
| `-n`, `--dry-run` | do not create a backup archive |
| `--json` | output stats as JSON. Implies `--stats`. |
| `--exclude-caches` | exclude directories that contain a CACHEDIR.TAG file |"""


def test_a_row_of_a_table_without_column_names_reads_as_its_cells():
    """A table read without a header row (Sphinx's option tables) has empty column names: its
    row is "- `--exclude-caches` — exclude directories …", not ": exclude …" or an empty "- "."""
    composition = compose(
        query("What does --exclude-caches do?"),
        [evidence("/usage/create.html#borg-create", "borg create", "borg create", OPTIONS)],
    )
    lead = composition.parts[0].text
    assert lead.startswith("- `--exclude-caches` — exclude directories that contain a CACHEDIR.TAG file"), (
        lead
    )
    assert ": exclude" not in lead


SESSION = """### aiohttp.ClientSession

The class for creating client sessions and making requests.

- **raise_for_status** (bool) – Call `raise_for_status()` for each response; overridden per request, e.g.:

```python
client_session = aiohttp.ClientSession(raise_for_status=True)
resp = await client_session.get(url, raise_for_status=False)
```

- **timeout** – the total timeout of all requests of the `ClientSession`: a `ClientTimeout`, 300 s by default.
- **read_bufsize** (int) – Size of the read buffer. 64 KiB by default."""


def test_a_heading_that_names_the_asked_token_does_not_make_its_code_lead():
    """The section's heading names `ClientSession`: that speaks for every unit of the section and
    is not the code's own merit. Scaled with the code factor, it made a `raise_for_status` example
    lead "How do I set a timeout for all requests of a ClientSession?"."""
    composition = compose(
        query("How do I set a timeout for all requests of a ClientSession?"),
        [
            evidence(
                "/client_reference.html#aiohttp.ClientSession",
                "Client Reference",
                "aiohttp.ClientSession",
                SESSION,
            )
        ],
    )
    lead = composition.parts[0].text
    assert "timeout" in lead and "raise_for_status" not in lead, lead


TREES = """## Merging multiple trees

Git can help you perform a three-way merge. The usual situation is that you do one three-way
merge and commit the result, but you can merge several branches in one go.

You should now look up the tree objects of those commits, which you can easily do with

```
$ git cat-file commit <commitname> | head -1
```

since the tree object information is always the first line in a commit object."""


def test_a_sentence_its_code_block_cuts_off_reads_with_its_code():
    """Git's manual writes "…which you can easily do with", the command, then "since …": the
    sentence was quoted, then another one glued to it ("…do with The usual situation is…"), and
    the command after both. What a lead announces now follows it, and nothing is glued on."""
    composition = compose(
        query("How do I look up the tree objects of several commits?"),
        [
            evidence(
                "/user-manual.html#merging-multiple-trees", "Git User Manual", "Merging multiple trees", TREES
            )
        ],
    )
    texts = [part.text for part in composition.parts]
    lead = next(i for i, t in enumerate(texts) if t.endswith("which you can easily do with"))
    assert texts[lead + 1].startswith("```\n$ git cat-file commit"), texts


UPLOADS = """## Streaming Uploads

Requests supports streaming uploads, which allow you to send large streams or files without
reading them into memory. To stream and upload, provide a file-like object for your body."""

BODY = """## Body Content Workflow

By default, when you make a request, the body of the response is downloaded immediately. You
can override this behaviour and defer downloading the response body until you access the
`Response.content` attribute with the `stream` parameter."""


def test_a_section_about_the_opposite_direction_does_not_answer():
    """ "Streaming Uploads" holds every word of "download a large file without loading it into
    memory" but the one that says which way; the section about downloads answers."""
    pool = [
        evidence("/advanced/#streaming-uploads", "Advanced", "Advanced › Streaming Uploads", UPLOADS),
        evidence("/advanced/#body", "Advanced", "Advanced › Body Content Workflow", BODY, 0.8, 1),
    ]
    download = compose(query("How do I download a large file without loading it all into memory?"), pool)
    assert download.cited[0].url == "/advanced/#body", rendered(download)
    upload = compose(query("How do I upload a large file without reading it all into memory?"), pool)
    assert upload.cited[0].url == "/advanced/#streaming-uploads", rendered(upload)


APPROX = """## pytest.approx

Assert that two numbers (or two ordered sequences of numbers) are equal to each other within
some tolerance. The `approx` class performs floating-point comparisons using a syntax that's as
intuitive as possible."""

DOCTEST_NUMBER = """## Using doctest options

- `NUMBER`: when enabled, floating-point numbers only need to match as far as the precision you
  have written in the expected doctest output."""


def test_a_name_that_abbreviates_an_asked_word_matches_it():
    """`approx` is "approximately" in a name: the section it heads answers, not a doctest option
    that shares "floating-point numbers"."""
    pool = [
        evidence("/how-to/doctest/#options", "doctest", "doctest › Using doctest options", DOCTEST_NUMBER),
        evidence(
            "/reference/#pytest-approx", "API Reference", "API Reference › pytest.approx", APPROX, 0.95, 1
        ),
    ]
    composition = compose(query("How do I compare floating point numbers approximately?"), pool)
    assert composition.cited[0].url == "/reference/#pytest-approx", rendered(composition)
    # An everyday word is no abbreviation: "form" does not match "format", nor "time" "timeout".
    asked = query("Which format and timeout does the authentication parameter take?")
    found = _abbreviating(asked, {"form", "time", "auth", "param"})
    assert found == {"form", "time", "auth", "param", "authent", "paramet"}


def test_a_joined_name_holds_the_asked_words_it_is_made_of():
    """ "obey robots.txt setting": Scrapy's settings reference names it `ROBOTSTXT_OBEY`; the
    section it heads answers, not its neighbour that says "robots.txt" twice."""
    pool = [
        evidence(
            "/topics/settings/#robotstxt-user-agent",
            "Settings",
            "Settings › ROBOTSTXT_USER_AGENT",
            "The user agent string to use for matching in the robots.txt file.\n\nDefault: `None`\n\n"
            "If `None`, the User-Agent header you are sending is used for the robots.txt file.",
        ),
        evidence(
            "/topics/settings/#robotstxt-obey",
            "Settings",
            "Settings › ROBOTSTXT_OBEY",
            "Default: `False`\n\nIf enabled, Scrapy will respect robots.txt policies.",
            0.95,
            1,
        ),
    ]
    composition = compose(query("obey robots.txt setting"), pool)
    assert composition.cited[0].url == "/topics/settings/#robotstxt-obey", rendered(composition)
    asked = query("How many days is the max age?")
    assert _abbreviating(asked, {"max_age_day"}) >= lexical.stem_terms("en", "age days")


SET_BUILTIN = """### The Set Builtin

Options, if specified, have the following meanings:

- **`-a`**: Each variable or function that is created or modified is given the export attribute.
- **`-e`**: Exit immediately if a pipeline returns a non-zero status. The shell does not exit if the
  command that fails is part of the test in an `if` statement.
- **`-f`**: Disable filename expansion.

If a compound command or shell function sets -e while executing in a context where -e is ignored,
that setting will not have any effect until the compound command completes.

- **`errexit`**: Same as `-e`.
- **`globstar`**: If set, the pattern ‘**’ matches all files and zero or more directories.
- **`-s`**: Enable (set) each optname."""


def test_a_one_letter_flag_is_a_name_and_its_item_defines_it():
    # "set" is a framing word and "e" too short a term: before, nothing of this question was a key
    # term or a name, and it was answered "What would you like to know?".
    ask = query("What does set -e do?")
    assert ask.identifiers == ("-e",)
    text = rendered(compose(ask, [evidence("/bashref/#set", "Bash", "The Set Builtin", SET_BUILTIN)]))
    assert text.startswith("Options, if specified") or text.startswith("- **`-e`**: Exit immediately"), text
    assert "Exit immediately" in text
    # A switch before the name asked about is not what is asked ("shopt -s globstar").
    ask = query("What does shopt -s globstar do?")
    assert ask.identifiers == ()
    text = rendered(compose(ask, [evidence("/bashref/#shopt", "Bash", "The Shopt Builtin", SET_BUILTIN)]))
    assert "matches all files" in text and "Enable (set) each optname" not in text, text


def test_a_one_letter_flag_matches_only_standing_alone():
    assert mentions("run `set -e` first", "-e") and mentions("-e: exit", "-e")
    assert not mentions("a pre-empted job", "-e") and not mentions("set -euo pipefail", "-e")
    assert mentions("see max_connections", "max_conn")  # longer names: verbatim, as before
    # grep runs RE2 (no lookaround): the same meaning without it.
    pattern = re.compile(identifier_pattern("-e"))
    assert pattern.search("run set -e first") and pattern.search("-e") and not pattern.search("pre-empt")
    assert identifier_pattern("max_connections") == re.escape("max_connections")


def test_a_long_section_is_read_where_it_defines_the_asked_name():
    filler = "".join(
        f"- **`-{c}`**: Option {c} does one thing and another, at length.\n" for c in "abcdfghijk" * 8
    )
    section = f"### The Set Builtin\n\n{filler}- **`-e`**: Exit immediately if a pipeline fails.\n{filler}"
    assert len(section) > 3 * MAX_SECTION_CHARS
    start = _defining(section, 0, len(section), 0, ["-e"])
    assert section[start:].startswith("- **`-e`**: Exit immediately")
    assert "Exit immediately" in _section_text(section, 0, len(section), start)
    assert _defining(section, 0, len(section), 7, []) == 7  # no name asked: where retrieval read
    # Without a name, the item whose term holds most of the question's key terms (two or more,
    # half of them at least): PostgreSQL's "Statement Behavior" defines dozens of settings.
    settings = "".join(
        f"- **`statement_option_{c}` (`integer`)**: Sets option {c} of each statement.\n"
        for c in "abcdefghij" * 8
    )
    item = "- **`default_transaction_isolation` (`enum`)**: The default is read committed.\n"
    section = f"### Statement Behavior\n\n{settings}{item}{settings}"
    ask = query("Which transaction isolation level is the default?")
    start = _defining(section, 0, len(section), 0, [], ask.key_terms)
    assert section[start:].startswith("- **`default_transaction_isolation`")
    assert _defining(section, 0, len(section), 0, [], query("How are statements timed out?").key_terms) == 0


REDIRECTIONS = """### Redirecting Standard Output and Standard Error

This construct allows both the standard output (file descriptor 1) and the standard error output
(file descriptor 2) to be redirected to the file whose name is the expansion of word.

There are two formats for redirecting standard output and standard error: `&>word` and `>&word`."""

DEVICES = """### Redirections

Bash handles several filenames specially when they are used in redirections to a file:

- **`/dev/stdout`**: File descriptor 1 is duplicated, so a redirection to it writes to stdout.
- **`/dev/stderr`**: File descriptor 2 is duplicated, so a redirection to it writes to stderr."""


def test_shorthand_matches_the_words_that_spell_it_out():
    ask = query("How do I redirect both stdout and stderr to a file?")
    # BM25 reads the spelled-out words too; the reader's own stay first.
    assert ask.lexical_text.startswith(ask.text) and "standard error standard output" in ask.lexical_text
    assert query("How do I redirect output to a file?").lexical_text == "How do I redirect output to a file?"
    pool = [
        evidence("/bashref/#redirections", "Bash", "Redirections", DEVICES),
        evidence(
            "/bash/#lbBM", "BASH", "Redirecting Standard Output and Standard Error", REDIRECTIONS, 0.98, 1
        ),
    ]
    # The section that spells them out answers, not the one that only names the device files.
    text = rendered(compose(ask, pool))
    assert text.startswith("This construct allows both the standard output"), text
    # And the other way: the docs' shorthand holds the asked words it stands for ("--data-dir" for
    # "Where is the data directory?").
    held = _abbreviating(
        query("Where is the data directory?"), _terms("en", "start it with --data-dir /srv/tf")
    )
    assert {"data", "directori"} <= held, held
    # Common shorthand of the trade is spelled out too: "my own cert" is what httpx's docs call a
    # client certificate (its mutual-TLS question was answered from a local server's "key/cert
    # files"), "SSO" what a pricing table calls single sign-on.
    ask = query("The server requires mutual TLS, so I have to present my own cert. How do I do that?")
    assert "certificate" in ask.lexical_text
    assert "single sign-on" in query("Does the Team plan include SSO?").lexical_text


SYNC = """## Syncing

Run `ledger sync --dry-run` to print what would change without writing anything; nothing is
uploaded until you run it again without the flag.

Large ledgers are sent in batches of five hundred rows, and each batch is retried twice when the
connection drops before the server acknowledges it. A batch that fails three times stops the sync
and leaves the rows already sent on the server; the next sync starts from the first batch the
server did not acknowledge, so an interrupted sync never sends a row twice. Progress is printed
once per batch unless the quiet option is given.

TallyFox keeps every ledger in one SQLite file, so a sync only ever sends the rows that changed."""


def test_the_product_s_own_name_is_not_a_thing_the_answer_must_explain():
    # The docs say "TallyFox" everywhere, so it is no identifier (`telling_identifiers`); before,
    # a question naming it beside a flag got a second part for it: any sentence naming the product.
    ask = query("What does --dry-run do in TallyFox sync?")
    ask = replace(ask, identifiers=tuple(t for t in ask.identifiers if t != "tallyfox"))
    assert ask.identifiers == ("--dry-run",)
    text = rendered(compose(ask, [evidence("/sync/#syncing", "Sync", "Syncing", SYNC)]))
    assert "print what would change" in text, text
    assert "SQLite" not in text, text


# One line per item, as the build writes list items.
THEME_OPTIONS = "\n".join(
    [
        "## mkdocs",
        "",
        "The default theme supports the following options:",
        "",
        "- **highlightjs**: Enables highlighting of source code in code blocks using the highlight.js"
        " library. Default: `True`.",
        "- **hljs_languages**: By default, highlight.js only supports 23 common languages. List"
        " additional languages here to include support for them. Default: `[]`.",
        "- **color_mode**: Set the default color mode for the theme to one of `light`, `dark`, or"
        " `auto`. The `auto` mode will switch based on the system settings of the reader's device."
        " Default: `light`.",
        "- **user_color_mode_toggle**: Enable a toggle menu in the navigation bar which lets readers"
        " select their preferred color mode from within the browser. Default: `False`.",
        "- **nav_style**: Adjust the visual style of the top navigation bar. Default: `primary`.",
        "- **navigation_depth**: The maximum depth of the navigation tree in the sidebar. Default: `2`.",
    ]
)


def test_other_items_of_the_lead_s_list_that_answer_as_well_follow_it():
    ask = query(
        "Can readers toggle the color mode of the default theme between light and dark from the browser?"
    )
    text = rendered(
        compose(ask, [evidence("/themes/#mkdocs", "Choosing your Theme", "mkdocs", THEME_OPTIONS)])
    )
    # Both items answer: the mode itself and the toggle that lets readers choose it, in the
    # list's order, under the sentence that announces the list; not the items beside the point.
    assert "**color_mode**" in text and "**user_color_mode_toggle**" in text, text
    assert text.index("**color_mode**") < text.index("**user_color_mode_toggle**")
    assert "hljs_languages" not in text and "navigation_depth" not in text, text


PROCESSOR_FORMATTER = (
    "class structlog.stdlib.ProcessorFormatter(processors=(), logger=None, pass_foreign_args=False)\n\n"
    "Call structlog processors on `logging.LogRecord`s.\n\n"
    "Parameters:\n\n"
    "- **logger** (logging.Logger | None) – Logger which we want to push through the structlog processor "
    "chain. (default: None)\n"
    "- **pass_foreign_args** (bool) – If True, pass a foreign log record’s `args` attribute to the "
    "`event_dict` under `positional_args` key. (default: False)\n\n"
    "New in version 17.1.0.\n\n"
    "New in version 19.2.0: pass_foreign_args"
)


def favouring(marker: str):
    """A stand-in for the dense model that rates the units holding `marker` highest."""
    return lambda texts: [1.0 if marker in t else 0.0 for t in texts]


def cosines(rated: dict[str, float], rest: float = 0.5):
    """A stand-in for the dense model: the cosine of the units holding each marker, `rest` for
    the others (close, as a real model's are)."""
    return lambda texts: [next((c for m, c in rated.items() if m in t), rest) for t in texts]


def test_a_version_note_that_names_the_parameter_does_not_say_what_it_does():
    ask = query("What does the pass_foreign_args parameter of structlog.stdlib.ProcessorFormatter do?")
    pool = [
        evidence(
            "/api.html#ProcessorFormatter",
            "API Reference",
            "structlog.stdlib.ProcessorFormatter",
            PROCESSOR_FORMATTER,
        )
    ]
    # The dense model rated the note highest (short, and it names the parameter).
    composition = compose(ask, pool, relevance=favouring("New in version 19.2.0"))
    # The parameter's own description leads ("- **name** (type) – …" defines it), not the note
    # that says when it was added.
    assert "- **pass_foreign_args** (bool) – If True" in composition.parts[0].text, rendered(composition)
    assert "New in version 19.2.0" not in rendered(composition)
    asked_when = query("In which version was pass_foreign_args added to ProcessorFormatter?")
    assert "New in version 19.2.0: pass_foreign_args" in rendered(compose(asked_when, pool))


def test_an_admonished_version_note_without_the_word_version_does_not_lead():
    # setuptools' "Configuring setuptools using pyproject.toml files" opens with the note
    # "New in 61.0.0": short and under the heading that names the asked words, it led "What
    # build backend do I put in pyproject.toml for setuptools?".
    ask = query("What build backend do I put in pyproject.toml for setuptools?")
    text = (
        "**Note:** New in 61.0.0\n\n"
        "**Important:** If compatibility with legacy builds is needed, a simple `setup.py` script can be "
        "added to your project:\n\n"
        "```python\nfrom setuptools import setup\n\nsetup()\n```\n\n"
        "Starting with **PEP 621**, the Python community selected `pyproject.toml` as a standard way of "
        "specifying project metadata. The example below illustrates how to write it:\n\n"
        '```toml\n[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n```'
    )
    pool = [
        evidence(
            "/userguide/pyproject_config.html#configuring",
            "Configuring setuptools using pyproject.toml files",
            "Configuring setuptools using pyproject.toml files",
            text,
        )
    ]
    composition = compose(ask, pool, relevance=favouring("New in 61.0.0"))
    assert "New in 61.0.0" not in composition.parts[0].text, rendered(composition)
    assert 'build-backend = "setuptools.build_meta"' in rendered(composition)
    asked_when = query("In which version was pyproject.toml configuration added to setuptools?")
    assert "New in 61.0.0" in rendered(compose(asked_when, pool, relevance=favouring("New in 61.0.0")))


SCREEN = (
    "class pyte.screens.Screen(columns, lines)\n\n"
    "A screen is an in-memory matrix of characters that represents the screen display of the "
    "terminal. Its `display` property holds the screen's lines as text.\n\n"
    "- **`draw`(data)**: Display decoded characters at the current cursor position.\n\n"
    "Parameters\n\n"
    "**data** (str) – text to display."
)


def test_a_parameter_does_not_say_how_to_unless_it_is_asked_about():
    # pyte's `Screen.draw` parameter "**data** (str) – text to display." led "How do I get the
    # screen contents as text?" (short, and the closest to the question for the dense model); the
    # entry's own sentences say how. Named, or asked about as a parameter, it still answers.
    pool = [evidence("/api.html#pyte-screens-screen", "API reference", "pyte.screens.Screen", SCREEN)]
    close = cosines({"text to display": 0.62, "Its `display`": 0.55, "A screen is": 0.52}, rest=0.45)
    how = compose(query("How do I get the screen contents as text?"), pool, relevance=close)
    assert not how.parts[0].text.startswith("**data**"), rendered(how)
    assert "`display` property holds the screen's lines as text" in how.parts[0].text, rendered(how)
    named = compose(query("How do I pass the data argument to draw?"), pool, relevance=close)
    assert "**data** (str) – text to display." in named.parts[0].text, rendered(named)


def test_terms_defined_as_code_or_with_a_type_are_list_definitions():
    attributes = (
        "The following attributes control the basic view behavior.\n\n"
        "- `queryset` - The queryset that should be used for returning objects from this view.\n"
        "- `lookup_field` - The model field that should be used for performing object lookup of individual "
        "model instances. Defaults to `'pk'`.\n"
        "- `lookup_url_kwarg` - The URL keyword argument that should be used for object lookup. If unset "
        "this defaults to using the same value as `lookup_field`."
    )
    ask = query("What does lookup_field default to on GenericAPIView?")
    composition = compose(
        ask,
        [evidence("/generic-views/#attributes", "Generic views", "GenericAPIView › Attributes", attributes)],
        relevance=favouring("`lookup_url_kwarg`"),  # it says "defaults to" and names lookup_field too
    )
    assert composition.parts[0].text.startswith("- `lookup_field` - The model field"), rendered(composition)
    assert "`lookup_url_kwarg`" not in composition.parts[0].text


def test_a_signature_names_the_function_it_does_not_say_what_an_option_is_for():
    listen = """net.listen(addresses[, port = 53, { kind = 'dns', freebind = false }])

Returns: `true` if port is bound, an error otherwise

Listen on addresses; port and flags are optional. The addresses can be specified as a string or device.

Freebind allows binding to a non-local or not yet available address."""
    pool = [evidence("/net.html#net.listen", "Addresses and services", "net.listen", listen)]
    ask = query("What is the freebind=true option of net.listen() for?")
    text = rendered(compose(ask, pool))
    assert not text.startswith("net.listen("), text
    assert "Freebind allows binding to a non-local" in text, text
    asked_syntax = query("What is the syntax of net.listen()?")
    assert rendered(compose(asked_syntax, pool)).startswith("net.listen(addresses"), rendered(
        compose(asked_syntax, pool)
    )


def test_a_short_sentence_cut_by_its_code_is_quoted_whole_with_what_it_follows():
    parsing = """Pint’s rule for parsing strings with a mixture of numbers and units is that units are
treated with the same precedence as numbers.

For example, the units of

```pycon
>>> Q_('3 l / 100 km')
<Quantity(0.03, 'kilometer * liter')>
```

may be unexpected at first but, are a consequence of applying this rule. Use brackets to get the
expected result:

```pycon
>>> Q_('3 l / (100 km)')
<Quantity(0.03, 'liter / kilometer')>
```

Special strings for NaN (Not a Number) and inf(inity) are also handled in a case-insensitive fashion.
Note that, as usual, NaN != NaN. Strings are parsed with the registry's own rules, so every unit
name the registry defines can be used, including prefixed and plural forms of the units it knows,
and the same string always gives the same quantity whatever the order in which the units were
defined. Parsing a string that holds no number gives a quantity of one of its units, and parsing a
number alone gives a plain number, not a dimensionless quantity, which the registry returns as is."""
    ask = query("Why does parsing '3 l / 100 km' give kilometer * liter?")
    text = rendered(
        compose(
            ask,
            [
                evidence(
                    "/defining-quantities.html#parsing",
                    "Defining Quantities",
                    "Using string parsing",
                    parsing,
                )
            ],
        )
    )
    # The rule the example illustrates, the example, and the rest of the sentence the code cut off.
    assert "same precedence as numbers" in text, text
    assert "may be unexpected at first" in text, text
    assert text.index("same precedence") < text.index("3 l / 100 km") < text.index("may be unexpected")


def test_a_term_whose_definition_is_the_next_paragraph_reads_as_one_sentence():
    defaults = """structlog.stdlib.recreate_defaults(*, log_level=0)

Recreate defaults on top of standard library’s logging.

Parameters:

**log_level** (int | None) –

If `None`, don’t configure standard library logging **at all**. Otherwise configure it to log to
`sys.stdout` at log_level (`logging.NOTSET` being the default)."""
    ask = query("What does the log_level argument of structlog.stdlib.recreate_defaults() do?")
    composition = compose(
        ask,
        [
            evidence(
                "/api.html#recreate_defaults", "API Reference", "structlog.stdlib.recreate_defaults", defaults
            )
        ],
    )
    assert composition.parts[0].text.startswith("**log_level** (int | None) – If `None`, don’t configure"), (
        rendered(composition)
    )


def test_a_short_sentence_that_announces_code_is_quoted_after_what_it_follows():
    registries = """There are no global units in Pint. All units belong to a registry and you can have
multiple registries instantiated at the same time. However, you are not supposed to operate between quantities
that belong to different registries. Never do things like this:

```pycon
>>> q1 = 10 * UnitRegistry().meter
>>> q2 = 10 * UnitRegistry().meter
>>> q1 + q2
ValueError: Cannot operate with Quantity and Quantity of different registries.
```

If you use Pint in multiple modules within your Python package, you normally want to avoid creating
multiple instances of the unit registry. The best way to do this is by instantiating the registry in
a single place, for example in the package's own module, and importing it from there wherever units
are needed, so that every quantity your code creates belongs to the same registry and can be compared,
added and converted with every other one without surprises at run time."""
    ask = query("What should I never do with a UnitRegistry?")
    pool = [evidence("/tutorial.html#projects", "Tutorial", "Using Pint in your projects", registries)]
    near = cosines({"&lt;html&gt;": 0.7, "expression_filter=": 0.6})  # as the model rated them
    text = rendered(compose(ask, pool, relevance=near))
    assert "Never do things like this:" in text and "q1 + q2" in text, text
    # Alone, "Never do things like this:" does not say what not to do; the sentence before it does.
    assert "not supposed to operate between quantities" in text, text


def test_the_same_words_under_two_headings_are_quoted_once():
    """An API reference repeats a method's text for each class that has it; the answer says it once."""
    pool = [
        evidence(
            f"/api.html#{owner}.try_unbind",
            "API Reference",
            f"{owner} › try_unbind",
            f"try_unbind(*keys)\n\nLike [`unbind()`](/api.html#{owner}.unbind), but best effort: "
            "missing keys are ignored.\n\nNew in version 18.2.0.",
            score=score,
            index=i,
        )
        for i, (owner, score) in enumerate(
            [("structlog.BoundLoggerBase", 1.0), ("structlog.stdlib.BoundLogger", 0.95)]
        )
    ]
    ask = query("What does try_unbind() do on a BoundLoggerBase and on a stdlib BoundLogger?")
    text = rendered(compose(ask, pool))
    assert text.count("but best effort: missing keys are ignored") == 1, text


def test_asked_for_a_default_the_sentence_that_states_one_leads():
    cursor = """Cursor based pagination requires that there is a unique, unchanging ordering of items in the
result set. This ordering might typically be a creation timestamp on the records, as this presents a
consistent ordering to paginate against.

- `page_size` = A numeric value indicating the page size. Defaults to the `PAGE_SIZE` setting.
- `ordering` = This should be a string, or list of strings, indicating the field against which the
cursor based pagination will be applied. Defaults to `'-created'`."""
    pool = [evidence("/pagination/#cursorpagination", "Pagination", "CursorPagination", cursor)]
    ask = query("What's the default ordering used by CursorPagination?")
    composition = compose(ask, pool, relevance=favouring("This ordering might typically be"))
    assert "Defaults to `'-created'`" in composition.parts[0].text, rendered(composition)
    # "by default" says how something behaves, it does not ask for a default value.
    assert not _ASKS_DEFAULT.search("In which version did redirects stop being followed by default?")


def test_a_paraphrased_second_ask_is_answered_from_the_unit_closest_to_it_alone():
    """Two asks, the second in words no page uses: the dense model, asked about that ask alone,
    finds the unit that answers it, and both pages are cited."""
    mount = evidence(
        "/usage/mount.html#description",
        "borg mount",
        "Description",
        "This command mounts an archive as a FUSE filesystem. This can be useful for browsing an archive "
        "or restoring individual files. To allow a regular user to use fstab entries, add the user option.",
    )
    umount = evidence(
        "/usage/umount.html#description",
        "borg umount",
        "Description",
        "This command un-mounts a FUSE filesystem that was mounted with borg mount. This is a convenience "
        "wrapper that just calls the platform-specific shell command, usually fusermount -u or umount.",
        score=0.8,
        index=1,
    )
    extra = [
        evidence(f"/usage/other{i}.html", "Other", f"Other {i}", f"Archives are listed with borg list, {i}.")
        for i in range(6)
    ]
    ask = query("How do I browse an archive as a FUSE filesystem, and how do I detach it again afterwards?")

    def closest_to(about: str, texts: list[str]) -> list[float]:
        assert about == "how do I detach it again afterwards?"
        return [1.0 if "un-mounts" in t else 0.0 for t in texts]

    alone = compose(ask, [mount, umount, *extra])
    assert [e.url for e in alone.cited] == ["/usage/mount.html#description"], rendered(alone)
    both = compose(ask, [mount, umount, *extra], relevance_to=closest_to)
    assert [e.url for e in both.cited] == ["/usage/mount.html#description", "/usage/umount.html#description"]
    assert "un-mounts a FUSE filesystem" in rendered(both)


PREBUILD = """## prebuild_index

Optionally generates a pre-built index of all pages, which provides some performance improvements
for larger sites. Set to `true` to enable.

WARNING: This option requires that Node.js be installed and the command `node` be on the system path.

However, for larger sites (hundreds of pages), the bandwidth increase is relatively small and your
users will notice a significant improvement in search performance."""


def test_the_asked_word_the_section_heading_leaves_out_picks_the_sentence():
    pool = [
        evidence(
            "/user-guide/configuration/#prebuild_index",
            "Configuration",
            "plugins › Search › prebuild_index",
            PREBUILD,
        )
    ]
    ask = query("What does the search plugin's prebuild_index option need installed to work?")
    # The dense model rates the sentence about search performance highest; the heading already
    # says "search", "plugin" and "prebuild_index", and only one sentence says "installed".
    composition = compose(ask, pool, relevance=cosines({"search performance": 0.62, "Node.js": 0.55}))
    assert "requires that Node.js be installed" in composition.parts[0].text, rendered(composition)


EXIT_CODES = """## Exit codes

| Code | Meaning |
| --- | --- |
| `0` | Success. |
| `1` | General failure; the message names a `TFX-` error code. |
| `4` | The server could not be reached. |
| `5` | Authentication failed: missing, expired or revoked token. |
| `7` | Another process holds the data directory lock. |"""

ERROR_CODES = """## Error codes

Tallyfox reports problems with codes of the form `TFX-NNNN`. The first digit tells you the area."""


def test_a_number_the_question_states_finds_the_row_it_looks_up():
    pool = [
        evidence("/errors/", "Error codes", "Error codes", ERROR_CODES),
        evidence("/cli/#exit-codes", "CLI reference", "Exit codes", EXIT_CODES, 0.9, 1),
    ]
    composition = compose(
        query("tallyfox exited with code 7. What does that mean?"),
        pool,
        relevance=cosines({"codes of the form": 0.6, "Exit codes": 0.55}),
    )
    lead = composition.parts[0].text
    assert "data directory lock" in lead, rendered(composition)
    assert "Authentication failed" not in rendered(composition)
    # A comma after the number ends it as a full stop does; one inside a number does not.
    asked = query("tallyfox exited with code 7, what does that mean?")
    assert "data directory lock" in compose(asked, pool).parts[0].text
    assert _NUMBER_ASKED.findall("code 7, then 1,000 rows and 2.5 s, or 409.") == ["7", "409"]


V2_RELEASES = {
    "v2.12.0 (2025-10-07)": "This is the final 2.12 release, with the work of 20 external contributors.",
    "v2.0.3 (2023-07-05)": "Fix a regression in the handling of generic models.",
    "v2.0 (2023-06-30)": "Pydantic V2 is here! See this post for more details.",
}


def test_a_version_number_names_one_release_not_every_release_that_contains_its_digits():
    assert mentions("v2.0 (2023-06-30)", "2.0") and mentions("pydantic 2.0, released", "2.0")
    for other in ("v2.12.0 (2025-10-07)", "2.0.3", "1.2.0", "2.0b1"):
        assert not mentions(other, "2.0"), other
        assert not re.search(identifier_pattern("2.0"), other), other
    assert re.search(identifier_pattern("2.0"), "v2.0 (2023-06-30)")
    pool = [
        evidence(f"/changelog/#{i}", "Changelog", heading, text, 1.0 - 0.1 * i, i, "changelog")
        for i, (heading, text) in enumerate(V2_RELEASES.items())
    ]
    ask = replace(query("On what date was Pydantic 2.0 released?"), temporal=True)
    composition = compose(ask, pool)
    assert composition.cited[0].heading == "v2.0 (2023-06-30)", rendered(composition)


ORG_PAGES = """## Organization and User Pages

User and Organization Pages sites are not tied to a specific project, and the site files are
deployed to the `master` branch in a dedicated repository named with the GitHub account name.
Therefore, you need working copies of two repositories on your local system:

```sh
cd ../orgname.github.io/
mkdocs gh-deploy --config-file ../my-project/mkdocs.yml --remote-branch master
```"""

REMOTE_NAME = """## remote_name

Set the remote name to push to when using `gh-deploy` to deploy to GitHub Pages.

**default**: `origin`"""


def test_the_other_ask_is_answered_by_what_the_first_part_says_not_by_its_code_s_words():
    pool = [
        evidence(
            "/user-guide/deploying-your-docs/#organization-and-user-pages",
            "Deploying your docs",
            "Organization and User Pages",
            ORG_PAGES,
        ),
        evidence(
            "/user-guide/configuration/#remote_name", "Configuration", "remote_name", REMOTE_NAME, 0.9, 1
        ),
    ]
    ask = query(
        "For our organization's GitHub Pages site, what exact command do I run from the pages repository, "
        "and which config setting changes the git remote that gh-deploy pushes to?"
    )
    composition = compose(ask, pool)
    text = rendered(composition)
    # The command's `--config-file` and `--remote-branch` hold the second ask's words; the setting
    # that answers it is `remote_name`.
    assert "mkdocs gh-deploy --config-file" in text and "Set the remote name to push to" in text, text
    assert [e.url for e in composition.cited][-1] == "/user-guide/configuration/#remote_name"


def test_an_ask_that_says_only_that_is_read_with_the_statement_before_it():
    message = (
        "I need email address fields. What do I install for that, and on AWS Lambda I then get "
        "'No package metadata was found for email-validator' - how do I fix that?"
    )
    assert asks(message)[0] == "What do I install for that"
    assert asks(message, "en")[0] == "I need email address fields. What do I install for that"
    # An ask that names what it is about keeps its own words only.
    assert (
        asks("I run it on Windows. Where is the config file kept, and what is the service called?", "en")[0]
        == "Where is the config file kept"
    )


LAMBDA = """## No package metadata was found for email-validator

Pydantic uses `version` from `importlib.metadata` to check what version of `email-validator` is
installed. This package versioning mechanism is somewhat incompatible with AWS Lambda, even
though it's the industry standard for versioning packages in Python.

There are a few ways to fix this issue: include the `dist-info` directory of the package in
your `.zip` archive, or set `slim: false` in your serverless configuration."""

OPTIONAL = """## Optional dependencies

Pydantic has the following optional dependencies:

- `email`: Email validation provided by the email-validator package.
- `timezone`: Fallback IANA time zone database provided by the tzdata package.

Other types live in the separate `pydantic-extra-types` package. The settings management moved to
`pydantic-settings`. Both are installed on their own.

To install optional dependencies along with Pydantic, use `pip install 'pydantic[email]'`."""


def test_a_two_part_question_whose_first_ask_says_that_is_answered_from_both_pages():
    pool = [
        evidence(
            "/integrations/aws_lambda/#no-package-metadata",
            "AWS Lambda",
            "No package metadata was found for email-validator",
            LAMBDA,
        ),
        evidence(
            "/install/#optional-dependencies", "Installation", "Optional dependencies", OPTIONAL, 0.85, 1
        ),
    ]
    ask = query(
        "I need email address fields. What do I install for that, and on AWS Lambda I then get "
        "'No package metadata was found for email-validator' - how do I fix that?"
    )

    # The dense model, asked about the ask alone, finds the install line only when the ask is read
    # with what "that" is (email fields): "What do I install for that" alone is about nothing.
    def relevance_to(about: str, texts: list[str]) -> list[float]:
        rated = {"pip install 'pydantic[email]'": 0.8} if "email" in about else {}
        return cosines(rated, 0.4)(texts)

    composition = compose(ask, pool, relevance_to=relevance_to)
    assert {e.page_url for e in composition.cited} == {"/integrations/aws_lambda/", "/install/"}, rendered(
        composition
    )


LOGGING = (
    "## Logging\n\n"
    "- `--log-config <path>` - Logging configuration file. **Options:** `dictConfig()` formats: .json, "
    ".yaml. Any other format will be processed with `fileConfig()`.\n"
    "- `--log-level <str>` - Set the log level. **Options:** 'critical', 'error', 'warning', 'info', "
    "'debug', 'trace'. **Default:** 'info'.\n"
    "- `--no-access-log` - Disable access log only, without changing log level.\n"
    "- `--use-colors / --no-use-colors` - Enable / disable colorized formatting of the log records.\n"
    "- If you wish to use a YAML file for your logging config, you will need to include PyYAML as a "
    "dependency for your project or install uvicorn with the `[standard]` optional extras."
)


def test_an_item_of_the_lead_s_list_that_answers_nearly_as_well_is_quoted_with_it():
    pool = [evidence("/settings/#logging", "Settings", "Logging", LOGGING)]
    composition = compose(
        query("uvicorn log config yaml"), pool, relevance=cosines({"YAML file": 0.66, "--log-config": 0.64})
    )
    text = rendered(composition)
    assert "include PyYAML" in text and "`--log-config <path>`" in text, text
    assert "--no-access-log" not in text


def test_the_patterns_for_readers_version_numbers_are_bounded_in_memory():
    from askdocs.edge_runtime.query import _alone

    for i in range(3000):
        assert mentions(f"released as v{i}.0 today", f"{i}.0")
    assert _alone.cache_info().currsize <= 512


DEFINED_CODES = """# Exit codes

Running `gizmo` can result in six different exit codes:

Exit code 0:

All jobs were collected and passed successfully

Exit code 1:

Jobs were collected and run but some of them failed

Exit code 4:

gizmo command line usage error

Exit code 5:

No jobs were collected

They are represented by the `gizmo.ExitCode` enum."""


def test_a_term_the_next_paragraph_defines_is_read_with_it_and_found_by_its_number():
    """A definition list rendered as paragraphs ("Exit code 5:", then "No jobs were collected"):
    the term and its definition are one unit, and a number the question states finds it."""
    pool = [evidence("/exit-codes.html", "Exit codes", "Exit codes", DEFINED_CODES)]
    composition = compose(
        query("My CI job returned exit code 5. What does exit code 5 mean?"),
        pool,
        relevance=cosines({"six different": 0.58, "Exit code": 0.6}),
    )
    lead = composition.parts[0].text
    assert lead.startswith("Exit code 5: No jobs were collected"), rendered(composition)


def test_a_window_into_a_long_table_keeps_the_table_s_header():
    rows = "".join(
        f"| gizmo-plugin-{i:04d} | Plugin number {i} for gizmo | Jan 0{i % 9 + 1}, 2022 |\n"
        for i in range(200)
    )
    section = (
        f"# Plugin list\n\nEvery plugin.\n\n| name | summary | last release |\n| --- | --- | --- |\n{rows}"
    )
    hit = section.index("gizmo-plugin-0150")
    window = _section_text(section, 0, len(section), hit)
    assert "gizmo-plugin-0150" in window and len(window) < len(section)
    assert window.startswith("| name | summary | last release |\n| --- | --- | --- |\n| gizmo-plugin-"), (
        window[:120]
    )
    composition = compose(
        query("What is the gizmo-plugin-0150 plugin for?"),
        [evidence("/plugins.html", "Plugin list", "Plugin list", window)],
    )
    text = rendered(composition)
    assert "summary: Plugin number 150 for gizmo" in text, text
    # A window that starts where a table starts, or in prose, adds nothing.
    assert _section_text(section, 0, len(section), 0).startswith("# Plugin list")


HELP = "\n".join(
    f"  --option-{i:03d}          Option {i} does one thing and another, at length." for i in range(300)
)


def test_a_long_help_output_is_read_at_the_option_asked_about():
    section = (
        "## Command-line Flags\n\nAll the command-line flags can be obtained by running `gizmo --help`:\n\n"
        f"```\n$ gizmo --help\nusage: gizmo [options]\n\n{HELP[:9000]}\n"
        f"  --setup-show          Show setup of fixtures while executing jobs\n{HELP[9000:]}\n```"
    )
    start = _defining(section, 0, len(section), 0, ["--setup-show"])
    assert section[start:].startswith("  --setup-show          Show setup"), section[start : start + 60]
    window = _section_text(section, 0, len(section), start)
    assert "--setup-show          Show setup of fixtures" in window and window.startswith("```\n…\n")
    # Lines that look alike but define nothing ("  - an item", code) are not options.
    assert _defining("  - an item\n  x = f(-1)\n" + "x" * 3000, 0, 3020, 5, ["-1"]) == 5


def test_the_release_that_introduced_a_thing_is_not_the_one_that_fixed_it():
    ask = replace(
        query("Which gizmo release introduced the unconditional @gizmo.mark.skip marker?"), temporal=True
    )
    assert ask.asks_version
    pool = [
        evidence(
            "/announce/release-2.9.2.html#changes",
            "gizmo-2.9.2",
            "2.9.2 (compared to 2.9.1)",
            "- Fix `gizmo.mark.skip` mark when used in strict mode.\n- Fix a crash in the terminal reporter.",
            page_kind="changelog",
        ),
        evidence(
            "/announce/release-2.9.0.html#changes",
            "gizmo-2.9.0",
            "2.9.0 (compared to 2.8.7)",
            "- New `gizmo.mark.skip` mark, which unconditionally skips marked jobs.\n- Faster collection.",
            0.9,
            1,
            page_kind="changelog",
        ),
    ]
    composition = compose(ask, pool, relevance=cosines({"Fix `gizmo.mark.skip`": 0.62, "New `gizmo": 0.6}))
    assert composition.parts[0].text.startswith("- New `gizmo.mark.skip` mark"), rendered(composition)
    # Asked which release fixed it, the fix answers.
    fixed = replace(
        query("Which gizmo release fixed the @gizmo.mark.skip marker in strict mode?"), temporal=True
    )
    composition = compose(fixed, pool, relevance=cosines({"Fix `gizmo.mark.skip`": 0.62, "New `gizmo": 0.6}))
    assert composition.parts[0].text.startswith("- Fix `gizmo.mark.skip`"), rendered(composition)


ROBOTSTXT_USER_AGENT = """## ROBOTSTXT_USER_AGENT

Default: `None`

The user agent string to use for matching in the robots.txt file. If `None`, the User-Agent
header you are sending with the request or the `USER_AGENT` setting is used."""

USER_AGENT = """## USER_AGENT

Default: `"Scrapy/VERSION (+https://scrapy.org)"`

The default User-Agent to use when crawling, unless overridden."""


def test_a_bare_label_leads_only_when_it_is_what_is_asked():
    pool = [
        evidence(
            "/settings.html#robotstxt-user-agent", "Settings", "ROBOTSTXT_USER_AGENT", ROBOTSTXT_USER_AGENT
        ),
        evidence("/settings.html#user-agent", "Settings", "USER_AGENT", USER_AGENT, index=1),
    ]
    # Both headings hold "user" and "agent", and a section's first line frames it: without the
    # rule, "Default: `None`" (no word of the question, no name) led and cited the robots.txt
    # setting. The sentence that says what a user agent setting does leads instead.
    composition = compose(
        query("How do I set a custom user agent?"),
        pool,
        relevance=cosines(
            {"Default: `None`": 0.6, "The default User-Agent": 0.57, "The user agent string": 0.57}
        ),
    )
    assert not composition.parts[0].text.startswith("Default"), rendered(composition)
    # Asked for the default, the label is the answer.
    asked = compose(query("What is the default ROBOTSTXT_USER_AGENT?"), pool)
    assert asked.parts[0].text.startswith("Default: `None`"), rendered(asked)


def test_what_a_contraction_leaves_is_not_a_key_term():
    # "don't" tokenizes to "don": a word the docs never use, counted against answering.
    assert key_terms("en", "How do I slow down my crawler so I don't get banned?") == {
        "slow", "down", "crawler", "ban"
    }  # fmt: skip
    assert key_terms("en", "Why doesn’t it start? I've tried, it won't") == {"start", "tri"}


NETWORKING_INTRO = (
    "This page lists the ports Tallyfox uses, how to configure TLS, and how to route outbound traffic "
    "through a proxy."
)
OUTBOUND_PROXY = """The server makes outbound HTTPS requests for webhook delivery, license checks and SSO
metadata downloads. In networks where direct internet access is blocked, route this traffic through
an HTTP proxy with these variables:

| Variable | Example | Meaning |
|---|---|---|
| `TALLYFOX_HTTPS_PROXY` | `http://proxy.corp.example:3128` | Proxy used for all outbound HTTPS requests. |

Set them in the service environment, for example with a systemd drop-in."""
RED_INTRO = (
    "Esta página enumera los puertos que usa Tallyfox, cómo configurar TLS y cómo enviar el tráfico "
    "saliente a través de un proxy."
)
PROXY_DE_SALIDA = """El servidor hace peticiones HTTPS salientes para entregar webhooks.
En redes sin acceso directo a internet, envíe este tráfico a través de un proxy HTTP con estas variables:

| Variable | Ejemplo | Significado |
|---|---|---|
| `TALLYFOX_HTTPS_PROXY` | `http://proxy.corp.example:3128` | Proxy de las peticiones HTTPS salientes. |"""


@pytest.mark.parametrize(
    ("message", "locale", "intro", "section"),
    [
        ("How do I configure a proxy?", "en", NETWORKING_INTRO, OUTBOUND_PROXY),
        ("¿Cómo configuro un proxy?", "es", RED_INTRO, PROXY_DE_SALIDA),
    ],
)
def test_a_sentence_about_the_page_does_not_answer_what_the_page_covers(message, locale, intro, section):
    # The page's opening sentence names every topic of the page, so it holds the words of each
    # question the page answers: it led "How do I configure a proxy?" (and "¿Qué puertos usa
    # Tallyfox?") on the example site. With the dense model rating every unit alike, the words
    # decide: the section that says how leads.
    pool = [
        replace(evidence("/networking/#networking", "Networking", "Networking", intro), locale=locale),
        replace(
            evidence("/networking/#outbound-proxy", "Networking", "Outbound proxy", section, 0.9, 1),
            locale=locale,
        ),
    ]
    composition = compose(query(message, locale), pool, relevance=cosines({}))
    assert composition.cited[0].url == "/networking/#outbound-proxy", rendered(composition)
    assert "TALLYFOX_HTTPS_PROXY" in rendered(composition)


ADVANCED_MIDDLEWARE = (
    "In the main tutorial you read how to add [Custom Middleware](/tutorial/middleware/) to your "
    "application.\n\nAnd then you also read how to handle [CORS with the `CORSMiddleware`](/tutorial/cors/)."
)
USE_CORS_MIDDLEWARE = """You can configure it in your FastAPI application using the `CORSMiddleware`.

- Import `CORSMiddleware`.
- Create a list of allowed origins (as strings).
- Add it as a "middleware" to your FastAPI application."""
CORS_MORE_INFO = """For more info about CORS, check the [Mozilla CORS documentation](https://developer.mozilla.org/).

**Technical Details:** You could also use `from starlette.middleware.cors import CORSMiddleware`."""


def test_a_sentence_whose_asked_words_are_a_link_to_a_page_read_points_there():
    # "And then you also read how to handle [CORS …](/tutorial/cors/)" holds "CORS" only as the
    # text of a link to a page that was read too: it led "How do I add CORS?" (FastAPI), as "See
    # X" would have, had it been worded so. The page it links to leads.
    pool = [
        evidence("/advanced/middleware/", "Advanced Middleware", "Advanced Middleware", ADVANCED_MIDDLEWARE),
        evidence("/tutorial/cors/#more-info", "CORS", "More info", CORS_MORE_INFO, 0.92, 1),
        evidence(
            "/tutorial/cors/#use-corsmiddleware", "CORS", "Use CORSMiddleware", USE_CORS_MIDDLEWARE, 0.84, 2
        ),
    ]
    # As FastAPI's docs weigh them (idf over the mean): "CORS" is rare, "add" is everywhere.
    rarity = {"cor": 1.6, "add": 0.4}
    composition = compose(query("How do I add CORS?"), pool, rarity, relevance=cosines({}))
    assert composition.cited[0].page_url == "/tutorial/cors/", rendered(composition)
    # Without the linked page among what was read, the sentence is what there is to quote.
    alone = compose(query("How do I add CORS?"), pool[:1], rarity, relevance=cosines({}))
    assert "CORSMiddleware" in rendered(alone)


def test_a_sentence_that_sends_the_reader_elsewhere_does_not_lead():
    # Jinja's `Environment.filters`: "For custom filters see [Custom Filters](…)" holds every asked
    # word of "How do I add a custom filter?" and says nothing of how; "See X" already weighed
    # half, "For X see Y" led the answer.
    environment = (
        "A dict of filters for this environment. As long as no template was loaded it's safe to add "
        "new filters or remove old. For custom filters see [Custom Filters](/api/#writing-filters)."
    )
    pool = [evidence("/api/#jinja2.Environment.filters", "API", "filters", environment)]
    asked = query("How do I add a custom filter?")
    text = rendered(compose(asked, pool, relevance=overlap(asked.message)))
    assert not text.startswith("For custom filters"), text
    assert _POINTER.match("For more details, see the API.") and _POINTER.match(
        "Para más detalles, consulte X."
    )
    assert not _POINTER.match("For production, give it a certificate from your own CA.")
    assert not _POINTER.match("For production, check the permissions of the data directory.")
    # "Read" and "Check" point elsewhere only towards a link or a page ("Read the [Deployment
    # guide](…)"): psycopg2's `copy_from`, "Read data from the file-like object file appending them
    # to the table", weighed half as a pointer and `copy_to` answered "copy data from a file into a
    # table" with the other way round.
    assert _POINTER.match("Read the [Deployment guide](/deploy/) first.") and _POINTER.match(
        "Check the FAQ page."
    )
    assert not _POINTER.match("Check that the port is free.")
    pool = [
        evidence("/cursor/#copy_to", "cursor", "cursor › copy_to", COPY_TO),
        evidence("/cursor/#copy_from", "cursor", "cursor › copy_from", COPY_FROM, 0.97, 1),
    ]
    text = rendered(compose(query("How do I copy data from a file into a table?"), pool))
    assert text.startswith("Read data from the file-like object"), text


def test_an_invitation_to_learn_more_points_elsewhere():
    """apispec's "Writing Plugins": "To learn more about how to write plugins:" (then three links)
    holds every asked word of "How do I write a plugin?" and led the answer over the section's
    "A plugin is a subclass of `apispec.plugin.BasePlugin`"."""
    pool = [
        evidence(
            "/writing_plugins.html#writing-plugins",
            "Writing Plugins",
            "Writing Plugins",
            "A plugin is a subclass of [`apispec.plugin.BasePlugin`](/api_core.html#apispec.BasePlugin).",
        ),
        evidence(
            "/writing_plugins.html#next-steps",
            "Writing Plugins",
            "Writing Plugins › Next Steps",
            "To learn more about how to write plugins:\n\n- Consult the [Core API docs](/api_core.html)\n"
            "- View the source for an existing apispec plugin, e.g. FlaskPlugin.",
            score=0.95,
            index=1,
        ),
    ]
    asked = query("How do I write a plugin?")
    text = rendered(compose(asked, pool, relevance=overlap(asked.message)))
    assert text.startswith("A plugin is a subclass"), text
    assert _POINTER.match("Learn more in [the guide](/guide/).") and _POINTER.match(
        "To find out more, read on."
    )
    assert not _POINTER.match("Learning the API takes an afternoon.")


COPY_FROM = "Read data from the file-like object file appending them to the table named table."
COPY_TO = (
    "Write the content of the table named table to the file-like object file. See [Using COPY TO and "
    "COPY FROM](/usage/#copy) for an overview."
)


CLI_AGENT_TABLE = """`tallyfox agent start` options:

| Flag | Default | Meaning |
|---|---|---|
| `--max-batch N` | `1000` | Maximum samples per batch. |
| `--flush-interval DURATION` | `15s` | Ship a partly filled batch after this long. |"""


def test_the_dense_model_reads_a_table_row_as_the_answer_shows_it():
    # Two lines of Markdown pipes ("| Flag | Default | Meaning |\n| `--max-batch N` | `1000` | …")
    # read to the dense model as punctuation around words; named values read as what they say.
    pool = [evidence("/cli/#tallyfox-agent", "CLI reference", "tallyfox agent", CLI_AGENT_TABLE)]
    units = _units(0, pool[0])
    row = next(u for u in units if u.kind == "row" and "--max-batch" in u.text)
    read = _relevance_text(pool, row)
    assert read == (
        "tallyfox agent: `--max-batch N` — Default: `1000` — Meaning: Maximum samples per batch."
    ), read
    prose = next(u for u in units if u.kind == "prose")
    assert _relevance_text(pool, prose) == f"tallyfox agent: {prose.text}"


def test_the_dense_model_reads_a_code_block_without_its_fences():
    # "```bash" says nothing of what the code does, and took a share of the 200 characters read.
    code = "Start it:\n\n```bash\ntallyfox agent start --max-batch 500\ntallyfox agent status\n```"
    pool = [evidence("/cli/#tallyfox-agent", "CLI reference", "tallyfox agent", code)]
    block = next(u for u in _units(0, pool[0]) if u.kind == "code")
    assert _relevance_text(pool, block) == (
        "tallyfox agent: tallyfox agent start --max-batch 500\ntallyfox agent status"
    )


CONFIG_KEYS = """| Key | Default | Description |
|---|---|---|
| `agent.max_batch` | `1000` | Maximum samples per batch. |
| `agent.buffer_limit` | `512MiB` | Disk space the agent may use while the server is unreachable. |"""
HOST_DISK = (
    "A host with the default collectors produces about 1.5 million samples a day, roughly 12 MB on the "
    "server after compression."
)
PLANS_TABLE = """| | Community | Team | Business |
|---|---|---|---|
| Agents | up to 5 | up to 100 | up to 500 |
| Per seat | free | USD 12 | USD 29 |"""


def test_a_number_the_reader_counts_with_is_held_only_with_what_it_counts():
    # "1000 hosts": the reader's number says how many of something. The row holding 1000 for
    # something else (`agent.max_batch`, samples per batch) does not hold it, and led the answer
    # on the example site with its number; the sentence about a host does.
    pool = [
        evidence("/configuration/#keys", "Configuration", "Keys", CONFIG_KEYS),
        evidence("/faq/#disk", "FAQ", "How much disk space does one monitored host use?", HOST_DISK, 0.99, 1),
    ]
    rarity = {"1000": 1.33, "host": 0.67, "scale": 1.0}
    composition = compose(query("How do I scale to 1000 hosts?"), pool, rarity, relevance=cosines({}))
    assert rendered(composition).startswith("A host"), rendered(composition)
    # Said of what it counts, the number is held: "500 agents" by the plans' Agents row.
    plans = [evidence("/pricing/#plans", "Pricing", "Plans", PLANS_TABLE)]
    asked = compose(
        query("Can I have 500 agents on Business?"), plans, {"500": 1.3, "agent": 0.6, "busi": 1.0}
    )
    assert rendered(asked).startswith("- Agents"), rendered(asked)


PLATFORMS = """| Platform | Default path |
|---|---|
| Linux | `/etc/tallyfox/tallyfox.yaml` |
| Windows | `C:\\ProgramData\\Tallyfox\\tallyfox.yaml` |
| macOS | `/opt/homebrew/etc/tallyfox/tallyfox.yaml` |"""
PRECEDENCE = """When the same setting comes from several places, Tallyfox applies them in this order:

1. Command-line flags, for example `--max-batch 500`.
2. Environment variables, for example `TALLYFOX_MAX_BATCH=500`.
3. The config file.
4. Built-in defaults."""


def test_a_unit_in_the_questions_own_words_does_not_answer_it_and_alternatives_are_all_quoted():
    # "3. The config file." holds every asked word and says nothing the question does not; it led
    # "Where is the config file?" with the precedence list. The platforms' table answers, whole:
    # the question picks none of its rows (`ALTERNATIVES_RATIO`); asked for one, that row alone.
    pool = [
        evidence("/configuration/#precedence", "Configuration", "Precedence", PRECEDENCE),
        evidence("/configuration/#config-file-location", "Configuration", "Config file location", PLATFORMS),
    ]
    # The dense model rates a short sentence in the question's own words highest; word overlap
    # stands in for it here.
    asked = query("Where is the config file?")
    composition = compose(asked, pool, relevance=overlap(asked.message))
    assert composition.cited[0].url == "/configuration/#config-file-location", rendered(composition)
    lead = rendered(composition).split("\n\nFrom:")[0]
    for path in ("/etc/tallyfox/tallyfox.yaml", "C:\\ProgramData", "/opt/homebrew"):
        assert path in lead, lead
    # An item that names a symbol or a path says it, in whatever words; a sentence in the
    # question's words most often introduces the answer.
    assert _restates(asked, "3. The config file.")
    assert not _restates(query("search filter starts-with"), "- '^' Starts-with search.")
    assert not _restates(asked, "- `~/.tallyfox/config`.")
    assert not _restates(asked, "The config file.")
    on_windows = query("Where is the config file on Windows?")
    windows = rendered(compose(on_windows, pool, relevance=overlap(on_windows.message))).split("\n\nFrom:")[0]
    assert "C:\\ProgramData" in windows and "/opt/homebrew" not in windows, windows


AGENT_KEYS = """| Key | Default | Description |
|---|---|---|
| `agent.server` | `https://localhost:7432` | Server the agent's batches are stored on. |
| `agent.max_batch` | `1000` | Maximum samples per batch. |"""


def overlap(question: str):
    """A stand-in for the dense model: each text's share of words in common with `question`."""
    asked = set(re.findall(r"\w+", question.lower()))

    def score(texts: list[str]) -> list[float]:
        return [len(asked & (w := set(re.findall(r"\w+", t.lower())))) / len(asked | w) for t in texts]

    return score


def test_a_long_option_matches_only_itself_not_a_longer_one():
    # "What does the --strip option of patch do?" was answered with diff3's
    # `--strip-trailing-cr`: the asked option is a prefix of it.
    assert mentions("- **-pnumber** / **--strip=number**: set the strip count", "--strip")
    assert mentions("use --strip.", "--strip") and mentions("(--strip)", "--strip")
    assert not mentions("- **--strip-trailing-cr**: strip any trailing carriage return", "--strip")
    pattern = re.compile(identifier_pattern("--strip"))
    assert pattern.search("use --strip=1 here") and not pattern.search("--strip-trailing-cr")
    options = (
        "- **--strip-trailing-cr**: Strip any trailing carriage return at the end of an input line.\n"
        "- **-T** / **--initial-tab**: Output a tab rather than a space before the text of a line."
    )
    pool = [
        evidence("/diff3/#options", "Invoking diff3", "Options to diff3", options),
        evidence(
            "/patch/#options",
            "Invoking patch",
            "Options to patch",
            "- **-pnumber** / **--strip=number**: Set the file name count to number.\n"
            "- **-R** / **--reverse**: Assume that the patch was made with the two files swapped.",
            score=0.9,
            index=1,
        ),
    ]
    composition = compose(query("What does --strip do?"), pool)
    assert composition.cited[0].url == "/patch/#options", rendered(composition)


def test_a_table_of_where_to_read_what_is_a_signpost_not_an_answer():
    # "Which takes priority, env vars or the config file?" led with the home page's "Where to
    # start" row, which names the asked words and links to the page that answers.
    pool = [
        evidence(
            "/#where-to-start",
            "Tallyfox documentation",
            "Where to start",
            "| If you want to… | Read |\n| --- | --- |\n"
            "| Tune the config file and environment variables | [Configuration](/configuration/) |\n"
            "| Look up a command or flag | [CLI reference](/cli/) |",
        ),
        evidence(
            "/configuration/#precedence",
            "Configuration",
            "Precedence",
            "When the same setting comes from several places, Tallyfox applies them in this order:\n\n"
            "1. Environment variables, for example `TALLYFOX_MAX_BATCH=500`.\n2. The config file.\n\n"
            "A value set in an environment variable wins over the config file.",
            score=0.95,
            index=1,
        ),
    ]
    asked = query("Which wins, an environment variable or the config file?")
    composition = compose(asked, pool, relevance=overlap(asked.message))
    assert composition.cited[0].url == "/configuration/#precedence", rendered(composition)
    assert _signpost("| If you want to… | Read |\n| Tune it | [Configuration](/configuration/) |")
    assert _signpost("| Topic | See |\n| Tokens | [Security](/security/), [API](/api/#auth) |")
    assert not _signpost("| Port | Used for |\n| 7431 | [Web console](/console/) and the HTTP API |")
    assert not _signpost("| Key | Default |\n| `log.level` | `info` |")


def test_a_url_is_not_the_place_a_where_question_asks_for():
    # Asked where something is stored, a place on disk answers: a URL is no path (the
    # `agent.server` row's `https://localhost:7432` led "Where are the agent logs stored?").
    pool = [
        evidence("/configuration/#keys", "Configuration", "Keys", AGENT_KEYS),
        evidence(
            "/agent/#buffering",
            "Agent",
            "Buffering",
            "The agent's unsent batches are stored in `/var/lib/tallyfox/buffer` until the server is up.",
            score=0.9,
            index=1,
        ),
    ]
    asked = query("Where are the agent's batches stored?")
    composition = compose(asked, pool, relevance=overlap(asked.message))
    assert composition.cited[0].url == "/agent/#buffering", rendered(composition)
    # Nor is a dotted setting a file name: `log.level` led "Where are the agent logs stored?" as
    # if `.level` were a file's extension (a file's is two to four letters: `tallyfox.yaml`).
    assert _PATH.search("edit `tallyfox.yaml` first") and _PATH.search("see `backup.tfxb`")
    assert not _PATH.search("set `log.level` to debug") and not _PATH.search("`sso.allow_local_admin`")
    # Nor a link to another page of the docs: "(see [Backups](/guides/backups/))" made the encryption
    # section's "the data directory is not encrypted" lead "Where is the data directory?".
    encryption = (
        "- **In transit:** all traffic uses TLS 1.2 or newer.\n- **At rest:** the data directory is not "
        "encrypted by Tallyfox; see [Backups](/guides/backups/) for encrypted archives."
    )
    pool = [
        evidence("/security/#encryption", "Security", "Encryption", encryption),
        evidence(
            "/faq/#container",
            "FAQ",
            "Can I run it in a container?",
            "Yes. Mount a volume at `/var/lib/tallyfox` for the server's data directory.",
            score=0.8,
            index=1,
        ),
    ]
    asked = query("Where is the data directory?")
    composition = compose(asked, pool, relevance=overlap(asked.message))
    assert composition.cited[0].url == "/faq/#container", rendered(composition)
    # And where a unit names a place and holds every asked word, a unit that names none (the exit
    # code "Another process holds the data directory lock") says less still.
    codes = (
        "| Code | Meaning |\n|---|---|\n| `6` | The server is not running. |\n"
        "| `7` | Another process holds the data directory lock. |"
    )
    container = "Yes. Mount a volume at `/var/lib/tallyfox` for the server's data directory, and start it."
    pool = [
        evidence("/cli/#exit-codes", "CLI", "Exit codes", codes),
        evidence("/faq/#container", "FAQ", "Can I run it in a container?", container, score=0.7, index=1),
    ]
    composition = compose(asked, pool, relevance=overlap(asked.message))
    assert composition.cited[0].url == "/faq/#container", rendered(composition)


def test_a_signature_with_the_kind_of_member_sphinx_writes_before_it_is_still_a_signature():
    """Sphinx writes "classmethod", "property", "exception" before a member's name: the line is
    the member's signature all the same, and what the member does answers what it is for."""
    get_or_none = (
        "classmethod get_or_none(*query, **filters)\n\n"
        "Identical to [`Model.get()`](/api.html#Model.get) but returns `None` if no model matches the "
        "given filters."
    )
    pool = [evidence("/api.html#Model.get_or_none", "API Documentation", "Model › get_or_none", get_or_none)]
    text = rendered(compose(query("What is the difference between get() and get_or_none()?"), pool))
    assert text.startswith("Identical to"), text
    query_string = (
        "property query_string\n\n"
        "The raw `query` part of the URL (everything in between `?` and `#`) as a string."
    )
    where = ("/api.html#BaseRequest.query_string", "API Reference", "BaseRequest › query_string")
    pool = [evidence(*where, query_string)]
    text = rendered(compose(query("What is the query_string property of a request?"), pool))
    assert text.startswith("The raw `query` part"), text


def test_initials_the_docs_write_stand_for_the_asked_words_they_abbreviate():
    """The docs say "DRF" where the reader says "Django REST framework": the section headed by the
    initials is about all three words, not only the sentence that spells the name out once."""
    requirements = (
        "Django-filter is tested against all supported versions of Python and Django, as well as the "
        "latest version of Django REST Framework."
    )
    integration = (
        "DRF integration is provided through a specific `FilterSet` and a filter backend. These may be "
        "found in the `rest_framework` sub-package."
    )
    pool = [
        evidence("/install.html#requirements", "Installation", "Requirements", requirements),
        evidence(
            "/rest.html#integration-with-drf", "Integration with DRF", "Integration with DRF", integration
        ),
    ]
    ask = query("How do I use django-filter with Django REST framework?")
    text = rendered(compose(ask, pool))
    assert text.startswith("DRF integration is provided"), text


MAKO_FILTERING = """A page can apply a default set of filters to all expression tags using the
`expression_filter` argument to the `%page` tag:

```mako
<%page expression_filter="h"/>

Escaped text:  ${"<html>some html</html>"}
```

Result:

```html
Escaped text: &lt;html&gt;some html&lt;/html&gt;
```"""
AIOHTTP_MIDDLEWARES = """Every middleware takes the request and the handler, and returns a response:

```python
@middleware
async def middleware_1(request, handler):
    print('Middleware 1 called')
    return await handler(request)
```

Produced output:

```
Middleware 1 called
Handler function called
```"""


COOKIECUTTER_CHOICES = """Choice variables are key / value pairs whose value is a list of strings.

For example, if you provide the following choice variable in your `cookiecutter.json`:

```
{
    "license": ["MIT", "BSD-3", "GNU GPL v3.0", "Apache Software License 2.0"]
}
```

you’d get the following choices when running Cookiecutter:

```
Select license:
1 - MIT
2 - BSD-3
Choose from 1, 2 [1]:
```"""


@pytest.mark.parametrize(
    ("text", "question", "output", "how", "lead"),
    [
        (
            COOKIECUTTER_CHOICES,
            "How do I offer the user a list of licenses to pick from?",
            "Select license:",
            '"license": ["MIT"',
            "Choice variables are key / value pairs",
        ),
        (
            MAKO_FILTERING,
            "How do I escape HTML in expressions by default?",
            "&lt;html&gt;",
            'expression_filter="h"',
            "A page can apply a default set of filters",
        ),
        (
            AIOHTTP_MIDDLEWARES,
            "How do I write a middleware?",
            "Middleware 1 called\nHandler",
            "async def middleware_1",
            "Every middleware takes the request",
        ),
    ],
)
def test_code_announced_as_the_result_shows_what_happens_not_how_to_do_it(text, question, output, how, lead):
    """Mako's "Result:" block (the escaped HTML a template renders) led "How do I escape HTML in
    expressions by default?" above the `<%page expression_filter="h"/>` that does it, aiohttp's
    "Produced output:" (what the server printed) "How do I write a middleware?", and Cookiecutter's
    prompt ("you’d get the following choices when running Cookiecutter:") the question of how to
    offer the choices: a block a sentence announces as the result, the output or what you get is
    what some code gives, not the how-to. The dense model
    rated the output nearer the question, as `near` does."""
    pool = [evidence("/page.html#section", "Page", "Section", text)]
    near = cosines({output: 0.7, how: 0.6})
    answer = rendered(compose(query(question), pool, relevance=near))
    assert answer.startswith(lead), answer
    assert answer.index(how) < answer.index(output) if output in answer else how in answer, answer


def test_a_paragraph_that_repeats_the_heading_says_nothing():
    """SQLite's pages print their title under the heading that holds it ("CREATE TRIGGER", then
    "CREATE TRIGGER"): as a sentence holding every asked word it led the answer, and said nothing."""
    trigger = """CREATE TRIGGER

The CREATE TRIGGER statement is used to add triggers to the database schema. Triggers are
database operations that are automatically performed when a specified database event occurs."""
    pool = [evidence("/lang_createtrigger.html", "CREATE TRIGGER", "CREATE TRIGGER", trigger)]
    text = rendered(compose(query("How do I create a trigger?"), pool))
    assert text.startswith("The CREATE TRIGGER statement is used to add triggers"), text


FLASK_LOGIN_COOKIES = "\n".join(
    [
        "The details of the cookie can be customized in the application settings.",
        "",
        "| `REMEMBER_COOKIE_NAME` | The name of the cookie to store the “remember me” information in. "
        "**Default:** `remember_token` |",
        "| `REMEMBER_COOKIE_DURATION` | The amount of time before the cookie expires, as a "
        "`datetime.timedelta` object or integer seconds. **Default:** 365 days |",
        "| `REMEMBER_COOKIE_DOMAIN` | If the cookie should cross domains, set the domain value here. "
        "**Default:** `None` |",
        "| `REMEMBER_COOKIE_PATH` | Limits the “Remember Me” cookie to a certain path. **Default:** `/` |",
    ]
)


def test_a_table_without_a_header_row_has_no_header():
    """The build writes a rule under a table's first row only when that row is of <th> cells:
    Flask-Login's cookie settings (a docutils table of <td> cells) have none, and their first
    row, `REMEMBER_COOKIE_NAME`, was read as the header of every other row ("`REMEMBER_COOKIE_DURATION`
    — The name of the cookie…: The amount of time…"). Every row of such a table is a row."""
    pool = [evidence("/#cookie-settings", "Flask-Login", "Cookie Settings", FLASK_LOGIN_COOKIES)]
    text = rendered(compose(query("How do I set how long the remember cookie lasts?"), pool))
    assert text.startswith("- `REMEMBER_COOKIE_DURATION` — The amount of time before the cookie"), text
    assert "remember_token" not in text, text
    # The first row answers too: it is a row, not a header.
    text = rendered(compose(query("What is the default name of the remember me cookie?"), pool))
    assert text.startswith("- `REMEMBER_COOKIE_NAME` — The name of the cookie"), text


def test_an_entry_of_a_table_of_contents_points_elsewhere():
    """Flask-Login's page opens with a table of contents: "- [Configuring your Application](…)"
    holds the asked words and led "How do I set up Flask-Login in my application?" (then its
    list's intro, "However, it does not:"). An entry that is only a link points to where the
    answer is, as "See …" does."""
    intro = "\n".join(
        [
            "Flask-Login provides user session management for Flask.",
            "",
            "However, it does not:",
            "",
            "- Restrict you to using usernames and passwords, OpenIDs, or any other method.",
            "- [Installation](/#installation)",
            "- [Configuring your Application](/#configuring-your-application)",
            "- [How it Works](/#how-it-works)",
        ]
    )
    configuring = (
        "The most important part of an application that uses Flask-Login is the `LoginManager` class. "
        "You should create one for your application somewhere in your code, like this:\n\n"
        "```\nfrom flask_login import LoginManager\nlogin_manager = LoginManager()\n```"
    )
    pool = [
        evidence("/#flask-login", "Flask-Login", "Flask-Login", intro),
        evidence("/#configuring-your-application", "Flask-Login", "Configuring", configuring),
    ]
    # As the dense model rates them: the entry and the answer alike, the rest of the intro lower.
    near = cosines({"Configuring your Application](": 0.65, "The most important part": 0.65}, rest=0.4)
    text = rendered(compose(query("How do I set up Flask-Login in my application?"), pool, relevance=near))
    assert text.startswith("The most important part of an application"), text


def test_a_window_cut_right_after_a_fence_line_keeps_no_empty_code_block():
    """A window of the Rust book's "Shadowing" ended just after a block's "```rust" line: read as
    "```rust\n…\n```", an empty block that led "What is shadowing?". Cut there, the block is left
    out; cut inside it, its part is kept and marked as cut."""
    filler = "".join(f"Shadow note {i}: a sentence that pads the section out.\n\n" for i in range(66))
    code = "```rust\n" + "".join(f'    let spaces_{i} = "   ".len();\n' for i in range(40)) + "```\n\n"
    section = f"## Shadowing\n\n{filler}{code}{filler.replace('Shadow note', 'After note')}"
    windows = [_section_text(section, 0, len(section), at) for at in range(0, len(section), 40)]
    assert all("```rust\n…\n```" not in w for w in windows)
    assert all(w.count("```") % 2 == 0 for w in windows)
    assert any("let spaces_" in w and w.endswith("…\n```") for w in windows)


RUST_SHADOWING = """You can declare a new variable with the same name as a previous variable.
Rustaceans say that the first variable is shadowed by the second, which means that the second
variable is what the compiler will see when you use the name of the variable.

```rust
fn main() {
    let x = 5;
    let x = x + 1;
    println!("The value of x is: {x}");
}
```

When we run this program, it will output the following:

```console
The value of x is: 6
```"""


def test_a_sentence_announcing_what_a_program_prints_answers_only_what_it_prints():
    """The Rust book's "Shadowing" section: "When we run this program, it will output the
    following:" holds none of the asked words, and on its heading's word and the dense model it led
    "What is shadowing?". It introduces what a program prints: it answers what the program prints,
    nothing else."""
    pool = [evidence("/ch03-01.html#shadowing", "Variables and Mutability", "Shadowing", RUST_SHADOWING)]
    near = cosines({"When we run this program": 0.75, "Rustaceans say": 0.55}, rest=0.45)
    text = rendered(compose(query("What is shadowing?"), pool, relevance=near))
    assert text.startswith("Rustaceans say that the"), text
    text = rendered(compose(query("What does this program print?"), pool, relevance=near))
    assert "The value of x is: 6" in text, text


SIMPLE_QUEUE = "\n\n".join(
    [
        "SimpleQueue(name, no_ack=None, queue_opts=None, queue_args=None, exchange_opts=None, channel=None)",
        "Bases: `kombu.simple.SimpleBase`",
        "Simple persistent queue API.",
        "Create new `SimpleQueue`, using a channel from this connection.",
        "Parameters",
        "- **name** (str) – Name of the queue/or a queue.\n"
        "- **no_ack** (bool) – Disable acknowledgments. Default is false.\n"
        "- **channel** (ChannelT) – Custom channel to use. If not specified the connection default "
        "channel is used.",
    ]
)


def test_a_fields_name_is_no_answer_and_a_name_is_defined_where_its_section_opens():
    """Kombu's reference: "What is SimpleQueue?" led with "Parameters" (Sphinx's field name, which
    the heading's name and the dense model rated highest), then would have led with a parameter.
    A field's name labels what follows it; asked what a named thing is, the first sentence of the
    section headed by its name (a docstring's summary line, not Sphinx's "Bases:" line) defines it;
    so asked what it does or what it is for."""
    pool = [
        evidence(
            "/reference/kombu.html#kombu.Connection.SimpleQueue",
            "Kombu",
            "Connection › SimpleQueue",
            SIMPLE_QUEUE,
        )
    ]
    # As the dense model rated them: the field's name first, the parameters above the summary.
    near = cosines(
        {"Parameters": 0.7, "**channel**": 0.62, "**name**": 0.6, "Simple persistent": 0.58}, rest=0.5
    )
    for asked in ("What is SimpleQueue?", "What does SimpleQueue do?", "what is SimpleQueue for?"):
        text = rendered(compose(query(asked), pool, relevance=near))
        assert text.startswith("Simple persistent queue API."), (asked, text)
    # Sphinx's "Bases:" line before a class's summary is not its summary.
    assert [
        _units(0, pool[0])[i].text
        for i in _summaries(query("What is SimpleQueue?"), pool, _units(0, pool[0]))
    ] == ["Simple persistent queue API."]
    # Asked how to do something, the summary has no claim of its own.
    assert not _summaries(query("How do I use SimpleQueue?"), pool, _units(0, pool[0]))
    # A field's name that is the asked word labels the answer all the same (django-guardian's
    # "Date" over its release date led "Can it expire a permission after a date?").
    text = rendered(compose(query("What parameters does SimpleQueue take?"), pool, relevance=near))
    assert not text.startswith("Parameters"), text


def test_a_line_that_only_names_its_api_entry_says_nothing():
    """Behave's reference writes an attribute's name alone on a line under its entry ("config"
    under "behave.runner.Context.config"): it holds the asked word and led "How do I configure
    behave in a configuration file?"; so did "table_pagination" for django-tables2's "How do I
    paginate a table?". It repeats the heading's name, as a paragraph repeating the heading does."""
    pool = [
        evidence(
            "/api.html#behave.runner.Context.config",
            "Behave API Reference",
            "Runner › behave.runner.Context.config",
            "config\n\nThe configuration of behave as determined by configuration files and "
            "command-line options.",
        )
    ]
    near = cosines({"config: config": 0.7, "The configuration": 0.6}, rest=0.5)
    # As telling as the site's words are: "behave" is on every page, "configuration" on few.
    weights = {"configur": 2.0, "behav": 0.1, "file": 0.5}
    text = rendered(
        compose(query("How do I configure behave in a configuration file?"), pool, weights, relevance=near)
    )
    assert text.startswith("The configuration of behave"), text


def test_a_release_section_of_a_page_of_another_kind_is_release_notes():
    """Blinker's manual is one page that ends with its changes: the "Version 1.3" section's
    "Previously, weak references were held in the mapping" led "Are receivers held with weak
    references?" over the reference's own sentence. A section headed by a release alone weighs as
    a changelog page's does unless the question asks about versions or changes."""
    pool = [
        evidence(
            "/#version-1-3",
            "Blinker Documentation",
            "Blinker Documentation › Version 1.3",
            "- The global signal stash is now backed by a regular dictionary. Previously, weak references "
            "were held in the mapping and code could behave by import order.",
        ),
        evidence(
            "/#blinker.base.Signal.connect",
            "Blinker Documentation",
            "API › blinker.base.Signal.connect",
            "- **weak** – If true, the Signal will hold a weak reference to receiver and automatically "
            "disconnect when receiver goes out of scope. Defaults to True.",
            score=0.9,
            index=1,
        ),
    ]
    text = rendered(compose(query("Are receivers held with weak references?"), pool))
    assert "If true, the Signal will hold a weak reference" in text.partition("\n")[0], text
    versioned = query("Which version changed how weak references are held?")
    assert releases_weigh(versioned, pool)


def releases_weigh(ask, pool) -> bool:
    """Asked about versions, the release section leads."""
    return rendered(compose(ask, pool)).startswith("- The global signal stash")


FORMAT_TIMESPAN = "\n\n".join(
    [
        "humanfriendly.format_timespan(num_seconds, detailed=False, max_units=3)",
        "Format a timespan in seconds as a human readable string.",
        "Parameters",
        "- **num_seconds** – Any value accepted by `coerce_seconds()`.\n"
        "- **max_units** – The maximum number of units to show in the formatted time span.",
        "Returns",
        "The formatted timespan as a string.",
        "Raise",
        "See `coerce_seconds()`.",
        "Some examples:",
        "```\n>>> from humanfriendly import format_timespan\n>>> format_timespan(60)\n'1 minute'\n```",
    ]
)


def test_a_fields_name_and_value_do_not_frame_what_follows_them():
    """humanfriendly's `format_timespan` entry: its examples led "How do I format a number of
    seconds as a timespan?" after "Raise See `coerce_seconds()`. Some examples:", the sentences
    before the code's intro read into it although they are the "Raise" field and its value."""
    pool = [
        evidence(
            "/api.html#humanfriendly.format_timespan",
            "API documentation",
            "humanfriendly › humanfriendly.format_timespan",
            FORMAT_TIMESPAN,
        )
    ]
    # As the dense model rates them: the example first.
    near = cosines({"format_timespan(60)": 0.8, "Format a timespan": 0.6}, rest=0.4)
    text = rendered(
        compose(query("How do I format a number of seconds as a timespan?"), pool, relevance=near)
    )
    assert text.startswith("Some examples:\n"), text
    units = _units(0, pool[0])
    at = next(i for i, u in enumerate(units) if u.text.startswith("See "))
    assert not _frames(units[at], units[at - 1]) and not _frames(units[at - 1], units[at - 2])
    assert _frames(units[at + 1], units[at])


BIDICT_DUPLICATION = "\n\n".join(
    [
        "Note that it's possible for a given item to duplicate the key of one existing item, and the "
        "value of another existing item.",
        "```\n>>> b.putall([(1, 2), (3, 4), (1, 4)], OnDup(key=...))\n```",
        "What should happen next?",
        "Keep in mind, the active `OnDup` may specify one `OnDupAction` for key duplication and a "
        "different `OnDupAction` for value duplication.",
        "Note that repeated insertions of the same item are construed as a no-op and will not raise, "
        "no matter what the active `OnDup` is.",
    ]
)


def test_a_question_the_docs_ask_without_the_asked_words_is_no_answer():
    """bidict's "Key and Value Duplication": "What should happen next?" holds none of the asked
    words, but the dense model rated it closest to "What happens when I insert a value that is
    already there?" (a question is close to a question), and it led the answer. The docs' own
    question sets up what follows it; one that holds the asked words still may lead (structlog's
    "How about dropping only log entries … ?")."""
    pool = [
        evidence(
            "/basic-usage.html#key-and-value-duplication",
            "Basic Usage",
            "Values Must Be Unique › Key and Value Duplication",
            BIDICT_DUPLICATION,
        )
    ]
    near = cosines({"What should happen next?": 0.8, "repeated insertions": 0.6}, rest=0.5)
    text = rendered(
        compose(query("What happens when I insert a value that is already there?"), pool, relevance=near)
    )
    assert not text.startswith("What should happen next?"), text
    assert "repeated insertions of the same item" in text.partition("\n")[0], text
    # Asked in the docs' own words, their question leads.
    text = rendered(compose(query("What should happen next after a duplicated key?"), pool, relevance=near))
    assert text.startswith("What should happen next?"), text


def test_a_bare_sentence_says_nothing_of_the_name_its_heading_holds():
    """rsyslog's "RainerScript format" section opens "General guidelines.": under a heading that
    names the asked "RainerScript" it counted as naming it, and led "What is RainerScript?" over
    the manual's definition. Two words and a full stop label what follows, as a field's name does;
    a label that states a value ("Default: `None`") still may lead, under the setting's heading."""
    pool = [
        evidence(
            "/proposals/language.html#rainerscript-format",
            "The language",
            "RainerScript format",
            "General guidelines.\n\nRainerScript is based on the legacy format. RainerScript keeps "
            "its statements. RainerScript allows comments. RainerScript needs no line ends.",
        ),
        evidence(
            "/rainerscript/#rainerscript",
            "RainerScript",
            "RainerScript",
            "RainerScript is a scripting language specifically designed for processing network events."
            "\n\nRainerScript may not be abbreviated as rscript.",
            score=1.0,
            index=1,
        ),
    ]
    near = cosines({"General guidelines.": 0.75, "is a scripting language": 0.7}, rest=0.5)
    text = rendered(compose(query("What is RainerScript?"), pool, relevance=near))
    assert text.startswith("RainerScript is a scripting language"), text
    assert _BARE_SENTENCE.search("General guidelines.") and not _BARE_SENTENCE.search("Default: `None`")


def test_a_plain_word_is_defined_where_a_section_headed_by_it_alone_opens():
    """bidict's "What is frozenbidict?": the name is a plain lowercase word, no identifier, so the
    section headed "frozenbidict" was not known as where it is defined; and its definition's
    subject is Sphinx's link to the API entry, a page read too, so the sentence weighed half as a
    pointer there. "`FrozenOrderedBidict` is an immutable ordered bidict type" (the next section, a
    sentence of the same shape) led. A section headed by the asked word alone opens with its
    definition, and a link that opens a sentence is its subject, not a pointer."""
    pool = [
        evidence(
            "/other-bidict-types.html#frozenbidict",
            "Other bidict Types",
            "Other bidict Types › frozenbidict",
            "[`frozenbidict`](/api.html#bidict.frozenbidict) is an immutable, hashable bidirectional "
            "mapping type.\n\nAs you would expect, attempting to mutate a `frozenbidict` causes an error.",
        ),
        evidence(
            "/other-bidict-types.html#frozenorderedbidict",
            "Other bidict Types",
            "Other bidict Types › FrozenOrderedBidict",
            "[`FrozenOrderedBidict`](/api.html#bidict.FrozenOrderedBidict) is an immutable ordered bidict "
            "type.\n\nIt's like a hashable `OrderedBidict` without the mutating APIs, or like a reversible "
            "`frozenbidict`.",
            score=0.93,
            index=1,
        ),
        evidence(
            "/api.html#bidict.frozenbidict.copy",
            "API",
            "bidict › bidict.frozenbidict › copy",
            "Make a (shallow) copy of this frozenbidict.\n\nThe copy is a frozenbidict too.",
            score=0.8,
            index=2,
        ),
    ]
    # As the dense model rates them: both definitions alike.
    near = cosines({"is an immutable ordered": 0.7, "immutable, hashable": 0.7}, rest=0.45)
    asked = query("What is frozenbidict?")
    text = rendered(compose(asked, pool, relevance=near))
    assert text.startswith("[`frozenbidict`](/api.html#bidict.frozenbidict) is an immutable, hashable"), text
    units = [u for i in range(len(pool)) for u in _units(i, pool[i])]
    assert [units[i].text[:16] for i in _summaries(asked, pool, units)] == ["[`frozenbidict`]"]
    pages = {e.page_url for e in pool}
    assert not _points_to_read(units[0], {"frozenbidict"}, pool[0], pages, "en")
    pointer = Unit(0, 1, "prose", "And read how to copy a [`frozenbidict`](/api.html#bidict.frozenbidict).")
    assert _points_to_read(pointer, {"frozenbidict"}, pool[0], pages, "en")


def test_the_asked_words_a_camel_case_name_is_made_of_are_held_by_its_heading():
    """django-model-utils' `TimeStampedModel` section answers "How do I add created and modified
    timestamps to a model?"; a FieldTracker note saying "`modified` timestamp" led, the only unit
    holding the asked word "timestamp" (two parts of the name joined: Time + Stamped)."""
    pool = [
        evidence(
            "/models.html#timestampedmodel",
            "Models",
            "Models › TimeStampedModel",
            "This abstract base class just provides self-updating `created` and `modified` fields on any "
            "model that inherits from it.",
        ),
        evidence(
            "/utilities.html#fieldtracker-implementation-details",
            "Miscellaneous Utilities",
            "Field Tracker › FieldTracker implementation details",
            "1. `Model.save` is called.\n"
            "3. `MyModel.save` changes `update_fields` in order to store auto updated `modified` timestamp. "
            "Complete list of saved fields is now known.",
            score=0.89,
            index=1,
        ),
    ]
    asked = query("How do I add created and modified timestamps to a model?")
    text = rendered(compose(asked, pool, relevance=overlap(asked.message)))
    assert text.startswith("This abstract base class"), text
    assert _camel_parts("en", "TimeStampedModel") == {"timestamp", "stampedmodel"}


def test_a_fields_name_announcing_a_list_is_not_read_before_the_item_that_answers():
    """polib's reference writes "Keyword argument:" above each method's argument, and Sphinx's
    nesting is flattened into one list: "How do I find untranslated entries?" was answered
    "Keyword argument:", then an argument of another method, then the method asked about."""
    pofile = (
        "- **`save_as_mofile`(fpath)**: Saves the binary representation of the file to given `fpath`.\n\n"
        "Keyword argument:\n\n"
        "- **`fpath`**: string, full or relative path to the mo file.\n"
        "- **`translated_entries`()**: Convenience method that returns the list of translated entries.\n"
        "- **`untranslated_entries`()**: Convenience method that returns the list of untranslated entries."
    )
    pool = [evidence("/api.html#the-pofile-class", "polib API", "polib API › The POFile class", pofile)]
    asked = query("How do I find untranslated entries?")
    text = rendered(compose(asked, pool, relevance=overlap(asked.message)))
    assert text.startswith("- **`untranslated_entries`()**"), text
    assert "Keyword argument" not in text and "`fpath`**" not in text, text


def test_an_item_of_a_list_of_references_points_elsewhere():
    """Flask-Limiter's appendix lists "References" ("- Redis rate limiting pattern #2", a link to
    another site): it held three asked words of "How do I store rate limit counters in Redis?"
    and led, above the storage backend section's `storage_uri="redis://..."`."""

    def answer(heading: str) -> str:
        pool = [
            evidence(
                "/misc.html#references",
                "Appendix",
                f"Appendix › {heading}",
                "- Redis rate limiting pattern #2\n- DomainTools redis rate limiter\n"
                "- limits: python rate limiting utilities",
            ),
            evidence(
                "/#configuring-a-storage-backend",
                "Flask-Limiter",
                "Flask-Limiter › Quick start › Configuring a storage backend",
                "**Redis**\n\nAny additional parameters provided in `storage_options` will be passed to "
                "`redis.Redis.from_url()` as keyword arguments.\n\n"
                '```python\nlimiter = Limiter(get_remote_address, storage_uri="redis://localhost:6379")\n```',
                score=0.93,
                index=1,
            ),
        ]
        weights = {"limit": 0.5, "rate": 1.0, "redi": 1.2, "store": 1.0, "counter": 2.0}  # as in its docs
        return rendered(compose(query("How do I store rate limit counters in Redis?"), pool, weights))

    assert answer("Patterns").startswith("- Redis rate limiting pattern #2"), answer("Patterns")
    for heading in ("References", "See also", "Further reading"):
        text = answer(heading)
        assert "storage_uri" in text.partition("From:")[0], text


def test_a_member_named_by_the_asked_words_answers_how_to_do_it():
    """pycurl's `CurlMulti.timeout` ("Returns how long to wait for action") led "How do I set a
    timeout?" on the one key term both sections hold; `curl.Curl.set_timeout` is named by the
    question's own words, "set" too (a word too common to search on alone)."""
    pool = [
        evidence(
            "/curlmultiobject.html#pycurl.CurlMulti.timeout",
            "CurlMulti Object",
            "CurlMulti Object › pycurl.CurlMulti › timeout",
            "timeout() → int\n\nReturns how long to wait for action before proceeding. Corresponds to "
            "curl_multi_timeout in libcurl.",
        ),
        evidence(
            "/curl.html#curl.Curl.set_timeout",
            "curl Module Functionality",
            "curl Module Functionality › curl.Curl › set_timeout",
            "set_timeout(timeout)\n\nSet timeout for a retrieving an object",
            score=0.9,
            index=1,
        ),
    ]
    asked = query("How do I set a timeout?")
    text = rendered(compose(asked, pool))
    assert text.startswith("Set timeout for a retrieving an object"), text
    assert _names_the_ask(asked, pool[1]) and not _names_the_ask(asked, pool[0])
    # The doing ("get" is a stop word) and the thing, all asked; not a name holding a word not
    # asked, nor one asked about without asking how to do something.
    code = evidence("/a#e", "A", "A › get_response_code", "x")
    assert _names_the_ask(query("How do I get the response code?"), code)
    assert not _names_the_ask(query("What is the response code?"), code)
    assert not _names_the_ask(query("How do I set a url?"), evidence("/a#e", "A", "A › set_base_url", "x"))


def test_a_sentence_on_how_earlier_versions_did_it_is_a_version_note():
    """The Apache manual's `Listen` section says "This is a change from previous versions of
    Apache httpd.": it held "Apache" and "change" and led "How do I change the port Apache
    listens on?" above the `Listen 80` example."""
    listen = (
        "The `Listen` directive is required. If it is not in the config file, the server will fail to "
        "start. This is a change from previous versions of Apache httpd.\n\n"
        "For example, to make the server accept connections on both port 80 and port 8000, use:\n\n"
        "```config\nListen 80\nListen 8000\n```"
    )
    pool = [
        evidence("/en/mod/mpm_common.html#listen", "Apache MPM Common Directives", "Listen Directive", listen)
    ]
    text = rendered(compose(query("How do I change the port Apache listens on?"), pool))
    assert not text.startswith("This is a change"), text
    assert "Listen 8000" in text
    assert _VERSION_NOTE.match("In earlier versions, the default was 5.")
    assert not _VERSION_NOTE.match("Previous versions are listed below.")


def test_a_fragment_that_only_names_the_attribute_asked_about_is_no_answer():
    """Logbook's reference documents `Handler.bubble` as "the bubble flag of this handler": every
    word of it asked in "What is a handler's bubble flag for?", and it led over the stacks page's
    "it has a flag (the `bubble` flag) which specifies if the next handler in the chain is
    supposed to get this record passed to"."""
    pool = [
        evidence(
            "/stacks.html#handlers",
            "Stacks in Logbook",
            "Stacks in Logbook › Handlers",
            "Each handler can decide if it wants to process the record, and then it has a flag (the "
            "[`bubble`](/api/handlers.html#logbook.Handler.bubble) flag) which specifies if the next handler "
            "in the chain is supposed to get this record passed to.\n\nIf a handler is bubbling it will give "
            "the record to the next handler, even if it was properly handled.",
        ),
        evidence(
            "/api/handlers.html#logbook.Handler.bubble",
            "Handlers",
            "Handlers › logbook.Handler › bubble",
            "the bubble flag of this handler",
            score=0.83,
            index=1,
        ),
    ]
    text = rendered(compose(query("What is a handler's bubble flag for?"), pool))
    assert text.startswith("Each handler can decide"), text
    # A fragment that says more than the question does stays an answer.
    assert not _restates(query("What is the bubble flag?"), "whether records bubble up to the next handler")
    assert _restates(query("What is the bubble flag?"), "the bubble flag")


def test_an_entrys_own_list_does_not_announce_the_entries_after_it():
    """django-allauth's settings are a definition list; ACCOUNT_FORMS's entry holds "Possible keys
    (and default values):" and a list of its own. Flattened, the next entry looked like an item of
    that list, and "How do I limit failed login attempts?" was answered with the form keys first."""
    settings = (
        "- **ACCOUNT_FORMS (={})**: Used to override forms, for example: "
        "`{'login': 'myapp.forms.LoginForm'}`\n\n"
        "Possible keys (and default values):\n\n"
        "- `add_email`: `allauth.account.forms.AddEmailForm`\n"
        "- `login`: `allauth.account.forms.LoginForm`\n"
        "- **ACCOUNT_LOGIN_ATTEMPTS_LIMIT (=5)**: Number of failed login attempts. When this number is "
        "exceeded, the user is prohibited from logging in for the specified `ACCOUNT_LOGIN_ATTEMPTS_TIMEOUT` "
        "seconds.\n"
        "- **ACCOUNT_LOGIN_ATTEMPTS_TIMEOUT (=300)**: Time period, in seconds, from last unsuccessful login "
        "attempt, during which the user is prohibited from trying to log in."
    )
    pool = [evidence("/configuration.html", "Configuration", "Configuration", settings)]
    text = rendered(compose(query("How do I limit failed login attempts?"), pool))
    assert text.startswith("- **ACCOUNT_LOGIN_ATTEMPTS_LIMIT (=5)**"), text
    assert "Possible keys" not in text and "`add_email`" not in text, text
    # A list whose items open differently (a code span, bold) is still one list under its intro.
    codes = (
        "In short:\n\n"
        "- `100 - 199` are for information. You rarely use them directly.\n"
        "- **200 - 299** are for successful responses. These are the ones you would use the most."
    )
    pool = [evidence("/tutorial/status/", "Status Code", "Status Code › About HTTP status codes", codes)]
    text = rendered(compose(query("Which status codes are for successful responses?"), pool))
    assert text.startswith("In short:"), text


def test_an_obsolete_section_answers_after_the_current_one():
    """Autoconf documents `AC_INIT`'s old one-argument form under "Obsolete Macros": it led "What
    does AC_INIT do?" above the macro's own entry. Asked about the obsolete form, it answers."""
    pool = [
        evidence(
            "/#Obsolete-Macros",
            "Autoconf",
            "18 Obsolete Constructs › 18.4 Obsolete Macros",
            "- **Macro: AC_INIT (unique-file-in-source-dir)**: Formerly `AC_INIT` used to have a single "
            "argument, and was equivalent to `AC_INIT` followed by `AC_CONFIG_SRCDIR`.",
        ),
        evidence(
            "/#Initializing-configure",
            "Autoconf",
            "4 Initialization and Output Files › 4.1 Initializing configure",
            "- **Macro: AC_INIT (package, version, [bug-report], [tarname], [url])**: Process any "
            "command-line arguments and perform initialization and verification. Set the name of the "
            "package and its version.",
            score=0.95,
            index=1,
        ),
    ]
    composition = compose(query("What does AC_INIT do?"), pool)
    assert composition.cited[0].url == "/#Initializing-configure", rendered(composition)
    composition = compose(query("What did the obsolete one-argument AC_INIT do?"), pool)
    assert composition.cited[0].url == "/#Obsolete-Macros", rendered(composition)


def test_asked_an_amount_the_sentence_after_a_lead_that_names_none_joins_it():
    # terminaltables' padding setting says what it is, then its default in a sentence of its own:
    # "How many spaces of padding does a cell get?" led with the first and was refused as naming
    # no number (`gives_no_amount`), the "Default is **1**." quoted below it.
    padding = (
        "Table.padding_left\n\nNumber of spaces to pad on the left side of every cell. Default is **1**. "
        "Padding adds spacing between the cell text and the column border."
    )
    pool = [evidence("/settings.html#Table.padding_left", "Settings", "Table.padding_left", padding)]
    close = cosines({"Number of spaces to pad": 0.7}, rest=0.4)
    amount = compose(query("How many spaces of padding does a cell get on each side?"), pool, relevance=close)
    assert amount.parts[0].text == (
        "Number of spaces to pad on the left side of every cell. Default is **1**."
    ), rendered(amount)
    assert not gives_no_amount(query("How many spaces of padding does a cell get on each side?"), amount)
    # Not asked an amount, the lead stands alone.
    what = compose(query("What does padding on the left side of a cell do?"), pool, relevance=close)
    assert what.parts[0].text == "Number of spaces to pad on the left side of every cell.", rendered(what)


def test_a_paragraph_all_in_bold_is_a_heading_set_as_text_not_an_answer():
    # Ruffus sets its examples' titles as bold paragraphs: "**Example @transform with suffix(…)**"
    # led "What is the difference between add_inputs() and inputs()?" on its one asked word (and
    # a close embedding); the sentences under it answer. A bold sentence that ends in a colon
    # announces what follows it and stays as it was.
    transform = (
        "**Example @transform with suffix(…)**\n\n"
        "`add_inputs(…)` nests the original input parameters in a list before adding more. "
        "`inputs(…)` replaces the original input parameters wholesale."
    )
    pool = [evidence("/decorators/transform.html#transform", "transform", "@transform", transform)]
    close = cosines({"**Example @transform": 0.75}, rest=0.6)
    ask = query("What is the difference between add_inputs() and inputs() when used in @transform?")
    composition = compose(ask, pool, relevance=close)
    assert composition.parts[0].text.startswith("`add_inputs(…)` nests"), rendered(composition)
    assert _BOLD_LABEL.fullmatch("**Powershell**")
    assert not _BOLD_LABEL.fullmatch("**The following changes are also included**:")
    assert not _BOLD_LABEL.fullmatch("**Example:**")


def test_the_short_sentence_after_announced_code_says_what_it_showed():
    # GeoAlchemy's tutorial announces an error, shows it, then answers in one sentence: "Running
    # InitSpatialMetaData again gives an error — is that a problem?" quoted the error and not
    # "You can safely ignore that error." A longer paragraph after the code is left out.
    tutorial = (
        "One additional step is required for using SpatiaLite: create the `geometry_columns` and "
        "`spatial_ref_sys` metadata tables. This is done by calling the `InitSpatialMetaData` function "
        "through the connection, which the engine opened for us in the previous step of this tutorial.\n\n"
        "```\n>>> conn.execute(select([func.InitSpatialMetaData()]))\n```\n\n"
        "Note that this operation may take some time the first time it is executed for a database. "
        "When `InitSpatialMetaData` is executed again it will report an error:\n\n"
        '```\nInitSpatialMetaData() error:"table spatial_ref_sys already exists"\n```\n\n'
        "You can safely ignore that error.\n\n"
        "Before going further we can close the current connection, and open it again later when the "
        "mapping is declared, since every later step of this tutorial works on its own connection "
        "and the metadata tables stay in the database file between runs of the program."
    )
    pool = [evidence("/spatialite.html#connect", "SpatiaLite Tutorial", "Connect to the DB", tutorial)]
    close = cosines({"executed again it will report": 0.8}, rest=0.4)
    ask = query('Running InitSpatialMetaData again gives "table spatial_ref_sys already exists", a problem?')
    text = rendered(compose(ask, pool, relevance=close))
    assert text.startswith("When `InitSpatialMetaData` is executed again"), text
    assert "You can safely ignore that error." in text, text
    assert "Before going further" not in text, text


def test_a_digit_inside_a_name_is_no_number_given():
    # "Which Python version does cmd2 need?" was answered with "The latest version of `cmd2` can be
    # installed directly from the master branch": the 2 of `cmd2` counted as the version asked.
    source = evidence("/install.html#github", "Installation", "Install from GitHub", "…")
    named = Composition(
        [Part("lead", "The latest version of `cmd2` can be installed from GitHub.")], [source]
    )
    assert gives_no_amount(query("Which Python version does cmd2 need?"), named)
    given = Composition([Part("lead", "cmd2 requires Python 3.7 or newer.")], [source])
    assert not gives_no_amount(query("Which Python version does cmd2 need?"), given)
    # The lead that joins the number after it reads numbers the same way.
    streams = (
        "The `h2` setting caps the streams of one connection. Default is **100**. Raise it for busy hosts."
    )
    pool = [evidence("/settings.html#h2", "Settings", "h2", streams)]
    close = cosines({"caps the streams": 0.7}, rest=0.4)
    amount = compose(query("How many streams can one connection open?"), pool, relevance=close)
    assert amount.parts[0].text.endswith("Default is **100**."), rendered(amount)


def test_a_count_written_out_is_a_number_given():
    # Betamax's "Betamax, like VCR, has four modes that it can use to record cassettes:" answers
    # "How many record modes does Betamax have?": it was refused as naming no number.
    source = evidence("/record_modes.html#record-modes", "Record Modes", "Record Modes", "…")
    four = Composition(
        [Part("lead", "Betamax, like VCR, has four modes that it can use to record cassettes:")], [source]
    )
    assert not gives_no_amount(query("How many record modes does Betamax have?"), four)
    cuatro = Composition([Part("lead", "Betamax tiene cuatro modos de grabación.")], [source])
    assert not gives_no_amount(query("¿Cuántos modos de grabación tiene Betamax?", "es"), cuatro)
    # "one" is a pronoun as often as a count; the words are each language's own ("once": eleven
    # in Spanish, not in English).
    one = Composition([Part("lead", "You can only ever use one record mode at once.")], [source])
    assert gives_no_amount(query("How many record modes does Betamax have?"), one)


def test_asked_an_amount_a_name_with_a_digit_does_not_lead():
    # py7zr's "What is the maximum line length allowed by py7zr's code style?" led with "The
    # py7zr uses the PEP8 code style." (the 8 of PEP8 read as a number) and was refused as naming
    # none; the list item below it gives 125.
    style = (
        "The py7zr uses the PEP8 code style. In addition to the standard PEP8, we have an extended "
        "guidelines\n\n- line length should not exceed 125 charactors.\n- It also use MyPy static type "
        "check enforcement."
    )
    pool = [evidence("/contribution.html#code-style", "Contributor guide", "Code style", style)]
    close = cosines({"PEP8 code style": 0.7, "line length": 0.68}, rest=0.5)
    ask = query("What is the maximum line length allowed by py7zr's code style for contributors?")
    composition = compose(ask, pool, relevance=close)
    assert composition.parts[0].text == "- line length should not exceed 125 charactors.", rendered(
        composition
    )
    assert not gives_no_amount(ask, composition)


def test_asked_a_value_the_unit_that_states_it_is_read_past_the_budget():
    # flufl.lock's `Lock` entry gives the default lifetime in its 21st unit, a parameter's item,
    # after four sections already read: past MAX_UNITS it was never read, "How long is the default
    # lifetime of a Lock if I don't specify one?" led with the class's signature and was refused.
    filler = [
        evidence(
            f"/using.html#part-{i}",
            "Using flufl.lock",
            f"Part {i}",
            " ".join(f"Sentence {j} about how a lock file is shared between processes." for j in range(14)),
            score=1.0 - i / 10,
            index=i,
        )
        for i in range(4)
    ]
    entry = (
        "class flufl.lock.Lock(lockfile, lifetime=None, separator='|')\n\n"
        + " ".join(f"Remark {j} on how the lock file is claimed." for j in range(18))
        + "\n\nParameters\n\n- **lockfile** (`str`) – The full path to the lock file.\n"
        "- **lifetime** (`int`) – The expected maximum lifetime of the lock in seconds. "
        "Defaults to 15 seconds."
    )
    pool = [
        *filler,
        evidence("/apiref.html#flufl.lock.Lock", "API Reference", "flufl.lock.Lock", entry, 0.5, 4),
    ]
    assert sum(len(_units(i, e)) for i, e in enumerate(pool)) > MAX_UNITS
    ask = query("How long is the default lifetime of a flufl.lock Lock if I don't specify one?")
    composition = compose(ask, pool, relevance=cosines({}, rest=0.5))
    assert "Defaults to 15 seconds." in composition.parts[0].text, rendered(composition)
    assert not gives_no_amount(ask, composition)
    # Not asked a value, the budget stays as it was: nothing past it is read.
    what = compose(query("What is a lock file lifetime?"), pool, relevance=cosines({}, rest=0.5))
    assert "Defaults to 15 seconds." not in rendered(what)


def test_asked_a_default_the_sentence_that_states_it_leads_over_more_asked_words():
    # Betamax's "Which record mode does Betamax use if I don't specify one?" led with "A different
    # way would be to update the recording mode used by Betamax." (more of the asked words, a
    # closer section) over the sentence that states the default, two sections down.
    pool = [
        evidence(
            "/long_term_usage.html#option-2",
            "Long Term Usage Patterns",
            "Option 2: Changing the Record Mode",
            "A different way would be to update the recording mode used by Betamax. We want to use the "
            "`record` parameter to tell Betamax to use either the `new_episodes` or `all` modes.",
        ),
        evidence(
            "/record_modes.html#once",
            "Record Modes",
            "Once",
            "The `'once'` record mode will record new interactions if there is no cassette file. "
            "`'once'` is the default record mode, used when you do not set one.",
            score=0.3,
            index=1,
        ),
    ]
    ask = query("Which record mode does Betamax use if I don't specify one?")
    composition = compose(ask, pool, relevance=cosines({}, rest=0.6))
    assert composition.parts[0].text.startswith("`'once'` is the default record mode"), rendered(composition)
    # A lead that announces a list whose item states the default states it too (pydantic's "The
    # configuration can take three values:" over "- `'ignore'`: … (the default)."); a lead whose
    # list says none does not.
    values = (
        "The configuration can take three values:\n\n"
        "- `'ignore'`: Providing extra data is ignored (the default).\n"
        "- `'forbid'`: Providing extra data is not permitted.\n\n"
        "Modes are read from:\n\n- the class\n- its parents"
    )
    pool = [evidence("/concepts/models.html#extra-data", "Models", "Extra data", values)]
    units = _units(0, pool[0])
    said = dict(zip((u.text for u in units), _states_default(units, pool), strict=True))
    assert said["The configuration can take three values:"], said
    assert not said["Modes are read from:"], said


def test_asked_the_default_of_a_measure_a_number_answers():
    # parfive's "What is parfive's default sock_read timeout?" led with the environment variable
    # that "Overrides the default aiohttp `sock_read` timeout value" (the asked name and the word
    # "default", no number) over the sentence that gives 90 seconds.
    pool = [
        evidence(
            "/#environment-variables",
            "Parfive",
            "Environment Variables",
            "- `PARFIVE_SOCK_READ_TIMEOUT` - Overrides the default aiohttp `sock_read` timeout value "
            "(unless set in Python).",
        ),
        evidence(
            "/api/parfive.SessionConfig.html#timeouts",
            "SessionConfig",
            "parfive.SessionConfig › timeouts",
            "The `aiohttp.ClientTimeout` object to control the timeouts used for all HTTP requests. By "
            "default the `total` timeout is set to `0` (never timeout) and the `sock_read` timeout is set "
            "to `90` seconds.",
            score=0.7,
            index=1,
        ),
    ]
    ask = query("What is parfive's default sock_read timeout?")
    composition = compose(ask, pool, relevance=cosines({}, rest=0.6))
    assert "`90` seconds" in composition.parts[0].text, rendered(composition)
    assert asks_amount("What is the default port?") and asks_amount("¿Cuál es el puerto por defecto?")
    assert not asks_amount("What is the default serializer?")


def test_asked_an_amount_a_parameters_item_may_state_it():
    # "How long ..." reads as a how-to (its "how"), where a parameter's item weighs half unless
    # named: flufl.lock's "- **lifetime** (…) – … Defaults to 15 seconds." lost to the sentence
    # that only says what a lifetime is, and the answer led with the class's signature.
    entry = (
        "class flufl.lock.Lock(lockfile, lifetime=None, separator='|')\n\n"
        "Locks have a `lifetime`, which is the maximum length of time the process expects to retain "
        "the lock. An optional lifetime is the length of time that the process expects to hold the "
        "lock.\n\nParameters\n\n- **lockfile** (`str`) – The full path to the lock file.\n"
        "- **lifetime** (`int`) – The expected maximum lifetime of the lock in seconds. "
        "Defaults to 15 seconds."
    )
    pool = [evidence("/apiref.html#flufl.lock.Lock", "API Reference", "flufl.lock.Lock", entry)]
    ask = query("How long is the default lifetime of a flufl.lock Lock if I don't specify one?")
    close = cosines({"An optional lifetime": 0.7, "Locks have a": 0.68}, rest=0.55)
    composition = compose(ask, pool, relevance=close)
    assert composition.parts[0].text.startswith("- **lifetime**"), rendered(composition)


def test_a_method_called_on_the_readers_object_is_said_by_its_name_alone():
    # Betamax's "What happens if I call interaction.ignore() inside a before_record hook?" led
    # with the hooks' introduction (it says `before_record`) over the sentence that says what
    # `ignore()` does: the reader's `interaction.` is their own variable, the docs write the
    # method alone.
    filtering = (
        "In the event that you can not anticipate what you will need to filter out, version 0.7.0 "
        "of Betamax adds `before_record` and `before_playback` hooks. These two hooks both will pass "
        "the Interaction and Cassette to the function provided.\n\n"
        "```python\ndef hook(interaction, cassette):\n    pass\n```\n\n"
        "You can register callbacks with `config.before_record(callback=hook)`. The callbacks run in "
        "the order they were registered.\n\n"
        "If you wish to ignore an interaction and prevent it from being recorded or replayed, you "
        "can call the `ignore()`."
    )
    entry = (
        "before_record(tag=None, callback=None)\n\nRegister a function to call before recording an "
        "interaction. The callback either accepts just an interaction or an interaction and a "
        "cassette and mutates the interaction before it is saved."
    )
    pool = [
        evidence("/configuring.html#filtering", "Configuring Betamax", "Filtering Sensitive Data", filtering),
        evidence("/api.html#before_record", "API", "Configuration › before_record", entry, 0.9, 1),
    ]
    ask = query("What happens if I call interaction.ignore() inside a before_record hook in Betamax?")
    units = [u for k, e in enumerate(pool) for u in _units(k, e)]
    terms = [_terms("en", u.text) for u in units]
    _score(ask, pool, units, terms, {}, lambda texts: [0.6] * len(texts))
    score = {u.text: u.score for u in units}
    ignore = next(t for t in score if t.startswith("If you wish to ignore"))
    register = next(t for t in score if t.startswith("Register a function"))
    assert score[ignore] > score[register], score
    says = _call_mentions(ask)
    assert says("you can call the `ignore()`.", "interaction.ignore")
    assert not says("interactions are ignored", "interaction.ignore")


def test_asked_a_default_the_signature_that_gives_it_leads():
    # Bleak's "What is the default timeout of BleakScanner.discover()?" was answered with the
    # parameter's description, "**timeout** – Time, in seconds, to scan for.", and never said the
    # 5.0 its signature gives.
    discover = (
        "async classmethod BleakScanner.discover(timeout: float = 5.0, *, return_adv: Literal[False] = "
        "False, **kwargs) → List[[BLEDevice](/api/device.html#BLEDevice)]\n\n"
        "Scan continuously for `timeout` seconds and return discovered devices.\n\n"
        "Parameters:\n\n"
        "- **timeout** – Time, in seconds, to scan for.\n"
        "- **return_adv** – If `True`, the return value will include advertising data."
    )
    pool = [evidence("/api/scanner.html#discover", "BleakScanner class", "BleakScanner.discover", discover)]
    close = cosines({"- **timeout**": 0.8}, rest=0.4)
    ask = query("What is the default timeout of BleakScanner.discover()?")
    composition = compose(ask, pool, relevance=close)
    lead = composition.parts[0].text
    assert lead.startswith("async classmethod BleakScanner.discover(timeout: float = 5.0"), lead
    assert "Time, in seconds, to scan for." in rendered(composition)  # still quoted, below it
    # Not asked a default, the description answers.
    what = compose(query("What does the timeout of BleakScanner.discover() mean?"), pool, relevance=close)
    assert what.parts[0].text == "- **timeout** – Time, in seconds, to scan for.", rendered(what)
    # Asked the default of a parameter the signature gives none, the description still leads.
    other = compose(query("What is the default scanning_mode of discover()?"), pool, relevance=close)
    assert other.parts[0].text.startswith("- **timeout**"), rendered(other)


def test_the_defaults_a_signature_gives():
    assert signature_defaults(
        "create_connection(protocol_factory, host, port, \\*, resolve=False, ssl=None, timeout=30.0)"
    ) == {"resolve", "ssl", "timeout"}
    assert signature_defaults("f(a: Dict[str, int] = {}, b=(1, 2), c, **kwargs) → int") == {"a", "b"}
    assert signature_defaults("class Cache(size=10") == set()  # never closed: not read
    assert signature_defaults("Cache.clear()") == set()


def test_a_version_named_by_a_code_or_in_the_list_a_lead_announces_is_given():
    # ezdxf's "Which DXF version ... does ezdxf.new() use?" was refused as naming no version: the
    # lead announced the table of versions ("AC1027 — AutoCAD R2013"), and neither a code with its
    # number inside nor an announced list counted.
    source = evidence("/drawing/management.html#ezdxf.new", "Document Management", "ezdxf.new", "…")
    ask = query("Which DXF versions can ezdxf.new() create?")
    announced = Composition(
        [
            Part("lead", "`new()` can create drawings for following DXF versions:"),
            Part("support", "> - AC1009 — AutoCAD Release: AutoCAD R12\n> - AC1027 — AutoCAD Release: R2013"),
        ],
        [source],
    )
    assert not gives_no_amount(ask, announced)
    unannounced = Composition(
        [Part("lead", "`new()` creates drawings."), Part("support", "> - AC1009 — AutoCAD R12")], [source]
    )
    assert gives_no_amount(ask, unannounced)
    coded = Composition([Part("lead", "The default is AC1027, the version of AutoCAD R2013.")], [source])
    assert not gives_no_amount(ask, coded)
    # A code is no amount: "How many" still needs a number of its own.
    assert gives_no_amount(query("How many layers can a DXF R12 drawing hold?"), coded)


def test_asked_what_holds_when_nothing_is_set_is_asked_a_default():
    # GeoAlchemy's "If I don't give a Geometry column an SRID, what value does it get?" was answered
    # with Find_SRID ("Returns the SRID defined for a geometry column."), not "Default is `-1`."
    pool = [
        evidence(
            "/functions.html#Find_SRID",
            "Spatial Functions",
            "Find_SRID",
            "Returns the SRID defined for a geometry column.\n\nSee the PostGIS reference.",
        ),
        evidence(
            "/types.html#Geometry",
            "Types",
            "Geometry",
            "Parameters:\n\n- **geometry_type** – The geometry type.\n"
            "- **srid** – The SRID for this column. E.g. 4326. Default is `-1`.",
            0.8,
            1,
        ),
    ]
    close = cosines({"Returns the SRID": 0.8, "- **srid**": 0.7}, rest=0.4)
    ask = query("If I don't give a Geometry column an SRID, what value does it get?")
    text = rendered(compose(ask, pool, relevance=close))
    assert text.startswith("- **srid** – The SRID for this column. E.g. 4326. Default is `-1`."), text
    for asked in (
        "What network timeout does MPDClient use if I don't set one?",
        "If I call initialize() without arguments, which state does the machine start in?",
        "How many spaces of padding does a cell get if you don't change anything?",
        # Whether it does, when nothing is set: aiosmtplib's "unencrypted connections are the
        # default if no options are specified" answers it.
        "If I do not pass any security-related options, will my connection to the server be encrypted?",
        "Does it retry failed requests if I don't configure anything?",
    ):
        assert _ASKS_DEFAULT.search(asked), asked
    for other in (
        "How do I run it without arguments?",
        "How do I make it work if I don't set a key?",
        "Is there a way to run it without arguments?",
    ):
        assert not _ASKS_DEFAULT.search(other), other


def test_asked_which_versions_of_a_platform_are_supported_the_platform_is_named():
    # "Which Ubuntu versions does Tallyfox support?" led with "This documentation describes
    # Tallyfox 3.2.": a version, but of the product, not of Ubuntu.
    assert platform_asked("Which Ubuntu versions does Tallyfox support?") == "ubuntu"
    assert platform_asked("What Django versions is django-csp compatible with?") == "django"
    assert platform_asked("Which Tornado version dropped support for Python 2.7?") is None  # a release
    assert platform_asked("Which version of the API should I use?") is None
    pool = [
        evidence(
            "/#editions", "Tallyfox documentation", "Editions", "This documentation describes Tallyfox 3.2."
        ),
        evidence(
            "/install/#system-requirements",
            "Install",
            "System requirements",
            "Supported operating systems for the server:\n\n- Ubuntu 22.04 LTS and 24.04 LTS\n- Debian 12",
            0.9,
            1,
        ),
    ]
    close = cosines({"This documentation": 0.8}, rest=0.3)
    ask = query("Which Ubuntu versions does Tallyfox support?")
    telling = {"ubuntu": 1.6, "version": 0.4}
    composition = compose(ask, pool, telling, relevance=close)
    assert composition.cited[0].url == "/install/#system-requirements", rendered(composition)
    assert "Ubuntu 22.04 LTS" in rendered(composition).split("From: ")[0], rendered(composition)
    # An answer that never names Ubuntu gives none of its versions, whatever number it names.
    product = Composition([Part("lead", "This documentation describes Tallyfox 3.2.")], pool[:1])
    assert gives_no_amount(ask, product, telling)
    assert not gives_no_amount(ask, composition, telling)
    # A name most of the docs use is the product or the docs' subject: no more than a version asked.
    assert not gives_no_amount(ask, product, {"ubuntu": 0.3, "version": 0.4})


def test_a_number_the_question_states_is_no_answer_to_it():
    # django-csp's "Which Django versions are supported by django-csp 3.7?" (the docs do not say)
    # was answered "3.7", the release number of its own page title, and not refused.
    source = evidence("/#django-csp", "django-csp", "django-csp", "…")
    ask = query("Which Django versions are supported by django-csp 3.7?")
    assert gives_no_amount(ask, Composition([Part("lead", "3.7")], [source]))
    given = Composition([Part("lead", "django-csp 3.7 supports Django 3.2 and 4.0.")], [source])
    assert not gives_no_amount(ask, given)
    # An amount asked: the reader's own count is no answer either.
    limit = query("How many hosts can one server watch if each sends 10 samples a second?")
    assert gives_no_amount(
        limit, Composition([Part("lead", "Each host sends 10 samples a second.")], [source])
    )


def test_asked_how_to_install_the_command_that_installs_it_leads():
    # jira's "How do I install the jirashell command-line tool?" was answered with "Run it from the
    # command line" and `jirashell -s …`: how to run what the install gives, not how to install it.
    shell = (
        "The `jirashell` script (installed automatically when you use pip) lets you explore Jira.\n\n"
        "```bash\npip install jira[cli]\n```\n\n"
        "Run it from the command line\n\n"
        "```bash\njirashell -s https://jira.atlassian.com\n```"
    )
    pool = [evidence("/jirashell.html#jirashell", "jirashell", "jirashell", shell)]
    close = cosines({"Run it from": 0.64, "pip install": 0.6, "jirashell -s": 0.45}, rest=0.45)
    weights = {"instal": 0.89, "command": 1.11, "jirashel": 0.89, "line": 1.11}
    ask = query("How do I install the jirashell command-line tool?")
    text = rendered(compose(ask, pool, weights, relevance=close))
    assert text.startswith("```bash\npip install jira[cli]\n```"), text
    # Asked how to run it, the install command does not lead.
    run = rendered(
        compose(query("How do I start the jirashell command-line tool?"), pool, weights, relevance=close)
    )
    assert not run.startswith("```bash\npip install"), run
