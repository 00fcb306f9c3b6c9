package main

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestEndToEndEveryPageIsAccessible opens every page of the console (every
// browser GET route, with real ids) in Chromium as a Super User and runs
// axe-core on it: a new page cannot ship with a serious WCAG 2 A/AA
// violation, and none may fail to render.
func TestEndToEndEveryPageIsAccessible(t *testing.T) {
	env := webtest.Start(t, nil)
	pages := everyConsolePage(t, env)
	ctx := newBrowserFor(t, 6*time.Minute)
	signIn(t, ctx, env.URL, "admin@example.com")
	// A desktop and a phone (390×844): every page fits both, and axe-core
	// is clean at both widths.
	for _, vp := range []struct{ w, h int64 }{{1366, 900}, {390, 844}} {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(vp.w, vp.h)); err != nil {
			t.Fatal(err)
		}
		for _, p := range pages {
			checkPage(t, ctx, env.URL, p, vp.w)
		}
	}
	t.Logf("%d pages checked", len(pages))
}

// overflowing names the page's width and the outermost elements that reach
// past the window's right edge, or is "" when the page fits.
const overflowing = `(function(){
  var W = window.innerWidth;
  if (document.documentElement.scrollWidth <= W + 1) return "";
  var out = [];
  document.querySelectorAll("body *").forEach(function(e){
    if (out.length >= 3) return;
    var r = e.getBoundingClientRect();
    if (r.width === 0 || r.right <= W + 1) return;
    for (var p = e.parentElement; p && p !== document.body; p = p.parentElement) {
      if (p.getBoundingClientRect().right > W + 1) return;
    }
    out.push(e.tagName.toLowerCase() + (e.className ? "." + String(e.className).split(" ").join(".") : "") + (e.dataset.testid ? "[" + e.dataset.testid + "]" : "") + " to " + Math.round(r.right) + " px");
  });
  return document.documentElement.scrollWidth + " px wide (" + out.join(", ") + ")";
})()`
