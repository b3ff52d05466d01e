"""Server-Sent Events framing: the only place events become bytes."""

from __future__ import annotations

import json

from askdocs.edge_runtime.events import StreamEvent

KEEP_ALIVE = b": keep-alive\n\n"
HEADERS = {
    "Cache-Control": "no-cache, no-transform",
    "X-Accel-Buffering": "no",
    "Connection": "keep-alive",
}


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
