package views

import (
	"encoding/json"
	"maps"
	"slices"
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

// RefusedKeyEdit is the page of the key material k after its edit or
// revocation in was refused: the messages errs of Use, Description and
// RevokeReason beside them, the others above the forms (or message when
// errs has none), and the Edit form with what was sent when it kept the
// key Active.
func RefusedKeyEdit(k store.KeyMaterial, in directory.KeyMaterialSent, errs map[string]string, message string) KeyMaterialDetail {
	p := KeyMaterialDetail{Item: k, Edit: k, Errors: map[string]string{}}
	if in.Status == "Active" {
		p.Edit.Use, p.Edit.Description = in.Use, in.Description
	}
	rest := []string{message}
	if len(errs) > 0 {
		rest = nil
	}
	for _, f := range slices.Sorted(maps.Keys(errs)) {
		switch f {
		case "Use", "Description", "RevokeReason":
			p.Errors[f] = errs[f]
		default:
			rest = append(rest, errs[f])
		}
	}
	p.Error = strings.Join(rest, " ")
	return p
}
