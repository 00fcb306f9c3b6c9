package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/store/storetest"
)

// markFixture is an Active organisation holding an Active PISP claim,
// with an application (role PISP, a FAPI certification) and a server,
// each a subordinate of the federation, and a second application without
// the role; the clock is at noon on 2026-06-30.
type markFixture struct {
	domainFixture
	clock         *clock
	claim         store.AuthorityClaim
	app, plainApp store.SoftwareStatement
	server        store.AuthorisationServer
	cert          store.Certification
	roleT, certT  store.TrustMarkType
	appSub, asSub string
	plainSub      string
	t             *testing.T
}

var markNoon = time.Date(2026, 6, 30, 12, 0, 0, 0, time.UTC)

func newMarkFixture(t *testing.T) *markFixture {
	t.Helper()
	c := &clock{}
	c.ns.Store(markNoon.UnixNano())
	db, err := store.Open(context.Background(), storetest.Path(t), c.now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	f := &markFixture{domainFixture: newDomainFixtureOn(t, db), clock: c, t: t,
		appSub: "https://app.example", asSub: "https://as.example", plainSub: "https://plain.example"}
	ctx := context.Background()
	f.claim, err = db.CreateAuthorityClaim(ctx, who, f.domainFixture.claim("PISP", "Payments"), nil)
	f.must(err)
	f.app, err = db.CreateSoftwareStatement(ctx, who, store.SoftwareStatement{OrganisationID: f.org, ClientName: "Pay", Roles: []string{"PISP"}, Status: "Active", FederationEntityID: f.appSub}, nil)
	f.must(err)
	f.plainApp, err = db.CreateSoftwareStatement(ctx, who, store.SoftwareStatement{OrganisationID: f.org, ClientName: "Plain", Status: "Active", FederationEntityID: f.plainSub}, nil)
	f.must(err)
	f.server, err = db.CreateAuthorisationServer(ctx, who, store.AuthorisationServer{OrganisationID: f.org, CustomerFriendlyName: "AS", Issuer: "https://as.example",
		Status: "Active", FederationEntityID: f.asSub}, nil)
	f.must(err)
	f.cert, err = db.SaveCertification(ctx, who, store.Certification{OrganisationID: f.org, SubjectType: "SoftwareStatement", SubjectID: f.app.SoftwareStatementID,
		CertificationType: "FAPI", CertificationStartDate: "2026-01-01", CertificationExpirationDate: "2026-06-30", Status: "Active"}, nil, nil)
	f.must(err)
	f.roleT, err = db.CreateTrustMarkType(ctx, who, store.TrustMarkType{TrustMarkType: "https://dir.example/trust-marks/pisp", Name: "PISP", Basis: "Role",
		AuthorisationDomain: "Payments", Role: "PISP", Lifetime: "24h", Status: "Active"}, nil)
	f.must(err)
	f.certT, err = db.CreateTrustMarkType(ctx, who, store.TrustMarkType{TrustMarkType: "https://dir.example/trust-marks/fapi", Name: "FAPI", Basis: "Certification",
		CertificationType: "FAPI", Lifetime: "24h", Status: "Active"}, nil)
	f.must(err)
	return f
}

func (f *markFixture) must(err error) {
	f.t.Helper()
	if err != nil {
		f.t.Fatal(err)
	}
}

func (f *markFixture) entitled(tt store.TrustMarkType) []string {
	f.t.Helper()
	tt, err := f.db.GetTrustMarkType(context.Background(), tt.ID) // as stored now
	f.must(err)
	l, err := f.db.Entitled(context.Background(), tt, "", f.clock.now())
	f.must(err)
	var subs []string
	for _, e := range l {
		subs = append(subs, e.Subject)
	}
	return subs
}

// record issues a mark of tt to sub now, for a day.
func (f *markFixture) record(tt store.TrustMarkType, sub, jti string) {
	f.t.Helper()
	now := f.clock.now()
	f.must(f.db.RecordTrustMark(context.Background(), store.IssuedTrustMark{JTI: jti, TypeID: tt.ID, Subject: sub, IssuedAt: now, ExpiresAt: now.Add(24 * time.Hour), JWT: "x.y.z"}))
}

func (f *markFixture) mark(jti string) store.IssuedTrustMark {
	f.t.Helper()
	m, err := f.db.TrustMarkByJTI(context.Background(), jti)
	f.must(err)
	return m
}

func (f *markFixture) revocations() []store.AuditRecord {
	f.t.Helper()
	var out []store.AuditRecord
	f.must(f.db.EachAudit(context.Background(), store.AuditFilter{SubjectType: "TrustMark"}, func(r store.AuditRecord) error {
		out = append(out, r)
		return nil
	}))
	return out
}

func TestEntitledToARoleType(t *testing.T) {
	f := newMarkFixture(t)
	// The server (its organisation holds the claim) and the application
	// with the role; not the application without it.
	if got := strings.Join(f.entitled(f.roleT), " "); got != f.appSub+" "+f.asSub {
		t.Fatalf("entitled: %q", got)
	}
	l, err := f.db.Entitled(context.Background(), f.roleT, f.appSub, f.clock.now())
	if err != nil || len(l) != 1 || l[0].Kind != "Application" || l[0].ID != f.app.SoftwareStatementID || l[0].OrganisationID != f.org || !l[0].Until.IsZero() {
		t.Fatalf("one subject: %+v %v", l, err)
	}
	if l, _ := f.db.Entitled(context.Background(), f.roleT, f.plainSub, f.clock.now()); len(l) != 0 {
		t.Fatalf("an application without the role: %+v", l)
	}
}

func TestEntitledToACertificationType(t *testing.T) {
	f := newMarkFixture(t)
	l, err := f.db.Entitled(context.Background(), f.certT, "", f.clock.now())
	if err != nil || len(l) != 1 || l[0].Subject != f.appSub {
		t.Fatalf("entitled: %+v %v", l, err)
	}
	// A certification ending on D covers until the end of D, in UTC.
	if want := time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC); !l[0].Until.Equal(want) {
		t.Fatalf("Until %v, want %v", l[0].Until, want)
	}
	f.clock.add(12*time.Hour - time.Second) // 23:59:59 on the last day
	if got := f.entitled(f.certT); len(got) != 1 {
		t.Fatalf("on its last day: %v", got)
	}
	f.clock.add(time.Second) // the next day
	if got := f.entitled(f.certT); len(got) != 0 {
		t.Fatalf("after its last day: %v", got)
	}
}

func TestEntitledNotBeforeACertificationStarts(t *testing.T) {
	f := newMarkFixture(t)
	_, err := f.db.SaveCertification(context.Background(), who, store.Certification{OrganisationID: f.org, SubjectType: "AuthorisationServer", SubjectID: f.server.AuthorisationServerID,
		CertificationType: "FAPI", CertificationStartDate: "2026-07-01", Status: "Active"}, nil, nil)
	f.must(err)
	if got := f.entitled(f.certT); len(got) != 1 || got[0] != f.appSub {
		t.Fatalf("a certification starting tomorrow counts: %v", got)
	}
	f.clock.add(12 * time.Hour)
	if got := f.entitled(f.certT); len(got) != 1 || got[0] != f.asSub {
		t.Fatalf("the next day: %v", got)
	}
}

// TestLapseRevokesMarks: each write that ends an entitlement revokes the
// marks recorded for it (and only those), in its own transaction, with an
// audit record naming type, subject and why.
func TestLapseRevokesMarks(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name    string
		lapse   func(f *markFixture)
		revoked []string // jti
		why     string
	}{
		{"claim Inactive", func(f *markFixture) {
			_, err := f.db.UpdateAuthorityClaim(ctx, who, store.AuthorityClaim{OrganisationID: f.org, ClaimID: f.claim.ClaimID, RegistrationID: f.claim.RegistrationID, Status: "Inactive"}, nil, nil)
			f.must(err)
		}, []string{"role-app", "role-as"}, "holds no Active claim on the role PISP"},
		{"certification Inactive", func(f *markFixture) {
			c := f.cert
			c.Status = "Inactive"
			_, err := f.db.SaveCertification(ctx, who, c, nil, nil)
			f.must(err)
		}, []string{"cert-app"}, "holds no Active FAPI certification"},
		{"certification ended", func(f *markFixture) {
			c := f.cert
			c.CertificationExpirationDate = "2026-06-29"
			_, err := f.db.SaveCertification(ctx, who, c, nil, nil)
			f.must(err)
		}, []string{"cert-app"}, "certification ended on 2026-06-29"},
		{"application not Active", func(f *markFixture) {
			a := f.app
			a.Status = "Withdrawn"
			_, err := f.db.UpdateSoftwareStatement(ctx, who, a, nil, nil)
			f.must(err)
		}, []string{"cert-app", "role-app"}, "application Pay is Withdrawn"},
		{"application loses the role", func(f *markFixture) {
			a := f.app
			a.Roles = []string{}
			_, err := f.db.UpdateSoftwareStatement(ctx, who, a, nil, nil)
			f.must(err)
		}, []string{"role-app"}, "does not have the role PISP"},
		{"server not Active", func(f *markFixture) {
			s := f.server
			s.Status = "Withdrawn"
			_, err := f.db.UpdateAuthorisationServer(ctx, who, s, nil, nil)
			f.must(err)
		}, []string{"role-as"}, "authorisation server AS is Withdrawn"},
		{"organisation not Active", func(f *markFixture) {
			o, err := f.db.GetOrganisation(ctx, f.org)
			f.must(err)
			o.Status = "Withdrawn"
			_, err = f.db.UpdateOrganisation(ctx, who, o, nil, nil)
			f.must(err)
		}, []string{"cert-app", "role-app", "role-as"}, "organisation Bank is Withdrawn"},
		{"type Inactive", func(f *markFixture) {
			tt := f.roleT
			tt.Status = "Inactive"
			_, err := f.db.UpdateTrustMarkType(ctx, who, tt, nil, nil)
			f.must(err)
		}, []string{"role-app", "role-as"}, "the trust mark type is Inactive"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newMarkFixture(t)
			f.record(f.roleT, f.appSub, "role-app")
			f.record(f.roleT, f.asSub, "role-as")
			// As issued: no later than the certification's end (2026-06-30).
			f.must(f.db.RecordTrustMark(ctx, store.IssuedTrustMark{JTI: "cert-app", TypeID: f.certT.ID, Subject: f.appSub,
				IssuedAt: markNoon, ExpiresAt: markNoon.Add(12 * time.Hour), JWT: "x.y.z"}))
			// A mark already expired is left as it is (its status is expired).
			f.must(f.db.RecordTrustMark(ctx, store.IssuedTrustMark{JTI: "old", TypeID: f.roleT.ID, Subject: f.appSub,
				IssuedAt: markNoon.Add(-48 * time.Hour), ExpiresAt: markNoon.Add(-24 * time.Hour), JWT: "x.y.z"}))
			f.clock.add(time.Minute)
			c.lapse(f)
			recs := f.revocations()
			var revoked []string
			for _, jti := range []string{"cert-app", "role-app", "role-as", "old"} {
				m := f.mark(jti)
				if m.RevokedAt == nil {
					continue
				}
				revoked = append(revoked, jti)
				if !m.RevokedAt.Equal(markNoon.Add(time.Minute)) || !strings.Contains(m.RevokeReason, c.why) {
					t.Errorf("%s: revoked at %v because %q", jti, m.RevokedAt, m.RevokeReason)
				}
			}
			if strings.Join(revoked, " ") != strings.Join(c.revoked, " ") {
				t.Fatalf("revoked %v, want %v", revoked, c.revoked)
			}
			if len(recs) != len(c.revoked) {
				t.Fatalf("%d audit records for %d revocations: %+v", len(recs), len(c.revoked), recs)
			}
			for _, r := range recs {
				m := f.mark(r.SubjectID)
				if r.Action != "trust_mark_revoke" || r.Actor != who.Actor || m.RevokedAt == nil ||
					!strings.Contains(r.Summary, m.TrustMarkType) || !strings.Contains(r.Summary, m.Subject) || !strings.Contains(r.Summary, c.why) {
					t.Errorf("audit record %+v for %+v", r, m)
				}
			}
			// A revoked mark is never the latest again (the expired one,
			// unrevoked, is).
			want := "role-app"
			if slicesContains(c.revoked, "role-app") {
				want = "old"
			}
			if m, err := f.db.LatestTrustMark(ctx, f.roleT.ID, f.appSub); err != nil || m.JTI != want {
				t.Fatalf("latest after the lapse: %+v %v, want %s", m, err, want)
			}
		})
	}
}

func slicesContains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// TestRevokedMarkStaysRevoked: the entitlement comes back, the mark does
// not; a new one may be issued and recorded.
func TestRevokedMarkStaysRevoked(t *testing.T) {
	ctx := context.Background()
	f := newMarkFixture(t)
	f.record(f.roleT, f.asSub, "first")
	s := f.server
	s.Status = "Withdrawn"
	s, err := f.db.UpdateAuthorisationServer(ctx, who, s, nil, nil)
	f.must(err)
	s.Status = "Active"
	_, err = f.db.UpdateAuthorisationServer(ctx, who, s, nil, nil)
	f.must(err)
	if got := f.entitled(f.roleT); len(got) != 2 {
		t.Fatalf("entitled again: %v", got)
	}
	if m := f.mark("first"); m.RevokedAt == nil {
		t.Fatal("the revoked mark came back")
	}
	f.record(f.roleT, f.asSub, "second")
	if m, err := f.db.LatestTrustMark(ctx, f.roleT.ID, f.asSub); err != nil || m.JTI != "second" || m.TrustMarkType != f.roleT.TrustMarkType {
		t.Fatalf("latest: %+v %v", m, err)
	}
}

// TestLapseTouchesOnlyItsOrganisation: another organisation's marks are
// neither read nor revoked by a write to this one.
func TestLapseTouchesOnlyItsOrganisation(t *testing.T) {
	ctx := context.Background()
	f := newMarkFixture(t)
	// A mark whose subject is gone (no subject has the entity ID): only a
	// write of its type re-checks it.
	f.record(f.roleT, "https://gone.example", "gone")
	f.record(f.roleT, f.asSub, "as")
	_, err := f.db.UpdateAuthorityClaim(ctx, who, store.AuthorityClaim{OrganisationID: f.org, ClaimID: f.claim.ClaimID, RegistrationID: f.claim.RegistrationID, Status: "Inactive"}, nil, nil)
	f.must(err)
	if f.mark("gone").RevokedAt != nil || f.mark("as").RevokedAt == nil {
		t.Fatal("the claim's write reached beyond its organisation")
	}
	tt := f.roleT
	tt.Description = "changed"
	_, err = f.db.UpdateTrustMarkType(ctx, who, tt, nil, nil)
	f.must(err)
	if m := f.mark("gone"); m.RevokedAt == nil || !strings.Contains(m.RevokeReason, "no application or authorisation server") {
		t.Fatalf("the type's write: %+v", m)
	}
}

func TestTrustMarkTypeStoreChecks(t *testing.T) {
	ctx := context.Background()
	f := newMarkFixture(t)
	fieldOf := func(err error, field string) string {
		t.Helper()
		var e *directory.Error
		if !errors.As(err, &e) || e.Fields[field] == "" {
			t.Fatalf("want a refusal on %s, got %v", field, err)
		}
		return e.Fields[field]
	}
	base := store.TrustMarkType{TrustMarkType: "https://dir.example/trust-marks/x", Name: "X", Basis: "Role", AuthorisationDomain: "Payments", Role: "PISP", Lifetime: "1h", Status: "Active"}
	for _, c := range []struct {
		name, field string
		edit        func(*store.TrustMarkType)
	}{
		{"URL taken", "TrustMarkType", func(tt *store.TrustMarkType) { tt.TrustMarkType = f.roleT.TrustMarkType }},
		{"unknown domain", "AuthorisationDomain", func(tt *store.TrustMarkType) { tt.AuthorisationDomain = "Nope" }},
		{"role of another domain", "Role", func(tt *store.TrustMarkType) { tt.Role = "DATA" }},
		{"unknown certification type", "CertificationType", func(tt *store.TrustMarkType) {
			tt.Basis, tt.AuthorisationDomain, tt.Role, tt.CertificationType = "Certification", "", "", "NOPE"
		}},
	} {
		tt := base
		c.edit(&tt)
		_, err := f.db.CreateTrustMarkType(ctx, who, tt, nil)
		fieldOf(err, c.field)
	}
	all, _ := f.db.ListTrustMarkTypes(ctx)
	if len(all) != 2 {
		t.Fatalf("a refused type was written: %d types", len(all))
	}
	// A chosen Id that is taken is a conflict.
	tt := base
	tt.ID = f.roleT.ID
	if _, err := f.db.CreateTrustMarkType(ctx, who, tt, nil); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("Id taken: %v", err)
	}
	// The URL cannot change; left out, it is kept, as is the Status.
	up := f.roleT
	up.TrustMarkType = "https://dir.example/other"
	_, err := f.db.UpdateTrustMarkType(ctx, who, up, nil, nil)
	fieldOf(err, "TrustMarkType")
	up.TrustMarkType, up.Status, up.Name = "", "", "Payment initiation"
	saved, err := f.db.UpdateTrustMarkType(ctx, who, up, nil, nil)
	if err != nil || saved.TrustMarkType != f.roleT.TrustMarkType || saved.Status != "Active" || saved.Name != "Payment initiation" {
		t.Fatalf("update: %+v %v", saved, err)
	}
	if byURL, err := f.db.TrustMarkTypeByURL(ctx, f.roleT.TrustMarkType); err != nil || byURL.ID != f.roleT.ID {
		t.Fatalf("by URL: %+v %v", byURL, err)
	}
	// Create and update are audited.
	var actions []string
	f.must(f.db.EachAudit(ctx, store.AuditFilter{SubjectType: "TrustMarkType", SubjectID: f.roleT.ID}, func(r store.AuditRecord) error {
		actions = append(actions, r.Action)
		return nil
	}))
	if strings.Join(actions, " ") != "create update" {
		t.Fatalf("audit: %v", actions)
	}
}

// The type by URL is kept between trust mark requests (readcache.go), but
// a change of the type is seen by the very next read.
func TestTrustMarkTypeByURLSeesAChange(t *testing.T) {
	f := newMarkFixture(t)
	ctx := context.Background()
	for i := 0; i < 2; i++ { // the second read is the cached one
		if got, err := f.db.TrustMarkTypeByURL(ctx, f.roleT.TrustMarkType); err != nil || got.Status != "Active" {
			t.Fatalf("read %d: %+v %v", i, got, err)
		}
	}
	next := f.roleT
	next.Status = "Inactive"
	_, err := f.db.UpdateTrustMarkType(ctx, who, next, nil, nil)
	f.must(err)
	if got, err := f.db.TrustMarkTypeByURL(ctx, f.roleT.TrustMarkType); err != nil || got.Status != "Inactive" {
		t.Fatalf("after the change: %+v %v", got, err)
	}
	if _, err := f.db.TrustMarkTypeByURL(ctx, "https://dir.example/none"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("an unknown URL: %v", err)
	}
}

// TestShortenedCertificationRevokesMarksOutlivingIt: a certification
// whose end moves earlier but still covers today keeps the entitlement,
// yet a mark issued under the old end outlives the new one; nothing else
// would revoke it when the certification stops covering, so the status
// would say active past the entitlement (§17). The write revokes it.
func TestShortenedCertificationRevokesMarksOutlivingIt(t *testing.T) {
	ctx := context.Background()
	f := newMarkFixture(t)
	c := f.cert
	c.CertificationExpirationDate = "2026-07-10"
	c, err := f.db.SaveCertification(ctx, who, c, nil, nil)
	f.must(err)
	f.record(f.certT, f.appSub, "long")                                                                         // exp 2026-07-01 12:00
	f.must(f.db.RecordTrustMark(ctx, store.IssuedTrustMark{JTI: "short", TypeID: f.certT.ID, Subject: f.appSub, // exp before the new end
		IssuedAt: markNoon, ExpiresAt: markNoon.Add(6 * time.Hour), JWT: "x.y.z"}))
	c.CertificationExpirationDate = "2026-06-30" // covers until 2026-07-01 00:00
	_, err = f.db.SaveCertification(ctx, who, c, nil, nil)
	f.must(err)
	if got := f.entitled(f.certT); len(got) != 1 {
		t.Fatalf("still entitled today: %v", got)
	}
	if m := f.mark("long"); m.RevokedAt == nil || !strings.Contains(m.RevokeReason, "2026-06-30") {
		t.Fatalf("the mark outliving the certification: %+v", m)
	}
	if m := f.mark("short"); m.RevokedAt != nil {
		t.Fatalf("a mark expiring within the certification was revoked: %+v", m)
	}
}
