package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trustframe/trustframe/web"
)

// Issue 14 point 3: an --smtp-url that cannot be used stops the start,
// before anything is made, and neither the error nor the log shows its
// password.
func TestServeRefusesUnusableSMTPURLWithoutShowingThePassword(t *testing.T) {
	for _, u := range []string{
		"smtpx://u:S3cretPW@mail.example:465",   // a scheme we do not speak
		"smtp://u:S3cretPW@mail.example:99999",  // a port out of range
		"smtps://u:S3cretPW@mail.example:0",     // nor is 0 a port to send to
		"smtp://u:S3cretPW@[mail.example:587",   // not a URL
		"smtp://u:S3cretPW@",                    // no host
		"mail.example:587?user=u&pass=S3cretPW", // no scheme
	} {
		dir := filepath.Join(t.TempDir(), "data")
		var out, errb bytes.Buffer
		// Started by mistake, the server stops after a while instead of hanging the test.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--data-dir", dir, "--smtp-url", u},
			func(string) string { return "" }, nil, &out, &errb)
		cancel()
		if err == nil {
			t.Fatalf("%s: started", u)
		}
		all := err.Error() + out.String() + errb.String()
		if exitCode(err) != 2 || !strings.Contains(err.Error(), "--smtp-url") || strings.Contains(all, "S3cretPW") {
			t.Fatalf("%s: exit %d: %v\nlog: %s", u, exitCode(err), err, errb.String())
		}
		if _, err := os.Stat(filepath.Join(dir, "trustframe.db")); err == nil {
			t.Fatalf("%s: a database was made before the refusal", u)
		}
	}
}

// A usable --smtp-url to a server that is down starts the service (the
// messages wait in the outbox), smtp:// and smtps:// alike; smtps:// was
// refused at start.
func TestServeStartsWithAnSMTPServerThatIsDown(t *testing.T) {
	for _, scheme := range []string{"smtp", "smtps"} {
		t.Run(scheme, func(t *testing.T) {
			cancel, out, done := startServe(t, false, "--addr", "127.0.0.1:0", "--smtp-url", scheme+"://u:S3cretPW@127.0.0.1:1")
			said(t, out, "listening on ")
			stopsPromptly(t, cancel, done)
		})
	}
}

// Every log line hides the credentials of URLs, whatever carries them: the
// message, a string, an error, a group, attributes added with With.
func TestLogRedactsURLCredentials(t *testing.T) {
	for _, format := range []string{"text", "json"} {
		var buf bytes.Buffer
		f := serveFlags{logFormat: format}
		lw := web.NewLogBuffer(&buf, time.Hour)
		log := f.logger(lw)
		log.Error("SMTP send to smtp://u:S3cretPW@mail.example:587 failed", "err", errors.New(`dial "smtp://u:S3cretPW@mail.example:587": refused`),
			"url", "https://client:S3cretPW@idp.example/token")
		log.With("issuer", "https://a:S3cretPW@idp.example").WithGroup("g").Info("x", "u", "smtp://u:p%40S3cretPW@h")
		_ = lw.Flush()
		if s := buf.String(); strings.Contains(s, "S3cretPW") || !strings.Contains(s, "mail.example:587") || !strings.Contains(s, "idp.example") {
			t.Fatalf("%s log: %s", format, s)
		}
	}
}

// The refusal of an --smtp-url shows, as the operator reads it (through
// RedactURLs, as main prints every error), the form it wants. Its own
// example "smtp://[user:password@]host" looked like credentials and was
// printed as "smtp://REDACTED@]host[:port]".
func TestServeSMTPURLRefusalShowsTheWantedForm(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--data-dir", dir, "--smtp-url", "http://mail.example"},
		func(string) string { return "" }, nil, &bytes.Buffer{}, &bytes.Buffer{})
	shown := web.RedactURLs(err.Error())
	if exitCode(err) != 2 || strings.Contains(shown, "REDACTED") || !strings.Contains(shown, "smtp://host[:port]") || !strings.Contains(shown, "user:password@") {
		t.Fatalf("exit %d: %s", exitCode(err), shown)
	}
}
