// Package issuer validates the issuer of an authorisation server against
// its OpenID discovery document (docs/design.md §5): the fetch is bounded in time,
// size and redirects, and private or loopback addresses are refused unless
// allowed.
package issuer

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// Validator fetches and checks discovery documents.
type Validator struct {
	AllowPrivate bool          // allow loopback, private and link-local addresses (and http)
	Timeout      time.Duration // whole fetch; default 5 s
	MaxBytes     int64         // default 512 KiB
	MaxRedirects int           // default 3
}

// WellKnown is the discovery URL of an issuer.
func WellKnown(issuer string) string {
	return strings.TrimRight(issuer, "/") + "/.well-known/openid-configuration"
}

// Check returns one message per problem with the issuer (empty when fine).
// discovery may be empty: the issuer's well-known URL is used.
func (v *Validator) Check(ctx context.Context, issuerURL, discovery string) []string {
	_, problems := v.check(ctx, issuerURL, discovery)
	return problems
}

// CheckProvider checks the issuer of an OpenID Provider whose tokens will be
// verified (an identity provider): everything Check does, and the discovery
// document must name a jwks_uri, which it returns.
func (v *Validator) CheckProvider(ctx context.Context, issuerURL string) (jwksURI string, problems []string) {
	doc, problems := v.check(ctx, issuerURL, "")
	if doc == nil {
		return "", problems
	}
	u, err := url.Parse(doc.JwksURI)
	if doc.JwksURI == "" || err != nil || u.Host == "" || (u.Scheme != "https" && !(v.AllowPrivate && u.Scheme == "http")) {
		return "", append(problems, "The discovery document names no https jwks_uri.")
	}
	return doc.JwksURI, problems
}

// HTTPClient is a client with the same limits (time, redirects, no private
// addresses unless allowed), for fetching an identity provider's keys.
func (v *Validator) HTTPClient() *http.Client { return v.client() }

func (v *Validator) check(ctx context.Context, issuerURL, discovery string) (*document, []string) {
	var problems []string
	u, err := url.Parse(issuerURL)
	if err != nil || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || (u.Scheme != "https" && !(v.AllowPrivate && u.Scheme == "http")) {
		return nil, []string{"Issuer must be an https URL without query or fragment."}
	}
	if discovery == "" {
		discovery = WellKnown(issuerURL)
	}
	if !strings.HasPrefix(discovery, strings.TrimRight(issuerURL, "/")+"/") {
		problems = append(problems, "The discovery document's URL does not start with the issuer.")
	}
	doc, err := v.fetch(ctx, discovery)
	if err != nil {
		return nil, append(problems, "The discovery document "+discovery+" could not be read: "+v.plain(err)+".")
	}
	if doc.Issuer != issuerURL {
		problems = append(problems, fmt.Sprintf("The discovery document names issuer %q, not %q.", doc.Issuer, issuerURL))
	}
	return doc, problems
}

type document struct {
	Issuer           string `json:"issuer"`
	JwksURI          string `json:"jwks_uri"`
	UserinfoEndpoint string `json:"userinfo_endpoint"`
}

// Metadata is what a provider's discovery document says that this service
// uses beyond the issuer.
type Metadata struct {
	JwksURI          string
	UserinfoEndpoint string // empty: the provider names none
}

// Discover checks the issuer as Check does and returns its metadata.
func (v *Validator) Discover(ctx context.Context, issuerURL string) (Metadata, []string) {
	doc, problems := v.check(ctx, issuerURL, "")
	if doc == nil {
		return Metadata{}, problems
	}
	return Metadata{JwksURI: doc.JwksURI, UserinfoEndpoint: doc.UserinfoEndpoint}, problems
}

func (v *Validator) client() *http.Client {
	timeout := v.Timeout
	if timeout == 0 {
		timeout = 5 * time.Second
	}
	maxRedirects := v.MaxRedirects
	if maxRedirects == 0 {
		maxRedirects = 3
	}
	dialer := &net.Dialer{Timeout: timeout, Control: func(network, address string, _ syscall.RawConn) error {
		if v.AllowPrivate {
			return nil
		}
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			return err
		}
		ip := net.ParseIP(host)
		if ip == nil || !Public(ip) {
			return ErrNotPublic
		}
		return nil
	}}
	tr := &http.Transport{DialContext: dialer.DialContext, TLSHandshakeTimeout: timeout, ResponseHeaderTimeout: timeout, Proxy: nil}
	return &http.Client{Timeout: timeout, Transport: quietRefusal{tr}, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) > maxRedirects {
			return fmt.Errorf("more than %d redirects", maxRedirects)
		}
		if req.URL.Scheme != "https" && !v.AllowPrivate {
			return errors.New("redirect away from https")
		}
		return nil
	}}
}

// ErrNotPublic refuses a connection to an address that is not public. The
// message names no address: what an internal name resolves to is not for
// whoever typed the name.
var ErrNotPublic = errors.New("address is not public")

// quietRefusal replaces a refused dial (which names the resolved address
// and port) with the host as it was asked for.
type quietRefusal struct{ rt http.RoundTripper }

func (q quietRefusal) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := q.rt.RoundTrip(r)
	if err != nil && errors.Is(err, ErrNotPublic) {
		return nil, fmt.Errorf("%s: %w", r.URL.Host, ErrNotPublic)
	}
	return capBody(resp), err
}

// capBody caps resp's body at MaxResponse. Every caller of ours reads
// less than this, but not every library a client is handed to does
// (go-oidc reads a discovery document whole).
func capBody(resp *http.Response) *http.Response {
	if resp != nil && resp.Body != nil {
		resp.Body = &cappedBody{ReadCloser: resp.Body, left: MaxResponse}
	}
	return resp
}

// Capped is rt with every answer's body capped at MaxResponse, for a
// client that needs no address guard (the operator's own sign-in issuer,
// --oidc-issuer) but is still handed to a library that reads whole.
func Capped(rt http.RoundTripper) http.RoundTripper { return capped{rt} }

type capped struct{ rt http.RoundTripper }

func (c capped) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.rt.RoundTrip(r)
	return capBody(resp), err
}

// MaxResponse bounds every answer the guarded client reads: past it, a
// read fails with ErrTooLarge rather than filling memory.
const MaxResponse = 4 << 20

// ErrTooLarge is a read past MaxResponse.
var ErrTooLarge = fmt.Errorf("the answer is larger than %d bytes", MaxResponse)

type cappedBody struct {
	io.ReadCloser
	left int64
}

func (c *cappedBody) Read(p []byte) (int, error) {
	if c.left <= 0 {
		// One byte more tells a body of exactly MaxResponse from a longer one.
		var one [1]byte
		n, err := c.ReadCloser.Read(one[:])
		if n > 0 {
			return 0, ErrTooLarge
		}
		return 0, err
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.ReadCloser.Read(p)
	c.left -= int64(n)
	return n, err
}

func (v *Validator) fetch(ctx context.Context, u string) (*document, error) {
	b, err := v.fetchBody(ctx, u)
	if err != nil {
		return nil, err
	}
	var doc document
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, errors.New("the body is not a JSON object")
	}
	return &doc, nil
}

// PublishedKeys are the keys an issuer publishes: those of the JWK set at
// the jwks_uri its discovery document (discovery, or the issuer's
// well-known one) names, each as its JSON; the problems, in sentences,
// when the document names none or it cannot be read.
func (v *Validator) PublishedKeys(ctx context.Context, issuerURL, discovery string) ([]json.RawMessage, []string) {
	doc, problems := v.check(ctx, issuerURL, discovery)
	if doc == nil || len(problems) > 0 {
		return nil, problems
	}
	u, err := url.Parse(doc.JwksURI)
	if doc.JwksURI == "" || err != nil || u.Host == "" || (u.Scheme != "https" && !(v.AllowPrivate && u.Scheme == "http")) {
		return nil, []string{"The discovery document names no https jwks_uri."}
	}
	b, err := v.fetchBody(ctx, doc.JwksURI)
	if err != nil {
		return nil, []string{"The key set " + doc.JwksURI + " could not be read: " + v.plain(err) + "."}
	}
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(b, &set); err != nil {
		return nil, []string{"The key set " + doc.JwksURI + " is not a JWK set (a JSON object with keys)."}
	}
	return set.Keys, nil
}

// fetchBody GETs u through the guarded client: its body, at most
// MaxBytes, when the answer is 200.
func (v *Validator) fetchBody(ctx context.Context, u string) ([]byte, error) {
	max := v.MaxBytes
	if max == 0 {
		max = 512 << 10
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := v.client().Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, statusError(resp.StatusCode)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, tooLarge(max)
	}
	return b, nil
}

// Public reports whether ip is a public unicast address. It is the one
// address guard of every outbound fetch (issuer validation, identity
// providers' keys, federation fetches, webhook deliveries): the guarded
// client asks it at every connection it opens.
func Public(ip net.IP) bool {
	a, ok := netip.AddrFromSlice(ip)
	if !ok {
		return false
	}
	a = a.Unmap() // IPv4 and IPv4-mapped IPv6 are judged as IPv4
	if a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsUnspecified() || a.IsMulticast() || a.IsInterfaceLocalMulticast() {
		return false
	}
	for _, p := range notPublic {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

// notPublic are the blocks Public refuses beyond the standard library's
// classes. An IPv6 form that carries an IPv4 address to a tunnel or a
// translator is refused whole, whatever IPv4 address it embeds: an
// embedded private one would reach this network's neighbours, and an
// embedded public one is reachable as itself (docs/decisions.md).
var notPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // shared address space (carrier-grade NAT)
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, with broadcast
	netip.MustParsePrefix("::/96"),           // IPv4-compatible IPv6 (::a.b.c.d, deprecated)
	netip.MustParsePrefix("::ffff:0:0:0/96"), // IPv4-translated (::ffff:0:a.b.c.d, SIIT)
	netip.MustParsePrefix("64:ff9b::/96"),    // NAT64, well-known prefix
	netip.MustParsePrefix("64:ff9b:1::/48"),  // NAT64, local-use prefix
	netip.MustParsePrefix("100::/64"),        // discard-only
	netip.MustParsePrefix("2001::/32"),       // Teredo
	netip.MustParsePrefix("2002::/16"),       // 6to4
	netip.MustParsePrefix("fec0::/10"),       // site-local (deprecated, routed like private)
}

// Client is the guarded HTTP client of issuer validation: public addresses
// only (unless AllowPrivate), few redirects, short timeouts. The directory's
// federation fetches its participants' entity configurations with it
// (docs/design.md §13).
func (v *Validator) Client() *http.Client { return v.client() }

// statusError is a discovery document answered with another status than
// 200.
type statusError int

func (e statusError) Error() string { return fmt.Sprintf("HTTP %d", int(e)) }

// tooLarge is a discovery document longer than the limit.
type tooLarge int64

func (e tooLarge) Error() string {
	return fmt.Sprintf("the document is larger than %d bytes", int64(e))
}

// plain says in plain words why a discovery document could not be read,
// and what to check: no library text, no address of the resolver the
// service asked (a DNS error names it), no resolved address.
func (v *Validator) plain(err error) string {
	var (
		status statusError
		large  tooLarge
	)
	switch {
	case errors.As(err, &status):
		return fmt.Sprintf("the server answered HTTP %d instead of the document; check the issuer URL", int(status))
	case errors.As(err, &large):
		return fmt.Sprintf("it is larger than %d KB, more than a discovery document is", int64(large)>>10)
	case strings.Contains(err.Error(), "not a JSON object"):
		return "the answer is not JSON; check that the URL is the OpenID discovery document"
	}
	if why, ok := Unreachable(err, v.Timeout, "the issuer URL"); ok {
		return why
	}
	return "the server could not be reached; check the issuer URL"
}

// Unreachable says in plain words why a server could not be reached (err
// of an HTTP client whose attempts last at most timeout, 0 for the
// Validator's default) and what to check (the URL was typed as which);
// false when err is none of the failures it knows. It names no resolver, no resolved address and no
// library (webhook deliveries say it too).
func Unreachable(err error, timeout time.Duration, which string) (string, bool) {
	var (
		dns    *net.DNSError
		cert   *tls.CertificateVerificationError
		netErr net.Error
	)
	if timeout == 0 {
		timeout = 5 * time.Second
	}
	switch {
	case errors.Is(err, ErrNotPublic):
		return "its address is not public (not on the public internet)", true
	case errors.As(err, &dns) && dns.IsNotFound:
		return "the host name " + dns.Name + " does not exist (no DNS record); check the spelling of " + which, true
	case errors.As(err, &dns):
		return "the host name " + dns.Name + " could not be looked up just now; try again in a moment", true
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout()):
		within := timeout.String()
		if timeout%time.Second == 0 {
			within = fmt.Sprintf("%d seconds", int(timeout.Seconds()))
		}
		return "the server did not answer within " + within + "; check that it is up, then try again", true
	case errors.Is(err, syscall.ECONNREFUSED):
		return "the server refused the connection; check that it is up and the URL's port", true
	case errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return "the server closed the connection before it answered; check that it is up, then try again", true
	case errors.As(err, &cert) || strings.Contains(err.Error(), "x509:") || strings.Contains(err.Error(), "tls:"):
		return "its TLS certificate is not trusted (expired, self-signed or for another name)", true
	case strings.Contains(err.Error(), "redirect"):
		return "it redirects too often or away from https", true
	}
	return "", false
}
