package main

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestEndToEndTablesFitTheWindow: on every console page, at 1366×900 and
// on a phone (390 px), the page is no wider than the window, and every
// table's Status and Actions columns are in view — at 1366 px no table
// scrolls sideways at all; on a phone a table that still scrolls inside
// its wrapper shows the cue that there is more (issue 40: the
// certificates table was 1,514 px wide in a 1,200 px column, its Valid
// to, Status and Revoke cut off).
func TestEndToEndTablesFitTheWindow(t *testing.T) {
	env := webtest.Start(t, nil)
	pages := everyConsolePage(t, env)
	// What makes a table wide: a subject without a space to break at, a
	// long serial, a key's kid in the audit log's changes.
	api := newAPIClient(t, env)
	var oid string
	for _, p := range pages {
		if m := regexp.MustCompile(`^/organisations/([0-9a-f-]{36})$`).FindStringSubmatch(p); m != nil {
			oid = m[1]
		}
	}
	long := "0015800001041REAAYpaymentsACMEBANKinternationalholdingsFORTESTSexample"
	api.postPEM("/organisations/"+oid+"/certificates/qwac", webtest.ValidCert(t, "p256", long))
	api.postPEM("/organisations/"+oid+"/certificates/qseal", webtest.ValidCert(t, "rsa2048", long))
	ctx := newBrowserFor(t, 8*time.Minute)
	signIn(t, ctx, env.URL, "admin@example.com")
	for _, vp := range []struct {
		w, h int64
		wide bool
	}{{1366, 900, true}, {390, 844, false}} {
		must(t, chromedp.Do(ctx, chromedp.EmulateViewport(vp.w, vp.h)))
		tables := 0
		for _, p := range pages {
			if _, err := chromedp.Run(ctx, chromedp.Navigate(env.URL+p)); err != nil {
				t.Errorf("%s: %v", p, err)
				continue
			}
			res, err := chromedp.Run(ctx, chromedp.Evaluate[phoneTables](tableWidthsJS(vp.wide)))
			if err != nil {
				t.Errorf("%s: %v", p, err)
				continue
			}
			tables += res.Tables
			for _, prob := range res.Problems {
				t.Errorf("%s at %d px: %s", p, vp.w, prob)
			}
		}
		if tables < 20 {
			t.Errorf("only %d tables seen at %d px", tables, vp.w)
		}
	}
}

// tableWidthsJS checks the page's width and every table's Status and
// Actions columns (wide: no table scrolls sideways at all).
func tableWidthsJS(wide bool) string {
	w := "false"
	if wide {
		w = "true"
	}
	return strings.ReplaceAll(`(function(wide){
  var W = window.innerWidth, out = [], n = 0;
  var name = function(t){ var e = t.closest("[data-testid]"); return e ? e.getAttribute("data-testid") : "table"; };
  var se = document.scrollingElement;
  if (se.scrollWidth > W) out.push("the page is " + se.scrollWidth + " px wide in " + W);
  document.querySelectorAll("main table").forEach(function(t){
    if (t.getBoundingClientRect().height === 0) return; // closed, in a <details>
    n++;
    var wrap = t.closest(".tf-scroll");
    var scrolls = wrap && wrap.scrollWidth > wrap.clientWidth + 1;
    if (wide && scrolls) out.push(name(t) + " scrolls sideways: " + wrap.scrollWidth + " px in " + wrap.clientWidth);
    var cue = scrolls && getComputedStyle(wrap).backgroundImage.indexOf("gradient") >= 0;
    var head = t.tHead && t.tHead.rows[0];
    if (!head) return;
    var right = Math.min(W, wrap ? wrap.getBoundingClientRect().right : W);
    Array.prototype.forEach.call(head.cells, function(h, i){
      var l = h.textContent.replace(/[▲▼↑↓]/g, "").trim();
      if (l !== "Status" && l !== "Actions") return;
      Array.prototype.forEach.call(t.tBodies, function(b){
        Array.prototype.forEach.call(b.rows, function(tr){
          var c = tr.cells[i];
          if (!c || tr.cells.length !== head.cells.length) return;
          var r = c.getBoundingClientRect();
          if (r.width === 0 || r.right <= right + 1) return;
          if (!wide && cue) return;
          out.push(name(t) + ": its " + l + " cell " + JSON.stringify(c.innerText.trim().slice(0, 30)) + " ends at " + Math.round(r.right) + " px, past " + Math.round(right));
        });
      });
    });
  });
  return {Tables: n, Problems: out.slice(0, 12)};
})(WIDE)`, "WIDE", w)
}
