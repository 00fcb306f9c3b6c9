package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/chromedp/chromedp"
	"github.com/go-chi/chi/v5"
	jose "github.com/go-jose/go-jose/v4"

	"github.com/trustframe/trustframe/web/webtest"
)

// htmxIdle is true once the page has loaded and htmx is neither sending,
// swapping nor settling.
const htmxIdle = `document.readyState === "complete" && !document.querySelector(".htmx-request, .htmx-settling, .htmx-swapping, .htmx-added")`

// click is chromedp.Click once htmx is idle (waiting 2 s at most, then
// clicking anyway). A click before that lands on a page in flux: before
// htmx listens it is the browser's own whole-page navigation (focus then
// stays on the body), and during a settle htmx may still restore
// attributes of the element clicked (a menu closes again).
func click[S chromedp.Selectable](sel S, opts ...chromedp.QueryOption) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if idle, err := chromedp.Evaluate[bool](htmxIdle)(ctx, t); err == nil && idle {
				break
			}
		}
		return chromedp.Click(sel, opts...)(ctx, t)
	}
}

// waitURL waits until the page's URL holds part: a boosted navigation has
// swapped the page.
func waitURL(t *testing.T, ctx context.Context, part string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		loc, err := chromedp.Run(ctx, chromedp.Location())
		if err == nil && strings.Contains(loc, part) {
			// and the document is the new one
			time.Sleep(100 * time.Millisecond) // let htmx finish the swap it just started
			if ready, err := chromedp.Run(ctx, chromedp.Evaluate[bool](htmxIdle)); err == nil && ready {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the URL never held %q", part)
}

// text is the text of the first element matching sel ("" when none).
func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	s, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector(`+jsString(sel)+`)||{}).textContent||""`))
	return strings.TrimSpace(s)
}

// cliLogin runs `trustframe login` and does the browser's part by posting
// the development sign-in form.
func cliLogin(t *testing.T, base, cfgDir, email string, extra ...string) string {
	t.Helper()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(context.Background(), append([]string{"login", "--server", base, "--config-dir", cfgDir, "--timeout", "30s"}, extra...),
			func(string) string { return "" }, nil, pw, io.Discard)
		pw.Close()
	}()
	var out strings.Builder
	sc := bufio.NewScanner(pr)
	var authURL string
	for sc.Scan() {
		out.WriteString(sc.Text() + "\n")
		if m := regexp.MustCompile(`^\s+(http://\S+/dev/idp/authorize\?\S+)$`).FindStringSubmatch(sc.Text()); m != nil {
			authURL = m[1]
			break
		}
	}
	if authURL == "" {
		t.Fatalf("login printed no URL: %s", out.String())
	}
	restDone := make(chan struct{})
	go func() {
		defer close(restDone)
		for sc.Scan() {
			out.WriteString(sc.Text() + "\n")
		}
	}()
	// The browser: open the URL, submit the form, follow the redirect to the CLI.
	resp, err := http.Get(authURL)
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := goquery.NewDocumentFromReader(resp.Body)
	resp.Body.Close()
	form := url.Values{}
	doc.Find("form input").Each(func(_ int, s *goquery.Selection) {
		n, _ := s.Attr("name")
		v, _ := s.Attr("value")
		form.Set(n, v)
	})
	form.Set("email", email)
	resp, err = http.PostForm(base+"/dev/idp/authorize", form)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), "signed in") {
		t.Fatalf("callback page: %d %s", resp.StatusCode, b)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("login: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("login did not finish")
	}
	<-restDone // the pipe closed when run returned
	return out.String()
}

func cliAPI(t *testing.T, cfgDir string, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), append([]string{"api", "--config-dir", cfgDir}, args...), func(string) string { return "" }, strings.NewReader(`{"Email":"stdin@example.com","Status":"Active"}`), &out, &errb)
	return out.String(), errb.String(), err
}

// startDocumentWizard creates the organisation Acme Bank in the browser,
// opens its Add document page (one page since issue 40; the name stays
// for the tests that use it) and chooses the type Licence.
func startDocumentWizard(t *testing.T, ctx context.Context, base string) {
	t.Helper()
	createAcmeBank(t, ctx, base)
	must(t, chromedp.Do(ctx,
		click(chromedp.CSS(`[data-testid=tab-documents]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=add-document]`)),
		click(chromedp.CSS(`[data-testid=add-document]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=document-form] #f-DocumentReferenceNumber`)),
		chromedp.SetValue(chromedp.ID("f-DocumentType"), "Licence"),
	))
}

// createAcmeBank creates the organisation Acme Bank through the New
// organisation form and waits for its page.
func createAcmeBank(t *testing.T, ctx context.Context, base string) {
	t.Helper()
	createAcmeBankWith(t, ctx, base)
}

// createActiveAcmeBank creates it Active (new organisations start Pending),
// as one whose applications get SSAs must be.
func createActiveAcmeBank(t *testing.T, ctx context.Context, base string) {
	t.Helper()
	createAcmeBankWith(t, ctx, base, chromedp.SetValue(chromedp.ID("f-Status"), "Active"))
}

// startServe runs serve in this process with args and a fresh data
// directory, its standard output in out (and its log too with
// logsInOut, as a terminal shows both); cancel stops it as a signal
// would, and done gets its result.
func startServe(t *testing.T, logsInOut bool, args ...string) (cancel context.CancelFunc, out *lockedBuffer, done chan error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	out, done = &lockedBuffer{}, make(chan error, 1)
	var logs io.Writer = io.Discard
	if logsInOut {
		logs = out
	}
	args = append([]string{"serve", "--data-dir", t.TempDir()}, args...)
	go func() {
		done <- run(ctx, args, func(string) string { return "" }, strings.NewReader(""), out, logs)
	}()
	return cancel, out, done
}

// said waits (10 s at most) for the program to print marker and returns
// the rest of that line.
func said(t *testing.T, out *lockedBuffer, marker string) string {
	t.Helper()
	for i := 0; ; i++ {
		if _, rest, ok := strings.Cut(out.String(), marker); ok {
			if line, _, ok := strings.Cut(rest, "\n"); ok {
				return line
			}
		}
		if i > 500 {
			t.Fatalf("the program never said %q:\n%s", marker, out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stopsPromptly stops serve and checks that it ends without error within
// 5 seconds.
func stopsPromptly(t *testing.T, cancel context.CancelFunc, done chan error) {
	t.Helper()
	t0 := time.Now()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop")
	}
	if took := time.Since(t0); took > 5*time.Second {
		t.Fatalf("the stop took %s", took)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// answerDialogs answers every confirmation of the page (the console's own
// dialog, views.ConfirmDialog) with the next of answers (true: the
// confirming button), and records their questions.
func answerDialogs(t *testing.T, ctx context.Context, answers ...bool) *[]string {
	t.Helper()
	var mu sync.Mutex
	var msgs []string
	lctx, stop := context.WithCancel(ctx)
	t.Cleanup(stop)
	go func() {
		i := 0
		for lctx.Err() == nil {
			mu.Lock()
			accept := i < len(answers) && answers[i]
			mu.Unlock()
			// One evaluation reads and answers an open dialog: it is not
			// seen twice.
			msg, _ := chromedp.Run(lctx, chromedp.Evaluate[string](fmt.Sprintf(`(function(){
  var d = document.getElementById("tf-confirm");
  if (!d || !d.open) return "";
  var m = d.querySelector("[data-confirm-text]").textContent;
  d.querySelector(%t ? "[data-confirm-ok]" : "[data-confirm-cancel]").click();
  return m;
})()`, accept)))
			if msg != "" {
				mu.Lock()
				msgs = append(msgs, msg)
				i++
				mu.Unlock()
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
	return &msgs
}

// copyFile copies a key file from one data directory to another, mode 0600,
// as the README tells an operator to copy kek.key to each host.
func copyFile(t testing.TB, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func runDoctor(args ...string) (string, error) {
	var out bytes.Buffer
	err := run(context.Background(), append([]string{"doctor"}, args...), func(string) string { return "" }, nil, &out, &bytes.Buffer{})
	return out.String(), err
}

// answers asks both servers the same questions and fails on any
// difference of status, body or the headers a client acts on.
type answers struct {
	t        *testing.T
	a, b     string
	token    string
	n        int
	failures int
}

// get asks both servers for path and returns the (equal) JSON answer.
func (c *answers) get(path string) any {
	c.t.Helper()
	c.n++
	sa, ha, ba := c.fetch(c.a, path)
	sb, hb, bb := c.fetch(c.b, path)
	fail := func(what string, x, y any) {
		c.t.Helper()
		c.failures++
		if c.failures <= 20 {
			c.t.Errorf("GET %s: %s differs:\n  SQLite:     %v\n  PostgreSQL: %v", path, what, x, y)
		}
	}
	if sa != sb {
		fail("status", sa, sb)
	}
	for _, h := range compared {
		if ha.Get(h) != hb.Get(h) {
			fail(h, ha.Get(h), hb.Get(h))
		}
	}
	if !bytes.Equal(normalise(path, ba), normalise(path, bb)) {
		fail("body", clip(ba), clip(bb))
	}
	if sa != 200 {
		c.t.Errorf("GET %s: %d %s", path, sa, clip(ba))
	}
	var v any
	_ = json.Unmarshal(ba, &v)
	return v
}

func (c *answers) fetch(base, path string) (int, http.Header, []byte) {
	c.t.Helper()
	req, _ := http.NewRequest("GET", base+path, nil)
	if strings.HasPrefix(path, "/api/") {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}

// ids returns the first of fields present in every item of a list
// answer (an array, or an object's content or list).
func ids(v any, fields ...string) []string {
	items, _ := v.([]any)
	if m, ok := v.(map[string]any); ok {
		items, _ = m["content"].([]any)
		if items == nil {
			items, _ = m["list"].([]any)
		}
	}
	var out []string
	for _, it := range items {
		if o, ok := it.(map[string]any); ok {
			for _, f := range fields {
				if s, ok := o[f].(string); ok {
					out = append(out, s)
					break
				}
			}
		}
	}
	return out
}

func (c *answers) compareAll() {
	t := c.t
	// Lists: first page, a deep page, the last page, past the end, sizes.
	first, _ := c.get("/api/organisations").(map[string]any)
	total, _ := first["totalSize"].(float64)
	if total != 10_006 {
		t.Fatalf("totalSize %v, want 10006", total)
	}
	var sample []string
	for _, p := range []string{"?size=50", "?size=50&page=100", "?size=50&page=200", "?page=250&size=20", "?page=500&size=20", "?page=9999999", "?size=1&page=10005", "?size=7&page=1429"} {
		sample = append(sample, ids(c.get("/api/organisations"+p), "OrganisationId")...)
	}
	// Every sort, both ways, at the start and deep in the list.
	for _, f := range []string{"OrganisationName", "RegistrationNumber", "CountryOfRegistration", "Status", "CreatedOn"} {
		for _, d := range []string{"asc", "desc"} {
			for _, p := range []string{"0", "137", "500"} {
				c.get("/api/organisations?size=20&sort=" + f + "," + d + "&page=" + p)
			}
		}
	}
	// Search: words, prefixes, several words, accents and case either way,
	// with filters and sorts, and nothing found.
	for _, q := range []string{"Acme", "acme", "north", "Harbour Trust", "São", "sao", "SAO PAULO", "société", "societe", "crédit", "credit", "zurich", "Zürich",
		"económica", "orsted", "Ørsted", "josé", "00042", "RN0", "ACC-3", "nothing-like-this", "Pay", "Building Society"} {
		c.get("/api/organisations?q=" + url.QueryEscape(q))
		c.get("/api/organisations?size=5&page=1&sort=OrganisationName,desc&q=" + url.QueryEscape(q))
	}
	for _, f := range []string{"Status=Active", "Status=Withdrawn&size=50&page=20", "AuthorisationDomain=Open+Finance&Role=PISP&page=40",
		"Role=SANDBOX", "Status=Pending&q=bank&sort=CreatedOn,desc"} {
		c.get("/api/organisations?" + f)
	}
	flags := c.get("/api/references/flags")
	for _, id := range ids(flags, "FlagId") {
		c.get("/api/references/flags/" + id)
		c.get("/api/organisations?Flag=" + id)
	}
	for _, q := range []string{"bank", "São Paulo", "zurich", "ACC"} {
		sample = append(sample, ids(c.get("/api/organisations?q="+url.QueryEscape(q)), "OrganisationId")...)
	}
	// Point reads of a sample of organisations and of all their children.
	slices.Sort(sample)
	sample = slices.Compact(sample)
	read := map[string]int{} // point reads by kind, so that none is left out unnoticed
	for _, oid := range sample {
		base := "/api/organisations/" + oid
		c.get(base)
		for _, child := range []struct{ path, id string }{{"/contacts", "ContactId"}, {"/authorisationservers", "AuthorisationServerId"},
			{"/softwarestatements", "SoftwareStatementId"}, {"/authority-claims", "OrganisationAuthorityClaimId"}, {"/documents", "DocumentId"},
			{"/key-material", "KeyMaterialID"}} {
			for _, id := range ids(c.get(base+child.path), child.id, "ClaimId") {
				c.get(base + child.path + "/" + id)
				read[child.path]++
				switch child.path {
				case "/softwarestatements", "/authorisationservers":
					c.get(base + child.path + "/" + id + "/certifications")
				case "/key-material":
					for _, att := range ids(c.get(base+child.path+"/"+id+"/attachments"), "KeyMaterialAttachmentID") {
						c.get(base + child.path + "/" + id + "/attachments/" + att)
						read["attachments"]++
					}
				}
			}
		}
		for _, kid := range ids(c.get(base+"/certificates"), "kid") {
			c.get(base + "/certificates/kid/" + kid)
			read["certificates"]++
		}
		c.get(base + "/certifications")
		c.get("/keystore/" + oid + "/application.jwks")
		c.get("/keystore/" + oid + "/inactive/application.jwks")
	}
	t.Logf("%d organisations read, and of their children: %v", len(sample), read)
	for _, kind := range []string{"/contacts", "/authorisationservers", "/softwarestatements", "/authority-claims", "/documents", "/key-material", "attachments", "certificates"} {
		if read[kind] == 0 {
			t.Errorf("no %s was read", kind)
		}
	}
	// The public answers.
	c.get("/api/participants")
	c.get("/keystore/ssa.jwks")
	c.get("/federation/list")
	// The audit log and the change feed: first pages, a deep page, filters.
	for _, p := range []string{"/api/audit", "/api/audit?page=1", "/api/audit?size=200", "/api/changes", "/api/changes?size=200", "/api/expiring"} {
		c.get(p)
	}
	// References and administrators.
	for _, p := range []string{"/api/references/contact-types", "/api/references/document-types", "/api/references/certification-types",
		"/api/references/authorisation-domains", "/api/references/authorisation-domains/Open%20Finance/roles", "/api/references/authorities",
		"/api/references/signing-keys", "/api/references/signing-keys/federation", "/api/references/role-metadata-policies",
		"/api/references/identity-providers", "/api/references/identity-providers/partner", "/api/references/webhooks",
		"/api/users/super", "/api/users/data-administrators", "/api/users/data-administrators/dana@example.com"} {
		c.get(p)
	}
	for _, id := range ids(c.get("/api/references/webhooks"), "WebhookId") {
		c.get("/api/references/webhooks/" + id)
		c.get("/api/references/webhooks/" + id + "/deliveries")
	}
	for _, id := range ids(c.get("/api/references/role-metadata-policies"), "PolicyId") {
		c.get("/api/references/role-metadata-policies/" + id)
	}
	if c.failures > 20 {
		t.Errorf("… and %d more differences", c.failures-20)
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// apiClient calls the JSON API of a test server as admin@example.com.
type apiClient struct {
	t   *testing.T
	url string
	tok string
}

func newAPIClient(t *testing.T, env *webtest.Env) *apiClient {
	return &apiClient{t: t, url: env.URL, tok: webtest.Token(t, env.URL, "admin@example.com", nil).AccessToken}
}

// call sends one API request and fails the test unless the answer is want.
func (c *apiClient) call(method, path, body string, want int) map[string]any {
	c.t.Helper()
	req, _ := http.NewRequest(method, c.url+"/api"+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+c.tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		c.t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, b)
	}
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}

// discoveryServer is an OpenID Provider that answers discovery only: enough
// for an authorisation server's Issuer to be accepted.
func discoveryServer(t *testing.T) string {
	var disc *httptest.Server
	disc = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]string{"issuer": disc.URL, "jwks_uri": disc.URL + "/jwks"})
	}))
	t.Cleanup(disc.Close)
	return disc.URL
}

// visible reports whether the element is rendered and inside the window.
func visible(t *testing.T, ctx context.Context, sel string) bool {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(function(){var e=document.querySelector(`+"`"+sel+"`"+`); if(!e) return false; var r=e.getBoundingClientRect(); return r.width>0 && r.height>0 && r.left>=0 && r.right<=window.innerWidth;})()`))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// waitTrue waits up to two seconds for a JavaScript condition.
func waitTrue(t *testing.T, ctx context.Context, cond string) bool {
	t.Helper()
	for i := 0; i < 20; i++ {
		if ok, _ := chromedp.Run(ctx, chromedp.Evaluate[bool](`!!(`+cond+`)`)); ok {
			return true
		}
		time.Sleep(100 * time.Millisecond)
	}
	return false
}

// focused describes the focused element for a failure message.
func focused(ctx context.Context) string {
	s, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.activeElement.outerHTML.slice(0,80)`))
	return s
}

// everyConsolePage fills env with one of each kind of record (as
// admin@example.com) and returns every browser GET route that shows a
// page, with real ids.
func everyConsolePage(t *testing.T, env *webtest.Env) []string {
	t.Helper()
	tok := webtest.Token(t, env.URL, "admin@example.com", nil).AccessToken
	call := func(method, path, ctype, body string) map[string]any {
		t.Helper()
		req, _ := http.NewRequest(method, env.URL+"/api"+path, strings.NewReader(body))
		req.Header.Set("Content-Type", ctype)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, b)
		}
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		return m
	}
	var disc *httptest.Server
	disc = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]string{"issuer": disc.URL, "jwks_uri": disc.URL + "/jwks"})
	}))
	t.Cleanup(disc.Close)

	// A webhook first, so that the changes below fill its delivery log
	// (no deliverer runs here: they stay Pending).
	hook := call("POST", "/references/webhooks", "application/json", `{"Url":"https://8.8.8.8/hook","SubjectTypes":["Organisation","Application"]}`)
	org := call("POST", "/organisations", "application/json", `{"OrganisationName":"Acme Bank","RegistrationNumber":"12345678","CountryOfRegistration":"GB"}`)
	oid := org["OrganisationId"].(string)
	base := "/organisations/" + oid
	app := call("POST", base+"/softwarestatements", "application/json", `{"ClientName":"Payments app","RedirectUri":["https://app.acme.example/cb"]}`)
	aid := app["SoftwareStatementId"].(string)
	srv := call("POST", base+"/authorisationservers", "application/json", `{"CustomerFriendlyName":"Acme AS","Issuer":"`+disc.URL+`"}`)
	contact := call("POST", base+"/contacts", "application/json", `{"ContactType":"Business","FirstName":"Ann","LastName":"Doe","EmailAddress":"ann@acme.example"}`)
	doc := call("POST", base+"/documents", "application/json", `{"DocumentType":"Licence","DocumentReferenceNumber":"FCA-1","DocumentExpiryDate":"2099-01-01"}`)
	cert := call("POST", base+"/softwarestatements/"+aid+"/certifications", "application/json", `{"CertificationType":"FAPI","CertificationStartDate":"2026-01-01"}`)
	srvCert := call("POST", base+"/authorisationservers/"+srv["AuthorisationServerId"].(string)+"/certifications", "application/json", `{"CertificationType":"FAPI","CertificationStartDate":"2026-01-01"}`)
	orgCert := call("POST", base+"/certificates/qseal", "application/x-pem-file", webtest.ValidCert(t, "p256", "seal.acme.example"))
	k := webtest.Key(t, "p256").(*ecdsa.PrivateKey)
	pub, _ := json.Marshal(jose.JSONWebKey{Key: &k.PublicKey})
	km := call("POST", base+"/key-material", "application/json", `{"PublicJwk":`+string(pub)+`,"Use":"sig"}`)
	flag := call("POST", "/references/flags", "application/json", `{"Name":"Pilot","Type":"Organisation"}`)
	call("POST", "/references/authorisation-domains", "application/json", `{"Name":"Payments"}`)
	call("POST", "/references/authorisation-domains/Payments/roles", "application/json", `{"Name":"PISP","Type":"Federation"}`)
	tmType := call("POST", "/references/trust-mark-types", "application/json", `{"Name":"Payment initiation","Basis":"Role","AuthorisationDomain":"Payments","Role":"PISP"}`)
	authority := call("POST", "/references/authorities", "application/json", `{"AuthorityName":"Central Bank","AuthorityCode":"CB","Country":"GB","AuthorisationDomains":["Payments"]}`)
	call("POST", base+"/authority-claims", "application/json", `{"AuthorityId":"`+authority["AuthorityId"].(string)+`","AuthorisationDomain":"Payments","Role":"PISP","RegistrationId":"R-1"}`)
	pol := call("POST", "/references/role-metadata-policies", "application/json", `{"AuthorisationDomain":"Payments","Role":"PISP","EntityType":"openid_relying_party","Policy":{"grant_types":{"subset_of":["authorization_code"]}}}`)
	call("POST", "/references/identity-providers", "application/json", `{"Name":"Ops IdP","EmailDomains":["example.com"],"Issuer":"`+disc.URL+`"}`)
	ids := map[string]string{
		"orgID": oid, "appID": aid, "serverID": srv["AuthorisationServerId"].(string), "contactID": contact["ContactId"].(string),
		"docID": doc["DocumentId"].(string), "certID": cert["CertificationId"].(string), "kid": orgCert["kid"].(string),
		"kmID": km["KeyMaterialID"].(string), "flagID": flag["FlagId"].(string), "policyID": pol["PolicyId"].(string),
		"email": "admin@example.com", "name": "Ops%20IdP", "certType": "qseal", "webhookID": hook["WebhookId"].(string),
		"typeID": tmType["Id"].(string), "request": "MAMCAQA",
		"domain": "Payments", "role": "PISP", "authorityID": authority["AuthorityId"].(string),
	}

	// Every browser GET route that shows a page.
	skip := regexp.MustCompile(`^/(api|dev/idp|auth|static|keystore|federation|pki|\.well-known)(/|$)|^/(logout|healthz|readyz|login)$|/content$|/assertion$|\.csv$|\.pem$|\{attID\}`)
	param := regexp.MustCompile(`\{([^}]+)\}`)
	var pages []string
	_ = chi.Walk(env.Server.Router(), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		route = strings.TrimSuffix(route, "/*")
		if method != http.MethodGet || skip.MatchString(route) {
			return nil
		}
		if strings.HasSuffix(route, "/") && route != "/" {
			route = strings.TrimSuffix(route, "/")
		}
		p := param.ReplaceAllStringFunc(route, func(m string) string {
			if m == "{certID}" && strings.Contains(route, "/authorisationservers/") {
				return srvCert["CertificationId"].(string)
			}
			v, ok := ids[strings.Trim(m, "{}")]
			if !ok {
				t.Fatalf("no id for %s in %s", m, route)
			}
			return v
		})
		// The name route is shared by the reference types: use one that exists.
		if strings.HasPrefix(route, "/references/") && strings.Contains(route, "{name}") && !strings.HasPrefix(route, "/references/identity-providers") {
			return nil
		}
		pages = append(pages, p)
		return nil
	})
	sort.Strings(pages)
	if len(pages) < 30 {
		t.Fatalf("only %d pages: %v", len(pages), pages)
	}
	return pages

}

// checkPage opens one console page at the current viewport width and fails
// it when it does not render, has a serious axe-core violation or is wider
// than the window.
func checkPage(t *testing.T, ctx context.Context, base, p string, width int64) {
	t.Helper()
	at := fmt.Sprintf("%s at %d px", p, width)
	if _, err := chromedp.Run(ctx, chromedp.Navigate(base+p)); err != nil {
		t.Errorf("%s: %v", at, err)
		return
	}
	ct, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.contentType`))
	if ct != "text/html" {
		return
	}
	h1, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector("h1")||{}).textContent||""`))
	if l := strings.ToLower(h1); h1 == "" || strings.Contains(l, "went wrong") || strings.Contains(l, "not found") || strings.Contains(l, "forbidden") {
		t.Errorf("%s shows %q", at, h1)
		return
	}
	checkAccessibility(t, ctx, at)
	// Nothing is wider than the window (a long id, a table that does not
	// scroll inside its wrapper, a header that does not collapse).
	if over, _ := chromedp.Run(ctx, chromedp.Evaluate[string](overflowing)); over != "" {
		t.Errorf("%s is wider than the window: %s", at, over)
	}
	if dir := os.Getenv("TRUSTFRAME_SCREENSHOT_DIR"); dir != "" {
		if b, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)); err == nil {
			name := strings.Trim(regexp.MustCompile(`[^a-z0-9]+`).ReplaceAllString(strings.ToLower(p), "-"), "-")
			_ = os.WriteFile(filepath.Join(dir, fmt.Sprintf("page-%d-%s.png", width, name)), b, 0o644)
		}
	}
}

// migrateDir starts a database in dir, as serve's first start would: keys
// refuses a directory without one.
func migrateDir(t *testing.T, dir string) {
	t.Helper()
	if err := run(context.Background(), []string{"migrate", "--data-dir", dir}, func(string) string { return "" }, nil, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
}

// startProgram runs the real program through run on 127.0.0.1:0 and
// returns its URL. The program stops when the test ends.
func startProgram(t *testing.T, extraArgs ...string) (string, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	dataDir := t.TempDir()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	args := append([]string{"serve", "--addr", "127.0.0.1:0", "--data-dir", dataDir}, extraArgs...)
	go func() {
		done <- run(ctx, args, func(string) string { return "" }, strings.NewReader(""), pw, io.Discard)
		pw.Close()
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("run: %v", err)
			}
		case <-time.After(20 * time.Second):
			t.Error("the server did not stop within 20 s of the signal")
		}
	})
	urlRe := regexp.MustCompile(`listening on (http://\S+)`)
	lines := bufio.NewScanner(pr)
	for lines.Scan() {
		if m := urlRe.FindStringSubmatch(lines.Text()); m != nil {
			go io.Copy(io.Discard, pr)
			return m[1], dataDir
		}
	}
	t.Fatal("the program never said where it listens")
	return "", ""
}

func newBrowser(t *testing.T) context.Context {
	t.Helper()
	return newBrowserFor(t, 4*time.Minute) // a safeguard, not a speed test: a loaded machine is slow
}

// newBrowserFor is newBrowser for a test that needs longer than 4 minutes.
func newBrowserFor(t *testing.T, limit time.Duration) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(browserPath(t)),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-quic", true),
		chromedp.WindowSize(1280, 900),
	)
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	// The browser starts on the tab's own context: the first run's context
	// sets the browser's lifetime, and the test's time limit must not close
	// it before dumpPageOnFailure has read the page.
	tab := ctx
	stuck := time.AfterFunc(time.Minute, cancelA) // a browser that does not start is stopped
	err := chromedp.Do(tab)
	stuck.Stop()
	if err != nil {
		cancelC()
		cancelA()
		t.Fatalf("start browser: %v", err)
	}
	ctx, cancelT := context.WithTimeout(tab, limit)
	t.Cleanup(func() { cancelT(); cancelC(); cancelA() })
	t.Cleanup(func() { dumpPageOnFailure(t, tab) }) // runs first: the tab is still open
	watchConsole(t, ctx)
	return ctx
}

// signIn goes through the real sign-in: start page, development identity
// provider form, callback.
func signIn(t *testing.T, ctx context.Context, base, email string) {
	t.Helper()
	err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/"),
		click(chromedp.CSS(`[data-testid=sign-in]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=dev-idp-banner]`)),
		chromedp.SetValue(chromedp.ID("email"), email),
		click(chromedp.CSS(`[data-testid=dev-sign-in]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=current-user]`)),
	)
	if err != nil {
		t.Fatalf("sign in as %s: %v", email, err)
	}
	who, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=current-user]`)))
	if err != nil || who != email {
		t.Fatalf("signed in as %q (%v), want %s", who, err, email)
	}
}

// checkAccessibility runs axe-core on the current page and fails on
// serious or critical violations.
func checkAccessibility(t *testing.T, ctx context.Context, page string) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](axeSource+";true")); err != nil {
		t.Fatalf("load axe: %v", err)
	}
	res, err := chromedp.Run(ctx, chromedp.Evaluate[axeResult](`axe.run(document, {runOnly: ["wcag2a", "wcag2aa"]})`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("axe: %v", err)
	}
	for _, v := range res.Violations {
		if v.Impact == "serious" || v.Impact == "critical" {
			t.Errorf("%s: accessibility %s (%s): %s %v", page, v.ID, v.Impact, v.Help, v.Nodes)
		}
	}
}

// child is a `trustframe serve` process started by startServeProcess.
type child struct {
	base   string // the base URL it prints
	listen string // the address it listens on (differs from base with --base-url)
	cmd    *exec.Cmd
	log    *webtest.LogBuffer // its standard error
}

// startServeProcess runs `trustframe serve --addr 127.0.0.1:0 args...` in
// a process of its own. Its log is shown when the test fails.
func startServeProcess(t testing.TB, args ...string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperServeProcess$")
	cmd.Env = append(os.Environ(), "TRUSTFRAME_HELPER_SERVE_ARGS="+strings.Join(append([]string{"serve", "--addr", "127.0.0.1:0"}, args...), "\x1f"))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	logs := &webtest.LogBuffer{}
	cmd.Stderr = logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			l := logs.String()
			if len(l) > 8000 {
				l = "…" + l[len(l)-8000:]
			}
			t.Logf("log of the server process %d:\n%s", cmd.Process.Pid, l)
		}
	})
	urlRe := regexp.MustCompile(`listening on (http://\S+)`)
	listenRe := regexp.MustCompile(`msg=listening listen=(\S+)`)
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		if m := urlRe.FindStringSubmatch(lines.Text()); m != nil {
			go io.Copy(io.Discard, out)
			// The log line comes before the printed one; its copy may lag.
			for range 100 {
				if l := listenRe.FindStringSubmatch(logs.String()); l != nil {
					return &child{base: m[1], listen: "http://" + l[1], cmd: cmd, log: logs}
				}
				time.Sleep(20 * time.Millisecond)
			}
			t.Fatalf("the server process logged no listen address:\n%s", logs.String())
		}
	}
	t.Fatalf("the server process never said where it listens:\n%s", logs.String())
	return nil
}
