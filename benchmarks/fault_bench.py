"""Faults under load: a real `askdocs serve` keeps answering while its LLM dies and its index breaks.

A fake OpenAI-compatible LLM runs in a process of its own (`tests/fake_llm.py`, plain words, one
every `--llm-delay` seconds) and a real `askdocs serve` (uvicorn) answers in LLM mode from a copy
of site_example that this script vandalises. While `--chat-readers` readers ask unique chat
questions and `--search-readers` readers search, one after another in bounded loops:

1. the LLM process is killed (SIGKILL) while streams are open;
2. a shard file in the served folder is truncated, then `POST /admin/reload`;
3. `manifest.json` is overwritten with garbage, then `SIGHUP` (the reload signal).

Every request is recorded: chat streams must end with exactly one `done` or `error` (and it must be
the last event) within the deadline; the answers the dead LLM could not give are
`extractive-fallback` with a `fallback_reason`; both reloads fail, are reported in `/healthz`, and
the old index keeps serving the same search results; the server process never dies.

    .venv/bin/python benchmarks/fault_bench.py [--site DIR] [--chat-readers 12] [--search-readers 6] [--quick]

`run_faults` is also what tests/test_faults.py runs (smaller).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _benchlib import ROOT, Report, free_port, progress, site_example, table  # noqa: E402
from memory_bench import unique_questions  # noqa: E402

sys.path.insert(0, str(ROOT))
import httpx  # noqa: E402
from askdocs.edge_runtime.sse import parse  # noqa: E402

from tests.fake_llm import FakeLLMProcess  # noqa: E402

ADMIN = "fault-bench-admin-token-0123456789"
AUTH = {"Authorization": f"Bearer {ADMIN}"}
SEARCHES = ["install on windows", "TFX-1042", "webhook signature header", "restore a backup"]
FINAL = ("done", "error")


@dataclass
class Settings:
    chat_readers: int = 12
    search_readers: int = 6
    llm_tokens: int = 12
    llm_delay: float = 0.3  # seconds between two of the fake LLM's words
    llm_timeout: float = 10.0  # ASKDOCS_LLM_TIMEOUT
    llm_idle: float = 4.0  # ASKDOCS_LLM_IDLE_TIMEOUT
    margin: float = 40.0  # retrieval and composition under load on top of the LLM deadline
    phase_seconds: float = 6.0  # load between two faults
    max_seconds: float = 240.0  # the whole run's bound; readers stop by themselves past it
    kill_at_open: int = 3  # LLM streams open when it is killed (1 if that many never are)
    max_requests: int = 200  # per chat reader
    max_searches: int = 2000  # per search reader
    search_pause: float = 0.05  # seconds between one search reader's requests

    @property
    def deadline(self) -> float:
        """Seconds one chat stream may take, start to final event."""
        return self.llm_timeout + self.margin


@dataclass
class Outcome:
    kind: str  # chat | search
    started: float
    ended: float
    status: int | None = None
    finals: list[str] = field(default_factory=list)
    last_is_final: bool = False
    mode: str | None = None
    fallback_reason: str | None = None
    cached: bool = False
    results: int = 0
    error: str | None = None

    @property
    def seconds(self) -> float:
        return self.ended - self.started

    @property
    def ok(self) -> bool:
        if self.error is not None or self.status != 200:
            return False
        if self.kind == "search":
            return self.results > 0
        return len(self.finals) == 1 and self.last_is_final


class Readers:
    """Chat and search readers in threads, each a bounded loop that stops on `stop` or `until`."""

    def __init__(self, url: str, settings: Settings) -> None:
        self.url = url
        self.settings = settings
        self.outcomes: list[Outcome] = []
        self.stop = threading.Event()
        self.until = time.monotonic() + settings.max_seconds
        self.threads = [
            threading.Thread(target=self._chats, args=(n,), daemon=True) for n in range(settings.chat_readers)
        ] + [
            threading.Thread(target=self._searches, args=(n,), daemon=True)
            for n in range(settings.search_readers)
        ]

    def start(self) -> None:
        for thread in self.threads:
            thread.start()

    def finish(self) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(self.settings.deadline + 30)

    def alive(self) -> bool:
        return any(t.is_alive() for t in self.threads)

    def _running(self) -> bool:
        return not self.stop.is_set() and time.monotonic() < self.until

    def _chats(self, number: int) -> None:
        timeout = httpx.Timeout(self.settings.deadline + 20, connect=10)
        questions = unique_questions(self.settings.max_requests, 200_000 + 1000 * number)
        with httpx.Client(timeout=timeout) as client:
            for question in questions:
                if not self._running():
                    return
                self.outcomes.append(self._chat(client, question))

    def _chat(self, client: httpx.Client, question: str) -> Outcome:
        outcome = Outcome("chat", time.monotonic(), 0.0)
        try:
            with client.stream("POST", self.url + "/api/chat", json={"message": question}) as response:
                outcome.status = response.status_code
                raw = "".join(response.iter_text())
            events = parse(raw)
            outcome.finals = [name for name, _ in events if name in FINAL]
            outcome.last_is_final = bool(events) and events[-1][0] in FINAL
            done = next((data for name, data in events if name == "done"), None)
            if done is not None:
                outcome.mode = done.get("mode")
                outcome.fallback_reason = done.get("fallback_reason")
                outcome.cached = bool(done.get("cached"))
        except Exception as exc:  # noqa: BLE001 - every failure is counted
            outcome.error = f"{type(exc).__name__}: {exc}"
        outcome.ended = time.monotonic()
        return outcome

    def _searches(self, number: int) -> None:
        with httpx.Client(timeout=30) as client:
            for i in range(self.settings.max_searches):
                if not self._running():
                    return
                time.sleep(self.settings.search_pause)
                outcome = Outcome("search", time.monotonic(), 0.0)
                try:
                    q = SEARCHES[(number + i) % len(SEARCHES)]
                    response = client.get(self.url + "/api/search", params={"q": q})
                    outcome.status = response.status_code
                    outcome.results = len(response.json().get("results", []))
                except Exception as exc:  # noqa: BLE001
                    outcome.error = f"{type(exc).__name__}: {exc}"
                outcome.ended = time.monotonic()
                self.outcomes.append(outcome)


def search_snapshot(url: str) -> list:
    out = []
    for q in SEARCHES:
        response = httpx.get(url + "/api/search", params={"q": q}, timeout=30)
        response.raise_for_status()
        out.append([(r["url"], r["score"]) for r in response.json()["results"]])
    return out


def failed_reloads(url: str) -> float:
    for line in httpx.get(url + "/metrics", timeout=10).text.splitlines():
        if line.startswith('askdocs_index_reloads_total{outcome="failed"}'):
            return float(line.split()[-1])
    return 0.0


def health(url: str, admin: bool = False) -> tuple[int, dict]:
    response = httpx.get(url + "/healthz", headers=AUTH if admin else {}, timeout=10)
    return response.status_code, response.json()


def _wait(condition, seconds: float, step: float = 0.1) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return condition()


def run_faults(site: Path, workdir: Path, settings: Settings) -> dict:
    """Serve a copy of `site` under load and break things; return everything that was seen."""
    served = workdir / "site"
    shutil.copytree(site, served)
    shards = served / "_askdocs"
    llm_port, port = free_port(), free_port()
    llm = FakeLLMProcess(llm_port, settings.llm_tokens, settings.llm_delay, workdir / "fake-llm.log")
    env = {
        **os.environ,
        "ASKDOCS_RATE_LIMIT": "off",
        "ASKDOCS_ADMIN_TOKEN": ADMIN,
        "ASKDOCS_RELOAD_INTERVAL": "0",  # reloads come from the admin route and SIGHUP only
        "OPENAI_BASE_URL": llm.url,
        "OPENAI_API_KEY": "sk-fault",
        "ASKDOCS_LLM_MODEL": "fake-1",
        "ASKDOCS_LLM_AGENT": "off",
        "ASKDOCS_LLM_TIMEOUT": str(settings.llm_timeout),
        "ASKDOCS_LLM_IDLE_TIMEOUT": str(settings.llm_idle),
    }
    log_path = workdir / "serve.log"
    log = log_path.open("w")
    server = subprocess.Popen(
        [sys.executable, "-m", "askdocs.cli", "serve", str(served), "--port", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
    )
    url = f"http://127.0.0.1:{port}"
    seen: dict = {"phases": {}, "health": {}, "log": log_path}
    readers: Readers | None = None
    try:
        if not _wait(lambda: _healthy(url, server), 120, 0.25):
            raise RuntimeError(f"askdocs serve did not start:\n{log_path.read_text()[-3000:]}")
        baseline = search_snapshot(url)
        version = health(url)[1]["index"]["version"]
        seen["version"] = version
        readers = Readers(url, settings)
        readers.start()
        began = time.monotonic()

        # 1. The LLM dies mid-stream: once it has given whole answers, with several streams open.
        seen["streams_open_at_kill"] = 0

        def streaming(least: int) -> bool:
            seen["streams_open_at_kill"] = llm.stats()["active"]
            answered = any(o.mode == "llm" for o in readers.outcomes)
            return answered and seen["streams_open_at_kill"] >= least

        many = _wait(lambda: streaming(settings.kill_at_open), 60, 0.05)
        if not many and not _wait(lambda: streaming(1), 30, 0.02):
            raise RuntimeError("no LLM answer and open stream within 90 s of load")
        seen["llm_stats_at_kill"] = llm.stats()
        llm.kill()
        seen["phases"]["llm_killed"] = time.monotonic()
        time.sleep(settings.phase_seconds)
        seen["health"]["after_llm_kill"] = health(url, admin=True)

        # 2. A shard file is truncated in place; the admin route reloads.
        victim = sorted(shards.glob("postings.*.npy"))[0]
        os.truncate(victim, 100)
        seen["truncated"] = victim.name
        seen["phases"]["shard_truncated"] = time.monotonic()
        response = httpx.post(url + "/admin/reload", headers=AUTH, timeout=60)
        seen["truncate_reload"] = {"status": response.status_code, **response.json()}
        seen["health"]["after_truncate"] = health(url, admin=True)
        seen["search_after_truncate"] = search_snapshot(url) == baseline
        time.sleep(settings.phase_seconds)

        # 3. The manifest is garbage; SIGHUP reloads.
        before = failed_reloads(url)
        (shards / "manifest.json").write_bytes(b'{"format_version": 2, "files": [ this is not json')
        seen["phases"]["manifest_corrupted"] = time.monotonic()
        server.send_signal(signal.SIGHUP)
        seen["sighup_reload_failed"] = _wait(lambda: failed_reloads(url) > before, 30, 0.2)
        seen["health"]["after_manifest"] = health(url, admin=True)
        seen["search_after_manifest"] = search_snapshot(url) == baseline
        time.sleep(settings.phase_seconds)

        readers.finish()
        seen["phases"]["end"] = time.monotonic()
        seen["readers_stopped"] = not readers.alive()
        seen["server_alive"] = server.poll() is None
        seen["health"]["end"] = health(url) if seen["server_alive"] else (None, {})
        seen["search_at_end"] = search_snapshot(url) == baseline if seen["server_alive"] else False
        seen["seconds"] = time.monotonic() - began
    finally:
        if readers is not None:
            readers.stop.set()
        llm.kill()
        if server.poll() is None:
            server.terminate()
            try:
                server.wait(15)
            except subprocess.TimeoutExpired:
                server.kill()
        log.close()
    seen["outcomes"] = readers.outcomes if readers is not None else []
    seen["log_text"] = log_path.read_text(errors="replace")
    return seen


def _healthy(url: str, server) -> bool:
    if server.poll() is not None:
        raise RuntimeError(f"askdocs serve exited with {server.returncode}")
    try:
        return httpx.get(url + "/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def summarize(seen: dict, settings: Settings) -> dict:
    """Counts per phase and the checks the test and the benchmark hold the run to."""
    phases = seen["phases"]
    chats = [o for o in seen["outcomes"] if o.kind == "chat"]
    searches = [o for o in seen["outcomes"] if o.kind == "search"]
    killed = phases["llm_killed"]
    before_kill = [o for o in chats if o.ended < killed]
    open_at_kill = [o for o in chats if o.started < killed < o.ended]
    after_kill = [o for o in chats if o.started > killed and o.ok and not o.cached]

    def phase_of(moment: float) -> str:
        name = "before"
        for label in ("llm_killed", "shard_truncated", "manifest_corrupted"):
            if moment >= phases[label]:
                name = label
        return name

    counts: dict = {}
    for o in seen["outcomes"]:
        row = counts.setdefault(phase_of(o.started), {"chat": 0, "search": 0, "failed": 0, "modes": {}})
        row[o.kind] += 1
        row["failed"] += 0 if o.ok else 1
        if o.kind == "chat" and o.mode:
            key = o.mode + (f"/{o.fallback_reason}" if o.fallback_reason else "")
            row["modes"][key] = row["modes"].get(key, 0) + 1
    return {
        "chats": len(chats),
        "searches": len(searches),
        "failed": [o for o in seen["outcomes"] if not o.ok],
        "over_deadline": [o for o in chats if o.seconds > settings.deadline],
        "longest_chat": max((o.seconds for o in chats), default=0.0),
        "llm_before_kill": [o for o in before_kill if o.mode == "llm"],
        "open_at_kill": open_at_kill,
        "broke_off": [o for o in open_at_kill if o.fallback_reason == "truncated"],
        "after_kill": after_kill,
        # Past the kill the model cannot answer: an uncached answer is a labelled fallback, or the
        # refusal the gate gives before any model is asked; never `llm`.
        "after_kill_llm": [o for o in after_kill if o.mode == "llm"],
        "after_kill_fallbacks": [o for o in after_kill if o.mode == "extractive-fallback"],
        "fallback_without_reason": [
            o for o in chats if o.mode == "extractive-fallback" and not o.fallback_reason
        ],
        "per_phase": counts,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--site", help="a built site_example (skips the MkDocs build)")
    parser.add_argument("--chat-readers", type=int, default=12)
    parser.add_argument("--search-readers", type=int, default=6)
    parser.add_argument("--phase-seconds", type=float, default=10.0)
    parser.add_argument("--quick", action="store_true", help="6 chat + 3 search readers, 4 s phases")
    args = parser.parse_args()
    if args.quick:
        args.chat_readers, args.search_readers, args.phase_seconds = 6, 3, 4.0
    settings = Settings(
        chat_readers=args.chat_readers, search_readers=args.search_readers, phase_seconds=args.phase_seconds
    )
    report = Report("fault_bench", args.quick)
    report.header("Faults under load: LLM killed, shard truncated, manifest corrupted")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        site = site_example(args.site, work)
        (work / "run").mkdir()
        progress(f"{settings.chat_readers} chat + {settings.search_readers} search readers; faults ...")
        seen = run_faults(site, work / "run", settings)
    s = summarize(seen, settings)
    rows = []
    for phase in ("before", "llm_killed", "shard_truncated", "manifest_corrupted"):
        row = s["per_phase"].get(phase, {"chat": 0, "search": 0, "failed": 0, "modes": {}})
        modes = ", ".join(f"{k} {v}" for k, v in sorted(row["modes"].items()))
        rows.append((phase, row["chat"], row["search"], row["failed"], modes))
    table(["requests started", "chats", "searches", "failed", "chat modes"], rows)
    health_end = seen["health"]["end"][1]
    report.note(
        f"LLM streams open at the kill: {seen['streams_open_at_kill']}; chats open then: "
        f"{len(s['open_at_kill'])}, broke off as `truncated`: {len(s['broke_off'])}"
    )
    report.note(
        f"truncate reload: {seen['truncate_reload'].get('status')} "
        f"{seen['truncate_reload'].get('outcome')}; SIGHUP reload failed: {seen['sighup_reload_failed']}"
    )
    report.note(
        f"healthz at the end: reload ok={health_end.get('reload', {}).get('ok')}, "
        f"index {health_end.get('index', {}).get('version')} (started {seen['version']})"
    )
    report.note(
        f"longest chat {s['longest_chat']:.1f}s; deadline {settings.deadline:.0f}s; "
        f"run {seen['seconds']:.0f}s"
    )
    report.goal("server crashes", 0 if seen["server_alive"] else 1, "<=", 0, "")
    report.goal(
        "failed requests (no single final event, HTTP error, empty search)", len(s["failed"]), "<=", 0, ""
    )
    report.goal("chat streams past the deadline", len(s["over_deadline"]), "<=", 0, "")
    report.goal("uncached `llm` answers after the kill", len(s["after_kill_llm"]), "<=", 0, "")
    report.goal("fallbacks without a fallback_reason", len(s["fallback_without_reason"]), "<=", 0, "")
    report.goal("search results changed by the broken index", 0 if seen["search_at_end"] else 1, "<=", 0, "")
    for o in s["failed"][:5]:
        report.note(f"failure: {o}")
    report.results.update(
        chats=s["chats"],
        searches=s["searches"],
        failed=len(s["failed"]),
        per_phase=s["per_phase"],
        longest_chat=s["longest_chat"],
        streams_open_at_kill=seen["streams_open_at_kill"],
        truncate_reload=seen["truncate_reload"],
        sighup_reload_failed=seen["sighup_reload_failed"],
    )
    print(
        json.dumps(
            {
                "chats": s["chats"],
                "searches": s["searches"],
                "failed": len(s["failed"]),
                "server_alive": seen["server_alive"],
            }
        )
    )
    report.finish()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
