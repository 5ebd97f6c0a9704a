"""The practice workspace: the whole contribution lifecycle on a small project, offline.

It is this course's own exercise (its project, issues, review comments and benchmark verdict),
so it lives with the course's code, not in the engine: ``mkdocs.yml`` names its zip's maker
(``practice_bundle``) and its commands (``practice_cli``) for the engine to call.

``start`` makes a workspace (the upstream project as a bare repository, the learner's fork and
clone, the issues as files); the learner claims, branches, commits, signs off and opens a pull
request with real git; ``check`` plays the project's CI, bot and reviewer for each of the nine
steps of Lesson 1. The package imports only the standard library and itself (relatively), so the
same files run from the course's repository (``python3 -m tools practice``) and from the
downloaded zip (``python3 practice.py``); torch runs only in the tests CI starts.
"""
