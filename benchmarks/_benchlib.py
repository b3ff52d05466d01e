"""Shared helpers for the benchmark scripts (tables, goals, JSON results, processes).

Every benchmark measures the quantities it compares side by side in the same
run, prints them with their ratio and the goal each ratio is held to (PASS /
MISS, never assumed), and writes everything to `.artifacts/bench/NAME.json`.
"""

from __future__ import annotations

import json
import os
import platform
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / ".artifacts" / "bench"
CACHE = ARTIFACTS / "cache"
EVALS = ROOT / "evals"
CORPORA = Path(os.environ.get("ASKDOCS_CORPORA", EVALS / "corpora"))
BIN = Path(sys.executable).parent  # the venv's bin: mkdocs, askdocs


# -- numbers -----------------------------------------------------------------
def client_limits(connections: int) -> Any:
    """An httpx pool for a benchmark's readers. Idle connections are given up after 2 s, before
    the server closes them (ASKDOCS_KEEP_ALIVE, 5 s, httpx's own default too): with both at
    5 s a request sent on a connection the server is closing is reset (a `ReadError`)."""
    import httpx

    return httpx.Limits(
        max_connections=connections, max_keepalive_connections=connections, keepalive_expiry=2.0
    )


def percentile(values: Sequence[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = (len(ordered) - 1) * p / 100.0
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def summary(values: Sequence[float]) -> dict[str, float]:
    """p50/p95/mean/min/max of a list of samples (same unit as the samples)."""
    if not values:
        return {"n": 0}
    return {
        "n": len(values),
        "p50": percentile(values, 50),
        "p95": percentile(values, 95),
        "mean": sum(values) / len(values),
        "min": min(values),
        "max": max(values),
    }


def ratio(a: float | None, b: float | None) -> float | None:
    if a is None or b is None or b == 0 or a != a or b != b:
        return None
    return a / b


def fmt(value: Any, digits: int = 2) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if value != value:
            return "nan"
        if abs(value) >= 1000:
            return f"{value:,.0f}"
        if abs(value) >= 100:
            return f"{value:.1f}"
        return f"{value:.{digits}f}"
    return str(value)


# -- machine -----------------------------------------------------------------
def loadavg() -> list[float]:
    try:
        return [float(x) for x in Path("/proc/loadavg").read_text().split()[:3]]
    except OSError:
        return []


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def git_commit() -> str:
    try:
        head = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(ROOT), "status", "--porcelain", "--", "askdocs", "plugin", "edge_runtime"],
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
        return head + ("+dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def rss_mb(pid: int | None = None) -> dict[str, float]:
    """Current (VmRSS) and peak (VmHWM) resident memory of a process, in MB."""
    path = Path(f"/proc/{pid or os.getpid()}/status")
    out: dict[str, float] = {}
    try:
        for line in path.read_text().splitlines():
            if line.startswith(("VmRSS:", "VmHWM:")):
                key, value = line.split(":", 1)
                out["rss" if key == "VmRSS" else "peak"] = int(value.split()[0]) / 1024.0
    except OSError:
        pass
    return out


# -- goals and report ----------------------------------------------------------
@dataclass
class Goal:
    name: str
    value: float | None
    op: str  # "<=", ">=", "<", ">", "=="
    target: float
    unit: str = ""
    note: str = ""

    @property
    def passed(self) -> bool:
        v = self.value
        if v is None or v != v:
            return False
        return {
            "<=": v <= self.target,
            ">=": v >= self.target,
            "<": v < self.target,
            ">": v > self.target,
            "==": v == self.target,
        }[self.op]

    def line(self) -> str:
        status = "PASS" if self.passed else "MISS"
        note = f"  ({self.note})" if self.note else ""
        return (
            f"  [{status}] {self.name}: {fmt(self.value, 3)}{self.unit} "
            f"(goal {self.op} {fmt(self.target, 3)}{self.unit}){note}"
        )

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "value": self.value,
            "op": self.op,
            "target": self.target,
            "unit": self.unit,
            "status": "PASS" if self.passed else "MISS",
            "note": self.note,
        }


@dataclass
class Report:
    name: str
    quick: bool
    started: float = field(default_factory=time.time)
    load_start: list[float] = field(default_factory=loadavg)
    results: dict[str, Any] = field(default_factory=dict)
    goals: list[Goal] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def header(self, title: str) -> None:
        print(f"\n{'=' * 78}\n{title}\n{'=' * 78}")
        print(f"machine: {os.cpu_count()} cores, {cpu_model()}; python {platform.python_version()}")
        print(
            f"askdocs commit {git_commit()}; load average at start "
            f"{' '.join(f'{x:.2f}' for x in self.load_start)}"
            f"{'  [--quick: smoke run, numbers are indicative only]' if self.quick else ''}"
        )
        sys.stdout.flush()

    def goal(
        self, name: str, value: float | None, op: str, target: float, unit: str = "", note: str = ""
    ) -> Goal:
        goal = Goal(name, value, op, target, unit, note)
        self.goals.append(goal)
        return goal

    def note(self, text: str) -> None:
        self.notes.append(text)
        print(f"note: {text}")

    def finish(self) -> Path:
        load_end = loadavg()
        print(f"\n{'-' * 78}\nGoals ({self.name})")
        for goal in self.goals:
            print(goal.line())
        passed = sum(g.passed for g in self.goals)
        print(f"  {passed}/{len(self.goals)} goals met")
        elapsed = time.time() - self.started
        print(f"load average at end {' '.join(f'{x:.2f}' for x in load_end)}; run took {elapsed:.0f}s")
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        # a --quick smoke run never overwrites the full run's results
        path = ARTIFACTS / f"{self.name}{'.quick' if self.quick else ''}.json"
        data = {
            "benchmark": self.name,
            "quick": self.quick,
            "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "seconds": round(elapsed, 1),
            "machine": {
                "cpus": os.cpu_count(),
                "cpu": cpu_model(),
                "python": platform.python_version(),
                "load_avg_start": self.load_start,
                "load_avg_end": load_end,
            },
            "askdocs_commit": git_commit(),
            "results": self.results,
            "goals": [g.to_json() for g in self.goals],
            "notes": self.notes,
        }
        path.write_text(json.dumps(data, indent=2, default=_json_default) + "\n", encoding="utf-8")
        print(f"results written to {path.relative_to(ROOT)}")
        return path


def _json_default(value: Any) -> Any:
    if isinstance(value, Path):
        return str(value)
    try:
        import numpy as np

        if isinstance(value, np.generic):
            return value.item()
    except ImportError:
        pass
    return str(value)


def table(headers: Sequence[str], rows: Iterable[Sequence[Any]], title: str | None = None) -> None:
    cells = [[fmt(c) if not isinstance(c, str) else c for c in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in cells:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], len(cell))
    if title:
        print(f"\n{title}")
    line = "  ".join(h.ljust(widths[i]) if i == 0 else h.rjust(widths[i]) for i, h in enumerate(headers))
    print(line)
    print("  ".join("-" * w for w in widths))
    for row in cells:
        print("  ".join(c.ljust(widths[i]) if i == 0 else c.rjust(widths[i]) for i, c in enumerate(row)))
    sys.stdout.flush()


def progress(message: str) -> None:
    """A progress line on stderr (the tables go to stdout)."""
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


class Ticker:
    """Progress for a long loop: a line every `every` seconds, on stderr."""

    def __init__(self, label: str, total: int, every: float = 5.0) -> None:
        self.label, self.total, self.every = label, total, every
        self.done = 0
        self.started = self.last = time.perf_counter()

    def __call__(self, n: int = 1) -> None:
        self.done += n
        now = time.perf_counter()
        if now - self.last >= self.every or self.done == self.total:
            self.last = now
            rate = self.done / max(now - self.started, 1e-9)
            left = (self.total - self.done) / rate if rate > 0 else 0
            progress(f"{self.label}: {self.done}/{self.total} ({rate:.1f}/s, ~{left:.0f}s left)")


# -- questions, processes ----------------------------------------------------
def questions(name: str) -> list[dict]:
    path = EVALS / f"{name}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def mkdocs_build(config: Path, out: Path) -> float:
    """`mkdocs build -q -f CONFIG -d OUT`; returns seconds. Warnings are hidden."""
    started = time.perf_counter()
    result = subprocess.run(
        [str(BIN / "mkdocs"), "build", "-q", "-f", str(config), "-d", str(out)],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    if result.returncode != 0:
        raise RuntimeError(f"mkdocs build -f {config} failed:\n{result.stderr[-3000:]}")
    return time.perf_counter() - started


def build_corpus_sites(out: Path, which: Sequence[str]) -> dict[str, float]:
    """Build the evaluation corpora with MkDocs (FastAPI: English root, Spanish under /es/)."""
    seconds: dict[str, float] = {}
    if "httpx" in which:
        seconds["httpx"] = mkdocs_build(CORPORA / "httpx" / "mkdocs.yml", out / "httpx")
    if "fastapi" in which:
        # English first: it empties its output folder.
        seconds["fastapi"] = mkdocs_build(CORPORA / "fastapi" / "mkdocs.yml", out / "fastapi")
        seconds["fastapi"] += mkdocs_build(CORPORA / "fastapi" / "mkdocs.es.yml", out / "fastapi" / "es")
    return seconds


class Server:
    """A subprocess we started (and only that one is ever stopped), with its log file."""

    def __init__(
        self, cmd: list[str], env: dict[str, str], log_path: Path, health_url: str | None = None
    ) -> None:
        self.cmd, self.log_path, self.health_url = cmd, log_path, health_url
        self._log = log_path.open("wb")
        self.proc = subprocess.Popen(
            cmd, env=env, stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True
        )
        self.pid = self.proc.pid

    def wait_ready(self, timeout: float = 300.0) -> float:
        import httpx

        started = time.perf_counter()
        deadline = started + timeout
        while time.perf_counter() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.cmd[0]} exited with {self.proc.returncode}:\n{self.tail()}")
            try:
                if httpx.get(self.health_url, timeout=2.0).status_code == 200:
                    return time.perf_counter() - started
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"{self.health_url} not ready after {timeout:.0f}s:\n{self.tail()}")

    def tail(self, chars: int = 3000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return ""

    def rss(self) -> dict[str, float]:
        return rss_mb(self.pid)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self._log.close()

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def site_example(given: str | None, tmp: Path) -> Path:
    """The built site_example a benchmark serves: `given` (its --site), else built with MkDocs
    (which runs the askdocs plugin) into `tmp`."""
    if given:
        return Path(given)
    progress("building site_example with MkDocs ...")
    site = tmp / "site"
    mkdocs_build(ROOT / "site_example" / "mkdocs.yml", site)
    return site


def extractive_server(site: Path, tmp: Path) -> tuple[Server, str]:
    """A real `askdocs serve` of `site` in extractive mode (no LLM, rate limit off), its log in
    `tmp`; returns the server (a context manager, not yet ready) and its base URL."""
    port = free_port()
    env = {**os.environ, "ASKDOCS_RATE_LIMIT": "off"}
    env.pop("OPENAI_BASE_URL", None)
    cmd = [sys.executable, "-m", "askdocs.cli", "serve", str(site), "--port", str(port)]
    url = f"http://127.0.0.1:{port}"
    return Server(cmd, env, tmp / "serve.log", f"{url}/healthz"), url


_ANSI = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]")


def run_with_progress(
    cmd: list[str], label: str, every: float = 10.0, env: dict[str, str] | None = None
) -> tuple[int, str]:
    """Run a command on a pseudo-terminal (so its tqdm bars are live) and relay its latest
    progress line every `every` seconds. Returns (exit code, its output without the bars)."""
    import fcntl
    import struct
    import termios

    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 100, 0, 0))
    run_env = dict(env or os.environ)
    proc = subprocess.Popen(
        cmd, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave, env=run_env, start_new_session=True
    )
    os.close(slave)
    buffer, latest, lines = b"", b"", []
    last = time.perf_counter()
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        buffer += _ANSI.sub(b"", data)
        *parts, buffer = re.split(rb"[\r\n]", buffer)
        for part in parts:
            if part.strip():
                latest = part.strip()
                if (
                    b"it/s]" not in part
                    and b"text/s]" not in part
                    and b"page/s]" not in part
                    and b"%|" not in part
                ):
                    lines.append(part.decode("utf-8", "replace"))
        now = time.perf_counter()
        if latest and now - last >= every:
            last = now
            text = re.sub("[\u2580-\u259f]+", "", latest.decode("utf-8", "replace"))
            text = re.sub(r"\s+", " ", text)
            progress(f"{label}: {text}")
    os.close(master)
    return proc.wait(), "\n".join(lines)


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    started = time.perf_counter()
    value = fn()
    return time.perf_counter() - started, value


def dir_bytes(folder: Path, include: Callable[[Path], bool] | None = None) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and (include is None or include(p)))
