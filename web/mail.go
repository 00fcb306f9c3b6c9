package web

import (
	"context"
	"fmt"
	"net"
	"net/smtp"
	"net/url"
	"strings"
	"time"
)

// smtpMailer sends mail through the server of --smtp-url:
// smtp://user:password@host:port?from=trustframe@example.org
// (smtps:// for implicit TLS is not supported; STARTTLS is used when offered).
type smtpMailer struct {
	addr, host, from string
	auth             smtp.Auth
}

func newSMTPMailer(raw string) (*smtpMailer, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "smtp" || u.Host == "" {
		return nil, fmt.Errorf("web: --smtp-url %q: want smtp://[user:password@]host:port?from=address", raw)
	}
	m := &smtpMailer{addr: u.Host, host: u.Hostname(), from: u.Query().Get("from")}
	if u.Port() == "" {
		m.addr = net.JoinHostPort(u.Hostname(), "25")
	}
	if m.from == "" {
		m.from = "trustframe@" + u.Hostname()
	}
	if u.User != nil {
		pw, _ := u.User.Password()
		m.auth = smtp.PlainAuth("", u.User.Username(), pw, m.host)
	}
	return m, nil
}

func (m *smtpMailer) Send(ctx context.Context, to, subject, body string) error {
	if strings.ContainsAny(to+subject, "\r\n") {
		return fmt.Errorf("web: header injection refused")
	}
	msg := "From: " + m.from + "\r\nTo: " + to + "\r\nSubject: " + subject +
		"\r\nDate: " + time.Now().UTC().Format(time.RFC1123Z) +
		"\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n" +
		strings.ReplaceAll(body, "\n", "\r\n")
	done := make(chan error, 1)
	go func() { done <- smtp.SendMail(m.addr, m.auth, m.from, []string{to}, []byte(msg)) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(15 * time.Second):
		return fmt.Errorf("web: smtp: timed out")
	}
}
