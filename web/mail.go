package web

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/smtp"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// smtpMailer sends mail through the server of --smtp-url:
// smtp://user:password@host:port?from=trustframe@example.org (port 25 by
// default; STARTTLS is used when offered) or smtps://… (implicit TLS from
// the first byte, port 465 by default).
type smtpMailer struct {
	addr, host, from string
	auth             smtp.Auth
	implicitTLS      bool           // smtps://
	roots            *x509.CertPool // verify an smtps:// server; nil: the system's roots
}

// smtpTimeout bounds one message, connection to answer.
const smtpTimeout = 15 * time.Second

// CheckSMTPURL says what is wrong with an --smtp-url, without repeating it
// (it may hold a password): nil when the mailer can use it.
func CheckSMTPURL(raw string) error {
	_, err := newSMTPMailer(raw, nil)
	return err
}

// SMTPAddr is the host:port an --smtp-url names, with the scheme's
// default port (25, or 465 for smtps://).
func SMTPAddr(raw string) (string, error) {
	m, err := newSMTPMailer(raw, nil)
	if err != nil {
		return "", err
	}
	return m.addr, nil
}

func newSMTPMailer(raw string, roots *x509.CertPool) (*smtpMailer, error) {
	const want = "want smtp://host[:port][?from=address] (STARTTLS when the server offers it; port 25) or smtps://host[:port][?from=address] (TLS from the start; port 465), with user:password@ before the host to sign in"
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return nil, fmt.Errorf("--smtp-url is not a URL; %s", want)
	case u.Scheme != "smtp" && u.Scheme != "smtps":
		scheme := u.Scheme
		if scheme == "" {
			scheme = "none"
		}
		return nil, fmt.Errorf("--smtp-url scheme %s is not supported; %s", RedactURLs(scheme), want)
	case u.Hostname() == "":
		return nil, fmt.Errorf("--smtp-url names no host; %s", want)
	}
	port := u.Port()
	switch n, err := strconv.Atoi(port); {
	case port == "" && u.Scheme == "smtps":
		port = "465"
	case port == "":
		port = "25"
	case err != nil || n < 1 || n > 65535:
		return nil, fmt.Errorf("--smtp-url port %s is not a port (1 to 65535); %s", port, want)
	}
	m := &smtpMailer{addr: net.JoinHostPort(u.Hostname(), port), host: u.Hostname(), from: u.Query().Get("from"),
		implicitTLS: u.Scheme == "smtps", roots: roots}
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
	if m.implicitTLS {
		return m.sendTLS(ctx, to, []byte(msg))
	}
	done := make(chan error, 1)
	go func() { done <- smtp.SendMail(m.addr, m.auth, m.from, []string{to}, []byte(msg)) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(smtpTimeout):
		return fmt.Errorf("web: smtp: timed out")
	}
}

// sendTLS sends one message over implicit TLS (smtps://): the server's
// certificate is verified for its host name before anything is said,
// the password included.
func (m *smtpMailer) sendTLS(ctx context.Context, to string, msg []byte) error {
	ctx, cancel := context.WithTimeout(ctx, smtpTimeout)
	defer cancel()
	d := &tls.Dialer{Config: &tls.Config{ServerName: m.host, RootCAs: m.roots, MinVersion: tls.VersionTLS12}}
	conn, err := d.DialContext(ctx, "tcp", m.addr)
	if err != nil {
		return fmt.Errorf("web: smtps: %w", err)
	}
	defer conn.Close()
	deadline, _ := ctx.Deadline()
	_ = conn.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Now()) }) // a cancelled send ends at once
	defer stop()
	c, err := smtp.NewClient(conn, m.host)
	if err != nil {
		return fmt.Errorf("web: smtps: %w", err)
	}
	defer c.Close()
	if m.auth != nil {
		if err := c.Auth(m.auth); err != nil {
			return err
		}
	}
	if err := c.Mail(m.from); err != nil {
		return err
	}
	if err := c.Rcpt(to); err != nil {
		return err
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(msg); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return c.Quit()
}
