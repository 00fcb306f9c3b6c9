package web_test

import (
	"bufio"
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trustframe/trustframe/web"
	"github.com/trustframe/trustframe/web/webtest"
)

// fakeSMTP is the smallest SMTP server that accepts one message at a time.
type fakeSMTP struct {
	ln   net.Listener
	mu   sync.Mutex
	msgs []string
	rcpt []string
}

func startSMTP(t *testing.T) *fakeSMTP {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
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
		case strings.HasPrefix(cmd, "MAIL FROM"):
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
