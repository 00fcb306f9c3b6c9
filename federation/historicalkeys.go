package federation

import (
	"context"
	"encoding/json"
	"fmt"
)

// HistoricalKeys is every retired federation key as the historical keys
// endpoint lists it (docs/design.md §17), newest first: its public JWK
// with iat (when it was first published), exp (its retirement plus one
// statement lifetime: nothing it signed is valid after that) and, for a
// key an emergency rotation retired (Rotate), revoked {revoked_at, reason
// "compromised"}. The Active and the Next key are not listed: the entity
// configuration publishes them.
func (kr *Keyring) HistoricalKeys(ctx context.Context) ([]map[string]any, error) {
	keys, err := kr.store.ListFederationKeys(ctx)
	if err != nil {
		return nil, err
	}
	out := []map[string]any{}
	for _, k := range keys {
		if k.Status != "Retired" || k.RetiredAt == nil {
			continue
		}
		var jwk map[string]any
		if err := json.Unmarshal([]byte(k.PublicJWK), &jwk); err != nil {
			return nil, fmt.Errorf("federation: key %s: %w", k.Kid, err)
		}
		jwk["iat"] = k.CreatedAt.Unix()
		jwk["exp"] = k.RetiredAt.Add(kr.lifetime).Unix()
		if k.Compromised {
			jwk["revoked"] = map[string]any{"revoked_at": k.RetiredAt.Unix(), "reason": "compromised"}
		}
		out = append(out, jwk)
	}
	return out, nil
}
