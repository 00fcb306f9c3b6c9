// trustframe: small progressive enhancements. Pages work without it.
document.addEventListener("click", function (ev) {
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

// No double submits (issue 13). Every form that posts carries a key made
// when it is shown; the server answers a second post with the same key
// with the first answer and changes nothing. The button that sent a form
// is disabled until the answer comes (htmx's hx-disabled-elt).
function tfKey() {
  var b = new Uint8Array(16);
  window.crypto.getRandomValues(b);
  return Array.prototype.map.call(b, function (x) { return ("0" + x.toString(16)).slice(-2); }).join("");
}
function tfKeyForms(root) {
  var forms = (root || document).querySelectorAll("form[method=post]");
  Array.prototype.forEach.call(forms, function (f) {
    // htmx disables the button while the request runs (and enables it
    // again, also when requests overlap or the answer fails).
    if (!f.hasAttribute("hx-disabled-elt") && f.querySelector("button:not([type=button]), input[type=submit]")) {
      f.setAttribute("hx-disabled-elt", "find button:not([type=button]), find input[type=submit]");
      // Not for a link inside the form (Cancel): from there the selector
      // finds nothing, and htmx says so in the console.
      if (!f.hasAttribute("hx-disinherit")) {
        f.setAttribute("hx-disinherit", "hx-disabled-elt");
      }
    }
    if (!f.querySelector("input[name=IdempotencyKey]")) {
      var k = document.createElement("input");
      k.type = "hidden";
      k.name = "IdempotencyKey";
      k.value = tfKey();
      f.appendChild(k);
    }
  });
}
// A page shown again (Back) is a new form: what is sent from it is a new request.
function tfRekey() {
  Array.prototype.forEach.call(document.querySelectorAll("input[name=IdempotencyKey]"), function (k) { k.value = tfKey(); });
}
document.addEventListener("htmx:historyRestore", tfRekey);
document.addEventListener("DOMContentLoaded", function () { tfKeyForms(document); });
document.addEventListener("htmx:load", function (ev) { tfKeyForms(ev.detail.elt.parentNode || document); });
document.addEventListener("htmx:configRequest", function (ev) {
  var f = ev.detail.elt && ev.detail.elt.closest && ev.detail.elt.closest("form");
  var k = f && f.querySelector("input[name=IdempotencyKey]");
  if (k && ev.detail.verb === "post") {
    ev.detail.headers["Idempotency-Key"] = k.value;
  }
});
function tfSubmitters(form) {
  return Array.prototype.slice.call(form.querySelectorAll("button:not([type=button]), input[type=submit]"));
}
// A form htmx does not send (hx-boost="false") is sent by the browser:
// disable its button once the submission has started.
document.addEventListener("submit", function (ev) {
  var f = ev.target;
  if (ev.defaultPrevented || !f || f.getAttribute("method") !== "post") {
    return;
  }
  setTimeout(function () {
    tfSubmitters(f).forEach(function (b) {
      b.disabled = true;
      b.setAttribute("data-tf-busy", "");
    });
  }, 0);
});
window.addEventListener("pageshow", function (ev) {
  if (ev.persisted) {
    tfRekey();
    Array.prototype.forEach.call(document.querySelectorAll("[data-tf-busy]"), function (b) {
      b.disabled = false;
      b.removeAttribute("data-tf-busy");
    });
  }
});

// A form sent after the session expired comes back after sign-in with what
// was typed (issue 13): the page carries the kept values; put them back.
document.addEventListener("DOMContentLoaded", function () {
  var kept = document.getElementById("tf-kept-form");
  if (!kept) {
    return;
  }
  var data;
  try {
    data = JSON.parse(kept.getAttribute("data-form"));
  } catch (e) {
    return;
  }
  kept.remove();
  var form = Array.prototype.find.call(document.querySelectorAll("form[method=post]"), function (f) {
    return new URL(f.action, location.href).pathname === data.action;
  });
  if (!form) {
    return;
  }
  Object.keys(data.values || {}).forEach(function (name) {
    var vals = data.values[name];
    Array.prototype.forEach.call(form.elements, function (el) {
      if (el.name !== name || el.type === "hidden" || el.type === "file") {
        return;
      }
      if (el.type === "checkbox" || el.type === "radio") {
        el.checked = vals.indexOf(el.value) >= 0;
      } else if (el.tagName === "SELECT" && el.multiple) {
        Array.prototype.forEach.call(el.options, function (o) { o.selected = vals.indexOf(o.value) >= 0; });
      } else {
        el.value = vals[0];
      }
    });
  });
  var first = form.querySelector("input:not([type=hidden]), select, textarea");
  if (first) {
    first.focus();
  }
});

// Tables on a phone (docs/decisions.md "Tables on a phone"): each cell of a
// table with a heading row gets its column's heading as data-label, which
// app.css shows above the cell when the rows stack (narrow windows). A cell
// with nothing in it is marked tf-blank (hidden when stacked); a column
// whose heading is visually hidden (the actions) gets no label.
function tfLabelCells(root) {
  if (!root || !root.querySelectorAll) {
    return;
  }
  var tables = root.tagName === "TABLE" ? [root] : Array.prototype.slice.call(root.querySelectorAll("table"));
  tables.forEach(function (t) {
    var head = t.tHead && t.tHead.rows[0];
    if (!head) {
      return;
    }
    var labels = [];
    Array.prototype.forEach.call(head.cells, function (h) {
      var c = h.cloneNode(true);
      Array.prototype.forEach.call(c.querySelectorAll(".visually-hidden"), function (v) { v.remove(); });
      var l = c.textContent.replace(/[▲▼]/g, "").replace(/\s+/g, " ").trim();
      for (var i = 0; i < (h.colSpan || 1); i++) {
        labels.push(l);
      }
    });
    Array.prototype.forEach.call(t.tBodies, function (b) {
      Array.prototype.forEach.call(b.rows, function (tr) {
        var col = 0;
        Array.prototype.forEach.call(tr.cells, function (td) {
          var l = labels[col] || "";
          if (l) {
            td.setAttribute("data-label", l);
          } else {
            td.removeAttribute("data-label");
          }
          var blank = td.textContent.trim() === "" && !td.querySelector("input:not([type=hidden]), button, select, textarea, img, svg, a");
          td.classList.toggle("tf-blank", blank);
          col += td.colSpan || 1;
        });
      });
    });
    t.classList.add("tf-labelled");
  });
}
document.addEventListener("DOMContentLoaded", function () { tfLabelCells(document); });
document.addEventListener("htmx:load", function (ev) {
  var el = ev.detail.elt;
  var t = el && el.closest && el.closest("table");
  tfLabelCells(t || el);
});

// tfCopyText: a button with data-copy-text copies that text (views.LongID,
// issue 40), and says so.
function tfCopyText(ev) {
  var b = ev.target.closest && ev.target.closest("[data-copy-text]");
  if (!b || !navigator.clipboard) {
    return;
  }
  navigator.clipboard.writeText(b.getAttribute("data-copy-text")).then(function () {
    b.textContent = "Copied";
  });
}
document.addEventListener("click", tfCopyText);

// tfConfirmInPage: a button with data-confirm asks first, in the page's own
// dialog (views.ConfirmDialog), not the browser's confirm() (issue 40).
// Confirmed, the button is pressed again and goes; a form that would be
// refused for a missing required field goes without asking (the server
// says what is missing).
function tfConfirmInPage(ev) {
  var btn = ev.target.closest && ev.target.closest("[data-confirm]");
  if (!btn) {
    return;
  }
  if (btn.hasAttribute("data-confirmed")) {
    btn.removeAttribute("data-confirmed");
    return;
  }
  var d = document.getElementById("tf-confirm");
  if (!d || !d.showModal || (btn.form && !btn.form.checkValidity())) {
    return;
  }
  ev.preventDefault();
  ev.stopPropagation();
  d.querySelector("[data-confirm-text]").textContent = btn.getAttribute("data-confirm");
  d.querySelector("[data-confirm-ok]").textContent = btn.getAttribute("data-confirm-ok") || btn.textContent.trim();
  d.returnValue = "";
  d.onclose = function () {
    d.onclose = null;
    if (d.returnValue === "ok") {
      btn.setAttribute("data-confirmed", "");
      btn.click();
    } else {
      btn.focus();
    }
  };
  d.showModal();
  d.querySelector("[data-confirm-cancel]").focus();
}
document.addEventListener("click", tfConfirmInPage, true);
