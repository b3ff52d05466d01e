"""Docs-as-files tools: ls, find, cat, grep over the reader's tree."""

from __future__ import annotations

import resource
import time

import pytest
from askdocs.edge_runtime.errors import ApiError
from askdocs.edge_runtime.fs import DocsFS, FsCaches, normalize_path


@pytest.fixture
def public_fs(public_scope):
    return DocsFS(public_scope, FsCaches())


@pytest.fixture
def staff_fs(staff_scope):
    return DocsFS(staff_scope, FsCaches())


def test_ls_root_and_folders(public_fs):
    root = public_fs.ls("/")
    entries = {e["path"]: e for e in root["entries"]}
    assert entries["/install/"]["type"] == "page" and entries["/install/"]["title"] == "Install"
    assert entries["/es/"]["type"] == "dir"  # has children, and is a page too
    assert entries["/guides/"]["type"] == "dir"
    assert "/internal/" not in entries  # nothing restricted exists for this reader
    guides = {e["path"] for e in public_fs.ls("/guides")["entries"]}
    assert guides == {"/guides/backups/", "/guides/sso/", "/guides/upgrading/", "/guides/webhooks/"}
    assert public_fs.ls("/install/")["entries"][0]["path"] == "/install/"


def test_find(public_fs):
    found = [r["path"] for r in public_fs.find("install")["results"]]
    assert found[:2] == ["/es/install/", "/install/"] or set(found[:2]) == {"/install/", "/es/install/"}
    assert [r["path"] for r in public_fs.find("web*")["results"]] == [
        "/es/guides/webhooks/",
        "/guides/webhooks/",
    ]
    assert public_fs.find("runbook")["results"] == []
    with pytest.raises(ApiError) as error:
        public_fs.find("")
    assert error.value.status == 400


def test_cat_reassembles_the_page(public_fs):
    page = public_fs.cat("/guides/webhooks")
    assert page["path"] == "/guides/webhooks/" and page["locale"] == "en"
    content = page["content"]
    assert content.startswith("# Webhooks\n")
    assert "## Verify the signature" in content
    assert "```python\nimport hashlib, hmac, time" in content
    assert "[Networking](/networking/#outbound-proxy)" in content
    with pytest.raises(ApiError) as error:
        public_fs.cat("/guides/")
    assert error.value.status == 404


def test_paths_are_normalised_and_traversal_refused(public_fs):
    assert normalize_path("//guides//webhooks") == "/guides/webhooks/"
    assert normalize_path("/install/#flags") == "/install/"
    for bad in ("/../etc/passwd", "/guides/../../secret", "/a/./b", "\\windows", "/x\x00"):
        with pytest.raises(ApiError) as error:
            public_fs.cat(bad)
        assert error.value.status == 400
    with pytest.raises(ApiError) as error:
        public_fs.cat("/nope/")
    assert error.value.status == 404


def test_grep_lines_match_cat(public_fs):
    result = public_fs.grep(r"TALLYFOX_\w+PROXY", "/")
    assert result["complete"] and result["matches"]
    for match in result["matches"]:
        lines = public_fs.cat(match["path"])["content"].split("\n")
        assert lines[match["line"] - 1] == match["text"]
    assert {m["path"] for m in result["matches"]} >= {"/networking/", "/es/networking/"}
    scoped = public_fs.grep(r"TALLYFOX_HTTPS_PROXY", "/es/")
    assert {m["path"] for m in scoped["matches"]} == {"/es/networking/"}
    assert public_fs.grep("tallyfox_https_proxy", "/", ignore_case=True)["matches"]
    assert public_fs.grep("(?i)tallyfox_https_proxy", "/")["matches"]


def test_grep_rejects_invalid_patterns(public_fs):
    for bad in ("(", "[a-", "*x", "(?P<n>a)(?P<n>b)"):
        with pytest.raises(ApiError) as error:
            public_fs.grep(bad)
        assert error.value.status == 400 and error.value.code == "bad_pattern"


def test_catastrophic_regex_stays_within_its_budget(public_fs, monkeypatch):
    # A line that makes `(a|aa)+$` backtrack exponentially in a backtracking engine; RE2 is linear.
    monkeypatch.setattr(public_fs, "lines", lambda url: ["a" * 60 + "b"] * 3)
    started = time.perf_counter()
    result = public_fs.grep(r"(a|aa)+$", "/", budget=0.3)
    assert time.perf_counter() - started < 2
    assert result["matches"] == []


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def test_nested_counted_repeats_are_refused_at_once(public_fs):
    """Finding 1: nested counted repeats were unrolled at compile time (3 levels: ~1 s per
    request; 4 levels: 20 GB until the kernel killed the server)."""
    before = peak_rss_mb()
    for pattern in (
        "(?:(?:(?:a{100}){100}){100})",
        "(?:(?:(?:a{100}){100}){100}){100}",
        "(?:(?:a{30}){30}){30}",
        "(?:[a-z]{1000}){1000}",
    ):
        started = time.perf_counter()
        with pytest.raises(ApiError) as error:
            public_fs.grep(pattern)
        assert time.perf_counter() - started < 0.25, pattern
        assert error.value.status == 400 and error.value.code == "unsupported_pattern"
        assert "RE2" in error.value.message
    assert peak_rss_mb() - before < 100


def test_patterns_re2_cannot_run_are_a_clear_400(public_fs):
    for pattern in (r"(a)\1", r"(?=x)y", r"(?<!x)y", r"a++", r"(?>a)", r"x\Z"):
        with pytest.raises(ApiError) as error:
            public_fs.grep(pattern)
        assert error.value.status == 400 and error.value.code == "unsupported_pattern", pattern
    # Python syntax stays the contract: RE2-only spellings are not accepted either.
    for pattern in (r"\pL+", r"x\z"):
        with pytest.raises(ApiError) as error:
            public_fs.grep(pattern)
        assert error.value.code == "bad_pattern", pattern


def test_a_large_but_linear_pattern_runs(public_fs):
    result = public_fs.grep(r"(?:TALLYFOX_[A-Z]{2,20}_?){1,3}PROXY|(?:x{2,5}y){1,50}", "/")
    assert result["complete"] and result["matches"]


def test_restricted_pages_exist_only_for_their_group(public_fs, staff_fs):
    assert public_fs.grep("BLUE HERON")["matches"] == []
    with pytest.raises(ApiError):
        public_fs.cat("/internal/runbook/")
    staff = staff_fs.grep("BLUE HERON")["matches"]
    assert {m["path"] for m in staff} == {"/internal/runbook/", "/es/internal/runbook/"}
    assert "/internal/" in {e["path"] for e in staff_fs.ls("/")["entries"]}
    assert staff_fs.cat("/internal/runbook/")["title"]
