package views

import "strings"

// APIDoc is the API description laid out for people (the API page).
type APIDoc struct {
	Title, Version, Description string
	SpecURL                     string // where the YAML is downloaded
	Tags                        []APITag
	Schemas                     []APISchema
}

// APITag is one group of operations.
type APITag struct {
	Name, Description string
	Ops               []APIOp
}

// Anchor is the fragment that names the tag on the page.
func (t APITag) Anchor() string {
	return "tag-" + strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, t.Name)
}

// APIOp is one operation.
type APIOp struct {
	Method, Path, Server string // Server: "/api" or "" (served at the root)
	OperationID, Summary string
	Public, Deprecated   bool
	Params               []APIParam
	Bodies               []APIMedia
	Responses            []APIResponse
}

// Anchor is the fragment that names the operation on the page.
func (o APIOp) Anchor() string { return "op-" + o.OperationID }

// APIParam is one parameter.
type APIParam struct {
	Name, In, Type, Description string
	Required                    bool
}

// APIMedia is a body: its media type and its type (a schema name, or a
// short description such as "array of Organisation").
type APIMedia struct {
	MediaType string
	Type      APIType
}

// APIResponse is one response of an operation.
type APIResponse struct {
	Status, Description string
	Media               []APIMedia
}

// APIType is a type as shown: Text, and Ref when it names a schema.
type APIType struct {
	Text string
	Ref  string
}

// APISchema is one named schema.
type APISchema struct {
	Name, Description, Type string
	Enum                    []string
	Props                   []APIProp
}

// APIProp is one member of an object schema.
type APIProp struct {
	Name                 string
	Type                 APIType
	Required, ReadOnly   bool
	WriteOnly            bool
	Description, Example string
}
