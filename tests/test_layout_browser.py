"""Tables in the built pages, measured in a real browser at a desktop and a phone width.

At 1280 px no table may be wider than the text column: a column that is cut off with no hint is
a column a reader never sees. At 390 px a table either fits or scrolls inside a wrapper that says
so (a visible line and the region's name), and the planner's rows stack, every cell in sight.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import scroll_through

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
PLANNER_PAGE = "lessons/02-part-3-measuring-and-choosing.html"
LESSON_2 = "lessons/02-gradient-checkpointing.html"
QUIZ_UR = "quizzes/checkpointing-ur.html"

# Every shown table in the text column: how wide it is against the column, and the wrapper it
# scrolls in when it does (what that wrapper tells a sighted and a screen-reader user).
TABLES_JS = """() => {
  const column = document.querySelector('.md-content__inner');
  const edge = column.getBoundingClientRect();
  return [...column.querySelectorAll('table')].filter(t => t.offsetParent !== null).map(t => {
    const wrap = t.closest('.md-typeset__scrollwrap');
    const scrolls = !!wrap && wrap.scrollWidth > wrap.clientWidth + 1;
    const rect = t.getBoundingClientRect();
    return {
      name: (t.caption ? t.caption.textContent : t.rows[0].textContent).trim().slice(0, 60),
      overflow: Math.round(Math.max(rect.right - edge.right, t.scrollWidth - t.clientWidth)),
      scrolls,
      hint: wrap ? getComputedStyle(wrap, '::before').content : '',
      label: wrap ? wrap.getAttribute('aria-label') || '' : '',
      role: wrap ? wrap.getAttribute('role') || '' : '',
      focusable: wrap ? wrap.tabIndex === 0 : false,
    };
  });
}"""


def site_pages(built_site: Path) -> list[str]:
    return sorted(
        path.relative_to(built_site).as_posix()
        for path in built_site.rglob("*.html")
        if path.name != "404.html"
    )


def tables_at(open_site, built_site: Path, viewport: dict[str, int]) -> dict[str, list[dict]]:
    watched = open_site()
    watched.page.set_viewport_size(viewport)
    found = {}
    for path in site_pages(built_site):
        page = watched.goto(path)
        # Embeds are laid out only near the screen (content-visibility), and course.js measures
        # a wrapper once it is laid out: bring each one to the screen, as a reader scrolling does.
        for wrapper in page.locator(".md-typeset__scrollwrap").all():
            wrapper.scroll_into_view_if_needed()
            page.wait_for_timeout(20)
        page.wait_for_timeout(100)
        found[path] = page.evaluate(TABLES_JS)
    return found


def test_no_table_is_wider_than_its_column_at_desktop_width(open_site, built_site):
    found = tables_at(open_site, built_site, DESKTOP)
    assert sum(len(tables) for tables in found.values()) >= 5  # the measured pages have tables
    too_wide = [
        f"{path}: {table['name']!r} is {table['overflow']} px wider than the column"
        for path, tables in found.items()
        for table in tables
        if table["overflow"] > 1 or table["scrolls"]
    ]
    assert too_wide == []


def test_on_a_phone_each_table_fits_or_scrolls_in_a_wrapper_that_says_so(open_site, built_site):
    found = tables_at(open_site, built_site, PHONE)
    problems = []
    scrolling = 0
    for path, tables in found.items():
        for table in tables:
            if not table["scrolls"]:
                if table["overflow"] > 1:
                    problems.append(f"{path}: {table['name']!r} is cut off, with no scroll area")
                continue
            scrolling += 1
            if "Scroll sideways" not in table["hint"]:
                problems.append(f"{path}: {table['name']!r} scrolls with no visible hint")
            if not (table["role"] == "region" and "scrolls sideways" in table["label"]):
                problems.append(f"{path}: {table['name']!r} scrolls in an unnamed region")
            if not table["focusable"]:
                problems.append(f"{path}: {table['name']!r} cannot be scrolled by keyboard")
    assert scrolling > 0  # wide tables exist at this width: the check above was exercised
    assert problems == []


def test_a_table_that_fits_again_loses_its_scroll_hint(open_site):
    """Turning a phone sideways (or widening a window) re-measures each wrapper."""
    watched = open_site()
    watched.page.set_viewport_size(PHONE)
    page = watched.goto(PLANNER_PAGE)
    results = page.locator(".benchmark-table .md-typeset__scrollwrap").first
    page.wait_for_function(
        "w => w.hasAttribute('data-scrolls')", arg=results.element_handle(), timeout=5000
    )
    page.set_viewport_size(DESKTOP)
    page.wait_for_function(
        "w => !w.hasAttribute('data-scrolls')", arg=results.element_handle(), timeout=5000
    )
    assert results.get_attribute("role") is None and results.get_attribute("tabindex") is None


def test_on_a_phone_every_planner_cell_shows_in_full_under_its_columns_header(open_site, artifacts):
    """At 390 px each setting's row stacks: every figure, the answer included, shows whole,
    uncovered and inside the screen, named by its column's header; nothing scrolls."""
    watched = open_site()
    watched.page.set_viewport_size(PHONE)
    page = watched.goto(PLANNER_PAGE)
    table = page.locator("form.planner table")
    table.wait_for(state="visible")
    table.scroll_into_view_if_needed()
    headers = table.locator("thead th").all_inner_texts()
    assert headers[-1] == "Fits the device"
    cells = table.evaluate(
        """t => [...t.querySelectorAll('tbody tr')].flatMap(tr => [...tr.children].map(c => {
          c.scrollIntoView({block: 'center'});
          const r = c.getBoundingClientRect();
          const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
          return {
            label: c.tagName === 'TD' ? getComputedStyle(c, '::before').content : null,
            index: [...tr.children].indexOf(c),
            text: c.textContent,
            inside: r.left >= -0.5 && r.right <= innerWidth + 0.5 && r.width > 0,
            uncovered: !!top && c.contains(top),
            whole: c.scrollWidth <= c.clientWidth + 1,
          };
        }))"""
    )
    assert len(cells) >= 5 * len(headers) - len(headers)  # a row per setting, every column
    for cell in cells:
        assert cell["inside"] and cell["uncovered"] and cell["whole"], cell
        if cell["index"] > 0:
            assert cell["label"] == f'"{headers[cell["index"]]}: "', cell
    wrap = page.locator("form.planner .md-typeset__scrollwrap")
    assert wrap.evaluate("w => w.scrollWidth <= w.clientWidth + 1")  # nothing to scroll to
    page.locator("form.planner .planner-results").screenshot(
        path=artifacts / "phone-planner-table.png"
    )


def test_results_table_cells_hold_at_most_two_lines(open_site):
    """A figure and its note under it: no label wraps a cell onto a third line at 1280 px."""
    page = open_site().goto(PLANNER_PAGE)
    lines = page.evaluate(
        """() => [...document.querySelectorAll('.benchmark-table tbody :is(td, th)')].map(cell => {
          // The lines its text sits on (an element's own box, such as a note's, is not a line).
          const bottoms = new Set();
          const walk = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
          for (let node = walk.nextNode(); node; node = walk.nextNode()) {
            if (!node.textContent.trim()) continue;
            const range = document.createRange();
            range.selectNodeContents(node);
            for (const rect of range.getClientRects()) bottoms.add(Math.round(rect.bottom));
          }
          return [cell.textContent.trim(), bottoms.size];
        })"""
    )
    assert lines, "the lesson shows the results table"
    assert [(text, n) for text, n in lines if n > 2] == []


def test_a_figure_holding_a_list_reads_as_text_not_centred(open_site):
    """Lesson 1's lifecycle is a numbered list in a <figure>: on a phone its wrapped lines must
    start at the text's edge, as a list's do, not be centred as an image's caption is."""
    watched = open_site()
    watched.page.set_viewport_size(PHONE)
    page = watched.goto("lessons/01-finding-and-claiming-work.html")
    figures = page.locator(".md-content figure:has(> ol, > ul)")
    assert figures.count() >= 1
    for index in range(figures.count()):
        layout = figures.nth(index).evaluate(
            """f => {
              const column = document.querySelector('.md-content__inner').getBoundingClientRect();
              const list = f.querySelector(':scope > ol, :scope > ul').getBoundingClientRect();
              return {
                aligns: [...f.querySelectorAll('li, figcaption')].map(
                  e => getComputedStyle(e).textAlign),
                gap: Math.round(list.left - column.left),
              };
            }"""
        )
        assert set(layout["aligns"]) <= {"start", "left"}, layout
        assert layout["gap"] <= 30, layout  # the list's own indent, not a centred block's margin


HELD_BLOCKS = ".md-content__inner > h2 ~ :is(p, ul, ol)"  # text that waits off screen
# Every block that waits off screen (course.css), and what in it takes keyboard focus.
HELD_ALL = (
    ".md-content__inner > h2 ~ :is(p, ul, ol, blockquote, details, .admonition, .arithmatex,"
    " .flashcards), .md-typeset .benchmark, .md-typeset > .highlight"
)
FOCUSABLE = "a[href], button, summary, input, select, textarea, [tabindex]"


def test_text_below_the_first_screen_is_laid_out_when_it_comes_near_it(open_site):
    """Lesson 2's paragraphs and lists after its first section heading wait (content-visibility)
    until they come near the screen, so Material's start-up pass lays out the first screen only;
    the text above that heading, on the first screen, never waits (it would move the heading)."""
    watched = open_site()
    watched.page.set_viewport_size(DESKTOP)
    page = watched.goto(LESSON_2)
    state = page.evaluate(
        """(held) => {
          const shown = e => e.checkVisibility({contentVisibilityAuto: true});
          const article = document.querySelector('.md-content__inner');
          const first = article.querySelector(':scope > h2');
          const before = [...article.children].filter(
            e => e !== first && e.compareDocumentPosition(first) & Node.DOCUMENT_POSITION_FOLLOWING
          );
          const last = [...article.querySelectorAll(held)].filter(b => b.firstElementChild).pop();
          return {
            before: before.map(e => getComputedStyle(e).contentVisibility),
            held: [...article.querySelectorAll(held)].length,
            lastShown: shown(last.firstElementChild),
          };
        }""",
        HELD_BLOCKS,
    )
    assert state["held"] >= 20, state
    assert set(state["before"]) == {"visible"}, state
    assert state["lastShown"] is False, "the lesson's last paragraphs wait off screen"
    last = page.locator(HELD_BLOCKS).last
    last.scroll_into_view_if_needed()
    page.wait_for_timeout(200)
    assert last.evaluate(
        "b => [...b.children].every(c => c.checkVisibility({contentVisibilityAuto: true}))"
    ), "a paragraph that comes on screen is shown"


def test_what_takes_focus_in_a_block_that_waits_shows_its_whole_focus_outline(open_site):
    """A block that waits off screen clips what it paints to itself: the focus outline of each
    link, button or other control in it, as the page draws it when the keyboard focuses it, must
    lie inside the block, on the lessons with links, benchmarks, solutions and flashcards."""
    watched = open_site()
    watched.page.set_viewport_size(PHONE)
    for path in ("lessons/01-finding-and-claiming-work.html", LESSON_2, PLANNER_PAGE, QUIZ_UR):
        page = watched.goto(path)
        # A block that has not been near the screen holds a short place while its links are laid
        # out at full height past it: read each block once it has been shown, as a reader does.
        scroll_through(page)
        cut = page.evaluate(
            """([held, focusable]) => {
              const cut = [];
              for (const block of document.querySelectorAll(held)) {
                for (const control of block.querySelectorAll(focusable)) {
                  if (!control.checkVisibility()) continue;  // not shown (a closed solution)
                  control.focus({focusVisible: true, preventScroll: true});
                  const box = block.getBoundingClientRect();  // after: focus shows the block
                  control.classList.add('focus-visible');  // Material's mark of keyboard focus
                  const style = getComputedStyle(control);
                  const reach = style.outlineStyle === 'none' ? 0
                    : Math.max(0, parseFloat(style.outlineOffset) + parseFloat(style.outlineWidth));
                  control.classList.remove('focus-visible');
                  control.blur();
                  for (const r of control.getClientRects()) {
                    const out = Math.max(
                      box.left - (r.left - reach), r.right + reach - box.right,
                      box.top - (r.top - reach), r.bottom + reach - box.bottom);
                    const name = control.textContent.trim().slice(0, 40) || control.tagName;
                    if (out > 0.5) cut.push([name, Math.round(out)]);
                  }
                }
              }
              return cut;
            }""",
            [HELD_ALL, FOCUSABLE],
        )
        assert cut == [], f"{path}: focus outlines cut off by their block (control, px): {cut}"
