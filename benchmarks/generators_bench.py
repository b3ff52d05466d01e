"""Extraction on generators the tuning sets do not use: what a build keeps of each site, and what leaks.

The sites are Debian's rendered documentation packages (`scripts/fetch_fresh.sh
generators`, pinned versions): Celery (Sphinx, celery theme), Dask
(sphinx-book-theme, numpydoc, sphinx-tabs), vdirsyncer (sphinx_rtd_theme), GNU
diffutils (texinfo), LMDB (Doxygen) and Asciidoctor's API (RDoc). Only vdirsyncer
has questions (evals/newuser/, never tuned on): this is the check of how a build reads
a theme nobody tuned on, and the place to look first when a new generator is reported.

Per site, an in-process `askdocs build` of a copy of the folder, then from its
shards:

* pages indexed, pages excluded, chunks, build warnings, seconds;
* the share of headings below the title that carry an anchor (citations land on
  the section, not the top of the page);
* text that repeats across pages: lines of prose found on at least a third of
  the pages (three pages or more), the usual sign of theme chrome (navigation,
  banners, "previous / next") read as content; the most repeated are printed to
  be read (an index page's stock sentence repeats too), not scored.

Goal: at least 0.9 of the headings below each page's title carry an anchor.

    .venv/bin/python benchmarks/generators_bench.py [--quick] [NAME...]
"""

from __future__ import annotations

import argparse
import logging
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _benchlib import Report, progress, table  # noqa: E402
from askdocs.plugin.builder import BuildOptions  # noqa: E402
from askdocs.plugin.sitedir import build_site  # noqa: E402

from askdocs.shards import SHARD_DIR, load_shards  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SITES = ROOT / ".artifacts" / "eval"
GENERATORS = {
    "celery": "Sphinx, celery theme",
    "dask": "Sphinx, sphinx-book-theme, numpydoc, sphinx-tabs",
    "vdirsyncer": "Sphinx, sphinx_rtd_theme",
    "diffutils": "GNU texinfo (makeinfo)",
    "lmdb": "Doxygen",
    "asciidoctor": "RDoc (darkfish)",
}
QUICK = ("vdirsyncer", "diffutils", "lmdb")  # the small ones
REPEAT_SHARE = 1 / 3  # of the pages, at least 3
MIN_REPEAT_CHARS = 12  # shorter lines ("Note", "Example:") repeat on any site


class _Count(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1


def _prose_lines(content: str) -> set[str]:
    """The page's lines outside code blocks, headings and tables."""
    found, code = set(), False
    for line in content.splitlines():
        if line.startswith("```"):
            code = not code
        elif not code and len(line.strip()) >= MIN_REPEAT_CHARS and not line.startswith(("#", "|")):
            found.add(line.strip())
    return found


def measure(name: str, source: Path, tmp: Path) -> dict:
    site = tmp / name
    shutil.copytree(source, site, ignore=shutil.ignore_patterns(SHARD_DIR))
    warnings = _Count()
    logger = logging.getLogger("askdocs.build")
    logger.addHandler(warnings)
    started = time.perf_counter()
    try:
        report = build_site(BuildOptions(site_dir=site, progress=False, private_dir=tmp / f"{name}-private"))
    finally:
        logger.removeHandler(warnings)
    seconds = time.perf_counter() - started
    shards = load_shards(site / SHARD_DIR)
    headings = [h for page in shards.pages for h in page.headings[1:]]
    anchored = sum(1 for h in headings if h.anchor)
    lines: Counter[str] = Counter()
    for page in shards.pages:
        lines.update(_prose_lines(page.content))
    floor = max(3, REPEAT_SHARE * len(shards.pages))
    repeated = [(text, n) for text, n in lines.most_common() if n >= floor]
    return {
        "generator": GENERATORS.get(name, "?"),
        "pages": report.pages,
        "excluded": report.excluded,
        "chunks": report.chunks,
        "warnings": warnings.count,
        "seconds": seconds,
        "headings": len(headings),
        "anchored": anchored / len(headings) if headings else None,
        "repeated_lines": len(repeated),
        "repeated": repeated[:5],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help=f"only {', '.join(QUICK)}")
    parser.add_argument("names", nargs="*", help=f"any of {', '.join(GENERATORS)}")
    args = parser.parse_args()
    names = args.names or list(QUICK if args.quick else GENERATORS)
    missing = [n for n in names if not (SITES / n / "index.html").is_file()]
    if missing:
        print(
            f"generators_bench: no site for {', '.join(missing)} under {SITES}; "
            "fetch them with `scripts/fetch_fresh.sh generators` (after `apt-get update`)",
            file=sys.stderr,
        )
        return 2
    report = Report("generators_bench", args.quick)
    report.header("generators_bench: how a build reads generators no question set uses")
    rows = []
    with tempfile.TemporaryDirectory(prefix="askdocs-generators-") as tmp:
        for name in names:
            progress(f"{name}: askdocs build of a copy ...")
            result = measure(name, SITES / name, Path(tmp))
            report.results[name] = result
            anchored = result["anchored"]
            rows.append(
                [
                    name,
                    result["generator"],
                    result["pages"],
                    result["excluded"],
                    result["chunks"],
                    result["warnings"],
                    f"{anchored:.2f}" if anchored is not None else "-",
                    result["repeated_lines"],
                    f"{result['seconds']:.1f}",
                ]
            )
    table(["site", "generator", "pages", "excluded", "chunks", "warnings", "anchored", "repeated", "s"], rows)
    for name in names:
        for text, count in report.results[name]["repeated"]:
            print(f"  {name}: on {count} pages: {text[:100]}")
    for name in names:
        anchored = report.results[name]["anchored"]
        report.goal(f"{name}: headings with an anchor", anchored, ">=", 0.9)
    report.finish()
    return 0


if __name__ == "__main__":
    sys.exit(main())
