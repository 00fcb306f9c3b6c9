package directory

import (
	"context"
	"errors"
	"strings"
	"testing"
)

type countingControl struct {
	calls  int
	refuse bool
}

func (c *countingControl) ProveControl(ctx context.Context, orgID, entityID string) error {
	c.calls++
	if c.refuse {
		return &FieldError{Field: "FederationEntityId", Message: "not yours"}
	}
	return nil
}

// TestLimitedEntityIDAsksOnlyForANewIDOfAParticipant: only an Organisation
// Administrator's new or changed ID, with nothing else refused, is asked
// of the anchor; without an anchor it is refused.
func TestLimitedEntityIDAsksOnlyForANewIDOfAParticipant(t *testing.T) {
	ctx := context.Background()
	olga := Actor{Actor: "olga@a.example", Within: []string{"A"}}
	admin := Actor{Actor: "admin@example.com"}
	cases := []struct {
		name          string
		a             Actor
		stored, want  string
		f             Fields
		asked         int
		refusedBeside bool
	}{
		{"directory administrator", admin, "", "https://b.example", Fields{}, 0, false},
		{"no entity ID", olga, "https://a.example", "", Fields{}, 0, false},
		{"unchanged", olga, "https://a.example", "https://a.example", Fields{}, 0, false},
		{"other fields refused", olga, "", "https://b.example", Fields{"ClientName": "required"}, 0, false},
		{"new", olga, "", "https://b.example", Fields{}, 1, true},
		{"changed", olga, "https://a.example", "https://b.example", Fields{}, 1, true},
	}
	for _, c := range cases {
		ctrl := &countingControl{refuse: true}
		if err := limitedEntityID(ctx, c.a, ctrl, "A", c.stored, c.want, c.f); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if ctrl.calls != c.asked || (c.f["FederationEntityId"] != "") != c.refusedBeside {
			t.Errorf("%s: asked %d times, fields %v", c.name, ctrl.calls, c.f)
		}
	}
	f := Fields{}
	if err := limitedEntityID(ctx, olga, nil, "A", "", "https://b.example", f); err != nil || !strings.Contains(f["FederationEntityId"], "cannot check") {
		t.Fatalf("no anchor: %v %v", err, f)
	}
}

// TestKeepsStoredRefusesAValueChangedMeanwhile: an ID written unchanged
// (so not asked again) must still be the stored one when written.
func TestKeepsStoredRefusesAValueChangedMeanwhile(t *testing.T) {
	id := func(s string) string { return s }
	check := keepsStored[string](nil, "https://a.example", "https://a.example", "federation entity ID", id)
	if err := check("https://a.example"); err != nil {
		t.Fatalf("unchanged: %v", err)
	}
	var e *Error
	if err := check("https://other.example"); !errors.As(err, &e) || e.Code != CodeConflict {
		t.Fatalf("changed meanwhile: %v", err)
	}
	if keepsStored[string](nil, "https://a.example", "https://b.example", "federation entity ID", id) != nil {
		t.Fatal("a changed ID was asked of the anchor: nothing to add to the check")
	}
}
