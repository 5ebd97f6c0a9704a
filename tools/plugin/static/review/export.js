/*
 * Progress as an Anki package with its schedule, made in the browser: the Review page's
 * "Export for Anki" button.
 *
 * Loaded with sql.js (vendored, SQLite compiled to WebAssembly) and the course deck
 * (assets/review/anki.js, generated from the built deck: its collection, media index and font
 * files) only when that button is used. The deck keeps every note's GUID, note type and deck;
 * sql.js writes each reviewed card's schedule and FSRS memory state into its row and its reviews
 * into revlog, and the package is that database in a zip with the deck's media, the Urdu font
 * included. The rules are those of tools/anki/progress.py and progress_apkg.py (read there why:
 * the columns of a card, the creation time as the first review day's start, revlog ids in one
 * pass over the sorted times); tests/test_progress_browser.py imports this package with the Anki
 * library. Anki's importer brings this schedule only into a collection without the course's
 * deck; the page says so, and names the command that writes into one that has it.
 */
(function () {
  "use strict";

  var DAY_START_HOURS = 4;
  var DAY = 24 * 3600 * 1000;
  var DESIRED_RETENTION = 0.9;
  var DECAY = 0.1542; // FSRS-6's default decay (ts-fsrs's w[20]), stored by Anki with the state
  var LEARNING_STEPS = 2; // ts-fsrs's default steps, 1m 10m (Anki's too); relearning: 10m
  var RELEARNING_STEPS = 1;

  // --- days, as Anki and the site count them (local time, from 4 a.m.) ------------------------

  function reviewDay(ms) {
    var d = new Date(ms - DAY_START_HOURS * 3600 * 1000);
    return [d.getFullYear(), d.getMonth(), d.getDate()];
  }

  function dayStart(day) {
    return new Date(day[0], day[1], day[2], DAY_START_HOURS).getTime();
  }

  function daysBetween(a, b) {
    return Math.round((Date.UTC(b[0], b[1], b[2]) - Date.UTC(a[0], a[1], a[2])) / 86400000);
  }

  // Anki's revlog type of each review: 0 learning (the first day), 1 review, 2 relearning.
  function revlogKinds(log) {
    var first = log.length ? reviewDay(Date.parse(log[0][0])) : null;
    var kinds = [];
    log.forEach(function (entry, i) {
      if (daysBetween(first, reviewDay(Date.parse(entry[0]))) === 0) kinds.push(0);
      else kinds.push(log[i - 1][1] === 1 && kinds[i - 1] !== 0 ? 2 : 1);
    });
    return kinds;
  }

  function lastReview(card) {
    return Date.parse(card.log.length ? card.log[card.log.length - 1][0] : card.last_review);
  }

  // Anki's columns for a reviewed card in a collection whose today is day ``todayNumber`` at
  // ``now`` (progress.py's anki_columns); lastIvl is for its last revlog row.
  function ankiColumns(card, todayNumber, now) {
    var dueMs = Date.parse(card.due);
    var lastMs = lastReview(card);
    var dueDay = todayNumber + daysBetween(reviewDay(now), reviewDay(dueMs));
    var state = card.state;
    var ivl = state === 2 || state === 3 ? Math.max(1, Math.ceil(card.scheduled_days)) : 0;
    var queue, due, lastIvl;
    if (state === 2) {
      queue = 2;
      due = dueDay;
      lastIvl = ivl;
    } else if (dueMs - lastMs < DAY) {
      queue = 1;
      due = Math.floor(dueMs / 1000);
      lastIvl = -Math.max(1, Math.floor((dueMs - lastMs) / 1000));
    } else {
      queue = 3;
      due = dueDay;
      lastIvl = Math.max(1, ivl);
    }
    var steps = state === 1 ? LEARNING_STEPS : RELEARNING_STEPS;
    var memory = { s: card.stability, d: card.difficulty, dr: DESIRED_RETENTION, decay: DECAY, lrt: Math.floor(lastMs / 1000) };
    return {
      type: state,
      queue: queue,
      due: due,
      ivl: ivl,
      factor: state === 2 || state === 3 ? 2500 : 0,
      reps: Math.floor(card.reps),
      lapses: Math.floor(card.lapses),
      left: state === 1 || state === 3 ? Math.max(1, steps - Math.floor(card.learning_steps)) : 0,
      data: JSON.stringify(memory),
      lastIvl: lastIvl,
    };
  }

  // [id, guid, ease, ivl, type, time] of every review: ids are unique times in ms, reviews that
  // share a millisecond taking the next free ones in one pass over the sorted times (a search for
  // a free id per review is quadratic when many share one).
  function revlogRows(cards, lastIvls) {
    var rows = [];
    Object.keys(cards).forEach(function (guid) {
      var log = cards[guid].log;
      var kinds = revlogKinds(log);
      for (var i = 0; i < log.length; i += 1) {
        var took = log[i].length > 2 ? Math.floor(log[i][2]) : 0;
        rows.push([Date.parse(log[i][0]), guid, log[i][1], i === log.length - 1 ? lastIvls[guid] : 0, kinds[i], took]);
      }
    });
    rows.sort(function (a, b) {
      return a[0] - b[0];
    });
    for (var j = 1; j < rows.length; j += 1) rows[j][0] = Math.max(rows[j][0], rows[j - 1][0] + 1);
    return rows;
  }

  // {crt, columns: {guid: row}, revlog} for the reviewed cards (progress_apkg.py's schedule_rows).
  function scheduleRows(cards, now) {
    var reviewed = {};
    var first = reviewDay(now);
    Object.keys(cards).forEach(function (guid) {
      var card = cards[guid];
      if (!card.log.length || !card.state) return;
      reviewed[guid] = card;
      var day = reviewDay(Date.parse(card.log[0][0]));
      if (daysBetween(day, first) > 0) first = day;
    });
    var todayNumber = daysBetween(first, reviewDay(now));
    var columns = {};
    var lastIvls = {};
    Object.keys(reviewed).forEach(function (guid) {
      columns[guid] = ankiColumns(reviewed[guid], todayNumber, now);
      lastIvls[guid] = columns[guid].lastIvl;
    });
    return { crt: Math.floor(dayStart(first) / 1000), columns: columns, revlog: revlogRows(reviewed, lastIvls) };
  }

  // --- the package ----------------------------------------------------------------------------

  function fromBase64(text) {
    var binary = atob(text);
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
    return bytes;
  }

  // The collection database with ``cards``' schedule: {bytes, scheduled}.
  function collection(SQL, template, cards, now) {
    var rows = scheduleRows(cards, now);
    var db = new SQL.Database(fromBase64(template.collection));
    try {
      var ids = {};
      var found = db.exec("SELECT notes.guid, cards.id FROM cards JOIN notes ON notes.id = cards.nid");
      (found.length ? found[0].values : []).forEach(function (row) {
        ids[row[0]] = row[1];
      });
      db.run("BEGIN");
      // Without schedVer 2, Anki reads the revlog as the old three-button learning scheduler's.
      var conf = JSON.parse(db.exec("SELECT conf FROM col")[0].values[0][0]);
      conf.schedVer = 2;
      db.run("UPDATE col SET crt = ?, conf = ?", [rows.crt, JSON.stringify(conf)]);
      var update = db.prepare(
        "UPDATE cards SET type = ?, queue = ?, due = ?, ivl = ?, factor = ?, reps = ?, lapses = ?, " +
          "left = ?, data = ?, mod = ?, usn = -1 WHERE id = ?"
      );
      var scheduled = 0;
      Object.keys(rows.columns).forEach(function (guid) {
        if (!(guid in ids)) return; // an item the course dropped
        var c = rows.columns[guid];
        update.run([c.type, c.queue, c.due, c.ivl, c.factor, c.reps, c.lapses, c.left, c.data, Math.floor(now / 1000), ids[guid]]);
        scheduled += 1;
      });
      update.free();
      var insert = db.prepare(
        "INSERT INTO revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type) VALUES (?, ?, -1, ?, ?, 0, 0, ?, ?)"
      );
      rows.revlog.forEach(function (r) {
        if (r[1] in ids) insert.run([r[0], ids[r[1]], r[2], r[3], r[5], r[4]]);
      });
      insert.free();
      db.run("COMMIT");
      return { bytes: db.export(), scheduled: scheduled };
    } finally {
      db.close();
    }
  }

  // --- zip (stored, no compression): the container Anki reads a package from ------------------

  var CRC_TABLE = null;
  function crc32(bytes) {
    if (!CRC_TABLE) {
      CRC_TABLE = new Uint32Array(256);
      for (var n = 0; n < 256; n += 1) {
        var c = n;
        for (var k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
        CRC_TABLE[n] = c >>> 0;
      }
    }
    var crc = 0xffffffff;
    for (var i = 0; i < bytes.length; i += 1) crc = CRC_TABLE[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
    return (crc ^ 0xffffffff) >>> 0;
  }

  function zip(entries) {
    var parts = [];
    var central = [];
    var offset = 0;
    entries.forEach(function (entry) {
      var name = new TextEncoder().encode(entry[0]);
      var data = entry[1];
      var crc = crc32(data);
      var local = new DataView(new ArrayBuffer(30));
      [[0, 0x04034b50, 4], [4, 20, 2], [14, crc, 4], [18, data.length, 4], [22, data.length, 4], [26, name.length, 2]].forEach(function (f) {
        if (f[2] === 4) local.setUint32(f[0], f[1], true);
        else local.setUint16(f[0], f[1], true);
      });
      var head = new DataView(new ArrayBuffer(46));
      [[0, 0x02014b50, 4], [4, 20, 2], [6, 20, 2], [16, crc, 4], [20, data.length, 4], [24, data.length, 4], [28, name.length, 2], [42, offset, 4]].forEach(function (f) {
        if (f[2] === 4) head.setUint32(f[0], f[1], true);
        else head.setUint16(f[0], f[1], true);
      });
      parts.push(new Uint8Array(local.buffer), name, data);
      central.push(new Uint8Array(head.buffer), name);
      offset += 30 + name.length + data.length;
    });
    var size = central.reduce(function (sum, part) {
      return sum + part.length;
    }, 0);
    var end = new DataView(new ArrayBuffer(22));
    end.setUint32(0, 0x06054b50, true);
    end.setUint16(8, entries.length, true);
    end.setUint16(10, entries.length, true);
    end.setUint32(12, size, true);
    end.setUint32(16, offset, true);
    return new Blob(parts.concat(central, [new Uint8Array(end.buffer)]), { type: "application/octet-stream" });
  }

  // The .apkg of ``cards`` (store.js's shape) at ``now``: a promise of {blob, scheduled}. The
  // deck's other entries (the media index, the font files) go in as the deck has them.
  function toApkg(cards, now) {
    return window.initSqlJs().then(function (SQL) {
      var deck = window.CourseReviewAnki;
      var made = collection(SQL, deck, cards, now);
      var entries = [["collection.anki2", made.bytes]];
      Object.keys(deck.media).forEach(function (name) {
        entries.push([name, fromBase64(deck.media[name])]);
      });
      return { blob: zip(entries), scheduled: made.scheduled };
    });
  }

  window.CourseAnkiExport = { toApkg: toApkg, scheduleRows: scheduleRows };
})();
