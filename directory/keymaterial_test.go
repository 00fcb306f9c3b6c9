package directory_test

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/store"
)

func openKeyMaterial(t *testing.T) (*directory.KeyMaterials, *store.DB, string) {
	t.Helper()
	db := mustOpen(t)
	return &directory.KeyMaterials{Store: db}, db, mustOrg(t, db, "Key Bank")
}

// publicPEM is a new P-256 public key as PEM.
func publicPEM(t *testing.T) string {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(newKey(t).Public())
	if err != nil {
		t.Fatal(err)
	}
	return pemOf("PUBLIC KEY", der)
}

// Key material with a use that is not one, a long description and no
// key is refused naming the three fields at once, and nothing is written.
func TestKeyMaterialCreateRefusesEveryFieldAtOnce(t *testing.T) {
	s, _, orgID := openKeyMaterial(t)
	ctx := context.Background()
	_, err := s.Create(ctx, directory.Actor{Actor: "admin@example.com"}, orgID,
		directory.KeyMaterialSent{Use: "wrap", Description: strings.Repeat("d", 501)}, directory.Fields{"Description": "This field contains a tab."})
	var e *directory.Error
	if !errors.As(err, &e) || e.Fields["Use"] == "" || e.Fields["PublicJwk"] == "" || e.Fields["Description"] != "At most 500 characters." {
		t.Fatalf("want Use, PublicJwk and Description refused (the check's message first), got %v", err)
	}
	if items, _ := s.List(ctx, orgID); len(items) != 0 {
		t.Fatalf("written: %+v", items)
	}
}

// A key holding a private key is refused on the member that carried it,
// marked so that a form does not show it back.
func TestKeyMaterialPrivateKeyIsRefused(t *testing.T) {
	s, _, orgID := openKeyMaterial(t)
	ctx := context.Background()
	a := directory.Actor{Actor: "admin@example.com"}
	der, _ := x509.MarshalECPrivateKey(newKey(t))
	_, err := s.Create(ctx, a, orgID, directory.KeyMaterialSent{PEM: pemOf("EC PRIVATE KEY", der)}, nil)
	var e *directory.Error
	if !errors.As(err, &e) || e.Fields["PEM"] == "" || !errors.Is(err, directory.ErrHoldsPrivateKey) {
		t.Fatalf("PEM: %v", err)
	}
	_, err = s.Create(ctx, a, orgID, directory.KeyMaterialSent{PublicJwk: json.RawMessage(`{"kty":"EC","crv":"P-256","x":"a","y":"b","d":"c"}`)}, nil)
	if !errors.As(err, &e) || e.Fields["PublicJwk"] == "" || !errors.Is(err, directory.ErrHoldsPrivateKey) {
		t.Fatalf("JWK: %v", err)
	}
}

// Key material is registered under its thumbprint, once per
// organisation; its key never changes, a revocation sent back without
// its reason keeps it, and revoked key material changes no more.
func TestKeyMaterialLifecycle(t *testing.T) {
	s, _, orgID := openKeyMaterial(t)
	ctx := context.Background()
	a := directory.Actor{Actor: "admin@example.com"}
	key := publicPEM(t)
	k, err := s.Create(ctx, a, orgID, directory.KeyMaterialSent{PEM: key, Description: "seal"}, nil)
	if err != nil || k.Kid == "" || k.Use != "sig" || k.Status != "Active" {
		t.Fatalf("create: %+v, %v", k, err)
	}
	if _, err := s.Create(ctx, a, orgID, directory.KeyMaterialSent{PEM: key}, nil); !errors.Is(err, directory.ErrConflict) {
		t.Fatalf("the same key again: %v", err)
	}

	var e *directory.Error
	_, err = s.Update(ctx, a, k, directory.KeyMaterialSent{PEM: publicPEM(t), Use: "sig", Status: "Active"}, nil, nil)
	if !errors.As(err, &e) || !strings.Contains(e.Fields["PEM"], "cannot change") {
		t.Fatalf("a new key: %v", err)
	}
	// The JWK as read, laid out again, is no change of key.
	var v any
	_ = json.Unmarshal(k.PublicJwk, &v)
	again, _ := json.MarshalIndent(v, "", "  ")
	k, err = s.Update(ctx, a, k, directory.KeyMaterialSent{PublicJwk: again, Kid: k.Kid, Use: "enc", Description: "seal", Status: "Active"}, nil, nil)
	if err != nil || k.Use != "enc" {
		t.Fatalf("update: %+v, %v", k, err)
	}

	if _, err := s.Update(ctx, a, k, directory.KeyMaterialSent{Use: "enc", Status: "Revoked"}, nil, nil); !errors.As(err, &e) || e.Fields["RevokeReason"] == "" {
		t.Fatalf("a revocation without a reason: %v", err)
	}
	k, err = s.Update(ctx, a, k, directory.KeyMaterialSent{Use: "enc", Description: "seal", Status: "Revoked", RevokeReason: "keycompromise"}, nil, nil)
	if err != nil || k.Status != "Revoked" || k.RevokedOn == nil {
		t.Fatalf("revoke: %+v, %v", k, err)
	}
	if _, err := s.Update(ctx, a, k, directory.KeyMaterialSent{Use: "enc", Description: "seal", Status: "Revoked"}, nil, nil); err != nil {
		t.Fatalf("revoked key material sent back without its reason: %v", err)
	}
	if _, err := s.Update(ctx, a, k, directory.KeyMaterialSent{Use: "enc", Description: "other", Status: "Revoked"}, nil, nil); !errors.Is(err, directory.ErrConflict) {
		t.Fatalf("a change of revoked key material: %v", err)
	}
}

func TestKeyMaterialAttachmentValidate(t *testing.T) {
	for _, tc := range []struct {
		name  string
		t     directory.AttachmentSent
		isNew bool
		field string // "" when it passes
	}{
		{"a file with a description", directory.AttachmentSent{Attachment: directory.Attachment{FileName: "a.pdf", Description: "scan"}, HasFile: true}, true, ""},
		{"a new attachment needs a file", directory.AttachmentSent{}, true, "file"},
		{"an update may keep its file", directory.AttachmentSent{Attachment: directory.Attachment{Description: "new"}}, false, ""},
		{"a long description", directory.AttachmentSent{Attachment: directory.Attachment{Description: strings.Repeat("é", 501)}, HasFile: true}, true, "Description"},
		{"a NUL in the description", directory.AttachmentSent{Attachment: directory.Attachment{Description: "a\x00b"}, HasFile: true}, true, "Description"},
		{"a line break in the description", directory.AttachmentSent{Attachment: directory.Attachment{Description: "a\nb"}, HasFile: true}, true, "Description"},
		{"the stored description sent back", directory.AttachmentSent{Attachment: directory.Attachment{Description: "a\nb"}, Kept: true}, false, ""},
		{"a direction mark in the file name", directory.AttachmentSent{Attachment: directory.Attachment{FileName: "invoice\u202efdp.exe"}, HasFile: true}, true, "file"},
		{"a long file name", directory.AttachmentSent{Attachment: directory.Attachment{FileName: strings.Repeat("n", 256)}, HasFile: true}, true, "file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.t.Validate(tc.isNew)
			if tc.field == "" && len(f) != 0 || tc.field != "" && (len(f) != 1 || f[tc.field] == "") {
				t.Fatalf("want a message on %q only, got %v", tc.field, f)
			}
		})
	}
}

// An attachment is refused before anything is written, and saved with
// its file's details.
func TestKeyMaterialAttach(t *testing.T) {
	s, _, orgID := openKeyMaterial(t)
	ctx := context.Background()
	a := directory.Actor{Actor: "admin@example.com"}
	k, err := s.Create(ctx, a, orgID, directory.KeyMaterialSent{PEM: publicPEM(t)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var e *directory.Error
	if _, err := s.Attach(ctx, a, orgID, directory.AttachmentSent{Attachment: directory.Attachment{KeyMaterialID: k.KeyMaterialID}}); !errors.As(err, &e) || e.Fields["file"] == "" {
		t.Fatalf("no file: %v", err)
	}
	att, err := s.Attach(ctx, a, orgID, directory.AttachmentSent{Attachment: directory.Attachment{KeyMaterialID: k.KeyMaterialID, ContentType: "not a type"},
		Content: []byte("hello"), HasFile: true})
	if err != nil || att.FileName != "attachment" || att.ContentType != "application/octet-stream" || att.Size != 5 || len(att.SHA256) != 64 {
		t.Fatalf("attach: %+v, %v", att, err)
	}
	if list, _ := s.Attachments(ctx, k.KeyMaterialID); len(list) != 1 {
		t.Fatalf("attachments: %+v", list)
	}
}

// An attachment is read through its key material: under another
// organisation, or under key material that does not exist, it is not
// found, and the key material is named; an update keeps the stored file
// when none is sent.
func TestKeyMaterialAttachmentOfAndUpdate(t *testing.T) {
	s, db, orgID := openKeyMaterial(t)
	ctx := context.Background()
	a := directory.Actor{Actor: "admin@example.com"}
	k, err := s.Create(ctx, a, orgID, directory.KeyMaterialSent{PEM: publicPEM(t)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	att, err := s.Attach(ctx, a, orgID, directory.AttachmentSent{Attachment: directory.Attachment{KeyMaterialID: k.KeyMaterialID, FileName: "a.txt", ContentType: "text/plain"},
		Content: []byte("hello"), HasFile: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, content, err := s.AttachmentOf(ctx, orgID, k.KeyMaterialID, att.KeyMaterialAttachmentID, true); err != nil || got.FileName != "a.txt" || string(content) != "hello" {
		t.Fatalf("AttachmentOf: %+v %q %v", got, content, err)
	}
	other := mustOrg(t, db, "Other Bank")
	for _, orgAndKey := range [][2]string{{other, k.KeyMaterialID}, {orgID, "missing"}} {
		if _, _, err := s.AttachmentOf(ctx, orgAndKey[0], orgAndKey[1], att.KeyMaterialAttachmentID, false); refusal(err) == nil || refusal(err).Message != "Key material not found" {
			t.Fatalf("AttachmentOf %v: want Key material not found, got %v", orgAndKey, err)
		}
		if _, err := s.AttachmentsOf(ctx, orgAndKey[0], orgAndKey[1]); refusal(err) == nil || refusal(err).Message != "Key material not found" {
			t.Fatalf("AttachmentsOf %v: want Key material not found, got %v", orgAndKey, err)
		}
	}
	sent := directory.AttachmentSent{}
	sent.Description = "the seal"
	saved, err := s.UpdateAttachment(ctx, a, orgID, att, sent, nil)
	if err != nil || saved.Description != "the seal" || saved.FileName != "a.txt" || saved.SHA256 != att.SHA256 {
		t.Fatalf("update without a file: %+v %v", saved, err)
	}
}

// An attachment is served with the type it was uploaded with, unless a
// page could run it as a script or a stylesheet.
func TestKeyMaterialAttachmentServedType(t *testing.T) {
	for ct, want := range map[string]string{
		"application/pdf":           "application/pdf",
		"text/plain; charset=utf-8": "text/plain; charset=utf-8",
		"text/javascript":           "application/octet-stream",
		"application/ecmascript":    "application/octet-stream",
		"text/css":                  "application/octet-stream",
		"not a type":                "application/octet-stream",
	} {
		if got := (directory.Attachment{ContentType: ct}).ServedType(); got != want {
			t.Errorf("%q: got %q, want %q", ct, got, want)
		}
	}
}
