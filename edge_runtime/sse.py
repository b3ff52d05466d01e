"""Server-Sent Events framing: the only place events become bytes."""

from __future__ import annotations

import asyncio
import json

from askdocs.edge_runtime.events import StreamEvent
from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

KEEP_ALIVE = b": keep-alive\n\n"
HEADERS = {
    "Cache-Control": "no-cache, no-transform",
    "X-Accel-Buffering": "no",
    "Connection": "keep-alive",
}


class EventStreamResponse(StreamingResponse):
    """A streamed response that notices the reader hanging up even while nothing is written.

    uvicorn drops writes to a closed connection silently, and Starlette's `StreamingResponse`
    listens for `http.disconnect` only on servers older than ASGI spec 2.4 (from 2.4 on it
    waits for a write to fail). An answer that writes rarely — an LLM sending a token every
    few seconds, a long retrieval — could then run on for a reader who has left. This
    response always races the body against `http.disconnect` and cancels the body the
    moment the reader leaves, which cancels the work behind it (`drain.bounded` passes the
    cancellation on to the answer's generator), whatever spec version the server reports.
    """

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        body = asyncio.ensure_future(self.stream_response(send))
        hangup = asyncio.ensure_future(self.listen_for_disconnect(receive))
        try:
            await asyncio.wait({body, hangup}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (hangup, body):
                task.cancel()
            await asyncio.gather(body, hangup, return_exceptions=True)
        if not body.cancelled() and body.exception() is not None:
            raise body.exception()  # type: ignore[misc]
        if self.background is not None:
            await self.background()


def frame(event: StreamEvent) -> bytes:
    data = json.dumps(event.data, ensure_ascii=False, separators=(",", ":"))
    return f"event: {event.event}\ndata: {data}\n\n".encode()


def parse(stream: str) -> list[tuple[str, dict]]:
    """Parse framed events back (tests and `askdocs eval --chat`)."""
    out = []
    for block in stream.replace("\r\n", "\n").split("\n\n"):
        name, data = "message", []
        for line in block.split("\n"):
            if line.startswith(":") or not line:
                continue
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "event":
                name = value
            elif field == "data":
                data.append(value)
        if data:
            out.append((name, json.loads("\n".join(data))))
    return out
