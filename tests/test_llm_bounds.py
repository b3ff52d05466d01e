"""Finding 6: an LLM endpoint that misbehaves cannot hang an answer or eat the runtime's memory.

First the client alone against the fake OpenAI server (each misbehaviour → one `LLMError`
reason, within its bound, upstream connection closed); then a real `askdocs serve` process
against the same fake: every answer ends with exactly one `done`, labelled
`extractive-fallback` with the reason, within the deadline, and is not cached; a reader
who hangs up on an endless stream makes the runtime hang up upstream too.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import httpx
import pytest
from askdocs.edge_runtime.llm import LLMClient, LLMError
from askdocs.edge_runtime.settings import LLMSettings
from askdocs.edge_runtime.sse import parse

from tests.conftest import Server
from tests.fake_llm import FakeLLM, Reply

EMPTY_DELTA = b'data: {"choices": [{"index": 0, "delta": {}}]}\n\n'
ROLE_DELTA = b'data: {"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}\n\n'
COMPLETION = json.dumps(
    {"choices": [{"index": 0, "message": {"role": "assistant", "content": "Use the MSI."}}]}
).encode()


@pytest.fixture(scope="module")
def fake_llm():
    server = FakeLLM()
    yield server
    server.stop()


def settings(fake, **overrides) -> LLMSettings:
    values = {"timeout": 3.0, "idle_timeout": 1.0, "max_stream_bytes": 200_000, "agent": False}
    return LLMSettings(base_url=fake.url, api_key="sk-test", model="fake-1", **{**values, **overrides})


async def consume(client: LLMClient, *, deadline: float | None = None) -> list:
    return [delta async for delta in client.stream([{"role": "user", "content": "hi"}], deadline=deadline)]


def run_client(fake, reply: Reply, limit: float = 10.0, **overrides) -> tuple[LLMError | None, float, list]:
    """(the error, seconds it took, deltas) for one call; the test fails if it outlives `limit`."""
    fake.script(reply)

    async def main():
        client = LLMClient(settings(fake, **overrides))
        started = time.monotonic()
        try:
            deltas = await asyncio.wait_for(consume(client), limit)
        except LLMError as exc:
            return exc, time.monotonic() - started, []
        finally:
            await client.aclose()
        return None, time.monotonic() - started, deltas

    return asyncio.run(main())


@pytest.mark.parametrize(
    "reply,reason,most",
    [
        (Reply(pings=0.3), "idle", 2.5),  # keep-alive comments only
        (Reply(pings=0.3, ping_body=EMPTY_DELTA), "idle", 2.5),  # empty deltas are not content
        (Reply(pings=0.3, ping_body=ROLE_DELTA), "idle", 2.5),
        (Reply(text=["tok "] * 100, delay=0.5), "timeout", 4.5),  # slow tokens: the total deadline
        (Reply(endless=True), "too_long", 3.0),  # endless fast tokens: the byte cap
        (Reply(raw=b"<html><body>Welcome!</body></html>", content_type="text/html"), "not_streamed", 2),
        (Reply(raw=bytes(range(256)) * 4, content_type="application/octet-stream"), "not_streamed", 2),
        (Reply(raw=COMPLETION, content_type="application/json"), "not_streamed", 2),
        (Reply(text=["Use the ", "MSI."], send_done=False), "truncated", 2),
    ],
    ids=["pings", "empty-deltas", "role-deltas", "slow", "endless", "html", "binary", "json", "no-done"],
)
def test_each_misbehaviour_is_one_bounded_error(fake_llm, reply, reason, most):
    error, took, _ = run_client(fake_llm, reply)
    assert error is not None and error.reason == reason, error
    assert took < most, took
    assert fake_llm.wait_idle(2), "the upstream stream was left open"


def test_the_deadline_spans_calls(fake_llm):
    """One deadline for the whole answer: a second call after a slow first gets only what is left."""
    fake_llm.script(Reply(text=["a "] * 6, delay=0.3), Reply(text=["b "] * 20, delay=0.3))

    async def main():
        client = LLMClient(settings(fake_llm, timeout=2.5))
        deadline = client.deadline()
        started = time.monotonic()
        await consume(client, deadline=deadline)
        with pytest.raises(LLMError) as error:
            await consume(client, deadline=deadline)
        await client.aclose()
        return error.value.reason, time.monotonic() - started

    reason, took = asyncio.run(main())
    assert reason == "timeout" and took < 3.5


def test_a_well_formed_stream_passes(fake_llm):
    error, _, deltas = run_client(fake_llm, Reply(text=["Use ", "the MSI."]))
    assert error is None
    assert "".join(d.text for d in deltas if d.kind == "text") == "Use the MSI."


def test_a_consumer_that_stops_closes_the_upstream_connection(fake_llm):
    fake_llm.script(Reply(endless=True, max_seconds=30))

    async def main():
        client = LLMClient(settings(fake_llm, timeout=30, max_stream_bytes=10**9))
        received = 0

        async def reader():
            nonlocal received
            async for delta in client.stream([{"role": "user", "content": "hi"}]):
                received += len(delta.text)

        task = asyncio.create_task(reader())
        while received < 50_000:
            await asyncio.sleep(0.01)
        assert fake_llm.active == 1
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await client.aclose()

    asyncio.run(main())
    assert fake_llm.wait_idle(1.5)


# -- through a real server -------------------------------------------------------------------------
ADMIN = "bounds-test-admin-token-0123"
QUESTIONS = [
    "What does error TFX-1042 mean and how do I fix it?",
    "What does TALLYFOX_DATA_DIR override?",
    "What does the --no-service installer flag do?",
    "How do I install the agent on Windows?",
    "Which HTTP header carries the webhook signature?",
    "I'm getting TFX-2210 from the server, what should I change?",
    "What is the default for --flush-interval on tallyfox agent start?",
]
HANG_UP_QUESTIONS = [
    "What should I do about TFX-5001 during a restore?",
    "How do I send webhooks through a corporate proxy?",
    "How much memory does the machine hosting the server need at the very least?",
]
TIMEOUT = 4.0
BOMB = "(?:(?:(?:a{100}){100}){100}){100}"  # 20 GB before grep ran on RE2


@pytest.fixture(scope="module")
def llm_server(example_site, fake_llm):
    server = Server(
        [str(example_site.site_dir)],
        env={
            "OPENAI_BASE_URL": fake_llm.url,
            "OPENAI_API_KEY": "sk-test",
            "ASKDOCS_LLM_MODEL": "fake-1",
            "ASKDOCS_LLM_AGENT": "on",
            "ASKDOCS_LLM_TIMEOUT": str(TIMEOUT),
            "ASKDOCS_LLM_IDLE_TIMEOUT": "1.5",
            "ASKDOCS_LLM_MAX_BYTES": "300000",
            "ASKDOCS_ADMIN_TOKEN": ADMIN,
        },
    )
    yield server
    server.stop()


def chat(server, question: str, limit: float = 30) -> dict:
    started = time.monotonic()
    response = httpx.post(server.url + "/api/chat", json={"message": question}, timeout=limit)
    events = parse(response.text)
    finals = [(name, data) for name, data in events if name in ("done", "error")]
    assert len(finals) == 1 and events[-1] == finals[0], events[-3:]
    return {
        "events": events,
        "done": finals[0][1] if finals[0][0] == "done" else None,
        "text": "".join(d["text"] for name, d in events if name == "token"),
        "seconds": time.monotonic() - started,
    }


@pytest.mark.parametrize(
    "number,reply,reason",
    [
        (0, Reply(pings=0.5), "idle"),
        (1, Reply(text=["slow "] * 40, delay=0.6), "timeout"),
        (2, Reply(endless=True), "too_long"),
        (3, Reply(raw=b"<!doctype html><title>Hi</title>", content_type="text/html"), "not_streamed"),
        (4, Reply(raw=COMPLETION, content_type="application/json"), "not_streamed"),
        (5, Reply(text=["Use the ", "documented ", "fix."], send_done=False), "truncated"),
        (6, Reply(text=[]), "empty"),
    ],
    ids=["pings", "slow", "endless", "html", "json", "no-done", "empty"],
)
def test_a_misbehaving_llm_ends_in_a_labelled_fallback_that_is_not_cached(
    llm_server, fake_llm, number, reply, reason
):
    question = QUESTIONS[number]
    good = Reply(text=["The docs say so [1]."])
    fake_llm.script(reply, good)
    first = chat(llm_server, question)
    done = first["done"]
    assert done is not None, first["events"][-1]
    assert done["mode"] == "extractive-fallback" and done["fallback_reason"] == reason
    assert done["answered"] and done["citations"]
    assert first["seconds"] < TIMEOUT + 3
    assert fake_llm.wait_idle(3)
    # The fallback was not cached: the same question asks the model again, and that good answer is.
    second = chat(llm_server, question)
    assert second["done"]["mode"] == "llm" and not second["done"].get("cached")
    assert len(fake_llm.requests) == 2
    third = chat(llm_server, question)
    assert third["done"]["mode"] == "llm" and third["done"].get("cached") is True


def test_the_llm_grep_tool_has_the_same_limits(llm_server, fake_llm):
    fake_llm.script(
        Reply(tool_calls=[{"name": "grep", "arguments": json.dumps({"pattern": BOMB})}]),
        Reply(text=["Set the data directory [1]."]),
    )
    result = chat(llm_server, "What is the default --grace period for tallyfox token rotate?")
    assert result["seconds"] < 10
    tool_message = [m for m in fake_llm.requests[1]["body"]["messages"] if m["role"] == "tool"][-1]
    assert "RE2" in tool_message["content"]
    assert result["done"]["mode"] == "llm"


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def test_a_reader_who_hangs_up_stops_the_upstream_stream(llm_server, fake_llm):
    """An endless fast token stream; the reader reads a little and disconnects. The runtime must
    close its upstream connection at once and not keep reading (RSS grew 523 MB → 2.3 GB)."""
    rss = []
    for question in HANG_UP_QUESTIONS:  # asked nowhere else: no cached answer can short-cut the model
        fake_llm.script(Reply(endless=True, endless_pause=0.05, max_seconds=60))
        begun = fake_llm.started
        body = {"message": question}
        with httpx.stream("POST", llm_server.url + "/api/chat", json=body, timeout=30) as response:
            seen, lines = [], response.iter_lines()
            for line in lines:
                seen.append(line)
                if seen[-2:-1] == ["event: token"]:
                    break
            # The reader is reading the model's stream (not a refusal or a fallback) when it hangs up.
            token = json.loads(seen[-1].removeprefix("data: "))["text"] if seen else ""
            assert fake_llm.started == begun + 1 and len(fake_llm.requests) == 1, (question, seen[-12:])
            assert "more and more text" in token, (question, seen[-12:])
        assert fake_llm.wait_idle(1.5), "the runtime kept reading the upstream stream"
        rss.append(rss_mb(llm_server.process.pid))
    assert rss[-1] - rss[0] < 50, rss
    assert "work stopped" in llm_server.output()
