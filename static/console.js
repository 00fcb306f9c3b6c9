// trustframe: the console's layout helpers (menu on narrow screens, dialogs,
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

// Dialogs and focus (docs/decisions.md "Console layout").
(function () {
  var focusable = 'a[href], button:not([disabled]), input:not([type=hidden]):not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

  function firstField(root) {
    return root.querySelector('[aria-invalid="true"]') || root.querySelector('input:not([type=hidden]):not([disabled]), select, textarea');
  }

  // A dialog marked data-modal is shown as a modal: the page behind is
  // inert, focus moves in (to the first field with an error, else the
  // first field).
  function openModals() {
    var shown = false;
    document.querySelectorAll("dialog[data-modal]").forEach(function (d) {
      if (d.hasAttribute("data-shown")) {
        return;
      }
      d.setAttribute("data-shown", "");
      if (d.open) {
        // Open for pages without JavaScript: close it to show it again as
        // a modal (the close event, if it comes, finds it open: ignored).
        d.close();
      }
      d.showModal();
      var f = firstField(d) || d.querySelector(focusable);
      if (f) {
        f.focus();
      }
      shown = true;
    });
    return shown;
  }

  // Closing (Esc, Cancel) shows the list the dialog came from and puts
  // focus back on the link that opened it. Done here rather than on the
  // close event: Chromium does not fire it again for a dialog closed and
  // reopened as a modal in one task.
  function finish(d) {
    if (!d.isConnected) {
      return;
    }
    if (d.open) {
      d.close();
    }
    var back = d.getAttribute("data-return");
    if (back && location.pathname !== back) {
      history.replaceState(history.state, "", back);
    }
    var opener = document.getElementById(d.getAttribute("data-opener") || "");
    d.remove();
    if (opener) {
      opener.focus();
    }
  }

  document.addEventListener("cancel", function (ev) {
    var d = ev.target;
    if (d.matches && d.matches("dialog[data-modal]")) {
      ev.preventDefault();
      finish(d);
    }
  }, true);

  document.addEventListener("close", function (ev) {
    var d = ev.target;
    if (d.matches && d.matches("dialog[data-modal]") && !d.open) {
      finish(d);
    }
  }, true);

  document.addEventListener("click", function (ev) {
    var c = ev.target.closest("[data-close-dialog]");
    var d = c && c.closest("dialog[data-modal]");
    if (d && d.open) {
      ev.preventDefault();
      ev.stopPropagation();
      finish(d);
    }
  }, true);

  // Where focus goes when a page arrives: into a modal; else to the first
  // field with an error (a failed save), or the message of a refused
  // action; else, after a navigation, to the
  // main heading so a screen reader announces the new page.
  function place(navigated) {
    if (openModals()) {
      return;
    }
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
