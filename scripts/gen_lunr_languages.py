"""Regenerate askdocs/data/lunr_stopwords.json from the lunr-languages files MkDocs ships.

lunr.py's own language support downloads NLTK stop words at run time, which
fails offline; askdocs ships lunr-languages' lists instead so that the Python
index and lunr.js in the browser agree on what was dropped.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import mkdocs.contrib.search

LANGUAGES = {
    "da": "da",
    "de": "de",
    "nl": "nl",
    "es": "es",
    "fi": "fi",
    "fr": "fr",
    "hu": "hu",
    "it": "it",
    "no": "no",
    "pt": "pt",
    "ro": "ro",
    "ru": "ru",
    "sv": "sv",
    "tr": "tr",
}


def main() -> None:
    folder = Path(mkdocs.contrib.search.__file__).parent / "lunr-language"
    out: dict[str, list[str]] = {}
    for locale, js_name in sorted(LANGUAGES.items()):
        source = (folder / f"lunr.{js_name}.js").read_text(encoding="utf-8")
        match = re.search(r"generateStopWordFilter\(\s*'([^']*)'\.split\(' '\)", source)
        if match is None:
            match = re.search(r"generateStopWordFilter\(\s*\[([^\]]*)\]", source)
            words = re.findall(r"'([^']*)'|\"([^\"]*)\"", match.group(1)) if match else []
            words = [a or b for a, b in words]
        else:
            words = match.group(1).split(" ")
        out[locale] = sorted({w for w in words if w})
    target = Path(__file__).resolve().parents[1] / "askdocs" / "data" / "lunr_stopwords.json"
    target.write_text(json.dumps(out, ensure_ascii=False, indent=0, sort_keys=True) + "\n")
    print({k: len(v) for k, v in out.items()})


if __name__ == "__main__":
    main()
