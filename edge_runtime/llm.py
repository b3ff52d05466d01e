"""One OpenAI-compatible chat client (OpenAI, OpenRouter, Ollama, vLLM, llama.cpp server).

Streams `/chat/completions` over httpx and yields small typed deltas. Any
failure (timeout, HTTP error, malformed stream, spend limit) raises
`LLMError` with a reason; the caller decides, visibly, what happens next.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import httpx
import json_repair
from askdocs.edge_runtime.prompts import NO_ANSWER
from askdocs.edge_runtime.settings import LLMSettings
from askdocs.edge_runtime.state import LocalTokenBudget, RedisTokenBudget


class LLMError(Exception):
    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.partial = ""  # answer text already streamed to the reader when it failed


@dataclass
class Delta:
    kind: str  # text | tool_call | usage | finish
    text: str = ""
    index: int = 0
    call_id: str | None = None
    name: str | None = None
    arguments: str = ""
    usage: dict = field(default_factory=dict)


@dataclass
class ToolCall:
    id: str
    name: str
    arguments: str

    def parsed_arguments(self) -> dict:
        """Arguments as a dict; small local models' broken JSON is repaired first."""
        raw = self.arguments.strip() or "{}"
        try:
            value = json.loads(raw)
        except ValueError:
            value = json_repair.loads(raw)
        if not isinstance(value, dict):
            raise LLMError("malformed", f"tool call {self.name} arguments are not an object: {raw[:200]}")
        return value


class LLMClient:
    def __init__(
        self,
        settings: LLMSettings,
        transport: httpx.AsyncBaseTransport | None = None,
        budget: LocalTokenBudget | RedisTokenBudget | None = None,
    ) -> None:
        self.settings = settings
        # identity: the byte cap counts what was sent, not what it inflates to.
        headers = {"Accept": "text/event-stream", "Accept-Encoding": "identity"}
        if settings.api_key:
            headers["Authorization"] = f"Bearer {settings.api_key}"
        self.http = httpx.AsyncClient(
            base_url=settings.base_url,
            headers=headers,
            transport=transport,
            timeout=httpx.Timeout(settings.timeout, connect=min(10.0, settings.timeout)),
            # Every open chat holds a streaming connection; don't queue the 101st reader.
            limits=httpx.Limits(max_connections=1000, max_keepalive_connections=100),
        )
        self.supports_tools: bool | None = None
        self.budget = budget or LocalTokenBudget(settings.daily_token_budget)
        self.last_error: str | None = None
        self.last_ok: float | None = None

    async def aclose(self) -> None:
        await self.http.aclose()

    def deadline(self) -> float:
        """The event-loop time by which a whole answer, every call it makes, must be done."""
        return asyncio.get_running_loop().time() + self.settings.timeout

    async def stream(
        self, messages: list[dict], tools: list[dict] | None = None, *, deadline: float | None = None
    ) -> AsyncIterator[Delta]:
        """One streamed completion, as deltas, bounded in every way.

        - `deadline` (event-loop time; default: ASKDOCS_LLM_TIMEOUT from now) ends the call,
          whatever the endpoint is sending;
        - the idle limit (ASKDOCS_LLM_IDLE_TIMEOUT) runs from the request to the first content
          and between contents: keep-alive comments, empty deltas and usage reports do not
          count as progress;
        - the byte cap (ASKDOCS_LLM_MAX_BYTES) bounds what one call may stream;
        - anything that is not a server-sent-event completion ending in `data: [DONE]` —
          HTML, binary or a plain JSON body with status 200, a stream cut short — is an
          `LLMError` (`not_streamed`, `truncated`), never a quiet empty answer.
        Closing the iterator, or cancelling the task that iterates it, closes the upstream
        connection at once.
        """
        if not await self.budget.allows():
            raise LLMError("budget", f"daily token budget of {self.budget.daily:,} reached")
        body: dict = {
            "model": self.settings.model,
            "messages": messages,
            "stream": True,
            "temperature": 0.1,
            "stream_options": {"include_usage": True},
        }
        if tools:
            body["tools"] = tools
        loop = asyncio.get_running_loop()
        end = deadline if deadline is not None else loop.time() + self.settings.timeout
        idle = self.settings.idle_timeout
        progress = loop.time()

        async def timed(awaitable):
            try:
                async with asyncio.timeout_at(min(end, progress + idle)):
                    return await awaitable
            except TimeoutError:
                if loop.time() >= end:
                    limit = self.settings.timeout
                    raise LLMError(
                        "timeout", f"the LLM answer took over {limit:g}s (ASKDOCS_LLM_TIMEOUT)"
                    ) from None
                raise LLMError(
                    "idle", f"the LLM sent no content for {idle:g}s (ASKDOCS_LLM_IDLE_TIMEOUT)"
                ) from None

        streaming = False
        try:
            async with contextlib.AsyncExitStack() as stack:
                response = await timed(
                    stack.enter_async_context(self.http.stream("POST", "/chat/completions", json=body))
                )
                if response.status_code >= 400:
                    detail = await timed(_head(response))
                    if tools and response.status_code in (400, 404, 422) and "tool" in detail.lower():
                        self.supports_tools = False
                        raise LLMError("no_tools", f"endpoint rejected tools: {detail}")
                    kind = "http_5xx" if response.status_code >= 500 else "http_4xx"
                    raise LLMError(kind, f"LLM endpoint answered {response.status_code}: {detail}")
                content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
                if content_type != "text/event-stream":
                    head = await timed(_head(response, 120))
                    raise LLMError(
                        "not_streamed",
                        f"the LLM endpoint answered {response.status_code} with "
                        f"{content_type or 'no content type'}, not a stream of events: {head!r}",
                    )
                if tools:
                    self.supports_tools = True
                streaming = True
                lines = _lines(response.aiter_bytes(), self.settings.max_stream_bytes)
                stack.push_async_callback(lines.aclose)
                usage_seen = finished = False
                while (line := await timed(anext(lines, None))) is not None:
                    if not line.startswith("data:"):
                        continue  # blank lines, `: keep-alive` comments, event/id fields
                    payload = line[5:].strip()
                    if payload == "[DONE]":
                        finished = True
                        break
                    try:
                        chunk = json.loads(payload)
                    except ValueError as exc:
                        raise LLMError("malformed", f"malformed stream chunk: {payload[:120]}") from exc
                    if not isinstance(chunk, dict):
                        raise LLMError("malformed", "stream chunk is not an object")
                    if chunk.get("error"):
                        raise LLMError("http_5xx", f"LLM error in stream: {chunk['error']}")
                    if chunk.get("usage"):
                        usage_seen = True
                        usage = chunk["usage"]
                        await self.budget.spend(int(usage.get("total_tokens") or 0))
                        yield Delta("usage", usage=usage)
                    for choice in chunk.get("choices") or []:
                        delta = choice.get("delta") or {}
                        if delta.get("content"):
                            progress = loop.time()
                            if not usage_seen:
                                await self.budget.spend(max(1, len(delta["content"]) // 4))
                            yield Delta("text", text=delta["content"])
                        for call in delta.get("tool_calls") or []:
                            progress = loop.time()
                            function = call.get("function") or {}
                            yield Delta(
                                "tool_call",
                                index=int(call.get("index", 0)),
                                call_id=call.get("id"),
                                name=function.get("name"),
                                arguments=function.get("arguments") or "",
                            )
                        if choice.get("finish_reason"):
                            yield Delta("finish", text=choice["finish_reason"])
                if not finished:
                    raise LLMError("truncated", "the LLM stream ended without `data: [DONE]`")
        except httpx.TimeoutException as exc:
            raise self._fail(LLMError("timeout", f"LLM timed out after {self.settings.timeout:g}s")) from exc
        except httpx.HTTPError as exc:
            if streaming:
                raise self._fail(LLMError("truncated", f"the LLM stream broke off: {exc!r}")) from exc
            raise self._fail(LLMError("connect", f"LLM endpoint unreachable: {exc}")) from exc
        except LLMError as exc:
            raise self._fail(exc) from None
        self.last_ok = time.time()
        self.last_error = None

    def _fail(self, error: LLMError) -> LLMError:
        self.last_error = f"{error.reason}: {error}"
        return error


async def _head(response: httpx.Response, limit: int = 300) -> str:
    """The first bytes of a body that is not a stream (an error page may be huge)."""
    data = b""
    async for chunk in response.aiter_bytes():
        data += chunk
        if len(data) >= limit:
            break
    return data[:limit].decode("utf-8", "replace")


async def _lines(chunks: AsyncIterator[bytes], cap: int) -> AsyncIterator[str]:
    """Lines of a byte stream, refusing to buffer or pass on more than `cap` bytes."""
    buffer = b""
    total = 0
    async for chunk in chunks:
        total += len(chunk)
        if total > cap:
            raise LLMError("too_long", f"the LLM stream passed {cap:,} bytes (ASKDOCS_LLM_MAX_BYTES)")
        buffer += chunk
        *complete, buffer = buffer.split(b"\n")
        for line in complete:
            yield line.rstrip(b"\r").decode("utf-8", "replace")
    if buffer:
        yield buffer.decode("utf-8", "replace")


_CITATION = re.compile(r"^\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]")
_LINK = re.compile(r"^\[([^\]\n]{0,300})\]\(([^)\s]{0,800})\)")
_MAYBE = re.compile(r"^\[(\d{0,3}(\s*,\s*\d{0,3})*|[^\]\n]{0,300}(\]\(?[^)\s]{0,800})?)$")


class Sanitizer:
    """Filters the streamed answer: drops unknown citations and off-site links, spots NO_ANSWER."""

    def __init__(self, sources: int) -> None:
        self.sources = sources
        self.used: list[int] = []
        self.no_answer = False
        self._buffer = ""
        self._started = False

    def set_sources(self, sources: int) -> None:
        self.sources = sources

    def feed(self, text: str) -> str:
        self._buffer += text
        if not self._started:
            head = self._buffer.lstrip()
            if NO_ANSWER.startswith(head[: len(NO_ANSWER)]) and len(head) < len(NO_ANSWER):
                return ""
            if head.startswith(NO_ANSWER):
                self.no_answer = True
                self._buffer = ""
                return ""
            self._started = True
        if self.no_answer:
            return ""
        return self._drain(final=False)

    def finish(self) -> str:
        if self.no_answer:
            return ""
        if not self._started and self._buffer.strip() and NO_ANSWER.startswith(self._buffer.strip()):
            self.no_answer = True
            return ""
        self._started = True
        return self._drain(final=True)

    def _drain(self, final: bool) -> str:
        out = []
        while self._buffer:
            at = self._buffer.find("[")
            if at < 0:
                out.append(self._buffer)
                self._buffer = ""
                break
            out.append(self._buffer[:at])
            rest = self._buffer[at:]
            citation = _CITATION.match(rest)
            if citation:
                numbers = [int(n) for n in re.findall(r"\d+", citation.group(1))]
                known = [n for n in numbers if 1 <= n <= self.sources]
                for n in known:
                    if n not in self.used:
                        self.used.append(n)
                if known:
                    out.append("[" + ", ".join(str(n) for n in known) + "]")
                self._buffer = rest[citation.end() :]
                continue
            link = _LINK.match(rest)
            if link:
                label, target = link.group(1), link.group(2)
                out.append(f"[{label}]({target})" if _on_site(target) else label)
                self._buffer = rest[link.end() :]
                continue
            if not final and _MAYBE.match(rest) and len(rest) < 1100:
                self._buffer = rest
                break
            out.append("[")
            self._buffer = rest[1:]
        return "".join(out)


def _on_site(target: str) -> bool:
    return target.startswith("/") and not target.startswith("//") or target.startswith("#")
