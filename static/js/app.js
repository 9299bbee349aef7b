/* Behaviour every page shares, bound by data attributes (the Content-Security-Policy forbids inline handlers).
   Delegated from the document, so it also works inside whatever htmx swaps in.
   [data-select-on-focus]: select the whole value on focus (the one-time decision link URL, ready to copy). */
(function () {
  "use strict";
  document.addEventListener("focusin", function (event) {
    var target = event.target;
    if (target && target.matches && target.matches("[data-select-on-focus]")) target.select();
  });
})();
