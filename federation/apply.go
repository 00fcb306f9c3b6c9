package federation

import (
	"fmt"
	"sort"
	"strings"
)

// ApplyPolicy applies one entity type's metadata policy to its metadata
// (OpenID Federation 1.0, Metadata Policy: Application): value, add,
// default, then the checks one_of, subset_of (which also narrows),
// superset_of, essential. add, subset_of and superset_of act on arrays; a
// present parameter of another type is a policy error. The scope parameter,
// a space-separated string, is treated as an array of scope values and
// comes out as a space-separated string (Notes on Operators).
func ApplyPolicy(policy map[string]any, metadata map[string]any) (map[string]any, error) {
	out := map[string]any{}
	for k, v := range metadata {
		out[k] = v
	}
	for param, raw := range policy {
		ops, _ := raw.(map[string]any)
		isScope := param == "scope"
		asArray := func(x any) any {
			if s, ok := x.(string); ok && isScope {
				return scopeList(s)
			}
			return x
		}
		v, present := out[param]
		v = asArray(v)
		needArray := func(op string) ([]any, error) {
			l, ok := v.([]any)
			if !ok {
				return nil, fmt.Errorf("%s: %s applies to an array, and the metadata value %v is not one", param, op, v)
			}
			return l, nil
		}
		if val, ok := ops["value"]; ok {
			if val == nil {
				v, present = nil, false
			} else {
				v, present = asArray(val), true
			}
		}
		if add, ok := ops["add"]; ok {
			addList, isList := add.([]any)
			if !isList {
				addList = []any{add}
			}
			cur := []any{} // add [] still gives an array, never null
			if present {
				l, err := needArray("add")
				if err != nil {
					return nil, err
				}
				cur = append(cur, l...)
			}
			for _, x := range addList {
				if !contains(cur, x) {
					cur = append(cur, x)
				}
			}
			v, present = cur, true
		}
		if def, ok := ops["default"]; ok && !present {
			v, present = asArray(def), true
		}
		if oneOf, ok := ops["one_of"].([]any); ok && present {
			one := v
			if l, isList := v.([]any); isList && isScope {
				one = scopeString(l) // one_of compares the scope string whole
			}
			if !contains(oneOf, one) {
				return nil, fmt.Errorf("%s: %v is not one of %v", param, one, oneOf)
			}
		}
		if sub, ok := ops["subset_of"].([]any); ok && present {
			cur, err := needArray("subset_of")
			if err != nil {
				return nil, err
			}
			kept := []any{}
			for _, x := range cur {
				if contains(sub, x) {
					kept = append(kept, x)
				}
			}
			v = kept
		}
		if sup, ok := ops["superset_of"].([]any); ok && present {
			cur, err := needArray("superset_of")
			if err != nil {
				return nil, err
			}
			if !subset(sup, cur) {
				return nil, fmt.Errorf("%s: %v does not include %v", param, v, sup)
			}
		}
		// Present (even as an empty array left by subset_of) satisfies essential.
		if ess, ok := ops["essential"].(bool); ok && ess && !present {
			return nil, fmt.Errorf("%s is essential and missing", param)
		}
		if !present {
			delete(out, param)
			continue
		}
		if l, ok := v.([]any); ok && isScope {
			v = scopeString(l)
		}
		out[param] = v
	}
	return out, nil
}

// scopeList splits a space-separated scope string into its values.
func scopeList(s string) []any {
	out := []any{}
	for _, f := range strings.Fields(s) {
		out = append(out, f)
	}
	return out
}

// scopeString joins scope values into a space-separated string; a list
// with a value that is not a string is left as it is.
func scopeString(l []any) any {
	parts := make([]string, 0, len(l))
	for _, x := range l {
		s, ok := x.(string)
		if !ok {
			return l
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

// ApplySuperiorMetadata applies the metadata claim of the subordinate
// statement about an entity to the metadata of its entity configuration
// (OpenID Federation 1.0, the metadata claim): the statement's parameters
// override those of the same name, only under the entity types the entity
// configuration has; no entity type is added. Neither input is changed.
func ApplySuperiorMetadata(metadata, superior map[string]any) map[string]any {
	out := make(map[string]any, len(metadata))
	for etype, m := range metadata {
		out[etype] = m
	}
	for etype, sv := range superior {
		over, ok := sv.(map[string]any)
		if !ok {
			continue
		}
		cur, ok := out[etype].(map[string]any)
		if !ok {
			continue
		}
		merged := make(map[string]any, len(cur)+len(over))
		for k, v := range cur {
			merged[k] = v
		}
		for k, v := range over {
			merged[k] = v
		}
		out[etype] = merged
	}
	return out
}

// CheckMetadata checks the metadata claim of a statement before anything is
// applied to it (docs/design.md §13): a JSON object whose members are entity
// types, each a JSON object of parameters, and no parameter null. Anything
// else would let a policy skip the entity type, or pass a null through.
// Absent (nil) is no metadata and is fine.
func CheckMetadata(v any) error {
	if v == nil {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("metadata must be a JSON object of entity types")
	}
	types := make([]string, 0, len(m))
	for t := range m {
		types = append(types, t)
	}
	sort.Strings(types)
	for _, t := range types {
		params, ok := m[t].(map[string]any)
		if !ok {
			return fmt.Errorf("metadata.%s must be a JSON object of parameters", t)
		}
		names := make([]string, 0, len(params))
		for p := range params {
			names = append(names, p)
		}
		sort.Strings(names)
		for _, p := range names {
			if params[p] == nil {
				return fmt.Errorf("metadata.%s.%s is null", t, p)
			}
		}
	}
	return nil
}
