package handlers

import (
	"errors"
	"mime"
	"net/http"

	"github.com/trustframe/trustframe/clienttoken"
	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/dpop"
)

// ClientTokens serves the directory's own token endpoint and its metadata
// (docs/design.md §20): applications get access tokens for themselves.
type ClientTokens struct {
	Tokens *directory.ClientTokens
	// BindProof checks the request's DPoP proof, if any, and returns the
	// thumbprint of its key ("" without a proof).
	BindProof func(r *http.Request) (string, error)
	// DPoPAlgs are the proof algorithms accepted (asked at each request:
	// the checker settles its configuration at its first use).
	DPoPAlgs func() []string
	// Nonce, when set and not empty, is sent as DPoP-Nonce.
	Nonce func() string
}

// maxTokenRequest bounds a token request's body.
const maxTokenRequest = 64 << 10

// Metadata answers the authorization server metadata (RFC 8414).
func (h *ClientTokens) Metadata(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "public, max-age=300")
	WriteJSON(w, http.StatusOK, clienttoken.Metadata(h.Tokens.Issuer, h.DPoPAlgs()))
}

// Token answers a token request (RFC 6749 §4.4, RFC 7523 §2.2, RFC 9449).
func (h *ClientTokens) Token(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/x-www-form-urlencoded" {
		tokenRefused(w, clienttoken.InvalidRequest, "send the token request as application/x-www-form-urlencoded")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxTokenRequest)
	if err := r.ParseForm(); err != nil {
		tokenRefused(w, clienttoken.InvalidRequest, "the token request's body cannot be read as a form")
		return
	}
	for name, vs := range r.PostForm {
		if len(vs) > 1 {
			tokenRefused(w, clienttoken.InvalidRequest, name+" is sent more than once")
			return
		}
	}
	// RFC 6749 §2.3: one client authentication method per request; the
	// assertion is this endpoint's only one.
	if _, ok := r.PostForm["client_secret"]; ok {
		tokenRefused(w, clienttoken.InvalidRequest, "client_secret is not taken here, and a request authenticates its client one way only: send the client_assertion alone ("+clienttoken.AuthMethod+")")
		return
	}
	if r.Header.Get("Authorization") != "" {
		tokenRefused(w, clienttoken.InvalidRequest, "the Authorization header is not taken here, and a request authenticates its client one way only: send the client_assertion alone ("+clienttoken.AuthMethod+")")
		return
	}
	jkt, err := h.BindProof(r)
	if err != nil {
		h.proofRefused(w, err)
		return
	}
	f := r.PostForm
	tok, err := h.Tokens.Grant(r.Context(), directory.TokenRequest{GrantType: f.Get("grant_type"), ClientAssertionType: f.Get("client_assertion_type"),
		ClientAssertion: f.Get("client_assertion"), ClientID: f.Get("client_id"), Scope: f.Get("scope"), JKT: jkt})
	var oe *clienttoken.Error
	switch {
	case errors.As(err, &oe):
		LoggerFrom(r.Context()).Info("token request refused", "error", oe.Code, "why", oe.Description)
		tokenRefused(w, oe.Code, oe.Description)
	case errors.Is(err, directory.ErrReplayUnavailable):
		w.Header().Set("Retry-After", "1")
		WriteJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "temporarily_unavailable", "error_description": "the client assertion cannot be checked against those already used just now; sign a new one and try again in a moment"})
	case err != nil:
		WriteError(w, r, err)
	default:
		h.setNonce(w)
		WriteJSON(w, http.StatusOK, tok)
	}
}

// proofRefused answers a refused DPoP proof (RFC 9449 §5, §8).
func (h *ClientTokens) proofRefused(w http.ResponseWriter, err error) {
	if errors.Is(err, dpop.ErrReplayUnavailable) {
		w.Header().Set("Retry-After", "1")
		WriteJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "temporarily_unavailable", "error_description": "the DPoP proof cannot be checked against the proofs already seen just now; try again with a new proof in a moment"})
		return
	}
	code := clienttoken.InvalidDPoPProof
	var de *dpop.Error
	if errors.As(err, &de) && de.UseNonce {
		code = "use_dpop_nonce"
	}
	h.setNonce(w)
	tokenRefused(w, code, err.Error())
}

func (h *ClientTokens) setNonce(w http.ResponseWriter) {
	if h.Nonce != nil {
		if n := h.Nonce(); n != "" {
			w.Header().Set("DPoP-Nonce", n)
		}
	}
}

// tokenRefused writes an error of RFC 6749 §5.2: 401 for a client that
// did not authenticate, 400 for the rest.
func tokenRefused(w http.ResponseWriter, code, description string) {
	status := http.StatusBadRequest
	if code == clienttoken.InvalidClient {
		status = http.StatusUnauthorized
	}
	OAuthError(w, status, code, description)
}

// OAuthError writes an error as a token endpoint answers one (RFC 6749
// §5.2): JSON with error and error_description, never stored.
func OAuthError(w http.ResponseWriter, status int, code, description string) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
	WriteJSON(w, status, map[string]string{"error": code, "error_description": description})
}
