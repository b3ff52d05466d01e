"""The MCP server, through the official SDK's client: `/mcp` on a real `askdocs serve`, and
`askdocs mcp` over stdio as a subprocess. Tools, results, scoping, errors, rate limits."""

from __future__ import annotations

import json
import os
import re
import sys
import time
from contextlib import asynccontextmanager

import anyio
import httpx
import httpx2
import jwt
import pytest
from askdocs.edge_runtime.sse import parse
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from tests.conftest import RESTRICTED_PHRASES, Server
from tests.fake_llm import FakeLLM, Reply

SECRET = "mcp-test-secret-that-is-long-enough-for-hs256"
TOOLS = {"search", "ls", "find", "cat", "grep", "ask"}
RUNBOOK = "/internal/runbook/"


def token(groups, expires_in=600) -> str:
    return jwt.encode(
        {"sub": "agent", "groups": groups, "exp": int(time.time()) + expires_in}, SECRET, algorithm="HS256"
    )


@pytest.fixture(scope="module")
def server(example_site):
    process = Server([str(example_site.site_dir)], env={"ASKDOCS_JWT_SECRET": SECRET})
    yield process
    process.stop()


@asynccontextmanager
async def http_client(url: str, bearer: str | None = None, mode: str = "legacy"):
    headers = {"Authorization": f"Bearer {bearer}"} if bearer else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        Client(streamable_http_client(url + "/mcp", http_client=http), mode=mode) as client,
    ):
        yield client


def calls(url: str, steps: list[tuple[str, dict]], bearer: str | None = None, mode: str = "legacy"):
    """Run tool calls in one MCP session; returns the CallToolResults."""

    async def main():
        async with http_client(url, bearer, mode) as client:
            return [await client.call_tool(name, args) for name, args in steps]

    return anyio.run(main)


def call(url: str, name: str, args: dict, bearer: str | None = None):
    return calls(url, [(name, args)], bearer)[0]


def mcp_error(exc: BaseException) -> MCPError | None:
    """The MCPError inside whatever task groups the client raised it through."""
    if isinstance(exc, MCPError):
        return exc
    for inner in getattr(exc, "exceptions", ()):
        found = mcp_error(inner)
        if found is not None:
            return found
    return None


def text_of(result) -> str:
    return "\n".join(block.text for block in result.content)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_tool_list(server, mode):
    """Both the initialize handshake (today's clients) and the 2026 discover probe work."""

    async def main():
        async with http_client(server.url, mode=mode) as client:
            return client.server_info, (await client.list_tools()).tools

    info, tools = anyio.run(main)
    assert info.name == "askdocs"
    assert {tool.name for tool in tools} == TOOLS
    for tool in tools:
        assert len(tool.description) > 60, tool.name
        assert tool.annotations.read_only_hint is True
        schema = tool.input_schema
        assert schema["type"] == "object" and schema["properties"]
        assert all(prop.get("description") for prop in schema["properties"].values()), tool.name
        assert tool.output_schema and tool.output_schema["type"] == "object"
    required = {tool.name: set(tool.input_schema.get("required", [])) for tool in tools}
    assert required == {
        "search": {"query"},
        "ls": set(),
        "find": {"name"},
        "cat": {"path"},
        "grep": {"pattern"},
        "ask": {"question"},
    }
    search = next(tool for tool in tools if tool.name == "search")
    assert search.input_schema["properties"]["k"]["maximum"] == 50


def test_each_tool_answers_like_the_http_api(server):
    search, ls, find, cat, grep, ask, refusal = calls(
        server.url,
        [
            ("search", {"query": "install on windows", "k": 3}),
            ("ls", {"path": "/"}),
            ("find", {"name": "webhooks"}),
            ("cat", {"path": "/install/#install-on-windows"}),
            ("grep", {"pattern": r"TFX-10\d\d"}),
            ("ask", {"question": "How do I install the agent on Windows?"}),
            ("ask", {"question": "Does Tallyfox have a native Slack integration?"}),
        ],
    )
    assert not any(r.is_error for r in (search, ls, find, cat, grep, ask, refusal))

    http = httpx.get(server.url + "/api/search", params={"q": "install on windows", "k": 3}).json()
    found = search.structured_content
    assert [r["url"] for r in found["results"]] == [r["url"] for r in http["results"]]
    assert found["results"][0]["page_url"] == "/install/" and found["results"][0]["snippet"]
    assert json.loads(text_of(search)) == found  # the text block is the same result, as JSON

    entries = {e["path"]: e for e in ls.structured_content["entries"]}
    assert entries["/install/"]["type"] == "page" and entries["/guides/"]["type"] == "dir"
    assert ls.structured_content == {
        k: v for k, v in httpx.get(server.url + "/api/fs/ls").json().items() if k in ("path", "entries")
    }
    assert "/guides/webhooks/" in [r["path"] for r in find.structured_content["results"]]

    page = cat.structured_content
    assert page["path"] == "/install/" and page["title"] == "Install"
    assert "winget install" in page["content"]
    assert text_of(cat).startswith("# Install\n") and page["content"] in text_of(cat)

    matches = grep.structured_content["matches"]
    assert matches and all(m["path"] and m["line"] >= 1 for m in matches)
    first = matches[0]
    page_text = httpx.get(server.url + "/api/fs/cat", params={"path": first["path"]}).json()["content"]
    assert page_text.split("\n")[first["line"] - 1] == first["text"]

    answer = ask.structured_content
    assert answer["answered"] is True and answer["mode"] == "extractive"
    assert answer["escalation"] is None
    assert any(c["url"].startswith("/install/") for c in answer["citations"])
    assert "winget" in answer["answer"]
    assert "Sources:" in text_of(ask) and "/install/" in text_of(ask)

    no = refusal.structured_content
    assert no["answered"] is False and no["citations"] == []
    assert no["escalation"] == {"url": "/support/", "text": "Contact support"}
    assert no["answer"].startswith("I couldn't confirm this in the documentation.")
    assert "Contact support: /support/" in text_of(refusal)


def test_ask_matches_the_chat_endpoint(server):
    question = "Which port does the agent use to reach the server?"
    mcp_answer = call(server.url, "ask", {"question": question}).structured_content
    stream = httpx.post(server.url + "/api/chat", json={"message": question}, timeout=60).text
    done = next(data for event, data in parse(stream) if event == "done")
    assert (mcp_answer["answered"], mcp_answer["mode"], mcp_answer["citations"]) == (
        done["answered"],
        done["mode"],
        done["citations"],
    )


RESTRICTED_STEPS = [
    ("search", {"query": "BLUE HERON escalation runbook", "k": 50}),
    ("cat", {"path": RUNBOOK}),
    ("grep", {"pattern": "BLUE HERON|marigold"}),
    ("find", {"name": "runbook"}),
    ("ls", {"path": "/internal/"}),
    ("ask", {"question": "What is the escalation phrase in the on-call runbook?"}),
]


def test_restricted_pages_are_absent_without_the_group(server):
    for bearer in (None, token(["partners"])):
        search, cat, grep, find, ls, ask = calls(server.url, RESTRICTED_STEPS, bearer)
        everything = json.dumps([r.model_dump(mode="json") for r in (search, cat, grep, find, ls, ask)])
        assert not any(phrase in everything for phrase in RESTRICTED_PHRASES[1:])
        assert "/internal/" not in json.dumps(search.structured_content["results"])
        assert cat.is_error and "not_found" in text_of(cat)
        assert grep.structured_content["matches"] == []
        assert find.structured_content["results"] == []
        assert ls.is_error and "not_found" in text_of(ls)
        assert not any("/internal/" in c["url"] for c in ask.structured_content["citations"])
        assert "BLUE HERON" not in ask.structured_content["answer"]


def test_a_staff_token_opens_them_in_every_tool(server):
    search, cat, grep, find, ls, ask = calls(server.url, RESTRICTED_STEPS, token(["staff"]))
    assert search.structured_content["results"][0]["page_url"] == RUNBOOK
    assert not cat.is_error and "BLUE HERON" in cat.structured_content["content"]
    assert {m["path"] for m in grep.structured_content["matches"]} >= {RUNBOOK}
    assert RUNBOOK in [r["path"] for r in find.structured_content["results"]]
    assert [e["path"] for e in ls.structured_content["entries"]] == [RUNBOOK]
    assert any(RUNBOOK in c["url"] for c in ask.structured_content["citations"])


@pytest.mark.parametrize(
    "bearer,code",
    [("not-a-jwt", "bad_token"), (token(["staff"], expires_in=-10), "token_expired")],
)
def test_a_bad_token_is_refused_before_any_tool_runs(server, bearer, code):
    with pytest.raises((MCPError, BaseExceptionGroup)) as caught:
        calls(server.url, [("ls", {})], bearer)
    error = mcp_error(caught.value)
    assert error.error.data == {"code": code} and code in str(error)
    raw = httpx.post(server.url + "/mcp", headers={"Authorization": f"Bearer {bearer}"}, json={})
    assert raw.status_code == 401 and raw.headers["www-authenticate"] == "Bearer"


@pytest.mark.parametrize(
    "name,args,expected",
    [
        ("grep", {"pattern": "("}, "bad_pattern: invalid regular expression"),
        ("grep", {"pattern": "(?:(?:(?:a{100}){100}){100})"}, "unsupported_pattern"),
        ("grep", {"pattern": "x" * 501}, "too_large: `pattern` is over 500 characters"),
        ("cat", {"path": "/nope/"}, "not_found: no such path: /nope/"),
        ("cat", {"path": "/guides/"}, "is a directory, not a page"),
        ("cat", {"path": "/../../etc/passwd"}, "bad_path: path traversal"),
        ("cat", {}, "path\n  Field required"),
        ("ls", {"path": "/missing/"}, "not_found"),
        ("find", {"name": " "}, "missing_field: `name` is required"),
        ("search", {"query": "x" * 1001}, "too_large: `query` is over 1,000 characters"),
        ("search", {"query": "install", "k": 0}, "greater than or equal to 1"),
        ("search", {}, "query\n  Field required"),
        ("ask", {"question": "x" * 4001}, "too_large: `message` is over 4,000 characters"),
        ("ask", {"question": "hi", "locale": "!!"}, "bad_locale"),
        ("nope", {}, "Unknown tool: nope"),
    ],
)
def test_errors_are_tool_errors_with_clear_messages(server, name, args, expected):
    result, after = calls(server.url, [(name, args), ("ls", {})])
    assert result.is_error and expected in text_of(result)
    assert not after.is_error  # the session goes on


def test_the_api_rate_limit_counts_mcp_requests(example_site):
    limited = Server([str(example_site.site_dir)], env={"ASKDOCS_RATE_LIMIT": "8/minute"})
    try:

        async def main():
            async with http_client(limited.url) as client:
                for attempt in range(10):  # the handshake and the client's own listing count too
                    try:
                        assert not (await client.call_tool("ls", {})).is_error
                    except MCPError as exc:
                        return attempt, exc
            return None, None

        attempt, refused = anyio.run(main)
        assert refused is not None and 2 <= attempt < 8
        assert re.fullmatch(r"too many requests; retry in \d+s", refused.error.message)
        assert refused.error.data == {"code": "rate_limited"}
        # One budget per client for /api/* and /mcp.
        assert httpx.get(limited.url + "/api/fs/ls").status_code == 429
        counted = {
            status: float(value)
            for status, value in re.findall(
                r'askdocs_requests_total\{endpoint="/mcp",status="(\d+)"\} (\S+)',
                httpx.get(limited.url + "/metrics").text,
            )
        }
        assert counted.pop("429") >= 1 and sum(counted.values()) == 8
    finally:
        limited.stop()


def test_ask_uses_the_configured_llm_and_says_when_it_fell_back(example_site):
    fake = FakeLLM()
    llm_env = {"OPENAI_BASE_URL": fake.url, "ASKDOCS_LLM_MODEL": "fake-1", "ASKDOCS_LLM_AGENT": "off"}
    served = Server([str(example_site.site_dir)], env={**llm_env, "ASKDOCS_ANSWER_CACHE": "0"})
    try:
        question = {"question": "Which header carries the webhook signature?"}
        fake.script(Reply(text=["Use the ", "`X-Tallyfox-Signature` header [1]."]))
        (llm,) = calls(served.url, [("ask", question)])
        fake.script(Reply(status=500, error_body='{"error": "overloaded"}'))
        (fallback,) = calls(served.url, [("ask", question)])
    finally:
        served.stop()
        fake.stop()
    answer = llm.structured_content
    assert answer["mode"] == "llm" and answer["answered"] is True
    assert answer["answer"] == "Use the `X-Tallyfox-Signature` header [1]."
    assert answer["citations"][0]["url"].startswith("/guides/webhooks/")
    assert "fallback_reason" not in answer
    answer = fallback.structured_content
    assert answer["mode"] == "extractive-fallback" and answer["fallback_reason"] == "http_5xx"
    assert answer["answer"].startswith("(The language model was unavailable")
    assert "mode: extractive-fallback" in text_of(fallback)


def stdio_params(site_dir, *extra: str, env: dict | None = None) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "askdocs.cli", "mcp", str(site_dir), *extra],
        env={**os.environ, **(env or {})},
    )


def test_stdio_server_serves_the_same_tools(example_site):
    async def main(params):
        async with Client(params, mode="legacy") as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            results = [await client.call_tool(name, args) for name, args in RESTRICTED_STEPS[:2]]
            results.append(await client.call_tool("ask", {"question": "How do I install on Windows?"}))
            return names, results

    names, (search, cat, ask) = anyio.run(main, stdio_params(example_site.site_dir))
    assert names == TOOLS
    assert "/internal/" not in json.dumps(search.structured_content["results"])
    assert cat.is_error and "not_found" in text_of(cat)
    assert ask.structured_content["answered"] is True

    staff = stdio_params(
        example_site.site_dir, env={"ASKDOCS_MCP_TOKEN": token(["staff"]), "ASKDOCS_JWT_SECRET": SECRET}
    )
    _, (search, cat, _) = anyio.run(main, staff)
    assert search.structured_content["results"][0]["page_url"] == RUNBOOK
    assert "BLUE HERON" in cat.structured_content["content"]


def test_stdio_refuses_a_token_it_cannot_check(example_site, tmp_path):
    import subprocess

    env = {k: v for k, v in os.environ.items() if k != "ASKDOCS_JWT_SECRET"}
    result = subprocess.run(
        [sys.executable, "-m", "askdocs.cli", "mcp", str(example_site.site_dir), "--token", token(["staff"])],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 2
    assert "askdocs mcp: this server does not accept reader tokens" in result.stderr
    assert result.stdout == ""
