/*
 * The review page's progress files: export, import (asked first, merged item by item) and the
 * backups that undo an import, a reset or a restore in one click; and the button that makes an
 * Anki package (export.js, loaded then).
 *
 * Loaded by store.js with page.js, which calls these with its state object ``app`` and ``page``,
 * its functions {notify, complain, render}. An import never loses an item: an item of the file
 * that is not here is added, one whose last review is newer in the file is updated, every other
 * item is kept as it is here. When this browser already holds progress the page says what will
 * change and asks; what was stored goes into store.js's ring of backups, and "Restore" puts the
 * newest one back (keeping what it replaces, so a restore is undone the same way).
 */
(function () {
  "use strict";

  var store = window.CourseReview;
  var el = window.CourseStartup.el;
  var MAX_IMPORT_BYTES = 8 * 1024 * 1024; // tools/anki/progress.py's limit: far above a course's reviews
  var WHY = { damaged: "damaged progress found in storage", import: "before an import", reset: "before a reset", restore: "before a restore" };

  function download(blob, name) {
    var link = el("a", { href: URL.createObjectURL(blob), download: name });
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(function () {
      URL.revokeObjectURL(link.href);
    }, 1000);
  }

  function exportProgress(app, page) {
    var now = Date.now();
    download(new Blob([store.serialize(app.state, now)], { type: "application/json" }), "course-review-" + store.dayKey(now) + ".json");
    page.notify(app, "Progress exported.");
  }

  // The progress as an Anki package with its schedule (export.js, with sql.js and the deck,
  // loaded now and not before). The time it took is kept on the button for tests.
  function exportForAnki(app, page, button) {
    var started = performance.now();
    var now = Date.now();
    button.disabled = true;
    page.notify(app, "Preparing the Anki package…");
    store
      .need(["initSqlJs", "CourseReviewAnki", "CourseAnkiExport"])
      .then(function () {
        return window.CourseAnkiExport.toApkg(app.state.cards, now);
      })
      .then(function (made) {
        download(made.blob, "course-review-" + store.dayKey(now) + ".apkg");
        button.setAttribute("data-ms", String(Math.round(performance.now() - started)));
        page.notify(
          app,
          "Exported " + made.scheduled + " reviewed items with their schedule. In Anki, use File › Import and " +
            "tick “Import any learning progress”. This brings your schedule only into an Anki that does not have " +
            "the course's deck yet: Anki leaves the cards it already has as they are. If yours has it, use " +
            "Export progress, close Anki, and run python3 -m tools progress into-anki FILE.json " +
            "COLLECTION in a copy of the course's repository. Then turn on FSRS in Anki's deck options, so Anki " +
            "goes on from the memory state each card carries."
        );
      })
      .catch(function (error) {
        page.complain(app, "Could not make the Anki package: " + error.message + ". Your progress was not changed.");
      })
      .then(function () {
        button.disabled = false;
      });
  }

  // Throws, naming the item, if the scheduler fails on any imported item: an import that could
  // not be reviewed is refused as a whole, like one that does not parse.
  function checkSchedules(state, now) {
    Object.keys(state.cards).forEach(function (guid) {
      try {
        window.CourseSchedule.intervals(state.cards[guid], now);
      } catch (error) {
        throw new Error("the item " + JSON.stringify(guid) + " cannot be scheduled (" + error.message + ")");
      }
    });
  }

  function lastReview(card) {
    var log = card.log;
    return Date.parse(log.length ? log[log.length - 1][0] : card.last_review || card.due);
  }

  // The imported state merged into ``here``: {state, added, updated, kept} (counts of items).
  function merged(here, imported) {
    var cards = store.cardMap(here.cards);
    var counts = { added: 0, updated: 0, kept: 0 };
    Object.keys(imported.cards).forEach(function (guid) {
      var theirs = imported.cards[guid];
      if (!(guid in cards)) counts.added += 1;
      else if (lastReview(theirs) > lastReview(cards[guid])) counts.updated += 1;
      else return;
      cards[guid] = theirs;
    });
    counts.kept = Object.keys(cards).length - counts.added - counts.updated;
    return { state: { settings: imported.settings, cards: cards }, counts: counts };
  }

  function plural(n, word) {
    return n + " " + word + (n === 1 ? "" : "s");
  }

  // The imported progress, checked whole; throws an Error saying what is wrong.
  function checked(app, text, name) {
    if (text.slice(0, 2) === "PK") {
      throw new Error(
        "it is an Anki package; turn it into a progress file first with python3 -m tools progress from-anki " + name
      );
    }
    var imported = store.parse(text, Date.now());
    checkSchedules(imported, Date.now());
    var guids = Object.keys(imported.cards);
    var ours = app.index.items.filter(function (row) {
      return imported.cards[row[0]];
    }).length;
    if (guids.length && !ours) {
      throw new Error("none of its " + guids.length + " items is in this course (is it another course's?)");
    }
    return imported;
  }

  function take(app, page, text, name) {
    var refuse = function (why) {
      page.complain(app, "Could not import " + name + ": " + why + ". Your progress was not changed.");
    };
    var imported;
    try {
      imported = checked(app, text, name);
    } catch (error) {
      refuse(error.message);
      return;
    }
    var here = store.read().state;
    var merge = merged(here, imported);
    var c = merge.counts;
    var change = plural(c.added, "item") + " added, " + c.updated + " updated (the file's review is newer), " + c.kept + " kept as they are here";
    if (Object.keys(here.cards).length) {
      var question = "Import " + name + " into the progress this browser holds? " + change +
        ". What is here now is kept as a backup that Restore brings back.";
      if (!window.confirm(question)) {
        page.notify(app, "Import cancelled; your progress was not changed.");
        return;
      }
    }
    var result = store.replace(merge.state, "import");
    if (!result.ok) {
      refuse(
        result.reason === "quota"
          ? "it is too big for this browser's storage for this site (" + Math.ceil(text.length / 1024) + " KB)"
          : "this browser does not let the page store progress"
      );
      return;
    }
    app.state = merge.state;
    app.pending = [];
    app.skipped = {};
    app.ui.perDay.value = String(app.state.settings.newPerDay);
    var known = app.index.items.filter(function (row) {
      return imported.cards[row[0]];
    }).length;
    var unknown = Object.keys(imported.cards).length - known;
    page.render(app, false);
    refresh(app);
    page.notify(
      app,
      "Imported progress for " + known + " items. " + change + "." +
        (unknown ? " " + unknown + " not in this version of the course are kept aside." : "")
    );
  }

  function importFile(app, page, file) {
    if (file.size > MAX_IMPORT_BYTES) {
      page.complain(
        app,
        "Could not import " + file.name + ": it is " + Math.ceil(file.size / 1024) + " KB, more than a progress " +
          "file can be (" + MAX_IMPORT_BYTES / 1024 / 1024 + " MB). Your progress was not changed."
      );
      return;
    }
    var reader = new FileReader();
    reader.onload = function () {
      take(app, page, String(reader.result), file.name);
    };
    reader.onerror = function () {
      page.complain(app, "Could not read " + file.name + ". Your progress was not changed.");
    };
    reader.readAsText(file);
  }

  // --- the backups: the newest one comes back with one click -----------------------------------

  function newest() {
    var ring = store.backups();
    return ring.length ? ring[ring.length - 1] : null;
  }

  // The Restore button's line (kept in app.ui.restore; refresh() redraws it).
  function restoreView(app, page) {
    var button = el("button", { type: "button", class: "md-button course-review-restore" });
    button.addEventListener("click", function () {
      restoreNewest(app, page);
    });
    app.ui.restore = el("p", { class: "course-review-backups" }, [button]);
    refresh(app);
    return app.ui.restore;
  }

  function refresh(app) {
    var backup = newest();
    var line = app.ui.restore;
    if (!line) return;
    line.hidden = !backup;
    if (!backup) return;
    var when = backup.saved ? new Date(backup.saved).toLocaleString() : "an earlier visit";
    line.firstChild.textContent = "Restore the progress kept " + WHY[backup.why] + " (" + when + ")";
  }

  function restoreNewest(app, page) {
    var backup = newest();
    if (!backup) return;
    var result = store.restore(backup.text);
    if (!result.ok) {
      page.complain(app, "This browser did not let the page change its stored progress; nothing was restored.");
      return;
    }
    app.state = result.reading.state;
    app.pending = [];
    app.skipped = {};
    app.ui.perDay.value = String(app.state.settings.newPerDay);
    page.render(app, false);
    refresh(app);
    var n = Object.keys(app.state.cards).length;
    page.notify(app, "Restored the progress kept " + WHY[backup.why] + ": " + plural(n, "item") + ". What it replaced is kept as a backup too.");
  }

  window.CourseReviewTransfer = {
    exportProgress: exportProgress,
    exportForAnki: exportForAnki,
    importFile: importFile,
    restoreView: restoreView,
    refresh: refresh,
  };
})();
