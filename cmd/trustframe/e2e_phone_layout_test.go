package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/trustframe/trustframe/web/webtest"
)

// TestEndToEndPhoneLayout opens every page of the console on a phone
// (390×844) and a narrow tablet (768×1024) and checks its layout: nothing
// is wider than the window; a breadcrumb that wraps keeps the current page
// on the line of the item before it (unless the two are wider than a
// line); a disclosure's summary ("Edit") is a tap target at least 24 px
// tall (it was 16); a filter row that wraps starts each line at its left
// edge. Before, on a phone, "Reference Data > Webhooks >" filled the first
// line and "New webhook" stood alone on the next (and so on most pages
// three levels deep), and the organisation list's Search button sat 5 px
// in (it followed a non-breaking space in a label).
func TestEndToEndPhoneLayout(t *testing.T) {
	env := webtest.Start(t, nil)
	pages := everyConsolePage(t, env)
	ctx := newBrowserFor(t, 6*time.Minute)
	signIn(t, ctx, env.URL, "admin@example.com")
	wrapped := 0
	for _, vp := range []struct{ w, h int64 }{{390, 844}, {768, 1024}} {
		must(t, chromedp.Do(ctx, chromedp.EmulateViewport(vp.w, vp.h)))
		for _, p := range pages {
			at := fmt.Sprintf("%s at %d px", p, vp.w)
			if _, err := chromedp.Run(ctx, chromedp.Navigate(env.URL+p)); err != nil {
				t.Errorf("%s: %v", at, err)
				continue
			}
			if ct, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.contentType`)); ct != "text/html" {
				continue
			}
			res, err := chromedp.Run(ctx, chromedp.Evaluate[phoneLayout](phoneLayoutJS))
			if err != nil {
				t.Fatalf("%s: %v", at, err)
			}
			if res.Wrapped {
				wrapped++
			}
			for _, prob := range res.Problems {
				t.Errorf("%s: %s", at, prob)
			}
			if dir := os.Getenv("TRUSTFRAME_SCREENSHOT_DIR"); dir != "" {
				if b, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)); err == nil {
					name := strings.Trim(regexp.MustCompile(`[^a-z0-9]+`).ReplaceAllString(strings.ToLower(p), "-"), "-")
					_ = os.WriteFile(filepath.Join(dir, fmt.Sprintf("layout-%d-%s.png", vp.w, name)), b, 0o644)
				}
			}
		}
	}
	// The check of wrapped breadcrumbs must have had some to look at.
	if wrapped < 5 {
		t.Errorf("only %d pages have a breadcrumb on more than one line", wrapped)
	}
}

type phoneLayout struct {
	Wrapped  bool
	Problems []string
}

// phoneLayoutJS measures the page in the window: its width, and its
// breadcrumb's lines, its summaries' heights (an item's line is its top: items on one line differ
// by a few pixels at most, lines by some 30).
const phoneLayoutJS = `(function(){
  var W = window.innerWidth, out = [], wrapped = false;
  if (document.documentElement.scrollWidth > W + 1) out.push("the page is " + document.documentElement.scrollWidth + " px wide");
  var items = document.querySelectorAll("nav[aria-label=breadcrumb] li");
  if (items.length > 1) {
    var trail = items[0].parentElement.getBoundingClientRect();
    var box = function(e){ return e.getBoundingClientRect(); };
    var first = box(items[0]);
    items.forEach(function(li){ if (Math.abs(box(li).top - first.top) > 8) wrapped = true; });
    var last = box(items[items.length - 1]), prev = box(items[items.length - 2]);
    var alone = Math.abs(last.top - prev.top) > 8;
    if (alone && prev.width + last.width <= trail.width) {
      out.push("the breadcrumb's current page " + JSON.stringify(items[items.length - 1].innerText) + " is alone on its line though it fits beside " + JSON.stringify(items[items.length - 2].innerText));
    }
    items.forEach(function(li){
      var r = box(li);
      if (r.right > trail.right + 1 || r.left < trail.left - 1) out.push("the breadcrumb item " + JSON.stringify(li.innerText) + " reaches past the trail");
    });
  }
  // A disclosure's summary is tapped like a button: at least 24 px tall.
  document.querySelectorAll("main summary").forEach(function(e){
    var r = e.getBoundingClientRect();
    if (r.width > 0 && e.checkVisibility() && r.height < 24) out.push("the summary " + JSON.stringify(e.innerText.trim()) + " is " + Math.round(r.height) + " px tall");
  });
  // A filter row that wraps starts each line at its left edge: the control
  // of an item that starts a line is not indented.
  document.querySelectorAll("main form[role=search]").forEach(function(f){
    var left = f.getBoundingClientRect().left;
    Array.prototype.forEach.call(f.children, function(c){
      var r = c.getBoundingClientRect(), ctl = c.matches("input, select, button") ? c : c.querySelector("input:not([type=hidden]), select, button");
      if (r.width === 0 || !ctl || Math.abs(r.left - left) > 1) return;
      var cr = ctl.getBoundingClientRect();
      if (Math.abs(cr.left - r.left) > 1) out.push("the filter control " + JSON.stringify((ctl.innerText || ctl.name || "").trim()) + " is indented by " + Math.round(cr.left - r.left) + " px");
    });
  });
  return {Wrapped: wrapped, Problems: out.slice(0, 10)};
})()`

// TestEndToEndPhoneSortLinksShowOnFocus: on a phone a table's rows stack
// and its heading row is hidden (docs/decisions.md, "Tables on a phone"),
// but its sort links are still Tab stops. Tabbing onto one showed nothing:
// the focus went to a 1 px clipped link. Now the heading row shows, as a
// row of sort links inside the window, while one of them has the focus.
func TestEndToEndPhoneSortLinksShowOnFocus(t *testing.T) {
	env := webtest.Start(t, nil)
	api := newAPIClient(t, env)
	oid := api.call("POST", "/organisations", `{"OrganisationName":"Acme Bank","RegistrationNumber":"12345678","CountryOfRegistration":"GB"}`, 201)["OrganisationId"].(string)
	api.call("POST", "/organisations/"+oid+"/contacts", `{"ContactType":"Business","FirstName":"Ann","LastName":"Doe","EmailAddress":"ann@acme.example"}`, 201)
	ctx := newBrowser(t)
	signIn(t, ctx, env.URL, "admin@example.com")
	must(t, chromedp.Do(ctx, chromedp.EmulateViewport(390, 844)))
	for _, p := range []string{"/organisations", "/organisations/" + oid + "/contacts"} {
		must(t, chromedp.Do(ctx, chromedp.Navigate(env.URL+p), chromedp.WaitVisible(chromedp.CSS(`h1`))))
		res, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`(function(){
  var out = [], W = window.innerWidth, links = document.querySelectorAll("main thead a[data-testid^=sort-]");
  if (!links.length) return ["no sort links"];
  if (links[0].closest("thead").getBoundingClientRect().width > 1) out.push("the heading row is shown before a sort link has the focus");
  links.forEach(function(a){
    a.focus();
    var r = a.getBoundingClientRect();
    if (document.activeElement !== a) out.push(a.dataset.testid + " takes no focus");
    else if (r.width < 24 || r.height < 24 || r.left < 0 || r.right > W || r.top < 0 || r.bottom > window.innerHeight || !a.contains(document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2))) out.push(a.dataset.testid + " has the focus but is not seen: at " + Math.round(r.left) + "," + Math.round(r.top) + " " + Math.round(r.width) + "×" + Math.round(r.height));
  });
  if (document.documentElement.scrollWidth > W + 1) out.push("the page is " + document.documentElement.scrollWidth + " px wide with a sort link focused");
  return out;
})()`))
		if err != nil {
			t.Fatal(err)
		}
		for _, prob := range res {
			t.Errorf("%s at 390 px: %s", p, prob)
		}
	}
}

// TestEndToEndPhoneSortSelect: at 390 px the organisation list and the
// contacts tab stack their rows and hide the heading row with its sort
// links; a "Sort by" select is shown instead, and choosing another sort
// reorders the rows: the organisation list through its filter form (a
// boosted GET), the contacts through their own form (an htmx fragment, the
// page not reloaded), and the contacts again with JavaScript off (a plain
// GET). Wider, the select is not shown (the column links sort there).
// axe-core is clean on both pages with the select shown.
func TestEndToEndPhoneSortSelect(t *testing.T) {
	env := webtest.Start(t, nil)
	api := newAPIClient(t, env)
	oid := api.call("POST", "/organisations", `{"OrganisationName":"Acme Bank","RegistrationNumber":"12345678","CountryOfRegistration":"GB"}`, 201)["OrganisationId"].(string)
	api.call("POST", "/organisations", `{"OrganisationName":"Zenith Bank","RegistrationNumber":"87654321","CountryOfRegistration":"GB"}`, 201)
	api.call("POST", "/organisations/"+oid+"/contacts", `{"ContactType":"Business","FirstName":"Ann","LastName":"Adams","EmailAddress":"ann@acme.example"}`, 201)
	api.call("POST", "/organisations/"+oid+"/contacts", `{"ContactType":"Technical","FirstName":"Zoe","LastName":"Zane","EmailAddress":"zoe@acme.example"}`, 201)
	ctx := newBrowser(t)
	signIn(t, ctx, env.URL, "admin@example.com")
	shown := func(sel string) bool {
		t.Helper()
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(function(e){if(!e)return false;var r=e.getBoundingClientRect();return r.width>0&&r.height>0})(document.querySelector(`+"`"+sel+"`"+`))`))
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	firstCell := `(document.querySelector("[data-testid=organisation-row] td, [data-testid=contact-row] td:nth-child(3)")||{}).textContent`
	contacts := "/organisations/" + oid + "/contacts"

	must(t, chromedp.Do(ctx, chromedp.EmulateViewport(1366, 900), chromedp.Navigate(env.URL+"/organisations"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=org-filter]`))))
	if shown(`#sort-by`) {
		t.Error("the Sort by select is shown on a desktop")
	}

	must(t, chromedp.Do(ctx, chromedp.EmulateViewport(390, 844)))
	checkPage(t, ctx, env.URL, "/organisations", 390)
	checkPage(t, ctx, env.URL, contacts, 390)

	// The organisation list: the filter form sends the sort with the search.
	must(t, chromedp.Do(ctx, chromedp.Navigate(env.URL+"/organisations"), chromedp.WaitVisible(chromedp.CSS(`#sort-by`))))
	if !waitTrue(t, ctx, `document.querySelector("table.tf-labelled")`) || !shown(`#sort-by`) {
		t.Fatal("at 390 px the list is not stacked or the Sort by select is not shown")
	}
	if !waitTrue(t, ctx, firstCell+` === "Acme Bank"`) {
		t.Fatal("the list does not start A to Z")
	}
	must(t, chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS(`#sort-by`), "OrganisationName,desc"),
		click(chromedp.CSS(`[data-testid=org-filter] button[type=submit]`)),
	))
	if !waitTrue(t, ctx, `location.search.indexOf("sort=OrganisationName%2Cdesc") >= 0 && `+firstCell+` === "Zenith Bank" && document.querySelector("#sort-by").value === "OrganisationName,desc"`) {
		loc, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href + " " + `+firstCell))
		t.Fatalf("after choosing Name, Z to A: %s", loc)
	}

	// The contacts tab: its own form swaps the table in place.
	must(t, chromedp.Do(ctx, chromedp.Navigate(env.URL+contacts), chromedp.WaitVisible(chromedp.CSS(`#contact-sort-by`))))
	if !waitTrue(t, ctx, `document.querySelector("#contacts-table table.tf-labelled")`) || !shown(`#contact-sort-by`) {
		t.Fatal("at 390 px the contacts are not stacked or the Sort by select is not shown")
	}
	if !waitTrue(t, ctx, firstCell+` === "Adams"`) {
		t.Fatal("the contacts do not start with Adams")
	}
	must(t, chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`window.tfSamePage = true; undefined`),
		chromedp.SetValue(chromedp.CSS(`#contact-sort-by`), "LastName,desc"),
		click(chromedp.CSS(`#contact-sort-submit`)),
	))
	if !waitTrue(t, ctx, `window.tfSamePage && location.search.indexOf("sort=LastName%2Cdesc") >= 0 && `+firstCell+` === "Zane" && document.querySelector("#contact-sort-by").value === "LastName,desc" && document.querySelector("#contacts-table table.tf-labelled")`) {
		loc, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href + " " + !!window.tfSamePage + " " + `+firstCell))
		t.Fatalf("after choosing Last name, Z to A: %s", loc)
	}

	// Without JavaScript: a plain GET form.
	noJS := func(off bool) {
		t.Helper()
		if _, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: off}); err != nil {
			t.Fatal(err)
		}
	}
	noJS(true)
	defer noJS(false)
	must(t, chromedp.Do(ctx, chromedp.Navigate(env.URL+contacts), chromedp.WaitVisible(chromedp.CSS(`#contact-sort-by`))))
	must(t, chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS(`#contact-sort-by`), "ContactType,desc"),
		click(chromedp.CSS(`#contact-sort-submit`)),
	))
	if !waitTrue(t, ctx, `location.search.indexOf("sort=ContactType%2Cdesc") >= 0 && `+firstCell+` === "Zane"`) {
		loc, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href + " " + `+firstCell))
		t.Fatalf("without JavaScript, after choosing Contact type, Z to A: %s", loc)
	}
}
