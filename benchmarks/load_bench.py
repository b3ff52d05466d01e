"""Load: a real `askdocs serve` under 50 concurrent search readers, then 20 concurrent chat readers.

site_example is built with MkDocs (or `--site DIR` reuses a built site) and served by a real
`askdocs serve` (extractive answers, ASKDOCS_RATE_LIMIT=off). An asyncio httpx client sends
`--searches` GET /api/search requests 50 at a time, then `--chats` unique POST /api/chat
questions 20 at a time (each streamed to its end). Reported per phase: throughput, p50/p95/p99
latency, errors (non-200, or a chat stream that does not end in exactly one `done`), and the
server's RSS before and after. Goals (issue 11): 0 errors; RSS flat after warm-up.

    .venv/bin/python benchmarks/load_bench.py [--searches 2000] [--chats 200] [--site DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _benchlib import (  # noqa: E402
    Report,
    client_limits,
    extractive_server,
    percentile,
    progress,
    site_example,
    table,
)
from memory_bench import rss_mb, unique_questions  # noqa: E402

SEARCHES = [
    "install on windows",
    "TFX-1042",
    "webhook signature header",
    "data directory",
    "flush interval",
    "token rotate grace period",
    "instalar en Windows",
    "exit code 7",
    "proxy for webhooks",
    "backup restore",
]


async def phase(url: str, concurrency: int, jobs: list, kind: str) -> dict:
    import httpx
    from askdocs.edge_runtime.sse import parse

    latencies: list[float] = []
    errors: list[str] = []
    gate = asyncio.Semaphore(concurrency)
    limits = client_limits(concurrency)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as client:

        async def one(job) -> None:
            async with gate:
                started = time.perf_counter()
                try:
                    if kind == "search":
                        response = await client.get("/api/search", params={"q": job, "k": 10})
                        ok = response.status_code == 200 and "results" in response.json()
                    else:
                        response = await client.post("/api/chat", json={"message": job})
                        finals = [n for n, _ in parse(response.text) if n in ("done", "error")]
                        ok = response.status_code == 200 and finals == ["done"]
                    if not ok:
                        errors.append(f"{response.status_code} {response.text[:200]}")
                except Exception as exc:  # noqa: BLE001 - every failure is counted
                    errors.append(f"{type(exc).__name__}: {exc}")
                latencies.append(time.perf_counter() - started)

        started = time.perf_counter()
        await asyncio.gather(*(one(job) for job in jobs))
        seconds = time.perf_counter() - started
    return {
        "requests": len(jobs),
        "seconds": seconds,
        "rps": len(jobs) / seconds,
        "p50_ms": percentile(latencies, 50) * 1000,
        "p95_ms": percentile(latencies, 95) * 1000,
        "p99_ms": percentile(latencies, 99) * 1000,
        "errors": len(errors),
        "error_samples": errors[:5],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--searches", type=int, default=2000)
    parser.add_argument("--chats", type=int, default=200)
    parser.add_argument("--site", help="a built site_example (skips the MkDocs build)")
    parser.add_argument("--quick", action="store_true", help="500 searches, 60 chats")
    args = parser.parse_args()
    if args.quick:
        args.searches, args.chats = 500, 60
    report = Report("load_bench", args.quick)
    report.header("Load: 50 concurrent search readers, 20 concurrent chat readers, real askdocs serve")
    with tempfile.TemporaryDirectory() as tmp:
        site = site_example(args.site, Path(tmp))
        server, url = extractive_server(site, Path(tmp))
        with server:
            server.wait_ready()
            progress("warm-up: 40 searches, 40 chats ...")
            asyncio.run(phase(url, 20, SEARCHES * 4, "search"))
            asyncio.run(phase(url, 20, unique_questions(40, 900_000), "chat"))
            rows = []
            for kind, concurrency, jobs in (
                ("search", 50, [SEARCHES[i % len(SEARCHES)] + f" {i}" for i in range(args.searches)]),
                ("chat", 20, unique_questions(args.chats, 700_000)),
            ):
                before = rss_mb(server.pid)
                progress(f"{kind}: {len(jobs)} requests, {concurrency} at a time ...")
                result = asyncio.run(phase(url, concurrency, jobs, kind))
                result.update(concurrency=concurrency, rss_before_mb=before, rss_after_mb=rss_mb(server.pid))
                report.results[kind] = result
                rows.append(
                    (
                        kind,
                        concurrency,
                        result["requests"],
                        result["rps"],
                        result["p50_ms"],
                        result["p95_ms"],
                        result["p99_ms"],
                        result["errors"],
                        before,
                        result["rss_after_mb"],
                    )
                )
                report.goal(f"{kind} errors", result["errors"], "<=", 0)
                report.goal(
                    f"{kind} RSS growth after warm-up", result["rss_after_mb"] - before, "<=", 100, " MB"
                )
                for sample in result["error_samples"]:
                    report.note(f"{kind} error: {sample}")
    table(
        [
            "phase",
            "conc",
            "requests",
            "req/s",
            "p50 ms",
            "p95 ms",
            "p99 ms",
            "errors",
            "RSS before",
            "RSS after",
        ],
        rows,
    )
    report.finish()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
