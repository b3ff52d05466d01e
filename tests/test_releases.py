"""Release channels: publish, point, roll back; a replica that cannot reach its origin starts
from the last release it verified, and says so."""

from __future__ import annotations

import functools
import http.server
import json
import socketserver
import threading

import httpx
import pytest

from askdocs import releases
from askdocs.errors import ShardError
from tests.conftest import Server
from tests.test_build import askdocs
from tests.test_startup import page


@pytest.fixture
def channel(tmp_path, model_info):
    site = tmp_path / "site"
    for slug, title, body in [
        ("", "Gizmo", "Gizmo schedules batch jobs for small teams."),
        ("limits", "Limits", "A gizmo queue holds at most 10000 jobs; older jobs are dropped."),
    ]:
        (site / slug).mkdir(parents=True, exist_ok=True)
        (site / slug / "index.html").write_text(page(title, body))
    askdocs("build", str(site), "-q")
    askdocs("release", "publish", str(site), str(tmp_path / "channel"), "--id", "r1")
    (site / "faq").mkdir()
    (site / "faq" / "index.html").write_text(page("FAQ", "Gizmo is free for teams of five."))
    askdocs("build", str(site), "-q")
    shards, target = str(site / "_askdocs"), str(tmp_path / "channel")
    askdocs("release", "publish", shards, target, "--id", "r2", "--no-point")
    return tmp_path / "channel"


def test_publish_point_and_list(channel):
    assert releases.list_releases(channel) == (["r1", "r2"], "r1")  # --no-point left r1 current
    listing = askdocs("release", "list", str(channel)).stdout
    assert listing.splitlines() == ["* r1", "  r2"]
    releases.point_at(channel, "r2")
    assert releases.list_releases(channel)[1] == "r2"
    with pytest.raises(ShardError, match="no release r9"):
        releases.point_at(channel, "r9")
    with pytest.raises(ShardError, match="release id"):
        releases.point_at(channel, "../r1")
    assert json.loads((channel / "current.json").read_text())["format"] == "askdocs-release"


def test_republishing_an_id_with_other_content_is_refused(channel, tmp_path):
    result = askdocs(
        "release", "publish", str(channel / "releases" / "r2"), str(channel), "--id", "r1", check=False
    )
    assert result.returncode == 2 and "already exists" in result.stderr


def test_a_pointer_that_is_not_one_is_a_clear_error(tmp_path):
    bad = tmp_path / "current.json"
    bad.write_text('{"hello": 1}')
    reader = releases.PointerReader(str(bad))
    with pytest.raises(ShardError, match="not an askdocs release pointer"):
        reader.read()


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def test_a_fresh_replica_starts_from_its_last_verified_release_when_the_origin_is_down(
    channel, tmp_path, model_info
):
    from askdocs.models import models_dir

    home = tmp_path / "home"
    home.mkdir()
    (home / "models").symlink_to(models_dir())
    handler = functools.partial(_Quiet, directory=str(channel))
    httpd = socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{httpd.server_address[1]}/current.json"
    env = {"ASKDOCS_HOME": str(home), "ASKDOCS_ADMIN_TOKEN": "operator-token-0123456789"}
    admin = {"Authorization": "Bearer operator-token-0123456789"}
    first = Server(["--index", origin, "--reload-interval", "0"], env)
    try:
        assert httpx.get(first.url + "/healthz").json()["release"] == {"id": "r1", "from": "origin"}
        releases.point_at(channel, "r2")
        reloaded = httpx.post(first.url + "/admin/reload", headers=admin).json()
        assert reloaded["outcome"] == "swapped" and reloaded["release"] == "r2"
        search = httpx.get(first.url + "/api/search", params={"q": "free for teams"})
        assert search.headers["x-askdocs-release"] == "r2" and search.json()["release"] == "r2"
    finally:
        first.stop()
    httpd.shutdown()
    httpd.server_close()
    second = Server(["--index", origin, "--reload-interval", "0"], env)
    try:
        quiet = httpx.get(second.url + "/healthz").json()
        assert quiet["release"] == {"id": "r2", "from": "local-cache"}
        full = httpx.get(second.url + "/healthz", headers=admin).json()
        assert "cannot fetch release pointer" in full["release"]["origin_error"]
        assert "serving release r2 from the local cache" in second.output()
        found = httpx.get(second.url + "/api/search", params={"q": "free for teams"}).json()
        assert found["results"][0]["page_url"] == "/faq/"
    finally:
        second.stop()


def test_without_a_cache_an_unreachable_origin_fails_at_start_up(tmp_path, model_info):
    home = tmp_path / "empty-home"
    result = askdocs(
        "serve", "--index", "http://127.0.0.1:9/current.json", env={"ASKDOCS_HOME": str(home)}, check=False
    )
    assert result.returncode == 2
    assert "no earlier verified release" in result.stderr


def test_admin_routes_are_off_without_a_token(channel):
    server = Server(["--index", str(channel / "current.json"), "--reload-interval", "0"])
    try:
        assert httpx.post(server.url + "/admin/reload").status_code == 404
    finally:
        server.stop()


def test_replicas_starting_together_each_record_their_release(tmp_path, monkeypatch):
    """Replicas started at the same moment on one cache record the release they verified at
    once: each through a temporary file of its own (one shared temporary name let one replica
    rename the file another had just renamed, and that replica's start failed). Real processes,
    as replicas are; the record is whole whatever the order."""
    import subprocess
    import sys

    monkeypatch.setenv("ASKDOCS_HOME", str(tmp_path / "home"))
    script = (
        "import sys; from pathlib import Path; from askdocs import releases\n"
        "for i in range(200):\n"
        "    releases.remember('https://cdn.example/channel/', f'r{sys.argv[1]}', Path('/p'), None)\n"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", script, str(n)], stderr=subprocess.PIPE) for n in range(4)
    ]
    errors = [p.communicate(timeout=120)[1].decode() for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0, 0], errors
    record = releases.recall("https://cdn.example/channel/")
    assert record is not None and record["release"] in {"r0", "r1", "r2", "r3"}
    assert [p.name for p in (tmp_path / "home" / "releases").iterdir()] == [
        releases._memo("https://cdn.example/channel/").name
    ]


def test_replicas_starting_together_mirror_one_release_into_one_cache(channel, tmp_path, monkeypatch):
    """Replicas sharing one cache mirror the same release from the origin at the same moment:
    every shard and the manifest are written through a temporary file of the writer's own (one
    shared temporary name let one replica rename the manifest another had just renamed). Real
    processes, as replicas are; the mirrored set is whole and verifies."""
    import subprocess
    import sys

    from askdocs.remote import cache_folder
    from askdocs.shards import load_shards

    handler = functools.partial(_Quiet, directory=str(channel))
    httpd = socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    source = releases.release_source(f"http://127.0.0.1:{httpd.server_address[1]}/", "r1")
    monkeypatch.setenv("ASKDOCS_HOME", str(tmp_path / "home"))
    script = (
        "import sys; from askdocs.remote import materialize\n"
        "for i in range(30):\n"
        "    materialize(sys.argv[1])\n"
    )
    try:
        procs = [
            subprocess.Popen([sys.executable, "-c", script, source], stderr=subprocess.PIPE) for _ in range(4)
        ]
        errors = [p.communicate(timeout=300)[1].decode() for p in procs]
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert [p.returncode for p in procs] == [0, 0, 0, 0], errors
    mirrored = cache_folder(source)
    assert not [p.name for p in mirrored.rglob("*") if p.name.endswith(".tmp")]
    assert load_shards(mirrored).manifest.files
