"""The one file that knows MkDocs: it hands MkDocs' events to the plain-Python course engine.

- ``on_config``: parse and check the whole course before MkDocs touches ``site/``; any problem
  stops the build with every ``path:line: message`` and nothing already built is lost. Under
  ``python3 -m tools build`` MkDocs runs in the CLI's process, which already checked the course:
  the hook reuses that course (:func:`tools.course_check.load_checked_course`), so each page is
  parsed once per build.
- ``on_files``: add the Anki deck to the site's files, for the download links, and the review
  page's item data (:mod:`tools.review`) when the course's scripts include it.
- ``on_page_markdown``: replace flashcards, quizzes and benchmark embeds by their HTML.
- ``on_page_content``: turn the math that pymdownx.arithmatex marks into MathML (no JS, no network),
  and refuse a Markdown page whose content holds a script, a handler or a script address.
- ``on_post_page``: refuse any built page that would load something from outside the site.

The course is the folder of the ``mkdocs.yml`` being built, so another course with its own
``mkdocs.yml`` naming this file as a hook uses the same engine.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # MkDocs loads hooks by path

from tools import buildinfo, course_check, deck_cache, offline, render, review, site_pages
from tools.model import Course

_course: Course | None = None
_root: Path = buildinfo.ROOT


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    global _course, _root
    _root = Path(config.config_file_path).resolve().parent
    _course = course_check.load_checked_course(_root, strict_results=buildinfo.strict_results())
    if _course.errors:
        raise PluginError("the course sources have problems:\n" + course_check.report(_course))
    # mkdocs-jupyter keys its cache on the notebook file alone; the lab imports the snippets, so
    # a changed snippet must re-execute it: one cache folder per version of the snippets.
    jupyter = config.plugins.get("mkdocs-jupyter")
    if jupyter is not None:
        base = Path(jupyter.config["cache_dir"])
        jupyter.config["cache_dir"] = str(base / buildinfo.snippets_digest(_root))
    return config


def on_files(files: Files, *, config: MkDocsConfig) -> Files:
    """Add the deck as a file of the site, so pages can link to it and links are validated."""
    assert _course is not None and _course.config is not None
    data = deck_cache.apkg(_course, root=_root, timestamp=buildinfo.source_date_epoch(_root))
    files.append(File.generated(config, _course.config.deck_file, content=data))
    if not any(str(script) == review.INDEX_FILE for script in config.extra_javascript):
        return files  # this course has no review page
    review_page = files.get_file_from_path(review.REVIEW_PAGE)
    if review_page is None:
        raise PluginError(
            f"docs/{review.REVIEW_PAGE} is missing: the header's Review link needs it"
        )
    for path, text in review.site_files(_course, review_page.url).items():
        files.append(File.generated(config, path, content=text))
    return files


def on_page_markdown(markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    course_page = _course.page(page.file.src_uri) if _course else None
    if course_page is None:
        return markdown
    return site_pages.render_page(
        course_page, markdown, root=_root, strict_results=buildinfo.strict_results()
    )


def on_page_content(html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    html = render.mathml_in_html(offline.without_remote_scripts(html))
    if page.file.src_uri.endswith(".md"):
        active = offline.active_content(html)
        if active:
            raise PluginError(
                f"docs/{page.file.src_uri}: raw HTML that would run script: {active[0]} "
                "(write it as text or in code)"
            )
    return html


def on_post_page(output: str, *, page: Page, config: MkDocsConfig) -> str:
    remote = offline.remote_loads(output)
    if remote:
        raise PluginError(f"docs/{page.file.src_uri} would load from outside the site: {remote[0]}")
    return output
