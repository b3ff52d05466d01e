# Minimal, offline Sphinx config for the marshmallow 4.4.0 docs (eval corpus).
# Replaces upstream's conf.py (furo theme, intersphinx, opengraph, copybutton,
# viewcode). Build: sphinx-build -b dirhtml docs OUT  (see ../BUILD.md).

extensions = [
    "autodocsumm",  # the :autosummary: option of the API pages
    "sphinx.ext.autodoc",
    "sphinx_issues",  # :issue:, :pr:, :user: roles in the changelog
]

primary_domain = "py"
default_role = "py:obj"

issues_github_path = "marshmallow-code/marshmallow"

source_suffix = ".rst"
master_doc = "index"

project = "marshmallow"
copyright = "Steven Loria and contributors"  # noqa: A001
version = release = "4.4.0"

exclude_patterns = ["_build"]
suppress_warnings = ["ref.python"]

html_theme = "alabaster"
html_theme_options = {"show_powered_by": False}
html_copy_source = False
html_show_sourcelink = False

autodoc_default_options = {
    "exclude-members": "__new__",
    "autosummary-nosignatures": True,
    "autosummary-no-nesting": True,
}
autodoc_typehints = "description"
