"""MkDocs adapter: `- askdocs` under `plugins:` is all a docs team adds.

Wiring only: each page's final themed HTML (`on_post_page`) goes to the
builder as a plain record; shards are written after the last build. With
mkdocs-static-i18n, which re-runs the build once per locale inside its own
`on_post_build`, this plugin's `on_post_build` runs after i18n's and writes
once, when the outermost build finishes.
"""

from __future__ import annotations

import html
import logging
from pathlib import Path

from askdocs.plugin.builder import BuildOptions, IndexBuilder, RawPage, suggested_questions
from askdocs.plugin.chunking import ChunkSettings
from askdocs.plugin.tags import inject_head, inject_widget
from mkdocs.config import base
from mkdocs.config import config_options as c
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority, get_plugin_logger
from mkdocs.structure.pages import Page

from askdocs.errors import AskdocsError
from askdocs.models import AUTO

log = get_plugin_logger(__name__)


class _SuggestedQuestions(c.BaseConfigOption[dict]):
    """`{locale: [question, ...]}`, checked by the builder's own rules."""

    def __init__(self) -> None:
        super().__init__()
        self.default = {}

    def run_validation(self, value: object) -> dict:
        try:
            return suggested_questions(value)
        except AskdocsError as exc:
            raise base.ValidationError(str(exc)) from exc


class AskdocsConfig(base.Config):
    model = c.Type(str, default=AUTO)
    private_dir = c.Optional(c.Type(str))
    keep_restricted_html = c.Type(bool, default=False)
    bundle_model = c.Type(bool, default=False)
    previous = c.Optional(c.Type(str))
    widget = c.Type(bool, default=True)
    endpoint = c.Optional(c.Type(str))
    support_url = c.Optional(c.Type(str))
    token_endpoint = c.Optional(c.Type(str))
    default_locale = c.Optional(c.Type(str))
    chunk_tokens = c.Type(int, default=400)
    chunk_overlap = c.Type(int, default=50)
    chunk_min_tokens = c.Type(int, default=100)
    threads = c.Type(int, default=0)
    progress = c.Type(bool, default=True)
    llms_txt = c.Type(bool, default=True)
    enabled = c.Type(bool, default=True)
    suggested_questions = _SuggestedQuestions()


class AskdocsPlugin(BasePlugin[AskdocsConfig]):
    def __init__(self) -> None:
        self._builder: IndexBuilder | None = None
        self._root: Path | None = None
        self._embedders: dict = {}  # kept across `mkdocs serve` rebuilds

    def load_config(self, options, config_file_path=None):
        errors, warnings = super().load_config(options, config_file_path)
        known = {name for name, _ in self.config_scheme}
        unknown = sorted(set(options) - known)
        if unknown:
            from mkdocs.config.base import ValidationError

            errors.append(
                (
                    ", ".join(unknown),
                    ValidationError(
                        f"unknown askdocs option(s) {', '.join(unknown)}; "
                        f"known options: {', '.join(sorted(known))}"
                    ),
                )
            )
            warnings = [w for w in warnings if w[0] not in unknown]
        return errors, warnings

    def on_startup(self, *, command: str, dirty: bool) -> None:
        # Its presence keeps this object across `mkdocs serve` rebuilds, so the
        # model session and the previous vectors stay warm between saves.
        self._command = command

    def _nested(self, config: MkDocsConfig) -> bool:
        i18n = config.plugins.get("i18n")
        return bool(getattr(i18n, "building", False))

    def on_pre_build(self, *, config: MkDocsConfig) -> None:
        if not self.config.enabled or self._nested(config):
            return
        self._root = Path(config.site_dir)
        options = BuildOptions(
            site_dir=self._root,
            site_url=config.site_url or "",
            default_locale=self.config.default_locale or _theme_locale(config),
            model=self.config.model,
            private_dir=Path(self.config.private_dir) if self.config.private_dir else None,
            keep_restricted_html=self.config.keep_restricted_html,
            bundle_model=self.config.bundle_model,
            previous=self.config.previous,
            chunks=ChunkSettings(
                self.config.chunk_tokens, self.config.chunk_overlap, self.config.chunk_min_tokens
            ),
            threads=self.config.threads,
            progress=self.config.progress,
            llms_txt=self.config.llms_txt,
            support_url=self.config.support_url,
            suggested_questions=self.config.suggested_questions,
        )
        try:
            self._builder = IndexBuilder(options, embedders=self._embedders, logger=log)
            self._builder.remember_previous()
        except AskdocsError as exc:
            raise PluginError(f"askdocs: {exc}") from exc

    def on_post_page(self, output: str, *, page: Page, config: MkDocsConfig) -> str:
        if self._builder is None or self._root is None:
            return output
        site_dir = Path(config.site_dir)
        prefix = site_dir.resolve().relative_to(self._root.resolve()).as_posix()
        prefix = "" if prefix == "." else prefix + "/"
        url = "/" + prefix + page.url
        meta = _page_meta(page.meta)
        output = inject_head(output, meta)
        if self.config.widget:
            output = inject_widget(
                output,
                url,
                endpoint=self.config.endpoint,
                support_url=self.config.support_url,
                token_endpoint=self.config.token_endpoint,
            )
        self._builder.add(RawPage(url=url, html=output, meta=meta, path=site_dir / page.file.dest_uri))
        return output

    @event_priority(-200)
    def on_post_build(self, *, config: MkDocsConfig) -> None:
        if self._builder is None or self._nested(config):
            return
        builder, self._builder = self._builder, None
        try:
            builder.build()
        except AskdocsError as exc:
            raise PluginError(f"askdocs: {exc}") from exc
        self._embedders = builder.loaded_embedders


def _theme_locale(config: MkDocsConfig) -> str:
    i18n = config.plugins.get("i18n")
    default = getattr(i18n, "default_language", None)
    if default:
        return str(default).split("_")[0].split("-")[0].lower()
    theme = config.theme
    locale = theme.get("locale") or theme.get("language") or "en"
    return str(locale).split("_")[0].split("-")[0].lower()


def _page_meta(front_matter: dict) -> dict:
    """Front matter → the builder's page metadata (the names in docs/pages/build.md)."""
    meta: dict = {}
    own = front_matter.get("askdocs") or {}
    if not isinstance(own, dict):
        logging.getLogger(__name__).warning("askdocs: front matter `askdocs` must be a mapping")
        own = {}
    groups = own.get("groups")
    if isinstance(groups, str):
        groups = [g.strip() for g in groups.split(",")]
    if groups:
        meta["groups"] = sorted({str(g).strip() for g in groups if str(g).strip()})
    if own.get("exclude"):
        meta["exclude"] = True
    if own.get("kind"):
        meta["kind"] = str(own["kind"])
    date = front_matter.get("updated") or front_matter.get("date")
    if date:
        meta["lastmod"] = html.escape(str(date))
    return meta
