package views

import (
	"net/url"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/paths"
	"github.com/trustframe/trustframe/store"
)

// SearchPage is the header Find's results page: what the words name,
// by kind.
type SearchPage struct {
	Q      string
	Groups []SearchGroup
}

// SearchGroup is one kind of thing found.
type SearchGroup struct {
	Title string // "Applications"
	Items []SearchItem
	More  bool   // there are more than those listed
	All   string // where the rest are listed, when there is such a page
}

// SearchItem is one thing found, with where it is.
type SearchItem struct {
	Name, Href, Organisation string
}

// searchKinds are the results page's groups, in order.
var searchKinds = []struct{ what, title string }{
	{store.FoundOrganisation, "Organisations"},
	{store.FoundApplication, "Applications"},
	{store.FoundServer, "Authorisation servers"},
	{store.FoundContact, "Contacts"},
	{store.FoundCertificate, "Certificates"},
	{store.FoundKeyMaterial, "Key material"},
}

// NewSearchPage groups what the search found by kind, each at most
// directory.SearchLimit (one more read says there are more).
func NewSearchPage(q string, found []store.Found) SearchPage {
	p := SearchPage{Q: q}
	for _, k := range searchKinds {
		g := SearchGroup{Title: k.title}
		for _, f := range found {
			if f.What != k.what {
				continue
			}
			if len(g.Items) == directory.SearchLimit {
				g.More = true
				break
			}
			g.Items = append(g.Items, SearchItem{Name: f.Name, Href: FoundPath(f), Organisation: f.OrganisationName})
		}
		if k.what == store.FoundOrganisation && g.More {
			g.All = paths.Organisations() + "?q=" + url.QueryEscape(q)
		}
		if len(g.Items) > 0 {
			p.Groups = append(p.Groups, g)
		}
	}
	return p
}
