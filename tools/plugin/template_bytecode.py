"""The theme's templates compiled once per Python environment, not once per build.

MkDocs gives every build a fresh Jinja environment, which compiles each template it renders from
its source (Material's ``base.html`` and partials, the course's overrides): a fixed cost of every
build, clean or not. Jinja can keep what it compiled in a bytecode cache; :func:`install` gives
the build's environment one inside the virtual environment the engine runs in, beside Python's
own compiled modules: like them it is code of the installed packages (and of a course's theme
overrides), trusted as the environment is, and kept when a course's ``.cache/`` is cleared.
Jinja checks each entry's source checksum and its own format before it uses one, so a changed
template compiles again; the folder is named after what else the compiled code depends on (Jinja's
version, the environment's extensions and escaping). Outside a virtual environment, or where
its folder cannot be written, templates are compiled as before.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

import jinja2

FOLDER = Path("var", "cache", "mkdocs-course", "jinja")  # under the virtual environment


def folder(env: jinja2.Environment) -> Path | None:
    """Where ``env``'s compiled templates are kept, or None where they cannot be."""
    if sys.prefix == sys.base_prefix:  # not a virtual environment: no folder of the engine's own
        return None
    escape = getattr(env.autoescape, "__qualname__", env.autoescape)  # a flag, or a function
    settings = [jinja2.__version__, str(escape), *sorted(env.extensions)]
    key = hashlib.sha256("\n".join(settings).encode()).hexdigest()[:16]
    path = Path(sys.prefix) / FOLDER / key
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return path if os.access(path, os.W_OK) else None


class _ByName(jinja2.FileSystemBytecodeCache):
    """One entry per template name. Jinja's own key adds the template's file, so every course
    folder a build ever read (a test's temporary copy) would leave entries behind; by name, a
    course's ``main.html`` replaces another's, and the checksum still decides which is current."""

    def get_cache_key(self, name: str, filename: str | None = None) -> str:
        return hashlib.sha1(name.encode("utf-8")).hexdigest()


def install(env: jinja2.Environment) -> jinja2.Environment:
    """Keep ``env``'s compiled templates between builds (MkDocs' ``on_env``)."""
    path = folder(env)
    if path is not None:
        env.bytecode_cache = _ByName(str(path))
    return env
