"""Sphinx configuration: MyST markdown pages, the API reference from the docstrings."""

from __future__ import annotations

import os
from importlib import metadata

project = "rigidflock"
author = "the rigidflock developers"
copyright = "2026, the rigidflock developers"
release = metadata.version("rigidflock")  # the installed copy's, without importing it
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
exclude_patterns = ["_build", "results", "_gen", "Thumbs.db", ".DS_Store"]
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "show-inheritance": True}
autosummary_generate = False
napoleon_google_docstring = True
napoleon_numpy_docstring = True

html_theme = "furo"
html_title = f"rigidflock {release}"
html_static_path = []
# The build needs no display: nothing here imports pyglet's window machinery.
os.environ.setdefault("PYGLET_HEADLESS", "1")
