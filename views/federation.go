package views

import (
	"errors"
	"net/url"

	"github.com/trustframe/trustframe/directory"
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

// FederationTrustMark is one trust mark type on the Federation tab: the
// mark issued last (JWT, its times and status) or, when there is none to
// use, the URL that issues one.
type FederationTrustMark struct {
	Name, Type          string
	JWT                 string
	Status              string // active, revoked, expired; "" when none was issued
	StatusLabel         string
	StatusClass         string
	IssuedAt, ExpiresAt string
	IssueURL            string
}

// ShowTrustMarks puts the trust mark types the entity is entitled to on
// its Federation tab (directory.EntityTrustMarks). A type whose mark is
// missing, expired or revoked links to the trust mark endpoint, which
// issues a new one.
func (p *FederationPage) ShowTrustMarks(marks []directory.EntityTrustMark) {
	p.TrustMarksShown = true
	p.TrustMarks = nil
	for _, m := range marks {
		row := FederationTrustMark{Name: m.Type.Name, Type: m.Type.TrustMarkType, Status: m.Status,
			StatusLabel: "Not issued yet", StatusClass: "Pending"}
		if m.Mark != nil {
			row.JWT, row.IssuedAt, row.ExpiresAt = m.Mark.JWT, FormatTime(m.Mark.IssuedAt), FormatTime(m.Mark.ExpiresAt)
			row.StatusLabel, row.StatusClass = trustMarkLabel(m.Status)
		}
		if m.Status != directory.TrustMarkActive {
			row.IssueURL = TrustMarkIssueURL(m.Type.TrustMarkType, p.EntityID)
		}
		p.TrustMarks = append(p.TrustMarks, row)
	}
}

// TrustMarkIssueURL is the trust mark endpoint's URL that issues a mark of
// type typ about sub (docs/design.md §17).
func TrustMarkIssueURL(typ, sub string) string {
	return "/federation/trust-mark?" + url.Values{"trust_mark_type": {typ}, "sub": {sub}}.Encode()
}

func trustMarkLabel(status string) (label, class string) {
	switch status {
	case directory.TrustMarkActive:
		return "Active", "Active"
	case directory.TrustMarkRevoked:
		return "Revoked", "Revoked"
	}
	return "Expired", "Inactive"
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
