"""`POST /api/chat`: search → navigate → synthesise, streamed as Server-Sent Events.

The first event (`status: searching`) leaves before any retrieval work; every
stream ends with exactly one `done` or `error`; a keep-alive comment goes out
when nothing else has for 15 s. `done.mode` names what produced the answer:
`extractive`, `llm`, or `extractive-fallback` when a configured LLM failed.
"""

from __future__ import annotations

import asyncio
import logging
import re
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field

from askdocs.edge_runtime import events, sse
from askdocs.edge_runtime.conversation import (
    ChatRequest,
    escalation_reason,
    only_asks_for_human,
    search_query,
)
from askdocs.edge_runtime.errors import ApiError
from askdocs.edge_runtime.events import StreamEvent
from askdocs.edge_runtime.evidence import Evidence, Investigation, investigate, key_terms
from askdocs.edge_runtime.extractive import compose, refusal
from askdocs.edge_runtime.fs import DocsFS
from askdocs.edge_runtime.i18n import phrase
from askdocs.edge_runtime.llm import LLMClient, LLMError, Sanitizer, ToolCall
from askdocs.edge_runtime.lru import LRU
from askdocs.edge_runtime.prompts import TOOLS, build_messages, tool_result_message
from askdocs.edge_runtime.search import hybrid_search
from askdocs.edge_runtime.state import answer_key
from starlette.concurrency import run_in_threadpool
from starlette.responses import StreamingResponse

__all__ = ["ChatRequest", "ChatService"]

log = logging.getLogger("askdocs.chat")

KEEP_ALIVE_SECONDS = 15.0
# Operating point, chosen by leave-one-site-out cross-validation on evals/ (scripts/fit_confidence.py:
# each site scored by a model fitted on the other two): answers 83% of answerable questions (87% of
# those whose evidence holds the answer) and refuses 87% of unanswerable ones.
DEFAULT_MIN_CONFIDENCE = 0.45
MAX_AGENT_STEPS = 4
_SUPPORT = re.compile(r"\b(contact|support|soporte|contacto|help-?desk|ayuda)\b", re.I)
_WORDS = re.compile(r"\S+\s*")

Emit = Callable[[StreamEvent], Awaitable[None]]


@dataclass
class Answer:
    text: str
    answered: bool
    mode: str
    citations: list[dict]
    escalation: dict | None
    extra: dict = field(default_factory=dict)


@dataclass
class Timing:
    start: float = field(default_factory=time.perf_counter)
    first_byte: float | None = None
    first_token: float | None = None
    done: float | None = None

    def ms(self, moment: float | None) -> float | None:
        return None if moment is None else round((moment - self.start) * 1000, 1)


class ChatService:
    def __init__(self, runtime) -> None:
        self.rt = runtime
        settings = runtime.settings
        self.answer_cache = runtime.shared.answers
        self.cache_enabled = settings.answer_cache > 0
        self._answer_ids: LRU[str, bool] = LRU(8192, name="answer_ids")
        self.llm = (
            LLMClient(settings.llm, budget=runtime.shared.token_budget(settings.llm.daily_token_budget))
            if settings.llm
            else None
        )
        self.min_confidence = (
            settings.min_confidence if settings.min_confidence is not None else DEFAULT_MIN_CONFIDENCE
        )

    @property
    def synthesizer(self) -> str:
        return "llm" if self.llm else "extractive"

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

    def respond(
        self, request: ChatRequest, live, scope, reader, client: str, http_request
    ) -> StreamingResponse:
        return StreamingResponse(
            self._stream(request, live, scope, reader, client),
            media_type="text/event-stream",
            headers=sse.HEADERS,
        )

    async def _stream(self, request: ChatRequest, live, scope, reader, client: str):
        queue: asyncio.Queue[StreamEvent | None] = asyncio.Queue()
        timing = Timing()
        state = {"final": False}

        async def emit(event: StreamEvent) -> None:
            if state["final"]:
                return
            if event.final:
                state["final"] = True
            if event.event == "token" and timing.first_token is None:
                timing.first_token = time.perf_counter()
                self.rt.metrics.first_token.observe(timing.first_token - timing.start)
            await queue.put(event)

        async def produce() -> None:
            try:
                await self._answer(request, live, scope, reader, client, emit, timing)
                if not state["final"]:
                    await emit(events.error("internal", "the answer ended without a result"))
            except asyncio.CancelledError:
                raise
            except ApiError as exc:
                await emit(events.error(exc.code, exc.message))
            except Exception as exc:
                log.exception("chat failed")
                await emit(events.error("internal", f"internal error: {type(exc).__name__}"))
            finally:
                await queue.put(None)

        task = asyncio.create_task(produce())
        try:
            while True:
                try:
                    event = await asyncio.wait_for(queue.get(), timeout=KEEP_ALIVE_SECONDS)
                except TimeoutError:
                    yield sse.KEEP_ALIVE
                    continue
                if event is None:
                    break
                if timing.first_byte is None:
                    timing.first_byte = time.perf_counter()
                yield sse.frame(event)
        finally:
            if not task.done():
                task.cancel()
                log.info("chat stream closed by the client; work stopped")

    # -- the flow --------------------------------------------------------------
    async def _answer(
        self, request: ChatRequest, live, scope, reader, client: str, emit: Emit, timing: Timing
    ) -> None:
        await emit(events.status("searching"))
        corpus = live.corpus
        answer_id = "a_" + secrets.token_hex(8)
        locale = self._locale(request, scope)
        support = self._support(scope, locale)
        reason = escalation_reason(request.message, request.history)
        record: dict = {
            "type": "answer",
            "answer_id": answer_id,
            "locale": locale,
            "scope": sorted(scope.groups),
            "client": client,
            "index_version": corpus.version,
            **self.rt.events.question_field(request.message),
        }
        if reason and only_asks_for_human(request.message):
            answer = Answer(
                phrase(locale, "human"), False, "extractive", [], support, {"escalation_reason": reason}
            )
            await self._deliver(answer, answer_id, emit, timing, record, cached=False)
            return

        query = search_query(request.message, request.history)
        record["search_query_rewritten"] = query != request.message
        key = answer_key(corpus.version, scope.groups, query, locale, self.synthesizer)
        cached = await self.answer_cache.get(key) if self.cache_enabled else None
        if cached is not None:
            await self._deliver(
                self._with_escalation(Answer(**cached), reason, support),
                answer_id,
                emit,
                timing,
                record,
                cached=True,
            )
            return

        outcome = await run_in_threadpool(hybrid_search, scope, live.embedder, query, locale, 8)
        self.rt.record_search(outcome)
        fs = DocsFS(scope, self.rt.fs_caches)
        investigation = await run_in_threadpool(investigate, fs, outcome, query)
        for step in investigation.steps:
            await emit(step)
        record.update(
            {
                "retrievers": outcome.retrievers,
                "retriever_errors": outcome.errors,
                "tool_calls": [e.data for e in investigation.steps if e.event == "tool"],
                "evidence": [e.url for e in investigation.evidence[:6]],
                "confidence": investigation.confidence,
                "signals": investigation.signals,
            }
        )
        extra = {
            "confidence": investigation.confidence,
            "retrievers": outcome.retrievers,
            "locale": outcome.locale,
        }
        if outcome.errors:
            extra["retriever_errors"] = outcome.errors

        if investigation.confidence < self.min_confidence:
            text = refusal(locale, investigation.checked)
            answer = Answer(text, False, "extractive", [], support, extra)
        elif self.llm is not None:
            answer = await self._llm_answer(
                request, investigation, locale, fs, support, emit, extra, live.embedder, query
            )
        else:
            answer = await run_in_threadpool(
                self._extractive,
                request,
                investigation,
                locale,
                support,
                extra,
                "extractive",
                live.embedder,
                query,
            )
        if answer.mode != "extractive-fallback" and self.cache_enabled:
            await self.answer_cache.put(key, asdict(answer))
        await self._deliver(
            self._with_escalation(answer, reason, support),
            answer_id,
            emit,
            timing,
            record,
            cached=False,
            streamed=answer.extra.get("streamed", False),
        )

    def _extractive(
        self,
        request: ChatRequest,
        investigation: Investigation,
        locale: str,
        support: dict,
        extra: dict,
        mode: str = "extractive",
        embedder=None,
        query: str | None = None,
    ) -> Answer:
        relevance = _relevance(embedder, query or request.message) if embedder else None
        focus = key_terms(locale, request.message) if query and query != request.message else None
        text, cited = compose(
            request.message,
            investigation.evidence,
            locale,
            investigation.key_terms,
            investigation.identifiers,
            relevance,
            focus,
            investigation.term_weights,
        )
        if not text:
            return Answer(refusal(locale, investigation.checked), False, mode, [], support, extra)
        return Answer(text, True, mode, _citations(cited), None, extra)

    async def _llm_answer(
        self,
        request: ChatRequest,
        investigation: Investigation,
        locale: str,
        fs: DocsFS,
        support: dict,
        emit: Emit,
        extra: dict,
        embedder,
        query: str,
    ) -> Answer:
        llm = self.llm
        assert llm is not None
        evidence = list(investigation.evidence[:6])
        agent = llm.settings.agent and llm.supports_tools is not False
        home = fs.tree.pages.get("/")
        site = (fs.corpus.page(*home).title if home else "") or fs.corpus.manifest.site_url or "this site"
        messages = build_messages(request.message, request.history, evidence, locale, site, agent)
        sanitizer = Sanitizer(len(evidence))
        streamed: list[str] = []
        await emit(events.status("answering"))
        try:
            for step in range(MAX_AGENT_STEPS):
                use_tools = agent and llm.supports_tools is not False and step < MAX_AGENT_STEPS - 1
                calls: dict[int, ToolCall] = {}
                try:
                    async for delta in llm.stream(messages, TOOLS if use_tools else None):
                        if delta.kind == "text":
                            safe = sanitizer.feed(delta.text)
                            if safe:
                                streamed.append(safe)
                                await emit(events.token(safe))
                        elif delta.kind == "tool_call":
                            call = calls.setdefault(
                                delta.index, ToolCall(delta.call_id or f"call_{delta.index}", "", "")
                            )
                            call.name = call.name or (delta.name or "")
                            call.arguments += delta.arguments
                            if delta.call_id and call.id.startswith("call_"):
                                call.id = delta.call_id
                        elif delta.kind == "usage":
                            for kind in ("prompt_tokens", "completion_tokens"):
                                self.rt.metrics.llm_tokens.labels(kind).inc(delta.usage.get(kind) or 0)
                except LLMError as exc:
                    if exc.reason == "no_tools":
                        agent = False
                        continue
                    raise
                if calls and not streamed:
                    messages.append(
                        {
                            "role": "assistant",
                            "content": None,
                            "tool_calls": [
                                {
                                    "id": c.id,
                                    "type": "function",
                                    "function": {"name": c.name, "arguments": c.arguments},
                                }
                                for c in calls.values()
                            ],
                        }
                    )
                    for call in calls.values():
                        result = await run_in_threadpool(self._run_tool, fs, call, evidence)
                        await emit(events.tool(call.name, result.pop("_args", {})))
                        sanitizer.set_sources(len(evidence))
                        messages.append(tool_result_message(call.id, result))
                    continue
                break
            tail = sanitizer.finish()
            if tail:
                streamed.append(tail)
                await emit(events.token(tail))
        except LLMError as exc:
            self.rt.metrics.llm_failures.labels(exc.reason).inc()
            log.warning(
                "LLM failed (%s): %s; answering extractively, labelled as a fallback", exc.reason, exc
            )
            extra = {**extra, "fallback_reason": exc.reason}
            fallback = await run_in_threadpool(
                self._extractive,
                request,
                investigation,
                locale,
                support,
                extra,
                "extractive-fallback",
                embedder,
                query,
            )
            label = phrase(locale, "fallback")
            prefix = "\n\n" if streamed else ""
            fallback.text = f"{prefix}{label}\n\n{fallback.text}"
            return fallback
        if sanitizer.no_answer:
            return Answer(
                refusal(locale, investigation.checked),
                False,
                "llm",
                [],
                support,
                {**extra, "llm_declined": True},
            )
        used = [evidence[n - 1] for n in sanitizer.used if 0 < n <= len(evidence)]
        citations = _citations(used or evidence[:1])
        return Answer("".join(streamed), True, "llm", citations, None, {**extra, "streamed": True})

    def _run_tool(self, fs: DocsFS, call: ToolCall, evidence: list[Evidence]) -> dict:
        try:
            args = call.parsed_arguments()
        except LLMError as exc:
            return {"error": str(exc), "_args": {}}
        clean = {k: v for k, v in args.items() if k in ("path", "name", "pattern") and isinstance(v, str)}
        try:
            if call.name == "ls":
                result = fs.ls(clean.get("path", "/"))
            elif call.name == "find":
                result = fs.find(clean.get("name", ""))
            elif call.name == "grep":
                result = fs.grep(clean.get("pattern", ""), clean.get("path", "/"), budget=0.3, max_matches=30)
            elif call.name == "cat":
                page = fs.cat(clean.get("path", ""))
                where = fs.tree.pages[page["path"]]
                number = len(evidence) + 1
                evidence.append(
                    Evidence(
                        ref=None,
                        set=where[0],
                        page=where[1],
                        url=page["path"],
                        page_url=page["path"],
                        title=page["title"],
                        heading=page["title"],
                        text=page["content"][:8000],
                        lastmod=page.get("lastmod"),
                        kind="link",
                        score=0.5,
                        locale=page["locale"],
                    )
                )
                result = {
                    "source": number,
                    "path": page["path"],
                    "title": page["title"],
                    "content": page["content"][:8000],
                }
            else:
                result = {"error": f"unknown tool {call.name!r}; use ls, find, cat or grep"}
        except ApiError as exc:
            result = {"error": exc.message}
        result["_args"] = clean
        return result

    # -- helpers --------------------------------------------------------------
    async def _deliver(
        self,
        answer: Answer,
        answer_id: str,
        emit: Emit,
        timing: Timing,
        record: dict,
        cached: bool,
        streamed: bool = False,
    ) -> None:
        if not streamed:
            await emit(events.status("answering"))
            for piece in _pieces(answer.text):
                await emit(events.token(piece))
                await asyncio.sleep(0)
        self._answer_ids.put(answer_id, True)
        extra = {k: v for k, v in answer.extra.items() if k != "streamed"}
        if cached:
            extra["cached"] = True
        extra["index_version"] = record.get("index_version")
        await emit(
            events.done(answer_id, answer.answered, answer.mode, answer.citations, answer.escalation, **extra)
        )
        timing.done = time.perf_counter()
        self.rt.metrics.answers.labels(answer.mode, str(answer.answered).lower()).inc()
        if answer.escalation:
            self.rt.metrics.escalations.labels(answer.extra.get("escalation_reason") or "no_evidence").inc()
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
        self.rt.events.write(record)

    @staticmethod
    def _with_escalation(answer: Answer, reason: str | None, support: dict) -> Answer:
        if not reason or answer.escalation:
            return answer
        return Answer(
            answer.text,
            answer.answered,
            answer.mode,
            answer.citations,
            support,
            {**answer.extra, "escalation_reason": reason},
        )

    def _locale(self, request: ChatRequest, scope) -> str:
        if request.locale:
            return request.locale
        if request.page_url:
            path = re.sub(r"^[a-z]+://[^/]+", "", request.page_url).split("#")[0].split("?")[0]
            where = scope.paths.get(path) or scope.paths.get(path.rstrip("/") + "/")
            if where is not None:
                return scope.corpus.page(*where).locale
            first = path.strip("/").split("/")[0]
            if first in scope.locales:
                return first
        return scope.corpus.default_locale

    def _support(self, scope, locale: str) -> dict:
        url = self.rt.settings.support_url
        if not url:
            candidates = [
                u
                for u, where in scope.paths.items()
                if scope.corpus.page(*where).locale == locale
                and _SUPPORT.search(u + " " + scope.corpus.page(*where).title)
            ]
            url = min(candidates, key=len) if candidates else scope.corpus.manifest.support_url or "/"
        return {"url": url, "text": phrase(locale, "contact")}


def _relevance(embedder, question: str):
    """Cosine of each text with the question, with the index's own model (batched)."""

    def score(texts: list[str]) -> list[float]:
        return [float(v) for v in embedder.embedder.similarity(embedder.vector(question), texts)]

    return score


def _citations(evidence: list[Evidence]) -> list[dict]:
    seen: set[str] = set()
    out = []
    for item in evidence:
        if item.url in seen:
            continue
        seen.add(item.url)
        out.append({"url": item.url, "title": item.label})
    return out


def _pieces(text: str, words: int = 3) -> list[str]:
    tokens = _WORDS.findall(text)
    leading = text[: len(text) - len(text.lstrip())]
    pieces = ["".join(tokens[i : i + words]) for i in range(0, len(tokens), words)]
    if leading and pieces:
        pieces[0] = leading + pieces[0]
    return pieces or ([text] if text else [])
