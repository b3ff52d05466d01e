"""A scripted stand-in for the askdocs runtime, served for real by uvicorn.

It serves what a built site serves to the widget (test pages, `widget.js`,
`_askdocs/manifest.json`, Lunr shards and lunr.js) and answers `/api/chat`
with SSE streams that each test scripts: normal answers, refusals, errors,
stalls, dropped connections. Those failure modes are hard to get out of a
real server, so these tests stay even once `askdocs serve` exists.
"""

from __future__ import annotations

import asyncio
import hashlib
import html
import json
import logging
import shutil
import socket
import subprocess
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import mkdocs
import uvicorn
from lunr import lunr
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Route

REPO = Path(__file__).resolve().parents[2]
WIDGET_JS = REPO / "widget" / "widget.js"
NODE_DIR = REPO / "tests" / "node"
MKDOCS_SEARCH = Path(mkdocs.__file__).parent / "contrib" / "search"
SUBPATH = "/docs"
LUNR_FILES = {
    "lunr.js": MKDOCS_SEARCH / "templates" / "search" / "lunr.js",
    "lunr.stemmer.support.js": MKDOCS_SEARCH / "lunr-language" / "lunr.stemmer.support.js",
    "lunr.es.js": MKDOCS_SEARCH / "lunr-language" / "lunr.es.js",
}


# ---------------------------------------------------------------- scripted streams


@dataclass(frozen=True)
class Event:
    name: str
    data: dict

    def encode(self) -> bytes:
        return f"event: {self.name}\ndata: {json.dumps(self.data)}\n\n".encode()


@dataclass(frozen=True)
class Comment:
    text: str = "keep-alive"

    def encode(self) -> bytes:
        return f": {self.text}\n\n".encode()


@dataclass(frozen=True)
class Raw:
    """Bytes written as they are: for CRLF, split lines and odd framing."""

    data: bytes

    def encode(self) -> bytes:
        return self.data


@dataclass(frozen=True)
class Sleep:
    seconds: float


@dataclass(frozen=True)
class Drop:
    """Cut the connection mid-stream, without the closing chunk."""


Step = Event | Comment | Raw | Sleep | Drop


@dataclass(frozen=True)
class Status:
    """A plain HTTP reply instead of a stream (errors, a static host's 404)."""

    code: int
    body: dict | str | None = None


class DroppedConnection(Exception):
    """Raised inside a stream so uvicorn aborts the connection."""


def status(stage: str, detail: str | None = None) -> Event:
    data = {"stage": stage}
    if detail is not None:
        data["detail"] = detail
    return Event("status", data)


def tool(name: str, **args: str) -> Event:
    return Event("tool", {"name": name, "args": args})


def tokens(text_parts: Iterable[str], delay: float = 0.0) -> list[Step]:
    steps: list[Step] = []
    for part in text_parts:
        steps.append(Event("token", {"text": part}))
        if delay:
            steps.append(Sleep(delay))
    return steps


def done(
    answer_id: str = "a-1",
    *,
    answered: bool = True,
    mode: str = "extractive",
    citations: list[dict] | None = None,
    escalation: dict | None = None,
) -> Event:
    return Event(
        "done",
        {
            "answer_id": answer_id,
            "answered": answered,
            "mode": mode,
            "citations": citations or [],
            "escalation": escalation,
        },
    )


def answer(
    text: str, *, answer_id: str = "a-1", citations: list[dict] | None = None, delay: float = 0.0
) -> list[Step]:
    """A complete, ordinary answer stream: status events, tokens word by word, done."""
    words = [w + " " for w in text.split(" ")]
    words[-1] = words[-1].rstrip(" ")
    return [
        status("searching"),
        status("reading", "/install/"),
        status("answering"),
        *tokens(words, delay),
        done(answer_id, citations=citations),
    ]


# ---------------------------------------------------------------- the site


PAGES = [
    # url, title, [(anchor, heading, body)]
    ("/", "Home", [("", "Home", "askdocs answers questions about your documentation.")]),
    (
        "/install/",
        "Install",
        [
            ("", "Install", "How to install askdocs on your machine."),
            ("with-pip", "Install with pip", "Run pip install askdocs in a virtual environment."),
            ("requirements", "Requirements", "Python 3.11 or newer is required."),
        ],
    ),
    (
        "/configure/",
        "Configure",
        [
            ("", "Configure", "Configuration options for the plugin and the runtime."),
            ("rate-limit", "Rate limit", "Set ASKDOCS_RATE_LIMIT to change the request budget."),
        ],
    ),
]
PAGES_ES = [
    (
        "/es/instalar/",
        "Instalación",
        [
            ("", "Instalación", "Cómo instalar askdocs en tu ordenador."),
            ("con-pip", "Instalar con pip", "Ejecuta pip install askdocs en un entorno virtual."),
        ],
    ),
]


SUGGESTIONS = {
    "en": ["How do I install askdocs?", "How do I change the rate limit?"],
    "es": ["¿Cómo instalo askdocs?"],
}


def search_results(query: str, locale: str, k: int) -> list[dict]:
    """/api/search over the test pages: sections ranked by how many query words they contain."""
    words = [w for w in query.lower().split() if len(w) > 1]
    scored = []
    for url, title, sections in PAGES_ES if locale == "es" else PAGES:
        for anchor, heading, body in sections:
            text = f"{title} {heading} {body}".lower()
            score = sum(text.count(w) for w in words)
            if score:
                scored.append(
                    {
                        "url": url + (f"#{anchor}" if anchor else ""),
                        "page_url": url,
                        "title": title,
                        "heading": heading,
                        "snippet": body,
                        "score": score,
                        "locale": locale,
                    }
                )
    scored.sort(key=lambda r: -r["score"])
    return scored[:k]


def _search_docs(pages: list) -> tuple[list[dict], dict]:
    documents, search_docs = [], {"pages": [], "refs": {}}
    for page_no, (url, title, sections) in enumerate(pages):
        search_docs["pages"].append([url, title])
        for anchor, heading, body in sections:
            ref = str(len(documents))
            documents.append({"id": ref, "title": heading, "body": body})
            search_docs["refs"][ref] = [page_no, anchor, heading]
    return documents, search_docs


def node_lunr_available() -> bool:
    return shutil.which("node") is not None and (NODE_DIR / "node_modules" / "lunr-languages").is_dir()


def _spanish_index(documents: list[dict]) -> dict:
    """lunr.py cannot stem Spanish without nltk, so lunr.js itself builds it."""
    program = """
const lunr = require("lunr");
require("lunr-languages/lunr.stemmer.support")(lunr);
require("lunr-languages/lunr.es")(lunr);
const docs = JSON.parse(require("fs").readFileSync(0, "utf8"));
const idx = lunr(function () {
  this.use(lunr.es);
  this.ref("id"); this.field("title"); this.field("body");
  docs.forEach((d) => this.add(d));
});
process.stdout.write(JSON.stringify(idx));
"""
    out = subprocess.run(
        ["node", "-e", program],
        input=json.dumps(documents),
        capture_output=True,
        text=True,
        cwd=NODE_DIR,
        check=True,
    )
    return json.loads(out.stdout)


def build_shards() -> tuple[dict[str, bytes], bool]:
    """The static `_askdocs/` files the offline fallback reads, keyed by path."""
    files: dict[str, bytes] = {}
    entries = []

    def add(stem: str, role: str, locale: str, payload: object) -> None:
        data = json.dumps(payload, separators=(",", ":")).encode()
        digest = hashlib.sha256(data).hexdigest()
        path = f"{stem}.{locale}.{digest[:8]}.json"
        files[path] = data
        entries.append({"path": path, "role": role, "locale": locale, "sha256": digest, "bytes": len(data)})

    documents, search_docs = _search_docs(PAGES)
    index = lunr(ref="id", fields=["title", "body"], documents=documents)
    add("lunr", "lunr", "en", index.serialize())
    add("search_docs", "search_docs", "en", search_docs)
    for locale, questions in SUGGESTIONS.items():
        add(
            "suggestions",
            "suggestions",
            locale,
            {"locale": locale, "source": "config", "questions": questions},
        )
    has_spanish = node_lunr_available()
    if has_spanish:
        documents, search_docs = _search_docs(PAGES_ES)
        add("lunr", "lunr", "es", _spanish_index(documents))
        add("search_docs", "search_docs", "es", search_docs)
    manifest = {
        "format_version": 1,
        "default_locale": "en",
        "locales": ["en", "es"] if has_spanish else ["en"],
        "files": entries,
    }
    files["manifest.json"] = json.dumps(manifest, indent=2).encode()
    return files, has_spanish


# ---------------------------------------------------------------- the app

PAGE_STYLE = """<style>
body { font: 16px/1.6 system-ui, sans-serif; margin: 0; color: #222; }
header { background: #37474f; color: #fff; padding: 14px 32px; font-weight: 600; }
main { max-width: 760px; margin: 0 auto; padding: 24px 32px; }
@media (prefers-color-scheme: dark) {
  body { background: #1e2129; color: #dde; }
  a { color: #9ab; }
}
</style>"""


@dataclass
class Chat:
    """One request the widget made to /api/chat."""

    body: dict
    headers: dict[str, str]


@dataclass
class FakeRuntime:
    script_attrs: dict[str, str] = field(default_factory=dict)
    chats: list[Chat] = field(default_factory=list)
    searches: list[dict] = field(default_factory=list)
    search_status: int = 200
    feedback: list[dict] = field(default_factory=list)
    streams_closed: list[str] = field(default_factory=list)
    token: str | None = None
    token_requests: int = 0
    extra_head: str = ""
    csp: str | None = None
    _replies: deque = field(default_factory=deque)

    def __post_init__(self) -> None:
        self.shards, self.has_spanish = build_shards()
        self.app = Starlette(
            routes=[
                Route("/auth/token", self._token),
                # The same site (and API) at the root and published under /docs/.
                *(
                    route
                    for base in ("", SUBPATH)
                    for route in (
                        Route(f"{base}/api/chat", self._chat, methods=["POST"]),
                        Route(f"{base}/api/feedback", self._feedback, methods=["POST"]),
                        Route(f"{base}/api/search", self._search),
                        Route(f"{base}/_askdocs/widget.js", self._widget),
                        Route(f"{base}/_askdocs/lunr/{{name}}", self._lunr_js),
                        Route(f"{base}/_askdocs/{{name}}", self._shard),
                    )
                ),
                Route("/{path:path}", self._page),
            ]
        )
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self.port = 0

    # -- scripting
    def reply(self, *steps: Step | Status) -> None:
        """Queue the reply to the next /api/chat request."""
        self._replies.append(steps)

    def reset(self) -> None:
        self.script_attrs = {}
        self.chats.clear()
        self.searches.clear()
        self.search_status = 200
        self.feedback.clear()
        self.streams_closed.clear()
        self._replies.clear()
        self.token = None
        self.token_requests = 0
        self.extra_head = ""
        self.csp = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # -- handlers
    async def _chat(self, request: Request) -> Response:
        body = await request.json()
        self.chats.append(Chat(body=body, headers=dict(request.headers)))
        steps = self._replies.popleft() if self._replies else tuple(answer("Default answer."))
        if len(steps) == 1 and isinstance(steps[0], Status):
            reply = steps[0]
            if isinstance(reply.body, dict):
                return JSONResponse(reply.body, status_code=reply.code)
            return PlainTextResponse(reply.body or "", status_code=reply.code)
        return StreamingResponse(
            self._stream(steps),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )

    async def _stream(self, steps: tuple) -> AsyncIterator[bytes]:
        outcome = "cancelled"
        try:
            for step in steps:
                if isinstance(step, Sleep):
                    await asyncio.sleep(step.seconds)
                elif isinstance(step, Drop):
                    outcome = "dropped"
                    raise DroppedConnection()
                else:
                    yield step.encode()
            outcome = "complete"
        finally:
            self.streams_closed.append(outcome)

    async def _search(self, request: Request) -> Response:
        params = dict(request.query_params)
        self.searches.append(params)
        if self.search_status != 200:
            return PlainTextResponse("down", status_code=self.search_status)
        query, locale = params.get("q", ""), params.get("locale", "en")
        results = search_results(query, locale, int(params.get("k", "10")))
        return JSONResponse({"query": query, "locale": locale, "took_ms": 1, "results": results})

    async def _feedback(self, request: Request) -> Response:
        self.feedback.append(await request.json())
        return Response(status_code=204)

    async def _token(self, request: Request) -> Response:
        self.token_requests += 1
        if request.cookies.get("session") != "reader" or self.token is None:
            return JSONResponse({"error": {"code": "unauthorized", "message": "no session"}}, 401)
        return JSONResponse({"token": self.token})

    async def _widget(self, request: Request) -> Response:
        return FileResponse(WIDGET_JS, media_type="text/javascript", headers={"Cache-Control": "no-store"})

    async def _lunr_js(self, request: Request) -> Response:
        source = LUNR_FILES.get(request.path_params["name"])
        if source is None:
            return PlainTextResponse("not found", status_code=404)
        return FileResponse(source, media_type="text/javascript")

    async def _shard(self, request: Request) -> Response:
        data = self.shards.get(request.path_params["name"])
        if data is None:
            return PlainTextResponse("not found", status_code=404)
        return Response(data, media_type="application/json")

    async def _page(self, request: Request) -> Response:
        path = "/" + request.path_params["path"]
        if path in ("/favicon.ico",):
            return Response(status_code=204)
        lang = "es" if path.startswith("/es/") else "en"
        base = SUBPATH if path.startswith(SUBPATH + "/") else ""
        attrs = "".join(
            f' data-{name}="{html.escape(value, quote=True)}"' for name, value in self.script_attrs.items()
        )
        titles = {url: title for url, title, _ in PAGES + PAGES_ES}
        title = titles.get(path, "Test docs")
        links = "".join(f'<li><a href="{url}">{t}</a></li>' for url, t in titles.items())
        page = f"""<!doctype html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>{html.escape(title)}</title>
{"" if self.csp else PAGE_STYLE}
{self.extra_head}
</head>
<body>
<header>Test docs</header>
<main>
<h1 id="top">{html.escape(title)}</h1>
<p>Documentation page used by the askdocs widget browser tests.</p>
<h2 id="with-pip">Install with pip</h2>
<p>Run <code>pip install askdocs</code> in a virtual environment.</p>
<button id="outside" type="button">A page button</button>
<ul>{links}</ul>
</main>
<script src="{base}/_askdocs/widget.js"{attrs} defer></script>
</body>
</html>"""
        headers = {"Content-Security-Policy": self.csp} if self.csp else None
        return HTMLResponse(page, headers=headers)

    # -- lifecycle
    def start(self) -> None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(self.app, log_level="warning", lifespan="off")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [sock]}, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("fake runtime did not start")
            time.sleep(0.02)

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)


def _is_drop(exc: BaseException | None) -> bool:
    if isinstance(exc, BaseExceptionGroup):
        return all(_is_drop(inner) for inner in exc.exceptions)
    return isinstance(exc, DroppedConnection)


class _HideDeliberateDrops(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.exc_info and _is_drop(record.exc_info[1]))


logging.getLogger("uvicorn.error").addFilter(_HideDeliberateDrops())


def closed_port() -> int:
    """A localhost port nothing listens on: a runtime that is down."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
