"""Start-up refuses what it cannot trust; reloads swap whole indexes, never halves."""

from __future__ import annotations

import functools
import http.server
import json
import shutil
import signal
import socketserver
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from askdocs.edge_runtime.holder import IndexHolder

from askdocs.errors import ModelMismatch, ModelNotFound, ShardError
from tests.conftest import Server
from tests.test_build import askdocs


def page(title: str, body: str) -> str:
    return (
        f"<html lang='en'><head><title>{title}</title></head><body><nav>menu</nav>"
        f"<main><h1>{title}</h1><p>{body}</p></main></body></html>"
    )


@pytest.fixture
def plain_site(tmp_path, model_info) -> Path:
    site = tmp_path / "site"
    for slug, title, body in [
        ("", "Gizmo", "Gizmo schedules batch jobs for small teams."),
        ("install", "Install", "Install gizmo with pipx install gizmo; it needs Python 3.11."),
        ("limits", "Limits", "A gizmo queue holds at most 10000 jobs; older jobs are dropped."),
    ]:
        folder = site / slug
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "index.html").write_text(page(title, body))
    askdocs("build", str(site), "-q")
    return site


def edit_manifest(shards: Path, change) -> None:
    manifest = json.loads((shards / "manifest.json").read_text())
    change(manifest)
    (shards / "manifest.json").write_text(json.dumps(manifest))


def test_unknown_format_version_is_refused(plain_site):
    edit_manifest(plain_site / "_askdocs", lambda m: m.update(format_version=99))
    with pytest.raises(ShardError, match="format version 99"):
        IndexHolder(str(plain_site / "_askdocs"), None)
    result = askdocs("serve", "--index", str(plain_site / "_askdocs"), check=False)
    assert result.returncode == 2 and "format version 99" in result.stderr


def test_a_tampered_shard_is_refused(plain_site):
    shards = plain_site / "_askdocs"
    pages_file = next(shards.glob("pages.*.json"))
    pages_file.write_text(pages_file.read_text().replace("10000", "99999"))
    with pytest.raises(ShardError, match="sha256"):
        IndexHolder(str(shards), None)


def test_vectors_from_another_model_are_refused(plain_site):
    edit_manifest(plain_site / "_askdocs", lambda m: m["model"].update(sha256="0" * 64))
    with pytest.raises(ModelMismatch, match="meaningless"):
        IndexHolder(str(plain_site / "_askdocs"), None)


def test_a_missing_model_fails_at_start_up_naming_the_fix(plain_site, tmp_path, monkeypatch):
    monkeypatch.setenv("ASKDOCS_HOME", str(tmp_path / "empty-home"))
    with pytest.raises(ModelNotFound, match="askdocs model prepare"):
        IndexHolder(str(plain_site / "_askdocs"), None)
    result = askdocs(
        "serve", str(plain_site), env={"ASKDOCS_HOME": str(tmp_path / "empty-home")}, check=False
    )
    assert result.returncode == 2 and "askdocs model prepare" in result.stderr


def test_bundled_model_serves_without_a_local_model(plain_site, tmp_path):
    shutil.rmtree(plain_site / "_askdocs")
    askdocs("build", str(plain_site), "--bundle-model", "-q")
    assert (plain_site / "_askdocs" / "model" / "model.onnx").is_file()
    server = Server([str(plain_site)], env={"ASKDOCS_HOME": str(tmp_path / "empty-home")})
    try:
        health = httpx.get(server.url + "/healthz").json()
        assert health["model"]["source"] == "bundled"
        hits = httpx.get(server.url + "/api/search", params={"q": "how many jobs fit in the queue"}).json()
        assert hits["results"][0]["page_url"] == "/limits/" and "dense" in hits["retrievers"]
    finally:
        server.stop()


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def static_host(plain_site):
    handler = functools.partial(_Quiet, directory=str(plain_site))
    httpd = socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


def test_index_loads_from_a_url_and_verifies_every_shard(plain_site, static_host, tmp_path, monkeypatch):
    from askdocs.models import models_dir

    models = models_dir()
    monkeypatch.setenv("ASKDOCS_HOME", str(tmp_path / "home"))  # a fresh remote-shard cache
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "models").symlink_to(models)
    holder = IndexHolder(static_host + "/_askdocs", None)
    assert {p.url for p in holder.state.corpus.sets[0].pages} == {"/", "/install/", "/limits/"}
    tampered = plain_site / "_askdocs" / next(p.name for p in (plain_site / "_askdocs").glob("tree.*.json"))
    tampered.write_text("{}")
    shutil.rmtree(tmp_path / "home" / "remote")
    with pytest.raises(ShardError, match="sha256"):
        IndexHolder(static_host + "/_askdocs", None)


def test_reload_swaps_atomically_under_concurrent_requests(plain_site):
    server = Server([str(plain_site), "--reload-interval", "0.2"])
    try:
        first = httpx.get(server.url + "/healthz").json()["index"]["version"]
        stop = threading.Event()
        seen: list[tuple[str, bool]] = []
        errors: list[str] = []

        def hammer() -> None:
            with httpx.Client(timeout=30) as client:
                while not stop.is_set():
                    response = client.get(server.url + "/api/search", params={"q": "audit retention"})
                    if response.status_code != 200:
                        errors.append(response.text)
                        continue
                    data = response.json()
                    has_new = any(r["page_url"] == "/audit/" for r in data["results"])
                    seen.append((data["index_version"], has_new))

        with ThreadPoolExecutor(4) as pool:
            for _ in range(4):
                pool.submit(hammer)
            time.sleep(0.5)
            (plain_site / "audit").mkdir()
            (plain_site / "audit" / "index.html").write_text(
                page("Audit", "Audit logs keep every gizmo retention change for 400 days.")
            )
            askdocs("build", str(plain_site), "-q")
            deadline = time.time() + 30
            while time.time() < deadline and not any(v != first for v, _ in seen):
                time.sleep(0.1)
            time.sleep(0.5)
            stop.set()
        assert not errors
        versions = {v for v, _ in seen}
        assert first in versions and len(versions) == 2, versions
        for version, has_new in seen:
            assert has_new == (version != first)  # never an old version with new content, or vice versa
    finally:
        server.stop()


def test_sighup_reloads_at_once(plain_site):
    server = Server([str(plain_site), "--reload-interval", "0"])
    try:
        first = httpx.get(server.url + "/healthz").json()["index"]["version"]
        (plain_site / "faq").mkdir()
        (plain_site / "faq" / "index.html").write_text(page("FAQ", "Gizmo is free for teams of five."))
        askdocs("build", str(plain_site), "-q")
        assert httpx.get(server.url + "/healthz").json()["index"]["version"] == first
        server.process.send_signal(signal.SIGHUP)
        deadline = time.time() + 20
        while time.time() < deadline:
            health = httpx.get(server.url + "/healthz").json()
            if health["index"]["version"] != first:
                break
            time.sleep(0.1)
        assert health["index"]["version"] != first and health["reload"]["reloads"] == 1
    finally:
        server.stop()


def test_a_broken_new_index_keeps_the_old_one_and_says_so(plain_site):
    admin = {"Authorization": "Bearer startup-test-admin-token-42"}
    server = Server(
        [str(plain_site), "--reload-interval", "0.2"], env={"ASKDOCS_ADMIN_TOKEN": admin["Authorization"][7:]}
    )
    try:
        edit_manifest(plain_site / "_askdocs", lambda m: m.update(format_version=99))
        deadline = time.time() + 20
        health = {}
        while time.time() < deadline:
            health = httpx.get(server.url + "/healthz", headers=admin).json()
            if health["reload"]["last_error"]:
                break
            time.sleep(0.1)
        assert "format version 99" in health["reload"]["last_error"]
        assert httpx.get(server.url + "/healthz").json()["reload"]["ok"] is False  # anonymous: no text
        assert httpx.get(server.url + "/api/search", params={"q": "install"}).status_code == 200
        assert 'askdocs_index_reloads_total{outcome="failed"}' in httpx.get(server.url + "/metrics").text
    finally:
        server.stop()
