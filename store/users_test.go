package store_test

import (
	"context"
	"testing"

	"github.com/trustframe/trustframe/store"
)

// TestEmailCaseFoldsASCIIOnly: an administrator's e-mail is looked up
// with ASCII letters lower-cased and nothing else folded, so that the
// Kelvin sign (U+212A), which strings.ToLower turns into k, names nobody
// rather than kate@example.com; an address stored with a non-ASCII letter
// (before administrators had to be ASCII) is still found as written; and a
// provider's e-mail domains are compared the same way.
func TestEmailCaseFoldsASCIIOnly(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	db.EnsureSuperUser(ctx, "kate@example.com")
	if _, err := db.CreateSuperUser(ctx, store.Audit{Actor: "kate@example.com"}, "jörg@example.com", "Active"); err != nil {
		t.Fatal(err)
	}
	for email, want := range map[string]store.Role{
		"kate@example.com":      store.RoleSuperUser,
		"KATE@Example.COM":      store.RoleSuperUser,
		"\u212Aate@example.com": store.RoleNone, // KELVIN SIGN
		"kate@example.\u212Aom": store.RoleNone,
		"jörg@example.com":      store.RoleSuperUser,
		"JöRG@example.com":      store.RoleSuperUser,
	} {
		if got, err := db.RoleOf(ctx, email); err != nil || got != want {
			t.Errorf("RoleOf(%q) = %q, %v; want %q", email, got, err, want)
		}
	}
	if got := store.NormalizeEmail(" \u212Aate@Example.com "); got != "\u212Aate@example.com" {
		t.Errorf("NormalizeEmail folded a non-ASCII letter: %q", got)
	}
	if store.DomainAllowed([]string{"kelvin.example"}, "x@\u212Aelvin.example") {
		t.Error("DomainAllowed took the Kelvin sign for k")
	}
	if !store.DomainAllowed([]string{"kelvin.example"}, "x@KELVIN.example") {
		t.Error("DomainAllowed: ASCII case must not matter")
	}
}
