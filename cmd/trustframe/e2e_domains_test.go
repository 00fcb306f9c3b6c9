package main

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestEndToEndDomainsRolesAndClaims: a Super User creates a domain, two
// roles (one Exclusive) and an authority on Reference Data > Domains and
// Roles; a Data Administrator gives an organisation a claim on its Roles
// tab, creates an application with that role, generates an SSA and sees
// the role in it; the Exclusive conflict shows as a readable list.
func TestEndToEndDomainsRolesAndClaims(t *testing.T) {
	ctx := newBrowser(t)
	base, _ := startProgram(t)

	signIn(t, ctx, base, "admin@example.com")
	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=nav-reference-data]`)),
		click(chromedp.CSS(`[data-testid=ref-domains]`)),
		click(chromedp.CSS(`[data-testid=add-domain]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=domain-form]`)),
		chromedp.SendKeys(chromedp.ID("f-Name"), "Payments"),
		chromedp.SendKeys(chromedp.ID("f-Description"), "Open finance payments"),
		click(chromedp.CSS(`[data-testid=domain-form] [data-testid=save]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=domain][data-name=Payments]`)),
	))
	addRole := func(name string, exclusive bool) {
		t.Helper()
		actions := []chromedp.Action[chromedp.Void]{
			click(chromedp.CSS(`[data-testid=domain][data-name=Payments] [data-testid=add-role]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid=role-form] #f-Name`)),
			chromedp.SendKeys(chromedp.ID("f-Name"), name),
			chromedp.SetValue(chromedp.ID("f-Type"), "Federation"),
		}
		if exclusive {
			actions = append(actions, chromedp.SetValue(chromedp.ID("f-Type"), "Directory"),
				click(chromedp.CSS(`[data-testid=role-exclusive]`)))
		}
		actions = append(actions, click(chromedp.CSS(`[data-testid=role-form] [data-testid=save]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid=role-row][data-name=`+name+`]`)))
		must(t, chromedp.Do(ctx, actions...))
	}
	addRole("PISP", false)
	addRole("SANDBOX", true)
	row, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=role-row][data-name=SANDBOX]`)))
	if !strings.Contains(row, "Exclusive") || !strings.Contains(row, "Directory") {
		t.Fatalf("the Exclusive role reads %q", row)
	}
	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=add-authority]`)),
		chromedp.WaitVisible(chromedp.ID("f-AuthorityName")),
		chromedp.SendKeys(chromedp.ID("f-AuthorityName"), "Central Bank"),
		chromedp.SendKeys(chromedp.ID("f-AuthorityCode"), "CB"),
		chromedp.SendKeys(chromedp.ID("f-Country"), "GB"),
		click(chromedp.CSS(`[data-testid=covers-Payments]`)),
		click(chromedp.CSS(`[data-testid=authority-form] [data-testid=save]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=authority-row]`)),
	))
	checkAccessibility(t, ctx, "domains and roles")
	must(t, chromedp.Do(ctx,
		chromedp.Navigate(base+"/references/data-administrators/new"),
		chromedp.SendKeys(chromedp.ID("da-email"), "dana@example.com"),
		click(chromedp.CSS(`[data-testid=save]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=data-administrator-row]`)),
		click(chromedp.CSS(`[data-testid=sign-out]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=sign-in]`)),
	))

	// The Data Administrator records the claim.
	signIn(t, ctx, base, "dana@example.com")
	createActiveAcmeBank(t, ctx, base)
	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=tab-roles]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=add-claim]`)),
		click(chromedp.CSS(`[data-testid=add-claim]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=claim-form]`)),
	))
	chooseAuthority(t, ctx)
	must(t, chromedp.Do(ctx,
		chromedp.SetValue(chromedp.ID("f-DomainRole"), "Payments/PISP"),
		chromedp.SendKeys(chromedp.ID("f-RegistrationId"), "CB-0001"),
		click(chromedp.CSS(`[data-testid=claim-form] [data-testid=save]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=claim-row][data-role=PISP]`)),
	))
	checkAccessibility(t, ctx, "roles tab")
	// The Exclusive role beside PISP: refused, the claim in the way listed.
	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=add-claim]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=claim-form]`)),
	))
	chooseAuthority(t, ctx)
	must(t, chromedp.Do(ctx,
		chromedp.SetValue(chromedp.ID("f-DomainRole"), "Payments/SANDBOX"),
		click(chromedp.CSS(`[data-testid=claim-form] [data-testid=save]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=conflict]`)),
	))
	// Refused in place: the address is still the add page's, not the URL
	// the form posted to.
	at, _ := chromedp.Run(ctx, chromedp.Location())
	if !strings.HasSuffix(at, "/authority-claims/new") {
		t.Fatalf("after the refusal the address is %s", at)
	}
	summary, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=conflict] strong`)))
	item, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=in-the-way] li`)))
	if !strings.Contains(summary, "Exclusive") || !strings.Contains(item, "Acme Bank") || !strings.Contains(item, "Payments — PISP") || strings.Contains(item, "{") {
		t.Fatalf("the conflict reads %q / %q", summary, item)
	}
	must(t, chromedp.Do(ctx, click(chromedp.CSS(`nav[aria-label=breadcrumb] a[href$="/authority-claims"]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=claim-row]`))))
	rows, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("[data-testid=claim-row]").length`))
	if rows != 1 {
		t.Fatalf("%d claims after the refusal", rows)
	}

	// An application with that role, and its SSA.
	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=tab-applications]`)),
		click(chromedp.CSS(`[data-testid=new-application]`)),
		chromedp.WaitVisible(chromedp.ID("f-ClientName")),
		chromedp.SendKeys(chromedp.ID("f-ClientName"), "Payments app"),
		chromedp.SendKeys(chromedp.ID("f-RedirectUri"), "https://app.acme.example/cb"),
		click(chromedp.CSS(`[data-testid=role-choices] input[value=PISP]`)),
		click(chromedp.CSS(`[data-testid=save]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=application-roles]`)),
	))
	roles, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=application-roles]`)))
	if roles != "PISP" {
		t.Fatalf("application roles %q", roles)
	}
	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=generate-ssa]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=ssa-token]`)),
	))
	inSSA, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=ssa-roles]`)))
	if strings.TrimSpace(inSSA) != "PISP" {
		t.Fatalf("software_roles on the page: %q", inSSA)
	}
}

// chooseAuthority picks the claim form's first authority: the list starts
// on an empty choice.
func chooseAuthority(t *testing.T, ctx context.Context) {
	t.Helper()
	if ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(s => { s.selectedIndex = 1; return s.value !== ""; })(document.getElementById("f-AuthorityId"))`)); err != nil || !ok {
		t.Fatalf("choosing an authority: %v %v", ok, err)
	}
}
