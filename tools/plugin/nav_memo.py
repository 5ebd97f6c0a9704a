"""Material's site navigation, each closed part of it rendered once per build instead of once per
page.

Every page of a Material site carries the whole navigation, and Material renders it anew for each
page with its recursive ``render`` macro (``partials/nav-item.html``): a build of N pages makes N²
macro calls, much of the template pass on a course of a hundred lessons or more. Yet a part of
the navigation that does not hold the current page (a section the reader is not in, a link to
another page) renders the same on every page whose links to its pages read the same: its HTML
depends on the item, its place (``path``, ``level``), whether its parent is active, and the
relative URLs of its links (which differ between pages in different folders). :class:`NavMemo`
keeps each such part's HTML under exactly that key; the part that holds the current page (an
active item, or one whose ``pages`` hold it, as Material's blog views do) is rendered by Material
as before, so the page's own entry, its table of contents and the open sections along its path
come from Material's template. The navigation must hold still while pages render, as MkDocs
makes it: titles are set when the pages are read, before the first page is rendered.

It takes effect through Material's own template, changed as it loads: the macro's one recursive
call ``render(item, ...)`` goes through the memo (:func:`install`). A Material whose template
has no such call, or a theme folder of the course's that overrides the template, is rendered as
it is. ``tests/test_nav_memo.py`` holds every page of memoized builds to Material's bytes.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import jinja2
import material
from markupsafe import Markup

TEMPLATE = "partials/nav-item.html"
MATERIAL_TEMPLATES = Path(material.__file__).resolve().parent / "templates"
RECURSION = "{{ render(item, "  # the macro's call for each child of a section it renders
MEMOIZED = "{{ course_nav_memo(render, item, "
GLOBAL = "course_nav_memo"


class NavMemo:
    """The HTML of the navigation's closed parts, for one build (a new Jinja environment each)."""

    def __init__(self) -> None:
        self._html: dict[tuple, Markup] = {}
        self._links: dict[int, tuple[str, ...]] = {}

    @jinja2.pass_context
    def __call__(
        self,
        context: jinja2.runtime.Context,
        render: Callable[..., Markup],
        item: Any,
        path: str,
        level: int,
        parent: Any,
    ) -> Markup:
        """``render(item, path, level, parent)``, or the HTML it gave for the same key before.

        The key holds ``parent.active`` (Material's tabs and sections read it) and every link of
        the part as the ``url`` filter writes it on this page."""
        if _holds(item, context.get("page")):
            return render(item, path, level, parent)
        url = context.environment.filters["url"]
        links = tuple(url(context, link) for link in self._links_of(item))
        key = (id(item), path, level, parent.active, links)
        html = self._html.get(key)
        if html is None:
            html = self._html[key] = render(item, path, level, parent)
        return html

    def _links_of(self, item: Any) -> tuple[str, ...]:
        """The URLs of ``item`` and of every item under it, in order."""
        links = self._links.get(id(item))
        if links is None:
            own = (item.url,) if getattr(item, "url", None) is not None else ()
            below = (link for child in item.children or () for link in self._links_of(child))
            links = self._links[id(item)] = (*own, *below)
        return links


def _holds(item: Any, page: Any) -> bool:
    """Whether ``item`` is the part of the navigation that holds ``page`` (Material's test: the
    item is active, or its ``pages`` hold the page)."""
    return bool(getattr(item, "active", False)) or page in (getattr(item, "pages", None) or ())


class _MemoizingLoader(jinja2.BaseLoader):
    """The theme's loader, with Material's ``nav-item.html`` calling the memo for each child."""

    def __init__(self, loader: jinja2.BaseLoader) -> None:
        self.loader = loader

    def get_source(
        self, environment: jinja2.Environment, template: str
    ) -> tuple[str, str | None, Callable[[], bool] | None]:
        source, filename, uptodate = self.loader.get_source(environment, template)
        if template == TEMPLATE and filename and _is_materials(filename):
            source = memoized(source)
        return source, filename, uptodate

    def list_templates(self) -> list[str]:
        return self.loader.list_templates()


def memoized(source: str) -> str:
    """Material's ``nav-item.html`` with its recursive call made through the memo; unchanged if
    the call is not there once (another Material: rendered as it is, just not memoized)."""
    if source.count(RECURSION) != 1:
        return source
    return source.replace(RECURSION, MEMOIZED)


def _is_materials(filename: str) -> bool:
    return Path(filename).resolve().is_relative_to(MATERIAL_TEMPLATES)


def install(env: jinja2.Environment) -> jinja2.Environment:
    """Render ``env``'s navigation through a new :class:`NavMemo` (MkDocs' ``on_env``)."""
    env.loader = _MemoizingLoader(env.loader)
    env.globals[GLOBAL] = NavMemo()
    return env
