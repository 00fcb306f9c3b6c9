package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/orgkeys"
	"github.com/trustframe/trustframe/paths"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// MaxAttachment is the largest attachment accepted (10 MiB).
const MaxAttachment = 10 << 20

// KeyMaterial serves the key material API of release 2.6.0 and its tab.
type KeyMaterial struct {
	*Base
	Org  *Org
	Keys *directory.KeyMaterials
}

// page is the Key material tab with its Add form (form, and errs beside
// its fields after a refusal).
func (h *KeyMaterial) page(w http.ResponseWriter, r *http.Request, status int, o store.Organisation, form views.KeyMaterialForm, errs map[string]string) {
	items, err := h.Keys.List(r.Context(), o.OrganisationID)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	if form.Use == "" {
		form.Use = "sig"
	}
	p := views.KeyMaterialPage{OrgPage: h.Org.orgPage(o, views.TabKeyMaterial), Items: items, Errors: errs, Form: form}
	Render(w, r, status, views.KeyMaterialTab(h.Shell(r, "Key material", "organisations", h.Org.orgCrumbs(&o, "Key material")...), p))
}

// List is GET …/key-material.
func (h *KeyMaterial) List(w http.ResponseWriter, r *http.Request) {
	o, ok := h.Org.loadOrg(w, r)
	if !ok {
		return
	}
	PageOrList(w, r, func() { h.page(w, r, http.StatusOK, o, views.KeyMaterialForm{}, nil) },
		func(ctx context.Context) ([]store.KeyMaterial, error) { return h.Keys.List(ctx, o.OrganisationID) })
}

// keyMaterialIn is the body of a create or an update.
type keyMaterialIn struct {
	PublicJwk    json.RawMessage `json:"PublicJwk"`
	PEM          string          `json:"PEM" text:"raw"`
	Use          string          `json:"Use"`
	Description  string          `json:"Description"`
	Status       string          `json:"Status"`
	RevokeReason string          `json:"RevokeReason"`
	// Read-only members a client may send back unchanged.
	KeyMaterialID  string `json:"KeyMaterialID"`
	OrganisationID string `json:"OrganisationId"`
	Kid            string `json:"Kid"`
	CreatedOn      any    `json:"CreatedOn"`
	UpdatedOn      any    `json:"UpdatedOn"`
	RevokedOn      any    `json:"RevokedOn"`
}

func (in keyMaterialIn) sent() directory.KeyMaterialSent {
	return directory.KeyMaterialSent{PublicJwk: in.PublicJwk, PEM: in.PEM, Kid: in.Kid, Use: in.Use, Description: in.Description,
		Status: in.Status, RevokeReason: in.RevokeReason}
}

// shownInPage reports whether a browser's refusal is shown in the page it
// came from: every refusal below 500.
func shownInPage(r *http.Request, err error) bool {
	return !WantsJSON(r) && AsError(err).Status < 500
}

// Create is POST …/key-material: a public JWK, or a PEM public key or
// certificate (the console's one Key field holds either).
func (h *KeyMaterial) Create(w http.ResponseWriter, r *http.Request) {
	o, ok := h.Org.loadOrg(w, r)
	if !ok {
		return
	}
	var in keyMaterialIn
	var form views.KeyMaterialForm
	isAPI, derr := DecodeAs(w, r, &in, &form)
	refused := FormRefusal(r, derr) // shown beside the fields with the layer's
	if derr != nil && refused == nil {
		WriteError(w, r, derr)
		return
	}
	if !isAPI {
		in.Use, in.Description = form.Use, form.Description
		if strings.HasPrefix(strings.TrimSpace(form.Key), "{") {
			in.PublicJwk = json.RawMessage(form.Key)
		} else {
			in.PEM = form.Key
		}
	}
	k, err := h.Keys.Create(r.Context(), h.Org.actor(r), o.OrganisationID, in.sent(), refused)
	switch {
	case err == nil:
		h.Saved(w, r, Saved{Flash: "Key material " + k.Kid + " was added.", Page: paths.KeyMaterial(o.OrganisationID, k.KeyMaterialID),
			Status: http.StatusCreated, Body: k, ETag: k, Location: paths.API(paths.KeyMaterial(o.OrganisationID, k.KeyMaterialID))})
	case shownInPage(r, err):
		// The form's one Key field holds what the API calls PublicJwk or PEM.
		m := orMessage(err, "PublicJwk")
		for _, f := range []string{"PublicJwk", "PEM"} {
			if m[f] != "" {
				m["Key"] = m[f]
			}
		}
		if errors.Is(err, directory.ErrHoldsPrivateKey) {
			form.Key = "" // a private key is not shown back
		}
		h.page(w, r, AsError(err).Status, o, form, m)
	default:
		WriteError(w, r, err)
	}
}

// item is the organisation of the URL and its key material {kmID}; a
// refusal is answered and ok is false.
func (h *KeyMaterial) item(w http.ResponseWriter, r *http.Request) (store.Organisation, store.KeyMaterial, bool) {
	o, ok := h.Org.loadOrg(w, r)
	if !ok {
		return o, store.KeyMaterial{}, false
	}
	k, err := h.Keys.Get(r.Context(), o.OrganisationID, PathParam(r, "kmID"))
	if err != nil {
		WriteError(w, r, err)
		return o, k, false
	}
	return o, k, true
}

// Get is one item of key material (its page in the browser).
func (h *KeyMaterial) Get(w http.ResponseWriter, r *http.Request) {
	o, k, ok := h.item(w, r)
	if !ok {
		return
	}
	SetETag(w, k)
	if !HTMLPage(w, r, func() { h.itemPage(w, r, http.StatusOK, o, views.KeyMaterialDetail{Item: k, Edit: k}) }) {
		WriteJSON(w, http.StatusOK, k)
	}
}

// itemPage is the page of the key material p.Item, with its attachments
// and what p says besides (a refusal, what was sent).
func (h *KeyMaterial) itemPage(w http.ResponseWriter, r *http.Request, status int, o store.Organisation, p views.KeyMaterialDetail) {
	atts, err := h.Keys.Attachments(r.Context(), p.Item.KeyMaterialID)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	p.OrgPage, p.Attachments, p.Reasons = h.Org.orgPage(o, views.TabKeyMaterial), atts, orgkeys.RevokeReasons
	Render(w, r, status, views.KeyMaterialItem(h.Shell(r, "Key material", "organisations", h.Org.orgCrumbs(&o, "Key "+p.Item.Kid)...), p))
}

// refusedEdit shows the item again after a refused edit or revocation:
// each message beside its field (Use, Description, RevokeReason), the
// others above the forms, and the Edit form with what was sent.
func (h *KeyMaterial) refusedEdit(w http.ResponseWriter, r *http.Request, o store.Organisation, k store.KeyMaterial, in keyMaterialIn, e *Error) {
	p := views.KeyMaterialDetail{Item: k, Edit: k, Errors: map[string]string{}}
	if in.Status == "Active" {
		p.Edit.Use, p.Edit.Description = in.Use, in.Description
	}
	var rest []string
	for _, f := range e.Fields {
		switch f.Field {
		case "Use", "Description", "RevokeReason":
			p.Errors[f.Field] = f.Message
		default:
			rest = append(rest, f.Message)
		}
	}
	if len(e.Fields) == 0 {
		rest = append(rest, refusalText(e))
	}
	p.Error = strings.Join(rest, " ")
	h.itemPage(w, r, e.Status, o, p)
}

// Update is PUT …/key-material/{id}: description and use, or revoke with
// Status "Revoked" and a RevokeReason (irreversible). A member left out
// keeps its value.
func (h *KeyMaterial) Update(w http.ResponseWriter, r *http.Request) {
	o, cur, ok := h.item(w, r)
	if !ok {
		return
	}
	in := keyMaterialIn{Use: cur.Use, Description: cur.Description, Status: cur.Status}
	// A Description sent back as read does not stop the update though
	// saved before the text rule, a revocation above all (docs/design.md
	// §4); what is still refused goes beside its field in the console.
	refused, ok := decodeKept(w, r, &in, func() map[string]storedText {
		return map[string]storedText{"Description": {&in.Description, cur.Description}}
	})
	if !ok {
		return
	}
	k, err := h.Keys.Update(r.Context(), h.Org.actor(r), cur, in.sent(), refused, func(c store.KeyMaterial) error { return CheckIfMatch(r, c) })
	switch {
	case err == nil:
		h.Saved(w, r, Saved{Flash: "Key material " + k.Kid + " was saved (" + k.Status + ").",
			Page: paths.KeyMaterial(o.OrganisationID, k.KeyMaterialID), Status: http.StatusOK, Body: k, ETag: k})
	case shownInPage(r, err):
		h.refusedEdit(w, r, o, cur, in, AsError(err))
	default:
		WriteError(w, r, err)
	}
}

// ListAttachments is GET …/key-material/{id}/attachments.
func (h *KeyMaterial) ListAttachments(w http.ResponseWriter, r *http.Request) {
	orgID, id := PathParam(r, "orgID"), PathParam(r, "kmID")
	if _, err := h.Keys.Get(r.Context(), orgID, id); err != nil {
		WriteError(w, r, err)
		return
	}
	atts, err := h.Keys.Attachments(r.Context(), id)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	WriteJSON(w, http.StatusOK, atts)
}

// readAttachment streams a multipart body: part file (at most 10 MiB) and
// field Description. A larger file is a 413. stored is the description of
// the attachment updated ("" for a new one): sent back unchanged it is
// kept as it is, though saved before the text rule (keptText).
func readAttachment(w http.ResponseWriter, r *http.Request, stored string) (directory.AttachmentSent, error) {
	var t directory.AttachmentSent
	ct, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || ct != "multipart/form-data" {
		return t, CodeUnsupportedMediaType.New("send multipart/form-data with a part named file")
	}
	r.Body = http.MaxBytesReader(w, r.Body, MaxAttachment+1<<20)
	mr, err := r.MultipartReader()
	if err != nil {
		return t, CodeMalformedForm.New("the multipart body cannot be read")
	}
	gotDescription := false
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return t, unreadable(err, "the multipart body cannot be read")
		}
		switch name := part.FormName(); {
		case (name == "file" && t.HasFile) || (name == "Description" && gotDescription):
			// Which of two counts would be a guess.
			return t, CodeMalformedForm.New("the body has two parts named " + name + "; send one").
				WithFields(FieldError{Field: name, Code: CodeMalformedForm.Name, Message: "appears more than once"})
		case name == "file":
			b, err := io.ReadAll(io.LimitReader(part, MaxAttachment+1))
			if err != nil {
				return t, unreadable(err, "the file cannot be read")
			}
			if len(b) > MaxAttachment {
				return t, tooLarge()
			}
			t.Content, t.HasFile = b, true
			t.FileName = filepath.Base(part.FileName())
			t.ContentType = part.Header.Get("Content-Type")
		case name == "Description":
			gotDescription = true
			// Enough bytes for the most characters allowed, and one more:
			// a longer one is refused by the layer, never cut.
			b, _ := io.ReadAll(io.LimitReader(part, 4*maxAttachmentDescription+1))
			t.Description = strings.TrimSpace(string(b))
		}
		part.Close()
	}
	if t.Kept = stored != "" && sentBack(t.Description, stored); t.Kept {
		t.Description = stored
	}
	return t, nil
}

// unreadable is the refusal of a multipart body that cannot be read: too
// large, or malformed (msg).
func unreadable(err error, msg string) *Error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return tooLarge()
	}
	return CodeMalformedForm.New(msg)
}

func tooLarge() *Error {
	return CodeTooLarge.New("attachments are at most 10 MiB (" + strconv.Itoa(MaxAttachment) + " bytes)")
}

// AddAttachment is POST …/key-material/{id}/attachments (multipart).
func (h *KeyMaterial) AddAttachment(w http.ResponseWriter, r *http.Request) {
	orgID, id := PathParam(r, "orgID"), PathParam(r, "kmID")
	if _, err := h.Keys.Get(r.Context(), orgID, id); err != nil {
		WriteError(w, r, err)
		return
	}
	in, err := readAttachment(w, r, "")
	var t store.Attachment
	if err == nil {
		in.KeyMaterialID = id
		t, err = h.Keys.Attach(r.Context(), h.Org.actor(r), orgID, in)
	}
	switch {
	case err == nil:
		h.Saved(w, r, Saved{Flash: "Attached " + t.FileName + ".", Page: paths.KeyMaterial(orgID, id),
			Status: http.StatusCreated, Body: t, ETag: t, Location: paths.API(paths.Attachment(orgID, id, t.KeyMaterialAttachmentID))})
	case inForm(r, err):
		h.refusedAttachment(w, r, AsError(err), views.KeyMaterialDetail{AttachDescription: in.Description, AttachErrors: FieldMap(err)})
	default:
		WriteError(w, r, err)
	}
}

// refusedAttachment shows the item again after a refused attachment
// (added or edited): p holds the messages beside their fields and what
// was sent back in them; a refusal of no field is said above the forms.
func (h *KeyMaterial) refusedAttachment(w http.ResponseWriter, r *http.Request, e *Error, p views.KeyMaterialDetail) {
	o, k, ok := h.item(w, r)
	if !ok {
		return
	}
	p.Item, p.Edit = k, k
	if len(e.Fields) == 0 && p.RowError == "" {
		p.Error = refusalText(e)
	}
	h.itemPage(w, r, e.Status, o, p)
}

// UpdateAttachment is PUT …/attachments/{aid}: a new Description (JSON or
// multipart), and a new file when the multipart body has one.
func (h *KeyMaterial) UpdateAttachment(w http.ResponseWriter, r *http.Request) {
	orgID, id, aid := PathParam(r, "orgID"), PathParam(r, "kmID"), PathParam(r, "attID")
	cur, _, err := h.Keys.Attachment(r.Context(), id, aid, false)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	if _, err := h.Keys.Get(r.Context(), orgID, id); err != nil {
		WriteError(w, r, err)
		return
	}
	in, err := readAttachmentUpdate(w, r, cur)
	var t store.Attachment
	if err == nil {
		t, err = h.Keys.UpdateAttachment(r.Context(), h.Org.actor(r), orgID, in, func(cur store.Attachment) error { return CheckIfMatch(r, cur) })
	}
	switch {
	case err == nil:
		h.Saved(w, r, Saved{Flash: "Attachment " + t.FileName + " was saved.", Page: paths.KeyMaterial(orgID, id), Status: http.StatusOK, Body: t, ETag: t})
	case inForm(r, err):
		// The row's one field holds the description and the file's
		// messages both.
		h.refusedAttachment(w, r, AsError(err), views.KeyMaterialDetail{RowID: aid, RowDescription: in.Description, RowError: refusalText(AsError(err))})
	default:
		WriteError(w, r, err)
	}
}

// readAttachmentUpdate reads the update of the attachment cur: a
// multipart body (a Description, and a file when it has one), or JSON
// with the Description only.
func readAttachmentUpdate(w http.ResponseWriter, r *http.Request, cur store.Attachment) (directory.AttachmentSent, error) {
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct == "multipart/form-data" {
		t, err := readAttachment(w, r, cur.Description)
		next := t
		next.Attachment = cur
		next.Description = t.Description
		if t.HasFile {
			next.FileName, next.ContentType = t.FileName, t.ContentType
		}
		return next, err
	}
	var in struct {
		Description string `json:"Description"`
	}
	err := keptText(Decode(w, r, &in), func() map[string]storedText {
		return map[string]storedText{"Description": {&in.Description, cur.Description}}
	})
	next := directory.AttachmentSent{Attachment: cur, Kept: sentBack(in.Description, cur.Description)}
	next.Description = in.Description
	return next, err
}

// GetAttachment is GET …/attachments/{aid}: the attachment's description
// and file details (not its bytes, see Download), with the ETag a PUT
// names in If-Match.
func (h *KeyMaterial) GetAttachment(w http.ResponseWriter, r *http.Request) {
	t, _, ok := h.attachment(w, r, false)
	if ok {
		SetETag(w, t)
		WriteJSON(w, http.StatusOK, t)
	}
}

// attachment is the attachment of the URL, with its bytes when
// withContent; a refusal is answered and ok is false.
func (h *KeyMaterial) attachment(w http.ResponseWriter, r *http.Request, withContent bool) (store.Attachment, []byte, bool) {
	orgID, id, aid := PathParam(r, "orgID"), PathParam(r, "kmID"), PathParam(r, "attID")
	if _, err := h.Keys.Get(r.Context(), orgID, id); err != nil {
		WriteError(w, r, err)
		return store.Attachment{}, nil, false
	}
	t, content, err := h.Keys.Attachment(r.Context(), id, aid, withContent)
	if err != nil {
		WriteError(w, r, err)
		return t, nil, false
	}
	return t, content, true
}

// Download is GET …/attachments/{aid}/content.
func (h *KeyMaterial) Download(w http.ResponseWriter, r *http.Request) {
	t, content, ok := h.attachment(w, r, true)
	if !ok {
		return
	}
	// The type is what the uploader said: never let a browser run it here.
	w.Header().Set("Content-Type", servedType(t.ContentType))
	w.Header().Set("Content-Security-Policy", "sandbox; default-src 'none'")
	w.Header().Set("Content-Length", strconv.Itoa(len(content)))
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": t.FileName}))
	w.Header().Set("Digest", "sha-256="+t.SHA256)
	_, _ = w.Write(content)
}

// servedType is the Content-Type an attachment is served with: what the
// uploader said, unless a page of this origin could load it as a script
// or a stylesheet (the console's CSP allows both from 'self', so an
// uploaded script would get round it): such types are served as
// application/octet-stream. The file is still named, and downloaded, as
// uploaded.
func servedType(ct string) string {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || strings.Contains(mt, "script") || mt == "text/css" {
		return "application/octet-stream"
	}
	return ct
}
