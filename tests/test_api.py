"""The HTTP API in-process: contract shapes, errors, tokens, RBAC everywhere, limits, CORS."""

from __future__ import annotations

import json
import time

import jwt
import pytest
from askdocs.edge_runtime.app import create_app
from askdocs.edge_runtime.holder import IndexHolder
from askdocs.edge_runtime.settings import Settings
from askdocs.edge_runtime.sse import parse
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from askdocs.shards import FORMAT_VERSION
from tests.conftest import RESTRICTED_PHRASES

SECRET = "test-secret-that-is-long-enough-for-hs256"


@pytest.fixture(scope="module")
def holder(example_site):
    return IndexHolder(str(example_site.shard_dir), str(example_site.private_dir))


def make_client(example_site, holder, **overrides) -> TestClient:
    values = {
        "index": str(example_site.shard_dir),
        "private": str(example_site.private_dir),
        "rate_limit": None,
        "jwt_secret": SECRET,
        "reload_interval": 0.0,
        "cors_origins": ("https://docs.example.com",),
        **overrides,
    }
    settings_ = Settings.from_env(env={"ASKDOCS_ADMIN_TOKEN": ADMIN_TOKEN}, **values)
    return TestClient(create_app(settings_, holder))


@pytest.fixture(scope="module")
def client(example_site, holder):
    with make_client(example_site, holder) as test_client:
        yield test_client


def token(groups, expires_in=600, secret=SECRET) -> str:
    return jwt.encode(
        {"sub": "reader", "groups": groups, "exp": int(time.time()) + expires_in}, secret, algorithm="HS256"
    )


STAFF = {"Authorization": f"Bearer {token(['staff'])}"}
ADMIN_TOKEN = "api-test-admin-token-0123456789"
ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


def test_search_contract(client):
    response = client.get("/api/search", params={"q": "install on windows", "k": 3})
    assert response.status_code == 200
    data = response.json()
    assert set(data) >= {"query", "locale", "took_ms", "results"}
    assert data["locale"] == "en" and data["retrievers"] == ["lexical", "dense", "rerank"]
    assert 1 <= len(data["results"]) <= 3
    first = data["results"][0]
    assert set(first) >= {"url", "page_url", "title", "heading", "snippet", "score", "locale"}
    assert first["url"].startswith("/") and first["page_url"] == first["url"].split("#")[0]
    assert first["page_url"] == "/install/"
    scores = [r["score"] for r in data["results"]]
    assert scores == sorted(scores, reverse=True)
    assert data["respelled"] == {}


def test_search_says_which_mistyped_words_it_searched_as_the_docs_words(client):
    data = client.get("/api/search", params={"q": "webhoks retried"}).json()
    assert data["query"] == "webhoks retried" and data["respelled"] == {"webhoks": "webhooks"}
    assert data["results"][0]["page_url"] == "/guides/webhooks/"


def test_search_locale_and_fallback(client):
    es = client.get("/api/search", params={"q": "instalar en Windows", "locale": "es"}).json()
    assert es["locale"] == "es" and all(r["locale"] == "es" for r in es["results"])
    fr = client.get("/api/search", params={"q": "install", "locale": "fr"}).json()
    assert fr["locale"] == "en" and fr["locale_fallback"] is True
    default = client.get("/api/search", params={"q": "install"}).json()
    assert default["locale"] == "en"


@pytest.mark.parametrize(
    "params,status,code",
    [
        ({}, 400, "missing_field"),
        ({"q": "  "}, 400, "missing_field"),
        ({"q": "x", "k": "0"}, 400, "bad_k"),
        ({"q": "x", "k": "51"}, 400, "bad_k"),
        ({"q": "x", "k": "ten"}, 400, "bad_k"),
        ({"q": "x" * 1001}, 413, "too_large"),
    ],
)
def test_search_errors(client, params, status, code):
    response = client.get("/api/search", params=params)
    assert response.status_code == status
    assert response.json()["error"]["code"] == code
    assert response.json()["error"]["message"]


def test_fs_endpoints(client):
    ls = client.get("/api/fs/ls", params={"path": "/"}).json()
    assert {"path", "entries"} <= set(ls) and ls["entries"]
    assert all(set(e) >= {"name", "path", "type", "title"} for e in ls["entries"])
    assert client.get("/api/fs/find", params={"name": "webhooks"}).json()["results"]
    cat = client.get("/api/fs/cat", params={"path": "/install/"}).json()
    assert set(cat) >= {"path", "title", "locale", "content"}
    grep = client.get("/api/fs/grep", params={"pattern": "TFX-10\\d\\d", "path": "/"}).json()
    assert all(set(m) >= {"path", "line", "text"} for m in grep["matches"]) and grep["matches"]
    assert client.get("/api/fs/grep", params={"pattern": "("}).status_code == 400
    assert client.get("/api/fs/cat", params={"path": "/nope/"}).status_code == 404
    assert client.get("/api/fs/cat", params={"path": "/../../etc/passwd"}).status_code == 400
    assert client.get("/api/fs/ls", params={"path": "/missing/"}).json()["error"]["code"] == "not_found"


@pytest.mark.parametrize(
    "header,code",
    [
        ("Bearer not-a-jwt", "bad_token"),
        (f"Bearer {token(['staff'], expires_in=-10)}", "token_expired"),
        (f"Bearer {token(['staff'], secret='another-secret-entirely-of-good-length')}", "bad_token"),
        ("Basic dXNlcjpwYXNz", "bad_token"),
        (f"Bearer {jwt.encode({'groups': ['staff']}, SECRET, algorithm='HS256')}", "bad_token"),
    ],
)
def test_bad_tokens_are_401_on_every_endpoint(client, header, code):
    for method, path, kwargs in [
        ("get", "/api/search", {"params": {"q": "x"}}),
        ("get", "/api/fs/ls", {"params": {"path": "/"}}),
        ("get", "/api/fs/cat", {"params": {"path": "/install/"}}),
        ("get", "/api/fs/find", {"params": {"name": "x"}}),
        ("get", "/api/fs/grep", {"params": {"pattern": "x"}}),
        ("post", "/api/chat", {"json": {"message": "hi"}}),
    ]:
        response = getattr(client, method)(path, headers={"Authorization": header}, **kwargs)
        assert response.status_code == 401, path
        assert response.json()["error"]["code"] == code


def test_a_staff_token_opens_the_restricted_page_everywhere(client):
    search = client.get("/api/search", params={"q": "BLUE HERON escalation"}, headers=STAFF).json()
    assert search["results"][0]["page_url"] == "/internal/runbook/"
    assert client.get("/api/fs/cat", params={"path": "/internal/runbook/"}, headers=STAFF).status_code == 200
    grep = client.get("/api/fs/grep", params={"pattern": "BLUE HERON"}, headers=STAFF).json()
    assert grep["matches"]
    other = {"Authorization": f"Bearer {token(['partners'])}"}
    assert client.get("/api/fs/cat", params={"path": "/internal/runbook/"}, headers=other).status_code == 404


WORDS = [
    "runbook",
    "on-call",
    "BLUE",
    "HERON",
    "escalation",
    "ingest",
    "gateway",
    "incident",
    "staff",
    "internal",
    "pager",
    "tfx-ops",
    "marigold",
    "anvil",
    "hostname",
    "prod",
    "install",
    "proxy",
    "token",
    "rotate",
    "sev1",
    "OPSREV",
    "handover",
    "Tuesday",
    "¿",
    "qué",
]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(WORDS), min_size=1, max_size=5), st.sampled_from(["en", "es"]))
@example(["BLUE", "HERON"], "en")
@example(["ingest", "gateway", "hostname"], "en")
def test_no_query_surfaces_a_restricted_page_without_the_group(client, words, locale):
    query = " ".join(words)
    response = client.get("/api/search", params={"q": query, "locale": locale, "k": 50})
    assert response.status_code == 200, response.text
    search = response.json()
    assert not any("/internal/" in r["url"] for r in search["results"])
    # Everything but the echo of the reader's own query (which may well say BLUE HERON).
    blob = json.dumps({key: value for key, value in search.items() if key != "query"})
    assert not any(phrase in blob for phrase in RESTRICTED_PHRASES)
    find = client.get("/api/fs/find", params={"name": words[0]}).json()
    assert not any("/internal/" in r["path"] for r in find["results"])
    grep = client.get("/api/fs/grep", params={"pattern": words[-1].replace("¿", "")}).json()
    assert not any("/internal/" in m.get("path", "") for m in grep.get("matches", []))


@pytest.mark.parametrize(
    "question",
    [
        "What is the escalation phrase in the on-call runbook?",
        "What does the staff runbook say to do during a break-glass procedure?",
    ],
)
def test_chat_never_cites_or_quotes_restricted_pages(client, question):
    response = client.post("/api/chat", json={"message": question})
    assert response.status_code == 200
    events = parse(response.text)
    done = [d for e, d in events if e == "done"][0]
    assert not any("/internal/" in c["url"] for c in done["citations"])
    assert not any(phrase in response.text for phrase in RESTRICTED_PHRASES)
    staff = parse(client.post("/api/chat", json={"message": question}, headers=STAFF).text)
    staff_done = [d for e, d in staff if e == "done"][0]
    assert any("/internal/runbook/" in c["url"] for c in staff_done["citations"])


@pytest.mark.parametrize(
    "body,status,code",
    [
        (b"{not json", 400, "invalid_json"),
        (b"[]", 400, "invalid_json"),
        (b'{"locale": "en"}', 400, "missing_field"),
        (b'{"message": ""}', 400, "missing_field"),
        (b'{"message": "hi", "history": "nope"}', 400, "bad_history"),
        (b'{"message": "hi", "history": [{"role": "system", "content": "x"}]}', 400, "bad_history"),
        (b'{"message": "hi", "locale": "../../x"}', 400, "bad_locale"),
        (json.dumps({"message": "x" * 70_000}).encode(), 413, "too_large"),
    ],
)
def test_chat_input_errors(client, body, status, code):
    response = client.post("/api/chat", content=body, headers={"Content-Type": "application/json"})
    assert response.status_code == status
    assert response.json()["error"]["code"] == code


def test_feedback(client):
    done = [
        d
        for e, d in parse(client.post("/api/chat", json={"message": "How do I install on Windows?"}).text)
        if e == "done"
    ][0]
    assert (
        client.post("/api/feedback", json={"answer_id": done["answer_id"], "vote": "up"}).status_code == 204
    )
    assert (
        client.post(
            "/api/feedback", json={"answer_id": done["answer_id"], "vote": "down", "comment": "missing ARM"}
        ).status_code
        == 204
    )
    assert client.post("/api/feedback", json={"answer_id": "x", "vote": "sideways"}).status_code == 400
    assert client.post("/api/feedback", content=b"nope").status_code == 400


def test_healthz_and_metrics(client):
    client.get("/api/search", params={"q": "proxy"})
    health = client.get("/healthz", headers=ADMIN).json()
    assert health["status"] == "ok"
    assert health["index"]["format_version"] == FORMAT_VERSION
    assert health["index"]["counts"]["public_pages"] == 36
    assert health["model"]["sha256"]
    assert health["retrievers"]["dense"]["live"] is True and health["retrievers"]["dense"]["runs"] >= 1
    assert health["retrievers"]["dense"]["backend"] == ["numpy"]
    assert health["synthesizer"]["mode"] == "extractive"
    metrics = client.get("/metrics").text
    assert 'askdocs_requests_total{endpoint="/api/search",status="200"}' in metrics
    assert 'askdocs_retriever_runs_total{outcome="ok",retriever="dense"}' in metrics
    assert "askdocs_request_seconds_bucket" in metrics and "askdocs_cache_hits" in metrics


def test_cors(client):
    allowed = client.options(
        "/api/chat",
        headers={
            "Origin": "https://docs.example.com",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization,content-type",
        },
    )
    assert allowed.headers["access-control-allow-origin"] == "https://docs.example.com"
    assert "authorization" in allowed.headers["access-control-allow-headers"].lower()
    other = client.get("/api/search", params={"q": "x"}, headers={"Origin": "https://evil.example"})
    assert "access-control-allow-origin" not in other.headers


def test_rate_limit_by_client_address(example_site, holder):
    with make_client(example_site, holder, rate_limit="3/minute") as limited:
        codes = [limited.get("/api/search", params={"q": "x"}).status_code for _ in range(4)]
        assert codes == [200, 200, 200, 429]
        response = limited.get("/api/fs/ls")
        assert (
            response.json()["error"]["code"] == "rate_limited" and int(response.headers["retry-after"]) >= 1
        )
        assert limited.get("/healthz").status_code == 200  # health checks are not limited


def test_rate_limit_behind_a_proxy_header(example_site, holder):
    settings_ = Settings.from_env(
        env={},
        index=str(example_site.shard_dir),
        rate_limit="2/minute",
        reload_interval=0.0,
        trusted_proxies=("10.0.0.0/8",),
        client_ip_header="X-Forwarded-For",
    )
    with TestClient(create_app(settings_, holder), client=("10.0.0.1", 40000)) as limited:
        first = {"X-Forwarded-For": "203.0.113.5"}
        second = {"X-Forwarded-For": "203.0.113.6"}
        assert [limited.get("/api/fs/ls", headers=first).status_code for _ in range(3)] == [200, 200, 429]
        assert limited.get("/api/fs/ls", headers=second).status_code == 200


def test_settings_validation():
    from askdocs.errors import AskdocsError

    with pytest.raises(AskdocsError, match="ASKDOCS_RATE_LIMT"):
        Settings.from_env(env={"ASKDOCS_RATE_LIMT": "5/minute"}, index="x")
    with pytest.raises(AskdocsError, match="ASKDOCS_LLM_MODEL"):
        Settings.from_env(env={"OPENAI_BASE_URL": "http://127.0.0.1:1/v1"}, index="x")
    with pytest.raises(AskdocsError, match="not a rate"):
        Settings.from_env(env={"ASKDOCS_RATE_LIMIT": "lots"}, index="x")
    openai = Settings.from_env(env={"ASKDOCS_LLM_MODEL": "gpt-4o-mini", "OPENAI_API_KEY": "k"}, index="x")
    assert openai.llm.base_url == "https://api.openai.com/v1" and openai.llm.agent is True
    off = Settings.from_env(
        env={"ASKDOCS_RATE_LIMIT": "off", "ASKDOCS_CORS_ORIGINS": "https://a, https://b"}, index="x"
    )
    assert off.rate_limit is None and off.cors_origins == ("https://a", "https://b")
