package views

import (
	"net/url"
	"strconv"
)

// SetLinks fills the audit page's links from the query the page was asked
// with, so each keeps the filters shown: Clear drops the action filter,
// the CSV export keeps every filter but the paging, Previous goes to
// prevPage and Next to the page after, each only when there is one. Page
// and TotalPages must be set.
func (p *AuditPage) SetLinks(q url.Values, prevPage int) {
	with := func(mod func(url.Values)) url.Values {
		v := url.Values{}
		for k, vs := range q {
			v[k] = vs
		}
		mod(v)
		return v
	}
	p.ClearURL = "/audit?" + with(func(v url.Values) { v.Del("Action"); v.Del("page") }).Encode()
	p.ExportURL = "/audit/export.csv"
	if ex := with(func(v url.Values) { v.Del("page"); v.Del("size") }); len(ex) > 0 {
		p.ExportURL += "?" + ex.Encode()
	}
	if p.Page > 0 {
		p.PrevURL = "/audit?" + with(func(v url.Values) { v.Set("page", strconv.Itoa(prevPage)) }).Encode()
	}
	if p.Page+1 < p.TotalPages {
		p.NextURL = "/audit?" + with(func(v url.Values) { v.Set("page", strconv.Itoa(p.Page+1)) }).Encode()
	}
}
