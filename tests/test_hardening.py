"""Hardening of the HTTP surface (issue 11): every /api error is JSON, bodies cannot blow the
parser, the client address cannot be forged, /healthz stays quiet for anonymous callers."""

from __future__ import annotations

import json
import socket
import time

import httpx
import pytest
from askdocs.edge_runtime.app import create_app
from askdocs.edge_runtime.holder import IndexHolder
from askdocs.edge_runtime.settings import Settings
from starlette.testclient import TestClient

from tests.conftest import Server

ADMIN = "admin-token-for-tests-0123456789"


@pytest.fixture(scope="module")
def holder(example_site):
    return IndexHolder(str(example_site.shard_dir), str(example_site.private_dir))


def make_client(example_site, holder, env: dict | None = None, **overrides) -> TestClient:
    values = {
        "index": str(example_site.shard_dir),
        "private": str(example_site.private_dir),
        "site_dir": example_site.site_dir,
        "rate_limit": None,
        "reload_interval": 0.0,
        **overrides,
    }
    return TestClient(create_app(Settings.from_env(env=env or {}, **values), holder))


@pytest.fixture(scope="module")
def client(example_site, holder):
    with make_client(example_site, holder) as test_client:
        yield test_client


def assert_json_error(response, status: int) -> dict:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json"), response.headers
    error = response.json()["error"]
    assert error["code"] and error["message"]
    return error


# -- finding 4: some errors were the site's HTML 404 or a text/plain 405 ------------------------
@pytest.mark.parametrize(
    "method,path,status",
    [
        ("GET", "/api/chat", 405),
        ("GET", "/api/feedback", 405),
        ("PUT", "/api/search", 405),
        ("DELETE", "/api/feedback", 405),
        ("PATCH", "/api/fs/grep", 405),
        ("GET", "/api/nope", 404),
        ("POST", "/api/nope", 404),
        ("GET", "/api/fs/", 404),
        ("GET", "/api", 404),
    ],
)
def test_every_api_error_is_json(client, method, path, status):
    error = assert_json_error(client.request(method, path), status)
    assert error["code"] == {404: "not_found", 405: "method_not_allowed"}[status]


def test_a_wrong_method_names_the_allowed_ones(client):
    response = client.put("/api/search")
    assert "GET" in response.headers["allow"] and "POST" in response.headers["allow"]


def test_the_site_still_serves_its_own_pages_and_404(client):
    assert client.get("/install/").headers["content-type"].startswith("text/html")
    missing = client.get("/no-such-page/")
    assert missing.status_code == 404 and not missing.headers["content-type"].startswith("application/json")


def test_an_unhandled_error_is_a_json_500(example_site, holder, monkeypatch):
    from askdocs.edge_runtime import app as app_module

    def boom(*args, **kwargs):
        raise RuntimeError("kaboom /srv/secret/path")

    monkeypatch.setattr(app_module, "hybrid_search", boom)
    with make_client(example_site, holder) as failing:
        test_client = TestClient(failing.app, raise_server_exceptions=False)
        error = assert_json_error(test_client.get("/api/search", params={"q": "x"}), 500)
        assert "/srv/secret" not in error["message"]


# -- finding 2: deeply nested JSON was a 500 (RecursionError) --------------------------------------
def nested(depth: int) -> bytes:
    return b'{"message": "hi", "x": ' + b"[" * depth + b"]" * depth + b"}"


@pytest.mark.parametrize("path", ["/api/chat", "/api/feedback", "/api/search"])
def test_deep_json_is_a_400(client, path):
    error = assert_json_error(
        client.post(path, content=nested(1000), headers={"Content-Type": "application/json"}), 400
    )
    assert error["code"] == "too_deep"
    # Nesting hidden inside a string does not count.
    fine = client.post("/api/feedback", json={"answer_id": "a_1", "vote": "up", "comment": "[" * 1000})
    assert fine.status_code == 204


def test_json_with_too_many_keys_is_a_400(client):
    body = {"message": "hi", **{f"k{i}": i for i in range(2000)}}
    error = assert_json_error(client.post("/api/chat", json=body), 400)
    assert error["code"] == "too_many_keys"


# -- contract v1.1: POST /api/search with a JSON body behaves like the GET ------------------------
def test_post_search_is_the_get(client):
    get = client.get("/api/search", params={"q": "instalar en Windows", "k": 3, "locale": "es"}).json()
    post = client.post("/api/search", json={"q": "instalar en Windows", "k": 3, "locale": "es"}).json()
    for key in ("query", "locale", "results", "retrievers"):
        assert post[key] == get[key]
    default = client.post("/api/search", json={"q": "install"}).json()
    assert default["locale"] == "en" and len(default["results"]) <= 10


@pytest.mark.parametrize(
    "body,status,code",
    [
        ({}, 400, "missing_field"),
        ({"q": "  "}, 400, "missing_field"),
        ({"q": 5}, 400, "missing_field"),
        ({"q": "x", "k": 0}, 400, "bad_k"),
        ({"q": "x", "k": "3"}, 400, "bad_k"),
        ({"q": "x", "k": True}, 400, "bad_k"),
        ({"q": "x", "locale": 7}, 400, "bad_locale"),
        ({"q": "x" * 1001}, 413, "too_large"),
    ],
)
def test_post_search_errors(client, body, status, code):
    assert assert_json_error(client.post("/api/search", json=body), status)["code"] == code


def test_post_search_bad_json(client):
    response = client.post("/api/search", content=b"[1]", headers={"Content-Type": "application/json"})
    assert assert_json_error(response, 400)["code"] == "invalid_json"


# -- finding 5: the rate limit could be bypassed with a forged X-Forwarded-For ---------------------
def limited_client(example_site, holder, peer: str, **overrides) -> TestClient:
    settings = Settings.from_env(
        env={},
        index=str(example_site.shard_dir),
        rate_limit="2/minute",
        reload_interval=0.0,
        **overrides,
    )
    return TestClient(create_app(settings, holder), client=(peer, 40000))


def test_a_forged_left_most_hop_does_not_buy_a_fresh_budget(example_site, holder):
    limited = limited_client(example_site, holder, "127.0.0.1", trusted_proxies=("127.0.0.1", "10.0.0.0/8"))
    codes = [
        limited.get(
            "/api/fs/ls", headers={"X-Forwarded-For": f"198.51.100.{n}, 203.0.113.5, 10.1.2.3"}
        ).status_code
        for n in range(5)
    ]
    assert codes == [200, 200, 429, 429, 429]  # keyed on 203.0.113.5, the right-most untrusted hop
    other = limited.get("/api/fs/ls", headers={"X-Forwarded-For": "203.0.113.6"})
    assert other.status_code == 200


def test_forwarding_headers_from_an_untrusted_peer_are_ignored(example_site, holder):
    limited = limited_client(example_site, holder, "192.0.2.44", trusted_proxies=("10.0.0.0/8",))
    codes = [
        limited.get("/api/fs/ls", headers={"X-Forwarded-For": f"198.51.100.{n}"}).status_code
        for n in range(3)
    ]
    assert codes == [200, 200, 429]


def test_a_custom_client_header_from_a_trusted_proxy(example_site, holder):
    limited = limited_client(
        example_site, holder, "10.0.0.9", trusted_proxies=("10.0.0.0/8",), client_ip_header="CF-Connecting-IP"
    )
    first = {"CF-Connecting-IP": "203.0.113.7", "X-Forwarded-For": "1.1.1.1"}
    assert [limited.get("/api/fs/ls", headers=first).status_code for _ in range(3)] == [200, 200, 429]
    assert limited.get("/api/fs/ls", headers={"CF-Connecting-IP": "203.0.113.8"}).status_code == 200


def test_client_header_without_trusted_proxies_is_refused():
    from askdocs.errors import AskdocsError

    with pytest.raises(AskdocsError, match="ASKDOCS_TRUSTED_PROXIES"):
        Settings.from_env(env={"ASKDOCS_CLIENT_IP_HEADER": "X-Forwarded-For"}, index="x")
    with pytest.raises(AskdocsError, match="not an IP address or CIDR"):
        Settings.from_env(env={"ASKDOCS_TRUSTED_PROXIES": "10.0.0.0/8, proxy.local"}, index="x")
    ok = Settings.from_env(env={"ASKDOCS_TRUSTED_PROXIES": "10.0.0.0/8, ::1"}, index="x")
    assert ok.trusted_proxies == ("10.0.0.0/8", "::1")


def test_uvicorn_does_not_believe_forwarded_headers_from_localhost(example_site):
    """A real `askdocs serve`: from 127.0.0.1 with no trusted proxies configured, a fresh
    X-Forwarded-For per request must not reset the budget (uvicorn's default would)."""
    server = Server([str(example_site.site_dir)], env={"ASKDOCS_RATE_LIMIT": "3/minute"})
    try:
        codes = [
            httpx.get(
                server.url + "/api/fs/ls", headers={"X-Forwarded-For": f"198.51.100.{n}"}, timeout=10
            ).status_code
            for n in range(5)
        ]
    finally:
        server.stop()
    assert codes == [200, 200, 200, 429, 429]


# -- finding 9: /healthz said too much to anonymous callers ----------------------------------------
def test_anonymous_healthz_is_quiet_and_the_operator_sees_everything(example_site, holder):
    from askdocs.edge_runtime.settings import LLMSettings

    llm = LLMSettings(base_url="http://10.9.8.7:1234/v1", api_key="sk-x", model="m")
    with make_client(example_site, holder, env={"ASKDOCS_ADMIN_TOKEN": ADMIN}, llm=llm) as test_client:
        test_client.get("/api/search", params={"q": "proxy"})
        anonymous = test_client.get("/healthz")
        reader = test_client.get("/healthz", headers={"Authorization": "Bearer not-the-admin-token"})
        for response in (anonymous, reader):
            health = response.json()
            blob = json.dumps(health)
            assert health["status"] == "ok" and health["version"] and health["index"]["version"]
            assert health["retrievers"] == {
                "lexical": {"live": True},
                "dense": {"live": True},
                "rerank": {"live": True},
            }
            private_path = str(example_site.site_dir.parent)
            for secret in ("10.9.8.7", "restricted", "counts", "last_error", private_path):
                assert secret not in blob, secret
        admin = test_client.get("/healthz", headers={"Authorization": f"Bearer {ADMIN}"}).json()
        assert admin["index"]["counts"]["restricted_pages"] >= 1
        assert admin["synthesizer"]["llm"]["base_url"] == "http://10.9.8.7:1234/v1"
        assert "last_error" in admin["reload"] and admin["retrievers"]["dense"]["runs"] >= 1

        public_chunks = len(holder.state.corpus.sets[0].chunks)
        metrics = test_client.get("/metrics").text
        assert f'askdocs_index_chunks{{visibility="public"}} {public_chunks:.1f}' in metrics
        assert 'visibility="restricted"' not in metrics
        full = test_client.get("/metrics", headers={"Authorization": f"Bearer {ADMIN}"}).text
        assert 'askdocs_index_chunks{visibility="restricted"}' in full
        assert 'visibility="restricted"' not in test_client.get("/metrics").text


def test_a_short_admin_token_is_refused():
    from askdocs.errors import AskdocsError

    with pytest.raises(AskdocsError, match="ASKDOCS_ADMIN_TOKEN"):
        Settings.from_env(env={"ASKDOCS_ADMIN_TOKEN": "short"}, index="x")


# -- finding 3: slow clients held connections forever ----------------------------------------------
@pytest.fixture(scope="module")
def deadline_server(example_site):
    server = Server(
        [str(example_site.site_dir)],
        env={"ASKDOCS_HEADER_TIMEOUT": "1.5", "ASKDOCS_BODY_TIMEOUT": "1.5", "ASKDOCS_KEEP_ALIVE": "1"},
    )
    yield server
    server.stop()


def read_until_closed(sock: socket.socket, limit: float) -> tuple[bytes, float]:
    """Everything the server sends until it closes the connection (or `limit` passes)."""
    started = time.monotonic()
    data = b""
    sock.settimeout(0.2)
    while time.monotonic() - started < limit:
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            continue
        except ConnectionResetError:
            break
        if not chunk:
            break
        data += chunk
    else:
        raise AssertionError(f"connection still open after {limit}s; received {data[:200]!r}")
    return data, time.monotonic() - started


def connect(server) -> socket.socket:
    return socket.create_connection(("127.0.0.1", server.port), timeout=5)


def assert_408(data: bytes) -> None:
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408"), data[:200]
    assert b"application/json" in head.lower()
    assert json.loads(body)["error"]["code"] == "timeout"


def test_an_unfinished_header_block_is_cut(deadline_server):
    with connect(deadline_server) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        data, took = read_until_closed(sock, 8)
    assert_408(data)
    assert took < 5


def test_a_connection_that_sends_nothing_is_cut(deadline_server):
    with connect(deadline_server) as sock:
        data, took = read_until_closed(sock, 8)
    assert took < 5


def test_trickled_headers_do_not_reset_the_clock(deadline_server):
    with connect(deadline_server) as sock:
        started = time.monotonic()
        closed = False
        for char in b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Trickle: aaaaaaaaaaaaaaaaaaaa":
            try:
                sock.sendall(bytes([char]))
            except OSError:
                closed = True
                break
            time.sleep(0.2)
            if time.monotonic() - started > 6:
                break
        if not closed:
            data, _ = read_until_closed(sock, 3)
            assert_408(data)
    assert time.monotonic() - started < 6


def test_a_partial_body_gets_a_json_408(deadline_server):
    with connect(deadline_server) as sock:
        sock.sendall(
            b"POST /api/chat HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b'Content-Length: 100\r\n\r\n{"message": '
        )
        data, took = read_until_closed(sock, 8)
    assert_408(data)
    assert took < 5


def test_slow_clients_do_not_tie_up_the_server(deadline_server):
    """Thirty half-sent requests at once; a normal request is still answered at once."""
    socks = []
    try:
        for n in range(30):
            sock = connect(deadline_server)
            if n % 2:
                sock.sendall(b"GET /api/fs/ls HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            else:
                sock.sendall(b"POST /api/feedback HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 50\r\n\r\n{")
            socks.append(sock)
        started = time.monotonic()
        response = httpx.get(deadline_server.url + "/api/search", params={"q": "install"}, timeout=10)
        assert response.status_code == 200 and time.monotonic() - started < 3
        for sock in socks:
            read_until_closed(sock, 8)
    finally:
        for sock in socks:
            sock.close()
    assert httpx.get(deadline_server.url + "/healthz", timeout=5).status_code == 200


def test_an_idle_keep_alive_connection_is_closed_after_askdocs_keep_alive(deadline_server):
    """A proxy or client pool must drop idle connections before the server does (nginx's
    upstream `keepalive_timeout` 4s against the default 5s): the server's side is settable."""
    with connect(deadline_server) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        data, took = read_until_closed(sock, 8)
    assert data.startswith(b"HTTP/1.1 200") and data.count(b"HTTP/1.1") == 1, data[:200]
    assert 0.8 < took < 3  # ASKDOCS_KEEP_ALIVE=1, not uvicorn's 5 s


def test_keep_alive_must_be_positive():
    from askdocs.errors import AskdocsError

    with pytest.raises(AskdocsError, match="ASKDOCS_KEEP_ALIVE"):
        Settings.from_env(env={"ASKDOCS_KEEP_ALIVE": "0"}, index="x")


def test_an_oversized_header_block_is_a_json_400(deadline_server):
    with connect(deadline_server) as sock:
        sock.sendall(b"GET /api/fs/ls HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * 70_000)
        data, _ = read_until_closed(sock, 8)
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400") and json.loads(body)["error"]["code"] == "bad_request"


# -- finding 1: one grep request exhausted memory --------------------------------------------------
def test_grep_with_nested_repeats_is_a_quick_json_400(client):
    started = time.monotonic()
    for pattern in ("(?:(?:(?:a{100}){100}){100})", "(?:(?:(?:a{100}){100}){100}){100}"):
        error = assert_json_error(client.get("/api/fs/grep", params={"pattern": pattern}), 400)
        assert error["code"] == "unsupported_pattern"
    assert time.monotonic() - started < 1


# Runs of one character class, the shapes that make a pattern try every position of a run (or
# split it many ways): dots, apostrophes, spaces, dashes, slashes, colons, backticks, brackets.
PATHOLOGICAL = [
    c * (4000 // len(c))
    for c in (
        ".",
        "'",
        " ",
        "-",
        "/",
        ":",
        "`",
        "[",
        "(",
        "a.",
        "a-",
        "a ",
        "a'",
        "a_",
        "aA",
        "1.",
        "a/",
        "\t",
    )
]


@pytest.mark.parametrize("message", PATHOLOGICAL, ids=lambda m: repr(m[:2]))
def test_no_message_makes_reading_the_question_slow(public_scope, message):
    """Reading a question (its exact tokens, whether it leans on the one before, pasted code,
    links, small talk, typos) stays linear in the message, the largest one allowed, as the
    message and as the earlier question a follow-up borrows: a dotted-name pattern tried from
    every position of "...." took 0.3 s per 4,000 characters, and a pattern that let an
    apostrophe be both a word and a separator held a worker for minutes on 1,000 of them."""
    from askdocs.edge_runtime.conversation import ChatRequest, Turn
    from askdocs.edge_runtime.query import make_query

    earlier = (Turn("user", "How do I install it?"), Turn("assistant", "Run the installer."))
    started = time.perf_counter()
    make_query(ChatRequest(message, "en", earlier, None), public_scope)
    history = (Turn("user", message), Turn("assistant", message))
    make_query(ChatRequest("and on Windows too?", "en", history, None), public_scope)
    assert time.perf_counter() - started < 1.0


@pytest.mark.parametrize(
    "opening",
    [
        "What's new in ",
        "When was ",
        "¿Qué hay de nuevo en la versión ",
        "How do I install ",
        "¿Cómo instalo ",
        "What license is ",
        "Is it open source ",
    ],
)
def test_no_message_makes_recognising_a_first_question_slow(public_scope, opening):
    """The release questions ("What's new in 3.2?", "When was 3.0 released?") name what they ask
    about before the version: with a space allowed at either end of that name, "What's new in"
    and 4,000 spaces took 30 s to be found not to be one."""
    from askdocs.edge_runtime.conversation import ChatRequest
    from askdocs.edge_runtime.intents import recognise
    from askdocs.edge_runtime.query import make_query

    started = time.perf_counter()
    for message in PATHOLOGICAL:
        query = make_query(ChatRequest(opening + message, None, (), None), public_scope)
        recognise(public_scope, query)
    assert time.perf_counter() - started < 3.0
