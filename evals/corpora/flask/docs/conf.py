# Minimal, offline Sphinx config for the Flask 3.1.3 docs (askdocs eval corpus).
# Written for this corpus; replaces upstream's docs/conf.py, which needs
# pallets-sphinx-themes, sphinx-tabs and sphinxcontrib-log-cabinet.
# Build: sphinx-build -E -b dirhtml docs OUT   (see ../BUILD.md)
from docutils import nodes
from docutils.parsers.rst import directives
from docutils.parsers.rst import Directive

# Project --------------------------------------------------------------

project = "Flask"
copyright = "2010 Pallets"
author = "Pallets"
release = "3.1.3"
version = "3.1.x"

# General --------------------------------------------------------------

default_role = "code"
extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.extlinks",
    "sphinx.ext.intersphinx",
]
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_preserve_defaults = True
extlinks = {
    "issue": ("https://github.com/pallets/flask/issues/%s", "#%s"),
    "pr": ("https://github.com/pallets/flask/pull/%s", "#%s"),
    "ghsa": ("https://github.com/pallets/flask/security/advisories/GHSA-%s", "GHSA-%s"),
}
# Off-line: no inventories are fetched, so references to Python, Werkzeug,
# Click, Jinja, ... render as plain (unlinked) code text.
intersphinx_mapping = {}

# HTML -----------------------------------------------------------------

html_theme = "alabaster"
html_title = f"Flask Documentation ({version})"
html_show_sourcelink = False
html_copy_source = False
html_last_updated_fmt = None
html_sidebars = {
    "**": ["about.html", "localtoc.html", "relations.html", "searchbox.html"],
}

# Local extensions -----------------------------------------------------


def github_link(name, rawtext, text, lineno, inliner, options=None, content=None):
    """The upstream ``:gh:`` role: a link into the release's source tree."""
    base_url = "https://github.com/pallets/flask/tree/"

    if text.endswith(">"):
        words, text = text[:-1].rsplit("<", 1)
        words = words.strip()
    else:
        words = None

    url = f"{base_url}{release}/{text}"

    if words is None:
        words = url

    from docutils.parsers.rst.roles import set_classes

    options = options or {}
    set_classes(options)
    node = nodes.reference(rawtext, words, refuri=url, **options)
    return [node], []


class Tabs(Directive):
    """Stand-in for sphinx-tabs' ``tabs``: the tabs are shown one after another."""

    has_content = True

    def run(self):
        node = nodes.container(classes=["tabs"])
        self.state.nested_parse(self.content, self.content_offset, node)
        return [node]


class Tab(Directive):
    """Stand-in for ``tab`` / ``group-tab``: a bold label, then the tab's content."""

    has_content = True
    required_arguments = 1
    final_argument_whitespace = True
    option_spec = {"name": directives.unchanged}

    def run(self):
        node = nodes.container(classes=["tab"])
        label = nodes.paragraph(classes=["tab-label"])
        text_nodes, messages = self.state.inline_text(self.arguments[0], self.lineno)
        label += nodes.strong("", "", *text_nodes)
        node += label
        node += messages
        self.state.nested_parse(self.content, self.content_offset, node)
        return [node]


def setup(app):
    app.add_role("gh", github_link)
    app.add_directive("tabs", Tabs)
    app.add_directive("tab", Tab)
    app.add_directive("group-tab", Tab)
