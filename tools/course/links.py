"""Links and images in course items: checked the way MkDocs checks a page's links, then rewritten.

Cards and quizzes reach the site as raw HTML (and Anki as note fields), which MkDocs neither
rewrites nor validates. So this module does for them what MkDocs does for a page's Markdown
links: a relative ``.md`` address becomes that page's URL (``use_directory_urls: false``, so
``x.md`` is ``x.html``), its anchor must be an id on that page, and any other relative address
must name a file of the site. In the deck, addresses are made absolute through ``site_url``.
Images may come only from the site itself. :func:`check` runs with the parser, so a broken link
is a ``path:line`` error before anything is built.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path
from urllib.parse import quote, unquote, urljoin

from .model import CourseError, Page, Reference

LINK_SCHEMES = ("http", "https", "mailto")
_SCHEME = re.compile(r"^([a-z][a-z0-9+.-]*):", re.IGNORECASE)


def leaves_site(url: str) -> bool:
    """Whether ``url`` names another origin: a scheme, or a host (``//host``, ``\\\\host``)."""
    url = url.strip()
    return bool(_SCHEME.match(url)) or url[:2].replace("\\", "/") == "//"


def _split(url: str) -> tuple[str, str]:
    path, _, fragment = url.partition("#")
    return path.partition("?")[0], fragment


def target(url: str, page: str) -> tuple[str, str]:
    """``(docs path, fragment)`` that a relative ``url`` written on page ``page`` points to."""
    path, fragment = _split(url)
    if not path:
        return page, unquote(fragment)
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(page), unquote(path)))
    return joined, unquote(fragment)


def site_href(url: str, page: str) -> str:
    """The address as the site serves it: ``../x.md#a`` becomes ``../x.html#a``."""
    if leaves_site(url):
        return url
    path, sep, rest = url.partition("#")
    path, qsep, query = path.partition("?")
    if path.endswith(".md"):
        path = path[: -len(".md")] + ".html"
    return path + qsep + query + sep + rest


def page_url(site_url: str, docs_path: str) -> str:
    """A page's absolute address on the published site; "" without a ``site_url``."""
    if not site_url:
        return ""
    base = site_url if site_url.endswith("/") else site_url + "/"
    # Percent-encoded as MkDocs writes page URLs: a space, '#', '?' or a non-ASCII letter in a
    # file name would otherwise end the path or point elsewhere.
    return base + quote(docs_path.removesuffix(".md") + ".html", safe="/")


def absolute_href(url: str, page: str, site_url: str) -> str:
    """The address for a deck note: relative ones resolved against the page's published URL."""
    if leaves_site(url) or not site_url:
        return url
    return urljoin(page_url(site_url, page), site_href(url, page))


def check(
    pages: list[Page], docs_dir: Path, *, generated: frozenset[str] | None
) -> list[CourseError]:
    """One error per link or image in a course item that would not work on the built site.

    ``generated``: the files the build makes on the site (the deck, the practice zip), which are
    therefore not in ``docs_dir``; None when the settings that name them have errors (reported
    with them): then a link to a file that ``docs_dir`` lacks may be to one of them, and is not
    judged.
    """
    by_path = {page.docs_path: page for page in pages}
    errors = []
    for page in pages:
        for ref in page.references:
            problem = _problem(ref, page.docs_path, by_path, docs_dir, generated)
            if problem:
                errors.append(CourseError(ref.location, problem))
    return errors


def _problem(
    ref: Reference,
    page: str,
    pages: dict[str, Page],
    docs_dir: Path,
    generated: frozenset[str] | None,
) -> str | None:
    what = "image" if ref.image else "link"
    if not ref.url.strip():
        return f"{what} with an empty address"
    if leaves_site(ref.url):
        if ref.image:
            return f"image {ref.url!r} is not on the site: put the file under docs/ and link it"
        scheme = _SCHEME.match(ref.url)
        if not scheme or scheme.group(1).lower() not in LINK_SCHEMES:
            return f"link {ref.url!r}: only {', '.join(LINK_SCHEMES)} addresses may leave the site"
        return None
    if ref.url.startswith("/"):
        return f"{what} {ref.url!r} is absolute: write it relative to this page"
    path, fragment = target(ref.url, page)
    if path.startswith("../") or path == "..":
        return f"{what} {ref.url!r} points outside docs/"
    if path.endswith(".md"):
        linked = pages.get(path)
        if linked is None:
            return f"{what} {ref.url!r}: there is no page docs/{path}"
        if fragment and fragment not in linked.anchors:
            return f"{what} {ref.url!r}: docs/{path} has no heading or item with id {fragment!r}"
        return None
    if generated is not None and path not in generated and not (docs_dir / path).is_file():
        return f"{what} {ref.url!r}: there is no file docs/{path}"
    return None
