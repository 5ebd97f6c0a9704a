"""Which of the course's stylesheets and scripts each page loads.

``mkdocs.yml`` lists every stylesheet and script of the site (``extra_css``,
``extra_javascript``), and MkDocs would put each on every page. Some of them drive one kind of
element only: the planner's form, the flashcards and quiz questions that can be graded where
they stand, the Review page's queue. :data:`PAGE_ONLY` names those, each with the CSS selector
of what it drives; the hook takes them out of MkDocs' lists (:func:`split`) and gives each page
the ones whose elements its content holds (:meth:`PageAssets.of`). ``overrides/main.html`` puts them in the
page's ``<head>``: a stylesheet as a ``<link rel="stylesheet">``, a script as a
``<link rel="preload" as="script">``, which ``docs/assets/startup.js`` runs once the page has
loaded (Material's instant navigation swaps the head's links along with the page, but would not
run a script tag it moves there). Nothing of them blocks the first paint of a page without
their elements, and a script never blocks it.
"""

from __future__ import annotations

from dataclasses import dataclass

from selectolax.lexbor import LexborHTMLParser

# A site path as mkdocs.yml names it -> what it drives, as a CSS selector.
PAGE_ONLY = {
    "assets/planner.css": "form.planner",
    "assets/planner.js": "form.planner",
    "assets/review/inline.js": "details.flashcard, fieldset.quiz-question",
    "assets/review/review.css": "#course-review",
}


@dataclass(frozen=True)
class PageAssets:
    """The page-only stylesheets and scripts that this site's ``mkdocs.yml`` lists, in its order."""

    styles: tuple[str, ...] = ()
    scripts: tuple[str, ...] = ()

    def of(self, content_html: str) -> dict[str, list[str]]:
        """The template's variables for a page whose content is ``content_html``: the
        stylesheets and scripts among these whose elements it holds."""
        tree = LexborHTMLParser(content_html) if content_html else None
        used = {path for path, selector in PAGE_ONLY.items() if tree and tree.css_first(selector)}
        return {
            "course_styles": [path for path in self.styles if path in used],
            "course_scripts": [path for path in self.scripts if path in used],
        }


def split(extra_css: list, extra_javascript: list) -> PageAssets:
    """Take the page-only entries out of MkDocs' two lists (in place) and return them."""
    styles = [entry for entry in extra_css if str(entry) in PAGE_ONLY]
    scripts = [entry for entry in extra_javascript if str(entry) in PAGE_ONLY]
    extra_css[:] = [entry for entry in extra_css if str(entry) not in PAGE_ONLY]
    extra_javascript[:] = [entry for entry in extra_javascript if str(entry) not in PAGE_ONLY]
    return PageAssets(tuple(map(str, styles)), tuple(map(str, scripts)))
