// trustframe: small progressive enhancements. Pages work without it.
document.addEventListener("click", function (ev) {
  var btn = ev.target.closest("[data-confirm]");
  if (btn && !window.confirm(btn.getAttribute("data-confirm"))) {
    ev.preventDefault();
    ev.stopPropagation();
  }
  var copy = ev.target.closest("[data-copy-target]");
  if (copy) {
    var el = document.getElementById(copy.getAttribute("data-copy-target"));
    if (el && navigator.clipboard) {
      navigator.clipboard.writeText(el.textContent.trim());
      copy.textContent = "Copied";
    }
  }
}, true);

// "/" puts the cursor in the header's search, unless one is typing already.
document.addEventListener("keydown", function (ev) {
  if (ev.key !== "/" || ev.ctrlKey || ev.metaKey || ev.altKey) {
    return;
  }
  var t = ev.target;
  if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) {
    return;
  }
  var q = document.querySelector("[data-testid=quick-search] input[name=q]");
  if (q) {
    ev.preventDefault();
    q.focus();
  }
});

// Refusals the page cannot show (issue 13): a server error (5xx, not
// swapped) or a request that never reached the server. The form stays as
// typed; the flash says what happened.
function tfFlash(kind, msg) {
  var f = document.getElementById("flash");
  if (!f) {
    return;
  }
  f.className = "tf-flash tf-flash-" + kind;
  f.textContent = msg;
}
document.addEventListener("htmx:responseError", function (ev) {
  var st = ev.detail.xhr ? ev.detail.xhr.status : 0;
  if (st >= 500) {
    tfFlash("error", "The server failed (" + st + "); your change may not have been saved. Reload the page to check, then try again.");
  }
});
document.addEventListener("htmx:sendError", function () {
  tfFlash("error", "The request could not reach the server (network problem); nothing was saved. Check your connection and try again.");
});

// A field error is about what was sent: once the field changes, it goes.
function tfClearFieldError(ev) {
  var el = ev.target;
  if (!el || !el.getAttribute || el.getAttribute("aria-invalid") !== "true") {
    return;
  }
  el.removeAttribute("aria-invalid");
  var msg = document.getElementById("e-" + el.name) || el.nextElementSibling;
  if (msg && msg.classList.contains("tf-field-error")) {
    msg.remove();
  }
}
document.addEventListener("input", tfClearFieldError);
document.addEventListener("change", tfClearFieldError);

// A flash is said once: a part of the page replaced afterwards (a table
// sorted) or the page kept in htmx's history does not repeat it.
function tfClearFlash() {
  var f = document.getElementById("flash");
  if (f) {
    f.textContent = "";
    f.className = "tf-flash";
  }
}
document.addEventListener("htmx:beforeHistorySave", tfClearFlash);
document.addEventListener("htmx:afterSwap", function (ev) {
  if (ev.detail.target && ev.detail.target !== document.body) {
    tfClearFlash();
  }
});
