package handlers

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/store"
)

// MaxAttachment is the largest attachment accepted (10 MiB).
const MaxAttachment = 10 << 20

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
	if t.Kept = stored != "" && directory.SameText(t.Description, stored); t.Kept {
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

// readAttachmentUpdate reads the update of the attachment cur: a
// multipart body (a Description, and a file when it has one), or JSON
// with the Description only.
func readAttachmentUpdate(w http.ResponseWriter, r *http.Request, cur store.Attachment) (directory.AttachmentSent, error) {
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct == "multipart/form-data" {
		return readAttachment(w, r, cur.Description)
	}
	var in struct {
		Description string `json:"Description"`
	}
	err := keptText(Decode(w, r, &in), func() map[string]directory.StoredText {
		return map[string]directory.StoredText{"Description": {Sent: &in.Description, Stored: cur.Description}}
	})
	t := directory.AttachmentSent{Kept: directory.SameText(in.Description, cur.Description)}
	t.Description = in.Description
	return t, err
}
