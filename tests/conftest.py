"""Shared fixtures: the prepared model, real MkDocs builds of site_example, real servers."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
SITE_EXAMPLE = ROOT / "site_example"
NODE_DIR = ROOT / "tests" / "node"
# Distinctive facts of site_example (see site_example/README.md).
RESTRICTED_PHRASES = ["BLUE HERON", "marigold-anvil-42", "ingest-gw-07.tfx-prod.kestrel.internal"]
EXCLUDED_PHRASE = "Starling Quay"


def pytest_configure(config):
    """Builds keep their extraction cache in a folder of the test session's own (every
    build in the tests, in-process or a subprocess, reads and writes it there), not in the
    user's ~/.cache."""
    if "ASKDOCS_BUILD_CACHE" not in os.environ:
        import tempfile

        folder = tempfile.mkdtemp(prefix="askdocs-build-cache-")
        os.environ["ASKDOCS_BUILD_CACHE"] = folder
        config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))


def pytest_collection_modifyitems(config, items):
    """Browser tests last. Playwright's sync API keeps an event loop running in the main
    thread for as long as the session's browser lives, and every later test that calls
    `asyncio.run` (MCP client, LLM bounds, shared state) would fail with "Already running
    asyncio in this thread". The sort is stable: every other test keeps its order."""
    items.sort(key=lambda item: item.get_closest_marker("browser") is not None)


def _prepared(name: str):
    from askdocs.errors import ModelNotFound
    from askdocs.models import locate, prepare

    try:
        return locate(name)
    except ModelNotFound:
        return prepare(name)


@pytest.fixture(scope="session")
def model_info():
    """The English default model (English-only sites)."""
    from askdocs.models import DEFAULT_MODEL

    return _prepared(DEFAULT_MODEL)


@pytest.fixture(scope="session")
def multilingual_info(model_info):
    """The multilingual default (sites with non-English pages, like site_example)."""
    from askdocs.models import MULTILINGUAL_MODEL

    return _prepared(MULTILINGUAL_MODEL)


@dataclass
class BuiltSite:
    site_dir: Path
    private_dir: Path
    log: str

    @property
    def shard_dir(self) -> Path:
        return self.site_dir / "_askdocs"


def mkdocs_build(
    workdir: Path,
    *,
    theme: dict | None = None,
    plugins_override: list | None = None,
    extra: dict | None = None,
    env: dict | None = None,
    check: bool = True,
    site_name: str = "site",
) -> subprocess.CompletedProcess:
    """Build site_example with real MkDocs, optionally under another theme."""
    config = yaml.safe_load((SITE_EXAMPLE / "mkdocs.yml").read_text(encoding="utf-8"))
    config["docs_dir"] = str(SITE_EXAMPLE / "docs")
    if theme is not None:
        config["theme"] = theme
    if plugins_override is not None:
        config["plugins"] = plugins_override
    config.update(extra or {})
    config_file = workdir / "mkdocs.yml"
    config_file.write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")
    run_env = {**os.environ, **(env or {})}
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "-f", str(config_file), "-d", str(workdir / site_name)],
        capture_output=True,
        text=True,
        env=run_env,
        timeout=600,
    )
    if check and result.returncode != 0:
        raise AssertionError(f"mkdocs build failed:\n{result.stdout}\n{result.stderr}")
    return result


def build_example(workdir: Path, **kwargs) -> BuiltSite:
    workdir.mkdir(parents=True, exist_ok=True)
    result = mkdocs_build(workdir, **kwargs)
    return BuiltSite(workdir / "site", workdir / "askdocs-private", result.stdout + result.stderr)


@pytest.fixture(scope="session")
def example_site(tmp_path_factory, multilingual_info) -> BuiltSite:
    """site_example built once with the default (mkdocs) theme, both locales."""
    return build_example(tmp_path_factory.mktemp("example"), env={"SOURCE_DATE_EPOCH": "1767225600"})


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """A real `askdocs serve` process."""

    def __init__(self, args: list[str], env: dict | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = Path(os.environ.get("TMPDIR", "/tmp")) / f"askdocs-serve-{self.port}.log"
        self.log = self.log_path.open("w")
        run_env = {**os.environ, "ASKDOCS_RATE_LIMIT": "off", **(env or {})}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "askdocs.cli", "serve", *args, "--port", str(self.port)],
            stdout=self.log,
            stderr=subprocess.STDOUT,
            env=run_env,
        )
        self._wait()

    def _wait(self, timeout: float = 120) -> None:
        # It starts in ~5 s here; once in a full run on this 2-core machine it took over 60 s
        # (then answered): the wait is generous, and a server that never came up is stopped.
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"server exited early:\n{self.log_path.read_text()}")
            try:
                if httpx.get(self.url + "/healthz", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        self.stop()
        raise AssertionError(f"server did not start in {timeout:.0f} s:\n{self.log_path.read_text()}")

    def output(self) -> str:
        self.log.flush()
        return self.log_path.read_text()

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()


@pytest.fixture(scope="session")
def example_server(example_site) -> Server:
    server = Server([str(example_site.site_dir)])
    yield server
    server.stop()


def node_available() -> bool:
    return shutil.which("node") is not None and (NODE_DIR / "node_modules" / "lunr").is_dir()


@pytest.fixture(scope="session")
def example_corpus(example_site):
    """The example index loaded in-process (public + private sets), with its query embedder."""
    from askdocs.edge_runtime.corpus import load_corpus

    return load_corpus(str(example_site.shard_dir), str(example_site.private_dir))


@pytest.fixture(scope="session")
def public_scope(example_corpus):
    from askdocs.edge_runtime.scope import Reader, make_scope

    return make_scope(example_corpus[0], Reader.public())


@pytest.fixture(scope="session")
def staff_scope(example_corpus):
    from askdocs.edge_runtime.scope import Reader, make_scope

    return make_scope(example_corpus[0], Reader("ana", frozenset({"staff"})))
