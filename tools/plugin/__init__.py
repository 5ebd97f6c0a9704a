"""The site: the course's MkDocs plugin and the state of one build, course items as page HTML,
the review page's data, the scans of built pages, heading slugs, vendored browser code and the
in-process MkDocs build.

The only package that imports MkDocs, Material, Python-Markdown or pymdownx
(``tests/test_architecture.py``).
"""
