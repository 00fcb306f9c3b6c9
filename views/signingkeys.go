package views

import (
	"errors"
	"slices"

	"github.com/trustframe/trustframe/store"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/ssa"
)

// NewKeysPage is the Signing keys page of o; ssaErr and fedErr say why an
// action of the SSA or the federation section was refused ("" for none).
func NewKeysPage(o directory.KeysOverview, ssaErr, fedErr string) KeysPage {
	return KeysPage{Keys: o.SSA, Current: o.Current, Algs: ssa.AllAlgs, Enabled: o.Enabled, Error: ssaErr,
		FedKeys: o.Federation, FedAlg: o.FedAlg, FedNextFrom: o.NextFrom, FedNextReady: o.NextReady(), FedError: fedErr}
}

// ActivateRefused is what the page says of a refused start of the next
// federation key: when it was too early, the time it may sign from and
// the wait, else msg.
func ActivateRefused(err error, msg string) string {
	var early *directory.EarlyActivation
	if !errors.As(err, &early) {
		return msg
	}
	return "Not started yet: the next key may sign from " + FormatTime(early.From) + ", in " + roughDuration(early.From.Sub(early.Now)) +
		". It is published for " + roughDuration(early.From.Sub(early.PublishedAt)) + " first, so that relying parties can add it."
}

// RetireRefused is why retiring k would be refused ("" when it would
// not): the only Active key of an enabled algorithm (issue 40: no
// confirmation for what the server refuses).
func (p KeysPage) RetireRefused(k store.SigningKey) string {
	if k.Status != "Active" || !slices.Contains(p.Enabled, k.Alg) {
		return ""
	}
	for _, o := range p.Keys {
		if o.Kid != k.Kid && o.Alg == k.Alg && o.Status == "Active" {
			return ""
		}
	}
	return "The only Active " + k.Alg + " key, and " + k.Alg + " is enabled: rotate " + k.Alg + " first (below), then retire this one."
}

// LastActiveSuperUser is why u cannot be set Inactive ("" when it can):
// the platform would lose its last Active Super User.
func LastActiveSuperUser(users []store.SuperUser, u store.SuperUser) string {
	if u.Status != "Active" {
		return ""
	}
	for _, o := range users {
		if o.Email != u.Email && o.Status == "Active" {
			return ""
		}
	}
	return "The only Active Super User: add another first."
}
