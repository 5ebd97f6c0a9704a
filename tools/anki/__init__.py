"""The Anki deck: genanki's package, its cache, and each note's modification time from git.

The only package that imports genanki (``tests/test_architecture.py``).
"""
