"""Pelican adapter: `PLUGINS = ["askdocs"]` is all a blog/docs team adds.

Wiring only. Restricted articles and pages (`askdocs_groups`) are given
Pelican's `hidden` status so no index, tag, category, archive or feed lists
them; every written page gets the askdocs meta tags and the widget; real
articles and pages go to the builder; shards are written on `finalized`.
Options (all optional) live in `ASKDOCS = {...}` in the Pelican settings.
"""

from __future__ import annotations

import logging
from pathlib import Path

from askdocs.plugin.builder import BuildOptions, IndexBuilder, RawPage, suggested_questions
from askdocs.plugin.tags import inject_head, inject_widget
from pelican import signals

from askdocs.errors import AskdocsError
from askdocs.models import AUTO

log = logging.getLogger("askdocs.pelican")

OPTIONS = {
    "model": AUTO,
    "private_dir": None,
    "keep_restricted_html": False,
    "bundle_model": False,
    "previous": None,
    "widget": True,
    "endpoint": None,
    "support_url": None,
    "token_endpoint": None,
    "threads": 0,
    "progress": True,
    "llms_txt": True,
    "suggested_questions": None,
}


def _options(settings: dict) -> dict:
    given = settings.get("ASKDOCS") or {}
    if not isinstance(given, dict):
        raise AskdocsError("ASKDOCS in the Pelican settings must be a dict")
    unknown = sorted(set(given) - set(OPTIONS))
    if unknown:
        raise AskdocsError(
            f"unknown ASKDOCS option(s) {', '.join(unknown)}; known: {', '.join(sorted(OPTIONS))}"
        )
    return {**OPTIONS, **given}


def _meta(content) -> dict:
    metadata = getattr(content, "metadata", {}) or {}
    meta: dict = {}
    groups = metadata.get("askdocs_groups")
    if groups:
        values = groups if isinstance(groups, list) else str(groups).split(",")
        meta["groups"] = sorted({g.strip() for g in values if g.strip()})
    if str(metadata.get("askdocs_exclude", "")).strip().lower() in ("true", "1", "yes"):
        meta["exclude"] = True
    when = metadata.get("modified") or metadata.get("date")
    if when is not None:
        meta["lastmod"] = when.date().isoformat() if hasattr(when, "date") else str(when)
    return meta


class PelicanAdapter:
    def __init__(self) -> None:
        self.builder: IndexBuilder | None = None
        self.options: dict = {}
        self.output: Path | None = None

    def initialized(self, pelican) -> None:
        settings = pelican.settings
        self.options = _options(settings)
        self.output = Path(settings["OUTPUT_PATH"]).resolve()
        o = self.options
        build = BuildOptions(
            site_dir=self.output,
            site_url=settings.get("SITEURL") or "",
            default_locale=str(settings.get("DEFAULT_LANG") or "en").split("_")[0].lower(),
            model=o["model"],
            private_dir=Path(o["private_dir"]) if o["private_dir"] else None,
            keep_restricted_html=o["keep_restricted_html"],
            bundle_model=o["bundle_model"],
            previous=o["previous"],
            threads=o["threads"],
            progress=o["progress"],
            llms_txt=o["llms_txt"],
            support_url=o["support_url"],
            suggested_questions=suggested_questions(o["suggested_questions"]),
        )
        self.builder = IndexBuilder(build)
        self.builder.remember_previous()

    def content_object_init(self, content) -> None:
        if _meta(content).get("groups") and getattr(content, "status", None) == "published":
            # Hidden content is written but never listed (indexes, tags, feeds).
            content.status = "hidden"

    def content_written(self, path: str, context: dict) -> None:
        if self.builder is None or self.output is None:
            return
        file = Path(path).resolve()
        if file.suffix != ".html":
            return
        content = context.get("article") or context.get("page")
        meta = _meta(content) if content is not None else {}
        html = file.read_text(encoding="utf-8")
        from askdocs.plugin.privacy import site_path_of

        url = site_path_of(file, self.output)
        html = inject_head(html, meta)
        if self.options["widget"]:
            html = inject_widget(
                html,
                url,
                endpoint=self.options["endpoint"],
                support_url=self.options["support_url"],
                token_endpoint=self.options["token_endpoint"],
            )
        file.write_text(html, encoding="utf-8")
        if content is None or getattr(content, "status", "published") == "draft":
            return  # listings (index, tags, categories, archives) and drafts are not indexed
        self.builder.add(RawPage(url=url, html=html, meta=meta, path=file))

    def finalized(self, pelican) -> None:
        if self.builder is None:
            return
        builder, self.builder = self.builder, None
        builder.build()


def register() -> None:
    adapter = PelicanAdapter()
    signals.initialized.connect(adapter.initialized, weak=False)
    signals.content_object_init.connect(adapter.content_object_init, weak=False)
    signals.content_written.connect(adapter.content_written, weak=False)
    signals.finalized.connect(adapter.finalized, weak=False)
