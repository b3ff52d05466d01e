"""`askdocs report LOG` / `askdocs report --redis URL`: what the answer log says the docs team should fix."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from askdocs.errors import AskdocsError


def read_stream(url: str) -> tuple[list[dict], list[dict], int]:
    """The shared answer log every replica writes to (a Redis Stream)."""
    from askdocs.edge_runtime.state import read_stream as records

    try:
        found = records(url)
    except Exception as exc:  # redis errors name the host and the cause
        raise AskdocsError(f"cannot read the answer log from {url}: {exc}") from exc
    answers = [r for r in found if r.get("type") == "answer"]
    feedback = [r for r in found if r.get("type") == "feedback"]
    return answers, feedback, 0


def read_log(path: Path) -> tuple[list[dict], list[dict], int]:
    answers, feedback, broken = [], [], 0
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError as exc:
        raise AskdocsError(f"cannot read {path}: {exc}") from exc
    for line in lines:
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            broken += 1
            continue
        if record.get("type") == "answer":
            answers.append(record)
        elif record.get("type") == "feedback":
            feedback.append(record)
    return answers, feedback, broken


def _question(record: dict) -> str:
    return record.get("question") or f"(hashed) {record.get('question_sha256', '?')}"


def _percentile(values: list[float], pct: int) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(pct / 100 * (len(ordered) - 1)))]


def build_report(
    answers: list[dict], feedback: list[dict], top: int = 10, known_pages: list[str] | None = None
) -> dict:
    total = len(answers)
    unanswered = [a for a in answers if not a.get("answered")]
    escalated = [a for a in answers if a.get("escalation")]
    cited = Counter(url.split("#")[0] for a in answers for url in a.get("citations", []))
    gaps = Counter(_question(a) for a in unanswered)
    votes = Counter(f.get("vote") for f in feedback)
    down = {f.get("answer_id") for f in feedback if f.get("vote") == "down"}
    latency = {}
    for key in ("first_byte", "first_token", "done"):
        values = [
            a["latency_ms"][key]
            for a in answers
            if isinstance(a.get("latency_ms"), dict) and a["latency_ms"].get(key) is not None
        ]
        latency[key] = {"p50": _percentile(values, 50), "p95": _percentile(values, 95)}
    report = {
        "answers": total,
        "could_not_verify_rate": len(unanswered) / total if total else 0.0,
        "escalation_rate": len(escalated) / total if total else 0.0,
        "escalation_reasons": dict(Counter(a.get("escalation_reason") for a in escalated)),
        "modes": dict(Counter(a.get("mode") for a in answers)),
        "fallbacks": dict(Counter(a.get("fallback_reason") for a in answers if a.get("fallback_reason"))),
        "top_unanswered": gaps.most_common(top),
        "most_cited": cited.most_common(top),
        "votes": dict(votes),
        "downvoted_questions": Counter(
            _question(a) for a in answers if a.get("answer_id") in down
        ).most_common(top),
        "latency_ms": latency,
    }
    if known_pages is not None:
        report["never_cited"] = sorted(set(known_pages) - set(cited))
    return report


def print_report(
    path: Path | None, top: int = 10, known_pages: list[str] | None = None, redis_url: str | None = None
) -> None:
    if redis_url:
        answers, feedback, broken = read_stream(redis_url)
        source = f"{redis_url} (stream askdocs:events)"
    elif path is not None:
        answers, feedback, broken = read_log(path)
        source = str(path)
    else:
        raise AskdocsError("askdocs report: give a LOG file or --redis URL")
    if known_pages is None:
        known_pages = sorted({url.split("#")[0] for a in answers for url in a.get("evidence", [])})
    report = build_report(answers, feedback, top, known_pages)
    print(
        f"askdocs report for {source}: {report['answers']} answers, {len(feedback)} votes"
        + (f", {broken} unreadable lines skipped" if broken else "")
    )
    print(f"  could not verify: {report['could_not_verify_rate']:.1%}")
    print(f"  escalation rate:  {report['escalation_rate']:.1%}  {report['escalation_reasons']}")
    print(
        f"  answered by:      {report['modes']}"
        + (f"  fallbacks {report['fallbacks']}" if report["fallbacks"] else "")
    )
    print(f"  votes:            {report['votes']}")
    _section("Top unanswered questions (docs gaps)", report["top_unanswered"])
    _section("Pages most cited", report["most_cited"])
    _section("Questions with thumbs-down", report["downvoted_questions"])
    if report.get("never_cited"):
        print(f"\nPages never cited ({len(report['never_cited'])}):")
        for page in report["never_cited"][:top]:
            print(f"  {page}")
    print("\nLatency (ms):")
    for key, values in report["latency_ms"].items():
        p50, p95 = values["p50"], values["p95"]
        print(f"  {key:12} p50 {_ms(p50)}  p95 {_ms(p95)}")
    if not report["answers"]:
        print("  (no answers logged yet)")


def _ms(value) -> str:
    return "-" if value is None else f"{value:.0f}"


def _section(title: str, rows: list) -> None:
    print(f"\n{title}:")
    if not rows:
        print("  (none)")
    for item, count in rows:
        print(f"  {count:4d}  {item}")
