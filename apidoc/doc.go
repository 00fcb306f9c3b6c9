// Package apidoc lays out the API description of a release for people:
// the console's API page (docs/design.md §5), from handlers/openapi.
package apidoc

import (
	"encoding/json"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/trustframe/trustframe/handlers/openapi"
	"github.com/trustframe/trustframe/views"
)

// Doc is the description of a release laid out for the API page (GET
// /api-reference) by our own rendering, so the page needs no third-party
// viewer and nothing from a CDN: operations by tag, their parameters,
// bodies and responses, and every schema. A release without a description
// is an error.
func Doc(version string) (views.APIDoc, error) {
	for _, r := range openapi.Releases {
		if r.Version == version && r.OpenAPI != "" {
			return layout(openapi.Spec(version), r.OpenAPI)
		}
	}
	return views.APIDoc{}, fmt.Errorf("openapi: release %s has no description", version)
}

// ynode helpers: the description is read as yaml.Node to keep its order.
func yget(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

func ypairs(n *yaml.Node) [][2]*yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	out := make([][2]*yaml.Node, 0, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		out = append(out, [2]*yaml.Node{n.Content[i], n.Content[i+1]})
	}
	return out
}

func ystr(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}

func ylist(n *yaml.Node) []string {
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	var out []string
	for _, c := range n.Content {
		out = append(out, c.Value)
	}
	return out
}

// yexample renders an example as compact text.
func yexample(n *yaml.Node) string {
	if n == nil {
		return ""
	}
	if n.Kind == yaml.ScalarNode {
		return n.Value
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return ""
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// refName is the last segment of a $ref.
func refName(ref string) string { return ref[strings.LastIndex(ref, "/")+1:] }

// apiTypeOf describes a schema in a few words.
func apiTypeOf(s *yaml.Node) views.APIType {
	if s == nil {
		return views.APIType{}
	}
	if ref := ystr(yget(s, "$ref")); ref != "" {
		return views.APIType{Text: refName(ref), Ref: refName(ref)}
	}
	if all := yget(s, "allOf"); all != nil && len(all.Content) > 0 {
		if len(all.Content) == 1 {
			return apiTypeOf(all.Content[0])
		}
		parts := make([]string, 0, len(all.Content))
		var first string
		for _, c := range all.Content {
			t := apiTypeOf(c)
			if first == "" {
				first = t.Ref
			}
			parts = append(parts, t.Text)
		}
		return views.APIType{Text: "all of " + strings.Join(parts, " + "), Ref: first}
	}
	typ := ystr(yget(s, "type"))
	switch typ {
	case "array":
		t := apiTypeOf(yget(s, "items"))
		if t.Text == "" {
			t.Text = "any"
		}
		return views.APIType{Text: "array of " + t.Text, Ref: t.Ref}
	case "":
		if yget(s, "properties") != nil {
			return views.APIType{Text: "object"}
		}
		return views.APIType{Text: "any"}
	}
	text := typ
	if f := ystr(yget(s, "format")); f != "" {
		text += " (" + f + ")"
	}
	if e := ylist(yget(s, "enum")); len(e) > 0 {
		text += ": " + strings.Join(e, " | ")
	}
	return views.APIType{Text: text}
}

// layout lays out an OpenAPI description; specURL is where it is downloaded.
func layout(spec []byte, specURL string) (views.APIDoc, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(spec, &root); err != nil || len(root.Content) == 0 {
		return views.APIDoc{}, fmt.Errorf("openapi: the API description does not parse: %v", err)
	}
	doc := root.Content[0]
	info := yget(doc, "info")
	comps := yget(doc, "components")
	out := views.APIDoc{Title: ystr(yget(info, "title")), Version: ystr(yget(info, "version")),
		Description: strings.TrimSpace(ystr(yget(info, "description"))), SpecURL: specURL}
	resolve := func(n *yaml.Node, section string) *yaml.Node {
		if ref := ystr(yget(n, "$ref")); ref != "" {
			return yget(yget(comps, section), refName(ref))
		}
		return n
	}
	tagIndex := map[string]int{}
	for _, t := range yget(doc, "tags").Content {
		tagIndex[ystr(yget(t, "name"))] = len(out.Tags)
		out.Tags = append(out.Tags, views.APITag{Name: ystr(yget(t, "name")), Description: ystr(yget(t, "description"))})
	}
	media := func(content *yaml.Node) []views.APIMedia {
		var ms []views.APIMedia
		for _, p := range ypairs(content) {
			ms = append(ms, views.APIMedia{MediaType: p[0].Value, Type: apiTypeOf(yget(p[1], "schema"))})
		}
		return ms
	}
	for _, pp := range ypairs(yget(doc, "paths")) {
		path, item := pp[0].Value, pp[1]
		server := "/api"
		if s := yget(item, "servers"); s != nil && len(s.Content) > 0 && ystr(yget(s.Content[0], "url")) == "/" {
			server = ""
		}
		var shared []*yaml.Node
		if ps := yget(item, "parameters"); ps != nil {
			shared = ps.Content
		}
		for _, m := range []string{"get", "post", "put", "delete", "patch"} {
			op := yget(item, m)
			if op == nil {
				continue
			}
			o := views.APIOp{Method: strings.ToUpper(m), Path: path, Server: server, OperationID: ystr(yget(op, "operationId")),
				Summary: ystr(yget(op, "summary")), Deprecated: ystr(yget(op, "deprecated")) == "true"}
			if sec := yget(op, "security"); sec != nil && sec.Kind == yaml.SequenceNode && len(sec.Content) == 0 {
				o.Public = true
			}
			params := append([]*yaml.Node{}, shared...)
			if ps := yget(op, "parameters"); ps != nil {
				params = append(params, ps.Content...)
			}
			for _, p := range params {
				p = resolve(p, "parameters")
				o.Params = append(o.Params, views.APIParam{Name: ystr(yget(p, "name")), In: ystr(yget(p, "in")),
					Type: apiTypeOf(yget(p, "schema")).Text, Description: ystr(yget(p, "description")), Required: ystr(yget(p, "required")) == "true"})
			}
			if rb := resolve(yget(op, "requestBody"), "requestBodies"); rb != nil {
				o.Bodies = media(yget(rb, "content"))
			}
			for _, rp := range ypairs(yget(op, "responses")) {
				resp := resolve(rp[1], "responses")
				o.Responses = append(o.Responses, views.APIResponse{Status: rp[0].Value, Description: ystr(yget(resp, "description")), Media: media(yget(resp, "content"))})
			}
			tag := "Other"
			if ts := ylist(yget(op, "tags")); len(ts) > 0 {
				tag = ts[0]
			}
			i, ok := tagIndex[tag]
			if !ok {
				i = len(out.Tags)
				tagIndex[tag] = i
				out.Tags = append(out.Tags, views.APITag{Name: tag})
			}
			out.Tags[i].Ops = append(out.Tags[i].Ops, o)
		}
	}
	out.Schemas = schemas(comps)
	return out, nil
}

// schemas lays out every named schema of the components, with the members
// of its object (and of each part of an allOf), each member's example
// taken from the schema it refers to when it has none of its own.
func schemas(comps *yaml.Node) []views.APISchema {
	var out []views.APISchema
	for _, sp := range ypairs(yget(comps, "schemas")) {
		sc := views.APISchema{Name: sp[0].Value, Description: ystr(yget(sp[1], "description")), Enum: ylist(yget(sp[1], "enum"))}
		sc.Type = apiTypeOf(sp[1]).Text
		objects := []*yaml.Node{sp[1]}
		if all := yget(sp[1], "allOf"); all != nil {
			objects = append(objects, all.Content...)
		}
		if len(sc.Enum) > 0 {
			sc.Type = ystr(yget(sp[1], "type"))
		}
		for _, obj := range objects {
			required := map[string]bool{}
			for _, n := range ylist(yget(obj, "required")) {
				required[n] = true
			}
			for _, pr := range ypairs(yget(obj, "properties")) {
				p := pr[1]
				ex := yget(p, "example")
				if ex == nil {
					if ref := ystr(yget(p, "$ref")); ref != "" {
						ex = yget(yget(yget(comps, "schemas"), refName(ref)), "example")
					}
				}
				sc.Props = append(sc.Props, views.APIProp{Name: pr[0].Value, Type: apiTypeOf(p), Required: required[pr[0].Value],
					ReadOnly: ystr(yget(p, "readOnly")) == "true", WriteOnly: ystr(yget(p, "writeOnly")) == "true",
					Description: ystr(yget(p, "description")), Example: yexample(ex)})
			}
		}
		out = append(out, sc)
	}
	return out
}
