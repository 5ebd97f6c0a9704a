/*
 * Review progress, the due queue and the header's due count: loaded on every page.
 *
 * Progress is one JSON object in localStorage, keyed by the Anki notes' GUIDs (the list comes
 * from assets/review/index.js, generated from the deck's own item list). Each entry is the FSRS
 * card ts-fsrs returned at the last review plus a log of [time, grade] or [time, grade, answer
 * ms] entries. The queue is worked
 * out here and not stored: due items first (earliest first), then new items in course order, as
 * many as the daily limit still allows. An item is "new today" when its first review falls in
 * today; a day starts at 4 a.m. local time, as in Anki. Entries whose GUID the course no longer
 * has are kept (the item may come back) but never counted or shown.
 *
 * Nothing a learner did is lost: reading drops only the entries that are damaged, and the damaged
 * text is kept in a short ring of backups before anything is stored over it, as is the progress
 * an import, a reset or a restore replaces; a later backup never overwrites an earlier one
 * (only the oldest of the ring goes, and a text already kept is not kept twice). Every save
 * re-reads the store and changes only the items it is about, so two tabs can grade at once; an
 * import is checked in full and stored as a whole or not at all.
 *
 * The review page itself (assets/review/page.js), its stylesheet and its heavier scripts (ts-fsrs,
 * the items' HTML) load only where the page's container is, once the page has been painted, and
 * the Anki export's (sql.js, the deck) only when it is asked for, in order, by <script> tags
 * (need()): that works from file:// too, where fetch() of local files is refused. Until the queue
 * mounts, its container keeps the room of the queue (course.css), so nothing below it moves. It
 * starts through startup.js, on load and after each instant navigation; the badge is redrawn each
 * time, the page mounted once.
 */
(function () {
  "use strict";

  var STORAGE_KEY = "course-review:v1";
  var BACKUP_KEY = STORAGE_KEY + ":backup"; // the ring: a JSON list of {saved, why, text}, oldest first
  var BACKUP_RING = 5;
  var FORMAT = "contributing-to-open-source-ml/review-progress";
  var VERSION = 1;
  var DEFAULT_NEW_PER_DAY = 20;
  var MAX_NEW_PER_DAY = 9999; // the settings' input allows no more; a larger one is a hostile file's
  var DAY_START_HOURS = 4;
  var HOUR = 3600 * 1000;
  var CLOCK_SKEW = 5 * 60 * 1000;
  // tools/anki/progress.py's bounds (a test compares), so that a file this page takes and exports
  // is one that ``python3 -m tools progress`` takes too: no count or interval of a real card
  // comes near LARGEST_NUMBER, no date near the year LATEST_YEAR.
  var LARGEST_NUMBER = 1e9;
  var LATEST_YEAR = 9000;
  var LATEST_MS = Date.UTC(LATEST_YEAR, 0, 1);

  // --- state ----------------------------------------------------------------------------------

  // A map of cards by GUID, with ``from``'s own entries: it has no prototype, so that a GUID
  // such as "__proto__" or "constructor" (a file may hold any key) is one more item and never
  // names, or replaces, something every object inherits.
  function cardMap(from) {
    var cards = Object.create(null);
    Object.keys(from || {}).forEach(function (guid) {
      cards[guid] = from[guid];
    });
    return cards;
  }

  function emptyState() {
    return { settings: { newPerDay: DEFAULT_NEW_PER_DAY }, cards: cardMap() };
  }

  // A moment as this page writes one (toISOString: "2026-12-01T09:00:00.000Z"), after 1970
  // began and before LATEST_YEAR, as progress.py's _ms reads it. Date.parse alone takes far
  // more ("1", "+275760-09-13T00:00:00.000Z", a 31st of February), which the Python tools refuse.
  function isDate(value) {
    if (typeof value !== "string") return false;
    var ms = Date.parse(value);
    return ms > 0 && ms < LATEST_MS && new Date(ms).toISOString() === value;
  }

  function isCount(value) {
    return typeof value === "number" && value >= 0 && value <= LARGEST_NUMBER;
  }

  var CARD_NUMBERS = [
    "stability",
    "difficulty",
    "elapsed_days",
    "scheduled_days",
    "learning_steps",
    "reps",
    "lapses",
  ];

  // Why a stored card is unusable, or "" when it is fine. With ``now`` (an import), reviews
  // dated after it are refused too (beyond CLOCK_SKEW: a file exported on a device whose clock
  // runs a little ahead is still fine): ts-fsrs cannot schedule them. The browser's own store keeps
  // such entries, since a clock that was set wrong must not cost a learner their reviews; the
  // page contains the scheduler's error on that one item.
  function cardProblem(card, now) {
    if (!card || typeof card !== "object" || Array.isArray(card)) return "is not an object";
    if (!isDate(card.due)) return "has no valid due date";
    if (card.last_review != null && !isDate(card.last_review)) return "has an invalid last_review";
    for (var i = 0; i < CARD_NUMBERS.length; i += 1) {
      if (!isCount(card[CARD_NUMBERS[i]])) return "has an invalid " + CARD_NUMBERS[i];
    }
    if (!(card.stability > 0)) return "has a stability of 0 (it must be above 0)";
    if (Math.floor(card.learning_steps) !== card.learning_steps) {
      return "has a learning_steps of " + card.learning_steps + " (it must be a whole number)";
    }
    if (!(card.difficulty >= 1 && card.difficulty <= 10)) {
      return "has a difficulty of " + card.difficulty + " (it must be from 1 to 10)";
    }
    if ([0, 1, 2, 3].indexOf(card.state) < 0) return "has an invalid state";
    if (!Array.isArray(card.log)) return "has no review log";
    for (var j = 0; j < card.log.length; j += 1) {
      var entry = card.log[j];
      var timed = entry && (entry.length === 2 || (entry.length === 3 && isCount(entry[2])));
      if (!Array.isArray(entry) || !timed || !isDate(entry[0]) || [1, 2, 3, 4].indexOf(entry[1]) < 0) {
        return "has an invalid review log entry";
      }
    }
    if (now != null) {
      var times = card.log.map(function (logged) {
        return logged[0];
      });
      if (card.last_review != null) times.push(card.last_review);
      for (var k = 0; k < times.length; k += 1) {
        if (Date.parse(times[k]) > now + CLOCK_SKEW) return "was reviewed in the future (" + times[k] + ")";
      }
    }
    return "";
  }

  function isNewPerDay(value) {
    return isCount(value) && Math.floor(value) === value && value <= MAX_NEW_PER_DAY;
  }

  // The progress document in a JSON text, checked as a whole but not card by card; throws an
  // Error whose message says, in plain words, what is wrong with it.
  function documentIn(text) {
    var data;
    try {
      data = JSON.parse(text);
    } catch (error) {
      throw new Error("it is not a JSON file (" + error.message + ")");
    }
    if (!data || typeof data !== "object" || data.format !== FORMAT) {
      throw new Error("it is not review progress exported from this course");
    }
    if (data.version !== VERSION) {
      throw new Error("it has format version " + data.version + "; this page reads version " + VERSION);
    }
    if (!data.cards || typeof data.cards !== "object" || Array.isArray(data.cards)) {
      throw new Error("it has no cards");
    }
    return data;
  }

  // Progress from an exported file, at ``now`` (ms): every part is checked, and the first
  // problem throws, so that an import is taken as a whole or not at all.
  function parse(text, now) {
    var data = documentIn(text);
    var perDay = (data.settings || {}).newPerDay;
    if (!isNewPerDay(perDay)) {
      throw new Error("its daily limit of new items is not a whole number from 0 to " + MAX_NEW_PER_DAY);
    }
    var guids = Object.keys(data.cards);
    for (var i = 0; i < guids.length; i += 1) {
      var problem = cardProblem(data.cards[guids[i]], now);
      if (problem) throw new Error("the item " + JSON.stringify(guids[i]) + " " + problem);
    }
    return { settings: { newPerDay: perDay }, cards: cardMap(data.cards) };
  }

  function serialize(state, now) {
    return JSON.stringify(
      {
        format: FORMAT,
        version: VERSION,
        saved: new Date(now).toISOString(),
        settings: state.settings,
        cards: state.cards,
      },
      null,
      1
    );
  }

  // --- storage: read what is there, never lose it ---------------------------------------------

  // What the browser holds now: {state, raw, blocked, unreadable, dropped}. A damaged entry is
  // left out on its own (``dropped`` lists its GUID) and the rest is kept; a text that is not
  // progress at all (``unreadable`` says why) reads as none. Either way ``raw`` is the stored
  // text, which write() keeps as the backup before it stores anything over it.
  function read() {
    var reading = { state: emptyState(), raw: null, blocked: false, unreadable: "", dropped: [] };
    try {
      reading.raw = window.localStorage.getItem(STORAGE_KEY);
    } catch (error) {
      reading.blocked = true; // storage switched off for this site
      return reading;
    }
    if (reading.raw === null) return reading;
    var data;
    try {
      data = documentIn(reading.raw);
    } catch (error) {
      reading.unreadable = error.message;
      return reading;
    }
    var perDay = (data.settings || {}).newPerDay;
    if (isNewPerDay(perDay)) reading.state.settings.newPerDay = perDay;
    else reading.dropped.push("the daily limit of new items");
    Object.keys(data.cards).forEach(function (guid) {
      if (cardProblem(data.cards[guid])) reading.dropped.push(guid);
      else reading.state.cards[guid] = data.cards[guid];
    });
    return reading;
  }

  function damaged(reading) {
    return Boolean(reading.unreadable || reading.dropped.length);
  }

  function isQuotaError(error) {
    return Boolean(error) && (error.name === "QuotaExceededError" || error.code === 22);
  }

  // The backups kept, oldest first: [{saved, why, text}]. ``why`` is "damaged" (a text the page
  // could not read whole), "import", "reset" or "restore" (the progress that action replaced).
  // A text stored under BACKUP_KEY by an older version of this page is its one backup.
  function backups() {
    var text;
    try {
      text = window.localStorage.getItem(BACKUP_KEY);
    } catch (error) {
      return [];
    }
    if (text === null) return [];
    try {
      var ring = JSON.parse(text);
      if (Array.isArray(ring) && ring.every(function (b) {
        return b && typeof b.text === "string";
      })) return ring;
    } catch (error) {
      // an older page's single backup: the damaged text itself
    }
    return [{ saved: null, why: "damaged", text: text }];
  }

  // Adds ``text`` to the ring as the newest backup (unless the ring already holds it). Where the
  // storage is too full for the whole ring, the oldest backups go first; if even the newest alone
  // does not fit, this throws and the caller stores nothing.
  function keepBackup(storage, why, text) {
    var ring = backups();
    if (ring.some(function (b) {
      return b.text === text;
    })) return;
    ring.push({ saved: new Date().toISOString(), why: why, text: text });
    ring = ring.slice(-BACKUP_RING);
    for (;;) {
      try {
        storage.setItem(BACKUP_KEY, JSON.stringify(ring));
        return;
      } catch (error) {
        if (!isQuotaError(error) || ring.length === 1) throw error;
        ring.shift();
      }
    }
  }

  // Stores ``state`` over what ``reading`` found: {ok, reason}, with reason "quota" (storage
  // full) or "blocked" (refused). A damaged text, or any progress that ``why`` (an import, a
  // reset, a restore) replaces, is kept in the ring first; if that cannot be done, nothing is
  // stored. Each setItem stores all of its value or none of it.
  function write(reading, state, why) {
    try {
      var storage = window.localStorage;
      if (damaged(reading)) keepBackup(storage, "damaged", reading.raw);
      else if (why && reading.raw !== null && Object.keys(reading.state.cards).length) {
        keepBackup(storage, why, reading.raw);
      }
      storage.setItem(STORAGE_KEY, serialize(state, Date.now()));
      return { ok: true, reason: "" };
    } catch (error) {
      return { ok: false, reason: isQuotaError(error) ? "quota" : "blocked" };
    }
  }

  // The stored progress (the due count and the queue read it); damage reads as described above.
  function load() {
    return read().state;
  }

  // Applies ``changes`` (functions that edit a state in place, in order) to the progress as it
  // is stored now, and stores the result: {ok, reason, state}. Re-reading first means a save
  // never writes back what this tab read earlier, so another tab's reviews of other items stay,
  // and a change made to one item sees that item's latest stored review. A change that throws
  // stops the update before anything is stored. Where storage is refused, state is null.
  function update(changes) {
    var reading = read();
    if (reading.blocked) return { ok: false, reason: "blocked", state: null };
    changes.forEach(function (change) {
      change(reading.state);
    });
    var result = write(reading, reading.state);
    result.state = reading.state;
    return result;
  }

  // Stores ``state`` in place of all stored progress, for ``why`` ("import", "reset"): {ok,
  // reason}. What was stored is kept in the ring first.
  function replace(state, why) {
    var reading = read();
    if (reading.blocked) return { ok: false, reason: "blocked" };
    return write(reading, state, why);
  }

  // Puts the backup ``text`` back as the stored progress, keeping what it replaces in the ring:
  // {ok, reason, reading} (``reading`` is the restored progress as read(), damage and all).
  function restore(text) {
    var current = read();
    if (current.blocked) return { ok: false, reason: "blocked", reading: current };
    try {
      var storage = window.localStorage;
      if (current.raw !== null && current.raw !== text) keepBackup(storage, "restore", current.raw);
      storage.setItem(STORAGE_KEY, text);
    } catch (error) {
      return { ok: false, reason: isQuotaError(error) ? "quota" : "blocked", reading: current };
    }
    return { ok: true, reason: "", reading: read() };
  }

  // --- the queue ------------------------------------------------------------------------------

  // The review day a moment falls in, as "YYYY-MM-DD" (local time, starting at 4 a.m.).
  function dayKey(ms) {
    var d = new Date(ms - DAY_START_HOURS * HOUR);
    var pad = function (n) {
      return (n < 10 ? "0" : "") + n;
    };
    return d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate());
  }

  // Items of the generated index as objects, in course order (cached per index object).
  var itemsCache = { index: null, items: [] };
  function items(index) {
    if (!index) return [];
    if (itemsCache.index !== index) {
      itemsCache = {
        index: index,
        items: index.items.map(function (row, order) {
          return { guid: row[0], lesson: row[1], kind: row[2], order: order };
        }),
      };
    }
    return itemsCache.items;
  }

  function newToday(all, state, today) {
    var count = 0;
    for (var i = 0; i < all.length; i += 1) {
      var card = state.cards[all[i].guid];
      if (card && card.log.length && dayKey(Date.parse(card.log[0][0])) === today) count += 1;
    }
    return count;
  }

  // What to review now: {items, due, fresh, next}. ``filter`` ({lesson, kind}, either null)
  // narrows the items shown; the daily limit of new items counts every lesson.
  function queue(index, state, now, filter) {
    var all = items(index);
    var lesson = filter && filter.lesson != null ? filter.lesson : null;
    var kind = filter && filter.kind ? filter.kind : null;
    var left = Math.max(0, state.settings.newPerDay - newToday(all, state, dayKey(now)));
    var due = [];
    var fresh = [];
    var next = null;
    for (var i = 0; i < all.length; i += 1) {
      var item = all[i];
      if ((lesson !== null && item.lesson !== lesson) || (kind && item.kind !== kind)) continue;
      var card = state.cards[item.guid];
      if (!card) {
        if (fresh.length < left) fresh.push(item);
        continue;
      }
      var at = Date.parse(card.due);
      if (at <= now) due.push({ item: item, at: at });
      else if (next === null || at < next) next = at;
    }
    due.sort(function (a, b) {
      return a.at - b.at || a.item.order - b.item.order;
    });
    var dueItems = due.map(function (entry) {
      return entry.item;
    });
    return { items: dueItems.concat(fresh), due: dueItems.length, fresh: fresh.length, next: next };
  }

  // --- the header's count ---------------------------------------------------------------------

  var SVG_NS = "http://www.w3.org/2000/svg";
  // Two stacked cards, drawn as strokes: the front card and the edge of the one behind it.
  var CARDS_ICON = [
    "M5 8h9a2 2 0 0 1 2 2v9a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2v-9a2 2 0 0 1 2-2z",
    "M8 4h9a3 3 0 0 1 3 3v9",
  ];

  function reviewUrl(index) {
    var scope = window.__md_scope instanceof URL ? window.__md_scope : new URL(".", location.href);
    return new URL(index.page, scope).href;
  }

  function updateBadge() {
    var index = window.CourseReviewIndex;
    var header = document.querySelector(".md-header__inner");
    if (!index || !header) return;
    var badge = header.querySelector(".course-review-badge");
    if (!badge) {
      badge = document.createElement("a");
      badge.className = "course-review-badge";
      var svg = document.createElementNS(SVG_NS, "svg");
      svg.setAttribute("viewBox", "0 0 24 24");
      svg.setAttribute("aria-hidden", "true");
      svg.setAttribute("focusable", "false");
      CARDS_ICON.forEach(function (d) {
        var path = document.createElementNS(SVG_NS, "path");
        path.setAttribute("d", d);
        svg.appendChild(path);
      });
      var label = document.createElement("span");
      label.className = "course-review-badge-label";
      label.textContent = "Review";
      var count = document.createElement("span");
      count.className = "course-review-badge-count";
      badge.append(svg, label, count);
      // Right after the title, which gives up the room: the header's buttons after it (palette,
      // search, source) stay where the first paint put them.
      var before = header.querySelector(".md-header__option, label[for='__search'], .md-header__source");
      header.insertBefore(badge, before);
    }
    var href = reviewUrl(index);
    badge.href = href;
    if (href.split("#")[0] === location.href.split("#")[0]) badge.setAttribute("aria-current", "page");
    else badge.removeAttribute("aria-current");
    // What waits, counted as the Review page counts it (unfiltered): due items and today's new
    // ones, each named, so "0" never stands for 20 items no one has seen yet.
    var q = queue(index, load(), Date.now(), null);
    badge.querySelector(".course-review-badge-count").textContent = waitingText(q);
    badge.setAttribute("data-due", String(q.due));
    badge.setAttribute("data-new", String(q.fresh));
    badge.setAttribute("aria-label", "Review, " + q.due + " due, " + q.fresh + " new");
    badge.title = "Waiting for review: " + q.due + " due, " + q.fresh + " new today";
  }

  // A queue's counts in words: the Review page's line and the header's badge.
  function waitingText(q) {
    return q.due + " due · " + q.fresh + " new";
  }

  // --- scripts loaded on demand: in order, by <script> tags (they work from file:// too) ------

  // This file's folder (assets/review/): the scripts below are named from it, so a page at any
  // depth finds them.
  var HERE = document.currentScript ? document.currentScript.src : location.href;
  var SCRIPTS = {
    FSRS: "../vendor/ts-fsrs/index.umd.js",
    CourseSchedule: "schedule.js",
    CourseReviewContent: "content.js",
    CourseReviewTransfer: "transfer.js",
    CourseReviewPage: "page.js",
    initSqlJs: "../vendor/sql.js/sql-wasm-inline.js",
    CourseReviewAnki: "anki.js",
    CourseAnkiExport: "export.js",
  };

  function loadScript(src) {
    return new Promise(function (resolve, reject) {
      var script = document.createElement("script");
      script.src = src;
      script.async = false;
      script.onload = resolve;
      script.onerror = function () {
        reject(new Error("could not load " + src));
      };
      document.body.appendChild(script);
    });
  }

  // Loads the scripts that define ``globals`` (names in SCRIPTS), each once. All are asked for
  // at once, so they download side by side rather than one after the other; a script added with
  // async = false runs in the order it was added, so each still runs after those it needs.
  var loading = {};
  function need(globals) {
    return Promise.all(
      globals.map(function (name) {
        if (window[name]) return null;
        if (!loading[name]) loading[name] = loadScript(new URL(SCRIPTS[name], HERE).href);
        return loading[name];
      })
    );
  }

  // The stylesheet at ``href``, added to the page's head once: resolves when it applies. Added by
  // a script, it never holds up the page's paint; instant navigation drops it with the page.
  function needStyle(href) {
    var link = Array.prototype.find.call(document.head.querySelectorAll('link[rel="stylesheet"]'), function (candidate) {
      return candidate.href === href;
    });
    if (link && link.sheet) return Promise.resolve();
    if (!link) {
      link = document.createElement("link");
      link.rel = "stylesheet";
      link.href = href;
      document.head.appendChild(link);
    }
    return new Promise(function (resolve, reject) {
      link.addEventListener("load", resolve);
      link.addEventListener("error", function () {
        reject(new Error("could not load " + href));
      });
    });
  }

  // --- the review page: once painted, load its files, then mount it ----------------------------

  function mountReviewPage() {
    var root = document.getElementById("course-review");
    if (!root || !window.CourseStartup.firstTime(root)) return;
    root.setAttribute("data-state", "loading");
    window.CourseStartup
      .afterPaint()
      .then(function () {
        var scripts = ["FSRS", "CourseSchedule", "CourseReviewContent", "CourseReviewTransfer", "CourseReviewPage"];
        return Promise.all([needStyle(new URL("review.css", HERE).href), need(scripts)]);
      })
      .then(function () {
        window.CourseReviewPage.mount(root);
      })
      .catch(function (error) {
        root.setAttribute("data-state", "failed");
        var message = document.createElement("p");
        message.setAttribute("role", "alert");
        message.textContent = "The review page could not start: " + error.message + ".";
        root.appendChild(message);
      });
  }

  window.CourseReview = {
    FORMAT: FORMAT,
    STORAGE_KEY: STORAGE_KEY,
    BACKUP_KEY: BACKUP_KEY,
    DEFAULT_NEW_PER_DAY: DEFAULT_NEW_PER_DAY,
    MAX_NEW_PER_DAY: MAX_NEW_PER_DAY,
    isNewPerDay: isNewPerDay,
    cardMap: cardMap,
    parse: parse,
    serialize: serialize,
    read: read,
    load: load,
    update: update,
    replace: replace,
    backups: backups,
    restore: restore,
    dayKey: dayKey,
    queue: queue,
    updateBadge: updateBadge,
    waitingText: waitingText,
    need: need,
  };

  // The badge's count reads and checks the whole stored progress: it waits until the page has
  // been painted (the badge takes room from the title only, so nothing it passes moves).
  function init() {
    window.CourseStartup.afterPaint().then(updateBadge);
    mountReviewPage();
  }

  window.CourseStartup.onEachPage(init);
  // Another tab reviewed or imported: its count is this tab's count too.
  window.addEventListener("storage", function (event) {
    if (event.key === STORAGE_KEY || event.key === null) updateBadge();
  });
})();
