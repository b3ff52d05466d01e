"""The chat stream's closed set of events (docs/pages/http-api.md): status, tool, token, done, error."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

EventName = Literal["status", "tool", "token", "done", "error"]


@dataclass(frozen=True)
class StreamEvent:
    event: EventName
    data: dict[str, Any]

    @property
    def final(self) -> bool:
        return self.event in ("done", "error")


def status(stage: str, detail: str | None = None) -> StreamEvent:
    data: dict[str, Any] = {"stage": stage}
    if detail:
        data["detail"] = detail
    return StreamEvent("status", data)


def tool(name: str, args: dict[str, Any], **extra: Any) -> StreamEvent:
    return StreamEvent("tool", {"name": name, "args": args, **extra})


def token(text: str) -> StreamEvent:
    return StreamEvent("token", {"text": text})


def done(
    answer_id: str, answered: bool, mode: str, citations: list[dict], escalation: dict | None, **extra: Any
) -> StreamEvent:
    return StreamEvent(
        "done",
        {
            "answer_id": answer_id,
            "answered": answered,
            "mode": mode,
            "citations": citations,
            "escalation": escalation,
            **extra,
        },
    )


def error(code: str, message: str) -> StreamEvent:
    return StreamEvent("error", {"code": code, "message": message})
