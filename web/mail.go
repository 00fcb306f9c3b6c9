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

// CheckSMTPURL says what is wrong with an --smtp-url, without repeating it
// (it may hold a password): nil when the mailer can use it.
func CheckSMTPURL(raw string) error {
	_, err := newSMTPMailer(raw)
	return err
}

func newSMTPMailer(raw string) (*smtpMailer, error) {
	const want = "want smtp://host[:port][?from=address], with user:password@ before the host to sign in"
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return nil, fmt.Errorf("--smtp-url is not a URL; %s", want)
	case u.Scheme != "smtp":
		scheme := u.Scheme
		if scheme == "" {
			scheme = "none"
		}
		return nil, fmt.Errorf("--smtp-url scheme %s is not supported (STARTTLS is used when the server offers it); %s", RedactURLs(scheme), want)
	case u.Hostname() == "":
		return nil, fmt.Errorf("--smtp-url names no host; %s", want)
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
