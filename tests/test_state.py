"""Shared state against a real redis-server: shared, scoped, and degrading visibly when Redis goes away."""

from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace

import pytest
from askdocs.edge_runtime.state import (
    EventStream,
    LocalAnswerCache,
    RedisAnswerCache,
    RedisLink,
    RedisTokenBudget,
    SharedState,
    answer_key,
    read_stream,
)

from tests.procs import RedisServer


@pytest.fixture
def redis_server(tmp_path):
    server = RedisServer(tmp_path / "redis")
    yield server
    server.stop()


def run(coro):
    return asyncio.run(coro)


def test_answer_key_separates_scopes_releases_and_synthesisers():
    base = answer_key("v1", [], "How do I  install?", "en", "extractive")
    assert base == answer_key("v1", (), "how do i install?", "en", "extractive")  # normalised question
    assert base != answer_key("v1", ["staff"], "how do i install?", "en", "extractive")
    assert base != answer_key("v2", [], "how do i install?", "en", "extractive")
    assert base != answer_key("v1", [], "how do i install?", "es", "extractive")
    assert base != answer_key("v1", [], "how do i install?", "en", "llm")
    assert answer_key("v1", ["b", "a"], "q", "en", "x") == answer_key("v1", ["a", "b"], "q", "en", "x")


def test_local_cache_bounds_entries_bytes_and_age():
    async def scenario():
        cache = LocalAnswerCache(entries=2, max_bytes=10_000, ttl=0.2)
        for n in range(3):
            await cache.put(f"k{n}", {"text": "x" * 10, "n": n})
        assert await cache.get("k0") is None and (await cache.get("k2"))["n"] == 2
        small = LocalAnswerCache(entries=100, max_bytes=200, ttl=60)
        for n in range(10):
            await small.put(f"k{n}", {"text": "y" * 50})
        assert small.bytes <= 200 and len(small) < 10
        await cache.put("old", {"a": 1})
        time.sleep(0.25)
        assert await cache.get("old") is None

    run(scenario())


def test_two_replicas_share_the_answer_cache_but_not_across_scopes(redis_server):
    async def scenario():
        one, two = RedisLink(redis_server.url), RedisLink(redis_server.url)
        a, b = RedisAnswerCache(one, 1 << 20, 60), RedisAnswerCache(two, 1 << 20, 60)
        staff = answer_key("v1", ["staff"], "where is the vpn", "en", "extractive")
        public = answer_key("v1", [], "where is the vpn", "en", "extractive")
        await a.put(staff, {"text": "BLUE HERON", "confidence": 0.9})
        assert await b.get(staff) == {"text": "BLUE HERON", "confidence": 0.9}
        assert await b.get(public) is None
        assert redis_server.client().ttl(f"askdocs:answer:{staff}") > 50
        await one.aclose()
        await two.aclose()

    run(scenario())


def test_the_shared_cache_keeps_to_its_byte_budget(redis_server):
    async def scenario():
        link = RedisLink(redis_server.url)
        cache = RedisAnswerCache(link, max_bytes=1000, ttl=60)
        for n in range(10):
            await cache.put(f"k{n}", {"text": "z" * 150})
        stored = [n for n in range(10) if await cache.get(f"k{n}") is not None]
        assert stored == [0, 1, 2] and cache.over_budget == 7  # 500 bytes per window: three answers of ~165
        await link.aclose()

    run(scenario())


def test_a_store_and_the_answer_log_share_one_round_trip(redis_server):
    """With the replica's writer, an answer's cache store rides in the pipeline that writes its
    log record: one round trip for both, and `put` returns once the answer is readable elsewhere."""

    async def scenario():
        one, two = RedisLink(redis_server.url), RedisLink(redis_server.url)
        events = EventStream(one, maxlen=1000)
        writer = asyncio.create_task(events.run())
        await asyncio.sleep(0)  # the writer is running, as under the app's lifespan
        a = RedisAnswerCache(one, 1000, 60, writer=events)
        b = RedisAnswerCache(two, 1000, 60)
        trips = one.round_trips
        events.add('{"type": "answer", "n": 1}', "a_1")
        await a.put("k1", {"text": "BLUE HERON"})
        assert one.round_trips - trips == 1 and "writer" in one.wait_seconds
        assert await b.get("k1") == {"text": "BLUE HERON"} and events.written == 1
        await a.put("k2", {"text": "z" * 600})  # over the budget's 500 bytes per window
        assert a.over_budget == 1 and await b.get("k2") is None
        redis_server.stop()
        await a.put("k3", {"text": "x"})  # Redis away: skipped and counted, never an error
        await a.put("k4", {"text": "x"})  # the breaker: skipped without waiting
        assert a.skipped == 2 and not events.stores
        writer.cancel()
        await one.aclose()
        await two.aclose()

    run(scenario())


def test_a_shared_rate_limit_decision_is_one_round_trip(redis_server):
    """Two replicas share one moving window; a refusal carries its Retry-After in the same call."""
    from askdocs.edge_runtime.ratelimit import RateLimiter

    async def scenario():
        one, two = RedisLink(redis_server.url), RedisLink(redis_server.url)
        a, b = RateLimiter("3/minute", one), RateLimiter("3/minute", two)
        reader = SimpleNamespace(client=SimpleNamespace(host="10.0.0.7"))
        other = SimpleNamespace(client=SimpleNamespace(host="10.0.0.8"))
        trips = one.round_trips + two.round_trips
        decisions = [await limiter.hit(reader) for limiter in (a, b, a, b, a)]
        assert one.round_trips + two.round_trips - trips == 5  # one per decision, refusals included
        assert [d.allowed for d in decisions] == [True, True, True, False, False]
        assert {d.backend for d in decisions} == {"redis"}
        assert all(55 <= d.retry_after <= 60 for d in decisions[3:])
        assert (await b.hit(other)).allowed  # per client
        assert redis_server.client().ttl("askdocs:ratelimit:LIMITER/10.0.0.7/3/1/minute") > 50
        await one.aclose()
        await two.aclose()

    run(scenario())


def test_the_token_budget_is_one_budget_for_all_replicas(redis_server):
    async def scenario():
        one, two = RedisLink(redis_server.url), RedisLink(redis_server.url)
        a, b = RedisTokenBudget(one, 100), RedisTokenBudget(two, 100)
        await a.spend(60)
        assert await b.allows()
        await b.spend(50)
        assert not await a.allows() and a.spent == 110
        await one.aclose()
        await two.aclose()

    run(scenario())


def test_redis_down_degrades_fast_and_visibly_then_recovers(redis_server):
    async def scenario():
        link = RedisLink(redis_server.url, timeout=0.25)
        cache = RedisAnswerCache(link, 1 << 20, 60)
        budget = RedisTokenBudget(link, 100)
        events = EventStream(link, maxlen=1000, buffer=5)
        await budget.spend(10)
        redis_server.stop()
        started = time.perf_counter()
        assert await cache.get("k") is None  # the cache is skipped, not an error
        for _ in range(50):
            assert await cache.get("k") is None
        assert time.perf_counter() - started < 1.5  # the breaker: one timeout, not fifty
        assert cache.skipped == 51 and not link.ok and link.errors["answer_cache"] >= 1
        await budget.spend(20)  # counted here while away
        assert budget.spent == 30 and budget.unsynced == 20
        for n in range(8):
            events.add(f'{{"n": {n}}}')
        assert not await events.drain()
        assert len(events.pending) == 5 and events.dropped == 3  # bounded, and the loss is counted
        redis_server.start()
        deadline = time.time() + 10
        while time.time() < deadline and not await events.drain():
            await asyncio.sleep(0.2)
        assert link.ok and events.written == 5 and not events.pending
        assert [r["n"] for r in read_stream(redis_server.url)] == [3, 4, 5, 6, 7]
        await budget.spend(0)
        assert budget.spent == 20 and budget.unsynced == 0  # the away spending reached Redis
        await link.aclose()

    run(scenario())


def test_without_redis_everything_stays_in_process():
    settings = SimpleNamespace(
        redis_url=None, redis_timeout=0.25, answer_cache=4, answer_cache_bytes=1000, answer_cache_ttl=60
    )
    shared = SharedState(settings)
    assert shared.backend == "local" and shared.events is None and shared.link is None
    assert isinstance(shared.answers, LocalAnswerCache)
    assert shared.health() == {"backend": "local"}
