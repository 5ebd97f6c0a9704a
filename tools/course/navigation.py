"""The site's navigation, ``nav`` in ``mkdocs.yml``, judged against the course's pages as the
strict build judges it, so that ``check`` (and so ``deck``, which links every card to its page)
refuses what only ``build`` refused: a ``nav`` entry to a page that does not exist, and a page
outside the ``nav`` that the course's MkDocs settings do not let pass.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from urllib.parse import urlsplit

import pathspec  # MkDocs' own matcher of its gitignore-like settings (a dependency of MkDocs)
import yaml
import yaml_env_tag  # MkDocs' own reading of !ENV (a dependency of MkDocs)

from .config import CONFIG_FILE, parse_yaml, yaml_nodes
from .model import CourseError, Location

# MkDocs' own levels (mkdocs/config/defaults.py) for a nav entry that names no file and for a
# page that no nav entry names; at "warn" the engine's build, always strict, refuses them.
_NAV_LEVELS = {"not_found": "warn", "omitted_files": "info"}
# What MkDocs leaves out of every site, before exclude_docs (mkdocs/structure/files.py).
_MKDOCS_EXCLUDES = (".*", "/templates/")


def problems(root: Path, docs_dir: str, pages: tuple[str, ...]) -> list[CourseError]:
    """What the strict build refuses in ``root/mkdocs.yml``'s ``nav`` against the course's
    ``pages`` (paths from the root), as MkDocs judges it (``get_navigation``): an entry that is
    neither a file of ``docs_dir`` nor an address, at its line, and a page no entry names that
    its ``not_in_nav``, ``exclude_docs`` and ``draft_docs`` patterns do not cover, at the
    page's first line; each only where the course's ``validation`` level for it is "warn".
    Nothing without a ``nav`` (MkDocs then lists every page) or when the file cannot be read
    (:func:`load` reports that)."""
    try:
        text = (root / CONFIG_FILE).read_text("utf-8")
        config = parse_yaml(text)
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return []
    if not isinstance(config, dict) or config.get("nav") is None:
        return []
    tree = yaml_nodes(text)  # the same text: the nodes know their lines
    found = []
    named = set()
    docs = {page.removeprefix(f"{docs_dir}/") for page in pages}
    for path, line in _nav_entries(next(v for k, v in tree.value if k.value == "nav")):
        split = urlsplit(path)
        if split.scheme or split.netloc or path.startswith("/"):
            continue  # an address: MkDocs links it as it is
        file = PurePosixPath(path).as_posix()
        named.add(file)
        there = file in docs if file.endswith(".md") else (root / docs_dir / file).is_file()
        if not there and _nav_level(config, "not_found") == "warn":
            what = "page" if file.endswith(".md") else "file"
            found.append(
                CourseError(
                    Location(CONFIG_FILE, line),
                    f"nav: {path!r}: there is no {what} {docs_dir}/{file}",
                )
            )
    if _nav_level(config, "omitted_files") != "warn":
        return found
    left_out = [
        pathspec.GitIgnoreSpec.from_lines(value.splitlines())
        for value in (
            config.get("exclude_docs"),
            config.get("draft_docs"),
            config.get("not_in_nav"),
        )
        if isinstance(value, str)
    ] + [pathspec.GitIgnoreSpec.from_lines(_MKDOCS_EXCLUDES)]
    for page in sorted(docs - named):
        if not any(spec.match_file(page) for spec in left_out):
            found.append(
                CourseError(
                    Location(f"{docs_dir}/{page}", 1),
                    f"no entry of {CONFIG_FILE}'s nav names this page, and the strict build "
                    "refuses a page outside it: add it to nav (or its path to not_in_nav)",
                )
            )
    return found


def _nav_entries(node: yaml.Node) -> Iterator[tuple[str, int]]:
    """Each path or address in a ``nav`` node, with its line: a section is a title over a list,
    an entry a path, with a title or without, or ``!ENV`` (the path MkDocs reads from it)."""
    if node.tag == "!ENV":
        value = yaml.load(yaml.serialize(node), Loader=_EnvLoader)
        if isinstance(value, str):  # else MkDocs' own check of nav says what it is
            yield value, node.start_mark.line + 1
        return
    if isinstance(node, yaml.ScalarNode):
        yield node.value, node.start_mark.line + 1
    for item in node.value if isinstance(node, yaml.SequenceNode) else ():
        yield from _nav_entries(item)
    for _, value in node.value if isinstance(node, yaml.MappingNode) else ():
        yield from _nav_entries(value)


class _EnvLoader(yaml.SafeLoader):
    """YAML read as MkDocs reads ``!ENV``: an environment variable's value, or the default
    after the variables' names (``!ENV [NAME, default]``), by MkDocs' own constructor."""


yaml_env_tag.add_env_tag(_EnvLoader)


def _nav_level(config: dict, key: str) -> str:
    """MkDocs' ``validation.nav.KEY``: set there, or for nav and links at once as
    ``validation.KEY``, else its default."""
    validation = config.get("validation")
    validation = validation if isinstance(validation, dict) else {}
    nav = validation.get("nav") if isinstance(validation.get("nav"), dict) else {}
    return str(nav.get(key, validation.get(key, _NAV_LEVELS[key])))
