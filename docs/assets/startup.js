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

  window.CourseStartup = { onEachPage: onEachPage, firstTime: firstTime, el: el };
})();
