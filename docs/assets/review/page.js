/*
 * The review page: one due item at a time, graded with Anki's keys, scheduled by ts-fsrs.
 *
 * Loaded by store.js only on the page that has the #course-review container, after the vendored
 * ts-fsrs (window.FSRS) and the items' HTML (window.CourseReviewContent). Scheduling is ts-fsrs
 * with its defaults (FSRS-6 weights, 90% retention, learning steps 1m and 10m, no fuzz), so a
 * test can compare the page's intervals with another FSRS implementation. The items' HTML is the
 * site renderer's output for the course text, built with the site; the interface text is set
 * with textContent.
 *
 * Keys: Space or Enter shows the answer, then grades with the highlighted grade (Good unless a
 * quiz choice picked another); 1-4 grade; on a quiz question, 1-9 first choose an option. Keys
 * typed into a form field, or Space/Enter on a focused control, do what that control does.
 */
(function () {
  "use strict";

  var store = window.CourseReview;
  var GRADES = [
    { rating: 1, name: "Again" },
    { rating: 2, name: "Hard" },
    { rating: 3, name: "Good" },
    { rating: 4, name: "Easy" },
  ];
  var GOOD = 3;
  var AGAIN = 1;
  var KINDS = { flashcard: "Flashcard", quiz: "Quiz question" };
  var MINUTE = 60 * 1000;
  var DAY = 24 * 60 * MINUTE;

  // --- scheduling (ts-fsrs) -------------------------------------------------------------------

  var scheduler = null;
  function fsrs() {
    if (!scheduler) scheduler = window.FSRS.fsrs(window.FSRS.generatorParameters({ enable_fuzz: false }));
    return scheduler;
  }

  function toFsrsCard(stored, now) {
    return stored ? window.FSRS.TypeConvert.card(stored) : window.FSRS.createEmptyCard(new Date(now));
  }

  function toStored(card, log) {
    return {
      due: card.due.toISOString(),
      stability: card.stability,
      difficulty: card.difficulty,
      elapsed_days: card.elapsed_days,
      scheduled_days: card.scheduled_days,
      learning_steps: card.learning_steps,
      reps: card.reps,
      lapses: card.lapses,
      state: card.state,
      last_review: card.last_review ? card.last_review.toISOString() : null,
      log: log,
    };
  }

  // The stored card after grading ``stored`` (undefined: a new item) with ``rating`` at ``now``.
  function review(stored, rating, now) {
    var result = fsrs().next(toFsrsCard(stored, now), new Date(now), rating);
    var log = (stored ? stored.log : []).concat([[new Date(now).toISOString(), rating]]);
    return toStored(result.card, log);
  }

  // Milliseconds until the item would be due again, for each grade: {1: ms, ..., 4: ms}.
  function intervals(stored, now) {
    var preview = fsrs().repeat(toFsrsCard(stored, now), new Date(now));
    var out = {};
    GRADES.forEach(function (grade) {
      out[grade.rating] = preview[grade.rating].card.due.getTime() - now;
    });
    return out;
  }

  function round(value) {
    return value < 10 ? Math.round(value * 10) / 10 : Math.round(value);
  }

  // Anki's short form of an interval ("<1m", "10m", "3d", "1.5mo") and a long one for speech.
  function formatInterval(ms) {
    if (ms < MINUTE) return ["<1m", "in less than a minute"];
    var units = [
      [365 * DAY, "y", "year"],
      [30 * DAY, "mo", "month"],
      [DAY, "d", "day"],
      [60 * MINUTE, "h", "hour"],
      [MINUTE, "m", "minute"],
    ];
    for (var i = 0; i < units.length; i += 1) {
      if (ms >= units[i][0] || i === units.length - 1) {
        var value = ms / units[i][0];
        value = units[i][1] === "mo" || units[i][1] === "y" ? round(value) : Math.round(value);
        return [value + units[i][1], "in " + value + " " + units[i][2] + (value === 1 ? "" : "s")];
      }
    }
    return ["", ""];
  }

  // --- DOM helpers ----------------------------------------------------------------------------

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (name) {
      if (name === "text") node.textContent = attrs.text;
      else node.setAttribute(name, attrs[name]);
    });
    (children || []).forEach(function (child) {
      if (child) node.appendChild(child);
    });
    return node;
  }

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

  // --- the page -------------------------------------------------------------------------------

  function mount(root) {
    if (root.getAttribute("data-state") === "ready") return;
    var index = window.CourseReviewIndex;
    var content = window.CourseReviewContent;
    var state = store.load();
    var filter = { lesson: null, kind: null };
    var current = null; // {item, data, stored, revealed, chosen, preselect, view}

    root.textContent = "";

    // Filters and counts.
    var lessonSelect = el("select", { id: uid("lesson") }, [
      el("option", { value: "", text: "All lessons" }),
    ]);
    index.lessons.forEach(function (lesson, i) {
      lessonSelect.appendChild(el("option", { value: String(i), text: lesson.title }));
    });
    var kindSelect = el("select", { id: uid("kind") }, [
      el("option", { value: "", text: "Flashcards and quiz questions" }),
      el("option", { value: "flashcard", text: "Flashcards only" }),
      el("option", { value: "quiz", text: "Quiz questions only" }),
    ]);
    var counts = el("p", { class: "course-review-counts" });
    var toolbar = el("div", { class: "course-review-toolbar" }, [
      el("label", { for: lessonSelect.id, text: "Lesson" }),
      lessonSelect,
      el("label", { for: kindSelect.id, text: "Kind" }),
      kindSelect,
    ]);

    var stage = el("div", { class: "course-review-stage" });
    var status = el("p", { class: "course-review-status course-visually-hidden", role: "status" });

    // Progress and settings.
    var perDay = el("input", {
      id: uid("per-day"),
      type: "number",
      min: "0",
      max: "9999",
      step: "1",
      inputmode: "numeric",
    });
    var exportButton = el("button", { type: "button", class: "md-button", text: "Export progress" });
    var importButton = el("button", { type: "button", class: "md-button", text: "Import progress…" });
    var importInput = el("input", {
      type: "file",
      accept: "application/json,.json",
      class: "course-review-file",
      hidden: "",
    });
    var resetButton = el("button", { type: "button", class: "md-button", text: "Reset progress" });
    var message = el("p", { class: "course-review-message", role: "alert" });
    var settings = el("details", { class: "course-review-settings" }, [
      el("summary", { text: "Progress and settings" }),
      el("p", {}, [el("label", { for: perDay.id, text: "New items per day " }), perDay]),
      el("p", { class: "course-review-actions" }, [exportButton, importButton, importInput, resetButton]),
    ]);

    root.append(toolbar, counts, stage, status, message, settings);

    function announce(text) {
      status.textContent = text;
    }

    function persist() {
      if (!store.save(state)) {
        message.textContent = "This browser does not let the page save progress; it lasts until you leave.";
      }
      store.updateBadge();
    }

    function lessonTitle(item) {
      return index.lessons[item.lesson].title;
    }

    // Show the first item of the queue (or the end of today's reviews).
    function render(focus) {
      var now = Date.now();
      var q = store.queue(index, state, now, filter);
      counts.textContent = q.due + " due · " + q.fresh + " new";
      stage.textContent = "";
      current = null;
      var item = q.items.find(function (candidate) {
        return content[candidate.guid];
      });
      if (!item) {
        var done = el("div", { class: "course-review-done", tabindex: "-1" }, [
          el("p", { class: "course-review-done-title", text: "Nothing is due now." }),
        ]);
        if (q.next !== null) {
          var wait = formatInterval(q.next - now);
          done.appendChild(el("p", { text: "The next item is due " + wait[1] + "." }));
          scheduleRefresh(q.next - now);
        }
        stage.appendChild(done);
        if (focus) done.focus();
        return;
      }
      current = {
        item: item,
        data: content[item.guid],
        stored: state.cards[item.guid],
        revealed: false,
        chosen: null,
        preselect: null,
      };
      stage.appendChild(cardView(current));
      if (focus) current.view.front.focus();
    }

    var refreshTimer = null;
    function scheduleRefresh(ms) {
      clearTimeout(refreshTimer);
      if (ms <= 60 * MINUTE) {
        refreshTimer = setTimeout(function () {
          if (root.isConnected && !current) render(false);
        }, ms + 500);
      }
    }

    function cardView(cur) {
      var data = cur.data;
      var titleId = uid("front");
      // Interface text is English and runs left to right, also on an Urdu item: keys 1-4 then
      // read in the order of the buttons.
      var meta = el("p", {
        class: "course-review-meta",
        lang: "en",
        dir: "ltr",
        text: lessonTitle(cur.item) + " · " + KINDS[cur.item.kind] + (cur.stored ? "" : " · new"),
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
      card.append(meta, front);
      var view = { card: card, front: front, options: [] };
      if (data.options) {
        var list = el("ol", { class: "course-review-options" });
        data.options.forEach(function (option, i) {
          var button = el("button", {
            type: "button",
            class: "course-review-option",
            "aria-keyshortcuts": String(i + 1),
          }, [
            el("kbd", { "aria-hidden": "true", text: String(i + 1) }),
            piece("span", "course-review-option-text", option),
          ]);
          button.addEventListener("click", function () {
            choose(i);
          });
          view.options.push(button);
          list.appendChild(el("li", {}, [button]));
        });
        card.appendChild(list);
      }
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
      show.addEventListener("click", reveal);
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
      view.show = show;
      view.back = back;
      view.grades = grades;
      cur.view = view;
      return card;
    }

    function reveal() {
      var cur = current;
      if (!cur || cur.revealed) return;
      cur.revealed = true;
      var view = cur.view;
      view.show.hidden = true;
      view.back.hidden = false;
      if (cur.data.options) markOptions(cur);
      var now = Date.now();
      var times = intervals(cur.stored, now);
      var chosenGrade = cur.preselect || GOOD;
      var focusButton = null;
      GRADES.forEach(function (grade) {
        var interval = formatInterval(times[grade.rating]);
        var button = el(
          "button",
          {
            type: "button",
            class: "course-review-grade course-review-grade-" + grade.name.toLowerCase(),
            "data-rating": String(grade.rating),
            "aria-keyshortcuts": String(grade.rating),
            "aria-pressed": String(grade.rating === chosenGrade),
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
          applyGrade(grade.rating);
        });
        if (grade.rating === chosenGrade) focusButton = button;
        view.grades.appendChild(button);
      });
      view.grades.hidden = false;
      focusButton.focus();
      announce(
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

    function choose(i) {
      var cur = current;
      if (!cur || cur.revealed || !cur.data.options || i >= cur.data.options.length) return;
      cur.chosen = i;
      cur.preselect = i === cur.data.answer ? GOOD : AGAIN;
      reveal();
    }

    function applyGrade(rating) {
      var cur = current;
      if (!cur || !cur.revealed) return;
      var now = Date.now();
      var stored = review(cur.stored, rating, now);
      state.cards[cur.item.guid] = stored;
      persist();
      var next = formatInterval(Date.parse(stored.due) - now);
      render(true);
      announce(GRADES[rating - 1].name + ": due again " + next[1] + ".");
    }

    function onKey(event) {
      if (!root.isConnected) {
        document.removeEventListener("keydown", onKey);
        return;
      }
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || !current) return;
      var target = event.target;
      var FIELDS = "input, select, textarea, [contenteditable], .md-search, .md-header";
      if (target.closest && target.closest(FIELDS)) return;
      var onControl = target.closest && target.closest("button, a, summary");
      if (event.key === " " || event.key === "Enter") {
        if (onControl) return; // the focused control does its own job
        event.preventDefault();
        if (!current.revealed) reveal();
        else applyGrade(current.preselect || GOOD);
        return;
      }
      var digit = /^[1-9]$/.test(event.key) ? Number(event.key) : 0;
      if (!digit) return;
      if (!current.revealed && current.data.options) {
        event.preventDefault();
        choose(digit - 1);
      } else if (current.revealed && digit <= 4) {
        event.preventDefault();
        applyGrade(digit);
      }
    }
    document.addEventListener("keydown", onKey);

    lessonSelect.addEventListener("change", function () {
      filter.lesson = lessonSelect.value === "" ? null : Number(lessonSelect.value);
      render(false);
    });
    kindSelect.addEventListener("change", function () {
      filter.kind = kindSelect.value || null;
      render(false);
    });

    perDay.value = String(state.settings.newPerDay);
    perDay.addEventListener("change", function () {
      var value = Number(perDay.value);
      if (perDay.value === "" || !(value >= 0) || Math.floor(value) !== value) {
        message.textContent = "New items per day must be a whole number, 0 or more.";
        perDay.value = String(state.settings.newPerDay);
        return;
      }
      message.textContent = "";
      state.settings.newPerDay = value;
      persist();
      render(false);
    });

    exportButton.addEventListener("click", function () {
      var now = Date.now();
      var blob = new Blob([store.serialize(state, now)], { type: "application/json" });
      var link = el("a", {
        href: URL.createObjectURL(blob),
        download: "course-review-" + store.dayKey(now) + ".json",
      });
      document.body.appendChild(link);
      link.click();
      link.remove();
      setTimeout(function () {
        URL.revokeObjectURL(link.href);
      }, 1000);
      announce("Progress exported.");
    });

    importButton.addEventListener("click", function () {
      importInput.click();
    });
    importInput.addEventListener("change", function () {
      var file = importInput.files && importInput.files[0];
      if (!file) return;
      var reader = new FileReader();
      reader.onload = function () {
        importInput.value = "";
        var imported;
        try {
          imported = store.parse(String(reader.result));
        } catch (error) {
          message.textContent =
            "Could not import " + file.name + ": " + error.message + ". Your progress was not changed.";
          return;
        }
        state = imported;
        perDay.value = String(state.settings.newPerDay);
        persist();
        var known = index.items.filter(function (row) {
          return state.cards[row[0]];
        }).length;
        var unknown = Object.keys(state.cards).length - known;
        message.textContent = "";
        render(false);
        announce(
          "Imported progress for " + known + " items" +
            (unknown ? "; " + unknown + " not in this version of the course are kept aside." : ".")
        );
      };
      reader.onerror = function () {
        message.textContent = "Could not read " + file.name + ". Your progress was not changed.";
      };
      reader.readAsText(file);
    });

    resetButton.addEventListener("click", function () {
      var question = "Forget all review progress kept in this browser? Export it first to keep a copy.";
      if (!window.confirm(question)) return;
      state = { settings: state.settings, cards: {} };
      persist();
      message.textContent = "";
      render(false);
      announce("Progress reset.");
    });

    root.setAttribute("data-state", "ready");
    render(false);
  }

  window.CourseReviewPage = {
    mount: mount,
    review: review,
    intervals: intervals,
    formatInterval: formatInterval,
  };
})();
