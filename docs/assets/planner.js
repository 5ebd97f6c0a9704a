/*
 * The memory planner of Lesson 2: the course's activation-memory model on the reader's sizes.
 *
 * The arithmetic is a line-by-line port of snippets/memory_model.py (predict,
 * recomputed_fraction, transformer_units, plan); the browser tests compare every number shown
 * here with that file over a grid of configurations, so change both together. Constants the
 * port must not invent (the MLP block's c and selective units, the forward share of a step, the
 * item sizes, the field limits) come from the form's HTML, written by tools/benchmarks/planner.py.
 *
 * Every keystroke re-plans. A field that does not hold a usable value gets an inline message and
 * the results are removed, never left looking current. No framework, no network: it works from
 * file:// and after Material's instant navigation, starting through startup.js.
 */
(function () {
  "use strict";

  // --- the model (snippets/memory_model.py) ---------------------------------------------------

  var SETTINGS = ["none", "selective", "segments", "groups", "every-layer"];

  function predict(strategy, L, a, c, kept, param) {
    var saved;
    if (strategy === "groups") {
      var n = param.layersPerGroup;
      saved = Math.ceil(L / n) * a;
      return [saved, saved + n * c * a];
    }
    if (strategy === "segments") {
      var s = param.segments;
      var size = Math.floor(L / s);
      var last = L - (s - 1) * size;
      saved = (s - 1) * a + last * c * a;
      return [saved, (s - 1) * a + Math.max(last, size) * c * a];
    }
    if (strategy === "selective") {
      saved = L * kept * a;
      return [saved, saved + c * a];
    }
    if (strategy === "offload") return [L * c * a, c * a];
    return [L * c * a, L * c * a];
  }

  function recomputedFraction(strategy, L, segments) {
    if (strategy === "groups" || strategy === "selective") return 1.0;
    if (strategy === "segments") return ((segments - 1) * Math.floor(L / segments)) / L;
    return strategy === "offload" ? null : 0.0;
  }

  function transformerUnits(tokens, hidden, heads, size) {
    var attention = (heads * tokens) / hidden;
    return { c: (size * (16 + 2 * attention) + 2 + attention) / size, kept: (size * 16 + 2) / size };
  }

  function option(setting, strategy, m, param) {
    var peak = predict(strategy, m.layers, m.a, m.c, m.kept, param)[1];
    var fraction = recomputedFraction(strategy, m.layers, param.segments);
    return {
      setting: setting,
      strategy: strategy,
      layersPerGroup: param.layersPerGroup,
      segments: param.segments,
      peak: peak,
      fraction: fraction,
      overhead: fraction * m.forwardShare,
      fits: peak <= m.budget * (1 - m.headroom),
    };
  }

  // Among those that fit, the least recomputation, then the lowest peak; else the lowest peak.
  // Ties keep the earliest candidate, as Python's min() does.
  function best(candidates) {
    var fitting = candidates.filter(function (o) {
      return o.fits;
    });
    var pool = fitting.length ? fitting : candidates;
    return pool.reduce(function (chosen, o) {
      var better = fitting.length
        ? o.fraction < chosen.fraction || (o.fraction === chosen.fraction && o.peak < chosen.peak)
        : o.peak < chosen.peak;
      return better ? o : chosen;
    });
  }

  // m: {layers, a, c, kept (null: not modelled), budget (bytes), forwardShare}
  function plan(m) {
    var groups = [];
    var segments = [];
    for (var g = 1; g <= m.layers; g++) groups.push(option("groups", "groups", m, { layersPerGroup: g }));
    for (var s = 2; s <= m.layers; s++) segments.push(option("segments", "segments", m, { segments: s }));
    var options = [option("none", "none", m, {})];
    if (m.kept !== null) options.push(option("selective", "selective", m, {}));
    if (segments.length) options.push(best(segments));
    var bestGroup = best(groups); // one layer per group is the every-layer row: shown once
    if (bestGroup.layersPerGroup !== 1) options.push(bestGroup);
    options.push(option("every-layer", "groups", m, { layersPerGroup: 1 }));
    var recommended = null;
    options.forEach(function (o) {
      if (!o.fits) return;
      if (
        recommended === null ||
        o.overhead < recommended.overhead ||
        (o.overhead === recommended.overhead &&
          SETTINGS.indexOf(o.setting) < SETTINGS.indexOf(recommended.setting))
      ) {
        recommended = o;
      }
    });
    return { options: options, recommended: recommended && recommended.setting };
  }

  // --- formatting: decimal units everywhere, to match the budget's GB -------------------------

  var UNITS = [
    ["PB", 1e15],
    ["TB", 1e12],
    ["GB", 1e9],
    ["MB", 1e6],
    ["kB", 1e3],
  ];

  // Built once: toLocaleString with options builds a new formatter on every call, which showed
  // in the per-keystroke time.
  var FIXED = [0, 1, 2].map(function (digits) {
    return new Intl.NumberFormat("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
  });
  var UP_TO_3 = new Intl.NumberFormat("en-US", { maximumFractionDigits: 3 });

  function fmtBytes(n) {
    for (var i = 0; i < UNITS.length; i++) {
      if (n >= UNITS[i][1] || i === UNITS.length - 1) {
        if (n < 1e3) return Math.round(n) + " B";
        var value = n / UNITS[i][1];
        var digits = value < 10 ? 2 : value < 100 ? 1 : 0;
        return FIXED[digits].format(value) + " " + UNITS[i][0];
      }
    }
  }

  function fmtPercent(x) {
    return "+" + Math.round(x * 100) + "%";
  }

  function fmtNumber(x) {
    return UP_TO_3.format(x);
  }

  function describe(o, blockName) {
    if (o.setting === "none") return ["No checkpointing", "autograd keeps every layer’s activations"];
    if (o.setting === "selective") {
      return [
        "Selective checkpointing",
        blockName === "transformer" ? "recomputes the attention core" : "keeps each block’s input and matmul outputs",
      ];
    }
    if (o.setting === "segments") return ["Best segment count", o.segments + " segments, checkpoint_sequential()"];
    if (o.setting === "groups") {
      return ["Best group size", o.layersPerGroup + " layer" + (o.layersPerGroup === 1 ? "" : "s") + " per group, checkpoint()"];
    }
    return ["Every layer", "checkpoint() around each layer"];
  }

  function settingText(o, blockName) {
    var words = describe(o, blockName);
    return o.setting === "none" || o.setting === "selective" || o.setting === "every-layer"
      ? words[0].toLowerCase()
      : words[0].toLowerCase() + " (" + words[1].split(",")[0] + ")";
  }

  // --- the form -------------------------------------------------------------------------------

  var NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

  // The value of a text field, or an error message for it.
  function readField(input) {
    var text = input.value.trim();
    var max = Number(input.getAttribute("data-max"));
    var integer = input.getAttribute("data-integer") === "true";
    if (text === "") return { error: "Enter a value." };
    if (!NUMBER.test(text)) return { error: "Enter a number" + (integer ? ", like 24." : ", like 12.5.") };
    var value = Number(text);
    if (!isFinite(value) || value > max) return { error: "Too large: at most " + fmtNumber(max) + "." };
    if (value <= 0) return { error: "Must be more than 0." };
    if (integer && Math.floor(value) !== value) return { error: "Enter a whole number." };
    return { value: value };
  }

  function initPlanner(form) {
    if (!window.CourseStartup.firstTime(form)) return;
    var model = JSON.parse(form.getAttribute("data-model"));
    var status = form.querySelector(".planner-status");
    var sizes = form.querySelector(".planner-sizes");
    var table = form.querySelector("table");
    var tbody = table.querySelector("tbody");
    var block = form.querySelector("select[name=block]");
    var dtype = form.querySelector("select[name=dtype]");
    var nojs = form.querySelector(".planner-nojs");
    if (nojs) nojs.hidden = true;

    function field(name) {
      return form.querySelector(".planner-field[data-field='" + name + "']");
    }

    function showBlockFields() {
      Array.prototype.forEach.call(form.querySelectorAll(".planner-field[data-block]"), function (wrap) {
        wrap.hidden = wrap.getAttribute("data-block") !== block.value;
      });
    }

    // Validate every shown field; returns {name: value}, or null when any field is bad.
    function readAll() {
      var values = {};
      var ok = true;
      Array.prototype.forEach.call(form.querySelectorAll(".planner-field input"), function (input) {
        var wrap = input.closest(".planner-field");
        var error = wrap.querySelector(".planner-error");
        var result = wrap.hidden ? { value: null } : readField(input);
        error.textContent = result.error || "";
        if (result.error) input.setAttribute("aria-invalid", "true");
        else input.removeAttribute("aria-invalid");
        if (result.error) ok = false;
        values[input.name] = result.value;
      });
      if (ok && block.value === "transformer" && values.heads > values.hidden) {
        field("heads").querySelector(".planner-error").textContent = "At most the hidden size.";
        field("heads").querySelector("input").setAttribute("aria-invalid", "true");
        ok = false;
      }
      return ok ? values : null;
    }

    function clearResults(message) {
      tbody.textContent = "";
      table.hidden = true;
      sizes.textContent = "";
      status.textContent = message;
    }

    function cell(tag, text) {
      var el = document.createElement(tag);
      el.textContent = text;
      return el;
    }

    function render(m, result, blockName) {
      tbody.textContent = "";
      var byName = {};
      result.options.forEach(function (o) {
        byName[o.setting] = o;
        var words = describe(o, blockName);
        var row = document.createElement("tr");
        row.setAttribute("data-setting", o.setting);
        var head = cell("th", words[0]);
        head.scope = "row";
        if (o.setting === result.recommended) {
          row.className = "is-recommended";
          head.appendChild(cell("strong", " (recommended)"));
        }
        head.appendChild(document.createElement("br"));
        head.appendChild(cell("small", words[1]));
        row.appendChild(head);
        var overhead = fmtPercent(o.overhead);
        if (o.setting === "selective") overhead = "at most " + overhead;
        [fmtBytes(o.peak), overhead, o.fits ? "yes" : "no"].forEach(function (text) {
          var td = cell("td", text);
          td.className = "num";
          row.appendChild(td);
        });
        tbody.appendChild(row);
      });
      table.hidden = false;
      var kept = m.kept === null ? "selective: not modelled for a custom c" : "selective keeps " + fmtNumber(m.kept) + " a per layer";
      sizes.textContent =
        "One boundary tensor a = " + fmtBytes(m.a) + "; each layer keeps c = " + fmtNumber(m.c) + " a; " + kept + ". " +
        "Overhead: the recomputed share of a forward pass × " + Math.round(m.forwardShare * 100) +
        "% of a step (backward ≈ 2 × forward). Peaks are activations only. A setting fits when its peak " +
        "leaves " + Math.round(m.headroom * 100) + "% of the budget free, for what the model leaves out.";
      var budget = fmtBytes(m.budget);
      if (result.recommended === null) {
        var lowest = result.options.reduce(function (x, o) {
          return o.peak < x.peak ? o : x;
        });
        status.textContent =
          "Nothing fits " + budget + ": the lowest predicted peak is " + fmtBytes(lowest.peak) + " (" + settingText(lowest, blockName) +
          "). Shrink the batch or sequence, shard with FSDP, or offload activations to the CPU.";
        return;
      }
      var chosen = byName[result.recommended];
      var why =
        chosen.setting === "none"
          ? "it fits " + budget + ", so checkpointing would only slow the step down."
          : "the least predicted recomputation (" + fmtPercent(chosen.overhead) + " step time" +
            (chosen.setting === "selective" ? " at most, cheap operations only" : "") + ") of the settings that fit " + budget +
            "; no checkpointing needs " + fmtBytes(byName.none.peak) + ".";
      status.textContent = "Recommended: " + settingText(chosen, blockName) + ". Why: " + why;
    }

    function update() {
      showBlockFields();
      var v = readAll();
      if (v === null) {
        clearResults("No results: correct the field marked above.");
        return;
      }
      var size = model.itemsize[dtype.value];
      var units =
        block.value === "mlp"
          ? { c: model.mlp.c, kept: model.mlp.kept }
          : block.value === "transformer"
            ? transformerUnits(v.tokens, v.hidden, v.heads, size)
            : { c: v.c, kept: null };
      var m = {
        layers: v.layers,
        a: v.batch * v.tokens * v.hidden * size,
        c: units.c,
        kept: units.kept,
        budget: v.budget * 1e9,
        forwardShare: model.forwardShare,
        headroom: model.headroom,
      };
      render(m, plan(m), block.value);
    }

    form.addEventListener("input", update);
    form.addEventListener("change", update);
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      update();
    });
    update();
  }

  function init() {
    Array.prototype.forEach.call(document.querySelectorAll("form.planner"), initPlanner);
  }

  // For the tests and the curious: the model, callable from the console.
  window.coursePlanner = { predict: predict, recomputedFraction: recomputedFraction, transformerUnits: transformerUnits, plan: plan };

  window.CourseStartup.onEachPage(init);
})();
