package directory

import (
	"context"

	"github.com/trustframe/trustframe/lifecycle"
)

// ReactivationStore is what a reactivation reads for its page and writes:
// the record with its new status, no field checked but by check, run on
// the stored record in the write's transaction.
type ReactivationStore interface {
	GetOrganisation(ctx context.Context, id string) (Organisation, error)
	GetAuthorisationServer(ctx context.Context, orgID, id string) (AuthorisationServer, error)
	GetSoftwareStatement(ctx context.Context, orgID, id string) (SoftwareStatement, error)
	ListAuthorisationServers(ctx context.Context, orgID string) ([]AuthorisationServer, error)
	ListSoftwareStatements(ctx context.Context, orgID string) ([]SoftwareStatement, error)
	UpdateOrganisation(ctx context.Context, a Actor, o Organisation, problems Fields, check Check[Organisation]) (Organisation, error)
	UpdateAuthorisationServer(ctx context.Context, a Actor, s AuthorisationServer, problems Fields, check Check[AuthorisationServer]) (AuthorisationServer, error)
	UpdateSoftwareStatement(ctx context.Context, a Actor, s SoftwareStatement, problems Fields, check Check[SoftwareStatement]) (SoftwareStatement, error)
}

// Reactivations are the use cases of the console's reactivation page: a
// Super User sets a record of the end state Active again and says why
// (docs/design.md §4).
type Reactivations struct {
	Store ReactivationStore
	Vocab lifecycle.Vocabulary
}

// Reactivation is what a reactivation page is about: an organisation, or
// one of its authorisation servers or applications. Of an organisation it
// also counts the servers and applications, and those of them in the end
// state, which keep their status.
type Reactivation struct {
	Organisation Organisation
	Server       *AuthorisationServer
	Application  *SoftwareStatement

	Servers, Applications, Ended int
}

// Load reads the reactivation of kind k: the organisation orgID, or its
// authorisation server or application id.
func (s *Reactivations) Load(ctx context.Context, k lifecycle.Kind, orgID, id string) (Reactivation, error) {
	o, err := s.Store.GetOrganisation(ctx, orgID)
	if err != nil {
		return Reactivation{}, Named(err, "Organisation")
	}
	re := Reactivation{Organisation: o}
	switch k {
	case lifecycle.Application:
		a, err := s.Store.GetSoftwareStatement(ctx, orgID, id)
		re.Application = &a
		return re, Named(err, "Application")
	case lifecycle.AuthorisationServer:
		srv, err := s.Store.GetAuthorisationServer(ctx, orgID, id)
		re.Server = &srv
		return re, Named(err, "Authorisation server")
	}
	servers, err := s.Store.ListAuthorisationServers(ctx, orgID)
	if err != nil {
		return re, err
	}
	apps, err := s.Store.ListSoftwareStatements(ctx, orgID)
	if err != nil {
		return re, err
	}
	re.Servers, re.Applications = len(servers), len(apps)
	for _, srv := range servers {
		if srv.Status == lifecycle.Withdrawn {
			re.Ended++
		}
	}
	for _, a := range apps {
		if a.Status == lifecycle.Withdrawn {
			re.Ended++
		}
	}
	return re, nil
}

// Reactivate sets what re is about Active again for reason, written as
// read for the page but for its status and reason, once check and the
// status rule (CheckStatusChange) pass on the stored record; it returns
// the status the stored one had.
func (s *Reactivations) Reactivate(ctx context.Context, a Actor, re Reactivation, reason string, superUser bool, check Check[any]) (string, error) {
	var from string
	a = because(a, reason)
	switch {
	case re.Server != nil:
		srv := *re.Server
		srv.Status, srv.StatusReason = lifecycle.Active, reason
		_, err := s.Store.UpdateAuthorisationServer(ctx, a, srv, nil, statusCheck(s.Vocab, &from, srv.Status, reason, superUser, anyCheck[AuthorisationServer](check), serverStatus))
		return from, Named(err, "Authorisation server")
	case re.Application != nil:
		app := *re.Application
		app.Status, app.StatusReason = lifecycle.Active, reason
		_, err := s.Store.UpdateSoftwareStatement(ctx, a, app, nil, statusCheck(s.Vocab, &from, app.Status, reason, superUser, anyCheck[SoftwareStatement](check), appStatus))
		return from, Named(err, "Application")
	}
	o := re.Organisation
	o.Status, o.StatusReason = lifecycle.Active, reason
	_, err := s.Store.UpdateOrganisation(ctx, a, o, nil, statusCheck(s.Vocab, &from, o.Status, reason, superUser, anyCheck[Organisation](check), orgStatus))
	return from, Named(err, "Organisation")
}

// anyCheck is check on a record of type T.
func anyCheck[T any](check Check[any]) Check[T] {
	if check == nil {
		return nil
	}
	return func(cur T) error { return check(cur) }
}
