"""The browser widget, shipped as package data."""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def widget_js() -> bytes:
    return resources.files(__name__).joinpath("widget.js").read_bytes()


def lunr_scripts(locales: list[str]) -> dict[str, bytes]:
    """lunr.js and the lunr-languages files the widget's offline search needs.

    They come from MkDocs' own search plugin (a dependency), which ships
    lunr.js 2.3.9 and lunr-languages.
    """
    import mkdocs.contrib.search as search

    root = Path(search.__file__).parent
    files = {"lunr.js": (root / "templates" / "search" / "lunr.js").read_bytes()}
    wanted = sorted({loc for loc in locales if loc != "en"})
    support = root / "lunr-language" / "lunr.stemmer.support.js"
    for locale in wanted:
        script = root / "lunr-language" / f"lunr.{locale}.js"
        if script.is_file():
            files["lunr.stemmer.support.js"] = support.read_bytes()
            files[f"lunr.{locale}.js"] = script.read_bytes()
    return files
