package changefeed

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/trustframe/trustframe/store"
)

// logStore is a Store over a fixed log of records with ids 1, 2, ….
type logStore struct {
	recs   []store.AuditRecord
	commit chan struct{}
}

func (s *logStore) FeedEpoch(context.Context) (string, error) { return "e", nil }
func (s *logStore) LastChangeID(context.Context) (int64, error) {
	return int64(len(s.recs)), nil
}
func (s *logStore) ResolveCursor(_ context.Context, c string) (int64, error) {
	if c != store.EncodeCursor("e", 1) {
		return 0, store.ErrCursorMalformed
	}
	return 1, nil
}
func (s *logStore) ChangesAfter(_ context.Context, after int64, limit int) ([]store.AuditRecord, error) {
	out := s.recs[min(after, int64(len(s.recs))):]
	return out[:min(limit, len(out))], nil
}
func (s *logStore) NextCommit() <-chan struct{} { return s.commit }

// TestReadPagesFromTheCursor: the start, a cursor and "now" each read
// from their place; a page's NextCursor points after its last change, an
// empty page keeps the cursor it was asked with; a cursor that is not one
// is the store's error.
func TestReadPagesFromTheCursor(t *testing.T) {
	s := &logStore{recs: []store.AuditRecord{{ID: 1, Action: "create"}, {ID: 2, Action: "update"}, {ID: 3, Action: "delete"}}}
	f := &Feed{Store: s}
	ctx := context.Background()
	for _, c := range []struct {
		after   string
		actions []string
		next    string
	}{
		{"", []string{"create", "update"}, store.EncodeCursor("e", 2)},
		{store.EncodeCursor("e", 1), []string{"update", "delete"}, store.EncodeCursor("e", 3)},
		{"now", nil, store.EncodeCursor("e", 3)},
	} {
		p, err := f.Read(ctx, "a@example.com", c.after, 2, 0)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, ch := range p.Content {
			got = append(got, ch.Action)
		}
		if len(got) != len(c.actions) || (len(got) > 0 && got[0] != c.actions[0]) || p.NextCursor != c.next {
			t.Errorf("after %q: %v next %s, want %v next %s", c.after, got, p.NextCursor, c.actions, c.next)
		}
	}
	if _, err := f.Read(ctx, "a@example.com", "nonsense", 2, 0); !errors.Is(err, store.ErrCursorMalformed) {
		t.Fatalf("%v, want ErrCursorMalformed", err)
	}
}

// TestReadBoundsTheLongPolls: a long poll past the bound per principal is
// refused with the bounds, another principal's is held, and a poll that
// ends makes room again; a shutdown ends the polls held, empty.
func TestReadBoundsTheLongPolls(t *testing.T) {
	stopping := make(chan struct{})
	f := &Feed{Store: &logStore{}, MaxPollsPerPrincipal: 1, Stopping: stopping}
	ctx := context.Background()
	held := make(chan error)
	for _, who := range []string{"a", "b"} {
		go func() {
			_, err := f.Read(ctx, who, "", 10, time.Minute)
			held <- err
		}()
	}
	for held := 0; held < 2; time.Sleep(time.Millisecond) {
		f.polls.mu.Lock()
		held = f.polls.all
		f.polls.mu.Unlock()
	}
	var many *TooManyPolls
	if _, err := f.Read(ctx, "a", "", 10, time.Minute); !errors.As(err, &many) {
		t.Fatalf("a's second poll: %v, want TooManyPolls", err)
	}
	if many.PerPrincipal != 1 || many.All != DefaultMaxPolls {
		t.Fatalf("bounds %+v", many)
	}
	close(stopping)
	for range 2 {
		if err := <-held; err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.Read(ctx, "a", "", 10, time.Millisecond); err != nil {
		t.Fatalf("after the polls ended: %v", err)
	}
}
