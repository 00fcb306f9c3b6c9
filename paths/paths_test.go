package paths

import "testing"

func TestPathsEscapeIDs(t *testing.T) {
	for got, want := range map[string]string{
		Organisation("a/b"):               "/organisations/a%2Fb",
		OrganisationTab("o1", "contacts"): "/organisations/o1/contacts",
		Contact("o1", "c 1"):              "/organisations/o1/contacts/c%201",
		Server("o1", "s1"):                "/organisations/o1/authorisationservers/s1",
		Application("o1", "a1"):           "/organisations/o1/softwarestatements/a1",
		KeyMaterial("o1", "k1"):           "/organisations/o1/key-material/k1",
		Document("o1", "d1"):              "/organisations/o1/documents/d1",
		API(Application("o1", "a?1")):     "/api/organisations/o1/softwarestatements/a%3F1",
		Organisations():                   "/organisations",
		Certificate("o1", "k+1/2"):        "/organisations/o1/certificates/kid/k+1%2F2",
		Claim("o1", "c1"):                 "/organisations/o1/authority-claims/c1",
		Attachment("o1", "k1", "t1"):      "/organisations/o1/key-material/k1/attachments/t1",
	} {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}
