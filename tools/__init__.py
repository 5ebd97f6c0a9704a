"""The course engine: Markdown sources in, a course model out, renderers for site and deck.

Plain Python, and course-agnostic: a course is a folder with a ``mkdocs.yml`` (whose ``course``
plugin settings name it: :mod:`tools.course.config`) and ``docs/``. One folder per concern, each
importing only those below it (``tests/test_architecture.py``): ``build/`` (build facts, caches, the
worker pool), ``course/`` (settings, model, parser, checks, note identity), ``benchmarks/``,
``render/`` (safe HTML and MathML for both targets), then the two targets ``anki/`` (the only one
that imports genanki) and ``plugin/`` (the only one that imports MkDocs, Material, Python-Markdown
or pymdownx; MkDocs calls the engine through the course plugin, ``tools/plugin/plugin.py``). What
assumes MkDocs' toolchain without importing it: :mod:`tools.plugin.pages` relies on Python-Markdown
passing a raw HTML placeholder through, writes ``attr_list`` syntax on Urdu headings and uses
Material's ``md-button`` class, and :mod:`tools.render.mathml` turns the math spans that
pymdownx.arithmatex writes into MathML. Another generator would need its own ``plugin/`` and its own
version of that math step. This package's ``__init__`` must stay importable by a bare Python (no
dependencies), because ``python3 -m tools`` starts here before the virtual environment exists.
"""
