"""`POST /api/chat`: the answer pipeline, streamed as Server-Sent Events.

The first event (`status: searching`) leaves before any retrieval work; every
stream ends with exactly one `done` or `error`; a keep-alive comment goes out
when nothing else has for 15 s. What to answer is decided by the pipeline
(`answer.py`, `llm_answer.py`); this module streams it, caches it, counts it
and logs it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from askdocs.edge_runtime import events, sse
from askdocs.edge_runtime.answer import (
    AnswerSettings,
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
from askdocs.edge_runtime.eventlog import EventLog
from askdocs.edge_runtime.events import StreamEvent
from askdocs.edge_runtime.fs import FsCaches
from askdocs.edge_runtime.grounding import compose_grounded
from askdocs.edge_runtime.llm import LLMClient
from askdocs.edge_runtime.lru import LRU
from askdocs.edge_runtime.metrics import Metrics
from askdocs.edge_runtime.query import Query, make_query
from askdocs.edge_runtime.search import SearchOutcome
from askdocs.edge_runtime.state import AnswerCache, answer_key
from starlette.concurrency import run_in_threadpool

__all__ = ["ChatRequest", "ChatService"]

log = logging.getLogger("askdocs.chat")

KEEP_ALIVE_SECONDS = 15.0
_WORDS = re.compile(r"\S+\s*")


@dataclass
class Timing:
    start: float = field(default_factory=time.perf_counter)
    first_byte: float | None = None
    first_token: float | None = None
    done: float | None = None

    def ms(self, moment: float | None) -> float | None:
        return None if moment is None else round((moment - self.start) * 1000, 1)


class _Stream:
    """One reader's event stream: exactly one final event, and the answer text already sent."""

    def __init__(self, queue: asyncio.Queue, timing: Timing, metrics: Metrics) -> None:
        self.queue = queue
        self.timing = timing
        self.metrics = metrics
        self.final = False
        self.sent = ""

    async def emit(self, event: StreamEvent) -> None:
        if self.final:
            return
        if event.final:
            self.final = True
        if event.event == "token":
            self.sent += event.data["text"]
            if self.timing.first_token is None:
                self.timing.first_token = time.perf_counter()
                self.metrics.first_token.observe(self.timing.first_token - self.timing.start)
        await self.queue.put(event)


class ChatService:
    def __init__(
        self,
        settings: AnswerSettings,
        *,
        metrics: Metrics,
        event_log: EventLog,
        fs_caches: FsCaches,
        on_search: Callable[[SearchOutcome], None],
        answer_cache: AnswerCache,
        llm: LLMClient | None = None,
        cache_enabled: bool = True,
    ) -> None:
        self.settings = settings
        self.metrics = metrics
        self.events = event_log
        self.fs_caches = fs_caches
        self.on_search = on_search
        self.llm = llm
        self.answer_cache = answer_cache
        self.cache_enabled = cache_enabled
        self._answer_ids: LRU[str, bool] = LRU(8192, name="answer_ids")

    @property
    def synthesizer(self) -> str:
        return "llm" if self.llm else "extractive"

    @property
    def min_confidence(self) -> float:
        return self.settings.min_confidence

    def knows(self, answer_id: str) -> bool:
        return self._answer_ids.get(answer_id) is not None

    def llm_health(self) -> dict:
        if self.llm is None:
            return {"mode": "extractive", "llm": None, "min_confidence": self.min_confidence}
        llm = self.llm
        return {
            "mode": "llm",
            "min_confidence": self.min_confidence,
            "llm": {
                "model": llm.settings.model,
                "base_url": llm.settings.base_url,
                "agent": llm.settings.agent,
                "supports_tools": llm.supports_tools,
                "last_error": llm.last_error,
                "last_ok": llm.last_ok,
                "tokens_today": llm.budget.spent,
                "daily_budget": llm.budget.daily,
            },
        }

    async def aclose(self) -> None:
        if self.llm is not None:
            await self.llm.aclose()

    def lookup_key(self, query: Query, scope, version: str) -> str | None:
        """The answer-cache key this question will be looked up under, or None when it will
        not be (cache off, or a message answered at once: a request for a person, or one
        that asks nothing)."""
        if not self.cache_enabled:
            return None
        if answered_at_once(query, support_for(scope, query.locale, self.settings.support_url)) is not None:
            return None
        return self._cache_key(query, scope, version)

    def respond(
        self,
        request: ChatRequest,
        live,
        scope,
        client: str,
        *,
        query: Query | None = None,
        looked_up: tuple[str, dict | None] | None = None,
    ) -> sse.EventStreamResponse:
        """The answer as an SSE stream. `query` is `make_query`'s, if the caller made it;
        `looked_up` is (key, cached answer or None) if the caller already asked the cache."""
        return sse.EventStreamResponse(
            self._stream(request, live, scope, client, query, looked_up),
            media_type="text/event-stream",
            headers=sse.HEADERS,
        )

    async def _stream(self, request: ChatRequest, live, scope, client: str, query=None, looked_up=None):
        queue: asyncio.Queue[StreamEvent | None] = asyncio.Queue()
        stream = _Stream(queue, Timing(), self.metrics)

        async def produce() -> None:
            try:
                await self._answer(request, live, scope, client, stream, query, looked_up)
                if not stream.final:
                    await stream.emit(events.error("internal", "the answer ended without a result"))
            except asyncio.CancelledError:
                raise
            except ApiError as exc:
                await stream.emit(events.error(exc.code, exc.message))
            except Exception as exc:
                log.exception("chat failed")
                await stream.emit(events.error("internal", f"internal error: {type(exc).__name__}"))
            finally:
                await queue.put(None)

        task = asyncio.create_task(produce())
        try:
            while True:
                try:
                    async with asyncio.timeout(KEEP_ALIVE_SECONDS):  # no task per event (as wait_for makes)
                        event = await queue.get()
                except TimeoutError:
                    yield sse.KEEP_ALIVE
                    continue
                if event is None:
                    break
                if stream.timing.first_byte is None:
                    stream.timing.first_byte = time.perf_counter()
                yield sse.frame(event)
        finally:
            if not task.done():
                task.cancel()
                self.metrics.chat_stopped.inc()
                log.info("chat stream closed by the client; work stopped")

    async def _answer(
        self,
        request: ChatRequest,
        live,
        scope,
        client: str,
        stream: _Stream,
        query: Query | None = None,
        looked_up: tuple[str, dict | None] | None = None,
    ) -> None:
        await stream.emit(events.status("searching"))
        corpus = live.corpus
        answer_id = "a_" + secrets.token_hex(8)
        docs = Docs(scope, live.embedder, self.fs_caches)
        query = query or make_query(request, scope)
        support = support_for(scope, query.locale, self.settings.support_url)
        record: dict = {
            "type": "answer",
            "answer_id": answer_id,
            "locale": query.locale,
            "scope": sorted(scope.groups),
            "client": client,
            "index_version": corpus.version,
            "search_query_rewritten": query.text != query.message,
            "respelled": len(query.respelled),  # how many mistyped words (the words: with the question)
            **self.events.question_field(request.message),
        }
        early = answered_at_once(query, support)
        if early is not None:
            await self._deliver(early, answer_id, stream, record, cached=False)
            return
        key = self._cache_key(query, scope, corpus.version)
        if looked_up is not None and looked_up[0] == key:
            cached = looked_up[1]  # asked in the rate limit's round trip
        else:
            cached = await self.answer_cache.get(key) if self.cache_enabled else None
        if cached is not None:
            answer = with_escalation(_as_asked(Answer.from_json(cached), query), query, support)
            await self._deliver(answer, answer_id, stream, record, cached=True)
            return

        case = await run_in_threadpool(prepare, docs, query, self.settings)
        self.on_search(case.outcome)
        for step in case.steps:
            await stream.emit(step)
        record.update(
            {
                "retrievers": case.outcome.retrievers,
                "retriever_errors": case.outcome.errors,
                "tool_calls": [e.data for e in case.steps if e.event == "tool"],
                "evidence": [e.url for e in case.evidence[:6]],
                "confidence": case.confidence,
                "signals": case.investigation.signals,
            }
        )
        answer = gate(case, self.settings)
        if answer is None and self.llm is not None:
            answer = await compose_grounded(docs, case, self.llm, stream.emit, self._count_usage)
            if answer.mode == "extractive-fallback":
                self.metrics.llm_failures.labels(answer.extra.get("fallback_reason", "unknown")).inc()
        elif answer is None:
            answer = await run_in_threadpool(extractive, docs, case)
        await self._deliver(
            with_escalation(answer, query, case.support), answer_id, stream, record, cached=False
        )
        if self.cache_enabled and _cacheable(answer):  # after `done`: the store is off the reader's clock
            await self.answer_cache.put(key, answer.to_json())

    def _cache_key(self, query: Query, scope, version: str) -> str:
        asked = query.normalized
        if self.llm and query.written and query.written != query.message:
            asked += "\0" + query.written  # the model reads the pasted code search left out
        return answer_key(version, scope.groups, asked, query.locale, self.synthesizer)

    def _count_usage(self, usage: dict) -> None:
        for kind in ("prompt_tokens", "completion_tokens"):
            self.metrics.llm_tokens.labels(kind).inc(usage.get(kind) or 0)

    async def _deliver(
        self, answer: Answer, answer_id: str, stream: _Stream, record: dict, cached: bool
    ) -> None:
        text = answer.text
        if not stream.sent:
            await stream.emit(events.status("answering"))
        rest = text[len(stream.sent) :] if text.startswith(stream.sent) else "\n\n" + text
        for piece in _pieces(rest):
            await stream.emit(events.token(piece))
            await asyncio.sleep(0)
        self._answer_ids.put(answer_id, True)
        extra = {k: v for k, v in answer.extra.items() if v is not None}
        if answer.confidence is not None:
            extra["confidence"] = answer.confidence
        if cached:
            extra["cached"] = True
        extra["index_version"] = record.get("index_version")
        await stream.emit(
            events.done(answer_id, answer.answered, answer.mode, answer.citations, answer.escalation, **extra)
        )
        timing = stream.timing
        timing.done = time.perf_counter()
        self.metrics.answers.labels(answer.mode, str(answer.answered).lower()).inc()
        if answer.escalation:
            self.metrics.escalations.labels(answer.extra.get("escalation_reason") or "no_evidence").inc()
        record.update(
            {
                "answered": answer.answered,
                "mode": answer.mode,
                "cached": cached,
                "citations": [c["url"] for c in answer.citations],
                "escalation": answer.escalation is not None,
                "escalation_reason": answer.extra.get("escalation_reason")
                or (None if answer.answered else "no_evidence"),
                "fallback_reason": answer.extra.get("fallback_reason"),
                "latency_ms": {
                    "first_byte": timing.ms(timing.first_byte),
                    "first_token": timing.ms(timing.first_token),
                    "done": timing.ms(timing.done),
                },
                "tokens_used": self.llm.budget.spent if self.llm else 0,
            }
        )
        self.events.write(record)


def _as_asked(answer: Answer, query: Query) -> Answer:
    """A cached answer told for this asking: questions that differ only by a typo share one
    entry ("webhoks" is looked up as "webhooks"), so what was respelled is this question's."""
    extra = {k: v for k, v in answer.extra.items() if k != "respelled"}
    if query.respelled:
        extra["respelled"] = dict(query.respelled)
    return dataclasses.replace(answer, extra=extra)


def _cacheable(answer: Answer) -> bool:
    """Only complete answers are worth repeating: never a fallback, never an empty text."""
    return answer.mode != "extractive-fallback" and bool(answer.text.strip())


def _pieces(text: str, words: int = 3) -> list[str]:
    tokens = _WORDS.findall(text)
    leading = text[: len(text) - len(text.lstrip())]
    pieces = ["".join(tokens[i : i + words]) for i in range(0, len(tokens), words)]
    if leading and pieces:
        pieces[0] = leading + pieces[0]
    return pieces or ([text] if text else [])
