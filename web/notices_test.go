package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/trustframe/trustframe/web"
	"github.com/trustframe/trustframe/web/webtest"
)

// Expiry notices: every Active administrator hears once about each item
// that expires within the window; a new date is news again; nothing else is.
func TestExpiryNotices(t *testing.T) {
	smtp := startSMTP(t)
	env := webtest.Start(t, func(c *web.Config) {
		c.ExpiryNoticeDays = 30
		c.SMTPURL = "smtp://" + smtp.ln.Addr().String() + "?from=directory@example.org"
	})
	ctx := context.Background()
	a := newAPI(t, env, "admin@example.com")
	day := func(d int) string { return time.Now().UTC().AddDate(0, 0, d).Format("2006-01-02") }
	send := func() int {
		t.Helper()
		n, err := env.Server.SendExpiryNotices(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := send(); n != 0 {
		t.Fatalf("nothing expires yet, %d announced", n)
	}
	// Who hears: Active Super Users and Data Administrators (dana signed
	// in once), not an Inactive Super User nor a Data Administrator who has
	// not accepted the invitation yet.
	a.must(201, "POST", "/users/super", `{"Email":"former@example.com","Status":"Inactive"}`)
	a.must(201, "POST", "/users/data-administrators", `{"Email":"dana@example.com"}`)
	a.must(201, "POST", "/users/data-administrators", `{"Email":"ivan@example.com"}`)
	webtest.SignIn(t, webtest.Browser(), env.URL, "dana@example.com").Body.Close()

	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	docs := "/organisations/" + oid + "/documents"
	doc := a.must(201, "POST", docs, `{"DocumentType":"Licence","DocumentReferenceNumber":"FCA-9","DocumentExpiryDate":"`+day(10)+`"}`)["DocumentId"].(string)
	a.must(201, "POST", docs, `{"DocumentType":"Licence","DocumentReferenceNumber":"FAR-1","DocumentExpiryDate":"`+day(100)+`"}`)
	key := webtest.Key(t, "p256")
	if r, m := postPEM(t, a, "/organisations/"+oid+"/certificates/qseal", webtest.Cert(t, key, "seal.acme.example", time.Now().Add(-time.Hour), time.Now().Add(5*24*time.Hour))); r.StatusCode != 201 {
		t.Fatalf("certificate: %d %v", r.StatusCode, m)
	}
	app := a.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"Payments app"}`)["SoftwareStatementId"].(string)
	a.must(201, "POST", "/organisations/"+oid+"/softwarestatements/"+app+"/certifications", `{"CertificationType":"FAPI","CertificationStartDate":"`+day(-300)+`","CertificationExpirationDate":"`+day(20)+`"}`)

	smtp.mu.Lock()
	smtp.msgs, smtp.rcpt = nil, nil // the invitation
	smtp.mu.Unlock()
	if n := send(); n != 3 {
		t.Fatalf("announced %d items, want 3", n)
	}
	smtp.mu.Lock()
	rcpt, msgs := strings.Join(smtp.rcpt, " "), append([]string(nil), smtp.msgs...)
	smtp.mu.Unlock()
	if len(msgs) != 2 || !strings.Contains(rcpt, "admin@example.com") || !strings.Contains(rcpt, "dana@example.com") || strings.Contains(rcpt, "former@") || strings.Contains(rcpt, "ivan@") {
		t.Fatalf("recipients %s (%d messages)", rcpt, len(msgs))
	}
	body := msgs[0]
	for _, want := range []string{"Subject: trustframe: 3 items expire soon", "Certificate qseal of Acme", "seal.acme.example", "(in 5 days)",
		"Regulatory document Licence FCA-9 of Acme", "(in 10 days)", "Certification FAPI of Payments app (Acme)", "(in 20 days)",
		env.URL + "/organisations/" + oid + "/documents", env.URL + "/?days=30"} {
		if !strings.Contains(body, want) {
			t.Errorf("message lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "FAR-1") {
		t.Error("a document 100 days off was announced")
	}
	out, _ := env.DB.ListOutbox(ctx, 10)
	if len(out) < 2 || !out[0].Delivered || !out[1].Delivered {
		t.Fatalf("outbox %+v", out)
	}

	// The run is in the audit log.
	if l := a.must(200, "GET", "/audit?Action=expiry_notice", ""); l["totalSize"] != float64(1) || !strings.Contains(toJSON(t, l), "3 items announced to 2 recipients") {
		t.Fatalf("audit of the notice: %v", l)
	}
	// A second run has nothing new.
	if n := send(); n != 0 {
		t.Fatalf("second run announced %d", n)
	}
	// A new expiry date is news again; only that item is in the message.
	a.must(200, "PUT", docs+"/"+doc, `{"DocumentType":"Licence","DocumentReferenceNumber":"FCA-9","DocumentExpiryDate":"`+day(25)+`"}`)
	if n := send(); n != 1 {
		t.Fatalf("after the date changed: %d", n)
	}
	smtp.mu.Lock()
	last := smtp.msgs[len(smtp.msgs)-1]
	smtp.mu.Unlock()
	if !strings.Contains(last, "1 item expires soon") || !strings.Contains(last, "(in 25 days)") || strings.Contains(last, "seal.acme.example") {
		t.Fatalf("second message:\n%s", last)
	}
	// A notice the mail server refuses is kept with the refusal, to be
	// tried again (store/outbox.go).
	smtp.mu.Lock()
	smtp.refuse = true
	smtp.mu.Unlock()
	a.must(200, "PUT", docs+"/"+doc, `{"DocumentType":"Licence","DocumentReferenceNumber":"FCA-9","DocumentExpiryDate":"`+day(26)+`"}`)
	if n := send(); n != 1 {
		t.Fatalf("after the date changed again: %d", n)
	}
	out, _ = env.DB.ListOutbox(ctx, 10)
	for _, m := range out[:2] {
		if m.Delivered || m.Attempts != 1 || !strings.Contains(m.LastError, "451") {
			t.Fatalf("a refused notice reads %+v", m)
		}
	}
}

// With notices off nothing is sent, and without SMTP the message waits in
// the outbox.
func TestExpiryNoticesOffAndOutbox(t *testing.T) {
	ctx := context.Background()
	for _, days := range []int{0, 30} {
		env := webtest.Start(t, func(c *web.Config) { c.ExpiryNoticeDays = days })
		a := newAPI(t, env, "admin@example.com")
		oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
		a.must(201, "POST", "/organisations/"+oid+"/documents", `{"DocumentType":"Licence","DocumentExpiryDate":"`+time.Now().UTC().AddDate(0, 0, 3).Format("2006-01-02")+`"}`)
		n, err := env.Server.SendExpiryNotices(ctx)
		out, _ := env.DB.ListOutbox(ctx, 10)
		if days == 0 && (err != nil || n != 0 || len(out) != 0) {
			t.Fatalf("off: %d %v %+v", n, err, out)
		}
		if days == 30 && (err != nil || n != 1 || len(out) != 1 || out[0].Delivered || !strings.Contains(out[0].Body, "(no reference number)")) {
			t.Fatalf("outbox: %d %v %+v", n, err, out)
		}
	}
}

// With --expiry-notice-contacts, each organisation's contacts of those
// types hear about their own organisation's items only, without console
// links; other contacts hear nothing.
func TestExpiryNoticesToOrganisationContacts(t *testing.T) {
	env := webtest.Start(t, func(c *web.Config) {
		c.ExpiryNoticeDays = 30
		c.ExpiryNoticeContacts = []string{"Technical"}
	})
	ctx := context.Background()
	a := newAPI(t, env, "admin@example.com")
	soon := time.Now().UTC().AddDate(0, 0, 7).Format("2006-01-02")
	orgs := map[string]string{}
	for _, name := range []string{"Acme", "Zed"} {
		id := a.must(201, "POST", "/organisations", org(name))["OrganisationId"].(string)
		orgs[name] = id
		a.must(201, "POST", "/organisations/"+id+"/contacts", `{"ContactType":"Technical","LastName":"T","EmailAddress":"tech@`+strings.ToLower(name)+`.example"}`)
		a.must(201, "POST", "/organisations/"+id+"/documents", `{"DocumentType":"Licence","DocumentReferenceNumber":"`+name+`-LIC","DocumentExpiryDate":"`+soon+`"}`)
	}
	a.must(201, "POST", "/organisations/"+orgs["Acme"]+"/contacts", `{"ContactType":"Business","LastName":"B","EmailAddress":"business@acme.example"}`)
	if n, err := env.Server.SendExpiryNotices(ctx); err != nil || n != 2 {
		t.Fatalf("%d %v", n, err)
	}
	out, _ := env.DB.ListOutbox(ctx, 20)
	byTo := map[string]string{}
	for _, m := range out {
		byTo[m.To] = m.Body
	}
	if len(byTo) != 3 || byTo["business@acme.example"] != "" {
		t.Fatalf("recipients: %v", keys(byTo))
	}
	acme := byTo["tech@acme.example"]
	if !strings.Contains(acme, "items of Acme") || !strings.Contains(acme, "Acme-LIC") || strings.Contains(acme, "Zed-LIC") || strings.Contains(acme, env.URL) {
		t.Errorf("Acme's technical contact got:\n%s", acme)
	}
	if zed := byTo["tech@zed.example"]; !strings.Contains(zed, "Zed-LIC") || strings.Contains(zed, "Acme-LIC") {
		t.Errorf("Zed's technical contact got:\n%s", zed)
	}
	if admin := byTo["admin@example.com"]; !strings.Contains(admin, "Acme-LIC") || !strings.Contains(admin, "Zed-LIC") || !strings.Contains(admin, env.URL) {
		t.Errorf("the administrator got:\n%s", admin)
	}
}
