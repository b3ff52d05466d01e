"""Scale-out with real processes on 127.0.0.1: redis-server, three `askdocs serve` replicas
following one release channel, nginx (with the locations deploy/ ships) in front.

Each reader is a distinct client address (X-Forwarded-For through nginx, a trusted proxy),
so the shared rate limit can be small and the load tests never trip it.
"""

from __future__ import annotations

import itertools
import json
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import jwt
import pytest
from askdocs.edge_runtime import sse

from tests.conftest import Server
from tests.fake_llm import FakeLLM, Reply
from tests.procs import Nginx, RedisServer
from tests.test_build import askdocs

SECRET = "scale-test-secret-of-a-good-length-0123456789"
ADMIN = "admin-token-for-tests"
RATE = 8  # per client per minute, shared by all replicas
BUDGET = 1_000_000
POLL = 1.0
PHRASE = "OSPREY-77"
_ips = itertools.count(1)


def client_ip() -> str:
    n = next(_ips)
    return f"198.51.{n // 250}.{n % 250 + 1}"


def page(title: str, body: str, groups: str | None = None) -> str:
    meta = f'<meta name="askdocs:groups" content="{groups}">' if groups else ""
    return (
        f"<html lang='en'><head><title>{title}</title>{meta}</head><body><nav>menu</nav>"
        f"<main><h1>{title}</h1><p>{body}</p></main></body></html>"
    )


PAGES = {
    "": ("Gizmo", "Gizmo schedules batch jobs for small teams."),
    "install": ("Install", "Install gizmo with pipx install gizmo; it needs Python 3.11."),
    "limits": ("Limits", "A gizmo queue holds at most 10000 jobs; older jobs are dropped."),
    "internal/runbook": ("Runbook", f"During a break-glass procedure say the phrase {PHRASE} to on-call."),
}


def build_release(work: Path, release: str, extra: dict | None = None) -> None:
    site = work / f"site-{release}"
    for slug, (title, body) in {**PAGES, **(extra or {})}.items():
        folder = site / slug
        folder.mkdir(parents=True, exist_ok=True)
        groups = "staff" if slug.startswith("internal") else None
        (folder / "index.html").write_text(page(title, body, groups))
    private = work / f"private-{release}"
    askdocs("build", str(site), "-q", "--private-dir", str(private))
    askdocs(
        "release", "publish", str(site), str(work / "channel"), "--id", release,
        "--private", str(private), str(work / "private-channel"),
    )  # fmt: skip


class Cluster:
    def __init__(self, work: Path) -> None:
        self.work = work
        build_release(work, "v1")
        self.redis = RedisServer(work / "redis")
        self.llm = FakeLLM()
        self.llm.default = Reply(text=["See ", "[1]", "."])
        env = {
            "ASKDOCS_REDIS_URL": self.redis.url,
            "ASKDOCS_RATE_LIMIT": f"{RATE}/minute",
            "ASKDOCS_TRUSTED_PROXIES": "127.0.0.1",
            "ASKDOCS_JWT_SECRET": SECRET,
            "ASKDOCS_ADMIN_TOKEN": ADMIN,
            "ASKDOCS_SHUTDOWN_GRACE": "2",
            "ASKDOCS_DAILY_TOKEN_BUDGET": str(BUDGET),
            "ASKDOCS_LLM_AGENT": "off",
            "ASKDOCS_MIN_CONFIDENCE": "0",
            "OPENAI_BASE_URL": self.llm.url,
            "ASKDOCS_LLM_MODEL": "fake",
        }
        args = [
            "--index", str(work / "channel" / "current.json"),
            "--private", str(work / "private-channel"),
            "--reload-interval", str(POLL),
        ]  # fmt: skip
        with ThreadPoolExecutor(3) as pool:
            self.replicas = list(pool.map(lambda _: Server(args, env), range(3)))
        self.nginx = Nginx(work / "nginx", [r.port for r in self.replicas])
        self.url = self.nginx.url

    def stop(self) -> None:
        self.nginx.stop()
        for replica in self.replicas:
            if replica.process.poll() is None:
                replica.stop()
        self.llm.stop()
        self.redis.stop()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory, model_info):
    cluster = Cluster(tmp_path_factory.mktemp("scale"))
    yield cluster
    cluster.stop()


def reader(groups: list[str] | None = None, ip: str | None = None) -> dict:
    headers = {"X-Forwarded-For": ip or client_ip()}
    if groups:
        token = jwt.encode({"sub": "r", "groups": groups, "exp": int(time.time()) + 600}, SECRET, "HS256")
        headers["Authorization"] = f"Bearer {token}"
    return headers


def chat(base: str, message: str, headers: dict, timeout: float = 30) -> tuple[dict, list, httpx.Headers]:
    response = httpx.post(base + "/api/chat", json={"message": message}, headers=headers, timeout=timeout)
    assert response.status_code == 200, response.text
    events = sse.parse(response.text)
    finals = [data for name, data in events if name in ("done", "error")]
    assert len(finals) == 1, events
    return finals[0], events, response.headers


def health(server, admin: bool = True) -> dict:
    headers = {"Authorization": f"Bearer {ADMIN}"} if admin else {}
    return httpx.get(server.url + "/healthz", headers=headers, timeout=5).json()


def metric(server, name: str) -> float:
    text = httpx.get(server.url + "/metrics", timeout=5).text
    return sum(float(line.split()[-1]) for line in text.splitlines() if line.startswith(name))


def wait_until(check, timeout: float, what: str) -> float:
    started = time.time()
    while time.time() - started < timeout:
        if check():
            return time.time() - started
        time.sleep(0.1)
    raise AssertionError(f"not within {timeout}s: {what}")


class Load:
    """Readers querying through nginx from distinct addresses until stopped; every failure kept."""

    def __init__(self, base: str, threads: int = 3, chats: bool = False) -> None:
        self.base, self.stop_flag = base, threading.Event()
        self.searches: list[tuple[str, str | None, list[str]]] = []  # (index, release, page urls)
        self.chats: list[tuple[str, dict]] = []
        self.failures: list[str] = []
        self.threads = [threading.Thread(target=self._search, daemon=True) for _ in range(threads)]
        if chats:
            self.threads.append(threading.Thread(target=self._chat, daemon=True))
        for thread in self.threads:
            thread.start()

    def _search(self) -> None:
        with httpx.Client(timeout=30) as client:
            while not self.stop_flag.is_set():
                try:
                    response = client.get(
                        self.base + "/api/search", params={"q": "audit retention gizmo"}, headers=reader()
                    )
                    if response.status_code != 200:
                        self.failures.append(f"search {response.status_code}: {response.text[:200]}")
                        continue
                    data = response.json()
                    assert data["index_version"] == response.headers["x-askdocs-index"]
                    self.searches.append(
                        (data["index_version"], data["release"], [r["page_url"] for r in data["results"]])
                    )
                except Exception as exc:  # a dropped connection is a failure too
                    self.failures.append(f"search {type(exc).__name__}: {exc}")

    def _chat(self) -> None:
        questions = itertools.cycle(["how long are audit logs kept", "how many jobs fit in a queue"])
        while not self.stop_flag.is_set():
            try:
                done, _, headers = chat(self.base, next(questions), reader())
                if "answer_id" not in done:
                    self.failures.append(f"chat ended with {done}")
                    continue
                assert done["index_version"] == headers["x-askdocs-index"]
                self.chats.append((headers.get("x-askdocs-release"), done))
            except Exception as exc:
                self.failures.append(f"chat {type(exc).__name__}: {exc}")

    def stop(self) -> None:
        self.stop_flag.set()
        for thread in self.threads:
            thread.join(60)


def test_the_rate_limit_is_shared_by_all_replicas(cluster):
    ip = client_ip()
    codes = [
        httpx.get(cluster.url + "/api/search", params={"q": "gizmo"}, headers=reader(ip=ip)).status_code
        for _ in range(RATE + 4)
    ]
    degraded = [health(r)["shared_state"]["rate_limit"]["degraded_decisions"] for r in cluster.replicas]
    assert codes == [200] * RATE + [429] * 4, degraded  # N in total over three replicas, not N on each
    assert degraded == [0, 0, 0]
    name = 'askdocs_requests_total{endpoint="/api/search",status="200"}'
    served = [r for r in cluster.replicas if metric(r, name) > 0]
    assert len(served) >= 2  # nginx spread them
    assert all(metric(r, 'askdocs_redis_wait_seconds_total{store="rate_limit"}') > 0 for r in served)


def test_a_chat_counts_against_the_shared_limit_in_its_cache_lookup_trip(cluster):
    """A chat's rate-limit decision and its cache lookup are one round trip; a chat the route
    rejects (bad body) counts all the same; past the limit a chat gets the API's JSON 429."""
    a, b, _ = cluster.replicas
    ip = client_ip()
    assert httpx.post(a.url + "/api/chat", json={"nope": 1}, headers=reader(ip=ip)).status_code == 400
    question = "how many jobs does a gizmo queue hold"
    chat(a.url, question, reader(ip=ip))  # computed, then stored behind `done`
    trips = metric(a, "askdocs_redis_round_trips_total")
    again, _, _ = chat(a.url, question, reader(ip=ip))
    time.sleep(0.3)  # the writer's trip (the answer's log record), behind `done`
    assert again.get("cached") is True
    assert metric(a, "askdocs_redis_round_trips_total") - trips == 2  # limit + lookup, then the log
    for _ in range(RATE - 3):
        searched = httpx.get(b.url + "/api/search", params={"q": "gizmo"}, headers=reader(ip=ip))
        assert searched.status_code == 200
    refused = httpx.post(a.url + "/api/chat", json={"message": question}, headers=reader(ip=ip))
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "rate_limited"
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    assert httpx.post(b.url + "/api/chat", json={"nope": 1}, headers=reader(ip=ip)).status_code == 429
    assert metric(a, 'askdocs_requests_total{endpoint="/api/chat",status="429"}') >= 1


def test_answers_are_shared_across_replicas_but_never_across_scopes(cluster):
    a, b, c = cluster.replicas
    question = "What phrase do I say during a break-glass procedure?"
    staff_done, staff_events, _ = chat(a.url, question, reader(["staff"]))
    assert any("/internal/runbook/" in c["url"] for c in staff_done["citations"])
    again, _, _ = chat(b.url, question, reader(["staff"]))
    assert again.get("cached") is True and again["citations"] == staff_done["citations"]
    public, public_events, _ = chat(c.url, question, reader())
    assert not public.get("cached")
    assert not any("/internal/" in c["url"] for c in public["citations"])
    assert PHRASE not in json.dumps(public_events)
    public_again, _, _ = chat(a.url, question, reader())
    assert public_again.get("cached") is True
    assert not any("/internal/" in c["url"] for c in public_again["citations"])


def test_the_token_budget_is_one_budget_for_all_replicas(cluster):
    a, b, _ = cluster.replicas
    store = cluster.redis.client()
    key = next(iter(store.scan_iter("askdocs:tokens:*")))
    store.set(key, BUDGET - 70)  # each fake LLM answer reports 60 tokens
    try:
        first, _, _ = chat(a.url, "how do I install gizmo on a laptop", reader())
        second, _, _ = chat(b.url, "which python does gizmo need", reader())
        third, _, _ = chat(a.url, "what happens to older jobs", reader())
        assert first["mode"] == second["mode"] == "llm"
        assert third["mode"] == "extractive-fallback" and third["fallback_reason"] == "budget"
        assert health(a)["synthesizer"]["llm"]["tokens_today"] >= BUDGET
    finally:
        store.set(key, 0)


def test_report_over_redis_sees_the_answers_of_every_replica(cluster):
    from askdocs.edge_runtime.state import read_stream

    def answers() -> int:
        return sum(1 for r in read_stream(cluster.redis.url) if r.get("type") == "answer")

    before = answers()
    ids = [chat(r.url, f"where do I read about limits {n}", reader())[0]["answer_id"]
           for n, r in enumerate(cluster.replicas)]  # fmt: skip
    vote = httpx.post(
        cluster.replicas[0].url + "/api/feedback", json={"answer_id": ids[2], "vote": "up"}, headers=reader()
    )
    assert vote.status_code == 204
    wait_until(lambda: answers() == before + 3, 10, "three answers in the stream")
    records = read_stream(cluster.redis.url)
    feedback = [r for r in records if r.get("type") == "feedback" and r["answer_id"] == ids[2]]
    assert feedback and feedback[0]["known_answer"] is True  # answered by replica 3, voted on replica 1
    result = subprocess.run(
        [sys.executable, "-m", "askdocs.cli", "report", "--redis", cluster.redis.url],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert f"{before + 3} answers" in result.stdout and "'up': 1" in result.stdout


def test_a_new_release_goes_live_everywhere_under_load_without_mixing(cluster):
    load = Load(cluster.url, chats=True)
    try:
        time.sleep(1.0)
        audit = ("Audit", "Audit logs keep every gizmo retention change for 400 days.")
        build_release(cluster.work, "v2", {"audit": audit})
        published = time.time()
        took = wait_until(
            lambda: all(health(r)["release"]["id"] == "v2" for r in cluster.replicas), 20, "all on v2"
        )
        time.sleep(1.0)
    finally:
        load.stop()
    assert not load.failures, load.failures[:5]
    assert took <= POLL + 5, took  # the poll interval plus loading a small release
    releases = {release for _, release, _ in load.searches}
    assert releases == {"v1", "v2"}, releases
    for _, release, pages in load.searches:
        assert ("/audit/" in pages) == (release == "v2")  # never v1's label on v2's content or back
    versions = {release: version for version, release, _ in load.searches}
    for release, done in load.chats:
        assert done["index_version"] == versions[release]
        assert not any("/audit/" in c["url"] for c in done["citations"]) or release == "v2"
    assert published  # roll back = repoint: every replica follows
    askdocs("release", "point", str(cluster.work / "channel"), "v1")
    response = httpx.post(
        cluster.replicas[0].url + "/admin/reload", headers={"Authorization": f"Bearer {ADMIN}"}
    )
    assert response.status_code == 200 and response.json()["release"] == "v1"
    assert httpx.post(cluster.replicas[0].url + "/admin/reload").status_code == 401
    wait_until(lambda: all(health(r)["release"]["id"] == "v1" for r in cluster.replicas), 10, "rolled back")


def test_answers_keep_flowing_while_redis_is_down_and_state_recovers(cluster):
    from askdocs.edge_runtime.state import read_stream

    cluster.redis.stop()
    load = Load(cluster.url, threads=2, chats=True)
    try:
        time.sleep(3.0)
        during = [health(r)["shared_state"] for r in cluster.replicas]
        anonymous = [health(r, admin=False)["shared_state"] for r in cluster.replicas]
        up = [metric(r, "askdocs_redis_up") for r in cluster.replicas]
    finally:
        load.stop()
    assert not load.failures, load.failures[:5]
    assert load.searches and load.chats
    assert all(state["redis"]["ok"] is False and state["redis"]["last_error"] for state in during)
    assert up == [0.0, 0.0, 0.0]
    assert anonymous == [{"backend": "redis", "ok": False}] * 3
    assert sum(state["events"]["buffered"] for state in during) > 0  # answers logged, waiting for Redis
    assert all(state["rate_limit"]["degraded_decisions"] > 0 for state in during)  # fail open, counted
    cluster.redis.start()
    wait_until(
        lambda: all(
            (s := health(r)["shared_state"])["redis"]["ok"] and s["events"]["buffered"] == 0
            for r in cluster.replicas
        ),
        15,
        "redis reachable again and the buffered events written",
    )
    logged = [r for r in read_stream(cluster.redis.url) if r.get("type") == "answer"]
    assert len(logged) >= len(load.chats)  # nothing answered during the outage went unlogged
    assert all(metric(r, "askdocs_events_dropped") == 0 for r in cluster.replicas)
    done, _, _ = chat(cluster.url, "how many jobs fit in a queue", reader())
    assert "answer_id" in done


def _slow_stream(url: str, out: dict) -> None:
    events, started = [], time.time()
    try:
        body = {"message": "how do I install gizmo"}
        with httpx.stream("POST", url + "/api/chat", json=body, headers=reader(), timeout=30) as response:
            buffer = ""
            for text in response.iter_text():
                buffer += text
                events = sse.parse(buffer)
                out["events"] = events
    except httpx.HTTPError as exc:
        out["error"] = f"{type(exc).__name__}"
    out["seconds"] = time.time() - started


def test_replicas_going_away_under_load(cluster):
    """SIGTERM: the running answer ends with a retryable `error` within the grace period.
    SIGKILL: the stream is cut (the widget shows it as dropped, with Retry). Either way,
    searches through nginx see no failure: it retries them on the replicas left."""
    _, b, c = cluster.replicas
    # Plain words: the grounding guard streams prose at once (a token with a digit would be
    # held back until the sentence ends, and checked against the evidence).
    words = [
        "gizmo",
        "installs",
        "with",
        "pipx",
        "and",
        "needs",
        "a",
        "recent",
        "python",
        "on",
        "the",
        "machine",
    ]
    cluster.llm.script(*[Reply(text=[f"{w} " for w in words * 4], delay=0.25)] * 2)
    load = Load(cluster.url, threads=3)
    try:
        graceful: dict = {}
        stream = threading.Thread(target=_slow_stream, args=(c.url, graceful))
        stream.start()
        wait_until(lambda: any(n == "token" for n, _ in graceful.get("events", [])), 15, "tokens from c")
        c.process.send_signal(signal.SIGTERM)
        stream.join(30)
        assert c.process.wait(30) is not None
        cut: dict = {}
        stream = threading.Thread(target=_slow_stream, args=(b.url, cut))
        stream.start()
        wait_until(lambda: any(n == "token" for n, _ in cut.get("events", [])), 15, "tokens from b")
        b.process.kill()
        stream.join(30)
        time.sleep(1.0)
    finally:
        load.stop()
    names = [n for n, _ in graceful["events"]]
    assert names[-1] == "error" and graceful["events"][-1][1]["code"] == "shutting_down", names
    assert "done" not in names and graceful["seconds"] < 2 + 5
    cut_names = [n for n, _ in cut.get("events", [])]
    assert "token" in cut_names and not {"done", "error"} & set(cut_names)  # cut: no final event
    assert cut["seconds"] < 15  # the reader learns at once, not after a timeout
    # A SIGKILL between a response's headers and its body leaves that one response short: nginx
    # has passed the headers on and cannot retry. Nothing else may fail.
    short = [f for f in load.failures if "without sending complete message body" in f]
    assert len(short) <= 1 and len(load.failures) == len(short), load.failures[:5]
    assert len(load.searches) > 20
