"""`pelican.plugins.askdocs`: Pelican finds askdocs in its plugin namespace."""

from askdocs.plugin.pelican import register

__all__ = ["register"]
