"""`GET /openapi.json`: the HTTP API described for client generators and schema fuzzers.

Written by hand (the routes are plain Starlette), and held to the real responses by
tests/test_openapi.py. The chat stream's events (`text/event-stream`) are described as
`x-sse-events`: one JSON schema per event name, each frame's `data`.
"""

from __future__ import annotations

from typing import Any

from askdocs import __version__

JSON = "application/json"


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def _error(description: str) -> dict:
    return {"description": description, "content": {JSON: {"schema": _ref("Error")}}}


ERRORS = {
    "400": _error("bad request: a missing or malformed parameter or body (`code` says which)"),
    "401": _error("a reader token that does not verify"),
    "404": _error("no such page, path or route"),
    "405": _error("method not allowed"),
    "408": _error("the client was too slow sending its request"),
    "413": _error("a parameter or body over its limit"),
    "429": _error("rate limited (`Retry-After` says when to come back)"),
    "500": _error("internal error"),
    "503": _error("draining or not ready"),
}
AUTH = [{}, {"reader": []}]
STR = {"type": "string"}
NULLABLE_STR = {"type": ["string", "null"]}
# What the server strips (Python's str.strip) is not text: at least one other character.
NONBLANK = {"type": "string", "minLength": 1, "pattern": "[^\\s\\u001c-\\u001f\\u0085]"}


def _query(name: str, description: str, schema: dict, required: bool = False) -> dict:
    return {"name": name, "in": "query", "required": required, "description": description, "schema": schema}


def _json_body(schema: dict) -> dict:
    return {"required": True, "content": {JSON: {"schema": schema}}}


def _ok(schema: dict, description: str = "OK") -> dict:
    return {"description": description, "content": {JSON: {"schema": schema}}}


def _operation(
    summary: str, ok: dict, *, params=(), body=None, codes=("400", "401", "405", "408", "413", "429", "500")
) -> dict:
    op: dict[str, Any] = {
        "summary": summary,
        "security": AUTH,
        "responses": {"200": ok, **{code: ERRORS[code] for code in codes}},
    }
    if params:
        op["parameters"] = list(params)
    if body is not None:
        op["requestBody"] = body
    return op


SCHEMAS: dict[str, Any] = {
    "Error": {
        "type": "object",
        "required": ["error"],
        "properties": {
            "error": {
                "type": "object",
                "required": ["code", "message"],
                "properties": {"code": STR, "message": STR},
            }
        },
    },
    "SearchResult": {
        "type": "object",
        "required": ["url", "page_url", "title", "heading", "snippet", "highlights", "score", "locale"],
        "properties": {
            "url": STR,
            "page_url": STR,
            "title": STR,
            "heading": NULLABLE_STR,
            "snippet": STR,
            "highlights": {"type": "array"},
            "score": {"type": "number"},
            "locale": STR,
            "kind": STR,
            "lastmod": NULLABLE_STR,
            "retrievers": {"type": "array"},
        },
    },
    "SearchResponse": {
        "type": "object",
        "required": ["query", "locale", "took_ms", "results", "retrievers", "index_version"],
        "properties": {
            "query": STR,
            "locale": STR,
            "requested_locale": NULLABLE_STR,
            "locale_fallback": {"type": "boolean"},
            "took_ms": {"type": "number"},
            "retrievers": {"type": "array", "items": STR},
            "retriever_errors": {"type": "object"},
            "index_version": STR,
            "release": NULLABLE_STR,
            "results": {"type": "array", "items": _ref("SearchResult")},
        },
    },
    "SearchRequest": {
        "type": "object",
        "required": ["q"],
        "properties": {
            "q": NONBLANK,
            "k": {"type": "integer", "minimum": 1, "maximum": 50},
            "locale": {"type": ["string", "null"], "maxLength": 32},
        },
    },
    "ChatRequest": {
        "type": "object",
        "required": ["message"],
        "properties": {
            "message": {**NONBLANK, "maxLength": 4000},
            "locale": {
                "type": ["string", "null"],
                "maxLength": 16,
                "pattern": "^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$",
            },
            "page_url": {"type": ["string", "null"], "maxLength": 2000},
            "history": {
                "type": ["array", "null"],
                "maxItems": 40,
                "items": {
                    "type": "object",
                    "required": ["role", "content"],
                    "properties": {"role": {"enum": ["user", "assistant"]}, "content": STR},
                },
            },
        },
    },
    "FeedbackRequest": {
        "type": "object",
        "required": ["answer_id", "vote"],
        "properties": {
            "answer_id": {"type": "string", "minLength": 1, "maxLength": 100},
            "vote": {"enum": ["up", "down"]},
            "comment": {"type": ["string", "null"], "maxLength": 4000},
        },
    },
    "Citation": {"type": "object", "required": ["url"], "properties": {"url": STR, "title": STR}},
    "LsResponse": {
        "type": "object",
        "required": ["path", "entries"],
        "properties": {"path": STR, "entries": {"type": "array"}},
    },
    "FindResponse": {
        "type": "object",
        "required": ["results"],
        "properties": {
            "results": {
                "type": "array",
                "items": {"type": "object", "required": ["path", "title"], "properties": {"path": STR}},
            }
        },
    },
    "CatResponse": {
        "type": "object",
        "required": ["path", "title", "locale", "content"],
        "properties": {"path": STR, "title": STR, "locale": STR, "content": STR, "lastmod": NULLABLE_STR},
    },
    "GrepResponse": {
        "type": "object",
        "required": ["pattern", "path", "matches", "complete", "timed_out"],
        "properties": {
            "pattern": STR,
            "path": STR,
            "matches": {"type": "array"},
            "complete": {"type": "boolean"},
            "timed_out": {"type": "boolean"},
            "pages_searched": {"type": "integer"},
        },
    },
    "Health": {
        "type": "object",
        "required": ["status", "version", "index", "retrievers", "reload"],
        "properties": {"status": {"enum": ["ok", "draining"]}, "version": STR},
    },
}

SSE_EVENTS = {
    "status": {
        "type": "object",
        "required": ["stage"],
        "properties": {"stage": STR, "detail": STR},
    },
    "tool": {
        "type": "object",
        "required": ["name", "args"],
        "properties": {"name": STR, "args": {"type": "object"}},
    },
    "token": {"type": "object", "required": ["text"], "properties": {"text": STR}},
    "done": {
        "type": "object",
        "required": ["answer_id", "answered", "mode", "citations", "escalation"],
        "properties": {
            "answer_id": STR,
            "answered": {"type": "boolean"},
            "mode": {"enum": ["extractive", "llm", "extractive-fallback"]},
            "citations": {"type": "array", "items": _ref("Citation")},
            "escalation": {"type": ["object", "null"]},
            "confidence": {"type": "number"},
            "fallback_reason": STR,
            "escalation_reason": STR,
            "cached": {"type": "boolean"},
            "index_version": NULLABLE_STR,
            "refused_because": {
                "enum": [
                    "contact_page",
                    "no_question",
                    "language",
                    "version_unsaid",
                    "name_unsaid",
                    "number_unsaid",
                ],
                "description": "contact_page: a refusal despite confident retrieval, the best evidence "
                "was only the site's support page, holding too few of the question's words; "
                "no_question: the message asks nothing the docs could answer (no key term, no exact "
                "name), so nothing was searched; language: the question is written in a language "
                "the site has no pages in, and the text names the languages the docs are in; "
                "version_unsaid: the question names a version (Python 2.4, HTTP/3) nothing read says; "
                "name_unsaid: it asks whether something works with a product the docs never name; "
                "number_unsaid: it asks an amount or which version and the answer found names no number "
                "(or, asked which versions of another thing are supported, never names that thing)",
            },
            "faq_match": {
                "type": "object",
                "description": "the site FAQ question this one duplicates, answered from it",
                "properties": {"url": STR, "similarity": {"type": "number"}, "bar": {"type": "number"}},
            },
        },
    },
    "error": SCHEMAS["Error"]["properties"]["error"],
}


def _event_schema(name: str) -> str:
    return f"{name.capitalize()}Event"


SCHEMAS.update({_event_schema(name): schema for name, schema in SSE_EVENTS.items()})


def _sse_frame(name: str) -> dict:
    """One frame of the stream as schema fuzzers read it: the event name, its JSON data."""
    return {
        "type": "object",
        "required": ["event", "data"],
        "properties": {
            "event": {"const": name},
            "data": {"type": "string", "contentMediaType": JSON, "contentSchema": _ref(_event_schema(name))},
        },
    }


FS_CODES = ("400", "401", "404", "405", "413", "429", "500")  # every /api/fs/* route
PATH_PARAM = _query(
    "path",
    "a site path (`/`, `/install/`); `.`/`..` segments and URLs are a 400 `bad_path`",
    {"type": "string", "maxLength": 1000, "pattern": "^[^\\\\\\u0000]*$"},
)


def document() -> dict:
    search_params = [
        _query("q", "the search text", NONBLANK, required=True),
        _query("k", "how many results", {"type": "integer", "minimum": 1, "maximum": 50}),
        _query("locale", "a language tag (`en`, `es`)", {"type": "string", "maxLength": 32}),
    ]
    chat_ok = {
        "description": "Server-Sent Events: `status` first, then `tool`/`status`/`token`, then exactly one "
        "`done` or `error` (schemas in `x-sse-events`); `: keep-alive` comments every 15 s",
        "content": {"text/event-stream": {"schema": {"oneOf": [_sse_frame(name) for name in SSE_EVENTS]}}},
    }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "askdocs edge runtime",
            "version": __version__,
            "description": "Search, chat and read a documentation site's index. Every /api error is "
            '`{"error": {"code", "message"}}`. A reader\'s JWT (`Authorization: Bearer`) widens '
            "what is visible; without one, only public pages.",
        },
        "components": {
            "schemas": SCHEMAS,
            "securitySchemes": {"reader": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"}},
        },
        "x-sse-events": {name: _ref(_event_schema(name)) for name in SSE_EVENTS},
        "paths": {
            "/api/search": {
                "get": _operation("hybrid search", _ok(_ref("SearchResponse")), params=search_params),
                "post": _operation(
                    "hybrid search (JSON body)",
                    _ok(_ref("SearchResponse")),
                    body=_json_body(_ref("SearchRequest")),
                ),
            },
            "/api/chat": {
                "post": _operation(
                    "ask a question; the answer streams", chat_ok, body=_json_body(_ref("ChatRequest"))
                )
            },
            "/api/feedback": {
                "post": {
                    **_operation(
                        "vote on an answer",
                        {"description": "unused"},
                        body=_json_body(_ref("FeedbackRequest")),
                    ),
                    "responses": {
                        "204": {"description": "recorded"},
                        **{c: ERRORS[c] for c in ("400", "401", "405", "408", "413", "429", "500")},
                    },
                }
            },
            "/api/fs/ls": {
                "get": _operation(
                    "list a folder of the docs tree",
                    _ok(_ref("LsResponse")),
                    params=[PATH_PARAM],
                    codes=FS_CODES,
                )
            },
            "/api/fs/find": {
                "get": _operation(
                    "find pages by name (glob or words)",
                    _ok(_ref("FindResponse")),
                    params=[
                        _query(
                            "name",
                            "a name or glob",
                            {**NONBLANK, "maxLength": 200},
                            required=True,
                        ),
                        PATH_PARAM,
                    ],
                    codes=FS_CODES,
                )
            },
            "/api/fs/cat": {
                "get": _operation(
                    "a page's text",
                    _ok(_ref("CatResponse")),
                    params=[
                        {
                            **PATH_PARAM,
                            "required": True,
                            "schema": {**NONBLANK, "maxLength": 1000},
                        }
                    ],
                    codes=FS_CODES,
                )
            },
            "/api/fs/grep": {
                "get": _operation(
                    "grep the pages (Python re syntax run on RE2, under a time budget)",
                    _ok(_ref("GrepResponse")),
                    params=[
                        _query(
                            "pattern",
                            "a regular expression",
                            NONBLANK,
                            required=True,
                        ),
                        PATH_PARAM,
                        _query("ignore_case", "1/true/yes", {"type": "string"}),
                    ],
                    codes=FS_CODES,
                )
            },
            "/healthz": {
                "get": {
                    "summary": "status, versions, live retrievers (more with the operator token)",
                    "responses": {
                        "200": _ok(_ref("Health")),
                        "503": {"description": "draining", "content": {JSON: {"schema": _ref("Health")}}},
                    },
                }
            },
            "/metrics": {
                "get": {
                    "summary": "Prometheus metrics",
                    "responses": {
                        "200": {
                            "description": "text exposition format",
                            "content": {"text/plain": {"schema": STR}},
                        }
                    },
                }
            },
            "/admin/reload": {
                "post": {
                    "summary": "check the index now (operator token)",
                    "responses": {
                        "200": _ok({"type": "object", "required": ["outcome"]}),
                        "502": _ok(
                            {"type": "object", "required": ["outcome", "last_error"]},
                            "the reload failed; the old index serves",
                        ),
                        "401": ERRORS["401"],
                        "404": _error("admin routes are off (no ASKDOCS_ADMIN_TOKEN)"),
                    },
                }
            },
            "/openapi.json": {
                "get": {"summary": "this document", "responses": {"200": _ok({"type": "object"})}}
            },
        },
    }
