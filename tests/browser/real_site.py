"""Build and serve a site with the real `askdocs` CLI, for the real-runtime browser tests."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

ASKDOCS = Path(sys.executable).parent / "askdocs"


def require_askdocs() -> None:
    """Skip (with the reason) when the CLI or a prepared model is missing."""
    if not ASKDOCS.exists():
        pytest.skip("the askdocs CLI is not installed in this environment")
    if subprocess.run([ASKDOCS, "model", "info"], capture_output=True).returncode != 0:
        pytest.skip("no prepared embedding model: run `askdocs model prepare`")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def serve(site: Path, port: int | None = None) -> Iterator[str]:
    """`askdocs serve SITE` on a free port until the block ends; yields its base URL."""
    port = port or free_port()
    env = dict(os.environ, ASKDOCS_RATE_LIMIT="off")
    server = subprocess.Popen(
        [ASKDOCS, "serve", str(site), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=env,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    try:
        while True:
            try:
                with urllib.request.urlopen(url + "/healthz", timeout=2) as res:
                    if json.load(res)["status"] == "ok":
                        break
            except OSError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                server.kill()
                output = server.stdout.read().decode(errors="replace") if server.stdout else ""
                pytest.fail(f"askdocs serve did not start:\n{output}")
            time.sleep(0.2)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
