"""What every build needs and no course knows: build facts and digests, the no-op build stamp,
the memo of page work, the worker processes, the lab's confinement, and per-line commit times
from a replay of git history.

The lowest layer: it imports nothing else of the engine. ``buildinfo`` is standard library only,
because ``tools/bootstrap.py`` reads the repository root from it before the virtual environment
exists; so is this ``__init__``.
"""
