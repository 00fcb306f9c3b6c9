package web

import (
	"context"
	"time"
)

// ResendOutbox tries again the messages SMTP refused whose next try is
// due (store/outbox.go, docs/design.md §9) and returns how many went out.
// Without SMTP it does nothing: the messages are the development outbox.
// serve calls it every minute.
func (s *Server) ResendOutbox(ctx context.Context) (int, error) {
	if s.mailer == nil {
		return 0, nil
	}
	sent := 0
	for {
		msgs, err := s.db.ClaimDueMessages(ctx, 20)
		if err != nil || len(msgs) == 0 {
			return sent, err
		}
		for _, m := range msgs {
			sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			err := s.mailer.Send(sctx, m.To, m.Subject, m.Body)
			cancel()
			if err != nil {
				next, merr := s.db.MarkSendFailed(context.WithoutCancel(ctx), m.ID, err.Error())
				if merr != nil {
					return sent, merr
				}
				s.log.Warn("message not sent again; it stays in the outbox", "to", m.To, "subject", m.Subject,
					"attempts", m.Attempts+1, "next_try", next, "err", err)
				continue
			}
			if err := s.db.MarkDelivered(context.WithoutCancel(ctx), m.ID); err != nil {
				return sent, err
			}
			sent++
			s.log.Info("message sent from the outbox", "to", m.To, "subject", m.Subject, "attempts", m.Attempts+1)
		}
		if ctx.Err() != nil {
			return sent, ctx.Err()
		}
	}
}
