"""What the adapters write into each page: askdocs meta tags and the widget's script tag.

The meta tags let `askdocs build` over the generator's output see the same
groups, exclusions, kinds and dates the adapter saw in the front matter.
"""

from __future__ import annotations

import re
from html import escape

_HEAD_END = re.compile(r"</head\s*>", re.I)
_BODY_END = re.compile(r"</body\s*>", re.I)


def meta_tags(meta: dict) -> str:
    tags = []
    if meta.get("groups"):
        tags.append(f'<meta name="askdocs:groups" content="{escape(",".join(meta["groups"]))}">')
    if meta.get("exclude"):
        tags.append('<meta name="askdocs:exclude" content="true">')
    if meta.get("kind"):
        tags.append(f'<meta name="askdocs:kind" content="{escape(meta["kind"])}">')
    if meta.get("lastmod"):
        tags.append(f'<meta name="askdocs:lastmod" content="{escape(str(meta["lastmod"]))}">')
    return "".join(tags)


def inject_head(output: str, meta: dict) -> str:
    tags = meta_tags(meta)
    if not tags or "askdocs:" in output[:20000] and tags in output:
        return output
    match = _HEAD_END.search(output)
    if match is None:
        return tags + output
    return output[: match.start()] + tags + output[match.start() :]


def root_prefix(url: str) -> str:
    """Relative path from a page URL ("/es/install/") to the site root ("../../")."""
    path = url.split("#")[0].split("?")[0].lstrip("/")
    depth = path.count("/") if path else 0
    return "../" * depth


def inject_widget(
    output: str,
    url: str,
    *,
    endpoint: str | None = None,
    support_url: str | None = None,
    token_endpoint: str | None = None,
) -> str:
    if "_askdocs/widget.js" in output:
        return output
    attrs = ""
    for name, value in (
        ("endpoint", endpoint),
        ("support-url", support_url),
        ("token-endpoint", token_endpoint),
    ):
        if value:
            attrs += f' data-{name}="{escape(value)}"'
    tag = f'<script src="{root_prefix(url)}_askdocs/widget.js" defer{attrs}></script>'
    matches = list(_BODY_END.finditer(output))
    if not matches:
        return output + tag
    end = matches[-1].start()
    return output[:end] + tag + output[end:]
