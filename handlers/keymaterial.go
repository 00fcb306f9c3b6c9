package handlers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/paths"

	"github.com/trustframe/trustframe/orgkeys"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// MaxAttachment is the largest attachment accepted (10 MiB).
const MaxAttachment = 10 << 20

type keyMaterialStore interface {
	GetOrganisation(ctx context.Context, id string) (store.Organisation, error)
	ListKeyMaterial(ctx context.Context, orgID string) ([]store.KeyMaterial, error)
	GetKeyMaterial(ctx context.Context, orgID, id string) (store.KeyMaterial, error)
	CreateKeyMaterial(ctx context.Context, a store.Audit, k store.KeyMaterial) (store.KeyMaterial, error)
	UpdateKeyMaterial(ctx context.Context, a store.Audit, k store.KeyMaterial, check func(store.KeyMaterial) error) (store.KeyMaterial, error)
	ListAttachments(ctx context.Context, kmID string) ([]store.Attachment, error)
	GetAttachment(ctx context.Context, kmID, id string, withContent bool) (store.Attachment, []byte, error)
	AddAttachment(ctx context.Context, a store.Audit, orgID string, t store.Attachment, content []byte) (store.Attachment, error)
	UpdateAttachment(ctx context.Context, a store.Audit, orgID string, t store.Attachment, content []byte, check func(store.Attachment) error) (store.Attachment, error)
}

// KeyMaterial serves the key material API of release 2.6.0 and its tab.
type KeyMaterial struct {
	*Base
	Org   *Org
	Store keyMaterialStore
}

var keyUses = []string{"sig", "enc", "tls"}

func (h *KeyMaterial) actor(r *http.Request) store.Audit {
	return store.Audit{Actor: PrincipalFrom(r.Context()).Email}
}

func (h *KeyMaterial) org(w http.ResponseWriter, r *http.Request) (store.Organisation, bool) {
	o, err := h.Store.GetOrganisation(r.Context(), PathParam(r, "orgID"))
	if err != nil {
		WriteError(w, r, directory.Named(err, "Organisation"))
		return o, false
	}
	return o, true
}

func (h *KeyMaterial) page(w http.ResponseWriter, r *http.Request, status int, o store.Organisation, form views.KeyMaterialForm, errs map[string]string) {
	items, err := h.Store.ListKeyMaterial(r.Context(), o.OrganisationID)
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
	o, ok := h.org(w, r)
	if !ok {
		return
	}
	if HTMLPage(w, r, func() { h.page(w, r, http.StatusOK, o, views.KeyMaterialForm{}, nil) }) {
		return
	}
	items, err := h.Store.ListKeyMaterial(r.Context(), o.OrganisationID)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	WriteJSON(w, http.StatusOK, items)
}

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

// Create is POST …/key-material: a public JWK, or a PEM public key or
// certificate; Kid is the RFC 7638 thumbprint.
func (h *KeyMaterial) Create(w http.ResponseWriter, r *http.Request) {
	o, ok := h.org(w, r)
	if !ok {
		return
	}
	var in keyMaterialIn
	var form views.KeyMaterialForm
	isAPI, derr := DecodeAs(w, r, &in, &form)
	refused := FormRefusal(r, derr) // shown beside the fields with the checks below
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
	if in.Use == "" {
		in.Use = "sig"
	}
	var err error
	var k store.KeyMaterial
	errs := withRefused(nil, refused)
	if !contains(keyUses, in.Use) {
		errs["Use"] = "Use must be sig, enc or tls."
	}
	checkLen(errs, "Description", in.Description, 500)
	parsed, perr := orgkeys.ParseKeyMaterial(in.PublicJwk, strings.TrimSpace(in.PEM), in.Use)
	var ref *orgkeys.Refusal
	if errors.As(perr, &ref) {
		errs[keyMember(in)] = ref.Message
	} else if perr != nil {
		err = perr
	}
	if err == nil && len(errs) > 0 {
		err = Validation(errs)
	}
	if err == nil {
		k, err = h.Store.CreateKeyMaterial(r.Context(), h.actor(r), store.KeyMaterial{OrganisationID: o.OrganisationID, Kid: parsed.Kid,
			Use: in.Use, PublicJwk: parsed.JWK, Description: in.Description})
		err = directory.Named(err, "Organisation")
	}
	h.Saved(w, r, Saved{Err: err, Flash: "Key material " + k.Kid + " was added.", Page: paths.KeyMaterial(o.OrganisationID, k.KeyMaterialID),
		Status: http.StatusCreated, Body: k, ETag: k, Location: paths.API(paths.KeyMaterial(o.OrganisationID, k.KeyMaterialID)),
		Again: anyAgain(func(e *Error) {
			m := orMessage(e, "PublicJwk")
			for _, f := range []string{"PublicJwk", "PEM"} {
				if m[f] != "" {
					m["Key"] = m[f]
				}
			}
			if orgkeys.HoldsPrivateKey(perr) {
				form.Key = "" // a private key is not shown back
			}
			h.page(w, r, e.Status, o, form, m)
		})})
}

// item is the organisation of the URL and its key material {kmID}; a
// refusal is answered and ok is false.
func (h *KeyMaterial) item(w http.ResponseWriter, r *http.Request) (store.Organisation, store.KeyMaterial, bool) {
	o, ok := h.org(w, r)
	if !ok {
		return o, store.KeyMaterial{}, false
	}
	k, err := h.Store.GetKeyMaterial(r.Context(), o.OrganisationID, PathParam(r, "kmID"))
	if err != nil {
		WriteError(w, r, directory.Named(err, "Key material"))
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
	if !HTMLPage(w, r, func() { h.detail(w, r, http.StatusOK, o, k, "") }) {
		WriteJSON(w, http.StatusOK, k)
	}
}

func (h *KeyMaterial) detail(w http.ResponseWriter, r *http.Request, status int, o store.Organisation, k store.KeyMaterial, errMsg string) {
	atts, err := h.Store.ListAttachments(r.Context(), k.KeyMaterialID)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	p := views.KeyMaterialDetail{OrgPage: h.Org.orgPage(o, views.TabKeyMaterial), Item: k, Attachments: atts, Reasons: orgkeys.RevokeReasons, Error: errMsg, Edit: k}
	Render(w, r, status, views.KeyMaterialItem(h.Shell(r, "Key material", "organisations", h.Org.orgCrumbs(&o, "Key "+k.Kid)...), p))
}

// refusedEdit shows the item again after a refused edit or revocation:
// each message beside its field (Use, Description, RevokeReason), the
// others above the forms, and the Edit form with what was sent.
func (h *KeyMaterial) refusedEdit(w http.ResponseWriter, r *http.Request, status int, o store.Organisation, k store.KeyMaterial, in keyMaterialIn, e *Error) {
	atts, err := h.Store.ListAttachments(r.Context(), k.KeyMaterialID)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	p := views.KeyMaterialDetail{OrgPage: h.Org.orgPage(o, views.TabKeyMaterial), Item: k, Attachments: atts, Reasons: orgkeys.RevokeReasons, Edit: k,
		Errors: map[string]string{}}
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
	Render(w, r, status, views.KeyMaterialItem(h.Shell(r, "Key material", "organisations", h.Org.orgCrumbs(&o, "Key "+k.Kid)...), p))
}

// Update is PUT …/key-material/{id}: description and use, or revoke with
// Status "Revoked" and a RevokeReason (irreversible).
func (h *KeyMaterial) Update(w http.ResponseWriter, r *http.Request) {
	o, ok := h.org(w, r)
	if !ok {
		return
	}
	id := PathParam(r, "kmID")
	cur, err := h.Store.GetKeyMaterial(r.Context(), o.OrganisationID, id)
	if err != nil {
		WriteError(w, r, directory.Named(err, "Key material"))
		return
	}
	in := keyMaterialIn{Use: cur.Use, Description: cur.Description, Status: cur.Status}
	var refused map[string]string
	if err := Decode(w, r, &in); err != nil {
		// A member left out keeps its value and one sent back as read
		// changes nothing: a Description saved before the text rule does
		// not stop the update, a revocation above all (docs/design.md §4).
		// What is still refused goes beside its field in the console.
		if err = keptText(err, func() map[string]storedText {
			return map[string]storedText{"Description": {&in.Description, cur.Description}}
		}); err != nil {
			if refused = FormRefusal(r, err); refused == nil {
				WriteError(w, r, err)
				return
			}
		}
	}
	if cur.Status == "Revoked" && in.Status == "Revoked" && in.RevokeReason == "" {
		in.RevokeReason = cur.RevokeReason // sent back as read, or left out: unchanged
	}
	errs := map[string]string{}
	if !contains(keyUses, in.Use) {
		errs["Use"] = "Use must be sig, enc or tls."
	}
	checkLen(errs, "Description", in.Description, 500)
	switch in.Status {
	case "Active":
		if in.RevokeReason != "" {
			errs["RevokeReason"] = "A RevokeReason goes with Status Revoked."
		}
	case "Revoked":
		if !orgkeys.ValidRevokeReason(in.RevokeReason) {
			errs["RevokeReason"] = "RevokeReason must be one of " + strings.Join(orgkeys.RevokeReasons, ", ") + "."
		}
	default:
		errs["Status"] = "Status must be Active or Revoked."
	}
	if (len(in.PublicJwk) > 0 && string(in.PublicJwk) != "null" && !sameJSON(in.PublicJwk, cur.PublicJwk)) || in.PEM != "" || (in.Kid != "" && in.Kid != cur.Kid) {
		errs[keyMember(in)] = "The key of key material cannot change; create new key material instead."
	}
	errs = withRefused(errs, refused)
	if len(errs) > 0 {
		h.Saved(w, r, Saved{Err: Validation(errs), Again: h.updateAgain(w, r, o, cur, in)})
		return
	}
	k, err := h.Store.UpdateKeyMaterial(r.Context(), h.actor(r), store.KeyMaterial{KeyMaterialID: id, OrganisationID: o.OrganisationID,
		Use: in.Use, Description: in.Description, Status: in.Status, RevokeReason: in.RevokeReason}, func(c store.KeyMaterial) error { return CheckIfMatch(r, c) })
	h.Saved(w, r, Saved{Err: directory.Named(err, "Key material"), Flash: "Key material " + k.Kid + " was saved (" + k.Status + ").",
		Page: paths.KeyMaterial(o.OrganisationID, k.KeyMaterialID), Status: http.StatusOK, Body: k, ETag: k,
		Again: h.updateAgain(w, r, o, cur, in)})
}

func (h *KeyMaterial) updateAgain(w http.ResponseWriter, r *http.Request, o store.Organisation, cur store.KeyMaterial, in keyMaterialIn) func(e *Error) bool {
	return anyAgain(func(e *Error) { h.refusedEdit(w, r, e.Status, o, cur, in, e) })
}

// ListAttachments is GET …/key-material/{id}/attachments.
func (h *KeyMaterial) ListAttachments(w http.ResponseWriter, r *http.Request) {
	orgID, id := PathParam(r, "orgID"), PathParam(r, "kmID")
	if _, err := h.Store.GetKeyMaterial(r.Context(), orgID, id); err != nil {
		WriteError(w, r, directory.Named(err, "Key material"))
		return
	}
	atts, err := h.Store.ListAttachments(r.Context(), id)
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
func readAttachment(w http.ResponseWriter, r *http.Request, fileRequired bool, stored string) (store.Attachment, []byte, error) {
	var t store.Attachment
	ct, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || ct != "multipart/form-data" {
		return t, nil, CodeUnsupportedMediaType.New("send multipart/form-data with a part named file")
	}
	r.Body = http.MaxBytesReader(w, r.Body, MaxAttachment+1<<20)
	mr, err := r.MultipartReader()
	if err != nil {
		return t, nil, CodeMalformedForm.New("the multipart body cannot be read")
	}
	var content []byte
	gotFile, gotDescription := false, false
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				return t, nil, tooLarge()
			}
			return t, nil, CodeMalformedForm.New("the multipart body cannot be read")
		}
		switch name := part.FormName(); {
		case (name == "file" && gotFile) || (name == "Description" && gotDescription):
			// Which of two counts would be a guess.
			return t, nil, CodeMalformedForm.New("the body has two parts named " + name + "; send one").
				WithFields(FieldError{Field: name, Code: CodeMalformedForm.Name, Message: "appears more than once"})
		case name == "file":
			b, err := io.ReadAll(io.LimitReader(part, MaxAttachment+1))
			if err != nil {
				var mbe *http.MaxBytesError
				if errors.As(err, &mbe) {
					return t, nil, tooLarge()
				}
				return t, nil, CodeMalformedForm.New("the file cannot be read")
			}
			if len(b) > MaxAttachment {
				return t, nil, tooLarge()
			}
			content, gotFile = b, true
			t.FileName = filepath.Base(part.FileName())
			t.ContentType = part.Header.Get("Content-Type")
		case name == "Description":
			gotDescription = true
			// Enough bytes for the most characters allowed, and one more:
			// a longer one is refused below, never cut.
			b, _ := io.ReadAll(io.LimitReader(part, 4*maxAttachmentDescription+1))
			t.Description = strings.TrimSpace(string(b))
		}
		part.Close()
	}
	// As Decode does for JSON and forms (docs/design.md §4).
	const notText = "contains a NUL character or bytes that are not UTF-8"
	kept := stored != "" && sentBack(t.Description, stored)
	if kept {
		t.Description = stored
	}
	switch {
	case utf8.RuneCountInString(t.Description) > maxAttachmentDescription:
		return t, nil, Validation(map[string]string{"Description": "At most " + itoa(maxAttachmentDescription) + " characters."})
	case strings.IndexByte(t.Description, 0) >= 0 || !utf8.ValidString(t.Description):
		return t, nil, Validation(map[string]string{"Description": "Description " + notText + "."})
	case refusedText(t.Description, textLine) && !kept:
		return t, nil, Validation(map[string]string{"Description": textMessage("Description", textLine, t.Description)})
	case strings.IndexByte(t.FileName, 0) >= 0 || !utf8.ValidString(t.FileName):
		return t, nil, Validation(map[string]string{"file": "The file name " + notText + "."})
	case utf8.RuneCountInString(t.FileName) > maxAttachmentFileName:
		return t, nil, Validation(map[string]string{"file": "The file name has more than " + itoa(maxAttachmentFileName) + " characters; rename the file."})
	case hasControl(t.FileName):
		// A direction mark shows "invoice‮fdp.exe" as "invoiceexe.pdf".
		return t, nil, Validation(map[string]string{"file": textMessage("The file name", textLine, t.FileName)})
	}
	if !gotFile {
		if fileRequired {
			return t, nil, Validation(map[string]string{"file": "Attach a file (a part named file)."})
		}
		return t, nil, nil
	}
	if t.FileName == "" || t.FileName == "." || t.FileName == "/" {
		t.FileName = "attachment"
	}
	if t.ContentType == "" {
		t.ContentType = "application/octet-stream"
	}
	if _, _, err := mime.ParseMediaType(t.ContentType); err != nil {
		t.ContentType = "application/octet-stream"
	}
	sum := sha256.Sum256(content)
	t.Size, t.SHA256 = int64(len(content)), hex.EncodeToString(sum[:])
	return t, content, nil
}

// keyMember names the member that carried the key: PEM when only it was
// sent, PublicJwk otherwise (both, or neither).
func keyMember(in keyMaterialIn) string {
	if in.PEM != "" && (len(in.PublicJwk) == 0 || string(in.PublicJwk) == "null") {
		return "PEM"
	}
	return "PublicJwk"
}

// sameJSON reports two JSON texts of the same value: a key sent back as
// read may have been laid out again by the client's JSON library (spaces,
// member order).
func sameJSON(a, b json.RawMessage) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

func tooLarge() *Error {
	return CodeTooLarge.New("attachments are at most 10 MiB (" + strconv.Itoa(MaxAttachment) + " bytes)")
}

// AddAttachment is POST …/key-material/{id}/attachments (multipart).
func (h *KeyMaterial) AddAttachment(w http.ResponseWriter, r *http.Request) {
	orgID, id := PathParam(r, "orgID"), PathParam(r, "kmID")
	if _, err := h.Store.GetKeyMaterial(r.Context(), orgID, id); err != nil {
		WriteError(w, r, directory.Named(err, "Key material"))
		return
	}
	t, content, err := readAttachment(w, r, true, "")
	desc := t.Description
	if err == nil {
		t.KeyMaterialID = id
		t, err = h.Store.AddAttachment(r.Context(), h.actor(r), orgID, t, content)
		err = directory.Named(err, "Key material")
	}
	h.Saved(w, r, Saved{Err: err, Flash: "Attached " + t.FileName + ".", Page: paths.KeyMaterial(orgID, id),
		Status: http.StatusCreated, Body: t, ETag: t, Location: paths.API(paths.Attachment(orgID, id, t.KeyMaterialAttachmentID)),
		Again: formAgain(func(e *Error) {
			h.refusedAttachment(w, r, e, func(p *views.KeyMaterialDetail) {
				p.AttachDescription = desc
				p.AttachErrors = FieldMap(e)
			})
		})})
}

// refusedAttachment shows the item again after a refused attachment (added
// or edited): set puts the messages beside their fields and what was sent
// back in them; a refusal of no field is said above the forms.
func (h *KeyMaterial) refusedAttachment(w http.ResponseWriter, r *http.Request, e *Error, set func(p *views.KeyMaterialDetail)) {
	o, k, ok := h.item(w, r)
	if !ok {
		return
	}
	atts, err := h.Store.ListAttachments(r.Context(), k.KeyMaterialID)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	p := views.KeyMaterialDetail{OrgPage: h.Org.orgPage(o, views.TabKeyMaterial), Item: k, Attachments: atts, Reasons: orgkeys.RevokeReasons, Edit: k}
	set(&p)
	if len(e.Fields) == 0 && p.RowError == "" {
		p.Error = refusalText(e)
	}
	Render(w, r, e.Status, views.KeyMaterialItem(h.Shell(r, "Key material", "organisations", h.Org.orgCrumbs(&o, "Key "+k.Kid)...), p))
}

// UpdateAttachment is PUT …/attachments/{aid}: a new Description (JSON or
// multipart), and a new file when the multipart body has one.
func (h *KeyMaterial) UpdateAttachment(w http.ResponseWriter, r *http.Request) {
	orgID, id, aid := PathParam(r, "orgID"), PathParam(r, "kmID"), PathParam(r, "attID")
	cur, _, err := h.Store.GetAttachment(r.Context(), id, aid, false)
	if err != nil {
		WriteError(w, r, directory.Named(err, "Attachment"))
		return
	}
	if _, err := h.Store.GetKeyMaterial(r.Context(), orgID, id); err != nil {
		WriteError(w, r, directory.Named(err, "Key material"))
		return
	}
	next := cur
	var content []byte
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ct == "multipart/form-data" {
		var t store.Attachment
		var c []byte
		t, c, err = readAttachment(w, r, false, cur.Description)
		next.Description = t.Description
		if c != nil {
			next.FileName, next.ContentType, next.Size, next.SHA256, content = t.FileName, t.ContentType, t.Size, t.SHA256, c
		}
	} else {
		var in struct {
			Description string `json:"Description"`
		}
		err = keptText(Decode(w, r, &in), func() map[string]storedText {
			return map[string]storedText{"Description": {&in.Description, cur.Description}}
		})
		next.Description = in.Description
	}
	if err == nil && len([]rune(next.Description)) > 500 {
		err = Validation(map[string]string{"Description": "At most 500 characters."})
	}
	var t store.Attachment
	if err == nil {
		t, err = h.Store.UpdateAttachment(r.Context(), h.actor(r), orgID, next, content, func(cur store.Attachment) error { return CheckIfMatch(r, cur) })
		err = directory.Named(err, "Attachment")
	}
	h.Saved(w, r, Saved{Err: err, Flash: "Attachment " + t.FileName + " was saved.", Page: paths.KeyMaterial(orgID, id),
		Status: http.StatusOK, Body: t, ETag: t,
		Again: formAgain(func(e *Error) {
			h.refusedAttachment(w, r, e, func(p *views.KeyMaterialDetail) {
				// The row's one field holds the description and the file's
				// messages both.
				p.RowID, p.RowDescription, p.RowError = aid, next.Description, refusalText(e)
			})
		})})
}

// GetAttachment is GET …/attachments/{aid}: the attachment's description
// and file details (not its bytes, see Download), with the ETag a PUT
// names in If-Match.
func (h *KeyMaterial) GetAttachment(w http.ResponseWriter, r *http.Request) {
	orgID, id, aid := PathParam(r, "orgID"), PathParam(r, "kmID"), PathParam(r, "attID")
	if _, err := h.Store.GetKeyMaterial(r.Context(), orgID, id); err != nil {
		WriteError(w, r, directory.Named(err, "Key material"))
		return
	}
	t, _, err := h.Store.GetAttachment(r.Context(), id, aid, false)
	if err != nil {
		WriteError(w, r, directory.Named(err, "Attachment"))
		return
	}
	SetETag(w, t)
	WriteJSON(w, http.StatusOK, t)
}

// Download is GET …/attachments/{aid}/content.
func (h *KeyMaterial) Download(w http.ResponseWriter, r *http.Request) {
	orgID, id, aid := PathParam(r, "orgID"), PathParam(r, "kmID"), PathParam(r, "attID")
	if _, err := h.Store.GetKeyMaterial(r.Context(), orgID, id); err != nil {
		WriteError(w, r, directory.Named(err, "Key material"))
		return
	}
	t, content, err := h.Store.GetAttachment(r.Context(), id, aid, true)
	if err != nil {
		WriteError(w, r, directory.Named(err, "Attachment"))
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
