"""Faults under load (issue 11): the LLM process dies mid-stream, a shard is truncated, the manifest
is corrupted — while 12 readers chat and search. Real processes on 127.0.0.1: a fake
OpenAI-compatible LLM in a process of its own (killed with SIGKILL) and a real `askdocs serve`
answering in LLM mode from a copy of site_example. The run is bounded (each reader loops at most
`max_requests` times and stops with the run, the run at most `max_seconds`); the figures of a
bigger run come from benchmarks/fault_bench.py, which this test shares its driver with.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from fault_bench import Settings, run_faults, summarize  # noqa: E402

SETTINGS = Settings(chat_readers=8, search_readers=4, phase_seconds=4.0, max_seconds=180.0, max_requests=60)


@pytest.fixture(scope="module")
def faults(example_site, tmp_path_factory):
    seen = run_faults(example_site.site_dir, tmp_path_factory.mktemp("faults"), SETTINGS)
    return seen, summarize(seen, SETTINGS)


def test_the_server_survives_and_every_request_ends_properly(faults):
    seen, s = faults
    assert seen["server_alive"], seen["log_text"][-3000:]
    assert seen["health"]["end"][0] == 200
    assert seen["readers_stopped"]
    assert s["chats"] >= SETTINGS.chat_readers and s["searches"] >= SETTINGS.search_readers
    # Every chat stream: HTTP 200, exactly one `done`/`error`, and it is the last event; every
    # search: 200 with results. Whatever broke, and whenever.
    assert not s["failed"], s["failed"][:5]
    assert not s["over_deadline"], [o.seconds for o in s["over_deadline"]]
    # Requests kept being answered after each fault, not only before the first.
    for phase in ("llm_killed", "shard_truncated", "manifest_corrupted"):
        row = s["per_phase"].get(phase, {})
        assert row.get("chat", 0) > 0 and row.get("search", 0) > 0, (phase, s["per_phase"])
    assert "Traceback" not in seen["log_text"], seen["log_text"][-3000:]


def test_a_dead_llm_ends_in_labelled_fallbacks(faults):
    seen, s = faults
    assert s["llm_before_kill"], s["per_phase"]  # the model answered before it died
    assert seen["streams_open_at_kill"] >= 1
    # The streams the kill cut off: labelled fallbacks that say the stream broke off.
    assert s["broke_off"], [(o.mode, o.fallback_reason) for o in s["open_at_kill"]]
    # Afterwards the endpoint refuses connections: no uncached answer claims to be the model's.
    assert not s["after_kill_llm"]
    assert any(o.fallback_reason == "connect" for o in s["after_kill_fallbacks"]), s["per_phase"]
    assert not s["fallback_without_reason"]
    llm = seen["health"]["after_llm_kill"][1]["synthesizer"]["llm"]
    assert llm["last_error"] and llm["last_error"].split(":")[0] in ("connect", "truncated")


def test_a_broken_index_is_a_failed_reload_and_the_old_one_serves(faults):
    seen, _ = faults
    version = seen["version"]
    # Truncated shard, POST /admin/reload: refused by its sha256 check, reported, old index live.
    reload = seen["truncate_reload"]
    assert reload["status"] == 502 and reload["outcome"] == "failed", reload
    assert reload["index_version"] == version
    status, health = seen["health"]["after_truncate"]
    assert status == 200 and health["reload"]["ok"] is False and health["index"]["version"] == version
    assert health["reload"]["last_error"] and seen["truncated"] in health["reload"]["last_error"]
    assert seen["search_after_truncate"]
    # Corrupt manifest, SIGHUP: a second failed reload, its own error, old index still live.
    assert seen["sighup_reload_failed"]
    status, health = seen["health"]["after_manifest"]
    assert status == 200 and health["reload"]["ok"] is False and health["index"]["version"] == version
    assert "manifest" in health["reload"]["last_error"].lower(), health["reload"]["last_error"]
    assert seen["search_after_manifest"] and seen["search_at_end"]
    assert seen["health"]["end"][1]["reload"]["ok"] is False  # still reported at the end
    assert seen["log_text"].count("index reload failed, still serving") >= 2
