/* The scenario workspace: every edit answers with the whole workspace (tco/web/responses.py), which htmx merges
   into the page with idiomorph (vendored: static/vendor/idiomorph-*.min.js) through the "morph" swap defined here.
   Only what changed is touched, so focus, caret and scroll survive. The rules that make one answer per edit safe:

   - an input the user has typed in and not sent yet keeps its text (and the focused input always keeps it);
   - a region the server refused ([data-refused]: an input, or the forecast) keeps what was typed, its message and
     its "not saved" mark until it is sent again or restored: Esc restores the stored value; leaving it unchanged
     (or Enter) sends it again, since the same text may be valid now that other inputs changed;
   - a focused element that is not a control (a range's summary, a button) still gets its new words;
   - a chart whose figure did not change keeps its drawing (charts.js redraws only what changed);
   - what only the browser holds stays: a disclosure the user opened stays open (a folded group of the editor, a
     checklist), and [data-keep] content (the price picker's search results, a new decision link shown once) is
     neither replaced nor removed; a disclosure the answer sends open (a folded group holding an input in error or
     still to fill in) opens, though the user had closed it: such an input is never hidden;
   - a "±" range disclosure comes with its summary only ([data-lazy] inputs): its inputs are fetched when it is
     opened, and an open one keeps its inputs through a morph, then fetches them again (morphed in, so what was
     typed in them stays);
   - a workspace older than the one shown (a slow poll answered after an edit) is never merged in.

   No eval anywhere: htmx runs with allowEval off (base.html), and this extension replaces the package's htmx
   extension, whose "morph:{...}" option is read with Function(). */
(function () {
  "use strict";
  var CONTROLS = "input, select, textarea";

  // --- what the user typed and has not sent -------------------------------------------------------------------
  document.addEventListener("input", function (event) {
    if (event.target.matches && event.target.matches(CONTROLS)) event.target._typed = true;
  }, true);

  function addControls(node, out) {
    if (!node || !node.querySelectorAll) return;
    if (node.matches(CONTROLS)) out.push(node);
    node.querySelectorAll(CONTROLS).forEach(function (control) { out.push(control); });
  }

  /* The controls whose values a request from `elt` carries: itself (a control, or a form and its controls), its form
     (htmx adds the closest form's values to a POST) and what hx-include names. Not the controls an element such as
     a range disclosure merely contains: its GET sends none of them. */
  function sentControls(elt) {
    var out = [];
    if (elt.matches && elt.matches(CONTROLS + ", form")) addControls(elt, out);
    var form = elt.closest && elt.closest("form");
    if (form && form !== elt) addControls(form, out);
    var including = elt.closest && elt.closest("[hx-include]");
    if (including) {
      including.getAttribute("hx-include").split(",").forEach(function (selector) {
        try { document.querySelectorAll(selector.trim()).forEach(function (node) { addControls(node, out); }); }
        catch (error) { /* not a plain selector: nothing of ours */ }
      });
    }
    return out;
  }

  document.addEventListener("htmx:configRequest", function (event) {
    sentControls(event.detail.elt).forEach(function (control) {
      control._typed = false;
      var refused = control.closest("[data-refused]");
      if (refused) refused.removeAttribute("data-refused"); // its answer decides: refused again, or saved
    });
  });

  // --- the morph swap ------------------------------------------------------------------------------------------
  function keepsValue(element) {
    if (element._typed) return true;
    var select = element instanceof HTMLOptionElement ? element.closest("select") : null;
    return !!(select && select._typed);
  }

  // --- the "±" range disclosures: inputs fetched on opening ----------------------------------------------------
  function loadRange(details) { htmx.trigger(details, "range-open"); } // its hx-get (tco:input_range_editor)

  document.addEventListener("toggle", function (event) { // toggle does not bubble: listened to while capturing
    var details = event.target;
    if (!(details instanceof HTMLDetailsElement) || !details.open) return;
    if (details.querySelector(":scope > .range-inputs[data-lazy]")) loadRange(details);
  }, true);

  var rangesToReload = [];

  function keepsRangeInputs(oldNode, newNode) {
    if (!oldNode.matches(".range-inputs") || oldNode.hasAttribute("data-lazy") || !newNode.hasAttribute("data-lazy")) {
      return false;
    }
    var details = oldNode.parentElement;
    if (!details || !details.open) return false; // closed: back to its summary, fetched again when opened
    rangesToReload.push(details);
    return true;
  }

  var CALLBACKS = {
    beforeNodeRemoved: function (node) {
      return !(node instanceof Element && node.hasAttribute("data-keep"));
    },
    beforeNodeMorphed: function (oldNode, newNode) {
      if (!(oldNode instanceof Element) || !(newNode instanceof Element)) return true;
      if (oldNode.hasAttribute("data-keep")) return false;
      if (keepsRangeInputs(oldNode, newNode)) return false;
      if (oldNode.hasAttribute("data-refused") && !newNode.hasAttribute("data-refused")) {
        var stored = newNode.querySelector(CONTROLS);
        if (stored && oldNode.hasAttribute("data-stored")) oldNode.setAttribute("data-stored", stored.value);
        return false; // still refused: keep the typed text, the message and the mark
      }
      if (oldNode.hasAttribute("data-figure")) { // keep the drawing; charts.js redraws it if its figure changed
        ["data-figure", "data-figure-src", "aria-label"].forEach(function (name) {
          var value = newNode.getAttribute(name);
          if (value === null) oldNode.removeAttribute(name);
          else if (value !== oldNode.getAttribute(name)) oldNode.setAttribute(name, value);
        });
        return false;
      }
      // ignoreActiveValue leaves the focused element's children as they were: right for a textarea being typed in,
      // wrong for a focused summary or button, whose words would stay the old version's (a "±" range summary).
      if (oldNode === document.activeElement && !oldNode.matches(CONTROLS) && oldNode.innerHTML !== newNode.innerHTML) {
        oldNode.innerHTML = newNode.innerHTML;
      }
      return true;
    },
    beforeAttributeUpdated: function (name, element, updateType) {
      if ((name === "value" || name === "checked" || name === "selected") && keepsValue(element)) return false;
      if (name === "open" && updateType === "remove" && element instanceof HTMLDetailsElement) return false;
      return true;
    },
  };

  htmx.defineExtension("morph", {
    isInlineSwap: function (swapStyle) { return swapStyle === "morph"; },
    handleSwap: function (swapStyle, target, fragment) {
      if (swapStyle !== "morph") return false;
      var morphed = Idiomorph.morph(target, fragment.children, {
        morphStyle: "outerHTML",
        ignoreActiveValue: true,
        callbacks: CALLBACKS,
      });
      var reload = rangesToReload.splice(0);
      if (reload.length) window.setTimeout(function () { reload.forEach(loadRange); }, 0);
      return morphed;
    },
  });

  // A workspace older than the one shown is not merged in (its version is in a response header).
  document.addEventListener("htmx:beforeSwap", function (event) {
    var xhr = event.detail.xhr;
    var shown = document.getElementById("workspace");
    var version = xhr && xhr.getResponseHeader("X-Scenario-Version");
    if (shown && version && Number(version) < Number(shown.getAttribute("data-version"))) {
      event.detail.shouldSwap = false;
    }
  });

  // --- a refused input: Esc restores the stored value; leaving it unchanged (or Enter) sends it again ---------
  function resendTarget(control) {
    var region = control.closest("[data-refused]");
    return region ? control.closest('[hx-trigger*="resend"]') : null;
  }

  document.addEventListener("focusin", function (event) { event.target._changed = false; });
  document.addEventListener("change", function (event) { event.target._changed = true; }, true);
  document.addEventListener("focusout", function (event) {
    var control = event.target;
    if (!control.matches || !control.matches(CONTROLS) || control._changed) return;
    var target = resendTarget(control);
    if (target) htmx.trigger(target, "resend");
  });

  function restore(control) {
    var region = control.closest("[data-refused]");
    if (region && region.matches(".field")) {
      control.value = region.getAttribute("data-stored") || "";
      region.removeAttribute("data-refused");
      region.classList.remove("refused", "invalid");
      control.removeAttribute("aria-invalid");
      var error = region.querySelector(".field-error");
      if (error) error.textContent = "";
      var mark = region.querySelector(".not-saved");
      if (mark) mark.remove();
    } else if (region) { // the forecast: the workspace as stored comes back from the server
      region.removeAttribute("data-refused");
      region.querySelectorAll(CONTROLS).forEach(function (other) { other._typed = false; });
      control.blur();
      var workspace = document.getElementById("workspace");
      htmx.ajax("GET", workspace.getAttribute("data-refresh-url"), { source: workspace });
    } else if ("defaultValue" in control) {
      control.value = control.defaultValue; // typed, not sent: back to what the page last showed
    }
    control._typed = false;
  }

  document.addEventListener("keydown", function (event) {
    var control = event.target;
    if (!control.matches || !control.matches("input, textarea")) return;
    if (event.key === "Escape" && (control._typed || control.closest("[data-refused]"))) {
      event.preventDefault();
      restore(control);
    } else if (event.key === "Enter" && control.matches("input")) {
      control._changed = false;
      window.setTimeout(function () { // after the browser's own change event, if it sends one
        if (control._changed) return;
        var target = resendTarget(control);
        if (target) { control._changed = true; htmx.trigger(target, "resend"); }
      }, 0);
    }
  });

  // --- an edit whose answer was lost ----------------------------------------------------------------------------
  /* An edit's answer can be lost after the server saved it: its web worker died, or the connection dropped. The page
     then asks the server for the workspace it holds (every two seconds until it answers), keeping what was typed
     meanwhile. A newer version means the edit was saved: the page shows it, with its answer, and the edit's problem
     message goes. The same version means it was not: what was typed stays, and the message says so. */
  var lostEdit = null; // {version shown when it was sent, controls it sent, the problem message, tries}
  var askTimer = null;
  var ASK_EVERY_MS = 2000;
  var ASK_AT_MOST = 60;

  function shownVersion() {
    var workspace = document.getElementById("workspace");
    return workspace ? Number(workspace.getAttribute("data-version")) : 0;
  }

  function askWhatIsSaved() {
    var workspace = document.getElementById("workspace");
    if (!workspace || !lostEdit) return;
    lostEdit.tries += 1;
    htmx.ajax("GET", workspace.getAttribute("data-refresh-url"), { source: workspace });
  }

  function answerLost(event) {
    var elt = event.detail.elt;
    var verb = event.detail.requestConfig && String(event.detail.requestConfig.verb).toLowerCase();
    if (verb !== "post" || !elt.closest || !elt.closest("#workspace")) return;
    var status = event.detail.xhr ? event.detail.xhr.status : 0;
    if (status && status < 500) return; // refused: the server answered, and saved nothing
    // What the user typed is kept through whatever comes back; the version the form carries is the server's.
    var controls = sentControls(elt).filter(function (control) { return control.type !== "hidden"; });
    controls.forEach(function (control) { control._typed = true; });
    var box = document.getElementById("request-problem");
    lostEdit = {
      version: lostEdit ? lostEdit.version : shownVersion(),
      controls: (lostEdit ? lostEdit.controls : []).concat(controls),
      problem: box ? box.textContent : "",
      tries: 0,
    };
    window.clearTimeout(askTimer);
    askTimer = window.setTimeout(askWhatIsSaved, ASK_EVERY_MS / 2);
  }

  document.addEventListener("htmx:sendError", answerLost);
  document.addEventListener("htmx:responseError", answerLost);
  document.addEventListener("htmx:afterRequest", function (event) {
    var workspace = document.getElementById("workspace");
    if (!lostEdit || event.detail.elt !== workspace) return;
    var version = event.detail.successful && Number(event.detail.xhr.getResponseHeader("X-Scenario-Version"));
    if (!version) { // no answer yet: ask again, the edit's message kept
      document.dispatchEvent(new CustomEvent("request-problem", { detail: lostEdit.problem }));
      if (lostEdit.tries < ASK_AT_MOST) askTimer = window.setTimeout(askWhatIsSaved, ASK_EVERY_MS);
      return;
    }
    var saved = version > lostEdit.version;
    if (saved) lostEdit.controls.forEach(function (control) { control._typed = false; });
    document.dispatchEvent(new CustomEvent("request-problem", { detail: saved ? "" : lostEdit.problem }));
    lostEdit = null;
  });

  // --- a simulation computed by the Run request itself -----------------------------------------------------------
  /* Without a worker (the embedded mode) the Run request computes the simulation, so its answer comes only when the
     run is done. Meanwhile the run writes its progress on its row, as it does on a worker: the panel is read each
     second and its progress shown in the request's indicator, as the polling panel shows it with a worker. */
  var progressTimer = null;

  function showProgress(form, text) {
    var shown = new DOMParser().parseFromString(text, "text/html").querySelector("#u-progress");
    var indicator = form.querySelector(".u-running");
    if (!shown || !indicator || !form.isConnected) return; // not started yet, or already answered
    indicator.querySelector("[data-progress-label]").textContent = shown.querySelector("label").textContent;
    var bar = indicator.querySelector("progress");
    bar.max = 100;
    bar.value = Number(shown.querySelector("progress").getAttribute("value")) || 0;
    var cancel = shown.querySelector("#u-cancel"); // the run stops after its current batch, as on a worker
    if (cancel && !indicator.querySelector("#u-cancel")) {
      indicator.appendChild(document.importNode(cancel, true));
      htmx.process(indicator.lastElementChild);
    }
  }

  function stopProgress() { window.clearInterval(progressTimer); progressTimer = null; }

  document.addEventListener("htmx:beforeRequest", function (event) {
    var form = event.detail.elt;
    if (!form.matches || !form.matches("form[data-progress-url]")) return;
    stopProgress();
    progressTimer = window.setInterval(function () {
      fetch(form.getAttribute("data-progress-url"), {headers: {"HX-Request": "true"}, credentials: "same-origin"})
        .then(function (response) { return response.text(); })
        .then(function (text) { if (progressTimer) showProgress(form, text); })
        .catch(function () { /* the next second asks again; the Run request's answer ends it */ });
    }, 1000);
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    if (event.detail.elt.matches && event.detail.elt.matches("form[data-progress-url]")) stopProgress();
  });
})();
