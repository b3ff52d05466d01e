"""askdocs: chat with your docs, built from the rendered site."""

from __future__ import annotations

__version__ = "0.1.0"


def register() -> None:
    """Pelican entry point, so that `PLUGINS = ["askdocs"]` works."""
    from askdocs.plugin.pelican import register as register_pelican

    register_pelican()
