"""`askdocs serve`: one uvicorn process for the site, the widget and the API."""

from __future__ import annotations

import logging
from pathlib import Path
from types import FrameType

import uvicorn
from askdocs.edge_runtime.app import create_app
from askdocs.edge_runtime.settings import Settings
from askdocs.edge_runtime.slowclients import header_deadline_protocol

from askdocs.shards import SHARD_DIR

log = logging.getLogger("askdocs.runtime")


def settings_for(site_dir: str | None, index: str | None, private: str | None, **overrides) -> Settings:
    if site_dir:
        root = Path(site_dir)
        index = index or str(root / SHARD_DIR)
        default_private = root.resolve().parent / "askdocs-private"
        if private is None and (default_private / "manifest.json").is_file():
            private = str(default_private)
        overrides["site_dir"] = root
    if not index:
        raise SystemExit("askdocs serve: give a built SITE_DIR or --index DIR_OR_URL")
    overrides = {k: v for k, v in overrides.items() if v is not None}
    return Settings.from_env(index=index, private=private, **overrides)


class _Server(uvicorn.Server):
    """uvicorn, telling running answers how long they have once SIGTERM/SIGINT arrives."""

    def __init__(self, config: uvicorn.Config, runtime) -> None:
        super().__init__(config)
        self.runtime = runtime

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if not self.should_exit:
            grace = self.runtime.settings.shutdown_grace
            log.info("shutting down: no new connections; running answers get %.0fs to finish", grace)
            self.runtime.drain.begin(grace)
        super().handle_exit(sig, frame)


def serve(settings: Settings, host: str, port: int) -> None:
    app = create_app(settings)
    log.info("askdocs serving %s on http://%s:%d", settings.site_dir or settings.index, host, port)
    # proxy_headers=False: uvicorn would otherwise believe X-Forwarded-For from 127.0.0.1 (its
    # default FORWARDED_ALLOW_IPS); askdocs reads forwarding headers itself, only from
    # ASKDOCS_TRUSTED_PROXIES (clientaddr.py).
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="info",
        # Streams end by themselves at the grace deadline (with an `error` event); the margin
        # lets that last event reach the reader before uvicorn cancels what is left.
        timeout_graceful_shutdown=int(settings.shutdown_grace) + 2,
        proxy_headers=False,
        http=header_deadline_protocol(settings.header_timeout),
        # An idle keep-alive connection is closed after this; whoever reuses connections to
        # askdocs (nginx's upstream `keepalive_timeout`, a load balancer, an HTTP client's pool)
        # must give up on them sooner, else a request sent as the server closes is reset.
        timeout_keep_alive=settings.keep_alive,
    )
    _Server(config, app.state.runtime).run()
