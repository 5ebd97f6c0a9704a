/*
 * Grading a prompt where it stands on its lesson's page (off until the learner turns it on;
 * remembered). A shown flashcard offers Again-Easy (keys 1-4 while it has focus) and Skip; a
 * quiz question's first answer (no review stored) counts, right as Good, wrong as Again, and can
 * be taken back. Grades go through store.js's update() and schedule.js, as on the Review page,
 * and the header's count is redrawn at once. Again comes back once at the end of the reading:
 * before the Key points if the prompt stands before them, else after the page's last prompt.
 * ts-fsrs loads only once grading is on; retry copies are clones of the page's own elements.
 */
(function () {
  "use strict";

  var store = window.CourseReview;
  var PREF_KEY = "course-review:inline";
  var page = null; // this page's state: {on, toggle, retry, offered, blocks}

  function each(list, call) {
    Array.prototype.forEach.call(list, call);
  }

  var el = window.CourseStartup.el;

  function remembered() {
    try {
      return window.localStorage.getItem(PREF_KEY) === "on";
    } catch (error) {
      return false;
    }
  }

  function remember(on) {
    try {
      window.localStorage.setItem(PREF_KEY, on ? "on" : "off");
    } catch (error) {
      /* storage refused: the switch lasts for this page */
    }
  }

  // This page's flashcards and quiz questions, each with its item's GUID: the index lists a
  // lesson's items in page order, flashcards first, so the n-th flashcard of the page is the
  // lesson's n-th flashcard item. Null where the counts differ (nothing is graded then).
  function promptsHere(index, article) {
    var scope = window.__md_scope instanceof URL ? window.__md_scope : new URL(".", location.href);
    var here = location.href.split("#")[0];
    var guids = { flashcard: [], quiz: [] };
    index.lessons.forEach(function (lesson, i) {
      if (new URL(lesson.path.replace(/\.md$/, ".html"), scope).href !== here) return;
      index.items.forEach(function (row) {
        if (row[1] === i) guids[row[2]].push(row[0]);
      });
    });
    var nodes = {
      flashcard: article.querySelectorAll("details.flashcard"),
      quiz: article.querySelectorAll("fieldset.quiz-question"),
    };
    if (nodes.flashcard.length !== guids.flashcard.length || nodes.quiz.length !== guids.quiz.length) return null;
    var found = [];
    ["flashcard", "quiz"].forEach(function (kind) {
      each(nodes[kind], function (node, n) {
        found.push([node, guids[kind][n]]);
      });
    });
    return found;
  }

  function scheduler() {
    return store.need(["FSRS", "CourseSchedule"]).then(function () {
      return window.CourseSchedule;
    });
  }

  // Stores ``rating`` for ``guid`` now; returns the stored card, or a message when not stored.
  function grade(guid, rating) {
    var now = Date.now();
    var result = store.update([
      function (state) {
        state.cards[guid] = window.CourseSchedule.review(state.cards[guid], rating, now);
      },
    ]);
    store.updateBadge();
    if (!result.ok) {
      return result.reason === "quota"
        ? "Not saved: this browser's storage for this site is full."
        : "Not saved: this browser does not let the page store progress.";
    }
    var wait = window.CourseSchedule.formatInterval(Date.parse(result.state.cards[guid].due) - now);
    return window.CourseSchedule.GRADES[rating - 1].name + ": due again " + wait[1] + ".";
  }

  // --- flashcards (and the retry copies, which are flashcards too) ----------------------------

  function gradeBar(card, retry) {
    var guid = card.getAttribute("data-course-guid");
    var times = window.CourseSchedule.intervals(store.load().cards[guid], Date.now());
    var bar = el("div", { class: "course-inline-grades", role: "group", "aria-label": "How well did you know it?", lang: "en", dir: "ltr" });
    var done = function (text) {
      bar.replaceWith(el("p", { class: "course-inline-done", role: "status", lang: "en", dir: "ltr", text: text }));
      card.removeAttribute("data-grading");
    };
    var choose = function (rating) {
      var text = grade(guid, rating);
      if (rating === 1 && !retry && !page.offered[guid]) {
        offerAgain(card);
        text += " It comes back at the end of this page.";
      }
      done(text);
    };
    window.CourseSchedule.GRADES.forEach(function (g) {
      var button = el("button", { type: "button", class: "md-button course-inline-grade", "data-rating": String(g.rating), "aria-keyshortcuts": String(g.rating) }, [
        el("kbd", { "aria-hidden": "true", text: String(g.rating) }),
        document.createTextNode(" " + g.name + " "),
        el("small", { text: window.CourseSchedule.formatInterval(times[g.rating])[0] }),
      ]);
      button.addEventListener("click", function () {
        choose(g.rating);
      });
      bar.appendChild(button);
    });
    var skip = el("button", { type: "button", class: "md-button course-inline-skip", text: "Skip" });
    skip.addEventListener("click", function () {
      done("Skipped: not graded.");
    });
    bar.appendChild(skip);
    card.setAttribute("data-grading", "true");
    card.grade = choose;
    return bar;
  }

  function onCardToggle(card, retry) {
    if (!card.open || !page.on || card.hasAttribute("data-graded-once")) return;
    card.setAttribute("data-graded-once", "true");
    scheduler().then(function () {
      card.appendChild(gradeBar(card, retry));
    });
  }

  function setUpCard(card, guid, retry) {
    card.setAttribute("data-course-guid", guid);
    card.addEventListener("toggle", function () {
      onCardToggle(card, retry);
    });
    card.addEventListener("keydown", function (event) {
      var digit = /^[1-4]$/.test(event.key) ? Number(event.key) : 0;
      if (!digit || !card.hasAttribute("data-grading") || event.ctrlKey || event.metaKey || event.altKey) return;
      event.preventDefault();
      card.grade(digit);
    });
  }

  // --- retry: once more at the end of the reading ---------------------------------------------

  function copyOf(node) {
    var copy = node.cloneNode(true);
    copy.removeAttribute("id");
    each(copy.querySelectorAll("[id]"), function (inner) {
      inner.removeAttribute("id");
    });
    return copy;
  }

  function retrySection(before) {
    if (page.retry) return page.retry;
    var title = el("h2", { id: "course-inline-retry-title", text: "Once more" });
    page.retry = el("section", { class: "course-inline-retry", "aria-labelledby": title.id, lang: "en", dir: "ltr" }, [
      title,
      el("p", { text: "You graded these Again while reading. Each comes back here once." }),
    ]);
    var keyPoints = document.getElementById("key-points");
    if (keyPoints && before.compareDocumentPosition(keyPoints) & Node.DOCUMENT_POSITION_FOLLOWING) {
      keyPoints.parentNode.insertBefore(page.retry, keyPoints);
    } else {
      var last = page.blocks[page.blocks.length - 1];
      last.parentNode.insertBefore(page.retry, last.nextSibling);
    }
    return page.retry;
  }

  // A copy of the prompt ``source`` (a flashcard or a quiz question), as a flashcard.
  function offerAgain(source) {
    var guid = source.getAttribute("data-course-guid");
    page.offered[guid] = true;
    var question = source.querySelector(".flashcard-question, .quiz-prompt-text");
    var answer = source.matches("details")
      ? [source.querySelector(".flashcard-answer")]
      : [source.querySelector(".quiz-answer"), source.querySelector(".quiz-explanation-text")];
    var card = el("details", { class: "flashcard course-inline-retry-item", lang: source.lang, dir: source.dir }, [
      el("summary", {}, [copyOf(question)]),
      el("div", { class: "flashcard-answer" }, answer.filter(Boolean).map(copyOf)),
    ]);
    setUpCard(card, guid, true);
    retrySection(source).appendChild(card);
  }

  // --- quiz questions -------------------------------------------------------------------------

  function onQuizAnswer(event) {
    var question = event.target;
    var guid = question.getAttribute && question.getAttribute("data-course-guid");
    if (!page || !page.on || !guid) return;
    var before = store.load().cards[guid];
    var note = el("p", { class: "course-inline-done", role: "status", lang: "en", dir: "ltr" });
    question.appendChild(note);
    if (before) {
      note.textContent = "Already in your review schedule, so this answer is not counted again.";
      return;
    }
    scheduler().then(function () {
      var rating = event.detail.right ? window.CourseSchedule.GOOD : window.CourseSchedule.AGAIN;
      note.textContent = "Counted as a review. " + grade(guid, rating) + " ";
      var again = rating === 1 && !page.offered[guid];
      if (again) offerAgain(question);
      var undo = el("button", { type: "button", class: "md-button course-inline-skip", text: "Don't count it" });
      undo.addEventListener("click", function () {
        store.update([
          function (state) {
            var card = state.cards[guid];
            if (card && card.log.length === 1) delete state.cards[guid]; // only the review made here
          },
        ]);
        store.updateBadge();
        var copy = page.retry && page.retry.querySelector("[data-course-guid='" + guid + "']");
        if (again && copy) copy.remove();
        note.textContent = "Not counted.";
      });
      note.appendChild(undo);
    });
  }

  // --- the switch -----------------------------------------------------------------------------

  function showSwitch() {
    page.toggle.setAttribute("aria-checked", String(page.on));
    page.toggle.lastChild.textContent = page.on ? "on" : "off";
  }

  function switchView() {
    var toggle = el("button", { type: "button", role: "switch", class: "md-button course-inline-switch" }, [
      document.createTextNode("Grade prompts as I read: "),
      el("strong", {}),
    ]);
    toggle.addEventListener("click", function () {
      page.on = !page.on;
      remember(page.on);
      showSwitch();
      if (page.on) {
        each(document.querySelectorAll("details[data-course-guid]"), function (card) {
          onCardToggle(card, card.classList.contains("course-inline-retry-item"));
        });
      }
    });
    page.toggle = toggle;
    showSwitch();
    return el("div", { class: "course-inline", lang: "en", dir: "ltr" }, [
      toggle,
      el("span", { class: "course-inline-hint", text: " Grades go into your Review schedule; every prompt can be skipped." }),
    ]);
  }

  function init() {
    var index = window.CourseReviewIndex;
    var article = document.querySelector("article") || document.body;
    if (!index || !window.CourseStartup.firstTime(article)) return;
    var blocks = Array.prototype.slice.call(article.querySelectorAll(".flashcards, section.quiz"));
    var prompts = promptsHere(index, article);
    if (!blocks.length || !prompts || !prompts.length) return;
    page = { on: remembered(), toggle: null, retry: null, offered: {}, blocks: blocks };
    prompts.forEach(function (pair) {
      if (pair[0].matches("details")) setUpCard(pair[0], pair[1], false);
      else pair[0].setAttribute("data-course-guid", pair[1]);
    });
    blocks[0].parentNode.insertBefore(switchView(), blocks[0]);
    if (page.on) {
      each(article.querySelectorAll("details.flashcard[open]"), function (card) {
        onCardToggle(card, false);
      });
    }
  }

  window.CourseStartup.onEachPage(init);
  document.addEventListener("course:quiz-answer", onQuizAnswer);
})();
