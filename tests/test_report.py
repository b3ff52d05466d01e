"""The answer log and `askdocs report`: the loop back to the docs team."""

from __future__ import annotations

import json

import httpx

from askdocs.report import build_report, read_log
from tests.conftest import Server
from tests.test_build import askdocs
from tests.test_chat import chat


def test_event_log_and_report_end_to_end(example_site, tmp_path):
    log = tmp_path / "answers.jsonl"
    server = Server([str(example_site.site_dir)], env={"ASKDOCS_EVENT_LOG": str(log)})
    try:
        answered = chat(server, "Which HTTP header carries the webhook signature?")
        chat(server, "Does Tallyfox have a native Slack integration?")
        chat(server, "Does Tallyfox have a native Slack integration?")
        chat(server, "I want to talk to a human")
        assert (
            httpx.post(
                server.url + "/api/feedback",
                json={"answer_id": answered["done"]["answer_id"], "vote": "down", "comment": "too short"},
            ).status_code
            == 204
        )
    finally:
        server.stop()
    records = [json.loads(line) for line in log.read_text().splitlines()]
    answers = [r for r in records if r["type"] == "answer"]
    assert len(answers) == 4
    first = answers[0]
    assert first["answered"] is True and first["mode"] == "extractive"
    assert "question" not in first and len(first["question_sha256"]) == 16  # hashed by default
    assert first["tool_calls"] and first["evidence"] and first["citations"]
    assert (
        first["latency_ms"]["first_byte"] is not None
        and first["latency_ms"]["done"] >= first["latency_ms"]["first_token"]
    )
    assert {r["escalation_reason"] for r in answers if r["escalation"]} == {"no_evidence", "human_requested"}
    assert any(r["type"] == "feedback" and r["vote"] == "down" and r["known_answer"] for r in records)

    result = askdocs("report", str(log), "--site", str(example_site.site_dir))
    out = result.stdout
    assert "4 answers, 1 votes" in out
    assert "could not verify: 75.0%" in out  # the Slack question twice and the human request
    assert "Top unanswered questions" in out and "   2  (hashed)" in out
    assert "/guides/webhooks/" in out  # most cited
    assert "Pages never cited (" in out and "  /api/" in out
    assert "first_token" in out


def test_report_survives_broken_lines(tmp_path):
    log = tmp_path / "broken.jsonl"
    log.write_text('{"type": "answer", "answered": false, "question": "q1"}\nnot json\n\n')
    answers, feedback, broken = read_log(log)
    assert len(answers) == 1 and broken == 1
    report = build_report(answers, feedback)
    assert report["could_not_verify_rate"] == 1.0
    assert report["top_unanswered"] == [("q1", 1)]
