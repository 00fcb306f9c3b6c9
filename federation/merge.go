package federation

import (
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"sort"
	"strings"
)

// MergeError says why two metadata policies cannot be merged: the
// parameter and operator, and the reason (docs/design.md §13).
type MergeError struct {
	Parameter string
	Operator  string
	Message   string
}

func (e *MergeError) Error() string {
	if e.Operator == "" {
		return e.Parameter + ": " + e.Message
	}
	return e.Parameter + "." + e.Operator + ": " + e.Message
}

// Policy is one entity type's metadata policy: parameter → operator → value.
type Policy map[string]map[string]any

// ParsePolicy reads a stored policy (checked already by ValidatePolicy).
// An add of one value that is not an array, which policies saved before
// add had to be an array may hold, is read as an array of that value, so
// that statements publish add as an array (docs/design.md §7).
func ParsePolicy(raw json.RawMessage) (Policy, error) {
	var p Policy
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, err
	}
	if p == nil {
		p = Policy{}
	}
	for _, ops := range p {
		if add, ok := ops["add"]; ok {
			if _, isList := add.([]any); !isList {
				ops["add"] = []any{add}
			}
		}
	}
	return p, nil
}

// MergePolicies merges two policies of one entity type operator by
// operator, as OpenID Federation 1.0 §6.1.4 merges a superior's policy with
// a subordinate's; the directory uses it to combine the policies of every
// role an entity holds (docs/design.md §13). Neither input is changed.
//
// The rules, per operator: value and default must be equal; add and
// superset_of take the union; one_of and subset_of the intersection (one_of
// must keep at least one value); essential is true when either is. The
// merged operators of a parameter must then still combine (§6.1.3, checked
// by ValidatePolicy).
func MergePolicies(a, b Policy) (Policy, error) {
	out := Policy{}
	for p, ops := range a {
		out[p] = copyOps(ops)
	}
	names := make([]string, 0, len(b))
	for p := range b {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		cur, ok := out[p]
		if !ok {
			out[p] = copyOps(b[p])
			continue
		}
		ops := make([]string, 0, len(b[p]))
		for op := range b[p] {
			ops = append(ops, op)
		}
		sort.Strings(ops)
		for _, op := range ops {
			v := b[p][op]
			old, has := cur[op]
			if !has {
				cur[op] = v
				continue
			}
			merged, err := mergeOperator(op, old, v)
			if err != nil {
				return nil, &MergeError{Parameter: p, Operator: op, Message: err.Error()}
			}
			cur[op] = merged
		}
		raw, _ := json.Marshal(cur)
		if errs := validateParameter(raw); len(errs) > 0 {
			return nil, &MergeError{Parameter: p, Message: "after merging: " + strings.Join(errs, "; ")}
		}
	}
	return out, nil
}

func copyOps(ops map[string]any) map[string]any {
	c := make(map[string]any, len(ops))
	for k, v := range ops {
		c[k] = v
	}
	return c
}

func asList(v any) []any {
	if l, ok := v.([]any); ok {
		return l
	}
	return []any{v}
}

func mergeOperator(op string, a, b any) (any, error) {
	switch op {
	case "value", "default":
		if !reflect.DeepEqual(a, b) {
			return nil, fmt.Errorf("two different values (%s and %s) cannot be merged", compact(a), compact(b))
		}
		return a, nil
	case "add", "superset_of":
		out := append([]any{}, asList(a)...)
		for _, x := range asList(b) {
			if !contains(out, x) {
				out = append(out, x)
			}
		}
		return out, nil
	case "one_of", "subset_of":
		out := []any{}
		bl := asList(b)
		for _, x := range asList(a) {
			if contains(bl, x) {
				out = append(out, x)
			}
		}
		if op == "one_of" && len(out) == 0 {
			return nil, fmt.Errorf("%s and %s have no value in common", compact(a), compact(b))
		}
		return out, nil
	case "essential":
		ea, _ := a.(bool)
		eb, _ := b.(bool)
		return ea || eb, nil
	}
	return nil, fmt.Errorf("unknown operator")
}

func compact(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// Constraints are the constraints of a subordinate statement (§6.2).
type Constraints struct {
	MaxPathLength     *int
	Permitted         []string
	Excluded          []string
	AllowedEntityType []string
}

// ParseConstraints reads the constraints claim.
func ParseConstraints(m map[string]any) (Constraints, error) {
	var c Constraints
	if m == nil {
		return c, nil
	}
	if v, ok := m["max_path_length"]; ok {
		f, isNum := v.(float64)
		if !isNum {
			if i, isInt := v.(int); isInt {
				f, isNum = float64(i), true
			}
		}
		if !isNum || f < 0 || f != float64(int(f)) {
			return c, fmt.Errorf("max_path_length must be a non-negative integer")
		}
		n := int(f)
		c.MaxPathLength = &n
	}
	strs := func(v any, name string) ([]string, error) {
		l, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("%s must be an array of strings", name)
		}
		out := []string{}
		for _, x := range l {
			s, ok := x.(string)
			if !ok {
				return nil, fmt.Errorf("%s must be an array of strings", name)
			}
			out = append(out, s)
		}
		return out, nil
	}
	var err error
	if v, ok := m["naming_constraints"]; ok {
		if _, isObject := v.(map[string]any); !isObject {
			return c, fmt.Errorf("naming_constraints must be an object of permitted and excluded names")
		}
	}
	if nc, ok := m["naming_constraints"].(map[string]any); ok {
		if v, ok := nc["permitted"]; ok {
			if c.Permitted, err = strs(v, "naming_constraints.permitted"); err != nil {
				return c, err
			}
		}
		if v, ok := nc["excluded"]; ok {
			if c.Excluded, err = strs(v, "naming_constraints.excluded"); err != nil {
				return c, err
			}
		}
	}
	if v, ok := m["allowed_entity_types"]; ok {
		if c.AllowedEntityType, err = strs(v, "allowed_entity_types"); err != nil {
			return c, err
		}
	}
	return c, nil
}

// CheckPath applies max_path_length: intermediates is the number of
// intermediate entities between the statement's issuer and the leaf.
func (c Constraints) CheckPath(intermediates int) error {
	if c.MaxPathLength != nil && intermediates > *c.MaxPathLength {
		return fmt.Errorf("the chain has %d intermediates below the constraint's issuer; max_path_length is %d", intermediates, *c.MaxPathLength)
	}
	return nil
}

// CheckName applies naming_constraints to an entity ID below the issuer:
// the host must match a permitted name (if any) and no excluded one. A name
// starting with "." matches every host below it; otherwise the host itself.
func (c Constraints) CheckName(entityID string) error {
	u, err := url.Parse(entityID)
	if err != nil {
		return fmt.Errorf("%s is not a URL", entityID)
	}
	host := strings.ToLower(u.Hostname())
	match := func(name string) bool {
		name = strings.ToLower(name)
		if strings.HasPrefix(name, ".") {
			return strings.HasSuffix(host, name)
		}
		return host == name
	}
	for _, e := range c.Excluded {
		if match(e) {
			return fmt.Errorf("%s is excluded by the naming constraint %s", entityID, e)
		}
	}
	if len(c.Permitted) == 0 {
		return nil
	}
	for _, p := range c.Permitted {
		if match(p) {
			return nil
		}
	}
	return fmt.Errorf("%s matches no permitted name (%s)", entityID, strings.Join(c.Permitted, ", "))
}

// FilterEntityTypes applies allowed_entity_types: metadata of other entity
// types is removed; federation_entity is always allowed.
func (c Constraints) FilterEntityTypes(metadata map[string]any) map[string]any {
	if c.AllowedEntityType == nil {
		return metadata
	}
	out := map[string]any{}
	for t, v := range metadata {
		if t == "federation_entity" || contains(anyList(c.AllowedEntityType), t) {
			out[t] = v
		}
	}
	return out
}
