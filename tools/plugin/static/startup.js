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
 * Scripts that only some pages use (a course's forms, grading in lessons) are not among the site's
 * scripts: a page names the ones it uses in its head, as <link rel="preload" as="script">
 * (tools/plugin/assets.py), and this script runs each of them, once, in their order, when a page
 * that names it has loaded or has been swapped in. A preload link only fetches; instant
 * navigation carries the head's links to the new page, where a script tag would not run.
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

  // The page's own scripts, each run once for the whole visit: appended in order, not async,
  // and only after DOMContentLoaded, when the site's scripts (deferred) have all run.
  var started = {};
  var loaded = document.readyState === "complete";
  function runPageScripts() {
    if (!loaded) return;
    var links = document.head.querySelectorAll('link[rel="preload"][as="script"]');
    Array.prototype.forEach.call(links, function (link) {
      if (started[link.href]) return;
      started[link.href] = true;
      var script = document.createElement("script");
      script.src = link.href;
      script.async = false;
      document.body.appendChild(script);
    });
  }

  window.CourseStartup = { onEachPage: onEachPage, firstTime: firstTime, el: el, afterPaint: afterPaint };
  document.addEventListener("DOMContentLoaded", function () {
    loaded = true;
    runPageScripts();
  });
  onEachPage(runPageScripts);
})();
