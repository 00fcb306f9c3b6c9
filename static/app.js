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
