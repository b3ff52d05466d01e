"""Cross-request state: one small interface per kind, kept in-process or in Redis.

Without `ASKDOCS_REDIS_URL` every replica keeps its own rate-limit counters,
answer cache, token budget and event log (the v1 behaviour). With it, all of
them live in Redis, so N replicas behave as one: one rate limit per client,
one answer cache, one daily token budget, one answer log (a bounded Redis
Stream that `askdocs report --redis URL` reads).

Redis down or slow never takes answers down. Every call has a short timeout;
after a failure a breaker skips Redis for a back-off period (so an outage
costs one timeout, not one per request) and each store degrades in its own
visible way: the rate limit falls back to this replica's counters (or denies,
if configured closed), the cache is skipped, the budget counts locally, and
events wait in a bounded local buffer whose overflow is counted. /healthz and
/metrics show which path is live.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any, Protocol, TypeVar

log = logging.getLogger("askdocs.state")

T = TypeVar("T")
PREFIX = "askdocs:"
EVENT_STREAM = PREFIX + "events"
EVENT_BUFFER = 10_000  # events kept locally while Redis is unreachable
STORE_QUEUE = 1_000  # answer-cache stores waiting for the writer; past it a store is skipped (counted)
BACKOFF_SECONDS = (0.5, 1.0, 2.0, 5.0)


class Unavailable(Exception):
    """Redis could not be asked (down, slow, or skipped by the breaker)."""


class RedisLink:
    """One asyncio Redis client with short timeouts, a breaker and counters."""

    def __init__(self, url: str, timeout: float = 0.25) -> None:
        import redis.asyncio as aioredis

        self.url = url
        self.timeout = timeout
        self.client = aioredis.Redis.from_url(
            url,
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            retry_on_timeout=False,
            health_check_interval=30,
            max_connections=256,
        )
        self.ok = True
        self.errors: dict[str, int] = {}
        self.round_trips = 0
        self.wait_seconds: dict[str, float] = {}  # time spent waiting on Redis, by store
        self.last_error: str | None = None
        self.down_since: float | None = None
        self._strikes = 0
        self._retry_at = 0.0

    def skipping(self) -> bool:
        return not self.ok and time.monotonic() < self._retry_at

    async def run(self, store: str, call: Callable[[Any], Awaitable[T]]) -> T:
        """One round trip on behalf of `store`; raises Unavailable instead of waiting on a bad Redis."""
        if self.skipping():
            raise Unavailable(self.last_error or "redis unavailable")
        started = time.perf_counter()
        try:
            self.round_trips += 1
            async with asyncio.timeout(self.timeout * 2):  # no extra task per call (as wait_for makes)
                result = await call(self.client)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # redis errors, OSError, timeouts: all mean "not now"
            self.fail(store, exc)
            raise Unavailable(str(exc)) from exc
        finally:
            self.wait_seconds[store] = self.wait_seconds.get(store, 0.0) + time.perf_counter() - started
        self.succeed()
        return result

    def fail(self, store: str, exc: BaseException) -> None:
        self.errors[store] = self.errors.get(store, 0) + 1
        self.last_error = f"{store}: {type(exc).__name__}: {exc}"[:300]
        if self.ok:
            log.error("redis unreachable (%s); degrading: %s", store, self.last_error)
            self.down_since = time.time()
        self.ok = False
        self._retry_at = time.monotonic() + BACKOFF_SECONDS[min(self._strikes, len(BACKOFF_SECONDS) - 1)]
        self._strikes += 1

    def succeed(self) -> None:
        if not self.ok:
            log.warning("redis reachable again after %.1fs", time.time() - (self.down_since or time.time()))
        self.ok, self._strikes, self.down_since = True, 0, None

    def health(self) -> dict:
        return {
            "ok": self.ok,
            "down_since": self.down_since,
            "errors": dict(self.errors),
            "last_error": self.last_error,
            "round_trips": self.round_trips,
        }

    async def aclose(self) -> None:
        await self.client.aclose()


# -- answer cache ---------------------------------------------------------------


class AnswerCache(Protocol):
    name: str
    hits: int
    misses: int
    skipped: int

    async def get(self, key: str) -> dict | None: ...

    async def put(self, key: str, value: dict) -> None: ...


def answer_key(
    release: str, groups: list[str] | tuple[str, ...] | set[str], question: str, locale: str, synthesizer: str
) -> str:
    """Release + reader scope + normalised question + locale + synthesiser: a reader
    never gets an answer built from pages another scope could see."""
    parts = [release, ",".join(sorted(groups)), " ".join(question.lower().split()), locale, synthesizer]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:32]


def dumps(value: dict) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=_plain).encode()


def _plain(value: Any) -> Any:
    item = getattr(value, "item", None)  # numpy scalars
    if callable(item):
        return item()
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


class LocalAnswerCache:
    """In-process LRU bounded by entries, bytes and age."""

    def __init__(self, entries: int, max_bytes: int, ttl: float, name: str = "answer") -> None:
        self.name = name
        self.entries, self.max_bytes, self.ttl = max(1, entries), max_bytes, ttl
        self.hits = self.misses = self.skipped = 0
        self.bytes = 0
        self._data: OrderedDict[str, tuple[float, bytes]] = OrderedDict()
        self._lock = threading.Lock()

    async def get(self, key: str) -> dict | None:
        with self._lock:
            found = self._data.get(key)
            if found is None or found[0] < time.monotonic():
                if found is not None:
                    self._drop(key)
                self.misses += 1
                return None
            self._data.move_to_end(key)
            self.hits += 1
            raw = found[1]
        return json.loads(raw)

    async def put(self, key: str, value: dict) -> None:
        raw = dumps(value)
        if len(raw) > self.max_bytes:
            return
        with self._lock:
            if key in self._data:
                self._drop(key)
            self._data[key] = (time.monotonic() + self.ttl, raw)
            self.bytes += len(raw)
            while len(self._data) > self.entries or self.bytes > self.max_bytes:
                self._drop(next(iter(self._data)))

    def _drop(self, key: str) -> None:
        _, raw = self._data.pop(key)
        self.bytes -= len(raw)

    def __len__(self) -> int:
        return len(self._data)


class RedisAnswerCache:
    """Answers shared by all replicas: one key per answer with a TTL. The byte budget
    is enforced per TTL window (at most `max_bytes / 2` written per window, so what
    is alive at any moment stays under `max_bytes`); over it, answers go uncached.

    A lookup is one GET. With a `writer` (the replica's `EventStream`), a store rides in
    the writer's next pipeline with the answer's log record (one round trip for both,
    fewer under load); `put` returns once it is written or skipped."""

    def __init__(
        self,
        link: RedisLink,
        max_bytes: int,
        ttl: float,
        name: str = "answer",
        writer: EventStream | None = None,
    ) -> None:
        self.link, self.max_bytes, self.ttl, self.name = link, max_bytes, max(1, int(ttl)), name
        self.writer = writer
        self.hits = self.misses = self.skipped = self.over_budget = 0
        self._put = link.client.register_script(_PUT_SCRIPT)

    async def get(self, key: str) -> dict | None:
        try:
            raw = await self.link.run("answer_cache", lambda r: r.get(self.redis_key(key)))
        except Unavailable:
            return self.skip()
        return self.take(raw)

    @staticmethod
    def redis_key(key: str) -> str:
        return PREFIX + "answer:" + key

    def take(self, raw: bytes | None) -> dict | None:
        """A lookup's reply (read here, or in another store's round trip), counted."""
        if raw is None:
            self.misses += 1
            return None
        self.hits += 1
        return json.loads(raw)

    def skip(self) -> None:
        """A lookup that Redis could not answer, counted."""
        self.skipped += 1

    async def put(self, key: str, value: dict) -> None:
        raw = dumps(value)
        window = PREFIX + f"answer-bytes:{int(time.time() // self.ttl)}"
        keys = [window, PREFIX + "answer:" + key]
        args = [len(raw), self.ttl, self.max_bytes // 2, raw]
        if self.writer is not None:
            stored = await self.writer.store(keys, args)
        else:
            try:
                stored = await self.link.run("answer_cache", lambda r: self._put(keys=keys, args=args))
            except Unavailable:
                stored = None
        if stored is None:
            self.skipped += 1
        elif not stored:
            self.over_budget += 1


# One round trip: count the bytes written in this TTL window, store unless over budget.
_PUT_SCRIPT = """
local written = redis.call('INCRBY', KEYS[1], ARGV[1])
if written == tonumber(ARGV[1]) then redis.call('EXPIRE', KEYS[1], 2 * tonumber(ARGV[2])) end
if written > tonumber(ARGV[3]) then return 0 end
redis.call('SET', KEYS[2], ARGV[4], 'EX', ARGV[2])
return 1
"""


# -- daily LLM token budget -----------------------------------------------------


def _today() -> str:
    return datetime.now(UTC).date().isoformat()


class LocalTokenBudget:
    """Tokens per UTC day, counted in this process."""

    backend = "local"

    def __init__(self, daily: int | None) -> None:
        self.daily = daily
        self.day = ""
        self.spent = 0

    def _roll(self) -> None:
        today = _today()
        if today != self.day:
            self.day, self.spent = today, 0

    async def allows(self) -> bool:
        self._roll()
        return self.daily is None or self.spent < self.daily

    async def spend(self, tokens: int) -> None:
        self._roll()
        self.spent += max(0, tokens)


class RedisTokenBudget:
    """One budget for all replicas (a counter per UTC day). While Redis is away this
    replica keeps counting from the last shared total it saw and adds its spending
    when Redis returns, so an outage can overspend by at most the other replicas' use."""

    backend = "redis"

    def __init__(self, link: RedisLink, daily: int | None) -> None:
        self.link, self.daily = link, daily
        self.day = _today()
        self.spent = 0  # the shared total, as last seen
        self.unsynced = 0  # spent here while Redis was away

    def _key(self) -> str:
        return PREFIX + "tokens:" + self.day

    def _roll(self) -> None:
        today = _today()
        if today != self.day:
            self.day, self.spent, self.unsynced = today, 0, 0

    async def allows(self) -> bool:
        self._roll()
        if self.daily is None:
            return True
        with contextlib.suppress(Unavailable):
            await self._sync(0)
        return self.spent < self.daily

    async def spend(self, tokens: int) -> None:
        self._roll()
        tokens = max(0, tokens)
        try:
            await self._sync(tokens)
        except Unavailable:
            self.unsynced += tokens
            self.spent += tokens

    async def _sync(self, tokens: int) -> None:
        add = tokens + self.unsynced
        key = self._key()

        async def call(r) -> int:
            if add == 0:
                return int(await r.get(key) or 0)
            async with r.pipeline(transaction=False) as pipe:
                pipe.incrby(key, add)
                pipe.expire(key, 2 * 86400)
                total, _ = await pipe.execute()
            return int(total)

        self.spent = await self.link.run("token_budget", call)
        self.unsynced = 0


# -- event log ------------------------------------------------------------------


class EventStream:
    """Answer and feedback records appended to a Redis Stream (trimmed to `maxlen`), and the
    replica's one background writer.

    `add` never waits on Redis: records queue in a bounded local buffer that a
    background task drains in pipelined batches. When the buffer is full the
    oldest record is dropped and counted: the loss shows in /healthz and /metrics.
    Answer-cache stores (`store`) ride in the same pipelines, so an answer's store
    and its log record cost one round trip together, off the reader's clock.
    """

    def __init__(
        self, link: RedisLink, maxlen: int = 100_000, buffer: int = EVENT_BUFFER, answer_ttl: int = 7 * 86400
    ) -> None:
        self.link, self.maxlen, self.buffer, self.answer_ttl = link, maxlen, buffer, answer_ttl
        self.pending: deque[tuple[str, str | None]] = deque()
        self.stores: list[tuple[list[str], list, asyncio.Future]] = []  # answer-cache stores waiting
        self.written = self.dropped = 0
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None

    def add(self, line: str, answer_id: str | None = None) -> None:
        with self._lock:
            if len(self.pending) >= self.buffer:
                self.pending.popleft()
                self.dropped += 1
                if self.dropped in (1, 10, 100) or self.dropped % 1000 == 0:
                    log.error("event buffer full while redis is away: %d events lost so far", self.dropped)
            self.pending.append((line, answer_id))
        if self._loop is not None and self._wake is not None:
            self._loop.call_soon_threadsafe(self._wake.set)

    async def run(self) -> None:
        """The background writer (one task per process, started by the app's lifespan)."""
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=1.0)
            self._wake.clear()
            await self.drain()

    async def store(self, keys: list[str], args: list) -> bool | None:
        """An answer-cache store (`_PUT_SCRIPT`) in the writer's next pipeline: True if
        stored, False if over the byte budget, None if skipped (Redis away, queue full)."""
        if self.link.skipping() or len(self.stores) >= STORE_QUEUE:
            return None
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self.stores.append((keys, args, future))
        if self._loop is loop and self._wake is not None:
            self._wake.set()
        else:  # no background writer in this loop (a caller of its own): write now
            await self.drain()
        try:
            async with asyncio.timeout(self.link.timeout * 4):
                return await asyncio.shield(future)
        except TimeoutError:
            return None

    async def drain(self) -> bool:
        """Write what is buffered; False if Redis refused (records stay buffered, stores are skipped)."""
        while self.pending or self.stores:
            with self._lock:
                batch = [self.pending[i] for i in range(min(200, len(self.pending)))]
            stores, self.stores = self.stores[:200], self.stores[200:]

            async def write(r, batch=batch, stores=stores) -> list:
                async with r.pipeline(transaction=False) as pipe:
                    for keys, args, _ in stores:  # EVAL: a script object would add a SCRIPT EXISTS trip
                        pipe.eval(_PUT_SCRIPT, len(keys), *keys, *args)
                    for line, answer_id in batch:
                        pipe.xadd(EVENT_STREAM, {"record": line}, maxlen=self.maxlen, approximate=True)
                        if answer_id:
                            pipe.set(PREFIX + "aid:" + answer_id, 1, ex=self.answer_ttl)
                    return await pipe.execute()

            try:
                results = await self.link.run("writer", write)
            except Unavailable:
                _settle(stores, None)
                return False
            _settle(stores, results)
            with self._lock:
                for _ in batch:
                    if self.pending:
                        self.pending.popleft()
                self.written += len(batch)
        return True

    async def knows(self, answer_id: str) -> bool:
        if any(aid == answer_id for _, aid in list(self.pending)):
            return True
        try:
            return bool(await self.link.run("events", lambda r: r.exists(PREFIX + "aid:" + answer_id)))
        except Unavailable:
            return False

    def health(self) -> dict:
        return {
            "backend": "redis-stream",
            "written": self.written,
            "buffered": len(self.pending),
            "buffer_limit": self.buffer,
            "dropped": self.dropped,
        }


def _settle(stores: list[tuple[list[str], list, asyncio.Future]], results: list | None) -> None:
    for n, (_, _, future) in enumerate(stores):
        if not future.done():
            future.set_result(None if results is None else bool(results[n]))


def read_stream(url: str, *, batch: int = 1000, timeout: float = 5.0) -> list[dict]:
    """Every record in the event stream, oldest first (for `askdocs report --redis`)."""
    import redis

    client = redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)
    records: list[dict] = []
    start = "-"
    try:
        while True:
            entries = client.xrange(EVENT_STREAM, min=start, count=batch)
            for entry_id, fields in entries:
                raw = fields.get(b"record")
                if raw is not None:
                    records.append(json.loads(raw))
                start = "(" + entry_id.decode()
            if len(entries) < batch:
                return records
    finally:
        client.close()


class SharedState:
    """The runtime's cross-request stores, built once from settings."""

    def __init__(self, settings) -> None:
        self.link = RedisLink(settings.redis_url, settings.redis_timeout) if settings.redis_url else None
        if self.link is not None:
            self.events: EventStream | None = EventStream(self.link, settings.event_stream_maxlen)
            self.answers: AnswerCache = RedisAnswerCache(
                self.link, settings.answer_cache_bytes, settings.answer_cache_ttl, writer=self.events
            )
        else:
            self.answers = LocalAnswerCache(
                settings.answer_cache, settings.answer_cache_bytes, settings.answer_cache_ttl
            )
            self.events = None

    @property
    def backend(self) -> str:
        return "redis" if self.link is not None else "local"

    async def connect(self) -> None:
        """Open a connection before the first reader needs one (a Redis that is down here is
        reported like any other outage; the replica starts all the same)."""
        if self.link is not None:
            with contextlib.suppress(Unavailable):
                await self.link.run("connect", lambda r: r.ping())

    def token_budget(self, daily: int | None) -> LocalTokenBudget | RedisTokenBudget:
        return RedisTokenBudget(self.link, daily) if self.link is not None else LocalTokenBudget(daily)

    def health(self) -> dict:
        out: dict = {"backend": self.backend}
        if self.link is not None:
            out["redis"] = self.link.health()
            out["answer_cache"] = {
                "hits": self.answers.hits,
                "misses": self.answers.misses,
                "skipped": self.answers.skipped,
            }
        if self.events is not None:
            out["events"] = self.events.health()
        return out

    async def aclose(self, drain_seconds: float = 2.0) -> None:
        if self.events is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.events.drain(), drain_seconds)
            if self.events.pending:
                log.error("%d events still buffered at shutdown were lost", len(self.events.pending))
        if self.link is not None:
            await self.link.aclose()
