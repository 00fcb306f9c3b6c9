package participants

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/trustframe/trustframe/lifecycle"
	"github.com/trustframe/trustframe/store"
)

// gate is a build of a body the test hands over when it wants the build
// to end; began tells when the build has begun to read.
type gate struct {
	began chan struct{}
	body  chan string
}

func newGate() gate { return gate{began: make(chan struct{}, 4), body: make(chan string)} }

func (g gate) build(context.Context) ([]byte, error) {
	g.began <- struct{}{}
	return []byte(<-g.body), nil
}

// settled is the answer of c once the rebuild for version has replaced
// the one in hand.
func settled(t *testing.T, c *answers, version int64, g gate) *Answer {
	t.Helper()
	for range 1000 {
		if a, err := c.get(context.Background(), version, g.build); err != nil || a.Version == version {
			return a
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("the rebuild never replaced the answer")
	return nil
}

// TestAnswerKeepsLastModifiedWhenTheListIsTheSame: a rebuild that finds a
// new list brings a new ETag and Last-Modified; one that finds the same
// keeps both (nothing a client holds has changed).
func TestAnswerKeepsLastModifiedWhenTheListIsTheSame(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	c := &answers{}
	c.Now = clock
	g := newGate()
	go func() { <-g.began; g.body <- `["A"]` }()
	a1, err := c.get(context.Background(), 1, g.build)
	if err != nil || string(a1.Body) != `["A"]` {
		t.Fatalf("%v %v", a1, err)
	}

	advance(time.Minute)
	go func() { <-g.began; g.body <- `["A","B"]` }()
	a2 := settled(t, c, 2, g)
	if string(a2.Body) != `["A","B"]` || a2.ETag == a1.ETag || !a2.Modified.After(a1.Modified) {
		t.Fatalf("after a change: %s etag %s (was %s), modified %v (was %v)", a2.Body, a2.ETag, a1.ETag, a2.Modified, a1.Modified)
	}

	advance(time.Minute)
	go func() { <-g.began; g.body <- `["A","B"]` }()
	a3 := settled(t, c, 3, g)
	if a3.ETag != a2.ETag || !a3.Modified.Equal(a2.Modified) {
		t.Fatalf("same list: etag %s (was %s), modified %v (was %v)", a3.ETag, a2.ETag, a3.Modified, a2.Modified)
	}
}

// TestLastModifiedIsWhenTheBuildBegan: two instances each build the list.
// A's build starts first and is slow; a change lands; B's build starts
// after it, holds it and ends first. B's list must be dated after A's, so
// that B answers A's Last-Modified with its list, not a 304: each date is
// when its build began to read (stamped at the end, A's would be the later
// one and B would answer 304 for a change the client has not seen).
func TestLastModifiedIsWhenTheBuildBegan(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	a, b := &answers{}, &answers{}
	a.Now, b.Now = clock, clock
	ga, gb := newGate(), newGate()
	ctx := context.Background()

	gotA := make(chan *Answer)
	go func() {
		ans, err := a.get(ctx, 1, ga.build)
		if err != nil {
			t.Error(err)
		}
		gotA <- ans
	}()
	<-ga.began           // A begins to read: the store without the change
	advance(time.Second) // the change is committed
	advance(time.Second) // B begins to read: the store with it
	gotB := make(chan *Answer)
	go func() {
		ans, err := b.get(ctx, 2, gb.build)
		if err != nil {
			t.Error(err)
		}
		gotB <- ans
	}()
	<-gb.began
	advance(time.Second)
	gb.body <- `["old","change"]`
	ansB := <-gotB
	advance(10 * time.Second) // A is slow
	ga.body <- `["old"]`
	ansA := <-gotA
	if !ansB.Modified.Truncate(time.Second).After(ansA.Modified) {
		t.Fatalf("B's list holds the change but is dated %v, A's without it %v", ansB.Modified, ansA.Modified)
	}
}

// versioned is a VersionedStore of a fixed list at a fixed version.
type versioned struct{ listed }

func (versioned) DirectoryVersion() int64 { return 1 }

// TestCacheKeepsAnAnswerPerFilter: the whole list and each filter have
// their own answer.
func TestCacheKeepsAnAnswerPerFilter(t *testing.T) {
	st := versioned{listed{
		{Organisation: store.Organisation{OrganisationID: "a"}, OrgDomainRoleClaims: []store.OrgDomainRoleClaim{{AuthorisationDomain: "D", Role: "R"}}},
		{Organisation: store.Organisation{OrganisationID: "b"}},
	}}
	var c Cache
	ctx := context.Background()
	all, err := c.Get(ctx, st, "", "", lifecycle.VocabWithdrawn)
	if err != nil {
		t.Fatal(err)
	}
	one, err := c.Get(ctx, st, "D", "R", lifecycle.VocabWithdrawn)
	if err != nil {
		t.Fatal(err)
	}
	if all.ETag == one.ETag || len(one.Body) >= len(all.Body) {
		t.Fatalf("the filtered answer is the whole list: %s", one.Body)
	}
	if again, _ := c.Get(ctx, st, "D", "R", lifecycle.VocabWithdrawn); again != one {
		t.Fatal("the filter's answer was built again")
	}
}
