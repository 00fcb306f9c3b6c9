package web

import (
	"context"

	"github.com/trustframe/trustframe/notices"
)

// SendExpiryNotices runs the expiry-notice job (package notices) once with
// this server's store, mailer and configuration, and returns how many items
// it announced. serve calls it every hour.
func (s *Server) SendExpiryNotices(ctx context.Context) (int, error) {
	job := notices.Job{Store: s.db, Log: s.log, BaseURL: s.cfg.BaseURL, Days: s.cfg.ExpiryNoticeDays,
		Contacts: s.cfg.ExpiryNoticeContacts, Now: s.cfg.Now}
	if s.mailer != nil {
		job.Mailer = s.mailer
	}
	return job.Run(ctx)
}
