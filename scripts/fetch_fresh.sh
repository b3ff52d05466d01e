#!/usr/bin/env bash
# Fetches the three "fresh" held-out documentation sites (evals/fresh/) from
# Debian's rendered -doc packages into .artifacts/eval/<name>/, each a
# self-contained static site with index.html at its root.
#   scripts/fetch_fresh.sh [NAME...|generators]
#   names: drf borg knot-resolver (the default: the fresh question sets' sites), and the
#   `generators` sites, which benchmarks/generators_bench.py reads: celery dask vdirsyncer
#   diffutils lmdb asciidoctor (of those only vdirsyncer has questions: evals/newuser/), and the
#   other new-user sites: cmd2 black cookiecutter doit (`newuser` fetches all five), and the
#   blind sites structlog pint celery (`blind`, evals/blind/; celery is a `generators` site too),
#   and the Sphinx tuning sites pytest scrapy tornado (`sphinx-tuning`, evals/sphinx/)
# Needs apt-get (after `apt-get update`) and dpkg. Idempotent: each run replaces
# .artifacts/eval/<name>/. Symlinks are resolved (cp -L); dangling ones (theme
# JS/CSS/fonts shared from other Debian packages) are dropped.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-.artifacts/eval}

# name  package=version  HTML root inside the package
CORPORA="
drf            python-djangorestframework-doc=3.14.0-2+deb12u1  usr/share/doc/python3-djangorestframework/html
borg           borgbackup-doc=1.2.4-1                           usr/share/doc/borgbackup/html
knot-resolver  knot-resolver-doc=5.6.0-1+deb12u1                usr/share/doc/knot-resolver
celery         python-celery-doc=5.2.6-5                        usr/share/doc/python-celery-doc/html
dask           python-dask-doc=2022.12.1+dfsg-2                 usr/share/doc/python-dask-doc/html
vdirsyncer     vdirsyncer-doc=0.19.0-1                          usr/share/doc/vdirsyncer-doc/html
diffutils      diffutils-doc=1:3.8-4                            usr/share/doc/diffutils
lmdb           lmdb-doc=0.9.24-1                                usr/share/doc/lmdb-doc/html
asciidoctor    asciidoctor-doc=2.0.18-2                         usr/share/doc/asciidoctor-doc/html
cmd2           python-cmd2-doc=2.4.2+ds-3                       usr/share/doc/python-cmd2-doc/html
black          python-black-doc=23.1.0-1                        usr/share/doc/python-black-doc/html
cookiecutter   python-cookiecutter-doc=1.7.3-3                  usr/share/doc/python-cookiecutter-doc/html
doit           python-doit-doc=0.31.1-3.3                       usr/share/doc/python-doit-doc/html
structlog      python-structlog-doc=22.3.0-2                    usr/share/doc/python-structlog-doc/html
pint           python-pint-doc=0.19.2-1                         usr/share/doc/python-pint-doc/html
pytest         python-pytest-doc=7.2.1-2                        usr/share/doc/python-pytest-doc/html
scrapy         python-scrapy-doc=2.8.0-2                        usr/share/doc/python-scrapy-doc/html
tornado        python-tornado-doc=6.2.0-3+deb12u4               usr/share/doc/python-tornado-doc/html
"
GENERATORS=(celery dask vdirsyncer diffutils lmdb asciidoctor)

NAMES=()
for arg in "$@"; do
  case "$arg" in
    generators) NAMES+=("${GENERATORS[@]}") ;;
    newuser) NAMES+=(vdirsyncer cmd2 black cookiecutter doit) ;;
    blind) NAMES+=(structlog pint celery) ;;
    sphinx-tuning) NAMES+=(pytest scrapy tornado) ;;
    *) NAMES+=("$arg") ;;
  esac
done
[ ${#NAMES[@]} -gt 0 ] || NAMES=(drf borg knot-resolver)

TMP=$(mktemp -d)
chmod 755 "$TMP"
trap 'rm -rf "$TMP"' EXIT

for name in "${NAMES[@]}"; do
  line=$(echo "$CORPORA" | awk -v n="$name" '$1 == n')
  if [ -z "$line" ]; then
    echo "fetch_fresh: unknown corpus '$name' (known: $(echo "$CORPORA" | awk 'NF {printf "%s ", $1}'))" >&2
    exit 2
  fi
  read -r _ pkgver root <<<"$line"
  work="$TMP/$name"
  mkdir -p "$work/x"
  chmod 777 "$work"   # apt-get download runs as the _apt user and writes here
  echo "== $name: apt-get download $pkgver"
  if ! (cd "$work" && apt-get download "$pkgver" >/dev/null); then
    echo "fetch_fresh: 'apt-get download $pkgver' failed." >&2
    echo "  Run 'apt-get update' first; the pinned version must still be in the archive" >&2
    echo "  (check with: apt-cache policy ${pkgver%%=*})." >&2
    exit 1
  fi
  dpkg -x "$work"/*.deb "$work/x"
  find "$work/x/$root" -xtype l -delete          # drop dangling symlinks
  dest="$OUT/$name"
  rm -rf "$dest"
  mkdir -p "$OUT"
  cp -rL "$work/x/$root" "$dest"
  pages=$(find "$dest" -name '*.html' | wc -l)
  echo "   -> $dest ($pages HTML files, index: $dest/index.html)"
done
