"""A real OpenAI-compatible HTTP server on 127.0.0.1 that plays scripted replies.

Each request to `/v1/chat/completions` takes the next `Reply` from the queue
(or the default) and is recorded, so tests can assert exactly what the model
was sent. Replies can also misbehave the way real endpoints do: keep-alive
pings and nothing else, tokens that never end, a 200 that is HTML, binary or a
non-streamed JSON completion, a stream without `[DONE]`. `active` counts the
streams still open, so tests can see when the runtime hangs up.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Reply:
    text: list[str] = field(default_factory=list)  # streamed content pieces
    tool_calls: list[dict] = field(default_factory=list)  # [{"name", "arguments"(raw str)}]
    status: int = 200
    error_body: str = ""
    delay: float = 0.0  # seconds before each piece from `delay_from` on
    delay_from: int = 0
    malformed: bool = False
    reject_tools: bool = False  # 400 when the request carries tools
    usage: dict = field(
        default_factory=lambda: {"prompt_tokens": 50, "completion_tokens": 10, "total_tokens": 60}
    )
    pings: float = 0.0  # send only `ping_body`, this many seconds apart (until `max_seconds`)
    ping_body: bytes = b": ping\n\n"  # a keep-alive comment; or an empty delta, a role-only delta
    endless: bool = False  # content tokens without end (until `max_seconds`)
    endless_pause: float = 0.0  # seconds between batches of endless tokens (0: as fast as possible)
    raw: bytes | None = None  # a 200 whose body is this, not a stream
    content_type: str = "text/event-stream"
    send_done: bool = True  # end with `data: [DONE]`
    max_seconds: float = 60.0  # bounds pings/endless, so the fake never runs forever


class FakeLLM:
    def __init__(self, port: int = 0, default: Reply | None = None) -> None:
        self.queue: list[Reply] = []
        self.default = default or Reply(text=["Fine."])
        self.requests: list[dict] = []
        self.active = 0  # streams still open
        self.hung_up = 0  # streams the client closed before they ended
        self.started = 0  # streams begun
        self._lock = threading.Lock()
        app = Starlette(
            routes=[
                Route("/v1/chat/completions", self._complete, methods=["POST"]),
                Route("/stats", self._stats),
            ]
        )
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        while not self.server.started:
            time.sleep(0.02)
        self.url = f"http://127.0.0.1:{self.server.servers[0].sockets[0].getsockname()[1]}/v1"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(5)

    def script(self, *replies: Reply) -> None:
        self.queue = list(replies)
        self.requests = []

    def sent_text(self) -> str:
        return json.dumps(self.requests, ensure_ascii=False)

    async def _complete(self, request: Request) -> Response:
        body = await request.json()
        self.requests.append({"body": body, "authorization": request.headers.get("authorization")})
        reply = self.queue.pop(0) if self.queue else self.default
        if reply.reject_tools and body.get("tools"):
            return JSONResponse(
                {"error": {"message": "tools are not supported by this model"}}, status_code=400
            )
        if reply.status != 200:
            return Response(reply.error_body or '{"error": "boom"}', status_code=reply.status)
        if reply.raw is not None:
            return Response(reply.raw, media_type=reply.content_type)
        return StreamingResponse(self._tracked(self._events(reply)), media_type=reply.content_type)

    async def _stats(self, request: Request) -> Response:
        return JSONResponse(
            {
                "requests": len(self.requests),
                "started": self.started,
                "active": self.active,
                "hung_up": self.hung_up,
            }
        )

    async def _tracked(self, events):
        with self._lock:
            self.active += 1
            self.started += 1
        finished = False
        try:
            async for chunk in events:
                yield chunk
            finished = True
        finally:
            with self._lock:
                self.active -= 1
                self.hung_up += 0 if finished else 1

    def wait_idle(self, timeout: float) -> bool:
        """True once no stream is open (the client hung up or every stream ended)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.active == 0:
                return True
            time.sleep(0.05)
        return self.active == 0

    async def _events(self, reply: Reply):
        started = time.monotonic()
        if reply.pings:
            while time.monotonic() - started < reply.max_seconds:
                yield reply.ping_body
                await asyncio.sleep(reply.pings)
            return
        if reply.endless:
            chunk = {"choices": [{"index": 0, "delta": {"content": "more and more text "}}]}
            data = f"data: {json.dumps(chunk)}\n\n".encode() * 20
            while time.monotonic() - started < reply.max_seconds:
                yield data
                await asyncio.sleep(reply.endless_pause)
            return
        for number, piece in enumerate(reply.text):
            if reply.delay and number >= reply.delay_from:
                await asyncio.sleep(reply.delay)
            if reply.malformed:
                yield b"data: {this is not json\n\n"
                return
            chunk = {"choices": [{"index": 0, "delta": {"content": piece}}]}
            yield f"data: {json.dumps(chunk)}\n\n".encode()
        for index, call in enumerate(reply.tool_calls):
            arguments = call["arguments"]
            halves = [arguments[: len(arguments) // 2], arguments[len(arguments) // 2 :]]
            for part, piece in enumerate(halves):
                delta = {"index": index, "function": {"arguments": piece}}
                if part == 0:
                    delta.update(id=f"call_{index}", type="function")
                    delta["function"]["name"] = call["name"]
                chunk = {"choices": [{"index": 0, "delta": {"tool_calls": [delta]}}]}
                yield f"data: {json.dumps(chunk)}\n\n".encode()
        finish = "tool_calls" if reply.tool_calls else "stop"
        last = {"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}
        yield f"data: {json.dumps(last)}\n\n".encode()
        yield f"data: {json.dumps({'choices': [], 'usage': reply.usage})}\n\n".encode()
        if reply.send_done:
            yield b"data: [DONE]\n\n"


class FakeLLMProcess:
    """The fake in a process of its own (`python -m tests.fake_llm`), so a test can kill it mid-stream.

    Every request gets the same reply: `tokens` plain words, one every `delay` seconds."""

    def __init__(self, port: int, tokens: int = 12, delay: float = 0.3, log: Path | None = None) -> None:
        self.port = port
        self.url = f"http://127.0.0.1:{port}/v1"
        command = [sys.executable, "-m", "tests.fake_llm", str(port), str(tokens), str(delay)]
        output = log.open("w") if log else subprocess.DEVNULL
        self.process = subprocess.Popen(command, cwd=ROOT, stdout=output, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            assert self.process.poll() is None, f"the fake LLM exited with {self.process.returncode}"
            try:
                self.stats()
                return
            except httpx.HTTPError:
                time.sleep(0.1)
        raise AssertionError("the fake LLM process did not start")

    def stats(self) -> dict:
        return httpx.get(f"http://127.0.0.1:{self.port}/stats", timeout=5).json()

    def kill(self) -> None:
        """SIGKILL: its open streams break off mid-token and its port refuses connections."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(10)


def _main(argv: list[str]) -> None:
    port, tokens, delay = int(argv[0]), int(argv[1]), float(argv[2])
    words = ["The ", "documentation ", "covers ", "this ", "question ", "in ", "its ", "own ", "words "]
    fake = FakeLLM(port, Reply(text=[words[i % len(words)] for i in range(tokens)], delay=delay))
    print(f"fake LLM on {fake.url}", flush=True)
    fake.thread.join()


if __name__ == "__main__":
    _main(sys.argv[1:])
