"""Sphinx configuration of typing_pkg's documentation.

Build: ``python -m sphinx -W --keep-going -b html docs docs/_build/html``.
The tables and lattice pictures are drawn from the rule sets at build time by
the directives of ``docs/_ext/typing_pkg_docs.py``; nothing generated is kept
in the repository.  Measured figures (times, ratios, cell counts) are read from
``docs/measured.json`` by the ``:measured:`` role of ``docs/_ext/measured_figures.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # document the checkout, installed or not
sys.path.insert(0, str(Path(__file__).resolve().parent / "_ext"))
# The examples project's modules (its custom rule set) are imported by the
# custom-lattice page, as a user's own project would import them.
sys.path.insert(0, str(ROOT / "examples"))

import typing_pkg  # noqa: E402

project = "typing_pkg"
author = "the typing_pkg developers"
copyright = "the typing_pkg developers"
release = version = typing_pkg.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.doctest",
    "typing_pkg_docs",
    "measured_figures",
]

exclude_patterns = ["_build"]
nitpicky = False
default_role = "literal"
root_doc = "index"

# -- autodoc: the API reference is the modules' own docstrings ---------------
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_preserve_defaults = True
autodoc_default_options = {"members": True, "show-inheritance": False}

# -- doctest: every ``>>>`` block of the docs (and of the docstrings the API
# reference includes) runs in `sphinx -b doctest`, which tests/docs/ runs.
doctest_test_doctest_blocks = "default"
doctest_global_setup = "import typing_pkg as tp"

# -- HTML -----------------------------------------------------------------------
html_theme = "alabaster"
html_title = f"typing_pkg {release}"
html_static_path = ["_static"]
html_css_files = ["typing_pkg.css"]
html_theme_options = {
    "description": "dtype-precise static typing for array code",
    "page_width": "1180px",
    "sidebar_width": "230px",
    "fixed_sidebar": True,
}
html_sidebars = {"**": ["about.html", "navigation.html", "searchbox.html"]}
