package directory

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"reflect"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/trustframe/trustframe/orgkeys"
)

// KeyMaterial is a public key an organisation registers (release 2.6.0).
type KeyMaterial struct {
	KeyMaterialID  string          `json:"KeyMaterialID"`
	OrganisationID string          `json:"OrganisationId"`
	Kid            string          `json:"Kid"`
	Use            string          `json:"Use"`
	PublicJwk      json.RawMessage `json:"PublicJwk"`
	// SoftwareStatementID binds the key to one application of the
	// organisation: with Use sig it signs that application's client
	// assertions at /oauth/token (docs/design.md §20). Empty: unbound.
	SoftwareStatementID string     `json:"SoftwareStatementId,omitempty"`
	Status              string     `json:"Status"`
	RevokeReason        string     `json:"RevokeReason,omitempty"`
	Description         string     `json:"Description"`
	CreatedOn           time.Time  `json:"CreatedOn"`
	UpdatedOn           time.Time  `json:"UpdatedOn"`
	RevokedOn           *time.Time `json:"RevokedOn,omitempty"`
}

// Attachment is a file attached to key material.
type Attachment struct {
	KeyMaterialAttachmentID string    `json:"KeyMaterialAttachmentID"`
	KeyMaterialID           string    `json:"KeyMaterialID"`
	FileName                string    `json:"FileName"`
	ContentType             string    `json:"ContentType"`
	Size                    int64     `json:"Size"`
	SHA256                  string    `json:"SHA256"`
	Description             string    `json:"Description"`
	CreatedOn               time.Time `json:"CreatedOn"`
	UpdatedOn               time.Time `json:"UpdatedOn"`
}

// MaxKeyMaterialDescription is the longest Description of key material.
const MaxKeyMaterialDescription = 500

// KeyUses are the uses key material may have.
var KeyUses = []string{"sig", "enc", "tls"}

// ErrHoldsPrivateKey is found (errors.Is) in the refusal of a key that
// holds a private key: a form must not show such text back.
var ErrHoldsPrivateKey = errors.New("directory: the key sent holds a private key")

// KeyMaterialSent is key material as a client sends it, the body of a
// create or an update: the key, as a public JWK or a PEM (with its Kid
// when an update sends it back), the fields it may set, and read-only
// members a client may send back unchanged (not read). The PEM is key
// text, not words: the text rule does not apply to it.
type KeyMaterialSent struct {
	PublicJwk   json.RawMessage `json:"PublicJwk"`
	PEM         string          `json:"PEM" text:"raw"`
	Use         string          `json:"Use"`
	Description string          `json:"Description"`
	// SoftwareStatementID is set when the key is made and cannot change.
	SoftwareStatementID string `json:"SoftwareStatementId"`
	Status              string `json:"Status"`
	RevokeReason        string `json:"RevokeReason"`
	KeyMaterialID       string `json:"KeyMaterialID"`
	OrganisationID      string `json:"OrganisationId"`
	Kid                 string `json:"Kid"`
	CreatedOn           any    `json:"CreatedOn"`
	UpdatedOn           any    `json:"UpdatedOn"`
	RevokedOn           any    `json:"RevokedOn"`
}

// keyMember names the member that carried the key: PEM when only it was
// sent, PublicJwk otherwise (both, or neither).
func (in KeyMaterialSent) keyMember() string {
	if in.PEM != "" && !hasJSON(in.PublicJwk) {
		return "PEM"
	}
	return "PublicJwk"
}

func hasJSON(j json.RawMessage) bool { return len(j) > 0 && string(j) != "null" }

// fields checks Use and Description, which a new key and an update share.
func (in KeyMaterialSent) fields() Fields {
	f := Fields{}
	if !oneOf(KeyUses, in.Use) {
		f.Add("Use", "Use must be sig, enc or tls.")
	}
	f.MaxLen("Description", in.Description, MaxKeyMaterialDescription)
	return f
}

// changeFields checks an update against the stored key material cur: an
// Active key has no RevokeReason, a revocation names one of the reasons,
// and the key itself never changes (a JWK sent back as read may be laid
// out again by the client's JSON library).
func (in KeyMaterialSent) changeFields(cur KeyMaterial) Fields {
	f := in.fields()
	switch in.Status {
	case "Active":
		if in.RevokeReason != "" {
			f.Add("RevokeReason", "A RevokeReason goes with Status Revoked.")
		}
	case "Revoked":
		if !orgkeys.ValidRevokeReason(in.RevokeReason) {
			f.Add("RevokeReason", revokeReasonMessage())
		}
	default:
		f.Add("Status", "Status must be Active or Revoked.")
	}
	if (hasJSON(in.PublicJwk) && !sameJSON(in.PublicJwk, cur.PublicJwk)) || in.PEM != "" || (in.Kid != "" && in.Kid != cur.Kid) {
		f.Add(in.keyMember(), "The key of key material cannot change; create new key material instead.")
	}
	if in.SoftwareStatementID != "" && in.SoftwareStatementID != cur.SoftwareStatementID {
		f.Add("SoftwareStatementId", "The application a key is bound to cannot change; create new key material for the other application.")
	}
	return f
}

func revokeReasonMessage() string {
	return "RevokeReason must be one of " + strings.Join(orgkeys.RevokeReasons, ", ") + "."
}

// sameJSON reports two JSON texts of the same value.
func sameJSON(a, b json.RawMessage) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

func oneOf(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// AttachmentSent is an attachment as a client sends it: the attachment's
// fields, its file when one was sent, and whether the Description is the
// stored one sent back unchanged (the text rule then spares it, as it
// spares every text saved before the rule).
type AttachmentSent struct {
	Attachment
	Content []byte
	HasFile bool
	Kept    bool
}

// Validate is the first problem with an attachment: its Description and
// file name must be text both engines keep, within their limits, the name
// without control characters (a direction mark shows "invoice‮fdp.exe" as
// "invoiceexe.pdf"); a new attachment needs a file. One problem is
// reported: the file and its description come in one multipart body.
func (t *AttachmentSent) Validate(isNew bool) Fields {
	const notText = "contains a NUL character or bytes that are not UTF-8"
	f := Fields{}
	switch d, name := t.Description, t.FileName; {
	case utf8.RuneCountInString(d) > MaxAttachmentDescription:
		f.Add("Description", fmt.Sprintf("At most %d characters.", MaxAttachmentDescription))
	case strings.IndexByte(d, 0) >= 0 || !utf8.ValidString(d):
		f.Add("Description", "Description "+notText+".")
	case RefusedText(d, TextLine) && !t.Kept:
		f.Add("Description", TextMessage("Description", TextLine, d))
	case !t.HasFile && isNew:
		f.Add("file", "Attach a file (a part named file).")
	case !t.HasFile:
	case strings.IndexByte(name, 0) >= 0 || !utf8.ValidString(name):
		f.Add("file", "The file name "+notText+".")
	case utf8.RuneCountInString(name) > MaxAttachmentFileName:
		f.Add("file", fmt.Sprintf("The file name has more than %d characters; rename the file.", MaxAttachmentFileName))
	case RefusedText(name, TextLine):
		f.Add("file", TextMessage("The file name", TextLine, name))
	}
	return f
}

// KeyMaterialStore is what the key material use cases need of the
// database. A write gets the problems already found and writes nothing
// while any remains; check (the If-Match) runs on the stored version once
// the fields pass.
type KeyMaterialStore interface {
	ListKeyMaterial(ctx context.Context, orgID string) ([]KeyMaterial, error)
	GetKeyMaterial(ctx context.Context, orgID, id string) (KeyMaterial, error)
	CreateKeyMaterial(ctx context.Context, a Actor, k KeyMaterial, problems Fields) (KeyMaterial, error)
	UpdateKeyMaterial(ctx context.Context, a Actor, k KeyMaterial, problems Fields, check Check[KeyMaterial]) (KeyMaterial, error)
	ListAttachments(ctx context.Context, kmID string) ([]Attachment, error)
	GetAttachment(ctx context.Context, kmID, id string, withContent bool) (Attachment, []byte, error)
	AddAttachment(ctx context.Context, a Actor, orgID string, t Attachment, content []byte, problems Fields) (Attachment, error)
	UpdateAttachment(ctx context.Context, a Actor, orgID string, t Attachment, content []byte, problems Fields, check Check[Attachment]) (Attachment, error)
}

// KeyMaterials are the use cases of an organisation's key material and
// its attachments.
type KeyMaterials struct {
	Store KeyMaterialStore
}

// List is an organisation's key material, newest first.
func (s *KeyMaterials) List(ctx context.Context, orgID string) ([]KeyMaterial, error) {
	return s.Store.ListKeyMaterial(ctx, orgID)
}

// Get is one item of an organisation's key material.
func (s *KeyMaterials) Get(ctx context.Context, orgID, id string) (KeyMaterial, error) {
	k, err := s.Store.GetKeyMaterial(ctx, orgID, id)
	return k, Named(err, "Key material")
}

// Create registers the key in sent (a public JWK, or a PEM public key or
// certificate; its Kid is the RFC 7638 thumbprint) for orgID, used for
// sig when sent names no use. refused are problems found reading the
// input; the checks' messages win over theirs. A key that holds a private
// key is refused with ErrHoldsPrivateKey.
func (s *KeyMaterials) Create(ctx context.Context, a Actor, orgID string, in KeyMaterialSent, refused Fields) (KeyMaterial, error) {
	if in.Use == "" {
		in.Use = "sig"
	}
	problems := Fields{}.Merge(refused).Merge(in.fields())
	parsed, err := orgkeys.ParseKeyMaterial(in.PublicJwk, strings.TrimSpace(in.PEM), in.Use)
	var ref *orgkeys.Refusal
	switch {
	case errors.As(err, &ref):
		problems[in.keyMember()] = ref.Message
		err = problems.Err()
	case err == nil:
		var k KeyMaterial
		k, err = s.Store.CreateKeyMaterial(ctx, a, KeyMaterial{OrganisationID: orgID, Kid: parsed.Kid, Use: in.Use, PublicJwk: parsed.JWK, Description: in.Description, SoftwareStatementID: in.SoftwareStatementID}, problems)
		err = Named(err, "Organisation")
		if err == nil {
			return k, nil
		}
	}
	if ref != nil && ref.PrivateKey {
		err = fmt.Errorf("%w (%w)", err, ErrHoldsPrivateKey)
	}
	return KeyMaterial{}, err
}

// Update changes the Use and Description of cur, or revokes it (Status
// Revoked with a RevokeReason; irreversible). A revocation sent back
// without its reason keeps the stored one; the key cannot change.
func (s *KeyMaterials) Update(ctx context.Context, a Actor, cur KeyMaterial, in KeyMaterialSent, refused Fields, check Check[KeyMaterial]) (KeyMaterial, error) {
	if cur.Status == "Revoked" && in.Status == "Revoked" && in.RevokeReason == "" {
		in.RevokeReason = cur.RevokeReason
	}
	in.RevokeReason, _ = orgkeys.CanonicalRevokeReason(in.RevokeReason) // any case, kept in one
	problems := in.changeFields(cur).Merge(refused)
	k, err := s.Store.UpdateKeyMaterial(ctx, a, KeyMaterial{KeyMaterialID: cur.KeyMaterialID, OrganisationID: cur.OrganisationID,
		Use: in.Use, Description: in.Description, Status: in.Status, RevokeReason: in.RevokeReason}, problems, check)
	return k, Named(err, "Key material")
}

// Attachments are the attachments of key material kmID.
func (s *KeyMaterials) Attachments(ctx context.Context, kmID string) ([]Attachment, error) {
	return s.Store.ListAttachments(ctx, kmID)
}

// Attachment is one attachment of key material kmID, with its bytes when
// withContent.
func (s *KeyMaterials) Attachment(ctx context.Context, kmID, id string, withContent bool) (Attachment, []byte, error) {
	t, b, err := s.Store.GetAttachment(ctx, kmID, id, withContent)
	return t, b, Named(err, "Attachment")
}

// Attach adds the file of t to key material t.KeyMaterialID of orgID.
func (s *KeyMaterials) Attach(ctx context.Context, a Actor, orgID string, t AttachmentSent) (Attachment, error) {
	saved, err := s.Store.AddAttachment(ctx, a, orgID, t.withFile(), t.Content, t.Validate(true))
	return saved, Named(err, "Key material")
}

// UpdateAttachment replaces the Description of the attachment cur with
// sent's, and its file when sent has one, when check passes on the stored
// version.
func (s *KeyMaterials) UpdateAttachment(ctx context.Context, a Actor, orgID string, cur Attachment, sent AttachmentSent, check Check[Attachment]) (Attachment, error) {
	t := sent
	t.Attachment, t.Description = cur, sent.Description
	var content []byte
	if t.HasFile {
		t.FileName, t.ContentType, content = sent.FileName, sent.ContentType, t.Content
	}
	saved, err := s.Store.UpdateAttachment(ctx, a, orgID, t.withFile(), content, t.Validate(false), check)
	return saved, Named(err, "Attachment")
}

// withFile is the attachment with its file's details: a name and a media
// type even when the upload gave none, the size and the SHA-256.
func (t *AttachmentSent) withFile() Attachment {
	out := t.Attachment
	if !t.HasFile {
		return out
	}
	if out.FileName == "" || out.FileName == "." || out.FileName == "/" {
		out.FileName = "attachment"
	}
	if _, _, err := mime.ParseMediaType(out.ContentType); err != nil {
		out.ContentType = "application/octet-stream"
	}
	sum := sha256.Sum256(t.Content)
	out.Size, out.SHA256 = int64(len(t.Content)), hex.EncodeToString(sum[:])
	return out
}

// ServedType is the Content-Type the attachment t is served with: what
// the uploader said, unless a page of this origin could load it as a
// script or a stylesheet (the console's CSP allows both from 'self', so
// an uploaded script would get round it): such types are served as
// application/octet-stream. The file is still named, and downloaded, as
// uploaded.
func (t Attachment) ServedType() string {
	mt, _, err := mime.ParseMediaType(t.ContentType)
	if err != nil || strings.Contains(mt, "script") || mt == "text/css" {
		return "application/octet-stream"
	}
	return t.ContentType
}

// AttachmentsOf are the attachments of the key material kmID of orgID.
func (s *KeyMaterials) AttachmentsOf(ctx context.Context, orgID, kmID string) ([]Attachment, error) {
	if _, err := s.Get(ctx, orgID, kmID); err != nil {
		return nil, err
	}
	return s.Attachments(ctx, kmID)
}

// AttachmentOf is the attachment id of the key material kmID of orgID,
// with its bytes when withContent.
func (s *KeyMaterials) AttachmentOf(ctx context.Context, orgID, kmID, id string, withContent bool) (Attachment, []byte, error) {
	if _, err := s.Get(ctx, orgID, kmID); err != nil {
		return Attachment{}, nil, err
	}
	return s.Attachment(ctx, kmID, id, withContent)
}
