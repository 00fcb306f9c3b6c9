package anchor

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/trustframe/trustframe/directory"
)

// ProveControl checks that organisation orgID controls entityID, before an
// Organisation Administrator may give it to one of their applications or
// servers (docs/design.md §19): a federation entity ID is unique across
// the directory and the anchor vouches for it, so whoever saves it first
// must show it is theirs. The entity configuration at entityID, fetched
// through the guarded client, must be signed with one of the
// organisation's Active signing keys (the keys its subordinate statement
// would carry), name entityID as iss and sub and this anchor in
// authority_hints, and be valid now. Not shown, it is a
// *directory.FieldError on FederationEntityId saying what to publish and
// what was found; any other error is the directory's own.
func (d *Directory) ProveControl(ctx context.Context, orgID, entityID string) error {
	keys, err := d.Store.FederationSigningKeys(ctx, orgID)
	if err != nil {
		return err
	}
	if len(keys) == 0 {
		return controlRefused(entityID, "the organisation has no Active key material with Use sig to check its signature with")
	}
	set, err := json.Marshal(map[string]any{"keys": keys})
	if err != nil {
		return err
	}
	now := time.Now()
	_, _, err = fetchEntityConfiguration(ctx, d.fetch(now), entityID, set, d.EntityID, now)
	var fe *Error
	if errors.As(err, &fe) {
		// The refusal names the address already: the reason without it.
		why := strings.TrimPrefix(fe.Description, strings.TrimRight(entityID, "/")+"/.well-known/openid-federation: ")
		return controlRefused(entityID, strings.Replace(why, "a key the superior holds for it", "a key of the organisation's key material", 1))
	}
	return err
}

// controlRefused is the refusal of entityID for why. The fetch's terse
// reasons ("could not be fetched", "HTTP 404") are said as a sentence.
func controlRefused(entityID, why string) error {
	switch {
	case strings.HasPrefix(why, "could not be fetched"):
		why = "nothing could be fetched there" + strings.TrimPrefix(why, "could not be fetched")
	case strings.HasPrefix(why, "HTTP "):
		why = "the address answered " + why + " (nothing is published there yet)"
	}
	return &directory.FieldError{Field: "FederationEntityId", Message: "Before this entity ID is yours to use, publish its entity configuration at " +
		strings.TrimRight(entityID, "/") + "/.well-known/openid-federation, signed with one of the organisation's signing keys (key material with Use sig) " +
		"and naming this directory in authority_hints. The directory found: " + why + "."}
}
