package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestEndToEndPKIConsole: with --pki, an application's Certificates page
// issues from a pasted CSR and from a chosen CSR file, downloads the
// certificate and its chain, and revokes with a reason; Reference Data >
// Certificate authority counts them (docs/design.md §18).
func TestEndToEndPKIConsole(t *testing.T) {
	ctx := newBrowser(t)
	base, _ := startProgram(t, "--pki")
	ecKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ecCSR, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: "Payments app"}}, ecKey)
	must(t, err)
	rsaKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	rsaCSR, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{}, rsaKey)
	must(t, err)
	derFile := filepath.Join(t.TempDir(), "app.der")
	must(t, os.WriteFile(derFile, rsaCSR, 0o600))

	signIn(t, ctx, base, "admin@example.com")
	createAcmeBankWith(t, ctx, base, chromedp.SetValue(chromedp.ID("f-Status"), "Active"))
	org, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.pathname`))
	must(t, err)
	org = strings.TrimSuffix(org, "/")
	must(t, chromedp.Do(ctx,
		chromedp.Navigate(base+org+"/softwarestatements/new"),
		chromedp.WaitVisible(chromedp.ID("f-ClientName")),
		chromedp.SendKeys(chromedp.ID("f-ClientName"), "Payments app"),
		click(chromedp.CSS(`[data-testid=save]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=application-certificates]`)),
		click(chromedp.CSS(`[data-testid=application-certificates]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=issue-form]`)),
		// Pasted: a signing certificate.
		click(chromedp.CSS(`[data-testid=issue-type-signing]`)),
		chromedp.SetValue(chromedp.ID("f-CSR"), string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: ecCSR}))),
		click(chromedp.CSS(`[data-testid=issue]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=certificate-row]`)),
		// Chosen file (DER): an encryption certificate.
		click(chromedp.CSS(`[data-testid=issue-type-encryption]`)),
		chromedp.SetUploadFiles(chromedp.ID("f-csrfile"), []string{derFile}),
		click(chromedp.CSS(`[data-testid=issue]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=certificate-row]:nth-of-type(2)`)),
	))
	checkAccessibility(t, ctx, "application certificates")
	rows := text(t, ctx, `[data-testid=app-certificates]`)
	if !strings.Contains(rows, "signing") || !strings.Contains(rows, "encryption") {
		t.Fatalf("issued: %q", rows)
	}
	// The downloads: the certificate, then it and the CA.
	for sel, want := range map[string]int{"download-pem": 1, "download-chain": 2} {
		pemText, err := chromedp.Run(ctx, chromedp.Evaluate[string](`fetch(document.querySelector("[data-testid=`+sel+`]").getAttribute("href")).then(r => r.text())`, chromedp.EvalAwaitPromise))
		must(t, err)
		if n := strings.Count(pemText, "BEGIN CERTIFICATE"); n != want {
			t.Fatalf("%s: %d certificates, want %d", sel, n, want)
		}
	}
	// Revoke the first with a reason.
	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=revoke]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=revoke-form]`)),
		chromedp.SetValue(chromedp.ID("reason"), "keycompromise"),
		click(chromedp.CSS(`[data-testid=confirm-revoke]`)),
	))
	// The row was on the page before: wait for what only the revocation
	// brings, its flash.
	if !waitTrue(t, ctx, `(document.querySelector("[data-testid=flash]")?.textContent || "").includes("was revoked")`) {
		t.Fatalf("no revocation flash: %q", text(t, ctx, `main`))
	}
	must(t, chromedp.Do(ctx,
		chromedp.Navigate(base+"/references"),
		click(chromedp.CSS(`[data-testid=ref-certificate-authority]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=ca-issued]`)),
	))
	issued, revoked := text(t, ctx, `[data-testid=ca-issued]`), text(t, ctx, `[data-testid=ca-revoked]`)
	crlNumber, _ := strconv.Atoi(strings.TrimSpace(text(t, ctx, `[data-testid=ca-crl-number]`)))
	if strings.TrimSpace(issued) != "2" || strings.TrimSpace(revoked) != "1" || crlNumber < 2 {
		t.Fatalf("the CA page: issued %q, revoked %q, CRL %d", issued, revoked, crlNumber)
	}
}
