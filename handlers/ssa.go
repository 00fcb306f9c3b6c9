package handlers

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/federation"
	"github.com/trustframe/trustframe/ssa"
	"github.com/trustframe/trustframe/ssa/keyring"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// ssaPageStore is what the application page with an SSA reads.
type ssaPageStore interface {
	GetOrganisation(ctx context.Context, id string) (store.Organisation, error)
	GetSoftwareStatement(ctx context.Context, orgID, id string) (store.SoftwareStatement, error)
}

// SSA issues software statement assertions and publishes the keyset.
type SSA struct {
	*Base
	Apps  *Applications
	SSAs  *directory.SSAs
	Store ssaPageStore
	Keys  *keyring.Keyring
	// FedKeys are the directory's federation signing keys (docs/design.md §13).
	FedKeys *federation.Keyring
	Now     func() time.Time
}

// pickAlg reads signingAlg: omitted means PS256; the match is exact.
func (h *SSA) pickAlg(r *http.Request) (string, error) {
	q := r.URL.Query()
	if len(q["signingAlg"]) > 1 {
		return "", CodeInvalidParameter.New("give signingAlg once").WithFields(FieldError{Code: CodeInvalidParameter.Name, Field: "signingAlg", Message: "give signingAlg once"}).WithExtra(map[string]any{"enabledAlgorithms": h.Keys.Enabled()})
	}
	if !q.Has("signingAlg") {
		return ssa.PS256, nil
	}
	return q.Get("signingAlg"), nil
}

// Issue answers GET …/softwarestatements/{id}/assertion: an SSA signed
// with signingAlg (application/jwt), or the application page showing it.
func (h *SSA) Issue(w http.ResponseWriter, r *http.Request) {
	orgID, appID := PathParam(r, "orgID"), PathParam(r, "appID")
	o, app, err := h.SSAs.Subject(r.Context(), orgID, appID)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	if !IsAPI(r) {
		// The page shows the whole organisation and application.
		if o, err = h.Store.GetOrganisation(r.Context(), orgID); err == nil {
			app, err = h.Store.GetSoftwareStatement(r.Context(), orgID, appID)
		}
		if err != nil {
			WriteError(w, r, directory.Named(err, "Application"))
			return
		}
	}
	alg, err := h.pickAlg(r)
	var token string
	if err == nil {
		token, err = h.SSAs.Issue(r.Context(), store.Audit{Actor: PrincipalFrom(r.Context()).Email}, o, app, alg)
	}
	if err != nil && AsError(err).Code != CodeApplicationNotActive.Name && AsError(err).Code != CodeOrganisationNotActive.Name {
		alg = "" // the page selects no algorithm it refused
	}
	if IsAPI(r) || r.Header.Get("Accept") == "application/jwt" {
		if err != nil {
			WriteError(w, r, err)
			return
		}
		w.Header().Set("Content-Type", "application/jwt")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write([]byte(token))
		return
	}
	p, perr := h.Apps.AppDetailPage(r, o, app)
	if perr != nil {
		WriteError(w, r, perr)
		return
	}
	p.Algs, p.SSA, p.SSAAlg = h.Keys.Enabled(), token, alg
	p.SSARoles = rolesInToken(token)
	p.SSAHeader, p.SSAClaims = readableToken(token)
	status := http.StatusOK
	if err != nil {
		p.SSAError, status = sentence(AsError(err).Message), AsError(err).Status
		if status >= 500 {
			WriteError(w, r, err)
			return
		}
	}
	Render(w, r, status, h.appPage(r, o, app, p))
}

func (h *SSA) appPage(r *http.Request, o store.Organisation, app store.SoftwareStatement, p views.AppDetailPage) templComponent {
	return views.AppDetailWithSSA(h.Shell(r, app.ClientName, "organisations", h.Apps.orgCrumbs(&o, app.ClientName)...), p)
}

// Keyset is GET /keystore/ssa.jwks: every published signing key.
func (h *SSA) Keyset(w http.ResponseWriter, r *http.Request) {
	keys, err := h.Keys.PublishedKeys(r.Context())
	if err != nil {
		WriteError(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "public, max-age=300")
	w.Header().Set("Access-Control-Allow-Origin", "*")
	w.Header().Set("Content-Type", "application/jwk-set+json")
	b, _ := jsonMarshal(map[string]any{"keys": keys})
	_, _ = w.Write(b)
}

// ListKeys is Reference Data > Signing keys (and its API).
func (h *SSA) ListKeys(w http.ResponseWriter, r *http.Request) {
	keys, err := h.Keys.Keys(r.Context())
	if err != nil {
		WriteError(w, r, err)
		return
	}
	if !HTMLPage(w, r, func() { h.keysPage(w, r, http.StatusOK, keys, views.KeysPage{}) }) {
		WriteJSON(w, http.StatusOK, keys)
	}
}

// keysPage renders the page; msgs carries the refusal to show (Error or
// FedError), the rest is filled here.
func (h *SSA) keysPage(w http.ResponseWriter, r *http.Request, status int, keys []store.SigningKey, msgs views.KeysPage) {
	fedKeys, err := h.FedKeys.Keys(r.Context())
	if err != nil {
		WriteError(w, r, err)
		return
	}
	current := map[string]string{}
	for _, k := range keys {
		if k.Status == "Active" && current[k.Alg] == "" {
			current[k.Alg] = k.Kid // newest first
		}
	}
	var nextFrom time.Time
	for _, k := range fedKeys {
		if k.Status == "Next" {
			nextFrom = h.FedKeys.MaySignFrom(k)
		}
	}
	Render(w, r, status, views.SigningKeys(h.Shell(r, "Signing keys", "reference", views.Crumb{Label: "Reference Data", Href: "/references"}, views.Crumb{Label: "Signing keys"}),
		views.KeysPage{Keys: keys, Current: current, Algs: ssa.AllAlgs, Enabled: h.Keys.Enabled(), Error: msgs.Error, FedKeys: fedKeys, FedAlg: h.FedKeys.Alg(),
			FedNextFrom: nextFrom, FedNextReady: !nextFrom.IsZero() && !h.Now().Before(nextFrom), FedError: msgs.FedError}))
}

// RotateKey makes a new signing key for an algorithm.
func (h *SSA) RotateKey(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Alg string `json:"alg"`
	}
	refused, ok := decodeForm(w, r, &in)
	if !ok {
		return
	}
	valid := false
	for _, a := range ssa.AllAlgs {
		valid = valid || a == in.Alg
	}
	var jwk ssa.JWK
	var err error
	if refused != nil {
		err = Validation(refused)
	} else if !valid {
		err = Validation(map[string]string{"alg": "alg must be one of " + strings.Join(ssa.AllAlgs, ", ")})
	} else {
		jwk, err = h.Keys.Rotate(r.Context(), store.Audit{Actor: PrincipalFrom(r.Context()).Email}, in.Alg)
	}
	if e, ok := refusedHere(r, err, http.StatusUnprocessableEntity); ok {
		// The rotate form's one field is a list: its refusal is said above
		// the form, as the page's other refusals are.
		h.keysRefused(w, r, e.Status, views.KeysPage{Error: "No key made: " + refusalText(e)})
		return
	}
	h.Saved(w, r, Saved{Err: err, Flash: "New " + in.Alg + " key " + jwk.Kid + " signs from now on.", Page: "/references/signing-keys", Status: http.StatusCreated, Body: jwk})
}

// RetireKey stops publishing a key.
func (h *SSA) RetireKey(w http.ResponseWriter, r *http.Request) {
	kid := PathParam(r, "kid")
	err := h.Keys.Retire(r.Context(), store.Audit{Actor: PrincipalFrom(r.Context()).Email}, kid)
	err = directory.Named(err, "Signing key")
	if e, ok := refusedHere(r, err, http.StatusConflict); ok {
		h.keysRefused(w, r, e.Status, views.KeysPage{Error: e.Message})
		return
	}
	h.Saved(w, r, Saved{Err: err, Flash: "Key " + kid + " is retired and no longer published.", Page: "/references/signing-keys", Status: http.StatusNoContent})
}

// tokenPart decodes part i (0 header, 1 claims) of a compact JWS; nil
// when token is not one.
func tokenPart(token string, i int) []byte {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[i])
	if err != nil {
		return nil
	}
	return raw
}

// readableToken is what a signed token says, for people: its header and
// its claims as indented JSON ("" when the token is not a JWS of JSON).
func readableToken(token string) (header, claims string) {
	indent := func(raw []byte) string {
		var out bytes.Buffer
		if raw == nil || json.Indent(&out, raw, "", "  ") != nil {
			return ""
		}
		return out.String()
	}
	return indent(tokenPart(token, 0)), indent(tokenPart(token, 1))
}

// rolesInToken reads software_roles from a signed SSA, so the page says
// what the token itself carries.
func rolesInToken(token string) []string {
	var c struct {
		Roles []string `json:"software_roles"`
	}
	if json.Unmarshal(tokenPart(token, 1), &c) != nil {
		return nil
	}
	return c.Roles
}

// ListFederationKeys is the API list of the federation signing keys
// (docs/design.md §13), newest first.
func (h *SSA) ListFederationKeys(w http.ResponseWriter, r *http.Request) {
	keys, err := h.FedKeys.Keys(r.Context())
	if err != nil {
		WriteError(w, r, err)
		return
	}
	WriteJSON(w, http.StatusOK, keys)
}

// RotateFederationKey makes a new federation signing key at once; the
// previous one stops signing and stays published for a statement lifetime.
// It is the emergency path (a compromised key): PrepareFederationKey and
// ActivateFederationKey are the staged rollover (docs/design.md §13).
func (h *SSA) RotateFederationKey(w http.ResponseWriter, r *http.Request) {
	if !noFields(w, r) {
		return
	}
	jwk, err := h.FedKeys.Rotate(r.Context(), store.Audit{Actor: PrincipalFrom(r.Context()).Email})
	h.Saved(w, r, Saved{Err: err, Flash: "New federation key " + jwk.KeyID + " signs from now on.", Page: "/references/signing-keys", Status: http.StatusCreated, Body: jwk})
}

// PrepareFederationKey publishes the next federation key, not signing yet
// (docs/design.md §13); 409 while one is prepared.
func (h *SSA) PrepareFederationKey(w http.ResponseWriter, r *http.Request) {
	if !noFields(w, r) {
		return
	}
	jwk, err := h.FedKeys.Prepare(r.Context(), store.Audit{Actor: PrincipalFrom(r.Context()).Email})
	err = directory.Named(err, "Federation key")
	if e, ok := refusedHere(r, err, http.StatusConflict); ok {
		h.keysRefused(w, r, e.Status, views.KeysPage{FedError: e.Message})
		return
	}
	h.Saved(w, r, Saved{Err: err, Flash: "Next federation key " + jwk.KeyID + " is published; it does not sign yet.", Page: "/references/signing-keys",
		Status: http.StatusCreated, Body: jwk})
}

// ActivateFederationKey lets the next federation key sign; 409 without one
// or before it has been published long enough.
func (h *SSA) ActivateFederationKey(w http.ResponseWriter, r *http.Request) {
	if !noFields(w, r) {
		return
	}
	k, err := h.FedKeys.Activate(r.Context(), store.Audit{Actor: PrincipalFrom(r.Context()).Email}, h.Now())
	err = directory.Named(err, "Federation key")
	if e, ok := refusedHere(r, err, http.StatusConflict); ok {
		msg := e.Message
		if words := h.earlyStart(r); words != "" {
			msg = words
		}
		h.keysRefused(w, r, e.Status, views.KeysPage{FedError: msg})
		return
	}
	h.Saved(w, r, Saved{Err: err, Flash: "Federation key " + k.Kid + " signs from now on; the previous one stays published for one statement lifetime.", Page: "/references/signing-keys",
		Status: http.StatusOK, Body: k})
}

// earlyStart is the console's words for a start refused because the next
// key may not sign yet (the instant stored when it was prepared): the time
// as the page shows it and the wait in days and hours ("" when that is not
// why).
func (h *SSA) earlyStart(r *http.Request) string {
	keys, err := h.FedKeys.Keys(r.Context())
	if err != nil {
		return ""
	}
	now := h.Now()
	for _, k := range keys {
		if from := h.FedKeys.MaySignFrom(k); k.Status == "Next" && now.Before(from) {
			return "Not started yet: the next key may sign from " + views.FormatTime(from) + ", in " + roughDuration(from.Sub(now)) +
				". It is published for " + roughDuration(from.Sub(k.CreatedAt)) + " first, so that relying parties can add it."
		}
	}
	return ""
}

// keysRefused shows a refused signing-key action on the Signing keys page,
// with msgs saying why.
func (h *SSA) keysRefused(w http.ResponseWriter, r *http.Request, status int, msgs views.KeysPage) {
	keys, err := h.Keys.Keys(r.Context())
	if err != nil {
		WriteError(w, r, err)
		return
	}
	h.keysPage(w, r, status, keys, msgs)
}

// noFields checks an API body where there is nothing to choose: when there
// is one it must be an empty object; a field in it is refused, not
// ignored. It reports whether to go on (else the refusal is written).
func noFields(w http.ResponseWriter, r *http.Request) bool {
	if !IsAPI(r) {
		return true
	}
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	if err != nil {
		WriteError(w, r, CodeTooLarge.New("the body is too large"))
		return false
	}
	if len(bytes.TrimSpace(b)) > 0 {
		r.Body = io.NopCloser(bytes.NewReader(b))
		var none struct{}
		if err := Decode(w, r, &none); err != nil {
			WriteError(w, r, err)
			return false
		}
	}
	return true
}
