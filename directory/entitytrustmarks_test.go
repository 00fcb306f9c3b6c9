package directory_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/trustframe/trustframe/directory"
)

// entityMarksStore is an in-memory directory.TrustMarkStore: the types,
// who is entitled to each (by type id) and the marks recorded.
type entityMarksStore struct {
	directory.TrustMarkStore // the writes are not used here
	types                    []directory.TrustMarkType
	entitled                 map[string][]directory.Entitlement
	marks                    []directory.IssuedTrustMark
	err                      error
}

func (s *entityMarksStore) ListTrustMarkTypes(context.Context) ([]directory.TrustMarkType, error) {
	return s.types, s.err
}

func (s *entityMarksStore) Entitled(_ context.Context, t directory.TrustMarkType, sub string, _ time.Time) ([]directory.Entitlement, error) {
	var out []directory.Entitlement
	for _, e := range s.entitled[t.ID] {
		if sub == "" || e.Subject == sub {
			out = append(out, e)
		}
	}
	return out, nil
}

func (s *entityMarksStore) LatestTrustMark(_ context.Context, typeID, sub string) (directory.IssuedTrustMark, error) {
	var latest *directory.IssuedTrustMark
	for i, m := range s.marks {
		if m.TypeID == typeID && m.Subject == sub && m.RevokedAt == nil && (latest == nil || m.IssuedAt.After(latest.IssuedAt)) {
			latest = &s.marks[i]
		}
	}
	if latest == nil {
		return directory.IssuedTrustMark{}, directory.ErrNotFound
	}
	return *latest, nil
}

// TestEntityTrustMarksForSubject: the Federation tab's trust marks are the
// Active types the entity is entitled to now, in the store's order, each
// with its newest unrevoked mark and that mark's status (active until exp,
// expired from it); a type with no mark, or only revoked ones, has none
// (the tab offers to issue one). Inactive types and types the entity is
// not entitled to are left out.
func TestEntityTrustMarksForSubject(t *testing.T) {
	now := time.Date(2030, 3, 4, 12, 0, 0, 0, time.UTC)
	sub, other := "https://rp.example", "https://other.example"
	typ := func(id, status string) directory.TrustMarkType {
		return directory.TrustMarkType{ID: id, TrustMarkType: "https://dir.example/trust-marks/" + id, Name: id, Status: status}
	}
	mark := func(jti, typeID, s string, iat time.Time, exp time.Duration) directory.IssuedTrustMark {
		return directory.IssuedTrustMark{JTI: jti, TypeID: typeID, Subject: s, IssuedAt: iat, ExpiresAt: iat.Add(exp), JWT: "jwt-" + jti}
	}
	revoked := mark("r1", "lapsed", sub, now.Add(-2*time.Hour), 24*time.Hour)
	at := now.Add(-time.Hour)
	revoked.RevokedAt = &at
	until := time.Date(2030, 3, 31, 23, 59, 59, 0, time.UTC)
	st := &entityMarksStore{
		types: []directory.TrustMarkType{typ("role", "Active"), typ("cert", "Active"), typ("fresh", "Active"),
			typ("off", "Inactive"), typ("others", "Active"), typ("lapsed", "Active")},
		entitled: map[string][]directory.Entitlement{
			"role":   {{Subject: sub}, {Subject: other}},
			"cert":   {{Subject: sub, Until: until}},
			"fresh":  {{Subject: sub}},
			"off":    {{Subject: sub}},
			"others": {{Subject: other}},
			"lapsed": {{Subject: sub}},
		},
		marks: []directory.IssuedTrustMark{
			mark("old", "role", sub, now.Add(-3*time.Hour), 24*time.Hour),
			mark("new", "role", sub, now.Add(-time.Hour), 24*time.Hour),
			mark("theirs", "role", other, now.Add(-time.Minute), 24*time.Hour),
			mark("gone", "cert", sub, now.Add(-48*time.Hour), 24*time.Hour),
			mark("o1", "off", sub, now.Add(-time.Hour), 24*time.Hour),
			revoked,
		},
	}
	got, err := (&directory.EntityTrustMarks{Store: st}).ForSubject(context.Background(), sub, now)
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ id, jti, status string }
	want := []row{{"role", "new", directory.TrustMarkActive}, {"cert", "gone", directory.TrustMarkExpired}, {"fresh", "", ""}, {"lapsed", "", ""}}
	if len(got) != len(want) {
		t.Fatalf("got %d types, want %v: %+v", len(got), want, got)
	}
	for i, w := range want {
		g := row{id: got[i].Type.ID, status: got[i].Status}
		if got[i].Mark != nil {
			g.jti = got[i].Mark.JTI
			if got[i].Mark.JWT != "jwt-"+g.jti {
				t.Errorf("%s: JWT %q", w.id, got[i].Mark.JWT)
			}
		}
		if g != w {
			t.Errorf("row %d: got %+v, want %+v", i, g, w)
		}
	}
	if !got[1].Until.Equal(until) || !got[0].Until.IsZero() {
		t.Errorf("until: %v %v", got[0].Until, got[1].Until)
	}

	// The mark's exp is the moment it expires.
	exp := got[0].Mark.ExpiresAt
	if later, _ := (&directory.EntityTrustMarks{Store: st}).ForSubject(context.Background(), sub, exp); later[0].Status != directory.TrustMarkExpired {
		t.Errorf("at exp: %s", later[0].Status)
	}
	if before, _ := (&directory.EntityTrustMarks{Store: st}).ForSubject(context.Background(), sub, exp.Add(-time.Second)); before[0].Status != directory.TrustMarkActive {
		t.Errorf("before exp: %s", before[0].Status)
	}
}

// TestEntityTrustMarksNone: no types, or no entity ID: nothing, no error;
// the store's failure is returned.
func TestEntityTrustMarksNone(t *testing.T) {
	ctx, now := context.Background(), time.Now()
	got, err := (&directory.EntityTrustMarks{Store: &entityMarksStore{}}).ForSubject(ctx, "https://rp.example", now)
	if err != nil || len(got) != 0 {
		t.Fatalf("no types: %v %v", got, err)
	}
	failing := &entityMarksStore{err: errors.New("disk")}
	if got, err := (&directory.EntityTrustMarks{Store: failing}).ForSubject(ctx, "", now); err != nil || got != nil {
		t.Fatalf("no entity ID asked the store: %v %v", got, err)
	}
	if _, err := (&directory.EntityTrustMarks{Store: failing}).ForSubject(ctx, "https://rp.example", now); err == nil {
		t.Fatal("the store's failure was lost")
	}
}
