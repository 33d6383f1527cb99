"""Sphinx configuration of the API reference (built offline by tests/test_api_docs.py:
``python -m sphinx -W -b html docs/api OUT``)."""

project = "fisheye"
author = "the fisheye maintainers"
extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon"]
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": True}
html_theme = "alabaster"
html_static_path: list[str] = []
exclude_patterns = ["_build"]
