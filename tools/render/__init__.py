"""Course text to safe HTML and MathML, shared by the site and the deck so the two cannot disagree.

Above ``tools.course`` and below both targets: it imports neither ``tools.plugin`` nor
``tools.anki``, nor any site generator or genanki (``tests/test_architecture.py``).
"""
