"""The course engine: Markdown sources in, a course model out, renderers for site and deck.

Plain Python. MkDocs reaches it only through ``tools/mkdocs_hooks.py``; everything else here
would work unchanged under another site generator that reads ``mkdocs.yml``.
This package's ``__init__`` must stay importable by a bare Python (no dependencies), because
``python3 -m tools`` starts here before the virtual environment exists.
"""
