// Package notices is the expiry-notice job: every period it tells the
// administrators (and, when configured, each organisation's contacts of
// chosen types) what has expired or expires soon, each item once per expiry
// date, through the outbox and SMTP (docs/design.md §9 for its audit record).
package notices

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/trustframe/trustframe/paths"
	"github.com/trustframe/trustframe/store"
)

// Store is what the job reads and writes.
type Store interface {
	Expiring(ctx context.Context, before time.Time, limit int) (store.Expiring, error)
	UnnoticedItems(ctx context.Context, items []store.NoticeItem) ([]store.NoticeItem, error)
	ActiveAdministrators(ctx context.Context) ([]string, error)
	ContactEmails(ctx context.Context, orgID string, types []string) ([]string, error)
	RecordExpiryNotice(ctx context.Context, items []store.NoticeItem, msgs []store.Invitation) ([]int64, error)
	MarkDelivered(ctx context.Context, id int64) error
	MarkSendFailed(ctx context.Context, id int64, reason string) (time.Time, error)
}

// Mailer sends one message.
type Mailer interface {
	Send(ctx context.Context, to, subject, body string) error
}

// Job is one deployment's expiry notices.
type Job struct {
	Store    Store
	Mailer   Mailer // nil: messages stay in the outbox
	Log      *slog.Logger
	BaseURL  string           // for links into the console
	Days     int              // announce what expires within this many days; 0: off
	Contacts []string         // contact types also told about their own organisation's items
	Now      func() time.Time // the clock
}

// noticeLimit caps the items of one notice run per kind; what is left is
// announced by the next run.
const noticeLimit = 500

// Run tells every Active administrator, in one message each,
// what has expired or expires within ExpiryNoticeDays and has not been
// announced before (certificates, regulatory documents, certifications).
// Each item is announced once per expiry date. Messages go to the outbox in
// the same transaction that marks the items announced, then out by SMTP
// when it is configured. It returns how many items it announced.
func (j *Job) Run(ctx context.Context) (int, error) {
	days := j.Days
	if days <= 0 {
		return 0, nil
	}
	now := j.Now().UTC()
	e, err := j.Store.Expiring(ctx, now.Add(time.Duration(days)*24*time.Hour), noticeLimit)
	if err != nil {
		return 0, err
	}
	fresh, err := j.Store.UnnoticedItems(ctx, e.Items())
	if err != nil || len(fresh) == 0 {
		return 0, err
	}
	admins, err := j.Store.ActiveAdministrators(ctx)
	if err != nil || len(admins) == 0 {
		return 0, err // nobody to tell: the next run tries again
	}
	subject, body := j.text(e, fresh, days, now, false)
	msgs := make([]store.Invitation, len(admins))
	for i, a := range admins {
		msgs[i] = store.Invitation{To: a, Subject: subject, Body: body}
	}
	// Each organisation's contacts of the configured types hear about their
	// own organisation's items, without links into the console.
	if len(j.Contacts) > 0 {
		for _, org := range e.Organisations() {
			mine := e.ForOrganisation(org)
			var own []store.NoticeItem
			for _, it := range mine.Items() {
				if slices.Contains(fresh, it) {
					own = append(own, it)
				}
			}
			if len(own) == 0 {
				continue
			}
			to, err := j.Store.ContactEmails(ctx, org, j.Contacts)
			if err != nil {
				return 0, err
			}
			sub, b := j.text(mine, own, days, now, true)
			for _, addr := range to {
				msgs = append(msgs, store.Invitation{To: addr, Subject: sub, Body: b})
			}
		}
	}
	ids, err := j.Store.RecordExpiryNotice(ctx, fresh, msgs)
	if err != nil {
		return 0, err
	}
	j.Log.Info("expiry notice", "items", len(fresh), "recipients", len(ids))
	if j.Mailer != nil {
		for i, id := range ids {
			if err := j.Mailer.Send(ctx, msgs[i].To, msgs[i].Subject, msgs[i].Body); err != nil {
				if _, merr := j.Store.MarkSendFailed(ctx, id, err.Error()); merr != nil {
					j.Log.Warn("outbox", "err", merr)
				}
				j.Log.Warn("expiry notice not sent; it stays in the outbox and is tried again", "to", msgs[i].To, "err", err)
				continue
			}
			if err := j.Store.MarkDelivered(ctx, id); err != nil {
				j.Log.Warn("outbox", "err", err)
			}
		}
	}
	return len(fresh), nil
}

// dayLabel says how far a date is from today.
func dayLabel(today time.Time, date string) string {
	d, err := time.Parse("2006-01-02", date)
	if err != nil {
		return date
	}
	n := int(d.Sub(today.Truncate(24*time.Hour)).Hours() / 24)
	switch {
	case n < 0:
		return date + " (expired " + strconv.Itoa(-n) + " days ago)"
	case n == 0:
		return date + " (today)"
	}
	return date + " (in " + strconv.Itoa(n) + " days)"
}

// text writes the message: the fresh items only, soonest first, each
// with the page where it is renewed.
func (j *Job) text(e store.Expiring, fresh []store.NoticeItem, days int, now time.Time, forContacts bool) (string, string) {
	isFresh := map[store.NoticeItem]bool{}
	for _, it := range fresh {
		isFresh[it] = true
	}
	// Console links help administrators; contacts cannot sign in there.
	link := func(u string) string {
		if forContacts {
			return ""
		}
		return "  " + u + "\n"
	}
	var b strings.Builder
	if forContacts {
		name := ""
		if len(e.Certificates) > 0 {
			name = e.Certificates[0].OrganisationName
		} else if len(e.Documents) > 0 {
			name = e.Documents[0].OrganisationName
		} else if len(e.Certifications) > 0 {
			name = e.Certifications[0].OrganisationName
		}
		fmt.Fprintf(&b, "The trust framework directory holds these items of %s that have expired or expire within %d days.\n"+
			"Please renew them and send the new ones to the directory's operator.\n", name, days)
	} else {
		fmt.Fprintf(&b, "These have expired or expire within %d days and were not announced before.\n", days)
	}
	for _, c := range e.Certificates {
		day := c.NotAfter.UTC().Format("2006-01-02")
		if isFresh[store.NoticeItem{Kind: "Certificate", ID: c.Kid, Expiry: day}] {
			fmt.Fprintf(&b, "\nCertificate %s of %s: %s\n  not after %s\n%s", c.CertificateType, c.OrganisationName, c.SubjectDN, dayLabel(now, day), link(j.BaseURL+paths.OrganisationTab(c.OrganisationID, "certificates")))
		}
	}
	for _, d := range e.Documents {
		if isFresh[store.NoticeItem{Kind: "Document", ID: d.DocumentID, Expiry: d.DocumentExpiryDate}] {
			ref := d.DocumentReferenceNumber
			if ref == "" {
				ref = "(no reference number)"
			}
			fmt.Fprintf(&b, "\nRegulatory document %s %s of %s\n  expiry date %s\n%s", d.DocumentType, ref, d.OrganisationName, dayLabel(now, d.DocumentExpiryDate), link(j.BaseURL+paths.OrganisationTab(d.OrganisationID, "documents")))
		}
	}
	for _, c := range e.Certifications {
		if isFresh[store.NoticeItem{Kind: "Certification", ID: c.CertificationID, Expiry: c.CertificationExpirationDate}] {
			subject := paths.Application(c.OrganisationID, c.SubjectID)
			if c.SubjectType == "AuthorisationServer" {
				subject = paths.Server(c.OrganisationID, c.SubjectID)
			}
			fmt.Fprintf(&b, "\nCertification %s of %s (%s)\n  expiration date %s\n%s", c.CertificationType, c.SubjectName, c.OrganisationName,
				dayLabel(now, c.CertificationExpirationDate), link(j.BaseURL+subject+"/certifications"))
		}
	}
	if !forContacts {
		fmt.Fprintf(&b, "\nEverything that needs attention: %s/?days=%d\n", j.BaseURL, days)
	}
	n := len(fresh)
	subject := "trustframe: 1 item expires soon"
	if n != 1 {
		subject = "trustframe: " + strconv.Itoa(n) + " items expire soon"
	}
	return subject, b.String()
}
