package apidoc

import "testing"

// TestDocLaysOutTheLatestRelease: the API page's model has the release's
// title, operations under tags and named schemas; a release served
// without a description has no page.
func TestDocLaysOutTheLatestRelease(t *testing.T) {
	doc, err := Doc("2.6.0")
	if err != nil {
		t.Fatal(err)
	}
	ops := 0
	for _, tag := range doc.Tags {
		ops += len(tag.Ops)
	}
	if doc.Title == "" || doc.SpecURL != "/api/releases/2.6.0/openapi.yaml" || ops == 0 || len(doc.Schemas) == 0 {
		t.Fatalf("title %q, spec %q, %d operations, %d schemas", doc.Title, doc.SpecURL, ops, len(doc.Schemas))
	}
	if _, err := Doc("2.4.0"); err == nil {
		t.Fatal("2.4.0 has no description, want an error")
	}
}
