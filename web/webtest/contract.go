package webtest

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/mail"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/trustframe/trustframe/handlers/openapi"
)

// The contract: every response the server gives in a test is checked
// against the OpenAPI description it serves (handlers/openapi), with an
// independent validator (kin-openapi, JSON Schema 2020-12, formats
// asserted). A response that does not match, an /api route that the
// description lacks, or a JSON answer that nothing describes fails the
// test that caused it. See docs/decisions.md "The API description is the
// contract".

// Contract is the loaded description and its operations, by path template.
type Contract struct {
	Doc     *openapi3.T
	problem *openapi3.Schema
	ops     []contractPath
}

type contractPath struct {
	template string // as in the description: /organisations/{OrganisationId}
	prefix   string // "/api", or "" for the paths served at the root
	re       *regexp.Regexp
	names    []string
	item     *openapi3.PathItem
}

var (
	contractOnce sync.Once
	contract     *Contract
	contractErr  error
)

// LoadContract parses and validates the 2.6.0 description (once).
func LoadContract() (*Contract, error) {
	contractOnce.Do(func() { contract, contractErr = loadContract() })
	return contract, contractErr
}

// formats asserts the string formats the description uses that
// kin-openapi leaves open by default (it checks date and date-time).
func defineFormats() {
	openapi3.DefineStringFormatValidator("email", openapi3.NewCallbackValidator(func(v string) error {
		a, err := mail.ParseAddress(v)
		if err != nil || a.Address != v {
			return fmt.Errorf("not an e-mail address")
		}
		return nil
	}))
	openapi3.DefineStringFormatValidator("uri", openapi3.NewCallbackValidator(func(v string) error {
		u, err := url.Parse(v)
		if err != nil || u.Scheme == "" {
			return fmt.Errorf("not an absolute URI")
		}
		return nil
	}))
	openapi3.DefineStringFormatValidator("uri-reference", openapi3.NewCallbackValidator(func(v string) error {
		_, err := url.Parse(v)
		return err
	}))
	openapi3.DefineStringFormatValidator("uuid", openapi3.NewRegexpFormatValidator(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`))
}

func loadContract() (*Contract, error) {
	defineFormats()
	openapi3filter.RegisterBodyDecoder("application/x-pem-file", openapi3filter.PlainBodyDecoder)
	openapi3filter.RegisterBodyDecoder("application/pkix-cert", openapi3filter.FileBodyDecoder)
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(openapi.Spec("2.6.0"))
	if err != nil {
		return nil, fmt.Errorf("the description does not load: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("the description is not valid OpenAPI: %w", err)
	}
	c := &Contract{Doc: doc}
	if ref := doc.Components.Schemas["Problem"]; ref != nil {
		c.problem = ref.Value
	} else {
		return nil, fmt.Errorf("the description has no Problem schema")
	}
	param := regexp.MustCompile(`\{([^}]+)\}`)
	for tmpl, item := range doc.Paths.Map() {
		prefix := "/api"
		for _, s := range item.Servers {
			if s.URL == "/" {
				prefix = ""
			}
		}
		var names []string
		for _, m := range param.FindAllStringSubmatch(tmpl, -1) {
			names = append(names, m[1])
		}
		expr, last := "^"+regexp.QuoteMeta(prefix), 0
		for _, loc := range param.FindAllStringIndex(tmpl, -1) {
			expr += regexp.QuoteMeta(tmpl[last:loc[0]]) + `([^/]+)`
			last = loc[1]
		}
		expr += regexp.QuoteMeta(tmpl[last:]) + "$"
		c.ops = append(c.ops, contractPath{template: tmpl, prefix: prefix, re: regexp.MustCompile(expr), names: names, item: item})
	}
	// Literal paths win over templates (export.csv over {OrganisationId}).
	sort.Slice(c.ops, func(i, j int) bool {
		if len(c.ops[i].names) != len(c.ops[j].names) {
			return len(c.ops[i].names) < len(c.ops[j].names)
		}
		return c.ops[i].template < c.ops[j].template
	})
	return c, nil
}

// find returns the described operation for method and path.
func (c *Contract) find(method, path string) (*contractPath, *openapi3.Operation, map[string]string) {
	for i := range c.ops {
		p := &c.ops[i]
		m := p.re.FindStringSubmatch(path)
		if m == nil {
			continue
		}
		op := p.item.GetOperation(method)
		if op == nil {
			continue
		}
		params := map[string]string{}
		for k, n := range p.names {
			v, err := url.PathUnescape(m[k+1])
			if err != nil {
				v = m[k+1]
			}
			params[n] = v
		}
		return p, op, params
	}
	return nil, nil, nil
}

// described reports whether any operation has this path (any method).
func (c *Contract) described(path string) bool {
	for i := range c.ops {
		if c.ops[i].re.MatchString(path) {
			return true
		}
	}
	return false
}

func isJSON(mt string) bool {
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// Check validates one response to req; it returns "" when it conforms.
func (c *Contract) Check(req *http.Request, status int, header http.Header, body []byte) string {
	if req.Method == http.MethodHead || status == http.StatusNotModified || status == http.StatusSwitchingProtocols {
		return ""
	}
	// Matched on the escaped path, as the router does: a parameter may
	// hold an escaped slash (a%2Fb is one segment).
	path := req.URL.EscapedPath()
	ct := header.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ct)
	api := path == "/api" || strings.HasPrefix(path, "/api/")
	if !api && strings.HasPrefix(path, "/dev/idp/") {
		// The development OpenID Provider speaks OAuth 2.0 / OpenID
		// Connect (RFC 6749, OIDC Discovery), not this API.
		return ""
	}
	if status == http.StatusMisdirectedRequest {
		// Refused before routing, on any path, by a server behind a
		// loopback base URL (the description's opening text says so).
		if api || isJSON(mt) {
			return c.checkProblem(mt, body)
		}
		return ""
	}
	p, op, params := c.find(req.Method, path)
	if p == nil && len(path) > 1 && strings.HasSuffix(path, "/") {
		// The router serves …/{id}/ as …/{id}.
		p, op, params = c.find(req.Method, strings.TrimSuffix(path, "/"))
	}
	if p == nil && !api && isJSON(mt) {
		// A console URL answering JSON (Accept: application/json) gives
		// what the same operation under /api gives.
		p, op, params = c.find(req.Method, "/api"+path)
	}
	if p == nil {
		switch {
		case api && (status == http.StatusNotFound || status == http.StatusMethodNotAllowed) && !(status == http.StatusNotFound && c.described(path)):
			// Nothing is routed here: the answer must still be a problem.
			return c.checkProblem(mt, body)
		case api:
			return fmt.Sprintf("%s %s is not in the OpenAPI description (status %d)", req.Method, path, status)
		case status == http.StatusMethodNotAllowed && c.described(path) && mt == "application/json":
			// A described federation endpoint asked with a method it does
			// not take answers the federation's own error object.
			return checkFedError(body)
		case isJSON(mt):
			if mt == "application/problem+json" {
				return c.checkProblem(mt, body)
			}
			return fmt.Sprintf("%s %s answers JSON that the OpenAPI description does not describe", req.Method, path)
		default:
			return "" // a console page, a redirect, a static file
		}
	}
	input := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request: req, PathParams: params,
			Route: &routers.Route{Spec: c.Doc, Path: p.template, PathItem: p.item, Method: req.Method, Operation: op},
		},
		Status: status, Header: header,
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	// The status and the media type must be described, JSON with a schema.
	resp := op.Responses.Status(status)
	if resp == nil {
		resp = op.Responses.Default()
	}
	if resp == nil || resp.Value == nil {
		return fmt.Sprintf("%s %s: status %d is not described", req.Method, p.template, status)
	}
	if len(body) == 0 && len(resp.Value.Content) == 0 {
		return ""
	}
	media := resp.Value.Content.Get(mt)
	if media == nil {
		return fmt.Sprintf("%s %s: status %d with Content-Type %q is not described", req.Method, p.template, status, ct)
	}
	if !isJSON(mt) {
		return ""
	}
	if media.Schema == nil {
		return fmt.Sprintf("%s %s: status %d (%s) has no schema", req.Method, p.template, status, mt)
	}
	if header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return fmt.Sprintf("%s %s: a gzip body that does not unzip: %v", req.Method, path, err)
		}
		if body, err = io.ReadAll(zr); err != nil {
			return fmt.Sprintf("%s %s: a gzip body that does not unzip: %v", req.Method, path, err)
		}
	}
	input.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(context.Background(), input); err != nil {
		return fmt.Sprintf("%s %s (%s) status %d: %v", req.Method, path, p.template, status, err)
	}
	return ""
}

// CheckRequest validates a request that the server accepted (a 2xx answer
// under /api) against its operation: parameters and body. A request the
// server takes but the description refuses means the description is
// stricter than the service, or the service laxer than its contract.
func (c *Contract) CheckRequest(req *http.Request, body []byte) string {
	p, op, params := c.find(req.Method, req.URL.EscapedPath())
	if p == nil && strings.HasSuffix(req.URL.EscapedPath(), "/") {
		p, op, params = c.find(req.Method, strings.TrimSuffix(req.URL.EscapedPath(), "/"))
	}
	if p == nil {
		return "" // Check reports it
	}
	r := req.Clone(context.Background())
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	input := &openapi3filter.RequestValidationInput{
		Request: r, PathParams: params,
		Route:   &routers.Route{Spec: c.Doc, Path: p.template, PathItem: p.item, Method: req.Method, Operation: op},
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true},
	}
	if err := openapi3filter.ValidateRequest(context.Background(), input); err != nil {
		return fmt.Sprintf("the server accepted %s %s (%s), which the description refuses: %v", req.Method, req.URL.Path, p.template, err)
	}
	return ""
}

func (c *Contract) checkProblem(mt string, body []byte) string {
	if mt != "application/problem+json" {
		return "an error that is not application/problem+json: " + mt
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return "a problem body that is not JSON: " + err.Error()
	}
	if err := c.problem.VisitJSON(v, openapi3.EnableJSONSchema2020()); err != nil {
		return "a problem body that does not match Problem: " + err.Error()
	}
	return ""
}

// recorder passes the response through and keeps a copy.
type recorder struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	r.body.Write(b)
	return r.ResponseWriter.Write(b)
}

func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// negotiated reports whether a response at path may differ with Accept
// (or HX-Request): everything but the API, static files, the development
// identity provider and the fixed public documents.
func negotiated(path string) bool {
	// /login, /auth/callback and /logout answer with redirects that do not
	// depend on Accept (their errors go through handlers.WriteError).
	for _, p := range []string{"/api/", "/static/", "/dev/idp/", "/oauth/", "/keystore/", "/.well-known/", "/federation/", "/healthz", "/readyz", "/login", "/auth/callback", "/logout"} {
		if strings.HasPrefix(path, p) {
			return false
		}
	}
	return true
}

// Validating wraps h so that every response is checked against the
// description; a mismatch fails t.
func Validating(t testing.TB, h http.Handler) http.Handler {
	c, err := LoadContract()
	if err != nil {
		t.Fatal(err)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &recorder{ResponseWriter: w}
		// The handler may change r's context and body; keep the URL and method.
		req := &http.Request{Method: r.Method, URL: r.URL, Header: r.Header.Clone(), Host: r.Host}
		// The body of an API request is kept (up to 1 MiB) to check it
		// when the server accepts it; a larger one is left alone.
		var reqBody []byte
		api := strings.HasPrefix(r.URL.Path, "/api/")
		kept := api && r.Body != nil && r.ContentLength >= 0 && r.ContentLength <= 1<<20
		if kept {
			reqBody, _ = io.ReadAll(io.LimitReader(r.Body, 1<<20+1))
			r.Body = io.NopCloser(bytes.NewReader(reqBody))
		}
		h.ServeHTTP(rec, r)
		status := rec.status
		if status == 0 {
			status = http.StatusOK
		}
		if msg := c.Check(req, status, w.Header(), rec.body.Bytes()); msg != "" {
			t.Errorf("OpenAPI contract: %s\nresponse body: %.600s", msg, rec.body.String())
		}
		if kept && status/100 == 2 {
			if msg := c.CheckRequest(req, reqBody); msg != "" {
				t.Errorf("OpenAPI contract: %s\nrequest body: %.600s", msg, reqBody)
			}
		}
		mt, _, _ := mime.ParseMediaType(w.Header().Get("Content-Type"))
		if negotiated(r.URL.Path) && (isJSON(mt) || mt == "text/html") && !varyHas(w.Header(), "Accept") {
			t.Errorf("%s %s: a %s answer without Vary: Accept (Vary: %q)", r.Method, r.URL.Path, mt, w.Header().Values("Vary"))
		}
	})
}

func varyHas(h http.Header, name string) bool {
	for _, v := range h.Values("Vary") {
		for _, f := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(f), name) {
				return true
			}
		}
	}
	return false
}

// checkFedError checks an OpenID Federation error object: error and
// error_description, both strings, error not empty.
func checkFedError(body []byte) string {
	var e struct {
		Error       *string `json:"error"`
		Description *string `json:"error_description"`
	}
	if err := json.Unmarshal(body, &e); err != nil || e.Error == nil || *e.Error == "" || e.Description == nil {
		return "a federation error must be {error, error_description}: " + string(body)
	}
	return ""
}
