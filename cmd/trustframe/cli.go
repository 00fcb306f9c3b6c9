package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/trustframe/trustframe/dpop"
)

// credentials is what `trustframe login` keeps (mode 0600).
type credentials struct {
	Server             string    `json:"server"`
	Issuer             string    `json:"issuer"`
	TokenEndpoint      string    `json:"token_endpoint"`
	RevocationEndpoint string    `json:"revocation_endpoint,omitempty"`
	ClientID           string    `json:"client_id"`
	AccessToken        string    `json:"access_token"`
	RefreshToken       string    `json:"refresh_token,omitempty"`
	TokenType          string    `json:"token_type"`
	Expiry             time.Time `json:"expiry"`
	Nonce              string    `json:"dpop_nonce,omitempty"`
	Email              string    `json:"email,omitempty"`
	// NoDPoP: signed in with --no-dpop; the tokens are plain Bearer tokens.
	NoDPoP bool `json:"no_dpop,omitempty"`
}

type cliEnv struct {
	dir    string
	http   *http.Client
	stdout io.Writer
	stderr io.Writer
}

func configDir(getenv func(string) string, flagValue string) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	if d := getenv("TRUSTFRAME_CONFIG_DIR"); d != "" {
		return d, nil
	}
	if d := getenv("XDG_CONFIG_HOME"); d != "" {
		return filepath.Join(d, "trustframe"), nil
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".config", "trustframe"), nil
	}
	return "", errors.New("no config directory: set --config-dir or TRUSTFRAME_CONFIG_DIR")
}

func (e *cliEnv) credPath() string { return filepath.Join(e.dir, "credentials.json") }
func (e *cliEnv) keyPath() string  { return filepath.Join(e.dir, "dpop-key.pem") }

// dpopKey loads the DPoP key pair, making it (0600) on first use.
func (e *cliEnv) dpopKey() (*dpop.Signer, error) {
	if err := os.MkdirAll(e.dir, 0o700); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(e.keyPath())
	var key *ecdsa.PrivateKey
	switch {
	case err == nil:
		blk, _ := pem.Decode(b)
		if blk == nil {
			return nil, fmt.Errorf("%s is not PEM", e.keyPath())
		}
		key, err = x509.ParseECPrivateKey(blk.Bytes)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.keyPath(), err)
		}
	case errors.Is(err, os.ErrNotExist):
		key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, err
		}
		der, err := x509.MarshalECPrivateKey(key)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(e.keyPath(), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), 0o600); err != nil {
			return nil, err
		}
	default:
		return nil, err
	}
	return dpop.NewSigner(key)
}

func (e *cliEnv) load() (*credentials, error) {
	b, err := os.ReadFile(e.credPath())
	if errors.Is(err, os.ErrNotExist) {
		return nil, errors.New("not signed in: run trustframe login --server URL")
	}
	if err != nil {
		return nil, err
	}
	var c credentials
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", e.credPath(), err)
	}
	return &c, nil
}

func (e *cliEnv) save(c *credentials) error {
	if err := os.MkdirAll(e.dir, 0o700); err != nil {
		return err
	}
	b, _ := json.MarshalIndent(c, "", "  ")
	tmp := e.credPath() + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, e.credPath())
}

func (e *cliEnv) getJSON(ctx context.Context, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := e.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	return json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(v)
}

type tokenResponse struct {
	AccessToken      string `json:"access_token"`
	RefreshToken     string `json:"refresh_token"`
	TokenType        string `json:"token_type"`
	ExpiresIn        int    `json:"expires_in"`
	Error            string `json:"error"`
	ErrorDescription string `json:"error_description"`
}

// tokenRequest posts to the token endpoint with a DPoP proof (none after
// login --no-dpop), retrying once with the server's nonce when it asks for one.
func (e *cliEnv) tokenRequest(ctx context.Context, c *credentials, key *dpop.Signer, form url.Values) (*tokenResponse, error) {
	for attempt := 0; attempt < 2; attempt++ {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, c.TokenEndpoint, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if !c.NoDPoP {
			proof, err := key.Proof(http.MethodPost, c.TokenEndpoint, "", c.Nonce)
			if err != nil {
				return nil, err
			}
			req.Header.Set("DPoP", proof)
		}
		resp, err := e.http.Do(req)
		if err != nil {
			return nil, err
		}
		var tr tokenResponse
		_ = json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&tr)
		resp.Body.Close()
		if n := resp.Header.Get("DPoP-Nonce"); n != "" {
			c.Nonce = n
		}
		if tr.Error == "use_dpop_nonce" && attempt == 0 {
			continue
		}
		if resp.StatusCode != http.StatusOK || tr.AccessToken == "" {
			return nil, fmt.Errorf("token endpoint: %s %s %s", resp.Status, tr.Error, tr.ErrorDescription)
		}
		return &tr, nil
	}
	return nil, errors.New("token endpoint kept asking for a new DPoP nonce")
}

func (c *credentials) take(tr *tokenResponse, now time.Time) {
	c.AccessToken, c.TokenType = tr.AccessToken, tr.TokenType
	if tr.RefreshToken != "" {
		c.RefreshToken = tr.RefreshToken
	}
	c.Expiry = now.Add(time.Duration(tr.ExpiresIn) * time.Second)
	if parts := strings.Split(tr.AccessToken, "."); len(parts) == 3 {
		if b, err := base64.RawURLEncoding.DecodeString(parts[1]); err == nil {
			var claims struct {
				Email string `json:"email"`
			}
			_ = json.Unmarshal(b, &claims)
			c.Email = claims.Email
		}
	}
}

func newCLIEnv(getenv func(string) string, dirFlag string, stdout, stderr io.Writer) (*cliEnv, error) {
	dir, err := configDir(getenv, dirFlag)
	if err != nil {
		return nil, err
	}
	return &cliEnv{dir: dir, http: &http.Client{Timeout: 30 * time.Second}, stdout: stdout, stderr: stderr}, nil
}

// cmdLogin runs the authorization code flow with PKCE through a loopback
// redirect and keeps a DPoP-bound token.
func cmdLogin(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("login", flag.ContinueOnError)
	server := fs.String("server", "", "URL of the trustframe service, e.g. http://127.0.0.1:8080")
	clientID := fs.String("client-id", "", "OAuth client ID (default: what the server advertises, trustframe-cli)")
	dir := fs.String("config-dir", "", "where the DPoP key and tokens are kept (default $XDG_CONFIG_HOME/trustframe)")
	timeout := fs.Duration("timeout", 5*time.Minute, "how long to wait for the browser sign-in")
	noDPoP := fs.Bool("no-dpop", false, "ask for a plain Bearer token instead of a DPoP-bound one (for tools that cannot make proofs)")
	if err := parseFlags(fs, args, getenv, stderr); err != nil {
		return err
	}
	if *server == "" {
		return fmt.Errorf("%w: --server is required", errUsage)
	}
	e, err := newCLIEnv(getenv, *dir, stdout, stderr)
	if err != nil {
		return err
	}
	srv := strings.TrimRight(*server, "/")
	issuer, disc, advertised, err := e.discoverLogin(ctx, srv)
	if err != nil {
		return err
	}
	cid := *clientID
	if cid == "" {
		cid = advertised
	}
	if cid == "" {
		cid = "trustframe-cli"
	}
	key, err := e.dpopKey()
	if err != nil {
		return err
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer ln.Close()
	redirect := fmt.Sprintf("http://127.0.0.1:%d/callback", ln.Addr().(*net.TCPAddr).Port)
	state := randomToken()
	verifier := randomToken() + randomToken()
	sum := sha256.Sum256([]byte(verifier))
	q := url.Values{"response_type": {"code"}, "client_id": {cid}, "redirect_uri": {redirect},
		"scope": {"openid email offline_access"}, "state": {state},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"}}
	if !*noDPoP {
		q.Set("dpop_jkt", key.Thumbprint())
	}
	authURL := disc.AuthorizationEndpoint + "?" + q.Encode()
	fmt.Fprintf(stdout, "Open this URL in a browser to sign in:\n\n  %s\n\nWaiting for the sign-in…\n", authURL)

	code, err := waitForCode(ctx, ln, state, *timeout)
	if err != nil {
		return err
	}
	c := &credentials{Server: srv, Issuer: issuer, TokenEndpoint: disc.TokenEndpoint, RevocationEndpoint: disc.RevocationEndpoint, ClientID: cid, NoDPoP: *noDPoP}
	tr, err := e.tokenRequest(ctx, c, key, url.Values{"grant_type": {"authorization_code"}, "code": {code},
		"redirect_uri": {redirect}, "client_id": {cid}, "code_verifier": {verifier}})
	if err != nil {
		return err
	}
	c.take(tr, time.Now())
	if err := e.save(c); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Signed in to %s as %s (%s token).\n", srv, c.Email, c.TokenType)
	return nil
}

// loginDiscovery is what login reads from the issuer's discovery document.
type loginDiscovery struct {
	Issuer                string `json:"issuer"`
	AuthorizationEndpoint string `json:"authorization_endpoint"`
	TokenEndpoint         string `json:"token_endpoint"`
	RevocationEndpoint    string `json:"revocation_endpoint"`
}

// discoverLogin reads the server's protected resource metadata and its
// authorization server's discovery document: the issuer, its endpoints and
// the client ID the server advertises for this CLI.
func (e *cliEnv) discoverLogin(ctx context.Context, srv string) (string, loginDiscovery, string, error) {
	var prm struct {
		AuthorizationServers []string `json:"authorization_servers"`
		ClientID             string   `json:"trustframe_cli_client_id"`
	}
	var disc loginDiscovery
	if err := e.getJSON(ctx, srv+"/.well-known/oauth-protected-resource", &prm); err != nil {
		return "", disc, "", fmt.Errorf("is %s a trustframe server? %w", srv, err)
	}
	if len(prm.AuthorizationServers) == 0 {
		return "", disc, "", errors.New("the server names no authorization server")
	}
	issuer := prm.AuthorizationServers[0]
	if err := e.getJSON(ctx, strings.TrimRight(issuer, "/")+"/.well-known/openid-configuration", &disc); err != nil {
		return "", disc, "", fmt.Errorf("discovery of %s: %w", issuer, err)
	}
	if disc.Issuer != issuer {
		return "", disc, "", fmt.Errorf("discovery of %s names issuer %s", issuer, disc.Issuer)
	}
	return issuer, disc, prm.ClientID, nil
}

// waitForCode serves the loopback redirect on ln until the browser brings
// the authorization code back (with state), or the timeout.
func waitForCode(ctx context.Context, ln net.Listener, state string, timeout time.Duration) (string, error) {
	type result struct {
		code string
		err  error
	}
	got := make(chan result, 1)
	hs := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r)
			return
		}
		rq := r.URL.Query()
		var res result
		switch {
		case rq.Get("error") != "":
			res.err = fmt.Errorf("sign-in refused: %s %s", rq.Get("error"), rq.Get("error_description"))
		case rq.Get("state") != state:
			res.err = errors.New("sign-in answered with another state; try again")
		default:
			res.code = rq.Get("code")
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if res.err != nil {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintln(w, "trustframe: ", res.err)
		} else {
			fmt.Fprintln(w, "trustframe: signed in. You can close this tab.")
		}
		// The page goes out before the login goes on (and shuts this
		// server down): the browser must not see a closed connection.
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		select {
		case got <- res:
		default:
		}
	})}
	go hs.Serve(ln)
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx) // lets the answer being written finish
	}()

	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var res result
	select {
	case res = <-got:
	case <-wctx.Done():
		return "", errors.New("no sign-in arrived before the timeout")
	}
	return res.code, res.err
}

func randomToken() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// parseMixed parses flags that may come before, between or after the
// positional arguments (as in gh api) and returns the positional ones.
func parseMixed(fs *flag.FlagSet, args []string, getenv func(string) string, stderr io.Writer) ([]string, error) {
	if asksForHelp(args) {
		return nil, &helpRequested{commandUsage(fs)}
	}
	var pos []string
	rest := args
	for len(rest) > 0 {
		if !strings.HasPrefix(rest[0], "-") {
			pos = append(pos, rest[0])
			rest = rest[1:]
			continue
		}
		fs.SetOutput(stderr)
		fs.Usage = func() { fmt.Fprint(stderr, commandUsage(fs)) }
		if err := fs.Parse(rest); err != nil {
			return nil, parseError(fs, err)
		}
		rest = fs.Args()
	}
	return pos, parseFlags(fs, nil, getenv, stderr)
}

// apiMethods are the methods the API answers; api refuses another before
// it sends anything (a swapped "api /organisations GET" sent /organisations
// as the method).
var apiMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions}

// cmdAPI calls the API with a fresh DPoP proof, like `gh api`.
func cmdAPI(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("api", flag.ContinueOnError)
	data := fs.String("data", "", "request body: JSON text, @file, or @- for standard input")
	contentType := fs.String("content-type", "application/json", "media type of the body (text/csv for POST /organisations/import)")
	paginate := fs.Bool("paginate", false, "GET every page of a paged list and print their content as one JSON array")
	follow := fs.Bool("follow", false, "follow a feed (GET /changes): print each entry as one JSON line as it comes, until interrupted")
	dir := fs.String("config-dir", "", "where the DPoP key and tokens are kept")
	clientID := fs.String("client-id", "", "call as this application (its ClientId) with a token of the directory's token endpoint, instead of as the person signed in (docs/design.md §20)")
	keyFile := fs.String("key-file", "", "with --client-id: the application's private key (PEM), whose public key is its key material (Use sig) or signing certificate")
	kid := fs.String("kid", "", "with --client-id: the key's Kid at the directory (default: none, the directory tries each of the application's keys)")
	server := fs.String("server", "", "with --client-id: URL of the trustframe service")
	noDPoP := fs.Bool("no-dpop", false, "with --client-id: ask for a plain Bearer token instead of a DPoP-bound one")
	pos, err := parseMixed(fs, args, getenv, stderr)
	if err != nil {
		return err
	}
	if *follow && len(pos) == 1 {
		pos = []string{http.MethodGet, pos[0]}
	}
	if len(pos) != 2 {
		return fmt.Errorf("%w: trustframe api METHOD PATH [--data JSON|@file] [--content-type TYPE] [--paginate] (PATH relative to <server>/api), or trustframe api --follow /changes", errUsage)
	}
	method, path := strings.ToUpper(pos[0]), pos[1]
	if !slices.Contains(apiMethods, method) {
		return fmt.Errorf("%w: trustframe api METHOD PATH: METHOD is one of %s, not %q", errUsage, strings.Join(apiMethods, ", "), pos[0])
	}
	if (*paginate || *follow) && method != http.MethodGet {
		return fmt.Errorf("%w: --paginate and --follow are for GET", errUsage)
	}
	path = apiPath(path)
	body, err := requestBody(*data, stdin)
	if err != nil {
		return err
	}
	var e *cliEnv
	var c *credentials
	var key *dpop.Signer
	var app *appClient
	if *clientID != "" {
		if e, err = newCLIEnv(getenv, *dir, stdout, stderr); err != nil {
			return err
		}
		if app, err = newAppClient(e, *server, *clientID, *keyFile, *kid, *noDPoP); err != nil {
			return err
		}
		if c, key, err = app.signIn(ctx); err != nil {
			return err
		}
	} else if e, c, key, err = signedIn(ctx, getenv, *dir, stdout, stderr, 30*time.Second); err != nil {
		return err
	}
	// save keeps a person's renewed tokens; an application's live for
	// this command only.
	save := func() {
		if app == nil {
			_ = e.save(c)
		}
	}
	call := func(target string) (int, []byte, error) {
		status, respBody, err := e.send(ctx, c, key, method, target, *contentType, body)
		if err != nil {
			return 0, nil, err
		}
		if status == http.StatusUnauthorized && (c.RefreshToken != "" || app != nil) && bytes.Contains(respBody, []byte("invalid_token")) {
			if app != nil {
				err = app.token(ctx, c, key)
			} else {
				err = e.refresh(ctx, c, key)
			}
			if err != nil {
				return 0, nil, err
			}
			return e.send(ctx, c, key, method, target, *contentType, body)
		}
		return status, respBody, nil
	}
	target := c.Server + "/api" + escapePath(path)
	if *follow {
		err := followFeed(ctx, target, call, stdout)
		save()
		return err
	}
	var status int
	var respBody []byte
	if *paginate {
		status, respBody, err = allPages(target, call)
	} else {
		status, respBody, err = call(target)
	}
	if err != nil {
		return err
	}
	save()
	var pretty bytes.Buffer
	if json.Indent(&pretty, respBody, "", "  ") == nil {
		respBody = append(pretty.Bytes(), '\n')
	}
	if status >= 400 {
		stderr.Write(respBody)
		return &exitError{code: 1, err: fmt.Errorf("%s %s: HTTP %d", method, path, status)}
	}
	stdout.Write(respBody)
	return nil
}

// apiPath is PATH of trustframe api relative to <server>/api, as in the
// OpenAPI description; a path copied with its /api prefix means the same
// (no route of the API itself starts with /api).
func apiPath(path string) string {
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	if path == "/api" || strings.HasPrefix(path, "/api/") || strings.HasPrefix(path, "/api?") {
		path = "/" + strings.TrimPrefix(strings.TrimPrefix(path, "/api"), "/")
	}
	return path
}

// requestBody is what --data gives: JSON text, @file, or @- for stdin.
func requestBody(data string, stdin io.Reader) ([]byte, error) {
	switch {
	case data == "@-":
		return io.ReadAll(stdin)
	case strings.HasPrefix(data, "@"):
		return os.ReadFile(data[1:])
	case data != "":
		return []byte(data), nil
	}
	return nil, nil
}

// followFeed long-polls a feed answering {"content":[…],"nextCursor":…}
// (GET /changes, docs/design.md §15) and prints every entry as one JSON
// line, in order, until ctx ends. Without after= in the path it starts
// from now.
func followFeed(ctx context.Context, target string, call func(string) (int, []byte, error), stdout io.Writer) error {
	u, err := url.Parse(target)
	if err != nil {
		return err
	}
	q := u.Query()
	if q.Get("after") == "" {
		q.Set("after", "now")
	}
	// The CLI's client gives up after 30 s: wait less than that.
	if q.Get("wait") == "" {
		q.Set("wait", "20")
	}
	for {
		u.RawQuery = q.Encode()
		status, body, err := call(u.String())
		if ctx.Err() != nil {
			return nil // interrupted: a clean stop
		}
		if err != nil {
			return err
		}
		if status >= 400 {
			return &exitError{code: 1, err: fmt.Errorf("GET %s: HTTP %d: %s", u.Path, status, bytes.TrimSpace(body))}
		}
		var page struct {
			Content    []json.RawMessage `json:"content"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(body, &page); err != nil || page.NextCursor == "" {
			return fmt.Errorf("GET %s: the answer is not a feed page (content, nextCursor)", u.Path)
		}
		for _, c := range page.Content {
			var line bytes.Buffer
			if json.Compact(&line, c) == nil {
				line.WriteByte('\n')
				if _, err := stdout.Write(line.Bytes()); err != nil {
					return err
				}
			}
		}
		q.Set("after", page.NextCursor)
	}
}

// allPages follows a paged list (docs/design.md §4: content, pageNumber,
// totalPages) from page 0 to its last page and answers their content as
// one JSON array; an answer that is not a page is returned as it is.
func allPages(target string, call func(string) (int, []byte, error)) (int, []byte, error) {
	u, err := url.Parse(target)
	if err != nil {
		return 0, nil, err
	}
	var all []json.RawMessage
	for page := 0; ; page++ {
		q := u.Query()
		q.Set("page", strconv.Itoa(page))
		if q.Get("size") == "" {
			q.Set("size", "200")
		}
		u.RawQuery = q.Encode()
		status, body, err := call(u.String())
		if err != nil || status >= 400 {
			return status, body, err
		}
		var env struct {
			Content    []json.RawMessage `json:"content"`
			TotalPages *int              `json:"totalPages"`
		}
		if json.Unmarshal(body, &env) != nil || env.TotalPages == nil || env.Content == nil {
			if page == 0 {
				return status, body, nil // not a paged list
			}
			return 0, nil, fmt.Errorf("page %d is not a page of the list", page)
		}
		all = append(all, env.Content...)
		if page+1 >= *env.TotalPages || len(env.Content) == 0 {
			break
		}
		if page >= 100_000 {
			return 0, nil, errors.New("more than 100,000 pages: stopped")
		}
	}
	if all == nil {
		all = []json.RawMessage{}
	}
	b, err := json.Marshal(all)
	return http.StatusOK, b, err
}

// signedIn loads the CLI's credentials and DPoP key and refreshes the
// token when less than `fresh` of its life is left.
func signedIn(ctx context.Context, getenv func(string) string, dir string, stdout, stderr io.Writer, fresh time.Duration) (*cliEnv, *credentials, *dpop.Signer, error) {
	e, err := newCLIEnv(getenv, dir, stdout, stderr)
	if err != nil {
		return nil, nil, nil, err
	}
	c, err := e.load()
	if err != nil {
		return nil, nil, nil, err
	}
	key, err := e.dpopKey()
	if err != nil {
		return nil, nil, nil, err
	}
	if time.Now().Add(fresh).After(c.Expiry) && c.RefreshToken != "" {
		if err := e.refresh(ctx, c, key); err != nil {
			return nil, nil, nil, err
		}
	}
	return e, c, key, nil
}

func (e *cliEnv) refresh(ctx context.Context, c *credentials, key *dpop.Signer) error {
	tr, err := e.tokenRequest(ctx, c, key, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {c.RefreshToken}, "client_id": {c.ClientID}})
	if err != nil {
		return fmt.Errorf("refreshing the token (sign in again with trustframe login): %w", err)
	}
	c.take(tr, time.Now())
	return e.save(c)
}

// send makes one API request, retrying once when the server asks for a
// nonce, or says it is busy or rate limited with a short Retry-After.
func (e *cliEnv) send(ctx context.Context, c *credentials, key *dpop.Signer, method, target, contentType string, body []byte) (int, []byte, error) {
	u, err := url.Parse(target)
	if err != nil {
		return 0, nil, err
	}
	htu := u.Scheme + "://" + u.Host + u.EscapedPath()
	for attempt := 0; attempt < 2; attempt++ {
		var rd io.Reader
		if body != nil {
			rd = bytes.NewReader(body)
		}
		req, err := http.NewRequestWithContext(ctx, method, target, rd)
		if err != nil {
			return 0, nil, err
		}
		if body != nil {
			req.Header.Set("Content-Type", contentType)
		}
		req.Header.Set("Accept", "application/json")
		if strings.EqualFold(c.TokenType, "DPoP") {
			proof, err := key.Proof(method, htu, c.AccessToken, c.Nonce)
			if err != nil {
				return 0, nil, err
			}
			req.Header.Set("Authorization", "DPoP "+c.AccessToken)
			req.Header.Set("DPoP", proof)
		} else {
			req.Header.Set("Authorization", "Bearer "+c.AccessToken)
		}
		resp, err := e.http.Do(req)
		if err != nil {
			return 0, nil, err
		}
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
		resp.Body.Close()
		if n := resp.Header.Get("DPoP-Nonce"); n != "" {
			c.Nonce = n
		}
		if resp.StatusCode == http.StatusUnauthorized && strings.Contains(strings.Join(resp.Header.Values("WWW-Authenticate"), " "), "use_dpop_nonce") && attempt == 0 {
			continue
		}
		// Busy (503) or rate limited (429): wait as told, up to 10 s, once.
		if (resp.StatusCode == http.StatusServiceUnavailable || resp.StatusCode == http.StatusTooManyRequests) && attempt == 0 {
			if secs, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && secs >= 0 && secs <= 10 {
				select {
				case <-ctx.Done():
					return 0, nil, ctx.Err()
				case <-time.After(time.Duration(secs) * time.Second):
				}
				continue
			}
		}
		return resp.StatusCode, b, nil
	}
	return 0, nil, errors.New("the server kept asking for a new DPoP nonce")
}

// cmdLogout revokes the refresh token and forgets the tokens.
func cmdLogout(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("logout", flag.ContinueOnError)
	dir := fs.String("config-dir", "", "where the DPoP key and tokens are kept")
	if err := parseFlags(fs, args, getenv, stderr); err != nil {
		return err
	}
	e, err := newCLIEnv(getenv, *dir, stdout, stderr)
	if err != nil {
		return err
	}
	c, err := e.load()
	if err != nil {
		return err
	}
	if c.RevocationEndpoint != "" && c.RefreshToken != "" {
		form := url.Values{"token": {c.RefreshToken}, "token_type_hint": {"refresh_token"}, "client_id": {c.ClientID}}
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, c.RevocationEndpoint, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if resp, err := e.http.Do(req); err == nil {
			resp.Body.Close()
		} else {
			fmt.Fprintln(stderr, "trustframe: could not revoke the refresh token:", err)
		}
	}
	if err := os.Remove(e.credPath()); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Signed out of %s.\n", c.Server)
	return nil
}

// escapePath escapes each segment of a path typed on the command line (an
// e-mail with # or +, a name with a space) and keeps its query.
func escapePath(p string) string {
	path, query, hasQuery := strings.Cut(p, "?")
	segs := strings.Split(path, "/")
	for i, s := range segs {
		if u, err := url.PathUnescape(s); err == nil {
			s = u
		}
		segs[i] = url.PathEscape(s)
	}
	out := strings.Join(segs, "/")
	if hasQuery {
		if v, err := url.ParseQuery(query); err == nil {
			query = v.Encode()
		}
		out += "?" + query
	}
	return out
}
