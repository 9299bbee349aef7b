/* Decision brief charts, after charts.js has drawn them: compact titles and fonts when a chart is narrow (phones),
   and a fixed print size so two charts sit side by side on paper (beforeprint / afterprint). */
(function () {
  "use strict";
  var NARROW = 560;
  var PRINT = { width: 340, height: 265 };
  var PRINT_WIDE = { width: 700, height: 250 };  // the break-even map spans both print columns
  var KEYS = ["title.text", "title.font.size", "font.size", "xaxis.title.text", "xaxis.title.font.size", "yaxis.title.text",
              "yaxis.title.font.size", "yaxis.automargin", "legend.font.size", "legend.orientation", "margin.t"];

  function get(layout, path) {
    return path.split(".").reduce(function (value, key) { return value == null ? undefined : value[key]; }, layout);
  }
  function charts() {
    return Array.prototype.slice.call(document.querySelectorAll(".brief-chart [data-figure]"))
      .filter(function (el) { return el.layout && window.Plotly; });
  }
  function originals(el) {
    if (!el._briefOriginal) {
      el._briefOriginal = {};
      KEYS.forEach(function (key) { var v = get(el.layout, key); el._briefOriginal[key] = v === undefined ? null : v; });
    }
    return el._briefOriginal;
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
    if (size) { update.width = size.width; update.height = size.height; }
    else { update.width = null; update.height = null; update.autosize = true; }
    window.Plotly.relayout(el, update);
  }
  function fitAll(size) {
    charts().forEach(function (el) {
      var wide = size && el.closest(".chart-break_even_map");
      fit(el, wide ? PRINT_WIDE : size);
    });
  }

  var timer = null;
  function onResize() { clearTimeout(timer); timer = setTimeout(function () { fitAll(null); }, 150); }
  function start() {
    fitAll(null);
    window.addEventListener("resize", onResize);
    window.addEventListener("beforeprint", function () { fitAll(PRINT); });
    window.addEventListener("afterprint", function () { fitAll(null); });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
