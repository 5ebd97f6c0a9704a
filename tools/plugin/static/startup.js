/*
 * How the course's scripts start on a page: loaded first of them (mkdocs.yml, extra_javascript).
 *
 * A script hands its set-up function to CourseStartup.onEachPage. That function runs when this
 * page has loaded, and again each time Material's instant navigation swaps in a new page, which
 * it announces on the `document$` observable without re-running scripts. A site opened from
 * disk (file://) never gets document$ events, so the load alone must be enough; where both
 * happen, the set-up runs twice for one page. CourseStartup.firstTime lets a set-up function
 * skip the elements it has already set up, which makes the second run harmless.
 * CourseStartup.el builds the elements the scripts add (the Review page, grading in lessons).
 * CourseStartup.afterPaint lets a script put off work the first paint does not need (loading and
 * building the Review page's queue) until the page has been painted.
 *
 * The course's other scripts are not among the site's script tags: none is needed for the first
 * paint, and a page loads those it uses after it (tools/plugin/assets.py). Its head names them in
 * a data block (<script type="application/json" id="course-scripts">, site paths in order), and
 * this script adds each of them, once, in their order, when a page that names it has been
 * painted, on load or once swapped in. Instant navigation carries the head to the new page,
 * where a script tag would not run; a preload link would fetch while the first paint waits.
 */
(function () {
  "use strict";

  var READY = "data-ready";

  function onEachPage(setUp) {
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setUp);
    else setUp();
    var pages = window.document$;
    if (pages && typeof pages.subscribe === "function") pages.subscribe(setUp);
  }

  // True the first time it is asked about ``element``, false ever after (it marks the element).
  function firstTime(element) {
    if (element.getAttribute(READY) === "true") return false;
    element.setAttribute(READY, "true");
    return true;
  }

  // A new element: attributes (``text`` sets its text, never markup) and children (falsy ones
  // left out).
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

  // A promise that resolves once the browser has painted the page as it is now: a frame's
  // callback runs just before that frame is painted, a timeout set there after it. A hidden tab
  // paints nothing (and runs no frame callbacks), so there it resolves at once.
  function afterPaint() {
    return new Promise(function (resolve) {
      if (document.visibilityState === "hidden") resolve();
      else requestAnimationFrame(function () {
        setTimeout(resolve, 0);
      });
    });
  }

  // The site's root, where the site paths of the data block start: this script is assets/startup.js.
  var ROOT = new URL("..", document.currentScript.src);

  // The page's scripts, each run once for the whole visit: appended in order, not async, once the
  // page has been painted (and only after DOMContentLoaded, when the site's deferred scripts ran).
  // Each is kept with a promise that settles when it has loaded (or failed to), so that a page
  // swapped in while a script it names still loads for the page before waits for it too.
  var started = {};
  var loaded = document.readyState === "complete";
  var shown = 0; // which page this is of the visit: a page swapped out marks nothing
  function runPageScripts() {
    if (!loaded) return;
    var page = ++shown;
    var block = document.head.querySelector("script#course-scripts");
    var paths = block ? JSON.parse(block.textContent) : [];
    document.documentElement.removeAttribute("data-course-scripts"); // this page's have not run yet
    afterPaint().then(function () {
      var pending = paths.map(function (path) {
        var src = new URL(path, ROOT).href;
        if (!started[src]) started[src] = load(src);
        return started[src];
      });
      return Promise.all(pending);
    }).then(function () {
      if (page === shown) markRan();
    });
  }

  function load(src) {
    var script = document.createElement("script");
    script.src = src;
    script.async = false;
    var done = new Promise(function (resolve) {
      script.addEventListener("load", resolve);
      script.addEventListener("error", resolve);
    });
    document.body.appendChild(script);
    return done;
  }

  // Scripts that are not async run in the order they were added: once every script the page
  // names has loaded, each has run its set-up. The page says so on its root element
  // (data-course-scripts="ran"), for anything that must wait for the page to be complete.
  function markRan() {
    document.documentElement.setAttribute("data-course-scripts", "ran");
  }

  window.CourseStartup = { onEachPage: onEachPage, firstTime: firstTime, el: el, afterPaint: afterPaint };
  document.addEventListener("DOMContentLoaded", function () {
    loaded = true;
    runPageScripts();
  });
  onEachPage(runPageScripts);
})();
