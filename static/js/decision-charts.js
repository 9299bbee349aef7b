/* Decision brief charts, after charts.js has drawn them: compact titles and fonts when a chart is narrow (phones),
   and a fixed print size on paper: every chart at the full width of an A4 or Letter page (700 px fits both), a
   readable plot height (at least 180 px; a horizontal bar chart 12 px a bar, at least 100 px), the legend beside the
   plot rather than under it (a long legend would take the plot's height).
   Print starts with beforeprint (the browser's print dialog) or the print media query (Chromium's PDF, emulation). */
(function () {
  "use strict";
  var NARROW = 560;
  var PRINT = { width: 700, height: 240, print: true };
  var PRINT_ROW = 12, PRINT_BAR_MIN_PLOT = 100, PRINT_CHROME = 85, PRINT_LOWER_BY = 40, PRINT_LOWER_MIN_PLOT = 120;
  var KEYS = ["title.text", "title.font.size", "font.size", "xaxis.title.text", "xaxis.title.font.size", "yaxis.title.text",
              "yaxis.title.font.size", "yaxis.automargin", "legend.font.size", "legend.orientation", "legend.x",
              "legend.xanchor", "legend.xref", "legend.y", "legend.yanchor", "legend.yref", "margin.t", "height"];

  function get(layout, path) {
    return path.split(".").reduce(function (value, key) { return value == null ? undefined : value[key]; }, layout);
  }
  function charts() {
    // Every chart of the brief: its own, the simulation's and the comparison's.
    return Array.prototype.slice.call(document.querySelectorAll(".brief [data-figure]"))
      .filter(function (el) { return el.layout && window.Plotly; });
  }
  function originals(el) {
    if (!el._briefOriginal) {
      el._briefOriginal = {};
      KEYS.forEach(function (key) { var v = get(el.layout, key); el._briefOriginal[key] = v === undefined ? null : v; });
    }
    return el._briefOriginal;
  }
  var wrap = window.wrapChartText;  // charts.js
  function fit(el, size) {
    var original = originals(el);
    var width = size ? size.width : el.clientWidth;
    var height = size ? size.height : el.clientHeight;
    var update = {};
    KEYS.forEach(function (key) { update[key] = original[key]; });
    if (size || width < NARROW) {
      var lines = wrap(original["title.text"], Math.max(24, Math.floor(width / 7.5)));
      update["title.text"] = lines.join("<br>");
      update["title.font.size"] = 13;
      update["font.size"] = 10;
      // Axis titles are centred on the plot area, which long category labels can make much narrower than the chart.
      var plotWidth = (el._fullLayout && el._fullLayout.xaxis && el._fullLayout.xaxis._length) || width;
      plotWidth = Math.min(plotWidth, width - 60);
      update["xaxis.title.text"] = wrap(original["xaxis.title.text"], Math.max(14, Math.floor(plotWidth / 6))).join("<br>");
      update["xaxis.title.font.size"] = 10;
      update["yaxis.title.font.size"] = 10;
      // A vertical axis title longer than the plot is tall would run into the chart title: wrap it.
      update["yaxis.title.text"] = wrap(original["yaxis.title.text"], Math.max(16, Math.floor((height - 110) / 6))).join("<br>");
      update["yaxis.automargin"] = true;
      update["legend.font.size"] = 9;
      update["legend.orientation"] = "h";  // entries side by side: more height left for the plot
      update["margin.t"] = (original["margin.t"] || 60) + 14 * (lines.length - 1);
    }
    if (size && size.print) {
      update["margin.t"] = 30 + 14 * (lines.length - 1);  // one title line, 12 pt: the plot keeps the height
      update["title.font.size"] = 12;
      // Beside the plot, top-aligned: the legend takes width, which paper has, not the plot's height.
      update["legend.orientation"] = "v";
      update["legend.xref"] = "paper"; update["legend.x"] = 1.02; update["legend.xanchor"] = "left";
      update["legend.yref"] = "paper"; update["legend.y"] = 1; update["legend.yanchor"] = "top";
    }
    if (size) {
      update.width = size.width;
      update.height = size.print ? printHeight(el, size.height) : size.height;
    }
    else { update.width = null; update.autosize = true; }  // the height is the figure's own again (KEYS)
    var minPlot;
    if (size && size.print) minPlot = horizontalRows(el) ? barPlot(el) : el.closest(".brief-chart") ? undefined : PRINT_LOWER_MIN_PLOT;
    window.Plotly.relayout(el, update).then(function () { window.fitChartRoom(el, minPlot); });
  }
  function horizontalRows(el) {  // the rows of a horizontal bar chart (bars per option, tornado inputs), else 0
    var source = document.getElementById(el.dataset.figure);
    var data = source ? JSON.parse(source.textContent).data || [] : [];
    var rows = {};
    data.forEach(function (trace) {
      if (trace.type === "bar" && trace.orientation === "h") (trace.y || []).forEach(function (y) { rows[y] = true; });
    });
    return Object.keys(rows).length;
  }
  function barPlot(el) {  // a horizontal bar chart's plot on paper: 12 px a row, at least 100 px (five bars read well)
    return Math.max(PRINT_BAR_MIN_PLOT, PRINT_ROW * horizontalRows(el));
  }
  function printHeight(el, standard) {
    // On paper a chart is as low as reads well, so that three pages hold the brief: a horizontal bar chart as high as
    // its rows need; the simulation's and the comparison's charts lower than the brief's own (plot at least 120 px,
    // not 180; charts.js fitChartRoom grows one whose plot or legend would be squashed).
    if (horizontalRows(el)) return PRINT_CHROME + barPlot(el);
    return standard - (el.closest(".brief-chart") ? 0 : PRINT_LOWER_BY);
  }
  var printing = false;
  function fitAll(size) {
    printing = !!size;
    charts().forEach(function (el) { fit(el, size); });
  }

  var timer = null;
  function onResize() {
    clearTimeout(timer);
    timer = setTimeout(function () { if (!printing) fitAll(null); }, 150);
  }
  function start() {
    fitAll(null);
    window.addEventListener("resize", onResize);
    window.addEventListener("beforeprint", function () { fitAll(PRINT); });
    window.addEventListener("afterprint", function () { fitAll(null); });
    var print = window.matchMedia && window.matchMedia("print");
    if (print && print.addEventListener) {
      print.addEventListener("change", function (event) { fitAll(event.matches ? PRINT : null); });
    }
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
