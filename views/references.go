package views

// ReferenceCrumbs are the breadcrumbs of a Reference Data page: Reference
// Data, then its section, then last. The section links to path when a
// page below it follows, and is the page itself otherwise.
func ReferenceCrumbs(section, path string, last ...Crumb) []Crumb {
	c := []Crumb{{Label: "Reference Data", Href: "/references"}, {Label: section}}
	if len(last) == 0 {
		return c
	}
	c[1].Href = path
	return append(c, last...)
}

// NewFlagPage is the form that adds a flag: form as typed, errs beside its
// fields, and one choice per flag type (types), form's own selected.
func NewFlagPage(form FlagsPage, types []string) FlagsPage {
	for _, t := range types {
		form.TypeOpts = append(form.TypeOpts, Option{Value: t, Label: FlagTypeLabel(t), Selected: form.Form.Type == t})
	}
	return form
}
