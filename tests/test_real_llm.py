"""LLM mode against a real small model (SmolLM2-135M via llama_cpp.server), not a fake one.

A real `askdocs serve` on the built site_example points OPENAI_BASE_URL at a
real llama_cpp.server on 127.0.0.1 and answers real questions over /api/chat.
A 135M model is poor: the point is that whatever it says, what reaches the
reader is a well-formed stream, labelled (`llm`, or `extractive-fallback` with
a reason), cites only real pages, never shows a prompt delimiter, and holds no
command, flag, number or identifier that its evidence lacks. Latency is
printed (goals live in benchmarks/llm_bench.py).
"""

from __future__ import annotations

import re
import time

import httpx
import pytest
from askdocs.edge_runtime.grounding import DELIMITER, critical_tokens
from askdocs.edge_runtime.sse import parse

from tests.conftest import Server
from tests.local_llm import LocalLLM, server_available

pytestmark = pytest.mark.slow

QUESTIONS = [
    "What does error TFX-1042 mean and how do I fix it?",
    "What is the default --grace period for tallyfox token rotate?",
    "Which HTTP header carries the webhook signature?",
]
ADMIN_TOKEN = "real-llm-test-admin-token-0123456789"
ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
UNANSWERABLE = "What is the capital of Mongolia and its population in 1950?"


@pytest.fixture(scope="module")
def local_llm():
    missing = server_available()
    if missing:
        pytest.fail(missing)
    server = LocalLLM(threads=1)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def llm_server(example_site, local_llm):
    env = {**local_llm.env(), "ASKDOCS_ANSWER_CACHE": "0", "ASKDOCS_ADMIN_TOKEN": ADMIN_TOKEN}
    server = Server([str(example_site.site_dir)], env=env)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def site_pages(example_site):
    """Every page URL of the built site (what a citation may point at)."""
    pages = set()
    for html in example_site.site_dir.rglob("index.html"):
        rel = html.parent.relative_to(example_site.site_dir).as_posix()
        pages.add("/" if rel == "." else f"/{rel}/")
    return pages


def ask(server: Server, message: str) -> dict:
    started = time.perf_counter()
    first_token = None
    raw = []
    with httpx.stream(
        "POST", server.url + "/api/chat", json={"message": message, "locale": "en"}, timeout=240
    ) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        for chunk in response.iter_text():
            if first_token is None and "event: token" in chunk:
                first_token = time.perf_counter() - started
            raw.append(chunk)
    total = time.perf_counter() - started
    events = parse("".join(raw))
    return {
        "events": events,
        "text": "".join(d["text"] for e, d in events if e == "token"),
        "done": next((d for e, d in events if e == "done"), None),
        "first_token": first_token,
        "total": total,
    }


def well_formed(result: dict) -> None:
    names = [e for e, _ in result["events"]]
    assert names[0] == "status", names
    assert names.count("done") == 1 and names[-1] == "done", names
    assert "error" not in names
    assert set(names) <= {"status", "tool", "token", "done"}


def page_of(url: str) -> str:
    return url.split("#", 1)[0]


def test_real_llm_answers_are_grounded_cited_and_labelled(llm_server, site_pages, local_llm):
    health = httpx.get(llm_server.url + "/healthz", headers=ADMIN, timeout=10).json()
    assert "llm" in str(health).lower()
    timings = []
    modes = []
    for question in QUESTIONS:
        result = ask(llm_server, question)
        well_formed(result)
        done, text = result["done"], result["text"]
        modes.append(done["mode"])
        assert done["mode"] in ("llm", "extractive-fallback"), done
        if done["mode"] == "extractive-fallback":
            assert done.get("fallback_reason"), done  # labelled, never silent
        assert done["answered"], (question, text)
        assert text.strip()
        # Citations: real pages of this site, and the question's page among the evidence.
        assert done["citations"], done
        for citation in done["citations"]:
            assert page_of(citation["url"]) in site_pages, citation
        # No prompt delimiter, ChatML marker or the refusal sentinel reaches the reader.
        assert not DELIMITER.search(text), text
        assert "NO_ANSWER" not in text
        # The grounding check ran and its report is in `done`.
        grounding = done.get("grounding")
        assert grounding is not None, done
        if done["mode"] == "llm":
            # Every exact token shown must be in the pages the answer cites.
            cited = " ".join(_page_text(llm_server, page_of(c["url"])) for c in done["citations"])
            evidence = re.sub(r"\s+", " ", cited).lower()
            for token in critical_tokens(text):
                if not token.startswith("/"):
                    assert re.sub(r"\s+", " ", token).lower() in evidence or all(
                        w.lower().strip(".,;:()'\"") in evidence for w in token.split()
                    ), (token, text)
        timings.append((result["first_token"], result["total"]))
        print(
            f"\n[{done['mode']} {done.get('fallback_reason') or ''}] {question}\n{text[:400]}\n"
            f"grounding={grounding} "
            f"first_token={result['first_token']:.2f}s total={result['total']:.2f}s"
        )
    print(f"\nmodes: {modes}; first token / total (s): {timings}; llama RSS {local_llm.rss_mb()} MB")
    assert all(t[1] < 180 for t in timings)


def test_unanswerable_question_is_refused(llm_server):
    before = httpx.get(llm_server.url + "/metrics", headers=ADMIN, timeout=10).text
    result = ask(llm_server, UNANSWERABLE)
    well_formed(result)
    done = result["done"]
    assert done["answered"] is False, (done, result["text"])
    assert done["citations"] == []
    assert not DELIMITER.search(result["text"]) and "NO_ANSWER" not in result["text"]
    after = httpx.get(llm_server.url + "/metrics", headers=ADMIN, timeout=10).text
    if not done.get("llm_declined"):
        # Refused by the confidence gate before any model call: no LLM tokens were spent on it.
        assert _llm_tokens(before) == _llm_tokens(after)
    print(f"\nrefusal: llm_declined={bool(done.get('llm_declined'))} mode={done['mode']}")


def _llm_tokens(metrics: str) -> float:
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in metrics.splitlines()
        if line.startswith("askdocs_llm_tokens_total")
    )


_PAGES: dict[str, str] = {}


def _page_text(server: Server, url: str) -> str:
    if url not in _PAGES:
        response = httpx.get(server.url + "/api/fs/cat", params={"path": url}, timeout=30)
        _PAGES[url] = response.json().get("content", "") if response.status_code == 200 else ""
    return _PAGES[url]
