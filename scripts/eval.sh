#!/usr/bin/env bash
# Builds the evaluation corpora vendored in evals/corpora/ (httpx, FastAPI en+es,
# MkDocs, Uvicorn, Pydantic) and site_example with askdocs, then runs `askdocs eval`
# on the dev question sets: retrieval beside plain lunr.py over MkDocs' own search
# index, and answers through a real /api/chat.
#   scripts/eval.sh [--no-chat] [QUESTION_SET...]
#   sets: site_example httpx fastapi (the default), and the held-out sets
#   heldout/mkdocs.a heldout/mkdocs.b heldout/uvicorn.a heldout/uvicorn.b
#   heldout/pydantic.a heldout/pydantic.b (or `heldout` for all six)
set -euo pipefail
cd "$(dirname "$0")/.."
CORPORA=${CORPORA:-evals/corpora}
OUT=${OUT:-.artifacts/eval}
PY=${PY:-.venv/bin/python}
CHAT=--chat
SETS=()
for arg in "$@"; do
  case "$arg" in
    --no-chat) CHAT= ;;
    heldout) SETS+=(heldout/mkdocs.a heldout/mkdocs.b heldout/uvicorn.a heldout/uvicorn.b
                    heldout/pydantic.a heldout/pydantic.b) ;;
    *) SETS+=("$arg") ;;
  esac
done
[ ${#SETS[@]} -gt 0 ] || SETS=(site_example httpx fastapi)
for set in "${SETS[@]}"; do
  if [ ! -f "evals/$set.jsonl" ]; then
    echo "eval.sh: no question set evals/$set.jsonl" >&2
    exit 2
  fi
done
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-1767225600}

build() {
  local corpus=$1
  case "$corpus" in
    site_example)
      "$PY" -m mkdocs build -q -f site_example/mkdocs.yml -d "$OUT/site_example" ;;
    fastapi)
      "$PY" -m mkdocs build -q -f "$CORPORA/fastapi/mkdocs.yml" -d "$OUT/fastapi"
      "$PY" -m mkdocs build -q -f "$CORPORA/fastapi/mkdocs.es.yml" -d "$OUT/fastapi/es"
      "$PY" -m askdocs.cli build "$OUT/fastapi" -q --private-dir "$OUT/fastapi.private" ;;
    *)
      if [ ! -f "$CORPORA/$corpus/mkdocs.yml" ]; then
        echo "eval.sh: no corpus $CORPORA/$corpus/mkdocs.yml" >&2
        return 2
      fi
      "$PY" -m mkdocs build -q -f "$CORPORA/$corpus/mkdocs.yml" -d "$OUT/$corpus"
      "$PY" -m askdocs.cli build "$OUT/$corpus" -q --private-dir "$OUT/$corpus.private" ;;
  esac
}

built=" "
for set in "${SETS[@]}"; do
  corpus=${set#heldout/}
  corpus=${corpus%.[ab]}
  echo "=== $set (corpus $corpus)"
  if [[ "$built" != *" $corpus "* ]]; then
    # MkDocs' warnings about the corpora's missing images and left-out pages are expected.
    build "$corpus" 2>&1 | grep -v "^WARNING\|^INFO\|^  -" || true
    [ -f "$OUT/$corpus/_askdocs/manifest.json" ] || { echo "eval.sh: building $corpus failed" >&2; exit 1; }
    built="$built$corpus "
  fi
  private=()
  [ "$corpus" = site_example ] && private=(--private "$OUT/askdocs-private")
  "$PY" -m askdocs.cli eval "evals/$set.jsonl" --site "$OUT/$corpus" "${private[@]}" --baseline $CHAT \
    --json "$OUT/${set//\//-}-report.json"
done
