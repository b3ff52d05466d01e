"""The Starlette app, built by `create_app` from explicit parts (no module-level state)."""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path

from askdocs.edge_runtime import openapi
from askdocs.edge_runtime.access import reader_from_header
from askdocs.edge_runtime.answer import AnswerSettings
from askdocs.edge_runtime.chat import ChatRequest, ChatService
from askdocs.edge_runtime.clientaddr import ClientAddress, ClientAddressMiddleware
from askdocs.edge_runtime.drain import Drain, bounded
from askdocs.edge_runtime.errors import (
    ApiError,
    api_error_handler,
    error_response,
    http_error_handler,
    json_object,
)
from askdocs.edge_runtime.eventlog import EventLog
from askdocs.edge_runtime.fs import DocsFS, FsCaches
from askdocs.edge_runtime.holder import IndexHolder
from askdocs.edge_runtime.llm import LLMClient
from askdocs.edge_runtime.mcp_server import MCP_PATH, McpEndpoint, rpc_error
from askdocs.edge_runtime.metrics import Metrics
from askdocs.edge_runtime.query import make_query, search_query_for
from askdocs.edge_runtime.ratelimit import Decision, RateLimiter
from askdocs.edge_runtime.results import result_json
from askdocs.edge_runtime.scope import ScopeCache
from askdocs.edge_runtime.search import ANSWER_WEIGHTS, DEFAULT_WEIGHTS, SearchOutcome, hybrid_search
from askdocs.edge_runtime.settings import Settings
from askdocs.edge_runtime.slowclients import BodyDeadline
from askdocs.edge_runtime.state import RedisAnswerCache, SharedState
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from askdocs import __version__
from askdocs.shards import SHARD_DIR

log = logging.getLogger("askdocs.runtime")
STAGE_NAMES = ("lexical", "dense", "rerank")  # what /healthz and /metrics report on


def _serving_stages() -> tuple[str, ...]:
    """The stages that order results (the second stage only when it is switched on)."""
    return tuple(n for n in STAGE_NAMES if n != "rerank" or DEFAULT_WEIGHTS.stage == "rerank")

CONTRACT_VERSION = "1.1"


@dataclass
class RetrieverHealth:
    runs: dict[str, int] = field(default_factory=lambda: dict.fromkeys(STAGE_NAMES, 0))
    failures: dict[str, int] = field(default_factory=lambda: dict.fromkeys(STAGE_NAMES, 0))
    last_error: dict[str, str | None] = field(default_factory=lambda: dict.fromkeys(STAGE_NAMES))
    ok: dict[str, bool] = field(default_factory=lambda: dict.fromkeys(STAGE_NAMES, True))


class Runtime:
    """Everything a request needs, passed around explicitly (app.state.runtime)."""

    def __init__(self, settings: Settings, holder: IndexHolder) -> None:
        self.settings = settings
        self.holder = holder
        self.scopes = ScopeCache()
        self.fs_caches = FsCaches()
        self.retrievers = RetrieverHealth()
        self.shared = SharedState(settings)
        self.metrics = Metrics(self._caches, self.state_figures)
        self.limiter = (
            RateLimiter(settings.rate_limit, self.shared.link, settings.rate_limit_fail)
            if settings.rate_limit
            else None
        )
        self.events = EventLog(settings.event_log, settings.log_questions, self.shared.events)
        self.chat = ChatService(
            answer_settings(settings),
            metrics=self.metrics,
            event_log=self.events,
            fs_caches=self.fs_caches,
            on_search=self.record_search,
            answer_cache=self.shared.answers,
            llm=(
                LLMClient(settings.llm, budget=self.shared.token_budget(settings.llm.daily_token_budget))
                if settings.llm
                else None
            ),
            cache_enabled=settings.answer_cache > 0,
        )
        # With a shared rate limit and a shared cache, a chat's limit decision and its cache
        # lookup go to Redis in one round trip: the chat route counts itself (see Guard).
        self.chat_counts_itself = (
            self.limiter is not None
            and self.limiter.link is not None
            and isinstance(self.shared.answers, RedisAnswerCache)
            and self.chat.cache_enabled
        )
        self.drain = Drain()
        self.started = time.time()

    def _caches(self):
        return [
            self.holder.state.embedder.cache,
            *self.fs_caches.all(),
            self.scopes._lru,
            self.chat.answer_cache,
        ]

    def state_figures(self) -> dict:
        """Shared-state counters for /metrics (see Metrics)."""
        link, events = self.shared.link, self.shared.events
        return {
            "redis_up": None if link is None else int(link.ok),
            "redis_errors": {} if link is None else link.errors,
            "redis_round_trips": None if link is None else link.round_trips,
            "redis_wait_seconds": {} if link is None else link.wait_seconds,
            "rate_limit_degraded": self.limiter.degraded if self.limiter else 0,
            "answer_cache_skipped": self.chat.answer_cache.skipped,
            "events_buffered": None if events is None else len(events.pending),
            "events_dropped": None if events is None else events.dropped,
            "events_written": None if events is None else events.written,
        }

    def scope_for(self, request: Request, corpus):
        reader = reader_from_header(request.headers.get("authorization"), self.settings.jwt_secret)
        return reader, self.scopes.get(corpus, reader)

    def record_search(self, outcome: SearchOutcome) -> None:
        for name in STAGE_NAMES:
            if name in outcome.retrievers:
                self.retrievers.runs[name] += 1
                self.retrievers.ok[name] = True
                self.metrics.retrievers.labels(name, "ok").inc()
            elif name in outcome.errors:
                self.retrievers.failures[name] += 1
                self.retrievers.ok[name] = False
                self.retrievers.last_error[name] = outcome.errors[name]
                self.metrics.retrievers.labels(name, "failed").inc()


def answer_settings(settings: Settings) -> AnswerSettings:
    """The pipeline's settings from the runtime's (the same for chat, eval and MCP)."""
    if settings.min_confidence is None:
        return AnswerSettings(support_url=settings.support_url)
    return AnswerSettings(min_confidence=settings.min_confidence, support_url=settings.support_url)


def _runtime(request: Request) -> Runtime:
    return request.app.state.runtime


def _int_param(request: Request, name: str, default: int, low: int, high: int) -> int:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError as exc:
        raise ApiError(400, f"bad_{name}", f"`{name}` must be an integer") from exc
    if not low <= value <= high:
        raise ApiError(400, f"bad_{name}", f"`{name}` must be between {low} and {high}")
    return value


def _text_param(request: Request, name: str, limit: int, required: bool = True) -> str | None:
    value = request.query_params.get(name)
    if value is None or not value.strip():
        if required:
            raise ApiError(400, "missing_field", f"`{name}` is required")
        return None
    if len(value) > limit:
        raise ApiError(413, "too_large", f"`{name}` is over {limit:,} characters")
    return value


async def search_endpoint(request: Request) -> Response:
    rt = _runtime(request)
    live = rt.holder.state
    _, scope = rt.scope_for(request, live.corpus)
    if request.method == "POST":
        q, k, locale = _search_body(json_object(await _read_body(request, 16 * 1024)), rt.settings)
    else:
        q = _text_param(request, "q", rt.settings.max_query_chars)
        k = _int_param(request, "k", 10, 1, 50)
        locale = _text_param(request, "locale", 32, required=False)
    query = search_query_for(q, locale, scope)
    outcome = await run_in_threadpool(hybrid_search, scope, live.embedder, query, k)
    rt.record_search(outcome)
    results = [result_json(live.corpus, outcome, hit) for hit in outcome.hits]
    return JSONResponse(
        headers=_served_by(live),
        content={
            "query": q,
            "respelled": dict(query.respelled),
            "locale": outcome.locale,
            "requested_locale": outcome.requested_locale,
            "locale_fallback": outcome.locale_fallback,
            "took_ms": round(outcome.took_ms, 2),
            "retrievers": outcome.retrievers,
            "retriever_errors": outcome.errors,
            "index_version": live.corpus.version,
            "release": live.release,
            "results": results,
        },
    )


def _served_by(live) -> dict[str, str]:
    """Which index (and release) answered: one `live` is read per request, so this names all of it."""
    headers = {"X-Askdocs-Index": live.corpus.version}
    if live.release:
        headers["X-Askdocs-Release"] = live.release
    return headers


def _search_body(data: dict, settings: Settings) -> tuple[str, int, str | None]:
    """`POST /api/search` {q, k?, locale?}: the GET's parameters, with the same checks."""
    q = data.get("q")
    if not isinstance(q, str) or not q.strip():
        raise ApiError(400, "missing_field", "`q` (non-empty string) is required")
    if len(q) > settings.max_query_chars:
        raise ApiError(413, "too_large", f"`q` is over {settings.max_query_chars:,} characters")
    k = data.get("k", 10)
    if k is None:
        k = 10
    if isinstance(k, float) and k.is_integer():
        k = int(k)  # JSON does not tell 41 from 41.0
    if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= 50:
        raise ApiError(400, "bad_k", "`k` must be an integer between 1 and 50")
    locale = data.get("locale")
    if locale is not None and (not isinstance(locale, str) or len(locale) > 32):
        raise ApiError(400, "bad_locale", "`locale` must be a string of at most 32 characters")
    return q, k, locale or None


async def chat_endpoint(request: Request) -> Response:
    rt = _runtime(request)
    live = rt.holder.state
    counts_itself = request.scope.get("state", {}).get(COUNTS_ITSELF, False)
    try:
        _, scope = rt.scope_for(request, live.corpus)
        body = await _read_body(request, rt.settings.max_chat_bytes)
        chat_request = ChatRequest.parse(body, rt.settings)
    except Exception:
        if counts_itself and rt.limiter is not None:  # a refused request counts all the same
            refusal = _refusal(await rt.limiter.hit(request), request.url.path)
            if refusal is not None:
                return refusal
        raise
    client = (
        rt.limiter.client_key(request)
        if rt.limiter
        else (request.client.host if request.client else "unknown")
    )
    query = make_query(chat_request, scope)
    looked_up = None
    if counts_itself and rt.limiter is not None and isinstance(rt.shared.answers, RedisAnswerCache):
        cache = rt.shared.answers
        key = rt.chat.lookup_key(query, scope, live.corpus.version)
        decision = await rt.limiter.hit(request, fetch=None if key is None else cache.redis_key(key))
        refusal = _refusal(decision, request.url.path)
        if refusal is not None:
            return refusal
        if key is not None:  # the lookup rode along: the answer does not ask again
            looked_up = (key, cache.take(decision.value) if decision.fetched else cache.skip())
    response = rt.chat.respond(chat_request, live, scope, client, query=query, looked_up=looked_up)
    response.body_iterator = bounded(response.body_iterator, rt.drain)
    response.headers.update(_served_by(live))
    return response


async def feedback_endpoint(request: Request) -> Response:
    rt = _runtime(request)
    data = json_object(await _read_body(request, 16 * 1024))
    answer_id, vote, comment = data.get("answer_id"), data.get("vote"), data.get("comment")
    if not isinstance(answer_id, str) or not answer_id or len(answer_id) > 100:
        raise ApiError(400, "missing_field", "`answer_id` (string) is required")
    if vote not in ("up", "down"):
        raise ApiError(400, "bad_vote", "`vote` must be `up` or `down`")
    if comment is not None and (not isinstance(comment, str) or len(comment) > 4000):
        raise ApiError(400, "bad_comment", "`comment` must be a string of at most 4,000 characters")
    known = rt.chat.knows(answer_id) or await rt.events.knows(answer_id)
    rt.events.feedback(answer_id, vote, comment, known=known)
    return Response(status_code=204)


async def _read_body(request: Request, limit: int) -> bytes:
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > limit:
        raise ApiError(413, "too_large", f"request body over {limit:,} bytes")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise ApiError(413, "too_large", f"request body over {limit:,} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def _fs(request: Request) -> DocsFS:
    rt = _runtime(request)
    _, scope = rt.scope_for(request, rt.holder.state.corpus)
    return DocsFS(scope, rt.fs_caches)


async def fs_ls(request: Request) -> Response:
    return JSONResponse(_fs(request).ls(request.query_params.get("path")))


async def fs_find(request: Request) -> Response:
    fs = _fs(request)
    return JSONResponse(fs.find(request.query_params.get("name", ""), request.query_params.get("path")))


async def fs_cat(request: Request) -> Response:
    path = _text_param(request, "path", 1000)
    return JSONResponse(_fs(request).cat(path))


async def fs_grep(request: Request) -> Response:
    rt = _runtime(request)
    pattern = _text_param(request, "pattern", rt.settings.max_pattern_chars)
    ignore_case = request.query_params.get("ignore_case", "").lower() in ("1", "true", "yes")
    fs = _fs(request)
    result = await run_in_threadpool(
        fs.grep,
        pattern,
        request.query_params.get("path"),
        ignore_case=ignore_case,
        budget=rt.settings.grep_budget_seconds,
    )
    return JSONResponse(result)


def _is_admin(request: Request) -> bool:
    """`Authorization: Bearer $ASKDOCS_ADMIN_TOKEN` (a reader's JWT is not an operator)."""
    token = _runtime(request).settings.admin_token
    header = request.headers.get("authorization", "")
    return bool(token) and hmac.compare_digest(header.encode(), f"Bearer {token}".encode())


async def healthz(request: Request) -> Response:
    """Anonymous callers get status, versions and which retrievers are live; counts that include
    restricted pages, upstream URLs, file paths and error texts need the operator token."""
    rt = _runtime(request)
    live = rt.holder.state
    health = rt.retrievers
    manifest = live.corpus.manifest
    llm = rt.chat.llm_health()
    quiet = {
        "status": "draining" if rt.drain.draining else "ok",
        "version": __version__,
        "contract": CONTRACT_VERSION,
        "index": {
            "version": live.corpus.version,
            "format_version": manifest.format_version,
            "built_at": manifest.built_at,
            "default_locale": manifest.default_locale,
            "locales": manifest.locales,
        },
        "model": {
            "id": live.corpus.model.id,
            "sha256": live.corpus.model.sha256,
            "source": "bundled" if manifest.model.get("bundled") else "cache",
        },
        "retrievers": {name: {"live": health.ok[name]} for name in _serving_stages()},
        "synthesizer": {
            "mode": llm["mode"],
            "llm_ok": None if llm["llm"] is None else llm["llm"]["last_error"] is None,
        },
        "shared_state": {
            "backend": rt.shared.backend,
            "ok": rt.shared.link is None or rt.shared.link.ok,
        },
        "release": None if live.release is None else {"id": live.release, "from": rt.holder.release_from},
        "reload": {
            "loaded_at": live.loaded_at,
            "reloads": rt.holder.reloads,
            "ok": rt.holder.last_error is None,
        },
    }
    if not _is_admin(request):
        # 503 while draining: load balancers and readiness probes stop sending readers here.
        return JSONResponse(quiet, status_code=503 if rt.drain.draining else 200)
    return JSONResponse(
        status_code=503 if rt.drain.draining else 200,
        content={
            **quiet,
            "admin": True,
            "index": live.corpus.summary(),
            "retrievers": {
                "lexical": {
                    "live": health.ok["lexical"],
                    "runs": health.runs["lexical"],
                    "failures": health.failures["lexical"],
                    "last_error": health.last_error["lexical"],
                },
                "dense": {
                    "live": health.ok["dense"],
                    "backend": sorted({loaded.dense.backend for loaded in live.corpus.sets}),
                    "models": {loc: info.id for loc, info in live.corpus.models.items()},
                    "runs": health.runs["dense"],
                    "failures": health.failures["dense"],
                    "last_error": health.last_error["dense"],
                },
                "rerank": {
                    "enabled": DEFAULT_WEIGHTS.stage == "rerank",
                    "order": DEFAULT_WEIGHTS.stage,  # of search results
                    "answers_order": ANSWER_WEIGHTS.stage,  # what answers' confidence is judged on
                    # ... and the order their evidence is read in (a few sections per page)
                    "answers_evidence_order": (AnswerSettings().evidence_weights or ANSWER_WEIGHTS).stage,
                    "live": health.ok["rerank"],
                    "model": DEFAULT_WEIGHTS.reranker.name,
                    "runs": health.runs["rerank"],
                    "failures": health.failures["rerank"],
                    "last_error": health.last_error["rerank"],
                },
            },
            "synthesizer": llm,
            "shared_state": {
                **rt.shared.health(),
                "rate_limit": None
                if rt.limiter is None
                else {"fail": rt.settings.rate_limit_fail, "degraded_decisions": rt.limiter.degraded},
            },
            "release": rt.holder.release_health(),
            "reload": {
                **quiet["reload"],
                "last_check": rt.holder.last_check,
                "last_error": rt.holder.last_error,
                "sources": live.corpus.sources,
            },
            "uptime_s": round(time.time() - rt.started, 1),
        },
    )


async def metrics_endpoint(request: Request) -> Response:
    """Prometheus text; the restricted chunk count only for the operator token."""
    rt = _runtime(request)
    sets = rt.holder.state.corpus.sets
    rt.metrics.index_chunks.labels("public").set(len(sets[0].chunks))
    if _is_admin(request):
        rt.metrics.index_chunks.labels("restricted").set(sum(len(s.chunks) for s in sets[1:]))
    else:
        with contextlib.suppress(KeyError):
            rt.metrics.index_chunks.remove("restricted")
    return Response(rt.metrics.render(), media_type="text/plain; version=0.0.4")


async def widget_js(request: Request) -> Response:
    from askdocs.widget import widget_js as load

    return Response(load(), media_type="text/javascript", headers={"Cache-Control": "public, max-age=300"})


class Guard:
    """Pure-ASGI middleware (streams pass through untouched): rate limits, metrics, errors."""

    ENDPOINTS = (
        "/api/search",
        "/api/chat",
        "/api/feedback",
        "/api/fs/ls",
        "/api/fs/find",
        "/api/fs/cat",
        "/api/fs/grep",
        MCP_PATH,
        "/healthz",
        "/metrics",
    )

    def __init__(self, app: ASGIApp, runtime: Runtime) -> None:
        self.app = app
        self.runtime = runtime

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        endpoint = (
            path if path in self.ENDPOINTS else ("/api/other" if path.startswith("/api/") else "static")
        )
        rt = self.runtime
        limited = path.startswith("/api/") or path == MCP_PATH
        if rt.limiter is not None and limited and scope["method"] != "OPTIONS":
            if rt.chat_counts_itself and path == "/api/chat" and scope["method"] == "POST":
                scope.setdefault("state", {})[COUNTS_ITSELF] = True  # with its cache lookup, one trip
            else:
                refusal = _refusal(await rt.limiter.hit(Request(scope)), path)
                if refusal is not None:
                    rt.metrics.requests.labels(endpoint, str(refusal.status_code)).inc()
                    await refusal(scope, receive, send)
                    return
        status = {"code": 500}
        started = time.perf_counter()

        async def send_wrapper(message) -> None:
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_wrapper)
        finally:
            rt.metrics.requests.labels(endpoint, str(status["code"])).inc()
            rt.metrics.latency.labels(endpoint).observe(time.perf_counter() - started)


COUNTS_ITSELF = "askdocs.rate_limit_in_route"


def _refusal(decision: Decision, path: str) -> Response | None:
    """The response for a request the rate limit refuses (None: go on)."""
    # MCP clients show a JSON-RPC error's message; /api/* callers get the API's error shape.
    refuse = rpc_error if path == MCP_PATH else error_response
    if decision.backend == "closed":
        return refuse(
            503,
            "rate_limit_unavailable",
            "the shared rate limit cannot be checked right now; retry shortly",
            {"Retry-After": "1"},
        )
    if not decision.allowed:
        retry = decision.retry_after
        return refuse(
            429, "rate_limited", f"too many requests; retry in {retry}s", {"Retry-After": str(retry)}
        )
    return None


async def _api_root(request: Request) -> Response:
    raise HTTPException(404)


async def _internal_error(request: Request, exc: Exception) -> Response:
    log.exception("unhandled error on %s", request.url.path, exc_info=exc)
    return error_response(500, "internal", f"internal error: {type(exc).__name__}")


def create_app(settings: Settings, holder: IndexHolder | None = None) -> Starlette:
    holder = holder or IndexHolder(settings.index, settings.private)
    # Fail at start-up, not on the first reader's question, if the model cannot embed.
    for locale in holder.state.embedder.by_locale:  # every model a question may need
        holder.state.embedder.vector("askdocs start-up check", locale)
    runtime = Runtime(settings, holder)
    mcp = McpEndpoint(runtime)
    api = [
        Route("/search", search_endpoint, methods=["GET", "POST"]),
        Route("/chat", chat_endpoint, methods=["POST"]),
        Route("/feedback", feedback_endpoint, methods=["POST"]),
        Route("/fs/ls", fs_ls),
        Route("/fs/find", fs_find),
        Route("/fs/cat", fs_cat),
        Route("/fs/grep", fs_grep),
    ]
    routes = [
        Route("/healthz", healthz),
        Route("/openapi.json", openapi_endpoint),
        Route("/metrics", metrics_endpoint),
        Route("/admin/reload", admin_reload, methods=["POST"]),
        # Everything under /api/ is answered here, never by the site's static files: an unknown
        # path is a JSON 404, a wrong method a JSON 405 (see http_error_handler).
        Mount("/api", routes=api),
        Route("/api", _api_root, methods=["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]),
        Route(MCP_PATH, mcp),
    ]
    site_dir = settings.site_dir
    if site_dir is None or not (Path(site_dir) / SHARD_DIR / "widget.js").is_file():
        routes.append(Route(f"/{SHARD_DIR}/widget.js", widget_js))
    if site_dir is not None:
        routes.append(Mount("/", StaticFiles(directory=str(site_dir), html=True)))

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette):
        tasks = []
        if settings.reload_interval > 0:
            tasks.append(asyncio.create_task(_poll(runtime, settings.reload_interval)))
        await runtime.shared.connect()
        if runtime.shared.events is not None:
            tasks.append(asyncio.create_task(runtime.shared.events.run()))
        loop = asyncio.get_running_loop()
        runtime.drain.loop = loop
        with contextlib.suppress(ValueError, RuntimeError, NotImplementedError):
            loop.add_signal_handler(signal.SIGHUP, lambda: asyncio.ensure_future(_reload(runtime)))
        async with mcp.running():
            yield
        for task in tasks:
            task.cancel()
        await runtime.chat.aclose()
        await runtime.shared.aclose()

    app = Starlette(
        routes=routes,
        middleware=[
            Middleware(
                ClientAddressMiddleware,
                resolver=ClientAddress(settings.trusted_proxies, settings.client_ip_header),
            ),
            Middleware(
                CORSMiddleware,
                allow_origins=list(settings.cors_origins),
                allow_methods=["GET", "POST", "OPTIONS"],
                allow_headers=["Authorization", "Content-Type"],
                max_age=600,
            ),
            Middleware(Guard, runtime=runtime),
            Middleware(BodyDeadline, seconds=settings.body_timeout),
        ],
        exception_handlers={
            ApiError: api_error_handler,
            HTTPException: http_error_handler,
            Exception: _internal_error,
        },
        lifespan=lifespan,
    )
    app.state.runtime = runtime
    return app


async def _reload(runtime: Runtime) -> str:
    try:
        changed = await run_in_threadpool(runtime.holder.check)
    except Exception:
        outcome = "failed"
    else:
        outcome = "swapped" if changed else "unchanged"
    runtime.metrics.reloads.labels(outcome).inc()
    return outcome


async def openapi_endpoint(request: Request) -> Response:
    """`GET /openapi.json`: the API described (edge_runtime/openapi.py)."""
    return JSONResponse(openapi.document())


async def admin_reload(request: Request) -> Response:
    """`POST /admin/reload`: check the index (or release pointer) now, as SIGHUP does."""
    rt = _runtime(request)
    if not rt.settings.admin_token:
        raise ApiError(404, "not_found", "admin routes are off (set ASKDOCS_ADMIN_TOKEN)")
    if not _is_admin(request):
        raise ApiError(401, "bad_token", "admin routes need `Authorization: Bearer $ASKDOCS_ADMIN_TOKEN`")
    outcome = await _reload(rt)
    live = rt.holder.state
    return JSONResponse(
        {
            "outcome": outcome,
            "index_version": live.corpus.version,
            "release": live.release,
            "last_error": rt.holder.last_error,
        },
        status_code=502 if outcome == "failed" else 200,
    )


async def _poll(runtime: Runtime, interval: float) -> None:
    while True:
        await asyncio.sleep(interval)
        await _reload(runtime)
