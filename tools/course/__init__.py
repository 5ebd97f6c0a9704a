"""The course as data: its settings, the model, the parser, links and includes, the check, and
the identity of every note.

Plain Python over markdown-it-py: it imports no site generator (MkDocs, Material,
Python-Markdown, pymdownx), no genanki, and nothing of ``tools.plugin`` or ``tools.anki``
(``tests/test_architecture.py`` holds it to that).
"""
