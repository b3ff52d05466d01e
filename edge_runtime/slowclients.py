"""Slow clients: a request's headers and its body must arrive within deadlines.

uvicorn times out idle keep-alive connections but not a request in progress: a client
that sends half a header block, or headers and part of a body, holds its connection
forever (a few thousand of them exhaust file descriptors without using any CPU). Two
deadlines close that:

- `header_deadline_protocol(seconds)`: uvicorn's h11 protocol with a timer from the first
  byte of each request (and from the connection itself) until its header block is
  complete; past it the client gets a JSON `408` and the connection is closed. Bytes
  trickling in do not reset the timer. Protocol-level 400s (malformed or oversized
  headers) are JSON too.
- `BodyDeadline`: ASGI middleware; once the headers are in, the whole body must arrive
  within its deadline, else the endpoint reading it gets `ApiError(408)` (a JSON 408 with
  `Connection: close`). Nothing waits in a thread: a slow body costs one suspended task.
"""

from __future__ import annotations

import asyncio
import json

from askdocs.edge_runtime.errors import ApiError
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol


def _raw_error(status: int, reason: str, code: str, message: str) -> bytes:
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    )
    return head.encode("latin-1") + body


class _HeaderDeadlineProtocol(H11Protocol):
    header_timeout = 10.0

    def connection_made(self, transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._header_timer: asyncio.TimerHandle | None = None
        self._arm()

    def _idle(self) -> bool:
        return self.cycle is None or self.cycle.response_complete

    def _arm(self) -> None:
        if self._header_timer is None:
            self._header_timer = self.loop.call_later(self.header_timeout, self._headers_too_slow)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def data_received(self, data: bytes) -> None:
        if self._idle():
            self._arm()  # the first byte of a new request starts its clock
        super().data_received(data)

    def handle_events(self) -> None:
        before = self.cycle
        super().handle_events()
        if self.cycle is not before:  # a header block completed: the body has its own deadline
            self._disarm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _headers_too_slow(self) -> None:
        self._header_timer = None
        if self.transport.is_closing() or not self._idle():
            return
        self.transport.write(
            _raw_error(
                408,
                "Request Timeout",
                "timeout",
                f"request headers not received within {self.header_timeout:g}s",
            )
        )
        self.transport.close()

    def send_400_response(self, msg: str) -> None:
        self._disarm()
        self.transport.write(_raw_error(400, "Bad Request", "bad_request", msg))
        self.transport.close()


def header_deadline_protocol(seconds: float) -> type[H11Protocol]:
    """uvicorn's h11 protocol with a header deadline (pass as `uvicorn.run(http=...)`)."""
    return type("HeaderDeadlineProtocol", (_HeaderDeadlineProtocol,), {"header_timeout": seconds})


class BodyDeadline:
    """Pure ASGI: the request body must be complete within `seconds` of the request's start.

    Only `http.request` messages are timed; once the body is complete `receive` is passed
    through untouched (streaming responses wait on it for the disconnect)."""

    def __init__(self, app: ASGIApp, seconds: float) -> None:
        self.app = app
        self.seconds = seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.seconds
        complete = False

        async def timed_receive() -> Message:
            nonlocal complete
            if complete:
                return await receive()
            remaining = deadline - loop.time()
            try:
                if remaining <= 0:
                    raise TimeoutError
                async with asyncio.timeout(remaining):
                    message = await receive()
            except TimeoutError:
                complete = True  # nothing more will be read from this request
                raise ApiError(
                    408,
                    "timeout",
                    f"request body not received within {self.seconds:g}s",
                    {"Connection": "close"},
                ) from None
            if message["type"] != "http.request" or not message.get("more_body", False):
                complete = True
            return message

        await self.app(scope, timed_receive, send)
