package views

import (
	"errors"

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
