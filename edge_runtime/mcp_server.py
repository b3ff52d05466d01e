"""The docs over the Model Context Protocol: `search`, `ls`, `find`, `cat`, `grep` and `ask` as tools.

One `MCPServer` (the official `mcp` SDK) per runtime, two ways in:

- `/mcp` on `askdocs serve` (streamable HTTP, stateless: every POST stands on its
  own, so any replica behind a load balancer can answer it). The reader is whoever
  the request's `Authorization` header says, decided per request exactly as on
  `/api/*`; the rate limit is the API's (the `Guard` middleware counts `/mcp`).
- `askdocs mcp SITE_DIR` over stdio, for a local agent: the reader is fixed at
  start-up (public, unless a reader token is given).

The tools call what the HTTP API calls (`hybrid_search`, `DocsFS`, the answer
pipeline), so a page a reader may not see is absent here as everywhere. An
`ApiError` (bad path, bad pattern, unknown page, input too large) becomes an MCP
tool error carrying its code and message; anything unexpected is logged and
reported as a failed tool call, never a dropped connection.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import logging
import secrets
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from typing import TYPE_CHECKING, Annotated, Any, NotRequired

import anyio
from askdocs.edge_runtime.access import reader_from_header
from askdocs.edge_runtime.answer import (
    Docs,
    answered_at_once,
    extractive,
    gate,
    prepare,
    support_for,
    with_escalation,
)
from askdocs.edge_runtime.answer_types import Answer
from askdocs.edge_runtime.conversation import ChatRequest
from askdocs.edge_runtime.errors import ApiError
from askdocs.edge_runtime.events import StreamEvent
from askdocs.edge_runtime.fs import DocsFS
from askdocs.edge_runtime.grounding import compose_grounded
from askdocs.edge_runtime.query import make_query, search_query_for
from askdocs.edge_runtime.results import result_json
from askdocs.edge_runtime.scope import Reader
from askdocs.edge_runtime.search import hybrid_search
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field, TypeAdapter
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send
from typing_extensions import TypedDict

from askdocs import __version__
from askdocs.errors import AskdocsError

if TYPE_CHECKING:
    from askdocs.edge_runtime.app import Runtime
    from askdocs.edge_runtime.settings import Settings

log = logging.getLogger("askdocs.mcp")

MCP_PATH = "/mcp"
# JSON-RPC's range for server-defined errors; the askdocs code rides in `data`.
RPC_SERVER_ERROR = -32000
READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)

INSTRUCTIONS = """\
Tools over one documentation site. Paths are the site's page URLs ("/install/", "/guides/sso/").
Start with `search` (ranked sections with snippets) or `ask` (a grounded answer with citations);
use `ls`/`find` to browse, `cat` to read a whole page, `grep` for exact strings across pages.
Only what the docs say is returned: when `ask` finds no evidence it says so (answered=false)
and points to the site's support contact instead of guessing."""

ReaderOf = Callable[[Request | None], Reader]


# --- results (the tools' output schemas) -------------------------------------------------


class SearchHit(TypedDict):
    url: Annotated[str, Field(description="Path with anchor of the matching section; pass it to `cat`")]
    page_url: str
    title: str
    heading: str
    snippet: Annotated[str, Field(description="Plain text around the match")]
    score: float
    locale: str
    kind: Annotated[str, Field(description="`section` of a page, or `faq` (a question-answer pair)")]
    lastmod: Annotated[str | None, Field(description="Date of the section or page, when known")]


class SearchResult(TypedDict):
    query: str
    locale: Annotated[str, Field(description="Locale searched (the default when the requested has no pages)")]
    retrievers: Annotated[list[str], Field(description="Retrievers that ran (lexical, dense, ...)")]
    retriever_errors: dict[str, str]
    index_version: str
    results: Annotated[list[SearchHit], Field(description="Best first")]


class Entry(TypedDict):
    name: str
    path: str
    type: Annotated[str, Field(description="`dir` (has children; may also be a page) or `page`")]
    title: str


class LsResult(TypedDict):
    path: str
    entries: list[Entry]


class Found(TypedDict):
    path: str
    title: str


class FindResult(TypedDict):
    results: list[Found]


class Page(TypedDict):
    path: str
    title: str
    locale: str
    content: Annotated[str, Field(description="The page as text, with its headings and code blocks")]
    lastmod: NotRequired[str | None]


class Match(TypedDict):
    path: str
    line: Annotated[int, Field(description="1-based line number in the page's `cat` content")]
    text: str
    before: NotRequired[str]
    after: NotRequired[str]


class GrepResult(TypedDict):
    pattern: str
    path: str
    matches: list[Match]
    complete: Annotated[bool, Field(description="False when the match limit or the time budget cut it short")]
    timed_out: bool
    pages_searched: int


class Citation(TypedDict):
    url: str
    title: str


class Escalation(TypedDict):
    url: str
    text: str


class AskResult(TypedDict):
    answer: Annotated[str, Field(description="Markdown, in the documentation's own words (or an LLM's)")]
    answered: Annotated[bool, Field(description="False when the docs hold no evidence; then do not guess")]
    mode: Annotated[str, Field(description="What wrote it: extractive, llm or extractive-fallback")]
    citations: list[Citation]
    escalation: Annotated[Escalation | None, Field(description="Where a person can help (support page)")]
    confidence: float | None
    fallback_reason: NotRequired[str]


@functools.cache
def _adapter(shape: type) -> TypeAdapter:
    return TypeAdapter(shape)


def shaped(shape: type, data: dict) -> Any:
    """`data` with exactly the fields its output schema names, so the JSON text block and the
    structured result an agent gets are the same object."""
    adapter = _adapter(shape)
    return adapter.dump_python(adapter.validate_python(data), mode="json")


# --- the server ---------------------------------------------------------------------------


@contextlib.contextmanager
def tool_errors() -> Iterator[None]:
    """The API's errors as MCP tool errors: the agent reads `code: message` and can correct itself."""
    try:
        yield
    except ApiError as exc:
        raise ToolError(f"{exc.code}: {exc.message}") from exc


def create_server(runtime: Runtime, reader_of: ReaderOf) -> MCPServer:
    """The six tools over `runtime`; `reader_of(request)` names who is asking (request is None on stdio)."""
    rt = runtime
    server: MCPServer = MCPServer(
        "askdocs",
        title="askdocs documentation tools",
        instructions=INSTRUCTIONS,
        version=__version__,
    )

    def scoped(ctx: Context):
        request = ctx.request_context.request if ctx.request_context is not None else None
        live = rt.holder.state
        return live, rt.scopes.get(live.corpus, reader_of(request))

    def fs(ctx: Context) -> DocsFS:
        _, scope = scoped(ctx)
        return DocsFS(scope, rt.fs_caches)

    @server.tool(
        annotations=READ_ONLY,
        description=(
            "Search the documentation. Returns the best-matching sections (best first) with their "
            "path, title, heading and a plain-text snippet. Works with natural-language questions and "
            "exact terms (error codes, flags, settings). Read a hit in full with `cat`."
        ),
    )
    async def search(
        ctx: Context,
        query: Annotated[
            str, Field(description="Words or exact terms to look for (at most 1,000 characters)")
        ],
        k: Annotated[int, Field(ge=1, le=50, description="How many results (1-50)")] = 10,
        locale: Annotated[
            str | None, Field(description="Language of the pages to search, e.g. `en`; default: the site's")
        ] = None,
    ) -> SearchResult:
        with tool_errors():
            text = _required(query, "query", rt.settings.max_query_chars)
            _locale(locale)
            live, scope = scoped(ctx)
            outcome = await run_in_threadpool(
                hybrid_search, scope, live.embedder, search_query_for(text, locale, scope), k
            )
            rt.record_search(outcome)
            return shaped(
                SearchResult,
                {
                    "query": text,
                    "locale": outcome.locale,
                    "retrievers": outcome.retrievers,
                    "retriever_errors": outcome.errors,
                    "index_version": live.corpus.version,
                    "results": [result_json(live.corpus, outcome, hit) for hit in outcome.hits],
                },
            )

    @server.tool(
        annotations=READ_ONLY,
        description=(
            "List a folder of the documentation like `ls`: its child pages and folders with titles. "
            "Paths are page URLs; start at `/`."
        ),
    )
    async def ls(
        ctx: Context,
        path: Annotated[str, Field(description="Folder or page path, e.g. `/` or `/guides/`")] = "/",
    ) -> LsResult:
        with tool_errors():
            return shaped(LsResult, fs(ctx).ls(path))

    @server.tool(
        annotations=READ_ONLY,
        description=(
            "Find pages by name or title, like `find -name`: exact names first, then prefixes, then "
            "substrings. Glob patterns (`*`, `?`, `[...]`) match path segments and titles."
        ),
    )
    async def find(
        ctx: Context,
        name: Annotated[str, Field(description="Name, title words or a glob, e.g. `webhooks` or `*sso*`")],
        path: Annotated[str, Field(description="Only under this folder")] = "/",
    ) -> FindResult:
        with tool_errors():
            return shaped(FindResult, fs(ctx).find(name, path))

    @server.tool(
        annotations=READ_ONLY,
        description=(
            "Read one documentation page in full, as text with its headings and code blocks "
            "(like `cat`). Use a path from `search`, `ls` or `find`; an anchor (`#...`) is ignored."
        ),
    )
    async def cat(
        ctx: Context,
        path: Annotated[str, Field(description="Page path, e.g. `/install/`")],
    ) -> Annotated[CallToolResult, Page]:
        with tool_errors():
            page = shaped(Page, fs(ctx).cat(_required(path, "path", 1000)))
        header = f"# {page['title']}\n\n(path: {page['path']}, locale: {page['locale']})\n\n"
        return CallToolResult(
            content=[TextContent(type="text", text=header + page["content"])], structured_content=page
        )

    @server.tool(
        annotations=READ_ONLY,
        description=(
            "Search the pages' text line by line with a regular expression (Python `re` syntax), like "
            "`grep -n`. Returns matching lines with their page path and 1-based line number (as in "
            "`cat`), plus the lines before and after. Runs under a time budget; `complete` is false when "
            "it was cut short."
        ),
    )
    async def grep(
        ctx: Context,
        pattern: Annotated[
            str, Field(description="Regular expression, e.g. `TFX-10\\d\\d` (at most 500 chars)")
        ],
        path: Annotated[str, Field(description="Only pages under this folder")] = "/",
        ignore_case: Annotated[bool, Field(description="Match regardless of case")] = False,
    ) -> GrepResult:
        with tool_errors():
            pattern = _required(pattern, "pattern", rt.settings.max_pattern_chars, strip=False)
            found = await run_in_threadpool(
                lambda: fs(ctx).grep(
                    pattern, path, ignore_case=ignore_case, budget=rt.settings.grep_budget_seconds
                )
            )
            return shaped(GrepResult, found)

    @server.tool(
        annotations=READ_ONLY,
        description=(
            "Ask the documentation a question and get an answer grounded in it, with citations "
            "(page paths and titles). When the docs hold no evidence, `answered` is false, the answer "
            "says what was checked, and `escalation` points to the site's support contact: do not "
            "invent an answer then. `mode` says what wrote the answer (extractive: the docs' own "
            "sentences; llm; extractive-fallback: the LLM failed)."
        ),
    )
    async def ask(
        ctx: Context,
        question: Annotated[str, Field(description="A self-contained question (at most 4,000 characters)")],
        locale: Annotated[
            str | None, Field(description="Language to answer in, e.g. `en` or `es`; default: detected")
        ] = None,
        page_url: Annotated[
            str | None, Field(description="The page the question is about, a hint for retrieval")
        ] = None,
    ) -> Annotated[CallToolResult, AskResult]:
        with tool_errors():
            request = ChatRequest.parse(
                json.dumps({"message": question, "locale": locale, "page_url": page_url}).encode()
            )
            live, scope = scoped(ctx)
            answer = await _answer(rt, live, scope, request)
        result: dict[str, Any] = {
            "answer": answer.text,
            "answered": answer.answered,
            "mode": answer.mode,
            "citations": answer.citations,
            "escalation": _escalation(answer.escalation),
            "confidence": answer.confidence,
        }
        if answer.extra.get("fallback_reason"):
            result["fallback_reason"] = answer.extra["fallback_reason"]
        return CallToolResult(
            content=[TextContent(type="text", text=_answer_text(answer))], structured_content=result
        )

    return server


async def _answer(rt: Runtime, live, scope, request: ChatRequest) -> Answer:
    """What `POST /api/chat` composes, without the stream: the same pipeline, counted and logged."""
    settings = rt.chat.settings
    docs = Docs(scope, live.embedder, rt.fs_caches)
    query = make_query(request, scope)
    support = support_for(scope, query.locale, settings.support_url)
    answer = answered_at_once(query, support)
    if answer is None:
        case = await run_in_threadpool(prepare, docs, query, settings)
        rt.record_search(case.outcome)
        answer = gate(case, settings)
        if answer is None and rt.chat.llm is not None:
            answer = await compose_grounded(
                docs, case, rt.chat.llm, _ignore, lambda usage: _count_usage(rt, usage)
            )
            if answer.mode == "extractive-fallback":
                rt.metrics.llm_failures.labels(answer.extra.get("fallback_reason", "unknown")).inc()
        elif answer is None:
            answer = await run_in_threadpool(extractive, docs, case)
        answer = with_escalation(answer, query, case.support)
    rt.metrics.answers.labels(answer.mode, str(answer.answered).lower()).inc()
    if answer.escalation:
        rt.metrics.escalations.labels(answer.extra.get("escalation_reason") or "no_evidence").inc()
    rt.events.write(
        {
            "type": "answer",
            "channel": "mcp",
            "answer_id": "a_" + secrets.token_hex(8),
            "locale": query.locale,
            "scope": sorted(scope.groups),
            "index_version": live.corpus.version,
            **rt.events.question_field(request.message),
            "answered": answer.answered,
            "mode": answer.mode,
            "confidence": answer.confidence,
            "citations": [c["url"] for c in answer.citations],
            "escalation": answer.escalation is not None,
            "escalation_reason": answer.extra.get("escalation_reason")
            or (None if answer.answered else "no_evidence"),
            "fallback_reason": answer.extra.get("fallback_reason"),
        }
    )
    return answer


async def _ignore(event: StreamEvent) -> None:
    """Token events: the MCP result carries the whole answer at once."""


def _count_usage(rt: Runtime, usage: dict) -> None:
    for kind in ("prompt_tokens", "completion_tokens"):
        rt.metrics.llm_tokens.labels(kind).inc(usage.get(kind) or 0)


def _escalation(escalation: dict | None) -> dict | None:
    return None if escalation is None else {"url": escalation["url"], "text": escalation["text"]}


def _answer_text(answer: Answer) -> str:
    """The answer as an agent reads it: the text, its sources, and who to ask when it could not answer."""
    lines = [answer.text.strip()]
    if answer.citations:
        lines.append("Sources:\n" + "\n".join(f"- {c['title']}: {c['url']}" for c in answer.citations))
    if answer.escalation:
        lines.append(f"{answer.escalation['text']}: {answer.escalation['url']}")
    lines.append(f"(answered: {str(answer.answered).lower()}, mode: {answer.mode})")
    return "\n\n".join(lines)


def _required(value: str, name: str, limit: int, strip: bool = True) -> str:
    if not value or not value.strip():
        raise ApiError(400, "missing_field", f"`{name}` is required")
    if len(value) > limit:
        raise ApiError(413, "too_large", f"`{name}` is over {limit:,} characters")
    return value.strip() if strip else value


def _locale(locale: str | None) -> None:
    if locale is not None and len(locale) > 32:
        raise ApiError(400, "bad_locale", "`locale` must be a string of at most 32 characters")


# --- HTTP ---------------------------------------------------------------------------------


def rpc_error(status: int, code: str, message: str, headers: dict | None = None) -> Response:
    """An HTTP refusal an MCP client can show: a JSON-RPC error body (no request id yet)."""
    body = {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": RPC_SERVER_ERROR, "message": message, "data": {"code": code}},
    }
    return Response(json.dumps(body), status_code=status, media_type="application/json", headers=headers)


class McpEndpoint:
    """`/mcp`: the reader's token is checked before the SDK sees the request (a bad or expired
    token is a 401, as on /api/*); each tool call then scopes itself from the same header."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        secret = runtime.settings.jwt_secret
        self.server = create_server(
            runtime,
            lambda request: reader_from_header(
                request.headers.get("authorization") if request is not None else None, secret
            ),
        )
        # Stateless JSON responses: no session to pin to one replica, nothing held open. No DNS-
        # rebinding host check: askdocs runs behind CDNs and proxies under any host name, and
        # without a reader token /mcp shows only what the public site already shows.
        self.server.streamable_http_app(
            streamable_http_path=MCP_PATH,
            stateless_http=True,
            json_response=True,
            max_request_body_size=runtime.settings.max_chat_bytes,
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        )
        self.manager = self.server.session_manager
        # Stateless requests each "terminate a session" at INFO: one line per request, no news.
        logging.getLogger("mcp.server.streamable_http").setLevel(logging.WARNING)

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        async with self.manager.run():
            yield

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope)
        try:
            reader_from_header(request.headers.get("authorization"), self.runtime.settings.jwt_secret)
        except ApiError as exc:
            response = rpc_error(
                exc.status, exc.code, f"{exc.code}: {exc.message}", {"WWW-Authenticate": "Bearer"}
            )
            await response(scope, receive, send)
            return
        await self.manager.handle_request(scope, receive, send)


# --- stdio --------------------------------------------------------------------------------


def run_stdio(settings: Settings, token: str | None) -> None:
    """`askdocs mcp`: load the index, then serve until the agent closes stdin."""
    from askdocs.edge_runtime.app import Runtime
    from askdocs.edge_runtime.holder import IndexHolder

    try:
        reader = reader_from_header(f"Bearer {token}" if token else None, settings.jwt_secret)
    except ApiError as exc:
        raise AskdocsError(f"askdocs mcp: {exc.message}") from exc
    # A local agent's server: one reader, no shared stores, no per-client budget.
    settings = dataclasses.replace(settings, redis_url=None, rate_limit=None)
    # stdout is the protocol's: anything a loader prints goes to stderr.
    with contextlib.redirect_stdout(sys.stderr):
        holder = IndexHolder(settings.index, settings.private)
        holder.state.embedder.vector("askdocs start-up check")
        runtime = Runtime(settings, holder)
    log.info(
        "askdocs mcp: serving %s over stdio for %s",
        settings.site_dir or settings.index,
        "groups " + ", ".join(sorted(reader.groups)) if reader.groups else "public readers",
    )
    anyio.run(serve_stdio, runtime, reader)


async def serve_stdio(runtime: Runtime, reader: Reader) -> None:
    """`askdocs mcp`: the tools over this process's stdin/stdout, for one fixed reader."""
    server = create_server(runtime, lambda _request: reader)
    interval = runtime.settings.reload_interval
    try:
        async with anyio.create_task_group() as tasks:
            if interval > 0:
                tasks.start_soon(_poll, runtime, interval)
            await server.run_stdio_async()
            tasks.cancel_scope.cancel()
    finally:
        await runtime.chat.aclose()


async def _poll(runtime: Runtime, interval: float) -> None:
    """A new index goes live without restarting the agent's server (as `askdocs serve` does)."""
    while True:
        await anyio.sleep(interval)
        with contextlib.suppress(Exception):  # logged by the holder; the old index keeps serving
            await run_in_threadpool(runtime.holder.check)
