/* Behaviour every page shares, bound by data attributes (the Content-Security-Policy forbids inline handlers).
   Delegated from the document, so it also works inside whatever htmx swaps in.
   [data-select-on-focus]: select the whole value on focus (the one-time decision link URL, ready to copy).
   An htmx request the server refuses or fails (htmx swaps no error answer) or that cannot reach the server says so
   at the top of the page, #request-problem, until a later request succeeds: without it a refused or failed edit
   would look saved. Other scripts say what they learn later in the same place with a "request-problem" event
   (detail: the text; "" removes it).
   details[data-print-open]: a closed disclosure whose content belongs on paper (the editor's tax and financing
   inputs) is opened to print and closed again afterwards (CSS cannot open a disclosure, and app.css hides a closed
   one on paper). Printing fires beforeprint and afterprint; the print media query's change also covers emulated
   print media, which fires neither. */
(function () {
  "use strict";
  document.addEventListener("focusin", function (event) {
    var target = event.target;
    if (target && target.matches && target.matches("[data-select-on-focus]")) target.select();
  });

  var MAX_TEXT = 300; // characters of a plain-text refusal shown as it is

  function problemText(xhr, verb) {
    var outcome = verb === "get" ? "this part of the page was not updated" : "your change was not saved";
    var status = xhr ? xhr.status : 0;
    var type = (xhr && xhr.getResponseHeader("Content-Type")) || "";
    if (!status) return "The server could not be reached: " + outcome + ". Check your connection and try again.";
    if (type.indexOf("text/plain") === 0 && xhr.responseText) {
      return xhr.responseText.trim().slice(0, MAX_TEXT) + " (" + status + "): " + outcome + ".";
    }
    if (status === 503 && verb !== "get" && xhr.getResponseHeader("X-Scenario-Version")) {
      // saved before a later statement ran out of time (lib/statement_timeout.py): do not send it again
      return "Your change was saved (version " + xhr.getResponseHeader("X-Scenario-Version") +
        "), but the page took too long to show it (503). It is shown as soon as the server answers; do not enter it again.";
    }
    if (status === 503 || status === 504) {
      return "The server took too long or is busy (" + status + "): " + outcome + ". Try again in a moment.";
    }
    if (status >= 500) {
      return "Something went wrong on our side (" + status + "): " + outcome +
        ". The error has been logged; try again, or reload the page.";
    }
    if (status === 403) return "You may not do this here (403): " + outcome + ".";
    return "The server refused this request (" + status + "): " + outcome + ". Reload the page and try again.";
  }

  function say(text) {
    var box = document.getElementById("request-problem");
    if (!box) {
      box = document.createElement("p");
      box.id = "request-problem";
      box.className = "message error";
      box.setAttribute("role", "alert");
      var main = document.querySelector("main") || document.body;
      main.insertBefore(box, main.firstChild);
    }
    box.textContent = text;
  }

  function verbOf(event) {
    var config = event.detail && event.detail.requestConfig;
    return config && config.verb ? String(config.verb).toLowerCase() : "post";
  }

  document.addEventListener("htmx:responseError", function (event) { say(problemText(event.detail.xhr, verbOf(event))); });
  document.addEventListener("htmx:sendError", function (event) { say(problemText(null, verbOf(event))); });
  document.addEventListener("request-problem", function (event) {
    var box = document.getElementById("request-problem");
    if (event.detail) say(event.detail);
    else if (box) box.remove();
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    var box = document.getElementById("request-problem");
    if (box && event.detail.successful) box.remove();
  });

  var openedToPrint = [];
  function openToPrint() {
    document.querySelectorAll("details[data-print-open]:not([open])").forEach(function (details) {
      details.open = true;
      openedToPrint.push(details);
    });
  }
  function closeAfterPrint() {
    openedToPrint.splice(0).forEach(function (details) { details.open = false; });
  }
  window.addEventListener("beforeprint", openToPrint);
  window.addEventListener("afterprint", closeAfterPrint);
  var printMedia = window.matchMedia ? window.matchMedia("print") : null;
  if (printMedia && printMedia.addEventListener) {
    printMedia.addEventListener("change", function (event) { (event.matches ? openToPrint : closeAfterPrint)(); });
  }
})();
