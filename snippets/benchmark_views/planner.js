/*
 * The memory planner of Lesson 2: the course's memory model of a whole training step, on the
 * reader's model shape.
 *
 * The arithmetic is a line-by-line port of snippets/memory_model.py (block_bytes,
 * block_parameters, state_bytes, fsdp_bytes, predict, recomputed_fraction, plan, plan_step);
 * the browser tests compare this port with that file over a grid of inputs, and every number
 * the form shows with the Python, so change both together. What the port must not invent (item
 * sizes, precisions, optimizers, the forward share of a step, the headroom, the presets and
 * their sources, the field limits) comes from the form's HTML, written by
 * snippets/benchmark_views/planner.py.
 *
 * Every keystroke re-plans. A field that does not hold a usable value gets a message next to it
 * and the results are removed, never left looking current. The inputs are remembered in this
 * browser (localStorage) for the next visit. No framework, no network: it works from file:// and
 * after Material's instant navigation, starting through startup.js.
 */
(function () {
  "use strict";

  // --- the model (snippets/memory_model.py) ---------------------------------------------------

  var SETTINGS = ["none", "selective-attention", "selective", "segments", "groups", "every-layer", "offload"];

  function blockBytes(block, batch, tokens, hidden, heads, attention, size, computeSize, maskSize, softmaxSize, cudaKernels) {
    var m = computeSize || size;
    var mask = maskSize === null ? m : maskSize;
    var sm = softmaxSize || m;
    var n = batch * tokens * hidden;
    var perToken = batch * tokens;
    var casts = computeSize !== null && computeSize !== size;
    var norm = n * size + 2 * perToken * 4;
    function linear(inputs, weight) {
      return inputs * m + (casts ? weight * m : 0);
    }
    // autocast's cached weight and bias copies of Linear(i, o) layers: [[i, o], ...]
    function copies(shapes) {
      if (!casts) return 0;
      return shapes.reduce(function (sum, io) {
        return sum + io[0] * io[1] + io[1];
      }, 0) * m;
    }
    var up = [hidden, 4 * hidden];
    var down = [4 * hidden, hidden];
    var mlp = norm + linear(n, 4 * hidden * hidden) + 4 * n * m + linear(4 * n, 4 * hidden * hidden);
    var mlpMatmuls = (4 + 1) * n * m;
    var mlpBackward = n * size + 4 * n * m + 4 * hidden * hidden * m + (casts ? n * m : 0);
    var needed = n * size + 4 * n * m;
    if (block === "mlp") {
      return {
        full: mlp,
        matmuls: n * size + mlpMatmuls,
        attention: mlp,
        backward: mlpBackward,
        recompute_extra: 0,
        needed: needed,
        cached: copies([up, down]),
        forward: 8 * n * m + copies([up]),
        forward_selective: 4 * n * m + copies([up]),
      };
    }
    var scores = batch * heads * tokens * tokens;
    var qkv = [hidden, 3 * hidden];
    var proj = [hidden, hidden];
    var core, coreMatmuls, coreBackward, extra, atCore;
    if (attention === "explicit") {
      core = scores * (sm + mask + m);
      coreMatmuls = (scores + n) * m;
      // CUDA's softmax backward: its gradient, result and scratch, q's and k's gradients later
      coreBackward = cudaKernels
        ? scores * (3 * sm - m - mask) + 2 * n * m - mlp
        : scores * (2 * sm - m) + 5 * n * m - mlp;
      extra = casts && !cudaKernels ? scores * size : 0;
      atCore = scores * (m + 2 * sm + mask + (sm !== m ? m : 0));
    } else {
      core = n * m + batch * heads * tokens * 4;
      coreMatmuls = 0;
      coreBackward = 0;
      extra = 0;
      atCore = core;
    }
    var coreTime = atCore + copies([qkv]);
    var mlpTime = n * m + n * size + copies([qkv, proj, up]);
    var outside = norm + linear(n, 3 * hidden * hidden) + 3 * n * m + linear(n, hidden * hidden) + mlp;
    return {
      full: outside + core,
      matmuls: n * size + (3 + 1) * n * m + coreMatmuls + mlpMatmuls,
      attention: outside,
      backward: Math.max(mlpBackward, coreBackward),
      recompute_extra: extra,
      needed: needed,
      cached: copies([qkv, proj, up, down]),
      forward: 6 * n * m + Math.max(coreTime, mlpTime + 8 * n * m),
      forward_selective: 3 * n * m + Math.max(coreTime, mlpTime + 4 * n * m),
    };
  }

  function blockParameters(block, h) {
    var mlp = 2 * h + (4 * h * h + 4 * h) + (4 * h * h + h);
    if (block === "mlp") return [mlp, 6];
    return [2 * h + (3 * h * h + 3 * h) + (h * h + h) + mlp, 12];
  }

  // memory_model.optimizer_units: the optimizer step's peak above the resident state, in a
  function optimizerUnits(optimizer, parameterBytes, hidden, size, a, foreach, temporaries) {
    var t = temporaries[optimizer];
    return 1 + (foreach ? t[0] * parameterBytes : t[1] * 4 * hidden * hidden * size) / a;
  }

  function stateBytes(parameters, tensors, size, ranks, optimizer, optimizers) {
    var values = optimizers[optimizer][0];
    var perTensor = optimizers[optimizer][1];
    var params = (parameters * size) / ranks;
    var state = values * params + perTensor * tensors;
    return { parameter_bytes: params, gradient_bytes: params, optimizer_bytes: state, total: 2 * params + state };
  }

  // fsdp_bytes with the "root" layout (a loop that calls the sharded model): one gathered
  // block, the next block's all-gather buffer and one block's reduce-scatter buffer, full size
  function fsdpBytes(block, hidden, size, ranks) {
    var one = ranks > 1 ? blockParameters(block, hidden)[0] * size : 0;
    return { unsharded_parameter_bytes: one, all_gather_bytes: one, reduce_scatter_bytes: one, total: 3 * one };
  }

  // param: {layersPerGroup, segments, and the transient terms in units of a: backward,
  // recomputeExtra, needed, stash, cached, forward, forwardSelective, and the optimizer step's
  // optimizer (each 0 when absent)}
  function predict(strategy, L, a, c, kept, param) {
    var passes = passesPeak(strategy, L, a, c, kept, param);
    return [passes[0], Math.max(passes[1], (param.optimizer || 0) * a)];
  }

  function passesPeak(strategy, L, a, c, kept, param) {
    var saved;
    var w = (param.backward || 0) * a;
    var extra = param.recomputeExtra || 0;
    var stash = param.stash || 0;
    var cached = param.cached || 0;
    if (strategy === "groups") {
      var n = param.layersPerGroup;
      saved = Math.ceil(L / n) * a;
      var held = saved * (1 + stash);
      var ahead = held + ((n > 1 ? 1 : 0) + (L - 1) * cached + (param.forward || 0)) * a;
      return [saved, Math.max(held + (n * c - 1 + extra) * a + w, ahead)];
    }
    if (strategy === "segments") {
      var s = param.segments;
      var size = Math.floor(L / s);
      var last = L - (s - 1) * size;
      saved = (s - 1) * a + last * c * a;
      var recomputed = (size * c - 1 + extra) * a;
      var segHeld = (s - 1) * (1 + stash) * a;
      var segAhead = segHeld + ((L - last) * cached + last * c + 1) * a;
      return [saved, Math.max(segHeld + Math.max(last * c * a, recomputed) + w, segAhead)];
    }
    if (strategy === "selective") {
      saved = L * kept * a;
      var selAhead = saved + ((L - 1) * cached + (param.forwardSelective || 0)) * a;
      return [saved, Math.max(saved + (c - (param.needed || 0) + extra + L * stash) * a + w, selAhead)];
    }
    if (strategy === "selective-attention") {
      saved = L * kept * a;
      return [saved, saved + (c - kept + L * stash) * a + w];
    }
    if (strategy === "offload") return [L * c * a, c * a + w];
    return [L * c * a, L * c * a + w];
  }

  // memory_model.transient_units: predict's transient terms for one block, in units of a
  function transientUnits(perBlock, a, rngStateBytes) {
    return {
      backward: perBlock.backward / a,
      recomputeExtra: perBlock.recompute_extra / a,
      needed: perBlock.needed / a,
      cached: perBlock.cached / a,
      forward: perBlock.forward / a,
      forwardSelective: perBlock.forward_selective / a,
      stash: rngStateBytes / a,
    };
  }

  function attentionCoreShare(tokens, hidden) {
    return tokens / (tokens + 6 * hidden);
  }

  function recomputedFraction(strategy, L, segments, coreShare) {
    if (strategy === "selective-attention") return coreShare === undefined ? 1.0 : coreShare;
    if (strategy === "groups" || strategy === "selective") return 1.0;
    if (strategy === "segments") return ((segments - 1) * Math.floor(L / segments)) / L;
    return strategy === "offload" ? null : 0.0;
  }

  // m: {layers, a, c, kept, limit, coreShare, forwardShare, transient (transientUnits)}
  function option(setting, strategy, m, kept, param) {
    var terms = Object.assign({}, m.transient || {}, param);
    var passes = passesPeak(strategy, m.layers, m.a, m.c, kept, terms)[1];
    var peak = Math.max(passes, (terms.optimizer || 0) * m.a);
    var fraction = recomputedFraction(strategy, m.layers, param.segments, m.coreShare);
    return {
      setting: setting,
      strategy: strategy,
      layersPerGroup: param.layersPerGroup,
      segments: param.segments,
      peak: peak,
      passes: passes,
      fraction: fraction,
      overhead: fraction === null ? null : fraction * m.forwardShare,
      fits: peak <= m.limit,
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

  // measured_overheads: the course's measured entries for a block like the planner's, by setting
  function measuredOverheads(entries, block, attention, autocast) {
    var same = entries.filter(function (e) {
      return e.block === block && (block === "mlp" || e.attention === attention);
    });
    var kind = same.filter(function (e) {
      return e.autocast === autocast;
    });
    var found = {};
    (kind.length ? kind : same).forEach(function (e) {
      (found[e.setting] = found[e.setting] || []).push(e);
    });
    return found;
  }

  // _closest: the setting's measured entry whose recomputed share is nearest the option's
  function closest(o, entries) {
    if (o.overhead === null || !entries || !entries.length) return null;
    return entries.reduce(function (chosen, e) {
      return Math.abs(e.fraction - o.fraction) < Math.abs(chosen.fraction - o.fraction) ? e : chosen;
    });
  }

  // _speed: the measured overhead where the course has one, else the estimate
  function speed(o) {
    return o.measured === null ? o.overhead : o.measured.overhead;
  }

  // m: {layers, a, c, kept, core (null: no attention), limit, coreShare, forwardShare, transient,
  // measured (measuredOverheads' result)}
  function plan(m) {
    var groups = [];
    var segments = [];
    for (var g = 1; g <= m.layers; g++) groups.push(option("groups", "groups", m, m.kept, { layersPerGroup: g }));
    for (var s = 2; s <= m.layers; s++) segments.push(option("segments", "segments", m, m.kept, { segments: s }));
    var bestGroup = best(groups); // one layer per group is the every-layer row: shown once
    var options = [option("none", "none", m, m.kept, {})];
    if (m.core) options.push(option("selective-attention", "selective-attention", m, m.core, {}));
    options.push(option("selective", "selective", m, m.kept, {}));
    if (segments.length) options.push(best(segments));
    if (bestGroup.layersPerGroup !== 1) options.push(bestGroup);
    options.push(option("every-layer", "groups", m, m.kept, { layersPerGroup: 1 }));
    options.push(option("offload", "offload", m, m.kept, {}));
    var recommended = null;
    options.forEach(function (o) {
      o.measured = closest(o, (m.measured || {})[o.setting]);
    });
    options.forEach(function (o) {
      if (!o.fits || o.overhead === null) return;
      if (
        recommended === null ||
        speed(o) < speed(recommended) ||
        (speed(o) === speed(recommended) && SETTINGS.indexOf(o.setting) < SETTINGS.indexOf(recommended.setting))
      ) {
        recommended = o;
      }
    });
    return { options: options, recommended: recommended && recommended.setting };
  }

  // v: {block, attention, layers, hidden, heads, tokens, batch, precision, optimizer, ranks,
  // deviceBytes}; model: the form's data-model
  function planStep(v, model) {
    var precision = model.precisions[v.precision];
    var size = model.itemsize[precision[0]];
    var compute = precision[1] === null ? null : model.itemsize[precision[1]];
    var a = v.batch * v.tokens * v.hidden * size;
    var softmax = compute === null ? null : 4; // CUDA's autocast runs softmax in float32
    var perBlock = blockBytes(v.block, v.batch, v.tokens, v.hidden, v.heads, v.attention, size, compute, 1, softmax, true);
    var params = blockParameters(v.block, v.hidden);

    function resident(r) {
      var state = stateBytes(v.layers * params[0], v.layers * params[1], size, r, v.optimizer, model.optimizers);
      var fsdp = fsdpBytes(v.block, v.hidden, size, r);
      return {
        parameter_bytes: state.parameter_bytes,
        gradient_bytes: state.gradient_bytes,
        optimizer_bytes: state.optimizer_bytes,
        unsharded_parameter_bytes: fsdp.unsharded_parameter_bytes,
        all_gather_bytes: fsdp.all_gather_bytes,
        reduce_scatter_bytes: fsdp.reduce_scatter_bytes,
        total: state.total + fsdp.total,
      };
    }

    var state = resident(v.ranks);
    var usable = v.deviceBytes * (1 - model.headroom);
    var transformer = v.block === "transformer";
    var result = plan({
      layers: v.layers,
      a: a,
      c: perBlock.full / a,
      kept: perBlock.matmuls / a,
      core: transformer ? perBlock.attention / a : null,
      limit: usable - state.total,
      coreShare: transformer ? attentionCoreShare(v.tokens, v.hidden) : 1.0,
      forwardShare: model.forwardShare,
      transient: Object.assign(transientUnits(perBlock, a, model.rngStateBytes), {
        optimizer: optimizerUnits(v.optimizer, state.parameter_bytes, v.hidden, size, a, true, model.stepTemporaries),
      }),
      measured: measuredOverheads(model.measured || [], v.block, v.attention, compute !== null),
    });
    result.options.forEach(function (o) {
      o.total = state.total + o.peak;
    });
    var ranksNeeded = null;
    if (result.recommended === null) {
      // the passes' peak is the same on any number of ranks; the optimizer step's shrinks
      var lowest = Infinity;
      result.options.forEach(function (o) {
        if (o.overhead !== null && o.passes < lowest) lowest = o.passes;
      });
      for (var r = v.ranks + 1; r <= model.maxRanks; r++) {
        var shard = resident(r);
        var stepPeak = optimizerUnits(v.optimizer, shard.parameter_bytes, v.hidden, size, a, true, model.stepTemporaries) * a;
        if (shard.total + Math.max(lowest, stepPeak) <= usable) {
          ranksNeeded = r;
          break;
        }
      }
    }
    result.a = a;
    result.blockBytes = perBlock;
    result.state = state;
    result.usable = usable;
    result.ranksNeeded = ranksNeeded;
    return result;
  }

  // --- formatting: decimal units everywhere, to match the device's GB -------------------------

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
    if (n < 0) return "−" + fmtBytes(-n);
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

  var NAMES = {
    none: ["No checkpointing", "autograd keeps every layer’s activations"],
    "selective-attention": ["Selective recomputation", "recomputes only the attention core"],
    selective: ["Selective checkpointing", "saves every matmul output, recomputes the rest"],
    "every-layer": ["Every layer", "checkpoint() around each layer"],
    offload: ["CPU offload", "saved tensors go to host memory"],
  };

  function describe(o) {
    if (o.setting === "segments") return ["Best segment count", o.segments + " segments, checkpoint_sequential()"];
    if (o.setting === "groups") {
      return ["Best group size", o.layersPerGroup + " layer" + (o.layersPerGroup === 1 ? "" : "s") + " per group, checkpoint()"];
    }
    return NAMES[o.setting];
  }

  function settingText(o) {
    var words = describe(o);
    return o.setting === "segments" || o.setting === "groups"
      ? words[0].toLowerCase() + " (" + words[1].split(",")[0] + ")"
      : words[0].toLowerCase();
  }

  function overheadText(o) {
    if (o.overhead === null) return "copies, no recompute";
    var text = "estimate " + fmtPercent(o.overhead);
    if (o.measured) text += "; measured " + fmtPercent(o.measured.overhead) + " on " + o.measured.device + " (" + o.measured.run + ")";
    return text;
  }

  // --- the form -------------------------------------------------------------------------------

  var NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
  var STORAGE_KEY = "course-planner:v1"; // beside the review progress's "course-review:v1"
  var SHAPE_FIELDS = ["layers", "hidden", "heads", "tokens"];

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

  function remembered() {
    try {
      var saved = JSON.parse(window.localStorage.getItem(STORAGE_KEY) || "{}");
      return saved && typeof saved === "object" && !Array.isArray(saved) ? saved : {};
    } catch (error) {
      return {}; // storage off, or not this planner's data: start from the defaults
    }
  }

  function remember(values) {
    try {
      window.localStorage.setItem(STORAGE_KEY, JSON.stringify(values));
    } catch (error) {
      // storage off or full: the planner still works, it just forgets
    }
  }

  function el(tag, cls, text) {
    var attrs = cls ? { class: cls } : {};
    if (text !== undefined) attrs.text = text;
    return window.CourseStartup.el(tag, attrs);
  }

  // The parts of one planner form that the functions below read and write.
  function plannerParts(form) {
    var table = form.querySelector("table");
    return {
      form: form,
      model: JSON.parse(form.getAttribute("data-model")),
      status: form.querySelector(".planner-status"),
      sizes: form.querySelector(".planner-sizes"),
      source: form.querySelector(".planner-source"),
      table: table,
      tbody: table.querySelector("tbody"),
      // Each cell carries its column's header, which a phone shows beside it (planner.css).
      columns: Array.prototype.map.call(table.querySelectorAll("thead th"), function (th) {
        return th.textContent;
      }),
      controls: form.querySelectorAll(".planner-field input, .planner-field select"),
    };
  }

  function control(ui, name) {
    return ui.form.querySelector("[name='" + name + "']");
  }

  function restoreControls(ui) {
    var saved = remembered();
    Array.prototype.forEach.call(ui.controls, function (c) {
      if (c.name === "preset" || typeof saved[c.name] !== "string") return;
      if (c.tagName === "SELECT" && !c.querySelector("option[value='" + CSS.escape(saved[c.name]) + "']")) return;
      c.value = saved[c.name];
    });
  }

  function saveControls(ui) {
    var values = {};
    Array.prototype.forEach.call(ui.controls, function (c) {
      if (c.name !== "preset") values[c.name] = c.value;
    });
    remember(values);
  }

  function applyPreset(ui) {
    var key = control(ui, "preset").value;
    ui.model.presets.forEach(function (p) {
      if (p.key !== key) return;
      control(ui, "block").value = "transformer";
      SHAPE_FIELDS.forEach(function (name) {
        control(ui, name).value = String(p[name]);
      });
    });
  }

  // The preset the fields now hold (a learner's edit leaves it), and its source under the form.
  function showPreset(ui) {
    var match = null;
    ui.model.presets.forEach(function (p) {
      var same = control(ui, "block").value === "transformer";
      SHAPE_FIELDS.forEach(function (name) {
        same = same && control(ui, name).value.trim() === String(p[name]);
      });
      if (same && match === null) match = p;
    });
    control(ui, "preset").value = match ? match.key : "";
    ui.source.textContent = "";
    if (!match) return;
    var link = el("a", "", match.source);
    link.href = match.url;
    ui.source.append(
      match.label + ": " + match.layers + " layers, hidden size " + match.hidden + ", " + match.heads + " heads, " + match.tokens +
        " tokens (",
      link,
      "). Transformer blocks only: the token embedding and the output layer are not counted."
    );
  }

  function showBlockFields(ui) {
    var block = control(ui, "block").value;
    Array.prototype.forEach.call(ui.form.querySelectorAll(".planner-field[data-block]"), function (wrap) {
      wrap.hidden = wrap.getAttribute("data-block") !== block;
    });
  }

  function setError(ui, name, message) {
    var wrap = ui.form.querySelector(".planner-field[data-field='" + name + "']");
    var input = control(ui, name);
    wrap.querySelector(".planner-error").textContent = message;
    if (message) input.setAttribute("aria-invalid", "true");
    else input.removeAttribute("aria-invalid");
  }

  // Validate every shown field; returns the values, or null when any field is bad.
  function readAll(ui) {
    var values = {};
    var ok = true;
    Array.prototype.forEach.call(ui.form.querySelectorAll(".planner-field input"), function (input) {
      var result = input.closest(".planner-field").hidden ? { value: 1 } : readField(input);
      setError(ui, input.name, result.error || "");
      if (result.error) ok = false;
      values[input.name] = result.value;
    });
    if (ok && control(ui, "block").value === "transformer" && values.hidden % values.heads !== 0) {
      setError(ui, "heads", "Must divide the hidden size (" + fmtNumber(values.hidden) + ") evenly.");
      ok = false;
    }
    if (!ok) return null;
    ["block", "attention", "precision", "optimizer"].forEach(function (name) {
      values[name] = control(ui, name).value;
    });
    values.deviceBytes = values.memory * 1e9;
    return values;
  }

  function clearResults(ui, message) {
    ui.tbody.textContent = "";
    ui.table.hidden = true;
    ui.sizes.textContent = "";
    ui.status.textContent = message;
  }

  function bar(o, scale, state) {
    var wrap = el("span", "planner-bar");
    wrap.setAttribute("aria-hidden", "true");
    [
      ["planner-bar-state", state.total],
      ["planner-bar-activations", o.peak],
    ].forEach(function (part) {
      var piece = el("span", part[0]);
      piece.style.width = Math.min(100, (100 * part[1]) / scale) + "%";
      wrap.appendChild(piece);
    });
    return wrap;
  }

  function row(ui, o, result, scale) {
    var words = describe(o);
    var tr = el("tr");
    tr.setAttribute("data-setting", o.setting);
    var head = el("th", "", words[0]);
    head.scope = "row";
    if (o.setting === result.recommended) {
      tr.className = "is-recommended";
      head.appendChild(el("strong", "", " (recommended)"));
    }
    head.appendChild(el("br"));
    head.appendChild(el("small", "", words[1]));
    tr.appendChild(head);
    var whole = el("td", "num", fmtBytes(o.total));
    whole.appendChild(bar(o, scale, result.state));
    [el("td", "num", fmtBytes(o.peak)), whole, el("td", "num", overheadText(o)), el("td", "num", o.fits ? "yes" : "no")].forEach(
      function (td, i) {
        td.setAttribute("data-label", ui.columns[i + 1]);
        tr.appendChild(td);
      }
    );
    return tr;
  }

  function stateText(state) {
    var parts = [
      "parameters " + fmtBytes(state.parameter_bytes),
      "gradients " + fmtBytes(state.gradient_bytes),
      "optimizer state " + fmtBytes(state.optimizer_bytes),
    ];
    if (state.unsharded_parameter_bytes) {
      parts.push(
        "FSDP’s gathered block " + fmtBytes(state.unsharded_parameter_bytes),
        "all-gather buffer " + fmtBytes(state.all_gather_bytes),
        "reduce-scatter buffer " + fmtBytes(state.reduce_scatter_bytes)
      );
    }
    return parts.join(", ") + ": " + fmtBytes(state.total);
  }

  function describeSizes(model, v, result) {
    var bb = result.blockBytes;
    var text =
      "Every setting holds the same state on each device (" + stateText(result.state) + "); they differ in activations. " +
      "One boundary tensor a = " + fmtBytes(result.a) + "; a layer keeps c = " + fmtNumber(bb.full / result.a) + " a, " +
      "selective checkpointing keeps " + fmtNumber(bb.matmuls / result.a) + " a";
    if (v.block === "transformer") {
      text +=
        ", recomputing the attention core keeps " + fmtNumber(bb.attention / result.a) + " a and re-runs " +
        Math.round(attentionCoreShare(v.tokens, v.hidden) * 100) + "% of the block’s matmul work";
    }
    return (
      text + ". Overhead: the estimate is the recomputed share of a forward pass × " + Math.round(model.forwardShare * 100) +
      "% of a step (backward ≈ 2 × forward); beside it, the course's measured overhead for the same strategy, which the " +
      "recommendation goes by where there is one (below: why a CPU ratio need not carry over to a GPU). A setting fits when its " +
      "whole step leaves " + Math.round(model.headroom * 100) + "% of the device’s memory free (" + fmtBytes(result.usable) +
      " usable). Bars: state, then activations, against the device."
    );
  }

  function nothingFits(model, v, result, byName) {
    var lowest = result.options.reduce(function (x, o) {
      return o.overhead !== null && (x === null || o.peak < x.peak) ? o : x;
    }, null);
    var text =
      "Nothing fits: " + fmtBytes(lowest.total) + " needed, " + fmtBytes(result.usable) + " usable of " + fmtBytes(v.deviceBytes) +
      " (" + Math.round(model.headroom * 100) + "% kept free). That is the lowest whole step, " + settingText(lowest) +
      ", of which the state is " + fmtBytes(result.state.total) + ". ";
    if (result.ranksNeeded !== null) {
      text += "Sharding over " + result.ranksNeeded + " FSDP ranks would make it fit; or shrink the batch or sequence.";
    } else {
      text += "Sharding alone cannot make it fit: shrink the batch or sequence, or use a device with more memory.";
    }
    if (byName.offload.fits) {
      text += " CPU offload would fit (" + fmtBytes(byName.offload.total) + "), paying in copies to the host and back: measure it.";
    }
    return text;
  }

  function verdict(model, v, result, byName) {
    if (result.recommended === null) return nothingFits(model, v, result, byName);
    var device = fmtBytes(v.deviceBytes);
    var chosen = byName[result.recommended];
    var why =
      chosen.setting === "none"
        ? "its whole step (" + fmtBytes(chosen.total) + ") fits " + device + " with headroom, so checkpointing would only slow the step down."
        : "the lowest step-time overhead (" + overheadText(chosen) + "), measured where the course measured it, of the settings " +
          "whose whole step fits " + device + " with headroom: " + fmtBytes(chosen.total) + "; no checkpointing needs " +
          fmtBytes(byName.none.total) + ".";
    return "Recommended: " + settingText(chosen) + ". Why: " + why;
  }

  function render(ui, v, result) {
    ui.tbody.textContent = "";
    var byName = {};
    var scale = v.deviceBytes;
    result.options.forEach(function (o) {
      byName[o.setting] = o;
      scale = Math.max(scale, o.total);
    });
    result.options.forEach(function (o) {
      ui.tbody.appendChild(row(ui, o, result, scale));
    });
    ui.table.hidden = false;
    ui.sizes.textContent = describeSizes(ui.model, v, result);
    ui.status.textContent = verdict(ui.model, v, result, byName);
  }

  function update(ui, event) {
    if (event && event.target && event.target.name === "preset") applyPreset(ui);
    showBlockFields(ui);
    showPreset(ui);
    saveControls(ui);
    var v = readAll(ui);
    if (v === null) {
      clearResults(ui, "No results: correct the field marked above.");
      return;
    }
    render(ui, v, planStep(v, ui.model));
  }

  function initPlanner(form) {
    if (!window.CourseStartup.firstTime(form)) return;
    var ui = plannerParts(form);
    var nojs = form.querySelector(".planner-nojs");
    if (nojs) nojs.hidden = true;
    function onChange(event) {
      update(ui, event);
    }
    form.addEventListener("input", onChange);
    form.addEventListener("change", onChange);
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      update(ui);
    });
    restoreControls(ui);
    update(ui);
  }

  function init() {
    Array.prototype.forEach.call(document.querySelectorAll("form.planner"), initPlanner);
  }

  // For the tests and the curious: the model, callable from the console.
  window.coursePlanner = {
    blockBytes: blockBytes,
    transientUnits: transientUnits,
    optimizerUnits: optimizerUnits,
    predict: predict,
    recomputedFraction: recomputedFraction,
    plan: plan,
    planStep: planStep,
  };

  window.CourseStartup.onEachPage(init);
})();
