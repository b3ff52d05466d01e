"""Per-client rate limiting with `limits`, keyed on the client address (not on client claims)."""

from __future__ import annotations

import time

from limits import parse
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter
from starlette.requests import Request


class RateLimiter:
    def __init__(self, rate: str, client_ip_header: str | None = None) -> None:
        self.item = parse(rate)
        self.limiter = MovingWindowRateLimiter(MemoryStorage())
        self.header = client_ip_header.lower() if client_ip_header else None

    def client_key(self, request: Request) -> str:
        if self.header:
            value = request.headers.get(self.header, "")
            # X-Forwarded-For: the left-most entry is the original client.
            first = value.split(",")[0].strip()
            if first:
                return first
        return request.client.host if request.client else "unknown"

    def hit(self, request: Request) -> tuple[bool, int]:
        """(allowed, seconds until a slot frees up)."""
        key = self.client_key(request)
        if self.limiter.hit(self.item, key):
            return True, 0
        reset, _ = self.limiter.get_window_stats(self.item, key)
        return False, max(1, int(reset - time.time()))
