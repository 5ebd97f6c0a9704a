/*
 * Progress as an Anki package with its schedule, made in the browser: the Review page's
 * "Export for Anki" button.
 *
 * Loaded with sql.js (vendored, SQLite compiled to WebAssembly) and the course deck's collection
 * (assets/review/anki.js, generated from the built deck) only when that button is used. The deck
 * keeps every note's GUID, note type and deck; sql.js writes each reviewed card's schedule and
 * FSRS memory state into its row and its reviews into revlog, and the package is that database
 * in a zip with an empty media list. The rules are those of tools/anki/progress.py (read there
 * why: the creation time is the first review day's start, so Anki's importer keeps each due
 * day); tests/test_progress.py imports both results with the Anki library.
 */
(function () {
  "use strict";

  var DAY_START_HOURS = 4;
  var DESIRED_RETENTION = 0.9;

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

  // {crt, columns: {guid: row}, revlog: [[id, guid, ease, ivl, type]]} for the reviewed cards.
  function scheduleRows(cards, now) {
    var reviewed = Object.keys(cards).filter(function (guid) {
      return cards[guid].log.length && cards[guid].state;
    });
    var first = reviewDay(now);
    reviewed.forEach(function (guid) {
      var day = reviewDay(Date.parse(cards[guid].log[0][0]));
      if (daysBetween(day, first) > 0) first = day;
    });
    var today = reviewDay(now);
    var tomorrow = dayStart(reviewDay(dayStart(today) + 36 * 3600 * 1000));
    var columns = {};
    var revlog = [];
    var used = {};
    reviewed.forEach(function (guid) {
      var card = cards[guid];
      var dueMs = Date.parse(card.due);
      var dueDay = daysBetween(first, reviewDay(dueMs));
      var ivl = card.state === 2 || card.state === 3 ? Math.max(1, Math.ceil(card.scheduled_days)) : 0;
      var queue, due, lastIvl;
      if (card.state === 2) {
        queue = 2;
        due = dueDay;
        lastIvl = ivl;
      } else if (dueMs < tomorrow) {
        queue = 1;
        due = Math.floor(dueMs / 1000);
        lastIvl = -Math.max(1, Math.floor((dueMs - Date.parse(card.log[card.log.length - 1][0])) / 1000));
      } else {
        queue = 3;
        due = dueDay;
        lastIvl = ivl || 1;
      }
      columns[guid] = {
        type: card.state,
        queue: queue,
        due: due,
        ivl: ivl,
        factor: card.state === 2 || card.state === 3 ? 2500 : 0,
        reps: card.reps,
        lapses: card.lapses,
        left: queue === 1 || queue === 3 ? 1001 : 0,
        data: JSON.stringify({ s: card.stability, d: card.difficulty, dr: DESIRED_RETENTION }),
      };
      var kinds = revlogKinds(card.log);
      card.log.forEach(function (entry, i) {
        var stamp = Date.parse(entry[0]);
        while (used[stamp]) stamp += 1; // revlog ids are unique times in ms
        used[stamp] = true;
        revlog.push([stamp, guid, entry[1], i === card.log.length - 1 ? lastIvl : 0, kinds[i]]);
      });
    });
    return { crt: Math.floor(dayStart(first) / 1000), columns: columns, revlog: revlog };
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
        "INSERT INTO revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type) VALUES (?, ?, -1, ?, ?, 0, 0, 0, ?)"
      );
      rows.revlog.forEach(function (r) {
        if (r[1] in ids) insert.run([r[0], ids[r[1]], r[2], r[3], r[4]]);
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

  // The .apkg of ``cards`` (store.js's shape) at ``now``: a promise of {blob, scheduled}.
  function toApkg(cards, now) {
    return window.initSqlJs().then(function (SQL) {
      var made = collection(SQL, window.CourseReviewAnki, cards, now);
      var media = new TextEncoder().encode("{}");
      return { blob: zip([["collection.anki2", made.bytes], ["media", media]]), scheduled: made.scheduled };
    });
  }

  window.CourseAnkiExport = { toApkg: toApkg, scheduleRows: scheduleRows };
})();
