package handlers

import (
	"mime"
	"net/http"
	"strconv"

	"github.com/trustframe/trustframe/paths"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// ListAttachments is GET …/key-material/{id}/attachments.
func (h *KeyMaterial) ListAttachments(w http.ResponseWriter, r *http.Request) {
	atts, err := h.Keys.AttachmentsOf(r.Context(), PathParam(r, "orgID"), PathParam(r, "kmID"))
	writeFound(w, r, atts, err)
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
		t, err = h.Keys.Attach(r.Context(), h.actor(r), orgID, in)
	}
	switch {
	case err == nil:
		h.Saved(w, r, Saved{Flash: "Attachment " + t.FileName + " " + views.SaveWord(true) + ".", Page: paths.KeyMaterial(orgID, id),
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
	o, k, ok := orgAndItem(h.Org, w, r, h.Keys.Get, "kmID", "Key material")
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
	// The key material first: another organisation's attachment is not
	// found whether it exists or not.
	if _, err := h.Keys.Get(r.Context(), orgID, id); err != nil {
		WriteError(w, r, err)
		return
	}
	cur, _, err := h.Keys.Attachment(r.Context(), id, aid, false)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	in, err := readAttachmentUpdate(w, r, cur)
	var t store.Attachment
	if err == nil {
		t, err = h.Keys.UpdateAttachment(r.Context(), h.actor(r), orgID, cur, in, func(cur store.Attachment) error { return CheckIfMatch(r, cur) })
	}
	switch {
	case err == nil:
		h.Saved(w, r, Saved{Flash: "Attachment " + t.FileName + " " + views.SaveWord(false) + ".", Page: paths.KeyMaterial(orgID, id), Status: http.StatusOK, Body: t, ETag: t})
	case inForm(r, err):
		// The row's one field holds the description and the file's
		// messages both.
		h.refusedAttachment(w, r, AsError(err), views.KeyMaterialDetail{RowID: aid, RowDescription: in.Description, RowError: refusalText(AsError(err))})
	default:
		WriteError(w, r, err)
	}
}

// GetAttachment is GET …/attachments/{aid}: the attachment's description
// and file details (not its bytes, see Download), with the ETag a PUT
// names in If-Match.
func (h *KeyMaterial) GetAttachment(w http.ResponseWriter, r *http.Request) {
	t, _, err := h.Keys.AttachmentOf(r.Context(), PathParam(r, "orgID"), PathParam(r, "kmID"), PathParam(r, "attID"), false)
	writeTagged(w, r, t, err)
}

// Download is GET …/attachments/{aid}/content.
func (h *KeyMaterial) Download(w http.ResponseWriter, r *http.Request) {
	t, content, err := h.Keys.AttachmentOf(r.Context(), PathParam(r, "orgID"), PathParam(r, "kmID"), PathParam(r, "attID"), true)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	// The type is what the uploader said: never let a browser run it here.
	w.Header().Set("Content-Type", t.ServedType())
	w.Header().Set("Content-Security-Policy", "sandbox; default-src 'none'")
	w.Header().Set("Content-Length", strconv.Itoa(len(content)))
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": t.FileName}))
	w.Header().Set("Digest", "sha-256="+t.SHA256)
	_, _ = w.Write(content)
}
