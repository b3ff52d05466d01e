"""Real helper processes for the scale-out tests: redis-server and nginx on 127.0.0.1 in temp dirs.

Both come from Debian packages that scripts/setup.sh installs; a missing
binary is a clear failure naming that script, never a skipped test.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import free_port

ROOT = Path(__file__).resolve().parents[1]


def binary(name: str) -> str:
    found = shutil.which(name) or next(
        (str(p) for p in (Path("/usr/sbin") / name, Path("/usr/bin") / name) if p.is_file()), None
    )
    if found is None:
        pytest.fail(f"{name} is not installed: run scripts/setup.sh (it installs redis-server and nginx)")
    return found


def wait_port(port: int, timeout: float = 10.0) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise AssertionError(f"nothing listens on 127.0.0.1:{port} after {timeout}s")


class RedisServer:
    """A throwaway redis-server (no persistence) that can be stopped and started again on its port."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None
        self.start()

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                binary("redis-server"),
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(self.workdir),
                "--save",
                "",
                "--appendonly",
                "no",
                "--protected-mode",
                "yes",
            ],
            stdout=(self.workdir / "redis.log").open("a"),
            stderr=subprocess.STDOUT,
        )
        wait_port(self.port)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)
        self.process = None

    def client(self):
        import redis

        return redis.Redis.from_url(self.url)


NGINX_MAIN = """
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
daemon off;
events {{ worker_connections 1024; }}
http {{
    access_log {dir}/access.log;
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    upstream askdocs {{
{servers}
        keepalive 16;
        keepalive_timeout 4s;
    }}
    server {{
        listen 127.0.0.1:{port};
        include {site};
    }}
}}
"""


class Nginx:
    """nginx in front of replicas, with the locations that deploy/nginx/askdocs.locations.conf ships."""

    def __init__(self, workdir: Path, ports: list[int]) -> None:
        self.workdir = workdir
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        servers = "\n".join(f"        server 127.0.0.1:{p} max_fails=1 fail_timeout=5s;" for p in ports)
        self.conf = workdir / "nginx.conf"
        self.conf.write_text(
            NGINX_MAIN.format(
                dir=workdir,
                servers=servers,
                port=self.port,
                site=ROOT / "deploy" / "nginx" / "askdocs.locations.conf",
            )
        )
        check = subprocess.run(
            [binary("nginx"), "-t", "-c", str(self.conf), "-e", str(workdir / "error.log")],
            capture_output=True,
            text=True,
        )
        assert check.returncode == 0, check.stderr
        self.process = subprocess.Popen(
            [binary("nginx"), "-c", str(self.conf), "-e", str(workdir / "error.log")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
        )
        wait_port(self.port)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)
