"""Finding 7: the runtime owns the shards it serves.

Before, postings and vectors were memory-mapped from the served folder: overwriting a postings
file in place changed live results with no error, truncating one killed the process with
SIGBUS on the next Spanish search, and a reload did not notice either (it only compared the
manifest). Now every array is read into memory the runtime owns after its sha256 is checked;
an edited file is noticed on the next reload, which fails, is reported, and leaves the old
index serving.
"""

from __future__ import annotations

import os
import shutil

import httpx
import pytest

from tests.conftest import Server

ADMIN = "owned-shards-admin-token-0123"
AUTH = {"Authorization": f"Bearer {ADMIN}"}
QUERIES = [
    {"q": "instalar en Windows", "locale": "es"},
    {"q": "install on windows"},
    {"q": "TFX-1042"},
]


@pytest.fixture()
def served(tmp_path, example_site):
    """A private copy of the built site (we vandalise it), served by a real process."""
    site = tmp_path / "site"
    shutil.copytree(example_site.site_dir, site)
    shutil.copytree(example_site.private_dir, tmp_path / "askdocs-private")
    server = Server(
        [str(site), "--private", str(tmp_path / "askdocs-private")],
        env={"ASKDOCS_ADMIN_TOKEN": ADMIN, "ASKDOCS_RELOAD_INTERVAL": "0"},
    )
    yield server, site / "_askdocs"
    server.stop()


def results(server) -> list:
    out = []
    for params in QUERIES:
        response = httpx.get(server.url + "/api/search", params=params, timeout=10)
        assert response.status_code == 200, response.text
        out.append([(r["url"], r["score"]) for r in response.json()["results"]])
    assert any(out)
    return out


def scramble_in_place(path) -> None:
    """Same inode, same size, different bytes after the .npy header."""
    size = path.stat().st_size
    with path.open("r+b") as fh:
        fh.seek(128)  # numpy's .npy header is 128 bytes
        body = fh.read()
        fh.seek(128)
        fh.write(body[::-1])
    assert path.stat().st_size == size


def test_edits_in_the_served_folder_change_nothing_and_fail_the_reload(served):
    server, shards = served
    before = results(server)
    postings = sorted(shards.glob("postings.es.*.npy"))
    vectors = sorted(shards.glob("vectors.*.npy"))
    assert postings and vectors

    for path in postings + vectors:
        scramble_in_place(path)
    assert results(server) == before  # was: silently different results

    os.truncate(postings[0], 100)  # was: SIGBUS on the next Spanish search
    assert results(server) == before
    assert server.process.poll() is None

    health = httpx.get(server.url + "/healthz", headers=AUTH, timeout=10).json()
    assert health["retrievers"]["lexical"]["live"] and health["retrievers"]["dense"]["live"]
    version = health["index"]["version"]

    reload = httpx.post(server.url + "/admin/reload", headers=AUTH, timeout=30)
    assert reload.status_code == 502, reload.text  # was: "unchanged"
    report = reload.json()
    assert report["outcome"] == "failed" and report["index_version"] == version
    assert "sha256" in report["last_error"] or "not a valid" in report["last_error"]
    health = httpx.get(server.url + "/healthz", timeout=10).json()
    assert health["reload"]["ok"] is False and health["index"]["version"] == version
    assert results(server) == before
    assert "index reload failed, still serving" in server.output()
    assert server.process.poll() is None


def test_a_restored_file_reloads_cleanly(served, example_site):
    server, shards = served
    before = results(server)
    postings = sorted(shards.glob("postings.es.*.npy"))[0]
    os.truncate(postings, 100)
    assert results(server) == before  # was: the process died of SIGBUS here
    assert httpx.post(server.url + "/admin/reload", headers=AUTH, timeout=30).status_code == 502
    shutil.copyfile(example_site.shard_dir / postings.name, postings)
    reload = httpx.post(server.url + "/admin/reload", headers=AUTH, timeout=30)
    assert reload.status_code == 200 and reload.json()["outcome"] == "swapped", reload.text
    assert httpx.get(server.url + "/healthz", timeout=10).json()["reload"]["ok"] is True
    assert results(server) == before
