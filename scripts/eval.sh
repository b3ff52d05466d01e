#!/usr/bin/env bash
# Builds the shared corpora (httpx, FastAPI en+es) and site_example with askdocs,
# then runs `askdocs eval` on the dev question sets: retrieval beside plain lunr.py
# over MkDocs' own search index, and answers through a real /api/chat.
#   scripts/eval.sh [--no-chat] [QUESTION_SET...]   (sets: site_example httpx fastapi)
set -euo pipefail
cd "$(dirname "$0")/.."
CORPORA=${CORPORA:-../shared/corpora}
OUT=${OUT:-.artifacts/eval}
PY=${PY:-.venv/bin/python}
CHAT=--chat
SETS=()
for arg in "$@"; do
  case "$arg" in
    --no-chat) CHAT= ;;
    *) SETS+=("$arg") ;;
  esac
done
[ ${#SETS[@]} -gt 0 ] || SETS=(site_example httpx fastapi)
mkdir -p "$OUT"
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-1767225600}

build() {
  case "$1" in
    site_example)
      "$PY" -m mkdocs build -q -f site_example/mkdocs.yml -d "$PWD/$OUT/site_example" ;;
    httpx)
      "$PY" -m mkdocs build -q -f "$CORPORA/httpx/mkdocs.yml" -d "$PWD/$OUT/httpx"
      "$PY" -m askdocs.cli build "$OUT/httpx" -q ;;
    fastapi)
      "$PY" -m mkdocs build -q -f "$CORPORA/fastapi/mkdocs.yml" -d "$PWD/$OUT/fastapi"
      "$PY" -m mkdocs build -q -f "$CORPORA/fastapi/mkdocs.es.yml" -d "$PWD/$OUT/fastapi/es"
      "$PY" -m askdocs.cli build "$OUT/fastapi" -q ;;
  esac
}

for set in "${SETS[@]}"; do
  echo "=== $set"
  build "$set" 2>&1 | grep -v "^WARNING\|^INFO\|^  -" || true
  private=()
  [ "$set" = site_example ] && private=(--private "$OUT/askdocs-private")
  "$PY" -m askdocs.cli eval "evals/$set.jsonl" --site "$OUT/$set" "${private[@]}" --baseline $CHAT \
    --json "$OUT/$set-report.json"
done
