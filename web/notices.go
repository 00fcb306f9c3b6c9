package web

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/trustframe/trustframe/store"
)

// noticeLimit caps the items of one notice run per kind; what is left is
// announced by the next run.
const noticeLimit = 500

// SendExpiryNotices tells every Active administrator, in one message each,
// what has expired or expires within ExpiryNoticeDays and has not been
// announced before (certificates, regulatory documents, certifications).
// Each item is announced once per expiry date. Messages go to the outbox in
// the same transaction that marks the items announced, then out by SMTP
// when it is configured. It returns how many items it announced.
func (s *Server) SendExpiryNotices(ctx context.Context) (int, error) {
	days := s.cfg.ExpiryNoticeDays
	if days <= 0 {
		return 0, nil
	}
	now := s.cfg.Now().UTC()
	e, err := s.db.Expiring(ctx, now.Add(time.Duration(days)*24*time.Hour), noticeLimit)
	if err != nil {
		return 0, err
	}
	fresh, err := s.db.UnnoticedItems(ctx, e.Items())
	if err != nil || len(fresh) == 0 {
		return 0, err
	}
	admins, err := s.db.ActiveAdministrators(ctx)
	if err != nil || len(admins) == 0 {
		return 0, err // nobody to tell: the next run tries again
	}
	subject, body := s.noticeText(e, fresh, days, now, false)
	msgs := make([]store.Invitation, len(admins))
	for i, a := range admins {
		msgs[i] = store.Invitation{To: a, Subject: subject, Body: body}
	}
	// Each organisation's contacts of the configured types hear about their
	// own organisation's items, without links into the console.
	if len(s.cfg.ExpiryNoticeContacts) > 0 {
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
			to, err := s.db.ContactEmails(ctx, org, s.cfg.ExpiryNoticeContacts)
			if err != nil {
				return 0, err
			}
			sub, b := s.noticeText(mine, own, days, now, true)
			for _, addr := range to {
				msgs = append(msgs, store.Invitation{To: addr, Subject: sub, Body: b})
			}
		}
	}
	ids, err := s.db.RecordExpiryNotice(ctx, fresh, msgs)
	if err != nil {
		return 0, err
	}
	s.log.Info("expiry notice", "items", len(fresh), "recipients", len(ids))
	if s.mailer != nil {
		for i, id := range ids {
			if err := s.mailer.Send(ctx, msgs[i].To, msgs[i].Subject, msgs[i].Body); err != nil {
				s.log.Warn("expiry notice not sent; it stays in the outbox", "to", msgs[i].To, "err", err)
				continue
			}
			if err := s.db.MarkDelivered(ctx, id); err != nil {
				s.log.Warn("outbox", "err", err)
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

// noticeText writes the message: the fresh items only, soonest first, each
// with the page where it is renewed.
func (s *Server) noticeText(e store.Expiring, fresh []store.NoticeItem, days int, now time.Time, forContacts bool) (string, string) {
	isFresh := map[store.NoticeItem]bool{}
	for _, it := range fresh {
		isFresh[it] = true
	}
	org := func(id string) string { return s.cfg.BaseURL + "/organisations/" + url.PathEscape(id) }
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
			fmt.Fprintf(&b, "\nCertificate %s of %s: %s\n  not after %s\n%s", c.CertificateType, c.OrganisationName, c.SubjectDN, dayLabel(now, day), link(org(c.OrganisationID)+"/certificates"))
		}
	}
	for _, d := range e.Documents {
		if isFresh[store.NoticeItem{Kind: "Document", ID: d.DocumentID, Expiry: d.DocumentExpiryDate}] {
			ref := d.DocumentReferenceNumber
			if ref == "" {
				ref = "(no reference number)"
			}
			fmt.Fprintf(&b, "\nRegulatory document %s %s of %s\n  expiry date %s\n%s", d.DocumentType, ref, d.OrganisationName, dayLabel(now, d.DocumentExpiryDate), link(org(d.OrganisationID)+"/documents"))
		}
	}
	for _, c := range e.Certifications {
		if isFresh[store.NoticeItem{Kind: "Certification", ID: c.CertificationID, Expiry: c.CertificationExpirationDate}] {
			path := "/softwarestatements/"
			if c.SubjectType == "AuthorisationServer" {
				path = "/authorisationservers/"
			}
			fmt.Fprintf(&b, "\nCertification %s of %s (%s)\n  expiration date %s\n%s", c.CertificationType, c.SubjectName, c.OrganisationName,
				dayLabel(now, c.CertificationExpirationDate), link(org(c.OrganisationID)+path+url.PathEscape(c.SubjectID)+"/certifications"))
		}
	}
	if !forContacts {
		fmt.Fprintf(&b, "\nEverything that needs attention: %s/?days=%d\n", s.cfg.BaseURL, days)
	}
	n := len(fresh)
	subject := "trustframe: 1 item expires soon"
	if n != 1 {
		subject = "trustframe: " + strconv.Itoa(n) + " items expire soon"
	}
	return subject, b.String()
}
