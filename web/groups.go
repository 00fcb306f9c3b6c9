package web

import (
	"context"
	"fmt"
	"slices"

	"github.com/trustframe/trustframe/formats"
	"github.com/trustframe/trustframe/store"
)

// Administrator groups from identity providers (docs/design.md §16): the
// groups of a bound provider's token make its holder an administrator, and
// take that back when they leave the token. Groups are read from the token
// that proves the request (the ID token at web sign-in, the access token on
// the API), never from UserInfo (docs/decisions.md).

// maxTokenGroups bounds the groups a token may list; more is refused.
const maxTokenGroups = 1000

// groupsOf reads the groups claim: absent is no groups; anything but an
// array of strings, or more than maxTokenGroups, is refused with the reason.
func groupsOf(claims map[string]any, claim string) ([]string, error) {
	v, ok := claims[claim]
	if !ok || v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("the %s claim is not an array of strings", claim)
	}
	if len(list) > maxTokenGroups {
		return nil, fmt.Errorf("the %s claim lists %d groups, more than the %d accepted", claim, len(list), maxTokenGroups)
	}
	out := make([]string, 0, len(list))
	for _, g := range list {
		s, ok := g.(string)
		if !ok {
			return nil, fmt.Errorf("the %s claim is not an array of strings", claim)
		}
		out = append(out, s)
	}
	return out, nil
}

// tokenGroups reads the groups of a bound provider's token; a provider
// without group mappings ignores the claim.
func (b *boundIssuer) tokenGroups(claims map[string]any) ([]string, error) {
	if len(b.groupRoles) == 0 {
		return nil, nil
	}
	return groupsOf(claims, b.groupsClaim)
}

// applyGroups grants and revokes what b's groups give email, at this
// request. The first mapping of a role whose group the token lists grants
// that role. An address no Super User could make an administrator (not
// plain ASCII: a look-alike of another) is granted nothing by a group
// either; what a group made before is still revoked.
func (a *authenticator) applyGroups(ctx context.Context, b *boundIssuer, email string, groups []string) error {
	granted := map[store.Role]string{}
	for _, m := range b.groupRoles {
		if granted[m.Role] == "" && slices.Contains(groups, m.Group) && formats.ValidAdminEmail(email) {
			granted[m.Role] = m.Group
		}
	}
	out, err := a.s.db.ApplyGroups(ctx, b.name, email, granted)
	for _, o := range out {
		a.s.log.Info("administrator group", "action", o.Action, "provider", b.name, "group", o.Group, "role", string(o.Role), "email", email)
	}
	return err
}
