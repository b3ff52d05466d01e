#!/usr/bin/env bash
# Builds the evaluation corpora vendored in evals/corpora/ and site_example with
# askdocs, then runs `askdocs eval` on the question sets: retrieval beside plain
# lunr.py over the generator's own search index (MkDocs sites), and answers through
# a real /api/chat.
#   scripts/eval.sh [--no-chat] [QUESTION_SET...]
#   sets: the tuning sets site_example httpx fastapi mkdocs.a mkdocs.b uvicorn.a
#   uvicorn.b pydantic.a pydantic.b (the default), or with the Sphinx tuning sets sphinx/pytest
#   sphinx/scrapy sphinx/tornado (sites fetched from Debian by scripts/fetch_fresh.sh) `tuning`, and the held-out sets
#   heldout/starlette heldout/flask heldout/click heldout/marshmallow (or `heldout`), and the
#   fresh held-out sets fresh/drf fresh/borg fresh/knot-resolver (or `fresh`: Debian's
#   rendered -doc packages, fetched by scripts/fetch_fresh.sh), and the new-user set
#   new-user sets newuser/vdirsyncer, newuser/cmd2, newuser/black, newuser/cookiecutter and
#   newuser/doit (or `newuser`; fetched the same way), and the follow-ups written blind on six
#   of those sites (`followups`), and the blind sets blind/structlog, blind/pint and blind/celery (or `blind`).
#   Flask, Click and Marshmallow are Sphinx sites: each is built in its own virtualenv
#   under .artifacts/ with the versions its evals/corpora/NAME/BUILD.md pins.
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
    tuning) SETS+=(site_example httpx fastapi mkdocs.a mkdocs.b uvicorn.a uvicorn.b pydantic.a pydantic.b sphinx/pytest sphinx/scrapy sphinx/tornado) ;;
    heldout) SETS+=(heldout/starlette heldout/flask heldout/click heldout/marshmallow) ;;
    fresh) SETS+=(fresh/drf fresh/borg fresh/knot-resolver) ;;
    newuser) SETS+=(newuser/vdirsyncer newuser/cmd2 newuser/black newuser/cookiecutter newuser/doit) ;;
    blind) SETS+=(blind/structlog blind/pint blind/celery) ;;
    followups) SETS+=(followups/borg followups/drf followups/knot-resolver followups/vdirsyncer followups/click followups/flask) ;;
    *) SETS+=("$arg") ;;
  esac
done
[ ${#SETS[@]} -gt 0 ] || SETS=(site_example httpx fastapi mkdocs.a mkdocs.b uvicorn.a uvicorn.b pydantic.a pydantic.b)
for set in "${SETS[@]}"; do
  if [ ! -f "evals/$set.jsonl" ]; then
    echo "eval.sh: no question set evals/$set.jsonl" >&2
    exit 2
  fi
done
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-1767225600}

# A Sphinx corpus: its own virtualenv with the pinned packages (BUILD.md), `dirhtml` URLs.
sphinx_site() {
  local corpus=$1; shift
  local venv=.artifacts/venv-$corpus
  if [ ! -x "$venv/bin/sphinx-build" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q "$@"
  fi
  local doctrees
  doctrees=$(mktemp -d)
  (cd "$CORPORA/$corpus" && "$OLDPWD/$venv/bin/sphinx-build" -b dirhtml -E -q -d "$doctrees" docs "$OUT/$corpus")
  rm -rf "$doctrees"
}

build() {
  local corpus=$1
  case "$corpus" in
    flask)
      sphinx_site flask sphinx==8.2.3 alabaster==1.0.0 docutils==0.21.2 Pygments==2.21.0 flask==3.1.3 \
        Werkzeug==3.1.9 Jinja2==3.1.6 click==8.5.1 itsdangerous==2.2.0 blinker==1.9.0 MarkupSafe==3.0.4
      "$PY" -m askdocs.cli build "$OUT/$corpus" -q --private-dir "$OUT/$corpus.private" ;;
    click)
      sphinx_site click sphinx==9.0.4 myst-parser==5.2.0 click==8.5.1 docutils==0.22.4 alabaster==1.0.0 \
        Pygments==2.21.0
      "$PY" -m askdocs.cli build "$OUT/$corpus" -q --private-dir "$OUT/$corpus.private" ;;
    marshmallow)
      sphinx_site marshmallow sphinx==8.2.3 alabaster==1.0.0 docutils==0.21.2 Pygments==2.21.0 Jinja2==3.1.6 \
        autodocsumm==0.2.15 sphinx-issues==6.0.0 marshmallow==4.4.0
      "$PY" -m askdocs.cli build "$OUT/$corpus" -q --private-dir "$OUT/$corpus.private" ;;
    drf|borg|knot-resolver|vdirsyncer|cmd2|black|cookiecutter|doit|structlog|pint|celery|pytest|scrapy|tornado)  # already rendered: Debian's -doc packages
      OUT="$OUT" scripts/fetch_fresh.sh "$corpus"
      "$PY" -m askdocs.cli build "$OUT/$corpus" -q --private-dir "$OUT/$corpus.private" ;;
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
  corpus=${corpus#fresh/}
  corpus=${corpus#newuser/}
  corpus=${corpus#followups/}
  corpus=${corpus#blind/}
  corpus=${corpus#sphinx/}
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
