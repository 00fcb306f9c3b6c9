package views

import (
	"bytes"
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/trustframe/trustframe/directory"
)

// renderFederation renders the Federation tab and parses it.
func renderFederation(t *testing.T, p FederationPage) *goquery.Document {
	t.Helper()
	var buf bytes.Buffer
	if err := Federation(Shell{Title: "Federation"}, p).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestFederationTabTrustMarks: the Trust marks section lists each type the
// entity is entitled to with its status; an active mark's JWT is in a
// read-only textarea to copy and is not offered again; a type without a
// mark, or whose mark expired, links to the trust mark endpoint with the
// type and the entity as sub, outside htmx.
func TestFederationTabTrustMarks(t *testing.T) {
	now := time.Date(2030, 3, 4, 12, 0, 0, 0, time.UTC)
	sub := "https://rp.example/entity"
	typ := func(name string) directory.TrustMarkType {
		return directory.TrustMarkType{ID: name, Name: name, TrustMarkType: "https://dir.example/trust-marks/" + name, Status: "Active"}
	}
	active := directory.IssuedTrustMark{JTI: "j1", JWT: "eyJ.active.sig", IssuedAt: now.Add(-time.Hour), ExpiresAt: now.Add(23 * time.Hour)}
	expired := directory.IssuedTrustMark{JTI: "j2", JWT: "eyJ.expired.sig", IssuedAt: now.Add(-48 * time.Hour), ExpiresAt: now.Add(-24 * time.Hour)}
	p := FederationPage{Name: "Acme RP", EntityID: sub}
	p.ShowTrustMarks([]directory.EntityTrustMark{
		{Type: typ("payments"), Mark: &active, Status: directory.TrustMarkActive},
		{Type: typ("certified"), Mark: &expired, Status: directory.TrustMarkExpired},
		{Type: typ("new")},
	})
	doc := renderFederation(t, p)
	rows := doc.Find(`[data-testid="fed-trust-marks"] [data-testid="fed-trust-mark"]`)
	if rows.Length() != 3 {
		t.Fatalf("%d trust marks shown, want 3", rows.Length())
	}
	want := []struct{ typ, status, label, jwt, issue string }{
		{"payments", "active", "Active", "eyJ.active.sig", ""},
		{"certified", "expired", "Expired", "eyJ.expired.sig", "x"},
		{"new", "", "Not issued yet", "", "x"},
	}
	rows.Each(func(i int, row *goquery.Selection) {
		w := want[i]
		if got, _ := row.Attr("data-trust-mark-type"); got != "https://dir.example/trust-marks/"+w.typ {
			t.Errorf("row %d type %q", i, got)
		}
		st := row.Find(`[data-testid="fed-trust-mark-status"]`)
		if got, _ := st.Attr("data-status"); got != w.status || st.Text() != w.label {
			t.Errorf("%s: status %q %q, want %q %q", w.typ, got, st.Text(), w.status, w.label)
		}
		ta := row.Find(`textarea[data-testid="fed-trust-mark-jwt"]`)
		if _, ro := ta.Attr("readonly"); ta.Text() != w.jwt || (w.jwt != "" && !ro) {
			t.Errorf("%s: textarea %q readonly %v, want %q", w.typ, ta.Text(), ro, w.jwt)
		}
		if id, _ := ta.Attr("id"); w.jwt != "" && row.Find(`label[for="`+id+`"]`).Length() != 1 {
			t.Errorf("%s: the textarea has no label", w.typ)
		}
		link := row.Find(`a[data-testid="fed-trust-mark-issue"]`)
		if (link.Length() == 1) != (w.issue != "") {
			t.Fatalf("%s: issue link %d", w.typ, link.Length())
		}
		if link.Length() == 0 {
			return
		}
		href, _ := link.Attr("href")
		u, err := url.Parse(href)
		if err != nil || u.Path != "/federation/trust-mark" || u.Query().Get("sub") != sub ||
			u.Query().Get("trust_mark_type") != "https://dir.example/trust-marks/"+w.typ {
			t.Errorf("%s: issue link %q", w.typ, href)
		}
		if boost, _ := link.Attr("hx-boost"); boost != "false" {
			t.Errorf("%s: the issue link is boosted: htmx would swap the JWT into the page", w.typ)
		}
	})
}

// TestFederationTabTrustMarksNone: entitled to nothing, the section says
// so; without the trust marks (no entity ID, or no trust mark store) the
// tab has no section.
func TestFederationTabTrustMarksNone(t *testing.T) {
	p := FederationPage{Name: "Acme RP", EntityID: "https://rp.example"}
	p.ShowTrustMarks(nil)
	doc := renderFederation(t, p)
	if doc.Find(`[data-testid="fed-trust-marks-none"]`).Length() != 1 || doc.Find(`[data-testid="fed-trust-mark"]`).Length() != 0 {
		t.Fatal("entitled to nothing is not said")
	}
	doc = renderFederation(t, FederationPage{Name: "Acme RP"})
	if doc.Find(`[data-testid="fed-trust-marks"]`).Length() != 0 {
		t.Fatal("a section without trust marks")
	}
}
