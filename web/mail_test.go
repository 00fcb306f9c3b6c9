package web_test

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/web"
	"github.com/trustframe/trustframe/web/webtest"
)

// fakeSMTP is the smallest SMTP server that accepts one message at a time.
type fakeSMTP struct {
	ln     net.Listener
	mu     sync.Mutex
	msgs   []string
	rcpt   []string
	refuse bool     // answer 451 to MAIL FROM: a server that is there but takes nothing
	auth   []string // AUTH commands received
}

// startSMTPS is fakeSMTP over implicit TLS (smtps://) with a self-signed
// certificate for 127.0.0.1, and the pool that trusts it.
func startSMTPS(t *testing.T) (*fakeSMTP, *x509.CertPool) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	roots := x509.NewCertPool()
	roots.AddCert(cert)
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}})
	if err != nil {
		t.Fatal(err)
	}
	return serveSMTP(t, ln), roots
}

func serveSMTP(t *testing.T, ln net.Listener) *fakeSMTP {
	f := &fakeSMTP{ln: ln}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go f.serve(c)
		}
	}()
	return f
}

func (f *fakeSMTP) serve(c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	say := func(s string) { c.Write([]byte(s + "\r\n")) }
	say("220 fake ESMTP")
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		cmd := strings.ToUpper(strings.TrimSpace(line))
		switch {
		case strings.HasPrefix(cmd, "EHLO"), strings.HasPrefix(cmd, "HELO"):
			say("250 fake")
		case strings.HasPrefix(cmd, "AUTH"):
			f.mu.Lock()
			f.auth = append(f.auth, strings.TrimSpace(line))
			f.mu.Unlock()
			say("235 accepted")
		case strings.HasPrefix(cmd, "MAIL FROM"):
			f.mu.Lock()
			refuse := f.refuse
			f.mu.Unlock()
			if refuse {
				say("451 4.3.0 try again later")
				continue
			}
			say("250 ok")
		case strings.HasPrefix(cmd, "RCPT TO"):
			f.mu.Lock()
			f.rcpt = append(f.rcpt, strings.TrimSpace(line))
			f.mu.Unlock()
			say("250 ok")
		case cmd == "DATA":
			say("354 go")
			var b strings.Builder
			for {
				l, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if l == ".\r\n" {
					break
				}
				b.WriteString(l)
			}
			f.mu.Lock()
			f.msgs = append(f.msgs, b.String())
			f.mu.Unlock()
			say("250 queued")
		case cmd == "QUIT":
			say("221 bye")
			return
		default:
			say("250 ok")
		}
	}
}

func TestInvitationSentBySMTP(t *testing.T) {
	smtp := startSMTP(t)
	env := webtest.Start(t, func(c *web.Config) { c.SMTPURL = "smtp://" + smtp.ln.Addr().String() + "?from=directory@example.org" })
	admin := webtest.Token(t, env.URL, "admin@example.com", nil).AccessToken
	if r, b := do(t, "POST", env.URL+"/api/users/data-administrators", admin, `{"Email":"dana@example.com"}`); r.StatusCode != 201 {
		t.Fatalf("%d %s", r.StatusCode, b)
	}
	smtp.mu.Lock()
	defer smtp.mu.Unlock()
	if len(smtp.msgs) != 1 || !strings.Contains(smtp.rcpt[0], "dana@example.com") || !strings.Contains(smtp.msgs[0], "Subject: You are invited") {
		t.Fatalf("rcpt %v msgs %q", smtp.rcpt, smtp.msgs)
	}
	msgs, _ := env.DB.ListOutbox(context.Background(), 10)
	if len(msgs) != 1 || !msgs[0].Delivered {
		t.Fatalf("outbox %+v", msgs)
	}
}

// An smtps:// server (TLS from the first byte) takes the invitation, the
// password sent only inside TLS; a server whose certificate is not
// trusted gets nothing, and the message waits in the outbox. smtps:// was
// refused at start.
func TestInvitationSentBySMTPS(t *testing.T) {
	smtps, roots := startSMTPS(t)
	env := webtest.Start(t, func(c *web.Config) {
		c.SMTPURL = "smtps://mailer:S3cret@" + smtps.ln.Addr().String() + "?from=directory@example.org"
		c.SMTPRootCAs = roots
	})
	admin := webtest.Token(t, env.URL, "admin@example.com", nil).AccessToken
	if r, b := do(t, "POST", env.URL+"/api/users/data-administrators", admin, `{"Email":"dana@example.com"}`); r.StatusCode != 201 {
		t.Fatalf("%d %s", r.StatusCode, b)
	}
	smtps.mu.Lock()
	if len(smtps.msgs) != 1 || !strings.Contains(smtps.rcpt[0], "dana@example.com") || !strings.Contains(smtps.msgs[0], "Subject: You are invited") ||
		len(smtps.auth) != 1 || !strings.HasPrefix(smtps.auth[0], "AUTH PLAIN ") {
		t.Fatalf("rcpt %v msgs %q auth %q", smtps.rcpt, smtps.msgs, smtps.auth)
	}
	smtps.mu.Unlock()
	if msgs, _ := env.DB.ListOutbox(context.Background(), 10); len(msgs) != 1 || !msgs[0].Delivered {
		t.Fatalf("outbox %+v", msgs)
	}

	// The system's roots do not trust the test's certificate.
	untrusted := webtest.Start(t, func(c *web.Config) { c.SMTPURL = "smtps://mailer:S3cret@" + smtps.ln.Addr().String() })
	tok := webtest.Token(t, untrusted.URL, "admin@example.com", nil).AccessToken
	if r, b := do(t, "POST", untrusted.URL+"/api/users/data-administrators", tok, `{"Email":"erin@example.com"}`); r.StatusCode != 201 {
		t.Fatalf("%d %s", r.StatusCode, b)
	}
	msgs, _ := untrusted.DB.ListOutbox(context.Background(), 10)
	if len(msgs) != 1 || msgs[0].Delivered || !strings.Contains(msgs[0].LastError, "certificate") {
		t.Fatalf("outbox %+v", msgs)
	}
	smtps.mu.Lock()
	defer smtps.mu.Unlock()
	if len(smtps.msgs) != 1 || len(smtps.auth) != 1 {
		t.Fatalf("a server with an untrusted certificate was told: msgs %q auth %q", smtps.msgs, smtps.auth)
	}
}

// The port of --smtp-url defaults by scheme (25; 465 for smtps://), and
// one out of range is refused, not left to fail at the first message.
func TestSMTPURLPort(t *testing.T) {
	for raw, want := range map[string]string{
		"smtp://mail.example":           "mail.example:25",
		"smtps://mail.example":          "mail.example:465",
		"smtps://u:p@mail.example:2465": "mail.example:2465",
		"smtp://[::1]:587":              "[::1]:587",
	} {
		if got, err := web.SMTPAddr(raw); err != nil || got != want {
			t.Errorf("%s: %q %v, want %q", raw, got, err, want)
		}
	}
	for _, raw := range []string{"smtp://mail.example:99999", "smtp://mail.example:0", "smtps://mail.example:65536", "smtp://mail.example:00"} {
		if err := web.CheckSMTPURL(raw); err == nil || !strings.Contains(err.Error(), "1 to 65535") {
			t.Errorf("%s: %v", raw, err)
		}
	}
}

func TestInvitationStaysInOutboxWhenSMTPIsDown(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	env := webtest.Start(t, func(c *web.Config) { c.SMTPURL = "smtp://" + addr })
	admin := webtest.Token(t, env.URL, "admin@example.com", nil).AccessToken
	start := time.Now()
	if r, b := do(t, "POST", env.URL+"/api/users/data-administrators", admin, `{"Email":"dana@example.com"}`); r.StatusCode != 201 {
		t.Fatalf("%d %s", r.StatusCode, b)
	}
	if time.Since(start) > 20*time.Second {
		t.Fatal("a dead SMTP server held the request")
	}
	msgs, _ := env.DB.ListOutbox(context.Background(), 10)
	if len(msgs) != 1 || msgs[0].Delivered {
		t.Fatalf("outbox %+v", msgs)
	}
}

// TestRefusedMailIsSentAgain: an invitation the SMTP server refused stays
// in the outbox with the reason, and the outbox job sends it once the
// server takes mail again — not before its next try is due, not twice.
// Without SMTP the job sends nothing.
func TestRefusedMailIsSentAgain(t *testing.T) {
	smtp := startSMTP(t)
	smtp.refuse = true
	var ns atomic.Int64
	ns.Store(time.Now().UnixNano())
	now := func() time.Time { return time.Unix(0, ns.Load()) }
	dir := t.TempDir()
	env := webtest.StartWith(t, dir, webtest.Database(t, dir), func(c *web.Config) {
		c.SMTPURL = "smtp://" + smtp.ln.Addr().String() + "?from=directory@example.org"
	}, store.WithClock(now))
	admin := webtest.Token(t, env.URL, "admin@example.com", nil).AccessToken
	if r, b := do(t, "POST", env.URL+"/api/users/data-administrators", admin, `{"Email":"dana@example.com"}`); r.StatusCode != 201 {
		t.Fatalf("%d %s", r.StatusCode, b)
	}
	ctx := context.Background()
	msgs, _ := env.DB.ListOutbox(ctx, 10)
	if len(msgs) != 1 || msgs[0].Delivered || msgs[0].Attempts != 1 || !strings.Contains(msgs[0].LastError, "451") {
		t.Fatalf("after the refusal the outbox reads %+v", msgs)
	}
	// The outbox page says it was refused and why.
	super := webtest.Browser()
	webtest.SignIn(t, super, env.URL, "admin@example.com").Body.Close()
	if _, doc := page(t, super, env.URL+"/dev/outbox"); !strings.Contains(doc.Find("[data-testid=outbox-refused]").Text(), "refused 1 time; last: ") ||
		!strings.Contains(doc.Find("[data-testid=outbox-refused]").Text(), "451") {
		t.Fatalf("the outbox page shows %q", doc.Find("[data-testid=outbox-message]").Text())
	}
	smtp.mu.Lock()
	smtp.refuse = false
	smtp.mu.Unlock()
	// Within the first minute: not yet.
	if n, err := env.Server.ResendOutbox(ctx); err != nil || n != 0 {
		t.Fatalf("resent %d (%v) before its next try was due", n, err)
	}
	ns.Add(int64(time.Minute))
	if n, err := env.Server.ResendOutbox(ctx); err != nil || n != 1 {
		t.Fatalf("resent %d (%v), want 1", n, err)
	}
	if n, err := env.Server.ResendOutbox(ctx); err != nil || n != 0 {
		t.Fatalf("resent %d (%v) after it went out, want 0", n, err)
	}
	smtp.mu.Lock()
	got, rcpt := append([]string(nil), smtp.msgs...), append([]string(nil), smtp.rcpt...)
	smtp.mu.Unlock()
	if len(got) != 1 || !strings.Contains(got[0], "Subject: You are invited") || !strings.Contains(rcpt[len(rcpt)-1], "dana@example.com") {
		t.Fatalf("the server took %d messages %q (rcpt %v), want the invitation once", len(got), got, rcpt)
	}
	msgs, _ = env.DB.ListOutbox(ctx, 10)
	if len(msgs) != 1 || !msgs[0].Delivered || msgs[0].Attempts != 1 {
		t.Fatalf("after the resend the outbox reads %+v", msgs)
	}
	if _, doc := page(t, super, env.URL+"/dev/outbox"); doc.Find("[data-testid=outbox-refused]").Length() != 0 ||
		!strings.Contains(doc.Find("[data-testid=outbox-message] header").Text(), "sent") {
		t.Fatalf("after the resend the outbox page shows %q", doc.Find("[data-testid=outbox-message]").Text())
	}

	// Without SMTP the outbox is the development outbox: nothing is sent.
	dir2 := t.TempDir()
	dev := webtest.StartWith(t, dir2, webtest.Database(t, dir2), nil, store.WithClock(now))
	tok := webtest.Token(t, dev.URL, "admin@example.com", nil).AccessToken
	if r, b := do(t, "POST", dev.URL+"/api/users/data-administrators", tok, `{"Email":"erin@example.com"}`); r.StatusCode != 201 {
		t.Fatalf("%d %s", r.StatusCode, b)
	}
	ns.Add(int64(time.Hour))
	if n, err := dev.Server.ResendOutbox(ctx); err != nil || n != 0 {
		t.Fatalf("without SMTP: resent %d (%v)", n, err)
	}
	if m, _ := dev.DB.ListOutbox(ctx, 10); len(m) != 1 || m[0].Delivered || m[0].Attempts != 0 {
		t.Fatalf("without SMTP the outbox reads %+v", m)
	}
}
