"""The course plugin (``plugins: - course: {...}`` in ``mkdocs.yml``): MkDocs' events handed to
the plain-Python engine.

Registered by the ``mkdocs.plugins`` entry point in ``pyproject.toml``, as Material's plugins
are, so ``mkdocs build`` and ``mkdocs serve`` load it by name. Its settings are
:class:`tools.plugin.settings.CourseSettings`. The state of a build is one
:class:`~tools.plugin.site_build.SiteBuild` on the plugin object, made in ``on_config`` and
dropped when the build ends; each event method forwards to it.

The plugin has ``on_startup``, so ``mkdocs serve`` keeps this object across rebuilds: it keeps
the checked course while its sources stay as they were, and parses again only after an edit.
Under ``python3 -m tools build`` MkDocs runs in the CLI's process, which has started checking the
course in its worker pool: the CLI hands both over (:meth:`CoursePlugin.use`), so each page is
parsed once per build. Either way MkDocs reads each page as soon as that page has parsed
(:class:`~tools.plugin.site_build.SiteBuild`), not once all have.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path

from jinja2 import Environment
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import Files
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page
from mkdocs.utils.templates import TemplateContext

from ..buildkit import buildinfo, workers
from ..course import check as course_check
from ..course.check import Checking
from ..course.model import Course
from . import assets, nav_memo, offline, template_bytecode
from .settings import CourseSettings
from .site_build import SiteBuild
from .syntax import MKDOCS

# What the CLI hands the plugin: the course being checked, its pool, its way to report problems.
Handed = tuple[Checking, workers.Background | None, Callable[[], Course | None] | None]


class CoursePlugin(BasePlugin[CourseSettings]):
    def __init__(self) -> None:
        self.build: SiteBuild | None = None  # the build under way, from on_config to its end
        self._handed: Handed | None = None  # the CLI's: use()
        self._checked: tuple[tuple, Checking] | None = None  # (sources' stamp, check), for serve
        self._pool = contextlib.ExitStack()  # the worker pool this plugin made, if it made one

    def use(
        self,
        course: Checking,
        pool: workers.Background | None = None,
        checked: Callable[[], Course | None] | None = None,
    ) -> None:
        """Build this course (the CLI's, being checked in ``pool`` when given one), its problems
        reported by ``checked`` when given one (:class:`~tools.plugin.site_build.SiteBuild`)."""
        self._handed = (course, pool, checked)

    def on_startup(self, *, command: str, dirty: bool) -> None:
        """Present so that ``mkdocs serve`` keeps this object, and what it checked, between
        rebuilds."""

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        course, pool, checked = self._handed or (None, None, None)
        if pool is None:
            pool = self._pool.enter_context(workers.build_pool())
        if course is None:
            course = self._course(config, pool)
        self.build = SiteBuild(config, course, pool, checked)  # on_build_error closes the pool
        # the engine's stylesheets and scripts (package data) and the course's benchmark assets
        assets.add_to_config(config, self.build.course_assets)
        self.build.configure(config)
        return config

    def _course(self, config: MkDocsConfig, pool: workers.Background) -> Checking:
        """The course being checked, or the one checked whole before while its sources are
        unchanged (one whose build stopped before that parses again: its pool is gone)."""
        root = Path(config.config_file_path).resolve().parent
        stamp = course_check.sources_stamp(root)
        if self._checked is None or self._checked[0] != stamp or not self._checked[1].finished:
            course = course_check.start_checking(
                root, syntax=MKDOCS, strict_results=buildinfo.strict_results(), workers=pool
            )
            self._checked = (stamp, course)
        return self._checked[1]

    def on_files(self, files: Files, *, config: MkDocsConfig) -> Files:
        """Add the deck and the review page's data as files of the site, so pages can link to
        them and links are validated. Both are made in the background and written in
        on_post_build. The engine's own files come from the plugin package, the course's
        benchmark assets from where it declares them (:func:`tools.plugin.assets.add_files`)."""
        assets.add_files(files, config, self.build.course_assets, self.build.minified_css)
        return self.build.add_files(files, config)

    @event_priority(-100)  # after every plugin's files
    def on_nav(self, nav: Navigation, *, config: MkDocsConfig, files: Files) -> Navigation:
        self.build.record_files(files, config)
        return nav

    def on_env(self, env: Environment, *, config: MkDocsConfig, files: Files) -> Environment:
        """Every page read: the course checked whole (a problem stops the build here, before
        any page is written). Material's navigation, each part that does not hold the page
        rendered once (:mod:`tools.plugin.nav_memo`): the same HTML, without rendering it all for
        every page; and the templates compiled once per environment
        (:mod:`tools.plugin.template_bytecode`)."""
        self.build.checked_course()
        return template_bytecode.install(nav_memo.install(env))

    @event_priority(-100)  # after mkdocs-jupyter has set the page's rendering up
    def on_pre_page(self, page: Page, *, config: MkDocsConfig, files: Files) -> Page:
        self.build.lab_page(page)
        return page

    def on_post_template(
        self, output_content: str, *, template_name: str, config: MkDocsConfig
    ) -> str:
        data = output_content.encode("utf-8", "xmlcharrefreplace")
        self.build.outputs.written(template_name, data)
        return output_content

    def on_page_markdown(
        self, markdown: str, *, page: Page, config: MkDocsConfig, files: Files
    ) -> str:
        return self.build.page_markdown(markdown, page)

    def on_page_content(self, html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        """Turn the math of the page's prose into MathML and put its embeds in place; its cards
        and quizzes come after Material's search has read the page (:meth:`on_page_context`)."""
        return self.build.page_content(html, page)

    @event_priority(-50)  # after Material's search has indexed the page
    def on_page_context(
        self, context: TemplateContext, *, page: Page, config: MkDocsConfig, nav: Navigation
    ) -> TemplateContext:
        """Put the page's cards and quizzes in place, once the search has indexed the page
        without them: each card and question gets a search entry of its own instead (see
        :meth:`on_post_build`), which links to it, and Material's search never parses their
        markup. A Markdown page's content is checked for script in the background. The page-only
        stylesheets and scripts it uses go to the template (:mod:`tools.plugin.assets`)."""
        context.update(self.build.page_context(page))
        return context

    def on_post_page(self, output: str, *, page: Page, config: MkDocsConfig) -> str:
        """Check the whole built page, in the background, for remote loads and for script that
        is not the theme's own: the theme's partials, ``overrides/`` and the settings they print
        are scanned like the content."""
        self.build.check_later(
            output, page, offline.built_page_scan, "remote-loads", "built-page-script"
        )
        self.build.outputs.written(page.file.dest_uri, output.encode("utf-8", "xmlcharrefreplace"))
        return output

    @event_priority(-50)  # after Material's search has written its index
    def on_post_build(self, *, config: MkDocsConfig) -> None:
        try:
            self.build.finish(config)
        finally:
            self._end_build()

    def on_build_error(self, *, error: Exception) -> None:
        self._end_build()

    def _end_build(self) -> None:
        """Drop the build's state and close the pool this plugin made (not the CLI's)."""
        self.build, self._handed = None, None
        self._pool.close()
