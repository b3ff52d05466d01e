"""Reader identity from `Authorization: Bearer <HS256 JWT>`; no token means public only."""

from __future__ import annotations

import jwt
from askdocs.edge_runtime.errors import ApiError
from askdocs.edge_runtime.scope import Reader

MAX_TOKEN_BYTES = 8192


def reader_from_header(header: str | None, secret: str | None) -> Reader:
    if not header:
        return Reader.public()
    scheme, _, token = header.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        raise ApiError(401, "bad_token", "Authorization must be `Bearer <token>`")
    if len(token) > MAX_TOKEN_BYTES:
        raise ApiError(401, "bad_token", "token too large")
    if not secret:
        raise ApiError(
            401, "bad_token", "this server does not accept reader tokens (ASKDOCS_JWT_SECRET is not set)"
        )
    try:
        claims = jwt.decode(
            token, secret, algorithms=["HS256"], options={"require": ["exp"], "verify_aud": False}
        )
    except jwt.ExpiredSignatureError as exc:
        raise ApiError(401, "token_expired", "the reader token has expired") from exc
    except jwt.InvalidTokenError as exc:
        raise ApiError(401, "bad_token", f"invalid reader token: {exc}") from exc
    groups = claims.get("groups", [])
    if isinstance(groups, str):
        groups = [g.strip() for g in groups.split(",")]
    if not isinstance(groups, list) or not all(isinstance(g, str) for g in groups):
        raise ApiError(401, "bad_token", "the `groups` claim must be a list of strings")
    subject = claims.get("sub")
    return Reader(
        str(subject) if subject is not None else None, frozenset(g.strip() for g in groups if g.strip())
    )
