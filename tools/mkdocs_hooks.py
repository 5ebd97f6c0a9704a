"""The one file that knows MkDocs: it hands MkDocs' events to the plain-Python course engine.

- ``on_config``: parse and check the whole course before MkDocs touches ``site/``; any problem
  stops the build with every ``path:line: message`` and nothing already built is lost.
- ``on_files``: add the Anki deck to the site's files, for the download links, and the review
  page's item data (:mod:`tools.review`).
- ``on_page_markdown``: replace flashcards, quizzes and benchmark embeds by their HTML.
- ``on_page_content``: turn the math that pymdownx.arithmatex marks into MathML (no JS, no network),
  and refuse a Markdown page whose content holds a script, a handler or a script address.
- ``on_post_page``: refuse any built page that would load something from outside the site.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # MkDocs loads hooks by path

from tools import buildinfo, course_check, deck, offline, render, review, site

_course = None


def on_config(config):
    global _course
    _course = course_check.load_checked_course(buildinfo.ROOT)
    if _course.errors:
        raise PluginError("the course sources have problems:\n" + course_check.report(_course))
    # mkdocs-jupyter keys its cache on the notebook file alone; the lab imports the snippets, so
    # a changed snippet must re-execute it: one cache folder per version of the snippets.
    jupyter = config.plugins.get("mkdocs-jupyter")
    if jupyter is not None:
        base = Path(jupyter.config["cache_dir"])
        jupyter.config["cache_dir"] = str(base / buildinfo.snippets_digest())
    return config


def on_page_markdown(markdown, page, config, files):
    course_page = _course.page(page.file.src_uri) if _course else None
    if course_page is None:
        return markdown
    return site.render_page(
        course_page, markdown, root=buildinfo.ROOT, strict_results=buildinfo.strict_results()
    )


def on_page_content(html, page, config, files):
    html = render.mathml_in_html(offline.without_remote_scripts(html))
    if page.file.src_uri.endswith(".md"):
        active = offline.active_content(html)
        if active:
            raise PluginError(
                f"docs/{page.file.src_uri}: raw HTML that would run script: {active[0]} "
                "(write it as text or in code)"
            )
    return html


def on_post_page(output, page, config):
    remote = offline.remote_loads(output)
    if remote:
        raise PluginError(f"docs/{page.file.src_uri} would load from outside the site: {remote[0]}")
    return output


def on_files(files, config):
    """Add the deck as a file of the site, so pages can link to it and links are validated."""
    data = deck.build_apkg(
        _course, site_url=config["site_url"] or "", timestamp=buildinfo.source_date_epoch()
    )
    files.append(File.generated(config, buildinfo.DECK_FILE, content=data))
    review_page = files.get_file_from_path(review.REVIEW_PAGE)
    if review_page is None:
        raise PluginError(
            f"docs/{review.REVIEW_PAGE} is missing: the header's Review link needs it"
        )
    for path, text in review.site_files(_course, review_page.url).items():
        files.append(File.generated(config, path, content=text))
    return files
