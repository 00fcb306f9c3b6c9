package federation

import "fmt"

// ApplyPolicy applies one entity type's metadata policy to its metadata
// (OpenID Federation 1.0 §6.1.4.1): value, add, default, then the checks
// one_of, subset_of (which also narrows), superset_of, essential.
func ApplyPolicy(policy map[string]any, metadata map[string]any) (map[string]any, error) {
	out := map[string]any{}
	for k, v := range metadata {
		out[k] = v
	}
	for param, raw := range policy {
		ops, _ := raw.(map[string]any)
		v, present := out[param]
		if val, ok := ops["value"]; ok {
			if val == nil {
				delete(out, param)
				present = false
			} else {
				out[param], v, present = val, val, true
			}
		}
		if add, ok := ops["add"]; ok {
			addList, isList := add.([]any)
			if !isList {
				addList = []any{add}
			}
			cur, _ := v.([]any)
			for _, x := range addList {
				if !contains(cur, x) {
					cur = append(cur, x)
				}
			}
			out[param], v, present = cur, cur, true
		}
		if def, ok := ops["default"]; ok && !present {
			out[param], v, present = def, def, true
		}
		if oneOf, ok := ops["one_of"].([]any); ok && present && !contains(oneOf, v) {
			return nil, fmt.Errorf("%s: %v is not one of %v", param, v, oneOf)
		}
		if sub, ok := ops["subset_of"].([]any); ok && present {
			cur, _ := v.([]any)
			kept := []any{}
			for _, x := range cur {
				if contains(sub, x) {
					kept = append(kept, x)
				}
			}
			out[param], v = kept, kept
		}
		if sup, ok := ops["superset_of"].([]any); ok && present {
			cur, _ := v.([]any)
			if !subset(sup, cur) {
				return nil, fmt.Errorf("%s: %v does not include %v", param, v, sup)
			}
		}
		if ess, ok := ops["essential"].(bool); ok && ess {
			if l, isList := out[param].([]any); !present || (isList && len(l) == 0) {
				return nil, fmt.Errorf("%s is essential and missing", param)
			}
		}
	}
	return out, nil
}
