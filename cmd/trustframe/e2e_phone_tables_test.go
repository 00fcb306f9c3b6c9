package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/trustframe/trustframe/web/webtest"
)

// TestEndToEndTablesReadOnAPhone: at 375 px wide every table of the
// console's pages fits its page, its rows stacked, each cell labelled
// with its column's heading; at a width where a table still scrolls
// sideways (a tablet), its wrapper shows the cue that there is more.
// Before, the Roles, Domains, Authorities and organisation Roles tab
// tables (and the others) scrolled sideways inside their wrapper with
// nothing saying so: the columns past the edge were simply not there.
func TestEndToEndTablesReadOnAPhone(t *testing.T) {
	env := webtest.Start(t, nil)
	api := newAPIClient(t, env)
	disc := discoveryServer(t)

	hook := api.call("POST", "/references/webhooks", `{"Url":"https://8.8.8.8/hook","SubjectTypes":["Organisation"]}`, 201)["WebhookId"].(string)
	oid := api.call("POST", "/organisations", `{"OrganisationName":"Acme Bank International Holdings","RegistrationNumber":"12345678","CountryOfRegistration":"GB"}`, 201)["OrganisationId"].(string)
	base := "/organisations/" + oid
	aid := api.call("POST", base+"/softwarestatements", `{"ClientName":"Payments app","RedirectUri":["https://app.acme.example/cb"]}`, 201)["SoftwareStatementId"].(string)
	api.call("POST", base+"/authorisationservers", `{"CustomerFriendlyName":"Acme AS","Issuer":"`+disc+`"}`, 201)
	api.call("POST", base+"/contacts", `{"ContactType":"Business","FirstName":"Ann","LastName":"Doe","EmailAddress":"ann.doe.of.the.business.team@acme.example"}`, 201)
	api.call("POST", base+"/documents", `{"DocumentType":"Licence","DocumentReferenceNumber":"FCA-1","DocumentExpiryDate":"2099-01-01","DocumentDescription":"The licence to operate"}`, 201)
	api.call("POST", base+"/softwarestatements/"+aid+"/certifications", `{"CertificationType":"FAPI","CertificationStartDate":"2026-01-01"}`, 201)
	api.postPEM(base+"/certificates/qseal", webtest.ValidCert(t, "p256", "seal.acme.example"))
	api.call("POST", "/references/flags", `{"Name":"Pilot","Type":"Organisation","Description":"Takes part in the pilot"}`, 201)
	api.call("POST", "/references/authorisation-domains", `{"Name":"Payments","Description":"Open finance payments"}`, 201)
	api.call("POST", "/references/authorisation-domains/Payments/roles", `{"Name":"PISP","Type":"Federation","Description":"Payment initiation service provider"}`, 201)
	api.call("POST", "/references/authorisation-domains/Payments/roles", `{"Name":"EXCL","Type":"Directory","Exclusive":true}`, 201)
	authority := api.call("POST", "/references/authorities", `{"AuthorityName":"Central Bank","AuthorityCode":"CB","Country":"GB","AuthorisationDomains":["Payments"]}`, 201)
	api.call("POST", base+"/authority-claims", `{"AuthorityId":"`+authority["AuthorityId"].(string)+`","AuthorisationDomain":"Payments","Role":"PISP","RegistrationId":"CB-REG-0001"}`, 201)
	api.call("POST", "/references/role-metadata-policies", `{"AuthorisationDomain":"Payments","Role":"PISP","EntityType":"openid_relying_party","Policy":{"grant_types":{"subset_of":["authorization_code","refresh_token"]}}}`, 201)
	api.call("POST", "/references/identity-providers", `{"Name":"Ops IdP","EmailDomains":["example.com"],"Issuer":"`+disc+`"}`, 201)

	pages := []string{
		"/references/authorisation-domains", base + "/authority-claims", "/organisations",
		"/", "/audit", "/references/role-metadata-policies", "/references/flags", "/references/contact-types",
		"/references/signing-keys", "/references/identity-providers", "/references/webhooks",
		"/references/super-users", "/references/data-administrators",
		base + "/contacts", base + "/documents", base + "/certifications", base + "/softwarestatements",
		base + "/softwarestatements/" + aid, base + "/authorisationservers", base + "/certificates",
		"/references/webhooks/" + hook + "/deliveries", "/api-reference",
	}
	ctx := newBrowserFor(t, 5*time.Minute)
	signIn(t, ctx, env.URL, "admin@example.com")
	must(t, chromedp.Do(ctx, chromedp.EmulateViewport(375, 812)))
	tables := 0
	for _, p := range pages {
		must(t, chromedp.Do(ctx, chromedp.Navigate(env.URL+p), chromedp.WaitVisible(chromedp.CSS(`h1`))))
		res, err := chromedp.Run(ctx, chromedp.Evaluate[phoneTables](phoneTablesJS))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		tables += res.Tables
		for _, prob := range res.Problems {
			t.Errorf("%s at 375 px: %s", p, prob)
		}
		if p == "/references/authorisation-domains" || p == base+"/authority-claims" {
			checkAccessibility(t, ctx, p+" at 375 px")
		}
		if dir := os.Getenv("TRUSTFRAME_SCREENSHOT_DIR"); dir != "" {
			if b, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)); err == nil {
				name := strings.Trim(regexp.MustCompile(`[^a-z0-9]+`).ReplaceAllString(strings.ToLower(strings.ReplaceAll(p, oid, "org")), "-"), "-")
				_ = os.WriteFile(filepath.Join(dir, "phone-"+name+".png"), b, 0o644)
			}
		}
	}
	if tables < 15 {
		t.Errorf("only %d tables seen on %d pages", tables, len(pages))
	}
	// The organisation's Roles tab reads as labelled lines.
	must(t, chromedp.Do(ctx, chromedp.Navigate(env.URL+base+"/authority-claims"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=claim-row]`))))
	// (a cell's label is its ::before, which innerText leaves out)
	text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`Array.prototype.map.call(document.querySelector("[data-testid=claim-row]").cells, function(td){ var l = getComputedStyle(td, "::before").content; return (l === "none" ? "" : JSON.parse(l) + "\n") + td.innerText.trim(); }).join("\n")`))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Domain\nPayments", "Role\nPISP", "Registration ID\nCB-REG-0001"} {
		if !strings.Contains(text, want) {
			t.Errorf("the claim's row reads %q, want %q in it", text, want)
		}
	}

	// A tablet: a table that still scrolls shows the cue.
	must(t, chromedp.Do(ctx, chromedp.EmulateViewport(700, 1000)))
	for _, p := range pages[:3] {
		must(t, chromedp.Do(ctx, chromedp.Navigate(env.URL+p), chromedp.WaitVisible(chromedp.CSS(`h1`))))
		res, err := chromedp.Run(ctx, chromedp.Evaluate[phoneTables](phoneTablesJS))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for _, prob := range res.Problems {
			t.Errorf("%s at 700 px: %s", p, prob)
		}
	}
}

type phoneTables struct {
	Tables   int
	Problems []string
}

// phoneTablesJS checks every table of the page: nothing past the window's
// edge, and a wrapper that scrolls sideways shows its cue (a shadow at the
// edge with more); a stacked table (its heading row hidden) labels each of
// its cells with the column's heading.
const phoneTablesJS = `(function(){
  var W = window.innerWidth, out = [], n = 0;
  var name = function(t){ var e = t.closest("[data-testid]"); return e ? e.getAttribute("data-testid") : "table"; };
  if (document.documentElement.scrollWidth > W + 1) out.push("the page is " + document.documentElement.scrollWidth + " px wide");
  document.querySelectorAll("main table").forEach(function(t){
    n++;
    var wrap = t.closest(".tf-scroll");
    var scrolls = wrap && wrap.scrollWidth > wrap.clientWidth + 1;
    if (scrolls) {
      var bg = getComputedStyle(wrap).backgroundImage;
      if (bg.indexOf("gradient") < 0) out.push(name(t) + " scrolls sideways (" + wrap.scrollWidth + " px in " + wrap.clientWidth + ") with no cue");
      return;
    }
    var hiddenHead = t.tHead && t.tHead.getBoundingClientRect().width <= 1; // visually hidden: its cells are not shown
    t.querySelectorAll("td, th").forEach(function(c){
      if (hiddenHead && t.tHead.contains(c)) return;
      var r = c.getBoundingClientRect();
      if (r.width > 0 && (r.right > W + 1 || r.left < -1)) out.push(name(t) + ": a cell reaches " + Math.round(r.right) + " px: " + c.innerText.slice(0, 40));
    });
    var head = t.tHead && t.tHead.rows[0];
    if (!head || !hiddenHead) return; // not stacked
    var labels = Array.prototype.map.call(head.cells, function(h){
      var c = h.cloneNode(true); c.querySelectorAll(".visually-hidden").forEach(function(v){ v.remove(); });
      return c.textContent.replace(/[▲▼↑↓]/g, "").trim();
    });
    Array.prototype.forEach.call(t.tBodies, function(b){
      Array.prototype.forEach.call(b.rows, function(tr){
        Array.prototype.forEach.call(tr.cells, function(td, i){
          if (!labels[i] || td.innerText.trim() === "" || td.getBoundingClientRect().height === 0) return;
          var before = getComputedStyle(td, "::before").content;
          if (before.indexOf(labels[i]) < 0) out.push(name(t) + ": the cell " + JSON.stringify(td.innerText.trim().slice(0, 30)) + " is not labelled " + labels[i] + " (" + before + ")");
        });
      });
    });
  });
  return {Tables: n, Problems: out.slice(0, 12)};
})()`

// TestEndToEndRoleFilterPicksDomainRole: on the organisation list, picking
// "Data — PISP" in the Role filter and pressing Search (a boosted form)
// lands on the list with AuthorisationDomain=Data&Role=PISP, showing the
// one organisation that holds Data's PISP, with its roles in the Roles
// column; the PISP of Payments is another choice.
func TestEndToEndRoleFilterPicksDomainRole(t *testing.T) {
	env := webtest.Start(t, nil)
	api := newAPIClient(t, env)
	for _, d := range []string{"Payments", "Data"} {
		api.call("POST", "/references/authorisation-domains", `{"Name":"`+d+`"}`, 201)
		api.call("POST", "/references/authorisation-domains/"+d+"/roles", `{"Name":"PISP","Type":"Federation"}`, 201)
	}
	au := api.call("POST", "/references/authorities", `{"AuthorityName":"Central Bank","AuthorityCode":"CB","Country":"GB","AuthorisationDomains":["Payments","Data"]}`, 201)["AuthorityId"].(string)
	for _, o := range []struct{ name, domain string }{{"Acme", "Payments"}, {"Beta", "Data"}} {
		id := api.call("POST", "/organisations", `{"OrganisationName":"`+o.name+`","RegistrationNumber":"R-`+o.name+`","CountryOfRegistration":"GB"}`, 201)["OrganisationId"].(string)
		api.call("POST", "/organisations/"+id+"/authority-claims", `{"AuthorityId":"`+au+`","AuthorisationDomain":"`+o.domain+`","Role":"PISP"}`, 201)
	}
	ctx := newBrowser(t)
	signIn(t, ctx, env.URL, "admin@example.com")
	must(t, chromedp.Do(ctx,
		chromedp.Navigate(env.URL+"/organisations"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=role-filter]`)),
		chromedp.SetValue(chromedp.CSS(`[data-testid=role-filter]`), "Data/PISP"),
		click(chromedp.CSS(`[data-testid=org-filter] button[type=submit]`)),
	))
	if !waitTrue(t, ctx, `location.search.indexOf("AuthorisationDomain=Data") >= 0 && document.querySelectorAll("[data-testid=organisation-row]").length === 1`) {
		loc, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href`))
		t.Fatalf("after the filter: %s", loc)
	}
	row, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=organisation-row]`)))
	sel, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`(function(s){return s.options[s.selectedIndex].text})(document.querySelector("[data-testid=role-filter]"))`))
	if !strings.Contains(row, "Beta") || !strings.Contains(row, "Data — PISP") || sel != "Data — PISP" {
		t.Errorf("row %q, filter shows %q", row, sel)
	}
	checkAccessibility(t, ctx, "organisations filtered by a domain role")
}
