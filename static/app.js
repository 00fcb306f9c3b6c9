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
