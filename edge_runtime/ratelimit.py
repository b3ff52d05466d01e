"""Per-client rate limiting with `limits`, keyed on the client address (not on client claims).

Counters live in this process, or in Redis (shared by every replica) when a
`RedisLink` is given. When Redis cannot be asked, `fail="open"` (the default)
lets the request through under this replica's own counters, so a client keeps
a limit (N per replica instead of N in total) and readers keep getting answers;
`fail="closed"` refuses the request (503) instead, for deployments where the
limit guards a paid LLM bill.

With Redis, one decision is one round trip: a Lua script does the moving window
(the algorithm and keys of `limits`' Redis storage) and, when it refuses, also
says when a slot frees up (no second call for `Retry-After`).

The address is `request.client`, which `ClientAddressMiddleware` has already resolved
(forwarding headers count only from trusted proxies; see clientaddr.py).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from askdocs.edge_runtime.state import PREFIX, RedisLink, Unavailable
from limits import parse
from limits.aio.storage import MemoryStorage
from limits.aio.strategies import MovingWindowRateLimiter
from starlette.requests import Request


@dataclass(frozen=True)
class Decision:
    allowed: bool
    retry_after: int
    backend: str  # "redis" | "local" (this replica's counters) | "closed" (redis away, fail closed)
    fetched: bool = False  # the key asked for with `fetch` was read in the same round trip
    value: bytes | None = None  # ... and this is what it held


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
        self._script = link.client.register_script(_MOVING_WINDOW) if link is not None else None
        self.fail = fail
        self.degraded = 0  # decisions taken without redis

    @staticmethod
    def client_key(request: Request) -> str:
        return request.client.host if request.client else "unknown"

    async def hit(self, request: Request, fetch: str | None = None) -> Decision:
        """Count this request. `fetch`: a Redis key to read in the same round trip (the chat
        route's answer-cache lookup); `fetched` is False when Redis could not be asked."""
        key = self.client_key(request)
        if self._script is not None and self.link is not None:
            try:
                allowed, retry, value = await self._shared_hit(self.link, self._script, key, fetch)
                return Decision(allowed, retry, "redis", fetch is not None, value)
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

    async def _shared_hit(
        self, link: RedisLink, script, key: str, fetch: str | None
    ) -> tuple[bool, int, bytes | None]:
        """One round trip: take a slot, or learn when the oldest entry in the window expires;
        and read `fetch` alongside, if given."""
        now, expiry = time.time(), self.item.get_expiry()
        keys = [f"{PREFIX}ratelimit:{self.item.key_for(key)}"]  # the key `limits` would use
        args = [now, self.item.amount, expiry]
        value = None
        if fetch is None:
            refused = await link.run("rate_limit", lambda _: script(keys=keys, args=args))
        else:

            async def both(r) -> list:
                async with r.pipeline(transaction=False) as pipe:
                    pipe.eval(_MOVING_WINDOW, 1, *keys, *args)  # EVAL: no SCRIPT EXISTS trip first
                    pipe.get(fetch)
                    return await pipe.execute()

            refused, value = await link.run("rate_limit", both)
        if refused is None:
            return True, 0, value
        return False, max(1, int(float(refused) + expiry - now)), value


# A moving window as `limits` keeps it in Redis: a list of hit times, newest first, at most
# `limit` long. Refused (the `limit`-th newest hit is still inside the window): that hit's
# time, which says when a slot frees up. Allowed: nil, and this hit is recorded.
_MOVING_WINDOW = """
local now, limit, expiry = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local entry = redis.call('LINDEX', KEYS[1], limit - 1)
if entry and tonumber(entry) >= now - expiry then
    return entry
end
redis.call('LPUSH', KEYS[1], ARGV[1])
redis.call('LTRIM', KEYS[1], 0, limit - 1)
redis.call('EXPIRE', KEYS[1], expiry)
return false
"""
