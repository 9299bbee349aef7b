/* Draw every [data-figure] element from the JSON of the <script> it names (Django's json_script).
   Runs on page load and again inside whatever htmx swaps in. Needs the vendored plotly.js first. */
(function () {
  "use strict";
  function drawOne(element) {
    var source = document.getElementById(element.dataset.figure);
    if (!source || !window.Plotly) return;
    var figure = JSON.parse(source.textContent);
    var config = Object.assign({ responsive: true, displaylogo: false }, figure.config || {});
    window.Plotly.react(element, figure.data || [], figure.layout || {}, config);
  }
  function drawFigures(root) {
    root = root || document;
    if (root.matches && root.matches("[data-figure]")) drawOne(root);
    if (root.querySelectorAll) root.querySelectorAll("[data-figure]").forEach(drawOne);
  }
  window.drawFigures = drawFigures;
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { drawFigures(document); });
  } else {
    drawFigures(document);
  }
  document.addEventListener("htmx:afterSettle", function (event) { drawFigures(event.target); });
})();
