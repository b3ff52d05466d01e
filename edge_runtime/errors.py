"""API errors: one exception type, one JSON shape (`{"error": {"code", "message"}}`)."""

from __future__ import annotations

import json

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response

# A request body is small (64 KB at most), but its shape must be too: the JSON parser and
# everything that walks the result recurse once per level.
MAX_JSON_DEPTH = 32
MAX_JSON_KEYS = 1000


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str, headers: dict | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers or {}


def json_object(body: bytes) -> dict:
    """A request body that must be a JSON object of bounded depth and key count, or a 400."""
    try:
        data = json.loads(body)
    except RecursionError as exc:
        raise ApiError(400, "too_deep", f"JSON nested deeper than {MAX_JSON_DEPTH} levels") from exc
    except ValueError as exc:
        raise ApiError(400, "invalid_json", f"body is not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise ApiError(400, "invalid_json", "body must be a JSON object")
    _check_shape(data)
    return data


def _check_shape(data: object) -> None:
    """Depth and total key count, walked without recursion."""
    keys = 0
    stack: list[tuple[object, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            raise ApiError(400, "too_deep", f"JSON nested deeper than {MAX_JSON_DEPTH} levels")
        if isinstance(value, dict):
            keys += len(value)
            if keys > MAX_JSON_KEYS:
                raise ApiError(400, "too_many_keys", f"JSON holds more than {MAX_JSON_KEYS:,} keys")
            stack.extend((item, depth + 1) for item in value.values())
        elif isinstance(value, list):
            stack.extend((item, depth + 1) for item in value)


def error_response(status: int, code: str, message: str, headers: dict | None = None) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status, headers=headers)


async def api_error_handler(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ApiError)
    return error_response(exc.status, exc.code, exc.message, exc.headers)


HTTP_CODES = {404: "not_found", 405: "method_not_allowed", 408: "timeout", 413: "too_large"}


async def http_error_handler(request: Request, exc: Exception) -> Response:
    """Routing errors (unknown path, wrong method): JSON under /api/, Starlette's plain text elsewhere."""
    assert isinstance(exc, HTTPException)
    path = request.url.path
    if path == "/api" or path.startswith("/api/"):
        code = HTTP_CODES.get(exc.status_code, "http_error")
        message = {
            404: f"no such API endpoint: {path}",
            405: f"{request.method} is not allowed on {path}",
        }.get(exc.status_code, str(exc.detail))
        return error_response(exc.status_code, code, message, exc.headers)
    if exc.status_code in (204, 304):
        return Response(status_code=exc.status_code, headers=exc.headers)
    return PlainTextResponse(str(exc.detail), status_code=exc.status_code, headers=exc.headers)
