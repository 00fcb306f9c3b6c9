package views

import (
	"encoding/json"
	"strings"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/store"
)

// Sent is the key material the Add form sends: its one Key field holds
// what the API calls PublicJwk (a JSON object) or PEM.
func (f KeyMaterialForm) Sent() directory.KeyMaterialSent {
	in := directory.KeyMaterialSent{Use: f.Use, Description: f.Description}
	if strings.HasPrefix(strings.TrimSpace(f.Key), "{") {
		in.PublicJwk = json.RawMessage(f.Key)
	} else {
		in.PEM = f.Key
	}
	return in
}

// NewKeyMaterialPage is the Key material tab listing items, with the Add
// form holding form (sig when it names no use) and errs beside its
// fields: a message on PublicJwk or PEM is shown beside Key.
func NewKeyMaterialPage(org OrgPage, items []store.KeyMaterial, form KeyMaterialForm, errs map[string]string) KeyMaterialPage {
	if form.Use == "" {
		form.Use = "sig"
	}
	for _, f := range []string{"PublicJwk", "PEM"} {
		if errs[f] != "" {
			errs["Key"] = errs[f]
		}
	}
	return KeyMaterialPage{OrgPage: org, Items: items, Errors: errs, Form: form}
}
