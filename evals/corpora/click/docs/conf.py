# Minimal offline build config for the Click 8.5.1 docs (askdocs eval corpus).
# Replaces upstream's conf.py: no pallets-sphinx-themes, sphinx-tabs,
# sphinxcontrib-log-cabinet or intersphinx; built-in alabaster theme.
# Build:  sphinx-build -b dirhtml -E -q docs OUT   (see ../BUILD.md)
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "_ext"))

project = "Click"
copyright = "2014 Pallets"
author = "Pallets"
release = version = "8.5.1"

master_doc = "index"
default_role = "code"
extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.extlinks",
    "myst_parser",
    "click_examples",  # local: click:example / click:run, tabs / group-tab
]
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_preserve_defaults = True
extlinks = {
    "issue": ("https://github.com/pallets/click/issues/%s", "#%s"),
    "pr": ("https://github.com/pallets/click/pull/%s", "#%s"),
}
myst_enable_extensions = ["attrs_block"]
myst_heading_anchors = 3

exclude_patterns = ["_build", "_ext"]
html_theme = "alabaster"
html_title = f"Click Documentation ({version})"
html_show_sourcelink = False
html_copy_source = False
html_static_path = []
html_last_updated_fmt = None
html_theme_options = {"show_powered_by": False}
html_sidebars = {"**": ["localtoc.html", "relations.html"]}


def _plain_code(app, doctree):
    # Render every code block as plain text (no Pygments token markup), so
    # that code reads the same in the HTML text as in the source.
    from docutils import nodes

    for node in doctree.findall(nodes.literal_block):
        node["language"] = "none"


def setup(app):
    app.connect("doctree-read", _plain_code)
