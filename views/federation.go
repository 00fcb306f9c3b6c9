package views

import (
	"errors"

	"github.com/trustframe/trustframe/federation"
	"github.com/trustframe/trustframe/federation/anchor"
	"github.com/trustframe/trustframe/store"
)

// ShowStatement puts the subordinate statement about the entity on its
// Federation tab, or says why there is none. It reports false for a
// failure the tab cannot explain (an error to answer as such).
func (p *FederationPage) ShowStatement(st *anchor.Statement, err error) bool {
	if err == nil {
		p.Statement, p.Policy = IndentJSON(st.Claims), IndentJSON(st.Policy)
		return true
	}
	p.Reason = noStatement(err, "The federation does not list this entity: it and its organisation must both be Active.")
	return p.Reason != ""
}

// ShowResolved puts the entity's resolved metadata on the tab, or why it
// does not resolve; false as ShowStatement.
func (p *FederationPage) ShowResolved(metadata map[string]any, err error) bool {
	if err == nil {
		p.Resolved = IndentJSON(metadata)
		return true
	}
	p.CheckError = unresolved(err)
	return p.CheckError != ""
}

// noStatement says why no statement is made about a subject (notListed
// when it is not a subordinate), or "" for a failure to answer as an error.
func noStatement(err error, notListed string) string {
	var se *federation.StatementError
	switch {
	case errors.Is(err, store.ErrNotFound):
		return notListed
	case errors.As(err, &se):
		return "No statement can be made: " + se.Reason
	}
	return ""
}

// unresolved says why an entity does not resolve, or "" for a failure to
// answer as an error.
func unresolved(err error) string {
	var fe *anchor.Error
	switch {
	case errors.As(err, &fe) && fe.Code == "temporarily_unavailable":
		return "The entity's configuration was " + anchor.ErrFetchBudget{}.Error() + "."
	case errors.As(err, &fe):
		return "The entity does not resolve: " + fe.Description
	}
	return noStatement(err, "The federation does not list this entity.")
}
