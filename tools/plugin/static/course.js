/*
 * Interactive layer for the course pages: scored quizzes and the flashcards' show-all control.
 *
 * The pages the build writes already work without this script (native <details> reveal
 * answers). This script only adds behaviour. It never parses course text as HTML: it moves
 * existing elements, sets textContent and builds icons from fixed SVG paths, so nothing an author
 * wrote can run as code here.
 *
 * It starts through startup.js (on load and after each instant navigation); each quiz and the
 * flashcards' toggle is set up once.
 */
(function () {
  "use strict";

  var STORAGE_PREFIX = "course-quiz:";
  var SVG_NS = "http://www.w3.org/2000/svg";
  // Material Design icon paths (check and close), drawn at 24x24.
  var ICONS = {
    correct: "M21 7 9 19l-5.5-5.5 1.41-1.41L9 16.17 19.59 5.59 21 7z",
    incorrect:
      "M19 6.41 17.59 5 12 10.59 6.41 5 5 6.41 10.59 12 5 17.59 6.41 19 12 13.41 17.59 19 19 17.59 13.41 12 19 6.41z",
  };

  function icon(kind) {
    var svg = document.createElementNS(SVG_NS, "svg");
    svg.setAttribute("viewBox", "0 0 24 24");
    svg.setAttribute("aria-hidden", "true");
    svg.setAttribute("focusable", "false");
    svg.setAttribute("class", "course-icon course-icon-" + kind);
    var path = document.createElementNS(SVG_NS, "path");
    path.setAttribute("d", ICONS[kind]);
    svg.appendChild(path);
    return svg;
  }

  // --- storage: a missing or blocked localStorage must never break the quiz -------------------

  function loadProgress(quizId) {
    try {
      var value = JSON.parse(window.localStorage.getItem(STORAGE_PREFIX + quizId) || "{}");
      return value && typeof value === "object" ? value : {};
    } catch (error) {
      return {};
    }
  }

  function saveProgress(quizId, progress) {
    try {
      window.localStorage.setItem(STORAGE_PREFIX + quizId, JSON.stringify(progress));
    } catch (error) {
      /* private mode or storage full: the quiz still works for this visit */
    }
  }

  function clearProgress(quizId) {
    try {
      window.localStorage.removeItem(STORAGE_PREFIX + quizId);
    } catch (error) {
      /* nothing stored, nothing to clear */
    }
  }

  // --- quizzes --------------------------------------------------------------------------------

  function initQuiz(quiz) {
    if (!window.CourseStartup.firstTime(quiz)) return;

    var quizId = quiz.getAttribute("data-quiz-id");
    // A question's interface strings, in its own language (an English question of an Urdu quiz
    // answers in English); the quiz's where a page predates them.
    function textOf(question) {
      function read(name, fallback) {
        return question.getAttribute(name) || quiz.getAttribute(name) || fallback;
      }
      return {
        correct: read("data-text-correct", "Correct"),
        incorrect: read("data-text-incorrect", "Incorrect"),
        yourAnswer: read("data-text-your-answer", "your answer"),
        rightOption: read("data-text-right-option", "the correct answer"),
      };
    }
    var questions = Array.prototype.slice.call(quiz.querySelectorAll(".quiz-question"));
    var footer = quiz.querySelector(".quiz-footer");
    var scoreValue = quiz.querySelector(".quiz-score-value");
    var retry = quiz.querySelector(".quiz-retry");
    var progress = loadProgress(quizId);

    function options(question) {
      return Array.prototype.slice.call(question.querySelectorAll(".quiz-option"));
    }

    // The score, shown once a question is answered: before that it would only say 0.
    function updateScore() {
      var right = 0;
      var answered = 0;
      questions.forEach(function (question) {
        var chosen = question.getAttribute("data-chosen");
        if (chosen !== null) answered += 1;
        if (chosen !== null && chosen === question.getAttribute("data-answer")) right += 1;
      });
      scoreValue.textContent = right + " / " + questions.length;
      if (footer) footer.hidden = answered === 0;
    }

    function mark(option, kind, label) {
      option.classList.add("is-" + kind);
      var note = document.createElement("span");
      note.className = "quiz-mark";
      note.appendChild(icon(kind));
      var hidden = document.createElement("span");
      hidden.className = "course-visually-hidden";
      hidden.textContent = " (" + label + ")";
      note.appendChild(hidden);
      option.appendChild(note);
    }

    function choose(question, index, restoring) {
      if (question.hasAttribute("data-chosen")) return;
      var answer = Number(question.getAttribute("data-answer"));
      var all = options(question);
      if (!(index >= 0 && index < all.length)) return;
      var right = index === answer;
      var text = textOf(question);
      question.setAttribute("data-chosen", String(index));
      question.classList.add(right ? "is-answered-correct" : "is-answered-incorrect");
      all.forEach(function (option, i) {
        option.setAttribute("aria-disabled", "true");
        if (i === answer) mark(option, "correct", i === index ? text.yourAnswer + ", " + text.correct : text.rightOption);
        else if (i === index) mark(option, "incorrect", text.yourAnswer + ", " + text.incorrect);
      });
      var feedback = question.querySelector(".quiz-feedback");
      feedback.textContent = "";
      feedback.className = "quiz-feedback " + (right ? "is-correct" : "is-incorrect");
      feedback.appendChild(icon(right ? "correct" : "incorrect"));
      var words = document.createElement("span");
      words.lang = question.lang || quiz.lang;
      words.dir = question.dir || quiz.dir;
      words.textContent = right ? text.correct : text.incorrect;
      feedback.appendChild(words);
      var explanation = question.querySelector(".quiz-explanation");
      if (explanation) explanation.open = true;
      if (!restoring) {
        progress[question.id] = index;
        saveProgress(quizId, progress);
        // A new answer, for the grading in lessons (assets/review/inline.js) to count.
        question.dispatchEvent(new CustomEvent("course:quiz-answer", { bubbles: true, detail: { right: right } }));
      }
      updateScore();
    }

    function reset() {
      questions.forEach(function (question) {
        question.removeAttribute("data-chosen");
        question.classList.remove("is-answered-correct", "is-answered-incorrect");
        options(question).forEach(function (option) {
          option.removeAttribute("aria-disabled");
          option.classList.remove("is-correct", "is-incorrect");
          Array.prototype.slice.call(option.querySelectorAll(".quiz-mark")).forEach(function (note) {
            note.remove();
          });
        });
        var feedback = question.querySelector(".quiz-feedback");
        feedback.textContent = "";
        feedback.className = "quiz-feedback";
        var explanation = question.querySelector(".quiz-explanation");
        if (explanation) explanation.open = false;
      });
      progress = {};
      clearProgress(quizId);
      updateScore();
      var first = quiz.querySelector(".quiz-option");
      if (first) first.focus();
    }

    questions.forEach(function (question) {
      options(question).forEach(function (option, index) {
        option.addEventListener("click", function () {
          choose(question, index, false);
        });
      });
      if (Object.prototype.hasOwnProperty.call(progress, question.id)) {
        choose(question, Number(progress[question.id]), true);
      }
    });
    if (retry) retry.addEventListener("click", reset);
    updateScore();
  }

  // --- flashcards -----------------------------------------------------------------------------

  function initFlashcards(root) {
    var toggle = root.querySelector(".flashcards-toggle");
    if (!toggle || !window.CourseStartup.firstTime(toggle)) return;
    var cards = Array.prototype.slice.call(root.querySelectorAll("details.flashcard"));

    function sync() {
      var allOpen = cards.length > 0 && cards.every(function (card) {
        return card.open;
      });
      toggle.setAttribute("aria-expanded", allOpen ? "true" : "false");
      toggle.textContent = toggle.getAttribute(allOpen ? "data-hide" : "data-show");
    }

    toggle.addEventListener("click", function () {
      var open = toggle.getAttribute("aria-expanded") !== "true";
      cards.forEach(function (card) {
        card.open = open;
      });
      sync();
    });
    cards.forEach(function (card) {
      card.addEventListener("toggle", sync);
    });
    toggle.setAttribute(
      "aria-controls",
      cards.map(function (card) {
        return card.id;
      }).join(" ")
    );
    toggle.hidden = false;
    sync();
  }

  // A link to a card (#card-id) opens it, so shared links land on the answer.
  function openLinkedCard() {
    if (!window.location.hash) return;
    var target = document.getElementById(decodeURIComponent(window.location.hash.slice(1)));
    if (target && target.matches("details.flashcard")) target.open = true;
  }

  // Material's search overlay is a role="dialog" without a name; screen readers then announce
  // an anonymous dialog. Name it after the search field's own (localized) label.
  function nameSearchDialog() {
    var dialog = document.querySelector(".md-search[role='dialog']");
    var input = document.querySelector(".md-search__input");
    if (!dialog || dialog.hasAttribute("aria-label") || !input) return;
    dialog.setAttribute("aria-label", input.getAttribute("aria-label") || input.placeholder || "Search");
  }

  // A table wider than the page scrolls inside Material's wrapper. A sighted reader is told so by
  // the wrapper's data-scrolls (course.css shows a line above the table); keyboard users can
  // scroll it only if it takes focus, and a focusable region needs a name, which says so too.
  // Whether it scrolls changes with the width and when a hidden table is shown (a course's form):
  // each wrapper is measured again whenever it or its table changes size. Where ResizeObserver
  // exists, its first report measures the wrapper, after the browser's own layout: measuring at
  // once would lay out every table of the page before its first paint, and a table that the
  // browser skips while off screen (course.css: content-visibility) when it comes into view.
  function markScrollArea(wrap) {
    var scrolls = wrap.scrollWidth > wrap.clientWidth + 1;
    if (scrolls === wrap.hasAttribute("data-scrolls")) return;
    if (!scrolls) {
      ["data-scrolls", "tabindex", "role", "aria-label"].forEach(function (name) {
        wrap.removeAttribute(name);
      });
      return;
    }
    var caption = wrap.querySelector("caption");
    wrap.setAttribute("data-scrolls", "");
    wrap.setAttribute("tabindex", "0");
    wrap.setAttribute("role", "region");
    wrap.setAttribute(
      "aria-label",
      (caption ? caption.textContent.trim() : "Table") + " (scrolls sideways)"
    );
  }

  function focusableScrollAreas() {
    Array.prototype.forEach.call(document.querySelectorAll(".md-typeset__scrollwrap"), function (wrap) {
      if (wrap.hasAttribute("data-course-watched")) return;
      wrap.setAttribute("data-course-watched", "");
      if (typeof ResizeObserver !== "function") return markScrollArea(wrap);
      var observer = new ResizeObserver(function () {
        markScrollArea(wrap);
      });
      observer.observe(wrap);
      if (wrap.firstElementChild) observer.observe(wrap.firstElementChild);
    });
  }

  // Material's search runs in a Web Worker, which a page opened from disk (file://) cannot
  // start: Material then hides the search box, and on a phone its search icon opens nothing.
  // There, the header says in the search box's place that search needs the site served, and a
  // click shows the one command that serves it.
  var SERVE_COMMAND = "python3 -m http.server -d site";

  function explainSearchFromDisk() {
    if (window.location.protocol !== "file:") return;
    var search = document.querySelector(".md-header .md-search");
    if (!search || document.querySelector(".course-search-offline")) return;
    var button = document.querySelector(".md-header label.md-header__button[for='__search']");
    var summary = document.createElement("summary");
    var glyph = button && button.querySelector("svg");
    if (glyph) summary.appendChild(glyph.cloneNode(true));
    var label = document.createElement("span");
    label.className = "course-search-offline-label";
    label.textContent = "Search needs the site served";
    summary.appendChild(label);
    summary.setAttribute("aria-label", label.textContent);
    var why = document.createElement("p");
    why.textContent =
      "Search works only when the site is served, not opened from disk. In the course's folder, run";
    var code = document.createElement("code");
    code.textContent = SERVE_COMMAND;
    var command = document.createElement("pre");
    command.appendChild(code);
    var then = document.createElement("p");
    then.textContent = "then open http://127.0.0.1:8000/ and search there.";
    var panel = document.createElement("div");
    panel.className = "course-search-offline-panel";
    panel.append(why, command, then);
    var note = document.createElement("details");
    note.className = "course-search-offline";
    note.append(summary, panel);
    search.parentNode.insertBefore(note, search);
    if (button) button.classList.add("course-search-unavailable");
  }

  function init() {
    explainSearchFromDisk();
    nameSearchDialog();
    focusableScrollAreas();
    Array.prototype.slice.call(document.querySelectorAll("section.quiz")).forEach(initQuiz);
    initFlashcards(document);
    openLinkedCard();
  }

  window.CourseStartup.onEachPage(init);
  window.addEventListener("hashchange", openLinkedCard);
  window.addEventListener("resize", focusableScrollAreas);
})();
