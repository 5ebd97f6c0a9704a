"""A learner's first visit on a 390 px phone, in headless Chromium: charts whose text can be
read, a header badge that says what waits, quizzes that score only what was answered, each
question's controls in its own language, the learning path as nav orders it, and the preview
server's error page. Screenshots go to test-artifacts/ (phone-*.png, desktop-*.png).
"""

from __future__ import annotations

import pytest
import yaml
from mkdocs_course.buildkit.buildinfo import ROOT
from mkdocs_course.plugin import learning_path

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
PART_1 = "lessons/02-gradient-checkpointing.html"  # the whole-step bar chart
PART_3 = "lessons/02-part-3-measuring-and-choosing.html"  # the line and scatter plots, a quiz
URDU_QUIZ = "quizzes/checkpointing-ur.html"

# Every chart shown: the size its 12 px text is drawn at, and whether the page overflows.
CHART_TEXT = """() => [...document.querySelectorAll('svg.benchmark-svg')]
  .filter(svg => svg.getBoundingClientRect().width > 0)
  .map(svg => ({
    label: svg.getAttribute('aria-label').slice(0, 50),
    px: Math.min(...[...svg.querySelectorAll('text')].map(t => {
      const m = t.getScreenCTM();  // rotated text (an axis title) scales by the same factor
      return 12 * Math.hypot(m.a, m.b);
    })),
    right: svg.closest('figure').getBoundingClientRect().right,
  }))"""


def phone(open_site, path: str, size: dict[str, int] = PHONE):
    watched = open_site()
    watched.page.set_viewport_size(size)
    return watched.goto(path)


def no_sideways_scroll(page) -> bool:
    return page.evaluate("document.scrollingElement.scrollWidth <= innerWidth")


@pytest.mark.parametrize("path", [PART_1, PART_3])
def test_chart_text_is_11_px_or_more_on_a_phone(open_site, artifacts, path):
    page = phone(open_site, path)
    charts = page.evaluate(CHART_TEXT)
    assert charts, f"{path} shows a chart"
    for chart in charts:
        assert chart["px"] >= 11, chart
        assert chart["right"] <= PHONE["width"] + 0.5, chart  # its figure stays on the screen
    assert no_sideways_scroll(page)
    name = "breakdown" if path == PART_1 else "tradeoff"
    page.locator("figure:visible", has=page.locator("svg.benchmark-svg")).last.screenshot(
        path=artifacts / f"phone-chart-{name}.png"
    )


@pytest.mark.parametrize(("size", "name"), [(PHONE, "phone"), (DESKTOP, "desktop")])
def test_the_header_badge_says_what_waits_as_the_review_page_counts_it(
    open_site, artifacts, size, name
):
    """A first visit: nothing is due, and today's new items wait; the badge says both in words,
    on a phone too, and they are the Review page's own counts."""
    page = phone(open_site, "review.html", size)
    counts = page.locator(".course-review-counts")
    counts.wait_for()
    badge = page.locator(".md-header .course-review-badge")
    shown = badge.locator(".course-review-badge-count")
    new = int(badge.get_attribute("data-new"))
    assert new > 0 and badge.get_attribute("data-due") == "0"
    assert shown.inner_text() == counts.inner_text() == f"0 due · {new} new"
    assert badge.get_attribute("aria-label") == f"Review, 0 due, {new} new"
    box = shown.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= size["width"] + 0.5
    assert shown.evaluate("c => c.scrollWidth <= c.clientWidth + 1")  # not cut off
    assert no_sideways_scroll(page)
    page.locator(".md-header").screenshot(path=artifacts / f"{name}-header-badge.png")


def test_a_quiz_shows_no_score_before_an_answer(open_site, artifacts):
    page = phone(open_site, PART_3)
    quiz = page.locator("section.quiz").first
    quiz.scroll_into_view_if_needed()
    footer = quiz.locator(".quiz-footer")
    assert quiz.get_attribute("data-ready") == "true" and footer.is_hidden()
    question = quiz.locator(".quiz-question").first
    question.locator(".quiz-option").nth(int(question.get_attribute("data-answer"))).click()
    footer.wait_for(state="visible")
    total = quiz.locator(".quiz-question").count()
    assert quiz.locator(".quiz-score-value").inner_text() == f"1 / {total}"
    question.screenshot(path=artifacts / "phone-quiz-first-answer.png")


def test_each_question_of_the_urdu_quiz_speaks_its_own_language(open_site, artifacts):
    """ "Show answer", "Correct answer" and the feedback after an answer are in the language of
    the question they belong to: English under an English question, Urdu under an Urdu one."""
    page = phone(open_site, URDU_QUIZ)
    questions = page.locator("section.quiz .quiz-question")
    langs = questions.evaluate_all("qs => qs.map(q => q.lang)")
    assert {"en", "ur"} <= set(langs)
    for index, lang in enumerate(langs):
        question = questions.nth(index)
        chrome = question.locator("summary span, .quiz-answer strong")
        assert chrome.evaluate_all("cs => cs.map(c => c.lang)") == [lang, lang], index
        question.locator(".quiz-option").nth(int(question.get_attribute("data-answer"))).click()
        words = question.locator(".quiz-feedback span")
        assert words.get_attribute("lang") == lang
        expected = question.get_attribute("data-text-correct")
        assert words.inner_text() == expected and (expected == "Correct") == (lang == "en")
    english = questions.nth(langs.index("en"))
    english.scroll_into_view_if_needed()
    english.screenshot(path=artifacts / "phone-urdu-quiz-english-question.png")


def test_the_home_pages_learning_path_is_navs(open_site, artifacts):
    page = phone(open_site, "index.html")
    nav = yaml.safe_load((ROOT / "mkdocs.yml").read_text("utf-8"))["nav"]
    steps = learning_path.steps("Learning path", nav)
    table = page.locator("h2#learning-path").locator("xpath=following::table[1]")
    rows = table.locator("tbody tr")
    assert rows.count() == len(steps)
    for row, step in zip(rows.all(), steps, strict=True):
        assert row.locator("a").all_inner_texts() == [title for title, _ in step]
    assert no_sideways_scroll(page)
    table.screenshot(path=artifacts / "phone-home-learning-path.png")


def test_the_preview_servers_error_page_reads_on_a_phone(open_site, artifacts):
    """What ``serve`` answers while the sources do not build: the problem's file and line, in
    full, without scrolling sideways."""
    from mkdocs_course.plugin.mkdocs_build import error_page

    problem = (
        "docs/lessons/05-a-new-lesson.md:12: '::: quiz' is never closed: end it with a line "
        "holding only ':::'"
    )
    page = open_site().page  # a blank page: this one comes from the server, not the site
    page.set_viewport_size(PHONE)
    page.set_content(error_page(problem))
    assert page.locator("pre").inner_text() == problem
    assert no_sideways_scroll(page)
    page.screenshot(path=artifacts / "phone-serve-error-page.png")
