"""Finding 10: `GET /openapi.json` describes every route, and real responses match it.

Each route is called on a real server, with good and bad input; every body is validated
against the schema the document gives for that route and status, every chat event against
`x-sse-events`.
"""

from __future__ import annotations

import httpx
import jsonschema
import pytest
from askdocs.edge_runtime.sse import parse


@pytest.fixture(scope="module")
def spec(example_server) -> dict:
    response = httpx.get(example_server.url + "/openapi.json", timeout=10)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    return response.json()


def check(spec: dict, response: httpx.Response, path: str, method: str) -> None:
    operation = spec["paths"][path][method.lower()]
    status = str(response.status_code)
    assert status in operation["responses"], f"{method} {path} answered {status}, not in the document"
    content = operation["responses"][status].get("content")
    if content is None:
        assert not response.content
        return
    media = response.headers["content-type"].split(";")[0]
    assert media in content, (media, list(content))
    if media == "application/json":
        schema = {**content[media]["schema"], "components": spec["components"]}
        jsonschema.validate(response.json(), schema)


def test_the_document_names_every_route(spec):
    assert spec["openapi"].startswith("3.1")
    for path in [
        "/api/search",
        "/api/chat",
        "/api/feedback",
        "/api/fs/ls",
        "/api/fs/find",
        "/api/fs/cat",
        "/api/fs/grep",
        "/healthz",
        "/metrics",
        "/admin/reload",
        "/openapi.json",
    ]:
        assert path in spec["paths"], path
    assert set(spec["x-sse-events"]) == {"status", "tool", "token", "done", "error"}
    jsonschema.Draft202012Validator.check_schema({"components": spec["components"]})


@pytest.mark.parametrize(
    "method,path,kwargs",
    [
        ("GET", "/api/search", {"params": {"q": "install on windows", "k": 3}}),
        ("GET", "/api/search", {"params": {"q": "instalar", "locale": "es"}}),
        ("GET", "/api/search", {"params": {}}),
        ("GET", "/api/search", {"params": {"q": "x", "k": "many"}}),
        ("GET", "/api/search", {"params": {"q": "x" * 5000}}),
        ("POST", "/api/search", {"json": {"q": "install", "k": 2}}),
        ("POST", "/api/search", {"json": {"k": 2}}),
        ("POST", "/api/search", {"content": b"{not json"}),
        ("POST", "/api/feedback", {"json": {"answer_id": "a_1", "vote": "up"}}),
        ("POST", "/api/feedback", {"json": {"answer_id": "a_1", "vote": "sideways"}}),
        ("GET", "/api/fs/ls", {"params": {"path": "/"}}),
        ("GET", "/api/fs/ls", {"params": {"path": "/no/such/folder/"}}),
        ("GET", "/api/fs/find", {"params": {"name": "install"}}),
        ("GET", "/api/fs/find", {"params": {}}),
        ("GET", "/api/fs/cat", {"params": {"path": "/install/"}}),
        ("GET", "/api/fs/cat", {"params": {"path": "/nope/"}}),
        ("GET", "/api/fs/grep", {"params": {"pattern": "TFX-\\d+"}}),
        ("GET", "/api/fs/grep", {"params": {"pattern": "(a)\\1"}}),
        ("GET", "/healthz", {}),
        ("GET", "/metrics", {}),
        ("POST", "/admin/reload", {}),
        ("GET", "/openapi.json", {}),
    ],
)
def test_real_responses_match_the_document(spec, example_server, method, path, kwargs):
    response = httpx.request(method, example_server.url + path, timeout=30, **kwargs)
    assert response.status_code < 500, response.text
    check(spec, response, path, method)


@pytest.mark.parametrize(
    "method,path", [("GET", "/api/chat"), ("PUT", "/api/search"), ("DELETE", "/api/feedback")]
)
def test_wrong_methods_match_the_document(spec, example_server, method, path):
    response = httpx.request(method, example_server.url + path, timeout=10)
    assert response.status_code == 405
    schema = {**spec["components"]["schemas"]["Error"], "components": spec["components"]}
    jsonschema.validate(response.json(), schema)


@pytest.mark.parametrize(
    "body",
    [
        {"message": "How do I install tallyfox on Windows?"},
        {"message": "¿Cómo instalo tallyfox en Windows?", "locale": "es"},
        {"message": "zzzz qqqq unrelated nonsense words"},
        {"message": "I want to talk to a human"},
    ],
)
def test_chat_events_match_the_document(spec, example_server, body):
    response = httpx.post(example_server.url + "/api/chat", json=body, timeout=60)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    events = parse(response.text)
    assert events[0][0] == "status" and events[-1][0] in ("done", "error")
    for name, data in events:
        schema = {**spec["x-sse-events"][name], "components": spec["components"]}
        jsonschema.validate(data, schema)
