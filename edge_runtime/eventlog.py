"""A log of every answer and every vote: the loop back to the docs team.

Records go to a JSON-lines file (`ASKDOCS_EVENT_LOG`) and, with Redis, to the
shared event stream every replica writes (see `state.EventStream`).
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from pathlib import Path

from askdocs.edge_runtime.state import EventStream

log = logging.getLogger("askdocs.answers")


class EventLog:
    def __init__(self, path: Path | None, questions: str = "hash", stream: EventStream | None = None) -> None:
        self.path = Path(path) if path else None
        self.questions = questions
        self.stream = stream
        self._lock = threading.Lock()
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)

    def question_field(self, question: str) -> dict:
        if self.questions == "plain":
            return {"question": question}
        return {"question_sha256": hashlib.sha256(question.strip().lower().encode()).hexdigest()[:16]}

    def write(self, record: dict) -> None:
        record = {"ts": round(time.time(), 3), **record}
        line = json.dumps(record, ensure_ascii=False, sort_keys=True)
        if record.get("escalation"):
            log.info(
                "escalation offered (%s) for answer %s",
                record.get("escalation_reason"),
                record.get("answer_id"),
            )
        if self.stream is not None:
            self.stream.add(line, record.get("answer_id") if record.get("type") == "answer" else None)
        if self.path is None:
            log.debug("%s", line)
            return
        with self._lock, self.path.open("a", encoding="utf-8") as fh:
            fh.write(line + "\n")

    async def knows(self, answer_id: str) -> bool:
        """Whether another replica logged this answer (feedback may reach any replica)."""
        return self.stream is not None and await self.stream.knows(answer_id)

    def feedback(self, answer_id: str, vote: str, comment: str | None, known: bool) -> None:
        self.write(
            {
                "type": "feedback",
                "answer_id": answer_id,
                "vote": vote,
                "comment": comment,
                "known_answer": known,
            }
        )
