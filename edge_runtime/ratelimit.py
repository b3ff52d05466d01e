"""Per-client rate limiting with `limits`, keyed on the client address (not on client claims).

Counters live in this process, or in Redis (shared by every replica) when a
`RedisLink` is given. When Redis cannot be asked, `fail="open"` (the default)
lets the request through under this replica's own counters, so a client keeps
a limit (N per replica instead of N in total) and readers keep getting answers;
`fail="closed"` refuses the request (503) instead, for deployments where the
limit guards a paid LLM bill.

The address is `request.client`, which `ClientAddressMiddleware` has already resolved
(forwarding headers count only from trusted proxies; see clientaddr.py).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from askdocs.edge_runtime.state import PREFIX, RedisLink, Unavailable
from limits import parse
from limits.aio.storage import MemoryStorage, RedisStorage
from limits.aio.strategies import MovingWindowRateLimiter
from starlette.requests import Request


@dataclass(frozen=True)
class Decision:
    allowed: bool
    retry_after: int
    backend: str  # "redis" | "local" (this replica's counters) | "closed" (redis away, fail closed)


class RateLimiter:
    def __init__(
        self,
        rate: str,
        link: RedisLink | None = None,
        fail: str = "open",
    ) -> None:
        self.item = parse(rate)
        self.local = MovingWindowRateLimiter(MemoryStorage())
        self.link = link
        self.shared = None
        if link is not None:
            storage = RedisStorage(
                "async+" + link.url,
                implementation="redispy",
                key_prefix=PREFIX + "ratelimit",
                connection_pool=link.client.connection_pool,
            )
            self.shared = MovingWindowRateLimiter(storage)
        self.fail = fail
        self.degraded = 0  # decisions taken without redis

    @staticmethod
    def client_key(request: Request) -> str:
        return request.client.host if request.client else "unknown"

    async def hit(self, request: Request) -> Decision:
        key = self.client_key(request)
        if self.shared is not None and self.link is not None:
            shared = self.shared
            try:
                allowed, retry = await self.link.run("rate_limit", lambda _: self._hit(shared, key))
                return Decision(allowed, retry, "redis")
            except Unavailable:
                self.degraded += 1
                if self.fail == "closed":
                    return Decision(False, 1, "closed")
        allowed, retry = await self._hit(self.local, key)
        return Decision(allowed, retry, "local")

    async def _hit(self, limiter: MovingWindowRateLimiter, key: str) -> tuple[bool, int]:
        """(allowed, seconds until a slot frees up)."""
        if await limiter.hit(self.item, key):
            return True, 0
        stats = await limiter.get_window_stats(self.item, key)
        return False, max(1, int(stats.reset_time - time.time()))
