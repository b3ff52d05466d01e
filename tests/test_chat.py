"""`POST /api/chat` against a real uvicorn server: streaming, event order, grounded answers."""

from __future__ import annotations

import json
import socket
import time

import httpx
import pytest
from askdocs.edge_runtime.sse import parse

from tests.conftest import RESTRICTED_PHRASES, Server
from tests.fake_llm import FakeLLM, Reply


def chat(server, message: str, **body) -> dict:
    started = time.perf_counter()
    first_chunk = None
    chunks = []
    with (
        httpx.Client(timeout=60) as client,
        client.stream("POST", server.url + "/api/chat", json={"message": message, **body}) as response,
    ):
        headers = response.headers
        status = response.status_code
        for chunk in response.iter_text():
            if first_chunk is None:
                first_chunk = time.perf_counter() - started
            chunks.append(chunk)
    total = time.perf_counter() - started
    raw = "".join(chunks)
    events = parse(raw)
    return {
        "status": status,
        "headers": headers,
        "raw": raw,
        "events": events,
        "text": "".join(d["text"] for e, d in events if e == "token"),
        "done": next((d for e, d in events if e == "done"), None),
        "first_chunk": first_chunk,
        "total": total,
    }


def cited_pages(result) -> list[str]:
    return [c["url"].split("#")[0] for c in result["done"]["citations"]]


def test_stream_shape_and_event_order(example_server):
    # A question no other test asks: the session's server caches answers, and a cached one is
    # streamed without the work's status events (test_openapi asks "How do I install tallyfox on
    # Windows?", and run before this test it made "reading" disappear).
    result = chat(example_server, "How do I install Tallyfox on a Windows machine?")
    assert result["done"].get("cached") is not True
    assert result["status"] == 200
    assert result["headers"]["content-type"].startswith("text/event-stream")
    assert result["headers"]["cache-control"].startswith("no-cache")
    assert result["headers"]["x-accel-buffering"] == "no"
    names = [e for e, _ in result["events"]]
    assert names[0] == "status" and result["events"][0][1] == {"stage": "searching"}
    assert names[-1] == "done" and names.count("done") == 1 and "error" not in names
    assert set(names) <= {"status", "tool", "token", "done"}
    stages = [d["stage"] for e, d in result["events"] if e == "status"]
    assert stages.index("searching") < stages.index("reading") < stages.index("answering")
    first_token = names.index("token")
    assert all(n in ("token",) for n in names[first_token:-1])  # answer streams, then done
    for event, data in result["events"]:
        if event == "tool":
            assert data["name"] in {"ls", "find", "cat", "grep"} and isinstance(data["args"], dict)
    done = result["done"]
    assert set(done) >= {"answer_id", "answered", "mode", "citations", "escalation"}
    assert done["mode"] == "extractive" and done["answered"] is True
    assert all(set(c) >= {"url", "title"} for c in done["citations"])
    assert result["first_chunk"] < result["total"]


def test_first_status_leaves_before_the_work(example_server):
    raw = b""
    sock = socket.create_connection(("127.0.0.1", example_server.port))
    body = json.dumps({"message": "What does TFX-2210 mean?"}).encode()
    sock.sendall(
        b"POST /api/chat HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body
    )
    started = time.perf_counter()
    sock.settimeout(10)
    first = None
    while b"event: done" not in raw and b"event: error" not in raw:
        data = sock.recv(65536)
        if not data:
            break
        raw += data
        if first is None and b"event: status" in raw:
            first = time.perf_counter() - started
    sock.close()
    assert first is not None and b"event: done" in raw, raw[-500:]
    assert first < 0.5
    assert raw.index(b"event: status") < raw.index(b"event: tool") < raw.index(b"event: done")


@pytest.mark.parametrize(
    "question,pages,facts",
    [
        ("What does error TFX-1042 mean and how do I fix it?", ["/errors/"], ["writable"]),
        ("What does TALLYFOX_DATA_DIR override?", ["/configuration/"], ["storage.data_dir"]),
        ("Is there a discount for nonprofits?", ["/faq/"], ["KINDFOX40"]),
        ("What is the default retention for raw samples?", ["/release-notes/"], ["30 days"]),
        (
            "How do I send webhooks through a corporate proxy?",
            ["/guides/webhooks/", "/networking/"],
            ["TALLYFOX_HTTPS_PROXY"],
        ),
    ],
)
def test_grounded_extractive_answers(example_server, question, pages, facts):
    result = chat(example_server, question)
    done = result["done"]
    assert done["answered"] is True, result["text"]
    for page in pages:
        assert page in cited_pages(result), (cited_pages(result), result["text"])
    for fact in facts:
        assert fact in result["text"]
    assert "From: [" in result["text"]  # each part names its source
    for citation in done["citations"]:
        assert f"]({citation['url']})" in result["text"]


def test_newest_dated_note_wins(example_server):
    result = chat(example_server, "What is the default retention for raw samples?")
    assert "30 days" in result["text"] and "7 days" not in result["text"]


def test_paraphrase_without_shared_words(example_server):
    result = chat(example_server, "What are your monthly fees?")
    assert "/pricing/" in [c["url"].split("#")[0] for c in result["done"]["citations"]] or (
        not result["done"]["answered"] and result["done"]["escalation"]
    )


def test_rare_terms_lead_the_answer(example_server):
    """'memory' is what the question is about, not 'server' (on every page of a server
    product) nor 'how much' (which frames an FAQ about disk space)."""
    question = "How much memory does the machine hosting the server need at the very least?"
    result = chat(example_server, question)
    assert result["done"]["answered"]
    assert "Server RAM" in result["text"] and "2 GB" in result["text"]
    assert cited_pages(result)[0] == "/install/"


def test_spanish_answers_in_spanish_from_spanish_pages(example_server):
    result = chat(example_server, "¿Cómo verifico que la instalación funciona?", locale="es")
    done = result["done"]
    assert done["answered"] and all(p.startswith("/es/") for p in cited_pages(result))
    assert "Fuente: [" in result["text"] and "From:" not in result["text"]


def test_locale_comes_from_the_page_the_reader_is_on(example_server):
    result = chat(example_server, "¿Qué puertos usa Tallyfox?", page_url="/es/networking/")
    assert all(p.startswith("/es/") for p in cited_pages(result))


def test_follow_up_uses_history(example_server):
    history = [
        {"role": "user", "content": "Where is the config file on Linux?"},
        {"role": "assistant", "content": "On Linux it is /etc/tallyfox/tallyfox.yaml."},
    ]
    result = chat(example_server, "And on Windows?", history=history)
    assert result["done"]["answered"]
    assert "ProgramData" in result["text"]


def test_unanswerable_says_what_was_checked_and_escalates(example_server):
    result = chat(example_server, "Does Tallyfox have a native Slack integration?")
    done = result["done"]
    assert done["answered"] is False and done["citations"] == []
    assert done["escalation"] == {"url": "/support/", "text": "Contact support"}
    assert result["text"].startswith("I couldn't confirm this in the documentation. I checked ")


@pytest.mark.parametrize("message", ["how?", "Can you help me?", "----", "¿?"])
def test_a_message_that_asks_nothing_is_asked_what_the_reader_wants(example_server, message):
    # Searched, "how?" used to be answered from two error codes with high confidence.
    result = chat(example_server, message)
    done = result["done"]
    assert done["answered"] is False and done["citations"] == [], result["text"]
    assert done["refused_because"] == "no_question"
    assert done["escalation"]["url"].endswith("/support/")
    assert not [e for e, _ in result["events"] if e == "tool"]  # nothing was searched or read
    assert "What would you like to know?" in result["text"] or "¿Qué le gustaría saber?" in result["text"]


def test_a_question_in_a_language_the_docs_are_not_in_is_told_which_they_are_in(example_server):
    result = chat(example_server, "Comment installer Tallyfox sur Windows ?")
    done = result["done"]
    assert done["answered"] is False and done["citations"] == [], result["text"]
    assert done["refused_because"] == "language"
    assert done["escalation"]["url"].endswith("/support/")
    assert result["text"].endswith(
        "The documentation is written in English and Spanish: ask in one of them and I will look again."
    )


def test_a_follow_up_of_framing_words_only_is_still_a_follow_up(example_server):
    history = [
        {"role": "user", "content": "How do I rotate an API token?"},
        {"role": "assistant", "content": "Run tallyfox token rotate."},
    ]
    result = chat(example_server, "and then what?", history=history)
    assert "refused_because" not in result["done"], result["text"]


def test_spanish_escalation_points_to_the_spanish_support_page(example_server):
    result = chat(example_server, "¿Tienen una aplicación para iPhone?", locale="es")
    assert result["done"]["answered"] is False
    assert result["done"]["escalation"]["url"] == "/es/support/"
    assert result["text"].startswith("No pude confirmarlo")


@pytest.mark.parametrize(
    "message,answered",
    [
        ("I want to talk to a human", False),
        ("This is useless. How do I rotate an API token?", True),
    ],
)
def test_frustration_offers_a_person_at_once(example_server, message, answered):
    result = chat(example_server, message)
    done = result["done"]
    assert done["escalation"] and done["escalation"]["url"] == "/support/"
    assert done["answered"] is answered
    assert done["escalation_reason"] in ("human_requested", "frustration")


def test_public_readers_never_get_restricted_text(example_server):
    result = chat(example_server, "What is the break-glass confirmation phrase in the on-call runbook?")
    assert not any(phrase in result["raw"] for phrase in RESTRICTED_PHRASES)
    assert not any("/internal/" in c["url"] for c in result["done"]["citations"])


def test_repeated_questions_are_served_from_the_answer_cache(example_server):
    first = chat(example_server, "Which HTTP header carries the webhook signature?")
    second = chat(example_server, "which HTTP header carries the   webhook signature?")
    assert second["done"].get("cached") is True
    assert second["text"] == first["text"]
    assert second["done"]["answer_id"] != first["done"]["answer_id"]
    assert "respelled" not in first["done"] and "respelled" not in second["done"]
    # The same question with a typo is the same question: the cached answer, told how it was read.
    typo = chat(example_server, "Which HTTP header carries the webhook signatrue?")
    assert typo["done"].get("cached") is True and typo["text"] == first["text"]
    assert typo["done"]["respelled"] == {"signatrue": "signature"}


# -- a reader who hangs up ------------------------------------------------------------------------
# A slow model (one token every SLOW_TOKEN seconds, 20 of them, well inside the LLM deadline)
# keeps every answer running for a minute: whatever stops it early is the runtime noticing
# that the reader left, never the answer finishing first (the extractive answer used here
# before could end before the hang-up was seen, and the test was flaky under load).
SLOW_TOKEN = 3.0


@pytest.fixture(scope="module")
def slow_llm(example_site):
    fake = FakeLLM()
    server = Server(
        [str(example_site.site_dir)],
        env={
            "OPENAI_BASE_URL": fake.url,
            "OPENAI_API_KEY": "sk-test",
            "ASKDOCS_LLM_MODEL": "fake-1",
            "ASKDOCS_LLM_AGENT": "off",
            "ASKDOCS_LLM_TIMEOUT": "120",
            "ASKDOCS_LLM_IDLE_TIMEOUT": "60",
        },
    )
    yield server, fake
    server.stop()
    fake.stop()


def stopped_streams(server) -> float:
    for line in httpx.get(server.url + "/metrics", timeout=10).text.splitlines():
        if line.startswith("askdocs_chat_streams_stopped_total "):
            return float(line.split()[1])
    raise AssertionError("no askdocs_chat_streams_stopped_total in /metrics")


def hang_up_after(server, question: str, event: str, seen=lambda: None):
    """Ask, and hang up at the first `event`; returns what `seen()` reads at that moment, while
    the stream is still open (after the hang-up the runtime may already have stopped the work)."""
    with (
        httpx.Client(timeout=30) as client,
        client.stream("POST", server.url + "/api/chat", json={"message": question}) as response,
    ):
        for line in response.iter_lines():
            if line == f"event: {event}":
                return seen()
    raise AssertionError(f"the stream ended before any {event!r} event")


def test_client_disconnect_stops_the_work(slow_llm):
    """Hang up after the first event: the answer (a minute long) is stopped and says so."""
    server, fake = slow_llm
    fake.script(Reply(text=["slow "] * 20, delay=SLOW_TOKEN))
    stopped, hung_up, started = stopped_streams(server), fake.hung_up, fake.started
    hang_up_after(server, "How do backups and restores work?", "status")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and "closed by the client" not in server.output():
        time.sleep(0.1)
    assert "closed by the client; work stopped" in server.output()
    assert stopped_streams(server) == stopped + 1
    # Stopped wherever it was (retrieval, or waiting on the model): no model stream ran to its end.
    assert fake.wait_idle(2 * SLOW_TOKEN)
    assert fake.started - started == fake.hung_up - hung_up, (fake.started - started, fake.hung_up - hung_up)
    assert httpx.get(server.url + "/healthz").status_code == 200


def test_a_reader_who_hangs_up_on_a_slow_llm_stops_the_upstream_read(slow_llm):
    """The runtime writes nothing while it waits for the model's next token, so no failed write
    can tell it the reader left; it must see `http.disconnect` itself and cancel the upstream
    read. Before, the model was read on for 15 s and more (until garbage collection) after the
    reader had gone; the bound below is shorter than one token interval, so noticing the hang-up
    only on the next token fails too."""
    server, fake = slow_llm
    fake.script(Reply(text=["slow "] * 20, delay=SLOW_TOKEN))
    stopped, hung_up = stopped_streams(server), fake.hung_up
    # The model's stream was open when the reader left (read before the hang-up: the runtime
    # is meant to close it within moments of it, which is what the rest checks).
    streams, requests = hang_up_after(
        server,
        "How do I send webhooks through a corporate proxy?",
        "token",
        seen=lambda: (fake.active, len(fake.requests)),
    )
    assert streams == 1 and requests == 1
    assert fake.wait_idle(SLOW_TOKEN - 1), "the runtime kept reading the model after the reader left"
    assert fake.hung_up == hung_up + 1
    assert stopped_streams(server) == stopped + 1
    assert "closed by the client; work stopped" in server.output()
    assert httpx.get(server.url + "/healthz").status_code == 200
