"""Chat streaming: latency of `POST /api/chat` on a real server, and 100 concurrent LLM streams.

1. site_example is built with MkDocs (which runs the askdocs plugin) into a
   temp dir and served by a real `askdocs serve` (ASKDOCS_RATE_LIMIT=off).
   Every question of `evals/site_example.jsonl` is streamed with httpx, one at
   a time, timed on the client: first byte, first `token` event, `done`
   (extractive mode); p50/p95.
2. Concurrency: a fake OpenAI-compatible server (Starlette + uvicorn, its own
   process) streams `/v1/chat/completions` slowly (20 tokens, 50 ms apart);
   an askdocs server points at it (LLM mode, agent off, answer cache off) and
   receives 100 concurrent chat streams, twice. Counted: errors (goal 0),
   streams that end with exactly one done/error (goal: all), p50/p95 time to
   done, and the server's RSS before / during / after (bounded memory: the
   second wave must not need more memory than the first).

    .venv/bin/python benchmarks/chat_bench.py [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import codecs
import json
import os
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _benchlib import (  # noqa: E402
    ROOT,
    Report,
    Server,
    Ticker,
    client_limits,
    free_port,
    mkdocs_build,
    progress,
    questions,
    ratio,
    summary,
    table,
)

FAKE_TOKENS = 20
FAKE_INTERVAL = 0.05
CONCURRENCY = 100
FINAL = ("done", "error")


# -- the fake OpenAI-compatible endpoint (runs in its own process) ---------------
def fake_llm(port: int, tokens: int, interval: float) -> None:
    import uvicorn
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, StreamingResponse
    from starlette.routing import Route

    words = [
        "According",
        "to",
        "the",
        "documentation,",
        "the",
        "setting",
        "you",
        "need",
        "is",
        "described",
        "in",
        "the",
        "reference",
        "page,",
        "so",
        "change",
        "it",
        "there",
        "and",
        "restart",
        "the",
        "service",
        "[1].",
    ]
    state = {"requests": 0, "active": 0, "max_active": 0, "completed": 0}

    async def completions(request: Request):
        await request.json()
        state["requests"] += 1

        async def stream():
            state["active"] += 1
            state["max_active"] = max(state["max_active"], state["active"])
            try:
                for i in range(tokens):
                    await asyncio.sleep(interval)
                    piece = words[i % len(words)] + ("" if i == tokens - 1 else " ")
                    chunk = {
                        "id": "fake",
                        "object": "chat.completion.chunk",
                        "choices": [{"index": 0, "delta": {"content": piece}}],
                    }
                    yield f"data: {json.dumps(chunk)}\n\n"
                done = {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
                yield f"data: {json.dumps(done)}\n\n"
                yield "data: [DONE]\n\n"
                state["completed"] += 1
            finally:
                state["active"] -= 1

        return StreamingResponse(stream(), media_type="text/event-stream")

    async def stats(request: Request):
        return JSONResponse(state)

    app = Starlette(
        routes=[Route("/v1/chat/completions", completions, methods=["POST"]), Route("/stats", stats)]
    )
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


# -- SSE clients -------------------------------------------------------------------
class StreamRecord:
    def __init__(self) -> None:
        self.start = time.perf_counter()
        self.first_byte: float | None = None
        self.first_token: float | None = None
        self.done: float | None = None
        self.status = 0
        self.events: list[tuple[str, dict]] = []
        self.exception: str | None = None
        self._decoder = codecs.getincrementaldecoder("utf-8")()
        self._buffer = ""

    def feed(self, data: bytes) -> None:
        now = time.perf_counter()
        if data and self.first_byte is None:
            self.first_byte = now
        self._buffer += self._decoder.decode(data)
        while "\n\n" in self._buffer:
            block, self._buffer = self._buffer.split("\n\n", 1)
            name, lines = "message", []
            for line in block.split("\n"):
                if line.startswith("event:"):
                    name = line[6:].strip()
                elif line.startswith("data:"):
                    lines.append(line[5:].lstrip())
            if not lines:
                continue  # keep-alive comment
            self.events.append((name, json.loads("\n".join(lines))))
            if name == "token" and self.first_token is None:
                self.first_token = now
            if name in FINAL and self.done is None:
                self.done = now

    def ms(self, moment: float | None) -> float | None:
        return None if moment is None else (moment - self.start) * 1000

    @property
    def finals(self) -> int:
        return sum(1 for name, _ in self.events if name in FINAL)

    @property
    def ends_cleanly(self) -> bool:
        return self.finals == 1 and bool(self.events) and self.events[-1][0] in FINAL

    @property
    def final(self) -> dict:
        return next((data | {"_event": name} for name, data in self.events if name in FINAL), {})

    @property
    def error(self) -> str | None:
        if self.exception:
            return self.exception
        if self.status != 200:
            return f"HTTP {self.status}"
        if self.final.get("_event") == "error":
            return f"error event: {self.final.get('code')}: {self.final.get('message')}"
        if not self.finals:
            return "no done/error event"
        return None


def log_exceptions(path: Path) -> dict[str, int]:
    """Tracebacks in a server log, summarised as 'deepest askdocs frame -> exception'."""
    try:
        lines = path.read_text(errors="replace").splitlines()
    except OSError:
        return {}
    found: Counter[str] = Counter()
    i = 0
    while i < len(lines):
        if lines[i].startswith("Traceback (most recent call last)"):
            frame, j = "", i + 1
            while j < len(lines) and (lines[j].startswith(" ") or not lines[j].strip()):
                if lines[j].strip().startswith("File ") and (
                    "askdocs" in lines[j] or str(ROOT) in lines[j]
                ):
                    frame = lines[j].strip()
                j += 1
            exception = lines[j].strip() if j < len(lines) else "?"
            found[f"{frame} -> {exception}"[:300]] += 1
            i = j
        i += 1
    return dict(found)


def body_for(item: dict) -> dict:
    body = {"message": item["question"], "locale": item["locale"]}
    if item.get("history"):
        body["history"] = item["history"]
    return body


def stream_sync(client, item: dict) -> StreamRecord:
    rec = StreamRecord()
    try:
        with client.stream("POST", "/api/chat", json=body_for(item)) as response:
            rec.status = response.status_code
            for data in response.iter_raw():
                rec.feed(data)
    except Exception as exc:  # counted, never hidden
        rec.exception = f"{type(exc).__name__}: {exc}"
    return rec


async def stream_async(client, item: dict) -> StreamRecord:
    rec = StreamRecord()
    try:
        async with client.stream("POST", "/api/chat", json=body_for(item)) as response:
            rec.status = response.status_code
            async for data in response.aiter_raw():
                rec.feed(data)
    except Exception as exc:
        rec.exception = f"{type(exc).__name__}: {exc}"
    return rec


async def wave(base_url: str, items: list[dict]) -> list[StreamRecord]:
    import httpx

    limits = client_limits(len(items) + 10)
    async with httpx.AsyncClient(base_url=base_url, timeout=httpx.Timeout(180.0), limits=limits) as client:
        return await asyncio.gather(*(stream_async(client, item) for item in items))


class RssSampler(threading.Thread):
    def __init__(self, server: Server, every: float = 0.05) -> None:
        super().__init__(daemon=True)
        self.server, self.every = server, every
        self.peak = 0.0
        self._stop_event = threading.Event()

    def run(self) -> None:
        while not self._stop_event.is_set():
            self.peak = max(self.peak, self.server.rss().get("rss", 0.0))
            time.sleep(self.every)

    def stop(self) -> float:
        self._stop_event.set()
        self.join()
        return self.peak


def latency_rows(records: list[StreamRecord]) -> tuple[list[list], dict]:
    out = {}
    rows = []
    for label, attr in (("first byte", "first_byte"), ("first token", "first_token"), ("done", "done")):
        values = [v for r in records if (v := r.ms(getattr(r, attr))) is not None]
        st = summary(values)
        out[attr] = st
        rows.append([label, st.get("n", 0), st.get("p50"), st.get("p95"), st.get("max")])
    return rows, out


def outcome_counts(records: list[StreamRecord]) -> dict:
    errors = [e for r in records if (e := r.error)]
    return {
        "streams": len(records),
        "errors": len(errors),
        "error_kinds": dict(Counter(errors)),
        "ends_with_exactly_one_final": sum(r.ends_cleanly for r in records),
        "modes": dict(Counter(str(r.final.get("mode")) for r in records)),
        "answered": sum(bool(r.final.get("answered")) for r in records),
    }


# -- main ------------------------------------------------------------------------------
def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="short smoke run")
    parser.add_argument("--fake-llm", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--tokens", type=int, default=FAKE_TOKENS, help=argparse.SUPPRESS)
    parser.add_argument("--interval", type=float, default=FAKE_INTERVAL, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.fake_llm:
        fake_llm(args.fake_llm, args.tokens, args.interval)
        return 0

    import httpx

    report = Report("chat_bench", args.quick)
    report.header("chat_bench: /api/chat streaming latency and 100 concurrent LLM streams")
    qs = questions("site_example")
    if args.quick:
        qs = qs[:10]
    concurrency = 20 if args.quick else CONCURRENCY
    waves = 1 if args.quick else 2
    results = report.results

    with tempfile.TemporaryDirectory(prefix="askdocs-chat-bench-") as tmp_name:
        tmp = Path(tmp_name)
        progress("building site_example with MkDocs (+ the askdocs plugin) into a temp dir ...")
        build_s = mkdocs_build(ROOT / "site_example" / "mkdocs.yml", tmp / "site")
        results["site_build_seconds"] = build_s
        progress(f"site_example built in {build_s:.1f}s")
        base_env = {
            k: v for k, v in os.environ.items() if not k.startswith("ASKDOCS_") or k == "ASKDOCS_HOME"
        }
        base_env.pop("OPENAI_BASE_URL", None)
        base_env["ASKDOCS_RATE_LIMIT"] = "off"

        # 1. extractive, sequential -----------------------------------------------
        port = free_port()
        cmd = [str(Path(sys.executable).parent / "askdocs"), "serve", str(tmp / "site"), "--port", str(port)]
        with Server(
            cmd, base_env, tmp / "serve-extractive.log", f"http://127.0.0.1:{port}/healthz"
        ) as server:
            startup = server.wait_ready()
            progress(
                f"askdocs serve (extractive) ready in {startup:.1f}s; streaming "
                f"{len(qs)} questions one at a time ..."
            )
            records = []
            tick = Ticker("extractive chat", len(qs))
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=120) as client:
                stream_sync(client, {"question": "warm up: how do I install it?", "locale": "en"})
                for item in qs:
                    records.append(stream_sync(client, item))
                    tick()
            rss_extractive = server.rss()
        rows, lat = latency_rows(records)
        counts = outcome_counts(records)
        table(
            ["extractive /api/chat (client side)", "n", "p50 ms", "p95 ms", "max ms"],
            rows,
            title=f"Extractive chat, {len(qs)} questions of evals/site_example.jsonl, "
            "sequential, real server",
        )
        print(
            f"outcomes: {counts['answered']}/{counts['streams']} answered, modes "
            f"{counts['modes']}, errors {counts['errors']} {counts['error_kinds'] or ''}; "
            f"server RSS {rss_extractive.get('rss', 0):.0f} MB"
        )
        results["extractive"] = {
            "latency_ms": lat,
            "outcomes": counts,
            "server_startup_s": startup,
            "server_rss_mb": rss_extractive,
        }
        report.goal("extractive chat: streams with errors", counts["errors"], "==", 0)
        report.goal(
            "extractive chat: streams ending with exactly one done/error",
            counts["ends_with_exactly_one_final"],
            "==",
            counts["streams"],
        )

        # 2. concurrency against a slow fake LLM ------------------------------------
        answered = [
            item
            for item, rec in zip(qs, records, strict=True)
            if rec.final.get("answered") and rec.final.get("mode") == "extractive"
        ]
        pool = answered or qs
        items = [pool[i % len(pool)] for i in range(concurrency)]
        llm_port, port = free_port(), free_port()
        fake_cmd = [
            sys.executable,
            __file__,
            "--fake-llm",
            str(llm_port),
            "--tokens",
            str(FAKE_TOKENS),
            "--interval",
            str(FAKE_INTERVAL),
        ]
        llm_env = {
            **base_env,
            "OPENAI_BASE_URL": f"http://127.0.0.1:{llm_port}/v1",
            "ASKDOCS_LLM_MODEL": "fake",
            "ASKDOCS_LLM_AGENT": "off",
            "ASKDOCS_ANSWER_CACHE": "0",
        }
        ideal_ms = FAKE_TOKENS * FAKE_INTERVAL * 1000
        with (
            Server(fake_cmd, base_env, tmp / "fake-llm.log", f"http://127.0.0.1:{llm_port}/stats") as fake,
            Server(
                cmd[:-1] + [str(port)], llm_env, tmp / "serve-llm.log", f"http://127.0.0.1:{port}/healthz"
            ) as server,
        ):
            fake.wait_ready()
            server.wait_ready()
            base_url = f"http://127.0.0.1:{port}"
            progress("warming up the LLM-mode server (3 sequential streams) ...")
            with httpx.Client(base_url=base_url, timeout=120) as client:
                for item in pool[:3]:
                    stream_sync(client, item)
            time.sleep(1.0)
            rss_before = server.rss().get("rss")
            wave_results = []
            for w in range(waves):
                progress(
                    f"wave {w + 1}/{waves}: {concurrency} concurrent chat streams "
                    f"(fake LLM: {FAKE_TOKENS} tokens x {FAKE_INTERVAL * 1000:.0f} ms) ..."
                )
                sampler = RssSampler(server)
                sampler.start()
                t0 = time.perf_counter()
                recs = asyncio.run(wave(base_url, items))
                wall = time.perf_counter() - t0
                peak = sampler.stop()
                time.sleep(2.0)
                after = server.rss().get("rss")
                wave_results.append({"records": recs, "wall_s": wall, "peak_mb": peak, "after_mb": after})
                progress(f"wave {w + 1}: {wall:.1f}s wall, server RSS peak {peak:.0f} MB")
            stats = httpx.get(f"http://127.0.0.1:{llm_port}/stats").json()
            final_rss = server.rss()
        server_exceptions = log_exceptions(tmp / "serve-llm.log")
        extractive_exceptions = log_exceptions(tmp / "serve-extractive.log")

    waves_out = []
    for w, wr in enumerate(wave_results):
        rows, lat = latency_rows(wr["records"])
        counts = outcome_counts(wr["records"])
        table(
            ["LLM-mode /api/chat (client side)", "n", "p50 ms", "p95 ms", "max ms"],
            rows,
            title=f"Wave {w + 1}: {concurrency} concurrent streams, fake LLM "
            f"{FAKE_TOKENS} tokens x {FAKE_INTERVAL * 1000:.0f} ms "
            f"(ideal ~{ideal_ms:.0f} ms), wall {wr['wall_s']:.1f}s",
        )
        print(
            f"outcomes: errors {counts['errors']} {counts['error_kinds'] or ''}; exactly one "
            f"done/error: {counts['ends_with_exactly_one_final']}/{counts['streams']}; modes "
            f"{counts['modes']}"
        )
        waves_out.append(
            {
                "latency_ms": lat,
                "outcomes": counts,
                "wall_s": wr["wall_s"],
                "rss_peak_mb": wr["peak_mb"],
                "rss_after_mb": wr["after_mb"],
            }
        )
    table(
        ["server RSS (MB)", "value"],
        [
            ["before (after warm-up)", rss_before],
            *[[f"wave {i + 1} peak during", w["rss_peak_mb"]] for i, w in enumerate(waves_out)],
            *[[f"wave {i + 1} after (2 s idle)", w["rss_after_mb"]] for i, w in enumerate(waves_out)],
            ["VmHWM at end", final_rss.get("peak")],
        ],
        title="Server memory under concurrent streams",
    )
    print(
        f"fake LLM saw {stats['requests']} requests, at most {stats['max_active']} streaming "
        f"at once, {stats['completed']} completed"
    )
    for label, found in (
        ("extractive server", extractive_exceptions),
        ("LLM-mode server", server_exceptions),
    ):
        if found:
            print(f"\ntracebacks in the {label}'s log (deepest askdocs frame -> exception):")
            for line, count in sorted(found.items(), key=lambda kv: -kv[1]):
                print(f"  {count:4d} x {line}")
    results["server_log_exceptions"] = {"extractive": extractive_exceptions, "llm": server_exceptions}
    results["concurrency"] = {
        "streams_per_wave": concurrency,
        "waves": waves_out,
        "rss_before_mb": rss_before,
        "rss_end": final_rss,
        "fake_llm": stats,
        "ideal_done_ms": ideal_ms,
    }
    for i, w in enumerate(waves_out):
        c = w["outcomes"]
        report.goal(f"wave {i + 1}: streams with errors", c["errors"], "==", 0)
        report.goal(
            f"wave {i + 1}: streams ending with exactly one done/error",
            c["ends_with_exactly_one_final"],
            "==",
            c["streams"],
        )
        report.goal(
            f"wave {i + 1}: LLM fallbacks (extractive-fallback)",
            c["modes"].get("extractive-fallback", 0),
            "==",
            0,
        )
        print(
            f"wave {i + 1}: time to done p50 / ideal = "
            f"{ratio(w['latency_ms']['done'].get('p50'), ideal_ms) or 0:.2f}"
        )
    if len(waves_out) > 1:
        report.goal(
            "bounded memory: wave 2 peak RSS / wave 1 peak RSS",
            ratio(waves_out[1]["rss_peak_mb"], waves_out[0]["rss_peak_mb"]),
            "<=",
            1.05,
        )
    report.goal(
        "memory during the wave: peak RSS / RSS before",
        ratio(waves_out[0]["rss_peak_mb"], rss_before),
        "<=",
        1.5,
        note="this benchmark's own bound",
    )
    report.finish()
    return 0


if __name__ == "__main__":
    sys.exit(main())
