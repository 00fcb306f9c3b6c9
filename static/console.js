// trustframe: the console's layout helpers (menu on narrow screens,
// focus). Pages work without it; see docs/decisions.md "Console layout".
(function () {
  document.documentElement.classList.add("js");

  // The header's Menu button opens and closes the navigation on a phone.
  // A boosted navigation replaces the body, so the menu starts closed again.
  document.addEventListener("click", function (ev) {
    var toggle = ev.target.closest(".tf-menu-toggle");
    if (!toggle) {
      return;
    }
    var menu = document.getElementById(toggle.getAttribute("aria-controls"));
    var open = toggle.getAttribute("aria-expanded") !== "true";
    toggle.setAttribute("aria-expanded", String(open));
    if (menu) {
      menu.classList.toggle("tf-open", open);
    }
  });
})();

// Focus (docs/decisions.md "Console layout").
(function () {
  // Where focus goes when a page arrives: to the first field with an
  // error (a failed save), or the message of a refused
  // action; else, after a navigation, to the
  // main heading so a screen reader announces the new page.
  function place(navigated) {
    // Focus someone (or autofocus) already put in the new page stays.
    var a = document.activeElement;
    if (a && a !== document.body && a.isConnected) {
      return;
    }
    // A refused action that has no field of its own (data-refusal, with
    // tabindex -1): its message may be far down the page.
    var bad = document.querySelector('main [aria-invalid="true"]') || document.querySelector("main [data-refusal]");
    if (bad) {
      bad.focus();
      // A boosted swap scrolls to the top after htmx:afterSettle: bring
      // the field or message back on screen after that.
      setTimeout(function () {
        var r = bad.getBoundingClientRect();
        if (r.top < 0 || r.bottom > window.innerHeight) {
          bad.scrollIntoView({ block: "center" });
        }
      }, 0);
      return;
    }
    if (!navigated) {
      return;
    }
    var h = document.querySelector("main h1");
    if (h) {
      h.setAttribute("tabindex", "-1");
      h.focus({ preventScroll: true });
    }
  }

  place(false);
  document.addEventListener("htmx:afterSettle", function (ev) {
    if (ev.detail && ev.detail.boosted) {
      place(true);
    }
  });
})();
