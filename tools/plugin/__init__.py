"""The site: the course's MkDocs plugin and the state of one build, course items as page HTML,
the review page's data, the scans of built pages, heading slugs, vendored browser code and the
in-process MkDocs build.

The only package that imports MkDocs, Material, Python-Markdown or pymdownx
(``tests/test_architecture.py``).
"""

from pathlib import Path

# The engine's own browser files (stylesheets, scripts, fonts, vendored code), package data that
# the site serves as assets/...: here, so the vendor command finds them without loading MkDocs.
STATIC = Path(__file__).resolve().parent / "static"
