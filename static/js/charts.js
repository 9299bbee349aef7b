/* Draw every [data-figure] element from the JSON of the <script> it names (Django's json_script).
   Runs on page load and again inside whatever htmx swaps in. Needs the vendored plotly.js first.
   On a narrow screen (a phone) a chart gets a wrapped title, smaller type and a taller plot, so the legend under
   it does not squash the plot; the decision brief does the same in decision-charts.js (and for print).
   After drawing, a chart whose legend would have to scroll (many options) or whose plot would be squashed grows
   taller instead (fitChartRoom), on every page and in print; printing draws every chart page-wide (fitPrint).
   Plotly's mode bar (its toolbar) sits at a chart's top right, where a long or wrapped title reaches on a narrow
   chart: such a chart draws the bar in a strip above the plot instead (clearTitle, app.css .chart-bar-above). */
(function () {
  "use strict";
  var NARROW = 560;
  var NARROW_MIN_HEIGHT = 440;
  var MIN_PLOT_HEIGHT = 180;

  function clearTitle(element) {
    var title = element.querySelector(".gtitle"), bar = element.querySelector(".modebar");
    var svg = element.querySelector(".main-svg");
    if (!title || !bar || !svg) return;
    var t = title.getBoundingClientRect(), b = bar.getBoundingClientRect(), s = svg.getBoundingClientRect();
    // Decided from where the bar would be over the plot, so the answer holds once the bar has moved up.
    var side = t.width > 0 && Math.min(t.right, b.right) > Math.max(t.left, b.left);
    element.classList.toggle("chart-bar-above", side && t.top < s.top + b.height + 2);
  }

  function fitChartRoom(element, minPlotHeight) {
    clearTitle(element);
    var layout = element._fullLayout;
    if (!layout || !layout._size || !window.Plotly || element.classList.contains("chart-small")) return null;
    var legend = layout.legend || {};
    var clipped = legend._height && legend._effHeight ? Math.max(0, legend._height - legend._effHeight) : 0;
    var squashed = Math.max(0, (minPlotHeight || MIN_PLOT_HEIGHT) - layout._size.h);
    if (clipped + squashed < 1) return null;
    return window.Plotly.relayout(element, { height: Math.ceil(layout.height + clipped + squashed + 8) });
  }

  function wrap(text, limit) {
    var lines = [], line = "";
    String(text || "").replace(/<br>/g, " ").split(" ").forEach(function (word) {
      if (line && (line + " " + word).length > limit) { lines.push(line); line = word; }
      else { line = line ? line + " " + word : word; }
    });
    if (line) lines.push(line);
    return lines;
  }
  function narrowLayout(layout, width) {
    var out = JSON.parse(JSON.stringify(layout));
    var title = out.title || {};
    var lines = wrap(title.text, Math.max(24, Math.floor(width / 8)));
    out.title = Object.assign({}, title, { text: lines.join("<br>"), font: Object.assign({}, title.font, { size: 13 }) });
    out.font = Object.assign({}, out.font, { size: 11 });
    out.margin = Object.assign({}, out.margin, { t: ((out.margin && out.margin.t) || 40) + 16 * (lines.length - 1) });
    if (out.legend) out.legend = Object.assign({}, out.legend, { font: { size: 10 } });
    out.height = Math.max(out.height || 0, NARROW_MIN_HEIGHT);
    return out;
  }
  // A run's figures come from one immutable URL per run (data-figure-src="URL#key"), fetched once per page.
  var fetched = {};
  function fetchFigure(src) {
    var parts = src.split("#");
    if (!fetched[parts[0]]) {
      fetched[parts[0]] = fetch(parts[0], { credentials: "same-origin" }).then(function (response) {
        if (!response.ok) throw new Error(response.status + " " + parts[0]);
        return response.json();
      });
    }
    return fetched[parts[0]].then(function (figures) { return figures[parts[1]]; });
  }
  function drawOne(element) {
    if (!window.Plotly) return;
    var src = element.dataset.figureSrc;
    var source = src ? null : document.getElementById(element.dataset.figure);
    if (!src && !source) return;
    var drawnFrom = src || source.textContent;
    // A morphed page keeps a chart's element and drawing (static/js/workspace.js): redraw it only when its figure changed.
    if (element._drawnFrom === drawnFrom) return;
    element._drawnFrom = drawnFrom;
    if (src) {
      fetchFigure(src).then(function (figure) {
        if (figure && element._drawnFrom === drawnFrom) drawFigure(element, figure);
      });
    } else {
      drawFigure(element, JSON.parse(source.textContent));
    }
  }
  function drawFigure(element, figure) {
    var layout = figure.layout || {};
    var compact = element.classList.contains("chart-small") || element.closest(".brief");  // decision-charts.js
    if (!compact && element.clientWidth && element.clientWidth < NARROW) layout = narrowLayout(layout, element.clientWidth);
    // No "Share chart" button: it would post the figure, numbers and all, to Plotly's cloud.
    var config = Object.assign({ responsive: true, displaylogo: false }, figure.config || {}, { showSendToCloud: false });
    window.Plotly.react(element, figure.data || [], layout, config).then(function () { fitChartRoom(element); });
  }
  function drawFigures(root) {
    root = root || document;
    if (root.matches && root.matches("[data-figure]")) drawOne(root);
    if (root.querySelectorAll) root.querySelectorAll("[data-figure]").forEach(drawOne);
  }
  // On paper every chart is as wide as an A4 or Letter page holds: the browser lays the page out again for the paper
  // but does not resize charts drawn for the screen (the decision brief does its own, decision-charts.js).
  var PRINT_WIDTH = 680;
  function fitPrint(printing) {
    document.querySelectorAll("[data-figure]").forEach(function (element) {
      if (!element.layout || !window.Plotly || element.closest(".brief")) return;
      window.Plotly.relayout(element, printing ? { width: PRINT_WIDTH } : { width: null, autosize: true });
    });
  }
  window.addEventListener("beforeprint", function () { fitPrint(true); });
  window.addEventListener("afterprint", function () { fitPrint(false); });
  var printMedia = window.matchMedia && window.matchMedia("print");
  if (printMedia && printMedia.addEventListener) {
    printMedia.addEventListener("change", function (event) { fitPrint(event.matches); });
  }
  window.drawFigures = drawFigures;
  window.wrapChartText = wrap;
  window.fitChartRoom = fitChartRoom;
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { drawFigures(document); });
  } else {
    drawFigures(document);
  }
  document.addEventListener("htmx:afterSettle", function (event) { drawFigures(event.target); });
})();
