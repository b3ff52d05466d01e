"""Memory under chat load: RSS growth of a real `askdocs serve` over unique extractive answers.

site_example is built with MkDocs into a temp dir (or `--site DIR` reuses a
built site) and served by a real `askdocs serve` (extractive answers, no LLM,
ASKDOCS_RATE_LIMIT=off). A warm-up of unique questions first (caches fill,
allocators settle), then N more unique questions, `--concurrency` at a time,
each streamed to its one `done`. RSS is sampled after warm-up, every 100
answers, at the end and after a short idle pause.

Goal (issue 11): after warm-up, 1,000 unique extractive answers grow RSS by
at most 100 MB, and no answer fails.

    .venv/bin/python benchmarks/memory_bench.py [--answers 1000] [--warmup 200] [--site DIR]

`unique_questions` and `chat_wave` are also used by tests/test_memory.py.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

SUBJECTS = [
    "install tallyfox on Windows",
    "rotate an API token",
    "configure the data directory",
    "send webhooks through a proxy",
    "restore a backup",
    "fix error TFX-1042",
    "set the flush interval of the agent",
    "verify a webhook signature",
    "upgrade the server",
    "run the agent without the service",
    "choose the memory of the server",
    "read the exit codes",
]
FORMS = [
    "How do I {s} on machine {n}?",
    "What is the right way to {s} for team {n}?",
    "Can you explain how to {s} (case {n})?",
    "Steps to {s} in environment number {n}",
]


def unique_questions(count: int, start: int = 0) -> list[str]:
    """`count` questions that differ in text (so no answer or embedding cache can serve them)."""
    out = []
    for i in range(start, start + count):
        subject = SUBJECTS[i % len(SUBJECTS)]
        form = FORMS[(i // len(SUBJECTS)) % len(FORMS)]
        out.append(form.format(s=subject, n=1000 + i))
    return out


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for {pid}")


async def chat_wave(url: str, questions: list[str], concurrency: int, timeout: float = 60) -> dict:
    """Stream every question to its end; count the ones that did not end in exactly one `done`."""
    import httpx
    from _benchlib import client_limits
    from askdocs.edge_runtime.sse import parse

    failures: list[str] = []
    gate = asyncio.Semaphore(concurrency)
    limits = client_limits(concurrency)
    async with httpx.AsyncClient(base_url=url, timeout=timeout, limits=limits) as client:

        async def one(question: str) -> None:
            async with gate:
                try:
                    response = await client.post("/api/chat", json={"message": question})
                    events = parse(response.text)
                    finals = [name for name, _ in events if name in ("done", "error")]
                    if response.status_code != 200 or finals != ["done"]:
                        failures.append(f"{response.status_code} {finals} {question!r}")
                except Exception as exc:  # noqa: BLE001 - every failure is counted
                    failures.append(f"{type(exc).__name__}: {exc} {question!r}")

        await asyncio.gather(*(one(q) for q in questions))
    return {"answers": len(questions), "failures": failures}


def main() -> int:
    from _benchlib import Report, extractive_server, progress, site_example, table

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--answers", type=int, default=1000)
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=20)
    parser.add_argument("--site", help="a built site_example (skips the MkDocs build)")
    parser.add_argument("--quick", action="store_true", help="300 answers after 100 of warm-up")
    args = parser.parse_args()
    if args.quick:
        args.answers, args.warmup = 300, 100

    report = Report("memory_bench", args.quick)
    report.header("Memory under chat load: unique extractive answers on a real askdocs serve")
    with tempfile.TemporaryDirectory() as tmp:
        site = site_example(args.site, Path(tmp))
        server, url = extractive_server(site, Path(tmp))
        with server:
            server.wait_ready()
            samples = [("started", 0, rss_mb(server.pid))]
            progress(f"warm-up: {args.warmup} unique answers ...")
            warm = asyncio.run(chat_wave(url, unique_questions(args.warmup), args.concurrency))
            samples.append(("after warm-up", args.warmup, rss_mb(server.pid)))
            failures = list(warm["failures"])
            done = 0
            started = time.perf_counter()
            while done < args.answers:
                batch = min(100, args.answers - done)
                wave = asyncio.run(
                    chat_wave(url, unique_questions(batch, 100_000 + done), args.concurrency)
                )
                failures += wave["failures"]
                done += batch
                samples.append((f"+{done}", done, rss_mb(server.pid)))
                progress(f"{done}/{args.answers} answers, RSS {samples[-1][2]:.0f} MB")
            seconds = time.perf_counter() - started
            time.sleep(5)
            samples.append(("idle 5 s", done, rss_mb(server.pid)))
    base = samples[1][2]
    growth = max(s[2] for s in samples[2:]) - base
    table(["moment", "answers", "RSS MB", "vs warm-up"], [(m, n, r, r - base) for m, n, r in samples])
    report.note(f"{args.answers} answers in {seconds:.1f}s at concurrency {args.concurrency}")
    report.goal(f"RSS growth over {args.answers:,} unique answers after warm-up", growth, "<=", 100, "MB")
    report.goal("failed answers", len(failures), "<=", 0, "")
    for failure in failures[:5]:
        report.note(f"failure: {failure}")
    report.results.update(samples=samples, failures=failures[:20], seconds=seconds, growth_mb=growth)
    print(json.dumps({"growth_mb": growth, "failures": len(failures)}))
    report.finish()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
