package views

import (
	"testing"

	"github.com/trustframe/trustframe/store"
)

// TestCSRSubject: the upload page's openssl -subj names the organisation
// (legal name first) and its country, a "/" escaped for openssl and a
// quote for the shell.
func TestCSRSubject(t *testing.T) {
	for _, c := range []struct {
		org  store.Organisation
		want string
	}{
		{store.Organisation{OrganisationName: "Acme Bank", CountryOfRegistration: "GB"}, `'/C=GB/O=Acme Bank/CN=your.host.example'`},
		{store.Organisation{OrganisationName: "Acme", LegalEntityName: " Acme Holdings Ltd ", CountryOfRegistration: "BR"}, `'/C=BR/O=Acme Holdings Ltd/CN=your.host.example'`},
		{store.Organisation{OrganisationName: `O'Neil A/S \ Co`, CountryOfRegistration: "DK"}, `'/C=DK/O=O'\''Neil A\/S \\ Co/CN=your.host.example'`},
	} {
		if got := csrSubject(c.org); got != c.want {
			t.Errorf("%+v: %s, want %s", c.org, got, c.want)
		}
	}
}
