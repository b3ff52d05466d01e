"""The answer pipeline on the example site, in-process: what a new reader asks, and what comes back.

These are the questions a new user tried (and the examples in the README):
each must be answered with the one thing asked, from the right section, or
refused when the docs are silent.
"""

from __future__ import annotations

import pytest
from askdocs.edge_runtime.answer import (
    _PRODUCT_NAME,
    SECTIONS_PER_PAGE,
    AnswerSettings,
    Docs,
    answer,
    code_name_read,
    platform_version_read,
    spread,
)
from askdocs.edge_runtime.conversation import ChatRequest, Turn
from askdocs.edge_runtime.corpus import ChunkRef
from askdocs.edge_runtime.evidence import Evidence, example_numbers
from askdocs.edge_runtime.extractive import _ASKS_AMOUNT
from askdocs.edge_runtime.query import key_terms


@pytest.fixture(scope="module")
def docs(example_corpus, public_scope) -> Docs:
    _, embedder = example_corpus
    return Docs(public_scope, embedder)


def ask(docs: Docs, message: str, locale: str | None = "en", history=()):
    return answer(docs, ChatRequest(message, locale, tuple(history), None), AnswerSettings())


def lead(result) -> str:
    return next(p.text for p in result.parts if p.kind == "lead")


def cited(result) -> list[str]:
    return [c["url"] for c in result.citations]


def test_asked_where_something_is_stored_the_thing_is_what_is_asked(docs):
    """ "Where are backups stored?" led with the data directory's row ("Where samples, tokens and
    settings are stored."): "stored" was the rarer of its two words there, and "backups" filled the
    backup guide. Asked where a thing is stored, kept or located, the verb says only "where"."""
    assert key_terms("en", "Where are backups stored?") == {"backup"}
    assert key_terms("en", "How are backups stored?") == {"backup", "store"}
    assert key_terms("es", "¿Dónde se guardan las copias?") == {"copi"}
    result = ask(docs, "Where are backups stored?")
    assert cited(result)[0].startswith("/guides/backups/"), result.text
    assert "storage.data_dir" not in result.text and "/srv/backups/" in result.text, result.text


def test_a_number_the_reader_counts_with_does_not_pick_the_answer(docs):
    """Asked "How do I scale to 1000 hosts?", "1000" was read as a name, like an error code, and the
    answer led with the one row whose default is 1000 (`agent.max_batch`, samples per batch): right
    number, nothing to do with hosts."""
    result = ask(docs, "How do I scale to 1000 hosts?")
    assert "max_batch" not in lead(result) and "max-batch" not in lead(result), result.text


def test_telemetry_question_gets_the_faq_answer_whole(docs):
    result = ask(docs, "Does Tallyfox send any telemetry back to Kestrel?")
    assert result.answered, result.text
    assert cited(result)[0].startswith("/faq/#does-tallyfox-send-any-data-to-kestrel"), cited(result)
    # A short FAQ answer was written as the answer: quoted whole, not one of its sentences.
    assert "license check" in lead(result) and "No metrics" in lead(result), result.text
    assert "support" not in " ".join(cited(result))


def test_an_idiom_neither_retriever_knows_is_not_answered_with_the_contact_page(docs):
    # "phone home" shares no word with the FAQ and neither embedding model links it to "send
    # data" (both rank the contact and pricing pages first, on "phone"): the honest outcome
    # is the FAQ answer or a refusal that says what was checked, never the support contacts.
    result = ask(docs, "Does the product phone home?")
    if result.answered:
        assert cited(result)[0].startswith("/faq/#does-tallyfox-send-any-data-to-kestrel"), result.text
    else:
        assert result.text.startswith("I couldn't confirm this in the documentation. I checked")
        assert result.citations == []
        if result.confidence >= AnswerSettings().min_confidence:  # retrieval was confident
            assert result.extra["refused_because"] == "contact_page", result.extra


def test_half_the_question_on_the_support_page_is_not_an_answer(docs):
    """ "What happens when my license expires?" (the docs say nothing of it) was answered with the
    portal's sign-in step, "the email address on your license": one of its two words."""
    result = ask(docs, "What happens when my license expires?")
    assert not result.answered and result.extra.get("refused_because") == "contact_page", result.text


def test_the_support_page_still_answers_how_to_reach_support(docs):
    result = ask(docs, "How do I contact support, and what are the support hours?")
    assert result.answered, result.text
    assert cited(result)[0].startswith("/support/"), cited(result)
    assert "refused_because" not in result.extra


def test_register_a_webhook_endpoint(docs):
    result = ask(docs, "How do I register a webhook endpoint?")
    assert result.answered
    assert cited(result)[0] == "/guides/webhooks/#register-an-endpoint", cited(result)
    assert "tallyfox webhook add" in result.text
    # The registration section answers; the same page's proxy section may complete it (its
    # "Webhook endpoints must use HTTPS", "Plain http:// URLs are refused when you register
    # them"), never lead it.
    first = result.text.split("From: ")[0]
    assert "proxy" not in first.lower(), result.text


def test_spanish_windows_install_without_a_locale(docs):
    result = ask(docs, "¿Cómo instalo Tallyfox en Windows?", locale=None)
    assert result.answered
    assert result.extra.get("locale") == "es"
    assert cited(result)[0].startswith("/es/install/#instalacion-en-windows"), cited(result)
    assert "winget install" in result.text or "msiexec" in result.text, result.text


def test_two_facts_from_the_pricing_page(docs):
    result = ask(docs, "Which plan do I need for SAML and what does a seat cost?")
    assert result.answered
    assert any(c.startswith("/pricing/") for c in cited(result))
    assert "Business" in result.text
    assert "USD 29" in result.text


def test_one_table_row_not_the_whole_table(docs):
    result = ask(docs, "How much memory does the machine hosting the server need at the very least?")
    assert result.answered
    assert cited(result)[0].startswith("/install/"), cited(result)
    assert "2 GB" in lead(result), result.text
    assert "Disk" not in lead(result)


@pytest.mark.parametrize(
    "question",
    [
        "Do you support Kubernetes operators for quantum annealing?",
        "Is there support for exporting dashboards to Excel pivot tables?",
    ],
)
def test_framing_words_are_not_evidence(docs, question):
    result = ask(docs, question)
    assert not result.answered, result.text
    assert result.escalation is not None


@pytest.mark.parametrize(
    "message,locale",
    [
        ("?", "en"),
        ("what?", "en"),
        ("Why?", "en"),
        ("the", "en"),
        ("I need help", "en"),
        ("...", "es"),
        ("hi", "en"),
        ("Thanks!", "en"),
        ("ok", "en"),
        ("Hola, gracias", "es"),
    ],
)
def test_a_message_without_a_key_term_or_a_name_is_not_answered(docs, message, locale):
    result = ask(docs, message, locale=locale)
    assert not result.answered and result.citations == [], result.text
    assert result.extra["refused_because"] == "no_question"
    assert result.checked == []  # nothing was searched: whatever a search found would be chance
    assert result.text.startswith(
        "¿Qué le gustaría saber?" if locale == "es" else "What would you like to know?"
    )


@pytest.mark.parametrize("message", ["Is it free?", "What is Tallyfox?", "TFX-1042?", "Is SAML supported?"])
def test_one_key_term_or_one_name_is_a_question(docs, message):
    result = ask(docs, message)
    assert result.extra.get("refused_because") != "no_question", result.text


def test_another_is_no_subject_but_a_quoted_message_is_its_own_words():
    """ "another" says which one, not what about (doit's "My task's input comes from another task's
    output" matched the page on tasks, not on `result_dep`; arrow's "humanize a time in another
    language" led with "Or another Arrow, or datetime:"); inside quotes the words are the
    message's own ("Cannot run the event loop while another loop is running")."""
    assert "anoth" not in key_terms("en", "How do I humanize a time in another language?")
    quoted = 'Why do I get "RuntimeError: Cannot run the event loop while another loop is running"?'
    assert {"anoth", "loop", "runtimeerror"} <= key_terms("en", quoted)
    assert "find" in key_terms("en", "What does `find` return?")


def test_the_thing_a_passive_question_asks_about_is_not_its_frame(docs):
    """ "Is SAML supported?": "supported" frames the question, "SAML" is what it asks about (it went
    with the frame, and the reader was asked what they wanted to know)."""
    assert key_terms("en", "Is SAML supported?") == {"saml"}
    assert key_terms("en", "Is single sign-on supported?") == key_terms("en", "single sign-on")
    assert key_terms("en", "Does Tallyfox support SAML?") == {"saml"}
    assert key_terms("en", "Is it supported?") == frozenset()
    result = ask(docs, "Is SAML supported?")
    assert result.answered and result.citations[0]["url"].startswith("/guides/sso/"), result.text


def test_how_long_and_how_often_frame_a_question_of_duration_or_frequency():
    """Flask-Session's "How do I configure how long a session lasts?" counted "long" as a word the
    docs lack: "how long" and "how often" ask for a duration or a frequency, as "how many" asks
    for a number; "long" and "often" elsewhere are what is asked about."""
    assert key_terms("en", "How do I configure how long a session lasts?") == {"configur", "session", "last"}
    assert key_terms("en", "How often is the token refreshed?") == {"token", "refresh"}
    assert "long" in key_terms("en", "How do I enable long polling?")
    # "together" says that things are combined, not which: fsspec's "How do I chain filesystems
    # together?" was refused at 0.40 with "URL chaining" read, the word counted as one it lacks.
    assert key_terms("en", "How do I chain filesystems together?") == {"chain", "filesystem"}


@pytest.mark.parametrize(
    "message,hint",
    [
        (
            "Comment installer Tallyfox sur Windows ?",
            "The documentation is written in English and Spanish: ask in one of them",
        ),
        (
            "Wie installiere ich Tallyfox unter Windows?",
            "The documentation is written in English and Spanish: ask in one of them",
        ),
    ],
)
def test_a_question_in_a_language_the_docs_are_not_in_is_told_which_they_are_in(docs, message, hint):
    """A French reader on an English and Spanish site: the Windows section is found, but the
    reader's words are not the docs' words, so the answer cannot be trusted. The refusal no
    longer reads as if the docs were silent: it names the languages they are written in."""
    for locale in ("en", None):
        result = ask(docs, message, locale=locale)
        assert not result.answered and result.citations == [], result.text
        assert result.extra["refused_because"] == "language"
        assert result.text.endswith(hint + " and I will look again."), result.text
        assert "Install on Windows" in result.text  # what was checked is still said


def test_only_a_clearly_foreign_question_is_said_to_be_in_another_language(docs):
    from askdocs.edge_runtime.i18n import ask_in_language
    from askdocs.edge_runtime.query import foreign_language

    site = ["en", "es"]
    for own in (
        "How do I delete my account?",
        "Does Tallyfox support LDAP?",
        "¿Cómo instalo Tallyfox en Windows?",
        "What does 'je ne sais quoi' mean in the changelog?",  # two French words in English
        "Tallyfox de install",
        "Como instalar o Tallyfox no Windows?",  # Portuguese, but its words are Spanish too
    ):
        assert foreign_language(own, site) is None, own
    assert foreign_language("Comment installer Tallyfox sur Windows ?", site) == "fr"
    assert foreign_language("Hoe installeer ik Tallyfox op Windows?", ["en"]) == "nl"
    assert foreign_language("Как установить Tallyfox на Windows?", ["en"]) == "ru"
    assert foreign_language("¿Cómo instalo Tallyfox en Windows?", ["en"]) == "es"
    # What English writes that Italian function words spell ("per", "e" of "e.g.", "non-"):
    # English, on an English site (each read as Italian, and the passages went unread).
    for own in ("per-request timeout", "Units per second e.g. meters", "How do I handle non-blocking calls?"):
        assert foreign_language(own, ["en"]) is None, own
    assert foreign_language("Come posso configurare il proxy per Tallyfox?", ["en"]) == "it"
    assert foreign_language("Il proxy non funziona", ["en"]) == "it"
    # Said in the reader's language when askdocs has its phrases, else in English.
    assert ask_in_language("es", ("en",)) == (
        "La documentación está escrita en inglés: pregunte en inglés y volveré a buscar."
    )
    assert ask_in_language("fr", ("en", "es")).startswith("The documentation is written in English and")
    # A refusal in the docs' own language says nothing of languages.
    result = ask(docs, "Does Tallyfox support LDAP directories?")
    assert not result.answered and "written in" not in result.text
    assert result.extra.get("refused_because") != "language"


def test_follow_up_borrows_the_previous_question(docs):
    history = [
        Turn("user", "How do I install the agent on Linux?"),
        Turn("assistant", "Run the install script with --agent-only."),
    ]
    result = ask(docs, "and on Windows?", history=history)
    assert result.answered
    assert any("windows" in c for c in cited(result)), cited(result)


@pytest.mark.parametrize(
    "message",
    [
        "backup restore",
        "seat price",
        "rate limits",
        "How many times are webhooks retried?",
        "What does a Business seat cost, and is SAML included in it?",
    ],
)
def test_a_new_question_later_in_the_chat_is_answered_as_if_asked_first(docs, message):
    """Every widget question after the first has history; a question that does not lean on the
    previous one gets the answer it gets alone (borrowing the previous question's words made
    the dense model find that question's page again)."""
    history = [
        Turn("user", "How do I install the agent on Linux?"),
        Turn("assistant", "Run the install script with --agent-only."),
    ]
    alone, later = ask(docs, message), ask(docs, message, history=history)
    assert (later.text, later.citations, later.answered) == (alone.text, alone.citations, alone.answered)


def test_a_follow_up_that_opens_with_ok_borrows_the_previous_question(docs):
    history = [
        Turn("user", "How do I install the agent on Linux?"),
        Turn("assistant", "Run the install script with --agent-only."),
    ]
    result = ask(docs, "ok, and how about on Windows?", history=history)
    assert result.answered, result.text
    assert any("windows" in c for c in cited(result)), cited(result)


def test_answer_round_trips_through_json(docs):
    result = ask(docs, "How do I register a webhook endpoint?")
    again = type(result).from_json(result.to_json())
    assert again == result
    assert again.text == result.text


def test_a_question_the_faq_asks_in_other_words_is_matched_to_it(docs):
    from askdocs.edge_runtime.answer import question
    from askdocs.edge_runtime.faqmatch import duplicate_faq, faq_questions

    found = faq_questions(docs.scope, docs.embedder, "en")
    assert found is not None and len(found.refs) >= 4 and 0.5 < found.bar < 1.0
    asked = question(docs, "Does Tallyfox send telemetry to Kestrel?", "en")
    match = duplicate_faq(docs.scope, docs.embedder, asked)
    assert match is not None and match.similarity >= match.bar
    assert docs.scope.corpus.chunk(match.ref).headings == ["Does Tallyfox send any data to Kestrel?"]
    # Near the topic of a FAQ (running Tallyfox somewhere) is not asking it.
    for other in ("Can I run Tallyfox on Windows Server 2012?", "How do I rotate the API token?"):
        assert duplicate_faq(docs.scope, docs.embedder, question(docs, other, "en")) is None, other
    result = ask(docs, "Does Tallyfox send any telemetry back to Kestrel?")
    assert result.extra["faq_match"]["url"].startswith("/faq/#does-tallyfox-send-any-data-to-kestrel")


def _thin_site(root):
    """Three English pages and one Spanish page: a locale with a single passage."""
    pages = {
        "index.html": (
            "en",
            "Foxdocs",
            "<h1>Foxdocs</h1><p>Foxdocs collects metrics with a small agent.</p>",
        ),
        "install/index.html": (
            "en",
            "Install",
            "<h1>Install</h1><h2 id='with-pip'>Install with pip</h2>"
            "<p>Run <code>pip install foxdocs-agent</code>. The agent listens on port 7431.</p>",
        ),
        "support/index.html": ("en", "Support", "<h1>Support</h1><p>Email support@foxdocs.dev for help.</p>"),
        "es/instalar/index.html": (
            "es",
            "Instalar",
            "<h1>Instalar</h1><h2 id='con-pip'>Instalar con pip</h2>"
            "<p>Ejecuta <code>pip install foxdocs-agent</code>. El agente escucha en el puerto 7431.</p>",
        ),
    }
    _write_pages(root, pages)


def _write_pages(root, pages: dict[str, tuple[str, str, str]]) -> None:
    """Rendered pages, `path: (lang, title, <main> body)`, as any generator writes them."""
    for rel, (lang, title, body) in pages.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8"><title>{title}</title></head>'
            f"<body><main>{body}</main></body></html>",
            encoding="utf-8",
        )


def test_a_locale_of_one_page_is_answered_and_still_refuses(tmp_path, multilingual_info):
    """One Spanish passage has no spread to stand out from: the confidence must still tell an
    answer (the page says it) from a question the docs never touch."""
    from askdocs.edge_runtime.corpus import load_corpus
    from askdocs.edge_runtime.scope import Reader, make_scope
    from askdocs.plugin.builder import BuildOptions
    from askdocs.plugin.sitedir import build_site

    site = tmp_path / "site"
    _thin_site(site)
    build_site(BuildOptions(site_dir=site, default_locale="en", progress=False, llms_txt=False))
    corpus, embedder = load_corpus(str(site / "_askdocs"), None)
    thin = Docs(make_scope(corpus, Reader.public()), embedder)
    for message in ("¿Cómo instalo el agente con pip?", "¿En qué puerto escucha el agente?"):
        result = ask(thin, message, locale="es")
        assert result.answered, (message, result.confidence, result.text)
        assert cited(result)[0] == "/es/instalar/#con-pip", cited(result)
    assert "7431" in ask(thin, "¿En qué puerto escucha el agente?", locale="es").text
    for message in (
        "¿Cuánto cuesta el plan empresarial por usuario?",
        "¿Cómo configuro el proxy corporativo?",
    ):
        assert not ask(thin, message, locale="es").answered, message
    assert ask(thin, "How do I install the agent with pip?").answered
    assert not ask(thin, "What does the enterprise plan cost per seat?").answered


def test_confidence_reads_the_best_passage_in_the_docs_language(docs):
    """Confidence reads the one best passage of what was read (`extractive.passage_signals`),
    and in the docs' language only: a French question matches English sentences by the names
    they share ("Tallyfox", "Windows"), which lifted it over the bar with an English answer."""
    from askdocs.edge_runtime.answer import prepare, question
    from askdocs.edge_runtime.evidence import PASSAGE_SIGNALS

    english = prepare(docs, question(docs, "How do I install Tallyfox on Windows?", "en"), AnswerSettings())
    read = english.investigation.passages
    assert set(read) == set(PASSAGE_SIGNALS), read
    assert read["passage_fit"] > 0.0
    assert english.investigation.signals["passage_lift"] == round(read["passage_lift"], 4)
    french = prepare(docs, question(docs, "Comment installer Tallyfox sur Windows ?", "en"), AnswerSettings())
    assert french.query.foreign and french.investigation.passages == {}
    assert french.confidence < english.confidence


def test_an_answer_that_would_lead_with_the_support_page_on_one_word_is_refused(docs):
    # The gate looks at the best evidence; the composer may still lead with a support page
    # section further down ("phone" matches "phone support"). That answer is refused too.
    import dataclasses

    from askdocs.edge_runtime.answer import extractive, prepare, question

    query = question(docs, "Does the product phone home?")
    case = prepare(docs, query, AnswerSettings())
    support = case.support["url"].split("#")[0]
    contact = [e for e in case.evidence if e.page_url == support]
    assert contact, [e.url for e in case.evidence]
    elsewhere = dataclasses.replace(
        contact[0],
        url="/dashboards/#layout",
        page_url="/dashboards/",
        heading="Layout",
        kind="section",
        text="Dashboards arrange panels in a grid of twelve columns.",
        title="Dashboards",
    )
    case.investigation.evidence = [elsewhere, *contact]
    result = extractive(docs, case)
    assert not result.answered, result.text
    assert result.extra["refused_because"] == "contact_page"


def _tasks_site(root):
    """A small API framework's docs: a page whose how-to section is named by the class it uses,
    and a page whose heading names a class by a word every page uses."""
    intro = (
        "<p>You can define background tasks to be run after returning a response.</p>"
        "<p>This is useful for operations that need to happen after a request, but that the client "
        "doesn't really have to be waiting for to complete: email notifications sent after "
        "performing an action (connecting to an email server and sending an email tends to be slow), "
        "or processing data.</p>"
    )
    pages = {
        "index.html": ("Foxapi", "<h1>Foxapi</h1><p>Foxapi builds web APIs with Python type hints.</p>"),
        "background-tasks/index.html": (
            "Background Tasks",
            "<h1>Background Tasks</h1>"
            + intro
            + "<h2 id='create-a-task-function'>Create a task function</h2>"
            "<p>Create a function to be run as the background task. It is a standard function that "
            "can receive parameters. In this case the task function writes to a file (simulating "
            "sending an email).</p>"
            "<h2 id='dependency-injection'>Dependency injection</h2>"
            "<p>Foxapi also works with dependency injection: you can declare a parameter in a path "
            "operation function or in a dependency, and Foxapi merges all of them.</p>"
            "<h2 id='technical-details'>Technical details</h2>"
            "<p>The class comes directly from the underlying toolkit; it is included to make it easy "
            "to import.</p>"
            "<h2 id='caveat'>Caveat</h2>"
            "<p>If you need to perform heavy computation and do not necessarily need it run by the "
            "same process, you might benefit from a bigger tool like a job queue.</p>"
            "<h2 id='using-backgroundtasks'>Using <code>BackgroundTasks</code></h2>"
            "<p>First, import <code>BackgroundTasks</code> and define a parameter in your path "
            "operation function with a type declaration of <code>BackgroundTasks</code>.</p>"
            "<p>Foxapi will create the object of type <code>BackgroundTasks</code> for you and pass "
            "it as that parameter.</p>",
        ),
        "docker/index.html": (
            "Foxapi in Docker",
            "<h1>Foxapi in Docker</h1><p>Foxapi runs in a container built from its official image.</p>"
            "<h2 id='image-tag'>The <code>FoxapiImage</code> tag</h2>"
            "<p>Pin <code>FoxapiImage</code> to a release: Foxapi publishes one image per release.</p>",
        ),
        "settings/index.html": (
            "Foxapi settings",
            "<h1>Foxapi settings</h1><p>Foxapi reads its settings from environment variables.</p>",
        ),
        "testing/index.html": (
            "Testing Foxapi",
            "<h1>Testing Foxapi</h1><p>Foxapi apps are tested with a test client and pytest.</p>",
        ),
    }
    _write_pages(root, {rel: ("en", title, body) for rel, (title, body) in pages.items()})


def test_a_page_s_heading_that_names_its_subject_in_code_tells_how(tmp_path, model_info):
    """ "Send email notifications after returning the response": the page's introduction describes the
    wish; the section whose heading names, as the docs write it in code, what the page is about
    ("Using BackgroundTasks" on "Background Tasks") says how, and the answer names it. A heading
    naming a class by a word every page of the site uses ("FoxapiImage") is not such a section."""
    from askdocs.edge_runtime.corpus import load_corpus
    from askdocs.edge_runtime.evidence import outline
    from askdocs.edge_runtime.scope import Reader, make_scope
    from askdocs.plugin.builder import BuildOptions
    from askdocs.plugin.sitedir import build_site

    site = tmp_path / "site"
    _tasks_site(site)
    build_site(BuildOptions(site_dir=site, default_locale="en", progress=False, llms_txt=False))
    corpus, embedder = load_corpus(str(site / "_askdocs"), None)
    scope = make_scope(corpus, Reader.public())
    pages = [scope.paths["/background-tasks/"], scope.paths["/docker/"]]
    found = outline(corpus, pages, set(), scope.document_frequencies)
    assert [e.url for e in found] == ["/background-tasks/#using-backgroundtasks"], found
    assert (
        outline(corpus, pages, {"/background-tasks/#using-backgroundtasks"}, scope.document_frequencies) == []
    )
    result = ask(
        Docs(scope, embedder),
        "How do I send email notifications after returning the response?",
    )
    assert result.answered, result.text
    assert "import `BackgroundTasks`" in result.text, result.text
    assert {c["url"].split("#")[0] for c in result.citations} == {"/background-tasks/"}, result.citations


MEMORY = "How much memory does the machine hosting the server need at the very least?"


def test_evidence_is_read_in_the_second_stages_page_order_a_few_sections_per_page(docs):
    """The second stage orders pages: the FAQ page's many sections would fill the evidence
    ahead of the install page's requirements table. At most SECTIONS_PER_PAGE sections of one
    page are read, each weighing its fused score; confidence is judged on the fused order."""
    from askdocs.edge_runtime.answer import SECTIONS_PER_PAGE, prepare, searched
    from askdocs.edge_runtime.query import make_query

    settings = AnswerSettings()
    query = make_query(
        ChatRequest(MEMORY, "en", (), None),
        docs.scope,
    )
    fused, read = searched(docs, query, settings)
    assert "rerank" in read.retrievers and "rerank" not in fused.retrievers
    pages = [docs.scope.corpus.chunk_page(h.ref).url for h in read.hits]
    assert len(read.hits) == settings.depth
    assert max(pages.count(p) for p in pages) <= SECTIONS_PER_PAGE, pages
    assert "/install/" in pages, pages
    assert max(h.score for h in read.hits) == 1.0
    assert all(h.score == pytest.approx(h.fused / max(x.fused for x in read.hits)) for h in read.hits)
    case = prepare(docs, query, settings)
    # Confidence reads the fused order; the trace names every stage that ran, the second included.
    assert case.outcome.retrievers == [*fused.retrievers, "rerank"], case.outcome.retrievers
    result = ask(docs, MEMORY)
    assert cited(result)[0].startswith("/install/"), cited(result)
    # Read in the fused order as before, the same question is still answered from the same page
    # (confidence reads the passages read too, so it moves with what is read).
    plain = answer(
        docs,
        ChatRequest(MEMORY, "en", (), None),
        AnswerSettings(evidence_weights=None),
    )
    assert plain.answered and cited(plain)[0].startswith("/install/"), cited(plain)


@pytest.mark.parametrize(
    ("message", "url", "words"),
    [
        ("What is Tallyfox?", "/#tallyfox-documentation", "Tallyfox is a self-hosted metrics collector"),
        ("what does tallyfox do", "/#tallyfox-documentation", "Tallyfox is a self-hosted metrics collector"),
        ("Hi! What is this tool? Thanks", "/#tallyfox-documentation", "Tallyfox is a self-hosted"),
        (
            "what can it do",
            "/#tallyfox-documentation",
            "Tallyfox is a self-hosted",
        ),  # no key term, still asked
        ("¿Qué es Tallyfox?", "/es/", "Tallyfox"),
    ],
)
def test_what_the_site_is_about_is_answered_from_its_home_page(docs, message, url, words):
    """The first thing a new reader asks: whatever page says the name most, the home page says
    what it is, in its first paragraph that says "X is"."""
    result = ask(docs, message, None)
    assert result.answered and result.extra["intent"] == "about", result.text
    assert cited(result)[0].startswith(url), cited(result)
    assert words in lead(result), result.text


@pytest.mark.parametrize(
    ("message", "url"),
    [
        ("How do I get started?", "/quickstart/"),
        ("Where should I begin with Tallyfox?", "/quickstart/"),
        ("how do i begin", "/quickstart/"),
        ("¿Por dónde empiezo?", "/es/quickstart/"),
    ],
)
def test_getting_started_is_answered_from_the_start_page(docs, message, url):
    """The page a docs site has for starting (Quickstart, Getting started, First steps,
    Tutorial), its opening words and what it goes through."""
    result = ask(docs, message, None)
    assert result.answered and result.extra["intent"] == "start", result.text
    assert cited(result)[0].split("#")[0] == url, cited(result)
    outline = next(p.text for p in result.parts if p.kind == "support" and ":" in p.text)
    assert "Install and start the server" in outline or "Instal" in outline, result.text


@pytest.mark.parametrize(
    "message",
    ["What is a token?", "What is TFX-1042?", "What is the default retention?", "How do I start the agent?"],
)
def test_other_what_is_and_start_questions_go_through_search(docs, message):
    """Only the site's own subject (its home page's title, its first sentence's subject, "this")
    is an "about" question, and only starting as such a "start" one."""
    result = ask(docs, message)
    assert "intent" not in result.extra, result.extra


def test_a_follow_up_is_never_taken_for_a_first_question(docs):
    first = ask(docs, "How do I rotate a token?")
    result = ask(
        docs, "what is it?", history=[Turn("user", "How do I rotate a token?"), Turn("assistant", first.text)]
    )
    assert "intent" not in result.extra, result.extra


@pytest.mark.parametrize(
    ("message", "locale", "url", "words"),
    [
        ("What's new in the latest release?", None, "/release-notes/#320", "show --effective"),
        ("What is the latest version?", None, "/release-notes/#320", "3.2.0 (2026-05-12)"),
        ("What changed in Tallyfox's most recent release?", None, "/release-notes/#320", "backup.completed"),
        ("¿Qué hay de nuevo en la última versión?", None, "/es/release-notes/#320", "show --effective"),
        ("What changed in 3.2?", None, "/release-notes/#320", "show --effective"),
        ("What's new in version 3.1?", None, "/release-notes/#310", "now 30 days"),
        ("¿Qué cambió en la versión 3.0?", "es", "/es/release-notes/#300", "tallyfox migrate"),
        ("When was 3.0 released?", None, "/release-notes/#300", "3.0.0 (2025-10-20)"),
        ("Is there a changelog?", None, "/release-notes/#320", "show --effective"),
        ("¿Dónde están las notas de la versión?", None, "/es/release-notes/#320", "show --effective"),
    ],
)
def test_release_questions_are_answered_from_the_release_notes(docs, message, locale, url, words):
    """A "what's new?" question is read where a careful reader reads it: the release notes' newest release
    (the highest version a release heading names), or the release the question's version names.
    Search matched "latest" and "release" in the 3.0.0 and 2.4.0 notes (3.2.0's never says
    "release") and the installer's `--version` flag, and "3.2" in the home page's "describes
    Tallyfox 3.2"."""
    result = ask(docs, message, locale)
    assert result.answered and result.extra["intent"] in ("latest", "release", "released"), result.text
    assert cited(result) == [url], cited(result)
    assert words in result.text, result.text


@pytest.mark.parametrize(
    "message",
    [
        "What's the latest version of Python supported?",
        "What's new in Docker 24.0?",
        "What's new in 9.9?",  # no such release: search answers or refuses
    ],
)
def test_release_questions_about_something_else_go_through_search(docs, message):
    result = ask(docs, message)
    assert "intent" not in result.extra, result.extra


def test_versions_order_as_releases_do():
    from askdocs.edge_runtime.intents import _version_key

    ordered = ["0.9.1", "0.10.0", "v1.0.0rc1", "1.0.0", "Version 1.0.1 (2017-12-31)", "2.6.0b1", "2.6.0"]
    keys = [_version_key(text) for text in ordered]
    assert keys == sorted(keys), keys
    assert _version_key("Bug fixes") is None and _version_key("Python 3 only") is None
    from askdocs.edge_runtime.intents import _UNRELEASED

    assert _UNRELEASED.search("1.8.0 (Current master, in development)")
    assert _UNRELEASED.search("2.0 (unreleased)")
    assert not _UNRELEASED.search("Version 1.6.1 (2024-08-30)")


@pytest.mark.parametrize(
    ("message", "url"),
    [
        ("How do I install it?", "/install/#install-on-linux"),
        ("How can I install Tallyfox?", "/install/#install-on-linux"),
        ("Installation instructions?", "/install/#install-on-linux"),
        # "Cómo" with its accent is a Spanish question word (the stop-word list has "como"): the
        # question was read as English, "instalo" respelled "install", and it was refused.
        ("¿Cómo instalo Tallyfox?", "/es/install/#instalacion-en-linux"),
    ],
)
def test_how_to_install_is_answered_from_where_the_docs_say_it(docs, message, url):
    """The page titled Install (else a section headed Installation, the home page's first): the
    step that installs, its command, and what the page goes through. Search answered httpx's
    "How do I install it?" from its contributing guide's "install the project and its
    dependencies"."""
    result = ask(docs, message, None)
    assert result.answered and result.extra["intent"] == "install", result.text
    assert cited(result) == [url], cited(result)
    assert "curl -fsSL https://get.tallyfox.dev/install.sh | sudo sh" in result.text, result.text
    assert "Windows" in result.text  # the outline names the other platforms' sections


@pytest.mark.parametrize(
    ("message", "url"),
    [
        ("How do I install Tallyfox on Windows?", "/install/#install-on-windows"),
        ("¿Cómo instalo Tallyfox en Windows?", "/es/install/#instalacion-en-windows"),
        ("How do I install the agent?", None),
        ("How do I install Docker?", None),
    ],
)
def test_installing_something_else_or_somewhere_goes_through_search(docs, message, url):
    result = ask(docs, message, None)
    assert "intent" not in result.extra, result.extra
    if url:
        assert cited(result)[0] == url, cited(result)


def test_a_command_is_quoted_whole_under_its_tab_label():
    from askdocs.edge_runtime.intents import _PARAGRAPH, _code_after

    content = (
        "Installation is as simple as:\n\n**pip**\n\n```bash\npip install thing\n\n# with extras\n"
        "pip install 'thing[all]'\n```\n\n**uv**\n\n```bash\nuv add thing\n```"
    )
    pieces = [(0, piece) for piece in _PARAGRAPH.split(content)]
    assert _code_after(pieces, 0) == [
        "**pip**\n\n```bash\npip install thing\n\n# with extras\npip install 'thing[all]'\n```"
    ]
    prose_between = [(0, "Run:"), (0, "A sentence of more than three words."), (0, "```\nx\n```")]
    assert _code_after(prose_between, 0) == []


def test_the_subject_s_own_install_command_comes_before_a_prerequisite_s():
    from askdocs.edge_runtime.intents import _PARAGRAPH, _install_step, _prose

    content = (
        "## Installation\n\n```shell\npip install starlette\n```\n\n"
        "You'll also want to install an ASGI server, such as uvicorn:\n\n```shell\npip install uvicorn\n```"
    )
    pieces = [(content.find(p), p) for p in _PARAGRAPH.split(content)]
    paragraphs = [(i, at, p) for i, (at, p) in enumerate(pieces) if _prose(p, 2)]
    # The command right under the heading names the site: it comes first, the ASGI server's step after.
    assert _install_step(pieces, list(paragraphs), ["starlette"]) == (0, 1)
    # Named nothing, the step that installs and its command is all there is.
    assert _install_step(pieces, list(paragraphs), []) == (0, None)


def test_what_license_it_is_under_is_read_from_its_license_page(tmp_path, multilingual_info):
    """A license page (or a section headed License) answers "What license is it under?" and "Is
    it open source?"; without one, search answers or refuses (the example site has none)."""
    import shutil

    from askdocs.edge_runtime.corpus import load_corpus
    from askdocs.edge_runtime.scope import Reader, make_scope

    from tests.conftest import SITE_EXAMPLE, mkdocs_build

    docs_dir = tmp_path / "docs"
    shutil.copytree(SITE_EXAMPLE / "docs", docs_dir)
    (docs_dir / "en" / "license.md").write_text(
        "# License\n\nThe legal text.\n\n## Tallyfox License (Apache-2.0)\n\n"
        "Tallyfox is distributed under the terms of the Apache License, Version 2.0.\n",
        encoding="utf-8",
    )
    work = tmp_path / "work"
    work.mkdir()
    mkdocs_build(work, extra={"docs_dir": str(docs_dir)})
    corpus, embedder = load_corpus(str(work / "site" / "_askdocs"), None)
    licensed = Docs(make_scope(corpus, Reader.public()), embedder)
    for message in ("What license is it under?", "Is Tallyfox open source?", "What's the license?"):
        result = ask(licensed, message)
        assert result.answered and result.extra.get("intent") == "license", (message, result.text)
        assert cited(result) == ["/license/#tallyfox-license-apache-20"], cited(result)
        assert "**Tallyfox License (Apache-2.0)**" in result.text, result.text
        assert "Apache License, Version 2.0" in result.text, result.text
    assert "intent" not in ask(licensed, "Is the server running?").extra


def test_without_a_license_page_a_license_question_is_not_an_intent(docs):
    """No license page: what the docs say of licensing is searched for like any other question
    (the pricing page's "Tallyfox is licensed per seat."), never the license intent's reply."""
    result = ask(docs, "What license is it under?")
    assert "intent" not in result.extra, result.extra
    assert "Apache" not in result.text and "open source" not in result.text.lower(), result.text
    assert not result.answered or cited(result)[0].startswith("/pricing/"), result.text


def test_a_failed_dense_model_answers_from_the_words_and_says_so(public_scope):
    """The dense model failing mid-question (an ONNX session lost): retrieval reports it and
    serves lexically; confidence reads the words alone instead of failing on the passages'
    cosines (it raised), and the answer's trace says the dense retriever was out. Without the
    dense signals confidence stays low: the reader gets what was checked, not a guess."""
    from tests.test_search import BrokenEmbedder

    broken = Docs(public_scope, BrokenEmbedder())
    for message in ("How do I install Tallyfox on Windows?", "Does it support Kerberos smartcards on OS/2?"):
        result = answer(broken, ChatRequest(message, "en", (), None), AnswerSettings())
        assert "onnx session lost" in result.extra["retriever_errors"]["dense"], result.extra
        assert "dense" not in result.extra["retrievers"], result.extra
        assert result.checked, result.text


def test_a_yes_or_no_answers_only_the_question_its_faq_entry_asks(docs):
    """ "Can agents run on ARM?": the docs write `arm64`, never "ARM" alone, and the FAQ entry on
    running the agent as root shared the most words: its "No." led, another question's answer.
    An FAQ entry whose question lacks an asked word another passage read holds weighs half
    (`extractive.FAQ_OTHER_QUESTION`); asked its own question, it still answers."""
    result = ask(docs, "Can agents run on ARM?")
    assert not result.text.startswith("No."), result.text
    assert "/faq/#does-the-agent-need-to-run-as-root" not in cited(result), cited(result)
    own = ask(docs, "Does the agent have to run as root?")
    assert own.text.startswith("No. Root is needed"), own.text


def test_whether_a_thing_includes_another_the_verb_frames_the_question(docs):
    """ "Does bottle include an ORM?" was refused although the FAQ says Bottle "misses ... (MVC,
    ORM, ...)": "include" counted as a word the evidence lacked. Asked whether a thing includes,
    comes or ships with another, the verb frames the question as "support" does; asked how the
    reader includes something, it is the question."""
    assert key_terms("en", "Does bottle include an ORM?") == {"bottl", "orm"}
    assert key_terms("en", "Is a web console included?") == {"web", "consol"}
    assert key_terms("en", "Does it come with a CLI?") == {"cli"}
    assert key_terms("en", "How do I include a file?") == {"includ", "file"}
    assert key_terms("es", "¿Tallyfox incluye SSO?") == {"tallyfox", "sso"}
    # "And Business?" after "What does the Team plan include?" cites the plans alone (with "include"
    # read as a word asked, the support page was cited beside them).
    history = [
        Turn("user", "What does the Team plan include?"),
        Turn("assistant", "Team is USD 12 per seat, with up to 100 agents and email support."),
    ]
    result = ask(docs, "And Business?", history=history)
    assert cited(result) and all(url.startswith("/pricing/") for url in cited(result)), cited(result)


def _factory_site(root) -> None:
    """An API reference in the manner of Sphinx autodoc: the methods' names say "batch", the prose
    never does (factory_boy's reference writes `create_batch(cls, size, **kwargs)` and "a list of
    size instances")."""
    method = (
        '<dl class="py method"><dt class="sig sig-object py" id="factory.Factory.{name}">classmethod {name}'
        '(cls, size, **kwargs)<a class="headerlink" href="#factory.Factory.{name}">¶</a></dt>'
        "<dd><p>Provides a list of <code>size</code> instances from the Factory, through the '{strategy}' "
        "strategy.</p></dd></dl>"
    )
    single = (
        '<dl class="py method"><dt class="sig sig-object py" id="factory.Factory.{name}">classmethod {name}'
        '(cls, **kwargs)<a class="headerlink" href="#factory.Factory.{name}">¶</a></dt>'
        "<dd><p>Provides a new object, using the '{strategy}' strategy.</p></dd></dl>"
    )
    reference = "".join(
        [
            "<h1>Reference</h1><p>The Factory class declares how objects are built.</p>",
            '<h2 id="strategies">Strategies</h2><p>The build strategy instantiates the object without '
            "saving it; the create strategy saves it to the database.</p>",
            single.format(name="build", strategy="build"),
            method.format(name="build_batch", strategy="build"),
            single.format(name="create", strategy="create"),
            method.format(name="create_batch", strategy="create"),
            single.format(name="stub", strategy="stub"),
            method.format(name="stub_batch", strategy="stub"),
            *(
                f'<h2 id="{name}">{name}</h2><p>{text}</p>'
                for name, text in (
                    (
                        "Sequences",
                        "A sequence counter starts at zero and grows by one for each object the "
                        "factory instantiates; reset_sequence() sets it back.",
                    ),
                    (
                        "Lazy attributes",
                        "A lazy attribute computes its value from the other attributes of "
                        "the object being built, once they are set.",
                    ),
                    (
                        "Sub-factories",
                        "A sub-factory builds or creates a related object with the strategy of "
                        "its parent factory, and passes it to the parent's constructor.",
                    ),
                    (
                        "Post-generation hooks",
                        "Post-generation hooks run after the object is created, with "
                        "the created object and the values passed for the hook.",
                    ),
                )
            ),
        ]
    )
    pages = {
        "index.html": (
            "en",
            "Factories",
            "<h1>Factories</h1><p>Factories declare the attributes used to "
            "instantiate an object. Each attribute may be a sequence, a lazy attribute or a "
            'sub-factory.</p><h2 id="sequences">Sequences</h2><p>A sequence gives each object a '
            "unique value, such as an email address.</p>",
        ),
        "reference.html": ("en", "Reference", reference),
        "orms.html": (
            "en",
            "ORMs",
            "<h1>ORMs</h1><p>Django models are saved with the model manager's "
            "create method; SQLAlchemy objects are added to the session.</p>",
        ),
    }
    _write_pages(root, pages)


def test_words_the_docs_write_only_inside_a_name_ask_for_that_name(tmp_path, multilingual_info):
    """factory_boy's reference says "batch" only in `create_batch` and `build_batch`: "How do I
    create a batch of ten objects?" found nothing for "batch" (one index term, `create_batch`), read
    it as a word the docs never use, and answered from elsewhere at the edge of refusing. The words
    said in a row that make a name the docs write, one of them a word the docs use only inside
    names, are searched and weighed as that name; words the docs also use alone stay words."""
    from askdocs.edge_runtime.answer import question
    from askdocs.edge_runtime.corpus import load_corpus
    from askdocs.edge_runtime.scope import Reader, make_scope
    from askdocs.plugin.builder import BuildOptions
    from askdocs.plugin.sitedir import build_site

    site = tmp_path / "site"
    _factory_site(site)
    build_site(BuildOptions(site_dir=site, default_locale="en", progress=False, llms_txt=False))
    corpus, embedder = load_corpus(str(site / "_askdocs"), None)
    factories = Docs(make_scope(corpus, Reader.public()), embedder)
    asked = question(factories, "How do I create a batch of ten objects?")
    assert asked.named == ("create_batch",), asked.named
    assert "create_batch" in asked.key_terms and "batch" not in asked.key_terms, asked.key_terms
    result = ask(factories, "How do I create a batch of ten objects?")
    assert result.answered, (result.confidence, result.text)
    assert cited(result)[0] == "/reference.html#factory.Factory.create_batch", cited(result)
    # "create" and "object" are the docs' own words: no name stands for them.
    assert question(factories, "How do I create an object?").named == ()
    assert question(factories, "How do I build objects?").named == ()


def test_a_version_nothing_read_says_is_not_answered(docs):
    """Asked about a version the docs never name, the answer was about the thing without it
    (wrapt's "Does wrapt support Python 2.4?" got its overview, WebOb's "Does WebOb support
    HTTP/3?" the 505 exception): the version is what is asked, and the reader is told what was
    checked. A version the docs name is answered."""
    result = ask(docs, "Does Tallyfox run on Ubuntu 20.04?")
    assert not result.answered and result.extra["refused_because"] == "version_unsaid", result.text
    assert "I checked" in result.text
    result = ask(docs, "Does Tallyfox run on Ubuntu 24.04?")
    assert result.answered and cited(result)[0].startswith("/install/"), result.text
    assert "refused_because" not in result.extra


def test_set_up_is_the_doing_not_what_is_asked_about():
    """ "How do I set up sudo?" is about sudo: its "up" was a key term, and the Debian Reference's
    "Do not set up accounts of regular users ... like this" led above the section on sudo."""
    assert key_terms("en", "How do I set up sudo?") == {"sudo"}
    assert key_terms("en", "Setting up single sign-on") == key_terms("en", "single sign-on")
    assert "up" in key_terms("en", "How do I speed up the build?")


def test_the_difference_between_two_things_asks_about_the_two_things():
    """toolz's "What is the difference between toolz and cytoolz?" was answered with `diff`,
    "Return those items that differ between sequences": the docs that compare two things rarely say
    "difference", and "differ" was a key term."""
    assert key_terms("en", "What is the difference between toolz and cytoolz?") == {"toolz", "cytoolz"}
    assert key_terms("en", "What's the difference between unbind() and try_unbind()?") == {
        "unbind",
        "try_unbind",
    }
    assert key_terms("es", "¿Cuál es la diferencia entre flush y sync?") == {"flush", "sync"}
    assert "differ" in key_terms("en", "How do the two backends differ?")


def test_asked_what_a_name_does_the_section_headed_by_it_answers(tmp_path, multilingual_info):
    """kitchen's "What is to_unicode for?" was refused at 0.35 with the function's own entry read:
    the dense model rates a bare name poorly. Asked what a name is or does, the section headed by
    that name answers, however low the confidence; a plain word asked about is no such name."""
    from askdocs.edge_runtime.corpus import load_corpus
    from askdocs.edge_runtime.scope import Reader, make_scope
    from askdocs.plugin.builder import BuildOptions
    from askdocs.plugin.sitedir import build_site

    site = tmp_path / "site"
    _factory_site(site)
    build_site(BuildOptions(site_dir=site, default_locale="en", progress=False, llms_txt=False))
    corpus, embedder = load_corpus(str(site / "_askdocs"), None)
    factories = Docs(make_scope(corpus, Reader.public()), embedder)
    strict = AnswerSettings(min_confidence=0.99)  # every answer below the bar
    result = answer(factories, ChatRequest("What does create_batch do?", "en", (), None), strict)
    assert result.answered, result.text
    assert cited(result)[0] == "/reference.html#factory.Factory.create_batch", cited(result)
    assert "Provides a list of `size` instances" in result.text
    result = answer(factories, ChatRequest("What is a strategy?", "en", (), None), strict)
    assert not result.answered, result.text


def test_asked_whether_it_works_with_a_product_the_docs_never_name_is_not_answered(docs):
    """parso's "Does parso support parsing JavaScript?" was answered with how to parse Python,
    Scrapy's "Is there a built-in item pipeline for writing items into PostgreSQL?" with the
    pipelines setting: asked whether it works with a named product, the name is what is asked
    about, however well the rest matches (the installer's page, at 0.45 here)."""
    result = ask(docs, "Does the installer work on Windows with Chocolatey?")
    assert not result.answered and result.extra["refused_because"] == "name_unsaid", result.text
    result = ask(docs, "Does Tallyfox run on Windows?")
    assert result.answered and cited(result)[0].startswith("/install/"), result.text
    # A placeholder or a shout is no product's name.
    assert not _PRODUCT_NAME.findall("Is it OK to read MYTOOL_SERVE_PORT or camelCase keys?")


def test_asked_how_many_an_answer_without_a_number_is_no_answer(docs):
    """ "How long does a JWT access token stay valid by default?" (DRF's docs name no lifetime) was
    answered with what JWT authentication is: asked for an amount, an answer whose lead names no
    number does not give it. Only questions that open by asking the amount: "I want to measure
    how long every request takes" asks how to measure it."""
    result = ask(docs, "How many webhooks can I register?")
    assert not result.answered and result.extra["refused_because"] == "number_unsaid", result.text
    result = ask(docs, "How much memory does the server need?")
    assert result.answered and "2 GB" in result.text, result.text
    assert not _ASKS_AMOUNT.match("I want to measure how long every request takes")
    # So does one that asks which version ("Which Python versions does debtcollector support?"
    # got the project's overview); release notes say it in the heading of the section they lead.
    result = ask(docs, "Which CLI versions does the API accept?")
    assert not result.answered and result.extra["refused_because"] == "number_unsaid", result.text
    result = ask(docs, "Which version removed the push command?")
    assert result.answered and cited(result)[0] == "/release-notes/#300", result.text


def test_a_number_in_a_value_the_reader_passes_is_their_example_not_what_is_asked(docs):
    """tinycss' "How do I convert a CSS color such as 'hsla(120, 100%, 50%, 0.5)' into numeric
    values?" was refused: its 0.5 read as a version nothing read names (`_version_unsaid`), and
    120, 100 and 50 as its most telling words, all absent from the docs (`example_numbers`). The
    numbers of a call's arguments or a quoted value are the reader's own example."""
    result = ask(docs, "How do I query a metric like query(cpu.busy_percent, step=2.5) over the API?")
    assert result.answered and cited(result)[0].startswith("/api/"), result.text
    assert "refused_because" not in result.extra
    assert example_numbers("Is a color such as 'hsla(120, 100%, 50%, 0.5)' parsed?") == {
        "120",
        "100",
        "50",
        "0",
        "5",
    }
    assert example_numbers("Does Color(255, 0, 0) mean 255 red?") == {"0"}  # 255 is also said outside
    assert example_numbers("I don't want 100 rows, it's too many") == set()  # apostrophes, not quotes


def test_asked_which_ubuntu_versions_are_supported_the_requirements_answer(docs):
    """ "Which Ubuntu versions does Tallyfox support?" was answered "This documentation describes
    Tallyfox 3.2." (a version, of the wrong thing): search never ranked the system requirements,
    whose "Ubuntu 22.04 LTS" holds the asked name but not the word "version". Asked which versions
    of a thing are supported, the answer greps for the thing named with a version, leads with the
    line that names it so, and an answer that never names the thing is refused."""
    result = ask(docs, "Which Ubuntu versions does Tallyfox support?")
    assert result.answered, result.text
    assert cited(result)[0] == "/install/#system-requirements", cited(result)
    assert "Ubuntu 22.04 LTS and 24.04 LTS" in result.text.split("From: ")[0], result.text
    assert "describes Tallyfox 3.2" not in result.text, result.text


def test_asked_how_to_install_on_windows_the_windows_command_leads(docs):
    """The README's "¿Cómo instalo Tallyfox en Windows?" led with "El servicio de Windows se llama
    `Tallyfox Agent`." (the section's last sentence); weighing every install command, the macOS
    section's `brew install` joined the answer. The command that installs it leads, and only where
    the docs say the rest of what is asked (Windows)."""
    result = ask(docs, "¿Cómo instalo Tallyfox en Windows?", locale=None)
    first = result.text.split("Fuente: ")[0]
    assert "winget install" in first.split("```")[0] + first.split("```")[1], result.text
    assert not lead(result).startswith("El servicio de Windows"), result.text
    assert "brew install" not in result.text, result.text


def test_a_pages_further_sections_are_read_when_no_other_page_is_left():
    """Evidence reads at most SECTIONS_PER_PAGE sections of one page, so that the depth spreads
    over pages; when fewer pages matched than that fills (Flask-Babel's docs are one page of 43
    sections, its configuration table the fifth best), the page's further sections fill it, in
    the ranking's order."""
    hits = [("a", i) for i in range(6)] + [("b", 0)]
    page = lambda hit: hit[0]  # noqa: E731
    assert spread(hits, page, 4) == [("a", 0), ("a", 1), ("a", 2), ("a", 3)][:SECTIONS_PER_PAGE] + [("b", 0)]
    assert spread(hits, page, 6) == [("a", 0), ("a", 1), ("a", 2), ("a", 3), ("a", 4), ("b", 0)]
    many = [(p, i) for p in "abcd" for i in range(4)]
    assert spread(many, page, 8) == [(p, i) for p in "abc" for i in range(3)][:8]


def _section(url: str, title: str, heading: str, text: str) -> Evidence:
    """A section read as evidence, built by hand."""
    return Evidence(
        ChunkRef(0, 0), 0, 0, url, url.split("#")[0], title, heading, text, None, "section", 1.0, "en", "page"
    )


def test_a_name_written_as_code_that_the_best_evidence_says_is_read_there(docs):
    """staticconf's "What does passing error_on_unknown to a staticconf loader do?" was refused at
    0.36 (every word known, no passage standing out for the dense model) though its loader's
    argument list says `error_on_unknown` and what it does: a name written as code that the best
    evidence says is evidence. Not a version, a dotted product name, nor a name another section
    says."""
    from askdocs.edge_runtime.answer import question

    def read(text: str, heading: str = "Arguments") -> Evidence:
        return _section("/loader.html#arguments", "Loading", heading, text)

    kwargs = read(
        "- **error_on_unknown**: raises a ConfigurationError if there are keys that have not been defined."
    )
    ask = question(docs, "What does passing error_on_unknown to a staticconf loader do?", "en")
    assert code_name_read(ask, [kwargs]) == "error_on_unknown"
    other = read("Loaders read a file into a namespace.", "Loading")
    assert code_name_read(ask, [other, kwargs]) is None  # said by a section below the best only
    flag = question(docs, "How do I write short options like -o in a docstring?", "en")
    assert code_name_read(flag, [read("Short options use the `:param -o:` syntax.")]) == "-o"
    version = question(docs, "What changed in flufl.lock 3.2?", "en")
    assert code_name_read(version, [read("flufl.lock 3.2 changed the lock file names.")]) is None


def test_asked_which_versions_of_a_thing_the_best_evidence_naming_it_with_one_is_read(docs):
    """aiosmtplib's "Which Python version does aiosmtplib require?" was refused at 0.35 though its
    requirements section, read first, says "Python 3.7+, compiled with SSL support, is
    required.": asked which versions of a thing, the best evidence naming it with a version
    states what was asked. Not when it names the thing without one, nor when only a later
    section does."""
    from askdocs.edge_runtime.answer import question

    def read(text: str) -> Evidence:
        return _section("/overview.html#requirements", "Quickstart", "Requirements", text)

    ask = question(docs, "Which Python version does aiosmtplib require?", "en")
    required = read("Python 3.7+, compiled with SSL support, is required.")
    assert platform_version_read(ask, [required]) == "python"
    unversioned = read("aiosmtplib is an asynchronous SMTP client for use with asyncio in Python.")
    assert platform_version_read(ask, [unversioned]) is None
    assert platform_version_read(ask, [unversioned, required]) is None
    assert platform_version_read(question(docs, "How do I send mail?", "en"), [required]) is None
