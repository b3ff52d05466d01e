"""The runtime's one typed config, from CLI arguments and environment, validated at start-up."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path

from askdocs.errors import AskdocsError

# Every ASKDOCS_* variable askdocs reads; anything else with that prefix is a typo.
KNOWN_ENV = {
    "ASKDOCS_HOME": "model cache and remote shard cache folder",
    "ASKDOCS_BUILD_CACHE": "builds: folder of the build cache (default $ASKDOCS_HOME/build), or off",
    "ASKDOCS_SUPPORT_URL": "where escalations point",
    "ASKDOCS_JWT_SECRET": "HS256 secret for reader tokens",
    "ASKDOCS_RATE_LIMIT": "per-client budget, e.g. 120/minute, or off",
    "ASKDOCS_TRUSTED_PROXIES": "addresses/CIDRs of proxies whose forwarding header is believed",
    "ASKDOCS_CLIENT_IP_HEADER": "forwarding header read from trusted proxies (X-Forwarded-For)",
    "ASKDOCS_CORS_ORIGINS": "comma-separated origins allowed to call the API",
    "ASKDOCS_RELOAD_INTERVAL": "seconds between index checks (0 disables polling)",
    "ASKDOCS_LLM_MODEL": "model name for the OpenAI-compatible endpoint",
    "ASKDOCS_LLM_AGENT": "on/off: give the LLM ls/find/cat/grep tools",
    "ASKDOCS_LLM_TIMEOUT": "seconds a whole LLM answer may take (every call it makes; 60)",
    "ASKDOCS_LLM_IDLE_TIMEOUT": "seconds the LLM may send no content, before the first or between (20)",
    "ASKDOCS_LLM_MAX_BYTES": "bytes one streamed LLM reply may take (1000000)",
    "ASKDOCS_DAILY_TOKEN_BUDGET": "LLM tokens per day before answers fall back",
    "ASKDOCS_EVENT_LOG": "JSON-lines log of answers and feedback",
    "ASKDOCS_LOG_QUESTIONS": "hash (default) or plain",
    "ASKDOCS_ANSWER_CACHE": "answers kept for repeated questions (0 disables)",
    "ASKDOCS_MIN_CONFIDENCE": "confidence below which the answer is a refusal",
    "ASKDOCS_REDIS_URL": "redis:// or rediss:// URL: shared state for many replicas",
    "ASKDOCS_REDIS_TIMEOUT": "seconds one Redis call may take before it counts as down (0.25)",
    "ASKDOCS_RATE_LIMIT_FAIL": "open (default: per-replica counters) or closed (503) while Redis is down",
    "ASKDOCS_ANSWER_CACHE_TTL": "seconds a cached answer lives (3600)",
    "ASKDOCS_ANSWER_CACHE_BYTES": "byte budget of the answer cache (67108864)",
    "ASKDOCS_EVENT_STREAM_MAXLEN": "answer-log records the Redis stream keeps (100000)",
    "ASKDOCS_HEADER_TIMEOUT": "seconds a request's header block may take to arrive (10)",
    "ASKDOCS_BODY_TIMEOUT": "seconds a request's body may take to arrive after its headers (10)",
    "ASKDOCS_KEEP_ALIVE": "seconds an idle keep-alive connection stays open (5); a proxy's must be shorter",
    "ASKDOCS_ADMIN_TOKEN": "operator bearer token: admin routes, full /healthz and /metrics",
    "ASKDOCS_SHUTDOWN_GRACE": "seconds running answers get to finish on SIGTERM (10)",
    "ASKDOCS_MCP_TOKEN": "reader JWT for `askdocs mcp` (stdio): its groups open restricted pages",
}


def _flag(value: str | None, default: bool) -> bool:
    if value is None or value == "":
        return default
    lowered = value.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise AskdocsError(f"expected on/off, got {value!r}")


@dataclass(frozen=True)
class LLMSettings:
    base_url: str
    api_key: str | None
    model: str
    agent: bool = True
    timeout: float = 60.0
    daily_token_budget: int | None = None
    idle_timeout: float = 20.0
    max_stream_bytes: int = 1_000_000


@dataclass(frozen=True)
class Settings:
    index: str
    private: str | None = None
    site_dir: Path | None = None
    support_url: str | None = None
    jwt_secret: str | None = None
    rate_limit: str | None = "120/minute"
    client_ip_header: str | None = None
    trusted_proxies: tuple[str, ...] = ()
    cors_origins: tuple[str, ...] = ()
    reload_interval: float = 10.0
    llm: LLMSettings | None = None
    event_log: Path | None = None
    log_questions: str = "hash"
    answer_cache: int = 512
    answer_cache_ttl: float = 3600.0
    answer_cache_bytes: int = 64 * 1024 * 1024
    redis_url: str | None = None
    redis_timeout: float = 0.25
    rate_limit_fail: str = "open"
    event_stream_maxlen: int = 100_000
    admin_token: str | None = None
    shutdown_grace: float = 10.0
    min_confidence: float | None = None
    max_query_chars: int = 1000
    max_chat_bytes: int = 64 * 1024
    max_pattern_chars: int = 500
    grep_budget_seconds: float = 0.5
    header_timeout: float = 10.0
    body_timeout: float = 10.0
    keep_alive: float = 5.0

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides) -> Settings:
        env = dict(os.environ if env is None else env)
        unknown = sorted(k for k in env if k.startswith("ASKDOCS_") and k not in KNOWN_ENV)
        if unknown:
            known = "\n".join(f"  {k}: {v}" for k, v in KNOWN_ENV.items())
            raise AskdocsError(
                f"unknown environment variable(s) {', '.join(unknown)}; askdocs reads:\n{known}"
            )
        values: dict = {}
        if env.get("ASKDOCS_SUPPORT_URL"):
            values["support_url"] = env["ASKDOCS_SUPPORT_URL"]
        if env.get("ASKDOCS_JWT_SECRET"):
            values["jwt_secret"] = env["ASKDOCS_JWT_SECRET"]
        if "ASKDOCS_RATE_LIMIT" in env:
            raw = env["ASKDOCS_RATE_LIMIT"].strip()
            values["rate_limit"] = None if raw.lower() in ("off", "0", "none", "") else raw
        if env.get("ASKDOCS_CLIENT_IP_HEADER"):
            values["client_ip_header"] = env["ASKDOCS_CLIENT_IP_HEADER"]
        for name, key in (
            ("header_timeout", "ASKDOCS_HEADER_TIMEOUT"),
            ("body_timeout", "ASKDOCS_BODY_TIMEOUT"),
            ("keep_alive", "ASKDOCS_KEEP_ALIVE"),
        ):
            if env.get(key):
                values[name] = _number(env, key)
        if env.get("ASKDOCS_TRUSTED_PROXIES"):
            values["trusted_proxies"] = _list(env["ASKDOCS_TRUSTED_PROXIES"])
        if env.get("ASKDOCS_CORS_ORIGINS"):
            values["cors_origins"] = _list(env["ASKDOCS_CORS_ORIGINS"])
        if env.get("ASKDOCS_RELOAD_INTERVAL"):
            values["reload_interval"] = _number(env, "ASKDOCS_RELOAD_INTERVAL")
        if env.get("ASKDOCS_EVENT_LOG"):
            values["event_log"] = Path(env["ASKDOCS_EVENT_LOG"])
        if env.get("ASKDOCS_LOG_QUESTIONS"):
            mode = env["ASKDOCS_LOG_QUESTIONS"].strip().lower()
            if mode not in ("hash", "plain"):
                raise AskdocsError("ASKDOCS_LOG_QUESTIONS must be `hash` or `plain`")
            values["log_questions"] = mode
        if env.get("ASKDOCS_ANSWER_CACHE"):
            values["answer_cache"] = int(_number(env, "ASKDOCS_ANSWER_CACHE"))
        if env.get("ASKDOCS_ANSWER_CACHE_TTL"):
            values["answer_cache_ttl"] = _number(env, "ASKDOCS_ANSWER_CACHE_TTL")
        if env.get("ASKDOCS_ANSWER_CACHE_BYTES"):
            values["answer_cache_bytes"] = int(_number(env, "ASKDOCS_ANSWER_CACHE_BYTES"))
        if env.get("ASKDOCS_REDIS_URL"):
            values["redis_url"] = env["ASKDOCS_REDIS_URL"].strip()
        if env.get("ASKDOCS_REDIS_TIMEOUT"):
            values["redis_timeout"] = _number(env, "ASKDOCS_REDIS_TIMEOUT")
        if env.get("ASKDOCS_RATE_LIMIT_FAIL"):
            values["rate_limit_fail"] = env["ASKDOCS_RATE_LIMIT_FAIL"].strip().lower()
        if env.get("ASKDOCS_EVENT_STREAM_MAXLEN"):
            values["event_stream_maxlen"] = int(_number(env, "ASKDOCS_EVENT_STREAM_MAXLEN"))
        if env.get("ASKDOCS_ADMIN_TOKEN"):
            values["admin_token"] = env["ASKDOCS_ADMIN_TOKEN"]
        if env.get("ASKDOCS_SHUTDOWN_GRACE"):
            values["shutdown_grace"] = _number(env, "ASKDOCS_SHUTDOWN_GRACE")
        if env.get("ASKDOCS_MIN_CONFIDENCE"):
            values["min_confidence"] = _number(env, "ASKDOCS_MIN_CONFIDENCE")
        base_url = env.get("OPENAI_BASE_URL")
        model = env.get("ASKDOCS_LLM_MODEL")
        if base_url or model:
            if not model:
                raise AskdocsError(
                    "OPENAI_BASE_URL is set but ASKDOCS_LLM_MODEL is not: name the model to use "
                    "(or unset OPENAI_BASE_URL to answer offline)"
                )
            base_url = base_url or "https://api.openai.com/v1"
            budget = env.get("ASKDOCS_DAILY_TOKEN_BUDGET")
            values["llm"] = LLMSettings(
                base_url=base_url.rstrip("/"),
                api_key=env.get("OPENAI_API_KEY") or None,
                model=model,
                agent=_flag(env.get("ASKDOCS_LLM_AGENT"), True),
                timeout=_number(env, "ASKDOCS_LLM_TIMEOUT") if env.get("ASKDOCS_LLM_TIMEOUT") else 60.0,
                daily_token_budget=int(budget) if budget else None,
                idle_timeout=(
                    _number(env, "ASKDOCS_LLM_IDLE_TIMEOUT") if env.get("ASKDOCS_LLM_IDLE_TIMEOUT") else 20.0
                ),
                max_stream_bytes=(
                    int(_number(env, "ASKDOCS_LLM_MAX_BYTES"))
                    if env.get("ASKDOCS_LLM_MAX_BYTES")
                    else 1_000_000
                ),
            )
            if min(values["llm"].timeout, values["llm"].idle_timeout, values["llm"].max_stream_bytes) <= 0:
                raise AskdocsError(
                    "ASKDOCS_LLM_TIMEOUT, ASKDOCS_LLM_IDLE_TIMEOUT and ASKDOCS_LLM_MAX_BYTES must be positive"
                )
        values.update(overrides)
        names = {f.name for f in fields(cls)}
        bad = set(values) - names
        if bad:
            raise AskdocsError(f"unknown setting(s): {', '.join(sorted(bad))}")
        settings = cls(**values)
        settings.validate()
        return settings

    def validate(self) -> None:
        if self.header_timeout <= 0 or self.body_timeout <= 0:
            raise AskdocsError("ASKDOCS_HEADER_TIMEOUT and ASKDOCS_BODY_TIMEOUT must be positive")
        if self.keep_alive <= 0:
            raise AskdocsError("ASKDOCS_KEEP_ALIVE must be positive (seconds)")
        if self.admin_token is not None and len(self.admin_token) < 16:
            raise AskdocsError("ASKDOCS_ADMIN_TOKEN must be at least 16 characters (it opens /healthz)")
        if self.redis_url and not self.redis_url.startswith(("redis://", "rediss://", "unix://")):
            raise AskdocsError(
                f"ASKDOCS_REDIS_URL {self.redis_url!r} must start with redis://, rediss:// (TLS) or unix://"
            )
        if self.rate_limit_fail not in ("open", "closed"):
            raise AskdocsError("ASKDOCS_RATE_LIMIT_FAIL must be `open` or `closed`")
        if self.redis_timeout <= 0 or self.answer_cache_ttl <= 0 or self.shutdown_grace < 0:
            raise AskdocsError(
                "ASKDOCS_REDIS_TIMEOUT and ASKDOCS_ANSWER_CACHE_TTL must be positive, "
                "ASKDOCS_SHUTDOWN_GRACE not negative"
            )
        if self.client_ip_header and not self.trusted_proxies:
            raise AskdocsError(
                f"ASKDOCS_CLIENT_IP_HEADER={self.client_ip_header} is read only from trusted proxies: "
                "set ASKDOCS_TRUSTED_PROXIES to your proxies' addresses or CIDRs (any client can "
                "write that header itself)"
            )
        from askdocs.edge_runtime.clientaddr import parse_networks

        parse_networks(self.trusted_proxies)
        if self.rate_limit:
            from limits import parse

            try:
                parse(self.rate_limit)
            except ValueError as exc:
                raise AskdocsError(
                    f"ASKDOCS_RATE_LIMIT {self.rate_limit!r} is not a rate such as "
                    f"`120/minute` or `off` ({exc})"
                ) from exc


def _list(value: str) -> tuple[str, ...]:
    return tuple(item.strip() for item in value.split(",") if item.strip())


def _number(env: Mapping[str, str], key: str) -> float:
    try:
        return float(env[key])
    except ValueError as exc:
        raise AskdocsError(f"{key} must be a number, got {env[key]!r}") from exc
