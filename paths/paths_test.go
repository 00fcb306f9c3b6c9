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
	} {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}
