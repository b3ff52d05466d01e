"""Prometheus metrics, one registry per app (no module-level state)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from askdocs.edge_runtime.lru import LRU
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector


class _CacheCollector(Collector):
    def __init__(self, caches: Callable[[], Iterable[LRU]]) -> None:
        self.caches = caches

    def collect(self):
        hits = CounterMetricFamily("askdocs_cache_hits", "Cache hits", labels=["cache"])
        misses = CounterMetricFamily("askdocs_cache_misses", "Cache misses", labels=["cache"])
        for cache in self.caches():
            hits.add_metric([cache.name], cache.hits)
            misses.add_metric([cache.name], cache.misses)
        yield hits
        yield misses


class _StateCollector(Collector):
    """Shared-state health (Redis reachability, degraded decisions, buffered and lost events)."""

    def __init__(self, figures: Callable[[], dict]) -> None:
        self.figures = figures

    def collect(self):
        f = self.figures()
        if f["redis_up"] is not None:
            yield _gauge("askdocs_redis_up", "1 when the last Redis call succeeded", f["redis_up"])
            errors = CounterMetricFamily("askdocs_redis_errors", "Failed Redis calls", labels=["store"])
            for store, count in sorted(f["redis_errors"].items()):
                errors.add_metric([store], count)
            yield errors
            yield CounterMetricFamily(
                "askdocs_redis_round_trips", "Redis round trips", value=f["redis_round_trips"]
            )
            waits = CounterMetricFamily(
                "askdocs_redis_wait_seconds", "Time spent waiting on Redis round trips", labels=["store"]
            )
            for store, seconds in sorted(f["redis_wait_seconds"].items()):
                waits.add_metric([store], seconds)
            yield waits
            yield _gauge("askdocs_events_buffered", "Events waiting for Redis", f["events_buffered"])
            yield CounterMetricFamily(
                "askdocs_events_dropped",
                "Events lost (buffer full while Redis was away)",
                value=f["events_dropped"],
            )
            yield CounterMetricFamily(
                "askdocs_events_written", "Events written to the Redis stream", value=f["events_written"]
            )
        yield CounterMetricFamily(
            "askdocs_rate_limit_degraded",
            "Rate-limit decisions taken without Redis (local counters or fail closed)",
            value=f["rate_limit_degraded"],
        )
        yield CounterMetricFamily(
            "askdocs_answer_cache_skipped",
            "Answer cache lookups skipped (Redis away)",
            value=f["answer_cache_skipped"],
        )


def _gauge(name: str, doc: str, value: float) -> GaugeMetricFamily:
    return GaugeMetricFamily(name, doc, value=value)


class Metrics:
    def __init__(self, caches: Callable[[], Iterable[LRU]], state: Callable[[], dict] | None = None) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.requests = Counter("askdocs_requests", "HTTP requests", ["endpoint", "status"], registry=r)
        self.latency = Histogram(
            "askdocs_request_seconds",
            "Request latency (to the last byte)",
            ["endpoint"],
            buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60),
            registry=r,
        )
        self.retrievers = Counter(
            "askdocs_retriever_runs", "Retriever runs by outcome", ["retriever", "outcome"], registry=r
        )
        self.answers = Counter("askdocs_answers", "Chat answers", ["mode", "answered"], registry=r)
        self.escalations = Counter(
            "askdocs_escalations", "Answers that offered escalation", ["reason"], registry=r
        )
        self.llm_tokens = Counter("askdocs_llm_tokens", "LLM tokens used", ["kind"], registry=r)
        self.llm_failures = Counter("askdocs_llm_failures", "LLM calls that failed", ["reason"], registry=r)
        self.chat_stopped = Counter(
            "askdocs_chat_streams_stopped",
            "Chat streams closed before their answer ended (reader gone, or shutdown); work stopped",
            registry=r,
        )
        self.reloads = Counter("askdocs_index_reloads", "Index reload attempts", ["outcome"], registry=r)
        self.index_chunks = Gauge(
            "askdocs_index_chunks", "Chunks in the live index", ["visibility"], registry=r
        )
        self.first_token = Histogram(
            "askdocs_chat_first_token_seconds",
            "Time to the first answer token",
            buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30),
            registry=r,
        )
        r.register(_CacheCollector(caches))
        if state is not None:
            r.register(_StateCollector(state))

    def render(self) -> bytes:
        return generate_latest(self.registry)
