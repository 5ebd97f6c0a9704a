"""The course engine: Markdown sources in, a course model out, renderers for site and deck.

Plain Python, and course-agnostic: a course is a folder with a ``mkdocs.yml`` (whose
``extra.course`` names it: :mod:`tools.course.config`) and ``docs/``. MkDocs calls the engine only
through ``tools/site/hook.py``. What knows nothing of any site generator: the parser and model,
the checks, the deck and its dating, the review data. What assumes MkDocs' toolchain: the site
renderer (:mod:`tools.site.pages`) relies on Python-Markdown passing a raw HTML placeholder
through, writes ``attr_list`` syntax on Urdu headings and uses Material's ``md-button`` class,
and :mod:`tools.render.safe_html` turns the math spans that pymdownx.arithmatex writes into MathML.
Another generator would need its own versions of those two pieces.
This package's ``__init__`` must stay importable by a bare Python (no dependencies), because
``python3 -m tools`` starts here before the virtual environment exists.
"""
