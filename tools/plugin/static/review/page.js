/*
 * The review page: one due item at a time, graded with Anki's keys, scheduled by ts-fsrs.
 *
 * Loaded by store.js only on the page that has the #course-review container, after the vendored
 * ts-fsrs (window.FSRS), the shared scheduling (schedule.js, window.CourseSchedule), the
 * items' HTML (window.CourseReviewContent) and the progress files' code (transfer.js,
 * window.CourseReviewTransfer). The items' HTML is the site renderer's output for the
 * course text, built with the site; the interface text is set with textContent.
 *
 * Keys: Space or Enter shows the answer, then grades with the highlighted grade (Good unless a
 * quiz choice picked another); 1-4 grade; on a quiz question, 1-9 first choose an option. Keys
 * typed into a form field, or Space/Enter on a focused control, do what that control does.
 */
(function () {
  "use strict";

  var store = window.CourseReview;
  var schedule = window.CourseSchedule;
  var GRADES = schedule.GRADES;
  var GOOD = schedule.GOOD;
  var AGAIN = schedule.AGAIN;
  var KINDS = { flashcard: "Flashcard", quiz: "Quiz question" };
  var MINUTE = 60 * 1000;
  var MAX_ANSWER_MS = 60 * 1000; // Anki's default cap on a review's answer time
  var transfer = window.CourseReviewTransfer;
  var review = schedule.review;
  var intervals = schedule.intervals;
  var formatInterval = schedule.formatInterval;

  // --- DOM helpers ----------------------------------------------------------------------------

  var el = window.CourseStartup.el;

  // A piece of course HTML ([html, lang]) in its own language and direction. The HTML is the
  // site renderer's output, generated with the site (course text is escaped there).
  function piece(tag, className, part) {
    var node = el(tag, { class: className, lang: part[1], dir: part[1] === "ur" ? "rtl" : "ltr" });
    node.innerHTML = part[0];
    return node;
  }

  var counter = 0;
  function uid(name) {
    counter += 1;
    return "course-review-" + name + "-" + counter;
  }

  // --- the page: one state object, small view builders ----------------------------------------
  //
  // mount() makes ``app``, the page's one state object, and every function below reads or
  // changes it; builders (…View) return new elements, render() puts the queue's first item on
  // the stage. app holds:
  //   root, index, content   the container and the generated item list and items' HTML
  //   state                  the progress, in store.js's shape
  //   filter                 {lesson, kind} from the toolbar, either null
  //   current                the item on the stage, or null:
  //                          {item, data, stored, revealed, chosen, preselect, view}
  //   pending                changes the storage refused (it was full), stored with the next
  //   skipped                {guid: true} for items the scheduler failed on, left out this visit
  //   ui                     the page's lasting elements: counts, stage, status (spoken only),
  //                          message (problems), notice (what a settings action did), perDay
  //   refreshTimer           the timeout that shows the next item once it falls due

  function announce(app, text) {
    app.ui.status.textContent = text;
  }

  // The outcome of an action in the settings, shown next to its buttons and read out once (a
  // status region); a problem goes to the message instead, and each clears the other.
  function notify(app, text) {
    app.ui.message.textContent = "";
    app.ui.notice.textContent = text;
  }

  function complain(app, text, cause) {
    app.ui.notice.textContent = "";
    app.ui.message.textContent = text;
    app.ui.message.setAttribute("data-cause", cause || "");
  }

  // Stores ``change`` (a function that edits a state) with the changes still pending, on the
  // progress as stored now (store.update), and takes the result as the page's state. Where the
  // storage is full, the changes stay pending for the next save; where it is refused, they
  // last in this tab only. An error of the change itself is the caller's to contain.
  function save(app, change) {
    var changes = app.pending.concat([change]);
    var result = store.update(changes);
    if (result.reason === "blocked") {
      change(app.state);
      complain(app, "This browser does not let the page save progress; it lasts until you leave.", "storage");
      return;
    }
    app.state = result.state;
    app.pending = result.ok ? [] : changes;
    if (!result.ok) {
      complain(
        app,
        "This browser's storage for this site is full, so your latest reviews are not saved yet. " +
          "They stay in this tab and are saved with the next one, once there is room.",
        "storage"
      );
    } else if (app.ui.message.getAttribute("data-cause") === "storage") {
      complain(app, "");
    }
  }

  // The scheduler failed on one item (for example a stored review dated in the future): that item
  // is left out for this visit, untouched in storage, and the queue goes on.
  function skip(app, cur, error) {
    app.skipped[cur.item.guid] = true;
    complain(
      app,
      "This item could not be scheduled (" + error.message + "), so it is left out for now: " +
        cur.view.front.textContent.trim().slice(0, 80) + ". Its stored progress is unchanged."
    );
    render(app, true);
  }

  function toolbarView(app) {
    var lessonSelect = el("select", { id: uid("lesson") }, [
      el("option", { value: "", text: "All lessons" }),
    ]);
    app.index.lessons.forEach(function (lesson, i) {
      lessonSelect.appendChild(el("option", { value: String(i), text: lesson.title }));
    });
    var kindSelect = el("select", { id: uid("kind") }, [
      el("option", { value: "", text: "Flashcards and quiz questions" }),
      el("option", { value: "flashcard", text: "Flashcards only" }),
      el("option", { value: "quiz", text: "Quiz questions only" }),
    ]);
    lessonSelect.addEventListener("change", function () {
      app.filter.lesson = lessonSelect.value === "" ? null : Number(lessonSelect.value);
      render(app, false);
    });
    kindSelect.addEventListener("change", function () {
      app.filter.kind = kindSelect.value || null;
      render(app, false);
    });
    return el("div", { class: "course-review-toolbar" }, [
      el("label", { for: lessonSelect.id, text: "Lesson" }),
      lessonSelect,
      el("label", { for: kindSelect.id, text: "Kind" }),
      kindSelect,
    ]);
  }

  function settingsView(app) {
    var perDay = el("input", {
      id: uid("per-day"),
      type: "number",
      min: "0",
      max: String(store.MAX_NEW_PER_DAY),
      step: "1",
      inputmode: "numeric",
    });
    perDay.value = String(app.state.settings.newPerDay);
    perDay.addEventListener("change", function () {
      setNewPerDay(app, perDay.value);
    });
    app.ui.perDay = perDay;
    var exportButton = el("button", { type: "button", class: "md-button", text: "Export progress" });
    var page = { notify: notify, complain: complain, render: render };
    exportButton.addEventListener("click", function () {
      transfer.exportProgress(app, page);
    });
    var ankiButton = el("button", { type: "button", class: "md-button", text: "Export for Anki (.apkg)" });
    ankiButton.addEventListener("click", function () {
      transfer.exportForAnki(app, page, ankiButton);
    });
    var importInput = el("input", {
      type: "file",
      accept: "application/json,.json",
      class: "course-review-file",
      hidden: "",
    });
    importInput.addEventListener("change", function () {
      var file = importInput.files && importInput.files[0];
      importInput.value = "";
      if (file) transfer.importFile(app, page, file);
    });
    var importButton = el("button", { type: "button", class: "md-button", text: "Import progress…" });
    importButton.addEventListener("click", function () {
      importInput.click();
    });
    var resetButton = el("button", { type: "button", class: "md-button", text: "Reset progress" });
    resetButton.addEventListener("click", function () {
      resetProgress(app);
    });
    return el("details", { class: "course-review-settings" }, [
      el("summary", { text: "Progress and settings" }),
      el("p", {}, [el("label", { for: perDay.id, text: "New items per day " }), perDay]),
      el("p", { class: "course-review-actions" }, [exportButton, ankiButton, importButton, importInput, resetButton]),
      transfer.restoreView(app, page),
      app.ui.notice,
    ]);
  }

  // The end of today's reviews, with when the next item falls due.
  function doneView(app, next, now) {
    var done = el("div", { class: "course-review-done", tabindex: "-1" }, [
      el("p", { class: "course-review-done-title", text: "Nothing is due now." }),
    ]);
    if (next !== null) {
      var wait = formatInterval(next - now);
      done.appendChild(el("p", { text: "The next item is due " + wait[1] + "." }));
      scheduleRefresh(app, next - now);
    }
    return done;
  }

  // The queue at ``now``, after writing its counts on the page and in the header.
  function showCounts(app, now) {
    var q = store.queue(app.index, app.state, now, app.filter);
    app.ui.counts.textContent = store.waitingText(q);
    store.updateBadge(); // the header counts what waits, as this line does unfiltered
    return q;
  }

  // Show the first item of the queue (or the end of today's reviews).
  function render(app, focus) {
    var now = Date.now();
    var q = showCounts(app, now);
    app.ui.stage.textContent = "";
    app.current = null;
    var item = q.items.find(function (candidate) {
      return app.content[candidate.guid] && !app.skipped[candidate.guid];
    });
    if (!item) {
      var done = doneView(app, q.next, now);
      app.ui.stage.appendChild(done);
      if (focus) done.focus();
      return;
    }
    var cur = {
      item: item,
      data: app.content[item.guid],
      stored: app.state.cards[item.guid],
      revealed: false,
      chosen: null,
      preselect: null,
      shown: Date.now(),
    };
    app.current = cur;
    app.ui.stage.appendChild(cardView(app, cur));
    if (focus) cur.view.front.focus();
  }

  function scheduleRefresh(app, ms) {
    clearTimeout(app.refreshTimer);
    if (ms <= 60 * MINUTE) {
      app.refreshTimer = setTimeout(function () {
        if (app.root.isConnected && !app.current) render(app, false);
      }, ms + 500);
    }
  }

  // A quiz question's options, each a button that chooses it.
  function optionsView(app, cur) {
    var list = el("ol", { class: "course-review-options" });
    cur.data.options.forEach(function (option, i) {
      var button = el("button", {
        type: "button",
        class: "course-review-option",
        "aria-keyshortcuts": String(i + 1),
      }, [
        el("kbd", { "aria-hidden": "true", text: String(i + 1) }),
        el("span", { class: "course-review-option-label", lang: cur.data.lang,
          text: cur.data.labels[i] }),
        piece("span", "course-review-option-text", option),
      ]);
      button.addEventListener("click", function () {
        choose(app, i);
      });
      cur.view.options.push(button);
      list.appendChild(el("li", {}, [button]));
    });
    return list;
  }

  function cardView(app, cur) {
    var data = cur.data;
    var titleId = uid("front");
    // Interface text is English and runs left to right, also on an Urdu item: keys 1-4 then
    // read in the order of the buttons.
    var meta = el("p", {
      class: "course-review-meta",
      lang: "en",
      dir: "ltr",
      text:
        app.index.lessons[cur.item.lesson].title + " · " + KINDS[cur.item.kind] +
        (cur.stored ? "" : " · new"),
    });
    var front = piece("div", "course-review-front", data.front);
    front.id = titleId;
    front.setAttribute("tabindex", "-1");
    var card = el("section", {
      class: "course-review-card",
      lang: data.lang,
      dir: data.lang === "ur" ? "rtl" : "ltr",
      "aria-labelledby": titleId,
      "data-guid": cur.item.guid,
      "data-kind": cur.item.kind,
    });
    cur.view = { card: card, front: front, options: [] };
    card.append(meta, front);
    if (data.options) card.appendChild(optionsView(app, cur));
    var show = el("button", {
      type: "button",
      class: "md-button md-button--primary course-review-show",
      "aria-keyshortcuts": "Space Enter",
      lang: "en",
      dir: "ltr",
    }, [
      document.createTextNode("Show answer "),
      el("kbd", { "aria-hidden": "true", text: "Space" }),
    ]);
    show.addEventListener("click", function () {
      reveal(app);
    });
    var back = piece("div", "course-review-back", data.back);
    back.hidden = true;
    var grades = el("div", {
      class: "course-review-grades",
      role: "group",
      "aria-label": "How well did you know it?",
      lang: "en",
      dir: "ltr",
    });
    grades.hidden = true;
    var source = el("p", { class: "course-review-source", lang: "en", dir: "ltr" }, [
      el("a", { href: data.url, text: "Open in the course" }),
    ]);
    card.append(show, back, grades, source);
    cur.view.show = show;
    cur.view.back = back;
    cur.view.grades = grades;
    return card;
  }

  // One button per grade, each with the interval it would give; ``chosen`` is highlighted.
  function gradeButtons(app, times, chosen) {
    return GRADES.map(function (grade) {
      var interval = formatInterval(times[grade.rating]);
      var button = el(
        "button",
        {
          type: "button",
          class: "course-review-grade course-review-grade-" + grade.name.toLowerCase(),
          "data-rating": String(grade.rating),
          "aria-keyshortcuts": String(grade.rating),
          "aria-pressed": String(grade.rating === chosen),
        },
        [
          el("kbd", { "aria-hidden": "true", text: String(grade.rating) }),
          el("span", { class: "course-review-grade-name", text: grade.name }),
          el("span", { class: "course-review-interval" }, [
            el("span", { "aria-hidden": "true", text: interval[0] }),
            el("span", { class: "course-visually-hidden", text: " " + interval[1] }),
          ]),
        ]
      );
      button.addEventListener("click", function () {
        applyGrade(app, grade.rating);
      });
      return button;
    });
  }

  function reveal(app) {
    var cur = app.current;
    if (!cur || cur.revealed) return;
    cur.revealed = true;
    var view = cur.view;
    view.show.hidden = true;
    view.back.hidden = false;
    if (cur.data.options) markOptions(cur);
    var chosenGrade = cur.preselect || GOOD;
    var times;
    try {
      times = intervals(cur.stored, Date.now());
    } catch (error) {
      skip(app, cur, error);
      return;
    }
    var buttons = gradeButtons(app, times, chosenGrade);
    buttons.forEach(function (button) {
      view.grades.appendChild(button);
    });
    view.grades.hidden = false;
    buttons[chosenGrade - 1].focus();
    announce(
      app,
      cur.chosen === null
        ? "Answer shown."
        : (cur.chosen === cur.data.answer ? "Correct." : "Incorrect.") +
            " Grade: " + GRADES[chosenGrade - 1].name + "."
    );
  }

  function markOptions(cur) {
    cur.view.options.forEach(function (button, i) {
      button.setAttribute("aria-disabled", "true");
      var right = i === cur.data.answer;
      if (right) button.classList.add("is-correct");
      if (i === cur.chosen && !right) button.classList.add("is-incorrect");
      var words = [];
      if (i === cur.chosen) words.push("your answer");
      if (right) words.push("correct");
      else if (i === cur.chosen) words.push("incorrect");
      if (words.length) {
        button.appendChild(
          el("span", { class: "course-review-mark", lang: "en", dir: "ltr" }, [
            el("span", { "aria-hidden": "true", text: right ? "✓" : "✗" }),
            el("span", { class: "course-visually-hidden", text: " (" + words.join(", ") + ")" }),
          ])
        );
      }
    });
  }

  function choose(app, i) {
    var cur = app.current;
    if (!cur || cur.revealed || !cur.data.options || i >= cur.data.options.length) return;
    cur.chosen = i;
    cur.preselect = i === cur.data.answer ? GOOD : AGAIN;
    reveal(app);
  }

  function applyGrade(app, rating) {
    var cur = app.current;
    if (!cur || !cur.revealed) return;
    var now = Date.now();
    var guid = cur.item.guid;
    var took = Math.min(MAX_ANSWER_MS, Math.max(0, now - cur.shown));
    try {
      // Graded on the item's review as stored now, which another tab may have just added to.
      save(app, function (state) {
        state.cards[guid] = review(state.cards[guid], rating, now, took);
      });
    } catch (error) {
      skip(app, cur, error);
      return;
    }
    var next = formatInterval(Date.parse(app.state.cards[guid].due) - now);
    render(app, true);
    announce(app, GRADES[rating - 1].name + ": due again " + next[1] + ".");
  }

  // The page's keys (see the top of this file); removed once the page is gone.
  function keyHandler(app) {
    var FIELDS = "input, select, textarea, [contenteditable], .md-search, .md-header";
    return function onKey(event) {
      if (!app.root.isConnected) {
        document.removeEventListener("keydown", onKey);
        return;
      }
      var cur = app.current;
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || !cur) return;
      var target = event.target;
      if (target.closest && target.closest(FIELDS)) return;
      var onControl = target.closest && target.closest("button, a, summary");
      if (event.key === " " || event.key === "Enter") {
        if (onControl) return; // the focused control does its own job
        event.preventDefault();
        if (!cur.revealed) reveal(app);
        else applyGrade(app, cur.preselect || GOOD);
        return;
      }
      var digit = /^[1-9]$/.test(event.key) ? Number(event.key) : 0;
      if (!digit) return;
      if (!cur.revealed && cur.data.options) {
        event.preventDefault();
        choose(app, digit - 1);
      } else if (cur.revealed && digit <= 4) {
        event.preventDefault();
        applyGrade(app, digit);
      }
    };
  }

  // --- progress and settings ------------------------------------------------------------------

  function setNewPerDay(app, text) {
    var value = Number(text);
    if (text === "" || !store.isNewPerDay(value)) {
      complain(app, "New items per day must be a whole number from 0 to " + store.MAX_NEW_PER_DAY + ".");
      app.ui.perDay.value = String(app.state.settings.newPerDay);
      return;
    }
    app.ui.message.textContent = "";
    save(app, function (state) {
      state.settings.newPerDay = value;
    });
    render(app, false);
  }

  function resetProgress(app) {
    var question = "Forget all review progress kept in this browser? Export it first to keep a copy.";
    if (!window.confirm(question)) return;
    var empty = { settings: app.state.settings, cards: store.cardMap() };
    var result = store.replace(empty, "reset");
    if (!result.ok) {
      complain(app, "This browser did not let the page change its stored progress; nothing was reset.");
      return;
    }
    app.state = empty;
    app.pending = [];
    render(app, false);
    transfer.refresh(app);
    notify(app, "Progress reset. What was here is kept as a backup that Restore brings back.");
  }

  // What the page found damaged in storage, in words, or "" (store.read).
  function damageReport(reading) {
    var kept = " The stored text is kept as a backup before anything is saved over it (under Progress and " +
      "settings, Restore brings it back).";
    if (reading.unreadable) {
      return "The review progress stored in this browser could not be read: " + reading.unreadable +
        ". The page starts without it." + kept;
    }
    var n = reading.dropped.length;
    if (!n) return "";
    return (n === 1 ? "One stored entry was" : n + " stored entries were") +
      " damaged and left out (" + reading.dropped.slice(0, 3).join(", ") + (n > 3 ? ", …" : "") +
      "); the rest of your progress is here." + kept;
  }

  // Another tab stored progress: take it (with this tab's unsaved changes on top). The item on
  // the stage stays if its answer shows (its grade then goes on top of the other tab's review)
  // or if the other tab did not change it.
  function storageHandler(app) {
    return function onStorage(event) {
      if (!app.root.isConnected) {
        window.removeEventListener("storage", onStorage);
        return;
      }
      if (event.key !== store.STORAGE_KEY && event.key !== null) return;
      app.state = store.load();
      app.pending.forEach(function (change) {
        change(app.state);
      });
      if (app.ui.perDay) app.ui.perDay.value = String(app.state.settings.newPerDay);
      var cur = app.current;
      var same = cur && JSON.stringify(app.state.cards[cur.item.guid]) === JSON.stringify(cur.stored);
      if (cur && (cur.revealed || same)) {
        showCounts(app, Date.now());
      } else {
        render(app, false);
      }
    };
  }

  // --- mounting -------------------------------------------------------------------------------

  function mount(root) {
    if (root.getAttribute("data-state") === "ready") return;
    var app = {
      root: root,
      index: window.CourseReviewIndex,
      content: window.CourseReviewContent,
      state: null,
      filter: { lesson: null, kind: null },
      current: null,
      pending: [],
      skipped: {},
      ui: {
        counts: el("p", { class: "course-review-counts" }),
        stage: el("div", { class: "course-review-stage" }),
        status: el("p", { class: "course-review-status course-visually-hidden", role: "status" }),
        message: el("p", { class: "course-review-message", role: "alert" }),
        notice: el("p", { class: "course-review-notice", role: "status" }),
        perDay: null,
      },
      refreshTimer: null,
    };
    root.textContent = "";
    var ui = app.ui;
    var reading = store.read();
    app.state = reading.state;
    root.append(toolbarView(app), ui.counts, ui.stage, ui.status, ui.message);
    document.addEventListener("keydown", keyHandler(app));
    window.addEventListener("storage", storageHandler(app));
    render(app, false);
    var damage = damageReport(reading);
    if (damage) complain(app, damage);
    // The settings (closed until opened) in a task of their own, once the first item has been
    // painted: each part of the start-up stays short. Until then the container keeps its room.
    window.CourseStartup.afterPaint().then(function () {
      root.appendChild(settingsView(app));
      root.setAttribute("data-state", "ready");
    });
  }

  window.CourseReviewPage = { mount: mount };
})();
