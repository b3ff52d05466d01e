"""One OpenAI-compatible chat client (OpenAI, OpenRouter, Ollama, vLLM, llama.cpp server).

Streams `/chat/completions` over httpx and yields small typed deltas. Any
failure (timeout, HTTP error, malformed stream, spend limit) raises
`LLMError` with a reason; the caller decides, visibly, what happens next.
"""

from __future__ import annotations

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
        headers = {"Accept": "text/event-stream"}
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

    async def stream(self, messages: list[dict], tools: list[dict] | None = None) -> AsyncIterator[Delta]:
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
        try:
            async with self.http.stream("POST", "/chat/completions", json=body) as response:
                if response.status_code >= 400:
                    detail = (await response.aread())[:300].decode("utf-8", "replace")
                    if tools and response.status_code in (400, 404, 422) and "tool" in detail.lower():
                        self.supports_tools = False
                        raise LLMError("no_tools", f"endpoint rejected tools: {detail}")
                    kind = "http_5xx" if response.status_code >= 500 else "http_4xx"
                    raise LLMError(kind, f"LLM endpoint answered {response.status_code}: {detail}")
                if tools:
                    self.supports_tools = True
                usage_seen = False
                async for line in response.aiter_lines():
                    line = line.strip()
                    if not line or line.startswith(":"):
                        continue
                    if not line.startswith("data:"):
                        continue
                    payload = line[5:].strip()
                    if payload == "[DONE]":
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
                            if not usage_seen:
                                await self.budget.spend(max(1, len(delta["content"]) // 4))
                            yield Delta("text", text=delta["content"])
                        for call in delta.get("tool_calls") or []:
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
        except httpx.TimeoutException as exc:
            raise self._fail(LLMError("timeout", f"LLM timed out after {self.settings.timeout:g}s")) from exc
        except httpx.HTTPError as exc:
            raise self._fail(LLMError("connect", f"LLM endpoint unreachable: {exc}")) from exc
        except LLMError as exc:
            raise self._fail(exc) from None
        self.last_ok = time.time()
        self.last_error = None

    def _fail(self, error: LLMError) -> LLMError:
        self.last_error = f"{error.reason}: {error}"
        return error


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
