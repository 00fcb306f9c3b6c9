package store_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/store/storetest"
)

// TestPoolKeepsConnections: a burst of concurrent reads wider than the
// pool leaves its connections open for the next burst instead of closing
// all but two (each new SQLite connection re-reads the schema and the
// pragmas and re-prepares statements).
func TestPoolKeepsConnections(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	db.EnsureSuperUser(ctx, "root@example.com")
	for range 3 {
		// Eight readers at once, each holding its connection until all
		// have one: the pool's width.
		var held, wg sync.WaitGroup
		held.Add(8)
		for range 8 {
			wg.Go(func() {
				c, err := db.SQL().Conn(ctx)
				if err != nil {
					t.Error(err)
					held.Done()
					return
				}
				defer c.Close()
				var n int
				if err := c.QueryRowContext(ctx, `SELECT COUNT(*) FROM super_users`).Scan(&n); err != nil {
					t.Error(err)
				}
				held.Done()
				held.Wait()
			})
		}
		wg.Wait()
	}
	st := db.SQL().Stats()
	if st.MaxIdleClosed != 0 || st.MaxIdleTimeClosed != 0 || st.MaxLifetimeClosed != 0 {
		t.Fatalf("the pool closed connections: %d over the idle limit, %d idle too long, %d too old (opened %d)",
			st.MaxIdleClosed, st.MaxIdleTimeClosed, st.MaxLifetimeClosed, st.OpenConnections)
	}
	if st.Idle != 8 || st.OpenConnections != 8 {
		t.Fatalf("after the bursts %d connections are open, %d idle; want all kept", st.OpenConnections, st.Idle)
	}
}

// TestRoleCachedAndInvalidated: the role of an administrator is read from
// the database once and then from memory, until any administrator changes
// through the store (at once) or the cache's short age passes (a change
// made by another process on the same file).
func TestRoleCachedAndInvalidated(t *testing.T) {
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	db, err := store.Open(context.Background(), storetest.Path(t), clock)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	a := store.Audit{Actor: "root@example.com"}
	db.EnsureSuperUser(ctx, "root@example.com")
	if _, err := db.CreateSuperUser(ctx, a, "sue@example.com", "Active"); err != nil {
		t.Fatal(err)
	}
	if r, _ := db.RoleOf(ctx, "sue@example.com"); r != store.RoleSuperUser {
		t.Fatalf("role %q", r)
	}
	// Behind the store's back (as another process would): still cached.
	if _, err := db.SQL().Exec(`UPDATE super_users SET status = 'Inactive' WHERE email = 'sue@example.com'`); err != nil {
		t.Fatal(err)
	}
	if r, _ := db.RoleOf(ctx, "sue@example.com"); r != store.RoleSuperUser {
		t.Fatalf("role not cached: %q", r)
	}
	// The cache's age bounds what another process's change waits for.
	mu.Lock()
	now = now.Add(store.RoleCacheAge + time.Second)
	mu.Unlock()
	if r, _ := db.RoleOf(ctx, "sue@example.com"); r != store.RoleNone {
		t.Fatalf("role after the cache age: %q, want none", r)
	}
	if _, err := db.SQL().Exec(`UPDATE super_users SET status = 'Active' WHERE email = 'sue@example.com'`); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	now = now.Add(store.RoleCacheAge + time.Second)
	mu.Unlock()
	if r, _ := db.RoleOf(ctx, "sue@example.com"); r != store.RoleSuperUser {
		t.Fatalf("role %q", r)
	}
	// Any administrator change through the store is seen at once.
	for _, step := range []struct {
		change func() error
		email  string
		want   store.Role
	}{
		{func() error { _, err := db.SetSuperUserStatus(ctx, a, "sue@example.com", "Inactive", nil); return err }, "sue@example.com", store.RoleNone},
		{func() error { _, err := db.SetSuperUserStatus(ctx, a, "sue@example.com", "Active", nil); return err }, "sue@example.com", store.RoleSuperUser},
		{func() error {
			_, _, err := db.InviteDataAdministrator(ctx, a, "dana@example.com", store.Invitation{To: "dana@example.com", Subject: "s", Body: "b"})
			return err
		}, "dana@example.com", store.RoleDataAdmin},
		{func() error {
			_, err := db.SetDataAdministratorStatus(ctx, a, "dana@example.com", "Inactive", nil)
			return err
		}, "dana@example.com", store.RoleNone},
		{func() error { _, err := db.CreateSuperUser(ctx, a, "dana@example.com", "Active"); return err }, "dana@example.com", store.RoleSuperUser},
	} {
		db.RoleOf(ctx, step.email) // cache the old role
		if err := step.change(); err != nil {
			t.Fatal(err)
		}
		if r, _ := db.RoleOf(ctx, step.email); r != step.want {
			t.Fatalf("%s after the change: %q, want %q", step.email, r, step.want)
		}
	}
}

// TestGetOrganisationFlags: the one-statement organisation read returns its
// flags sorted by id, and an empty list (not nil) for none.
func TestGetOrganisationFlags(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	a := store.Audit{Actor: "t"}
	f1, err := db.CreateFlag(ctx, a, store.Flag{Name: "One", Type: "Organisation", Status: "Active"})
	if err != nil {
		t.Fatal(err)
	}
	f2, _ := db.CreateFlag(ctx, a, store.Flag{Name: "Two", Type: "Organisation", Status: "Active"})
	want := []string{f1.FlagID, f2.FlagID}
	if want[0] > want[1] {
		want[0], want[1] = want[1], want[0]
	}
	o, err := db.CreateOrganisation(ctx, a, store.Organisation{OrganisationName: "Flagged", RegistrationNumber: "F", CountryOfRegistration: "GB",
		Status: "Active", Flags: []string{want[1], want[0]}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := db.GetOrganisation(ctx, o.OrganisationID)
	if err != nil || len(got.Flags) != 2 || got.Flags[0] != want[0] || got.Flags[1] != want[1] || got.OrganisationName != "Flagged" || got.CreatedOn.IsZero() {
		t.Fatalf("%+v %v, want flags %v", got, err, want)
	}
	none, _ := db.CreateOrganisation(ctx, a, store.Organisation{OrganisationName: "Plain", RegistrationNumber: "P", CountryOfRegistration: "GB", Status: "Active"}, nil)
	if got, _ := db.GetOrganisation(ctx, none.OrganisationID); got.Flags == nil || len(got.Flags) != 0 {
		t.Fatalf("flags of none: %#v", got.Flags)
	}
	if _, err := db.GetOrganisation(ctx, "no-such-id"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("missing: %v", err)
	}
}
