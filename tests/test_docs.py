"""The repository documents itself: docs/ is an MkDocs site that askdocs indexes, and it
names every setting, command, route, widget attribute and hook the code has."""

from __future__ import annotations

import re
import subprocess
import sys

import yaml

from askdocs.shards import load_shards
from tests.conftest import ROOT
from tests.test_build import askdocs, files_containing

DOCS = ROOT / "docs"
PAGES = DOCS / "pages"


def page(name: str) -> str:
    return (PAGES / name).read_text(encoding="utf-8")


def test_docs_site_builds_with_askdocs_and_answers_from_itself(tmp_path, model_info):
    config = yaml.safe_load((DOCS / "mkdocs.yml").read_text())
    assert any(p == "askdocs" or (isinstance(p, dict) and "askdocs" in p) for p in config["plugins"])
    site = tmp_path / "site"
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", DOCS / "mkdocs.yml", "-d", site],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "WARNING" not in result.stderr
    urls = {p.url for p in load_shards(site / "_askdocs").pages}
    nav_pages = {re.sub(r"(index)?\.md$", "", f.name) for f in PAGES.glob("*.md")}
    assert urls == {"/" + (name + "/" if name else "") for name in nav_pages}
    assert (site / "llms.txt").is_file() and (site / "http-api" / "index.md").is_file()
    found = askdocs(
        "search", str(site), "which variable holds the secret that signs reader tokens", "-k", "3"
    )
    assert "ASKDOCS_JWT_SECRET" in found.stdout
    assert files_containing(site, "../" + "shared") == []


def test_settings_page_names_every_variable():
    from askdocs.edge_runtime.settings import KNOWN_ENV

    text = page("settings.md")
    missing = [name for name in KNOWN_ENV if f"`{name}`" not in text]
    assert missing == [], f"document these in docs/pages/settings.md: {missing}"
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY"):
        assert name in text


def test_cli_page_names_every_command():
    from askdocs.cli import parser

    text = page("cli.md")
    root = parser()
    commands = next(a for a in root._actions if a.dest == "command").choices
    for name, sub in commands.items():
        nested = [a for a in sub._actions if a.dest == "action"]
        names = [f"{name} {n}" for n in nested[0].choices] if nested else [name]
        for full in names:
            assert f"askdocs {full}" in text, f"document `askdocs {full}` in docs/pages/cli.md"


def test_http_page_names_every_route(example_site):
    from askdocs.edge_runtime.app import create_app
    from askdocs.edge_runtime.settings import Settings
    from starlette.routing import Mount, Route

    app = create_app(Settings.from_env(env={}, index=str(example_site.shard_dir)))
    text = page("http-api.md")
    paths = []
    for route in app.routes:
        if isinstance(route, Mount) and route.path == "/api":
            paths += ["/api" + r.path for r in route.routes if isinstance(r, Route)]
        elif isinstance(route, Route) and route.path != "/api":
            paths.append(route.path)
    assert "/api/search" in paths
    missing = [p for p in paths if p not in text and not p.startswith("/_askdocs")]
    assert missing == [], f"document these routes in docs/pages/http-api.md: {missing}"


def test_widget_page_names_every_attribute_and_hook():
    source = (ROOT / "widget" / "widget.js").read_text(encoding="utf-8")
    text = page("widget.md")
    attributes = set(re.findall(r'attr\("([a-z-]+)"\)', source))
    hooks = set(re.findall(r'"data-askdocs": "([a-z-]+)"', source))
    api = set(re.findall(r"^    (\w+)[,(:]", source.split("window.askdocs = {")[1].split("};")[0], re.M))
    assert attributes and hooks and api
    assert [a for a in attributes if f"`data-{a}`" not in text] == []
    assert [h for h in hooks if f"`{h}`" not in text] == []
    assert [f for f in api if f"askdocs.{f}" not in text] == []


def test_build_page_names_every_plugin_option():
    from askdocs.plugin.mkdocs import AskdocsConfig

    text = page("build.md")
    missing = [name for name in AskdocsConfig().keys() if f"`{name}`" not in text]  # noqa: SIM118
    assert missing == [], f"document these options in docs/pages/build.md: {missing}"


def test_publish_workflow_builds_these_docs():
    workflow = yaml.safe_load((ROOT / "examples" / "publish-docs.yml").read_text())
    assert (ROOT / workflow["env"]["DOCS_CONFIG"]).resolve() == (DOCS / "mkdocs.yml").resolve()
    steps = " ".join(s.get("run", "") for s in workflow["jobs"]["publish"]["steps"])
    assert 'mkdocs build -f "$DOCS_CONFIG"' in steps and "askdocs model prepare" in steps
