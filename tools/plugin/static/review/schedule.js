/*
 * Scheduling, shared by the Review page (page.js) and the grading in lessons (inline.js): one
 * item's next FSRS card after a grade, the interval each grade would give, and Anki's short
 * form of an interval.
 *
 * It needs the vendored ts-fsrs (window.FSRS), which store.js loads before it, only where an
 * item is graded. Scheduling is ts-fsrs with its defaults (FSRS-6 weights, 90% retention,
 * learning steps 1m and 10m, no fuzz), so a test can compare the intervals with another FSRS
 * implementation. A stored card has store.js's shape: ts-fsrs's card as JSON plus its log.
 */
(function () {
  "use strict";

  var GRADES = [
    { rating: 1, name: "Again" },
    { rating: 2, name: "Hard" },
    { rating: 3, name: "Good" },
    { rating: 4, name: "Easy" },
  ];
  var MINUTE = 60 * 1000;
  var DAY = 24 * 60 * MINUTE;

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

  // The stored card after grading ``stored`` (undefined: a new item) with ``rating`` at ``now``;
  // ``took`` (ms), where known, is how long the answer took, kept in the log for Anki's revlog.
  function review(stored, rating, now, took) {
    var result = fsrs().next(toFsrsCard(stored, now), new Date(now), rating);
    var entry = [new Date(now).toISOString(), rating];
    if (took != null) entry.push(took);
    var log = (stored ? stored.log : []).concat([entry]);
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

  window.CourseSchedule = {
    GRADES: GRADES,
    AGAIN: 1,
    GOOD: 3,
    review: review,
    intervals: intervals,
    formatInterval: formatInterval,
  };
})();
