package anchor

import (
	"context"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/store"
)

// versionedMarks is fakeMarks with a directory version, as the real store
// has (every write that can end an entitlement bumps it), counting the
// reads a trust mark request makes.
type versionedMarks struct {
	*fakeMarks
	version atomic.Int64
	reads   atomic.Int64
}

func (v *versionedMarks) DirectoryVersion() int64 { return v.version.Load() }

func (v *versionedMarks) TrustMarkTypeByURL(ctx context.Context, u string) (directory.TrustMarkType, error) {
	v.reads.Add(1)
	return v.fakeMarks.TrustMarkTypeByURL(ctx, u)
}

func (v *versionedMarks) Entitled(ctx context.Context, t directory.TrustMarkType, sub string, now time.Time) ([]directory.Entitlement, error) {
	v.reads.Add(1)
	return v.fakeMarks.Entitled(ctx, t, sub, now)
}

func (v *versionedMarks) LatestTrustMark(ctx context.Context, typeID, sub string) (directory.IssuedTrustMark, error) {
	v.reads.Add(1)
	return v.fakeMarks.LatestTrustMark(ctx, typeID, sub)
}

// lapse ends sub's entitlement to every type and revokes its marks, as a
// write to the store does; bump says whether the write is seen (one made
// by this process) or not (another process on the same SQLite file).
func (v *versionedMarks) lapse(sub string, at time.Time, bump bool) {
	v.mu.Lock()
	for id, ents := range v.entitled {
		var kept []directory.Entitlement
		for _, e := range ents {
			if e.Subject != sub {
				kept = append(kept, e)
			}
		}
		v.entitled[id] = kept
	}
	v.mu.Unlock()
	v.revoke(sub, at)
	if bump {
		v.version.Add(1)
	}
}

func newCachedMarkEnv(t *testing.T) (*markEnv, *versionedMarks) {
	e := newMarkEnv(t)
	vm := &versionedMarks{fakeMarks: e.marks}
	e.d.TrustMarks = vm
	return e, vm
}

// A repeat request is answered from the cache without reading the store;
// a write (the directory version) drops the cached answer, and a lapsed
// entitlement is then refused, never answered with the revoked mark.
func TestTrustMarkRepeatCachedUntilAWrite(t *testing.T) {
	e, vm := newCachedMarkEnv(t)
	const sub = "https://rp.example.com"
	e.entitle("t-role", sub, time.Time{})
	now := time.Now()
	first := e.issue(t, roleType, sub, now)
	reads := vm.reads.Load()
	if again := e.issue(t, roleType, sub, now.Add(10*time.Millisecond)); again != first {
		t.Fatal("a repeat got a new mark")
	}
	if vm.reads.Load() != reads {
		t.Fatalf("a repeat read the store %d times", vm.reads.Load()-reads)
	}
	vm.version.Add(1) // an unrelated write: the answer is read again, the same mark
	if again := e.issue(t, roleType, sub, now.Add(20*time.Millisecond)); again != first || vm.reads.Load() == reads {
		t.Fatal("after a write the repeat was not read from the store again")
	}
	vm.lapse(sub, now.Add(30*time.Millisecond), true)
	_, err := e.d.IssueTrustMark(context.Background(), url.Values{"trust_mark_type": {roleType}, "sub": {sub}}, now.Add(40*time.Millisecond))
	refusal(t, err, 404, "not_found")
}

// A lapse the version does not show (a write by another process on the
// same SQLite file) drops the cached answer after store.ReadCacheAge.
func TestTrustMarkCachedAnswerDroppedAfterALapse(t *testing.T) {
	e, vm := newCachedMarkEnv(t)
	const sub = "https://rp.example.com"
	e.entitle("t-role", sub, time.Time{})
	now := time.Now()
	e.issue(t, roleType, sub, now)
	vm.lapse(sub, now.Add(time.Millisecond), false)
	_, err := e.d.IssueTrustMark(context.Background(), url.Values{"trust_mark_type": {roleType}, "sub": {sub}}, now.Add(store.ReadCacheAge))
	refusal(t, err, 404, "not_found")
}

// A cached mark is not answered past its exp.
func TestTrustMarkCachedAnswerKeptOnlyWhileReusable(t *testing.T) {
	e, vm := newCachedMarkEnv(t)
	const sub = "https://rp.example.com"
	now := time.Now()
	until := now.Add(500 * time.Millisecond) // the certification ends: the mark's exp (whole seconds)
	e.entitle("t-cert", sub, until)
	first := e.issue(t, certType, sub, now)
	reads := vm.reads.Load()
	at := time.Unix(int64(claimsOf(first)["exp"].(float64)), 0) // still within store.ReadCacheAge
	if at.Before(now) {
		at = now
	}
	tok, _ := e.d.IssueTrustMark(context.Background(), url.Values{"trust_mark_type": {certType}, "sub": {sub}}, at.Add(time.Millisecond))
	if vm.reads.Load() == reads || tok == first {
		t.Fatalf("an expired mark %q was answered from the cache", first)
	}
}
