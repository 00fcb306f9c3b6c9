// Package federation holds the OpenID Federation 1.0 rules, without HTTP:
// the entity types trustframe accepts, the validation of metadata policies,
// their merge down a chain and their application to metadata, constraints,
// entity identifiers, what the directory says about its subordinates
// (subjects.go), the use cases of role metadata policies and the policy
// simulator, and the directory's federation keyring (docs/design.md §7, §8
// and §13). The trust anchors and their resolver are in federation/anchor.
package federation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/trustframe/trustframe/formats"
)

// EntityTypes are the entity types a role metadata policy may target: the
// four OpenID Federation protocol types and the wallet ecosystem types.
var EntityTypes = []string{
	"openid_relying_party", "openid_provider", "oauth_authorization_server", "oauth_client",
	"openid_credential_issuer", "openid_credential_verifier", "openid_wallet_provider", "openid_credential_verifier_provider",
}

// ValidEntityType reports whether t is one of EntityTypes.
func ValidEntityType(t string) bool {
	for _, e := range EntityTypes {
		if e == t {
			return true
		}
	}
	return false
}

// Operators are the policy operators of OpenID Federation 1.0 §6.1.3.1.
var Operators = []string{"value", "add", "default", "one_of", "subset_of", "superset_of", "essential"}

// PolicyError is one problem in a metadata policy, located by parameter.
type PolicyError struct {
	Parameter string
	Message   string
}

func (e PolicyError) Error() string { return e.Parameter + ": " + e.Message }

// ValidatePolicy checks the metadata policy of one entity type: a JSON
// object of metadata parameters, each an object of operators with values of
// the right type, combined only as §6.1.3.1 allows. It returns every problem.
// A policy nested deeper than formats.MaxJSONDepth is refused before it is
// read (docs/design.md §4).
func ValidatePolicy(raw json.RawMessage) []PolicyError {
	if at, deep := formats.JSONTooDeep(raw); deep {
		return []PolicyError{{Message: fmt.Sprintf("the policy nests objects and arrays deeper than the limit of %d levels (at byte %d)", formats.MaxJSONDepth, at)}}
	}
	var params map[string]json.RawMessage
	if err := json.Unmarshal(raw, &params); err != nil || params == nil {
		return []PolicyError{{Parameter: "", Message: "the policy must be a JSON object of metadata parameters"}}
	}
	// encoding/json keeps the last of two members of the same name; a
	// policy naming a parameter or operator twice is refused instead, so
	// that no part of what was written is silently dropped.
	if where := duplicateMember(raw); where != "" {
		return []PolicyError{{Parameter: where, Message: "a member name appears twice; each parameter and operator may appear once"}}
	}
	names := make([]string, 0, len(params))
	for n := range params {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []PolicyError
	for _, name := range names {
		for _, msg := range validateParameter(params[name]) {
			out = append(out, PolicyError{Parameter: name, Message: msg})
		}
	}
	return out
}

func validateParameter(raw json.RawMessage) []string {
	var ops map[string]any
	if err := json.Unmarshal(raw, &ops); err != nil || ops == nil {
		return []string{"a parameter policy must be a JSON object of operators"}
	}
	if len(ops) == 0 {
		return []string{"a parameter policy needs at least one operator"}
	}
	var errs []string
	for op := range ops {
		known := false
		for _, k := range Operators {
			known = known || k == op
		}
		if !known {
			errs = append(errs, fmt.Sprintf("unknown operator %q (known: %s)", op, strings.Join(Operators, ", ")))
		}
	}
	// Operand types.
	arrayOp := func(op string, nonEmpty bool) ([]any, bool) {
		v, ok := ops[op]
		if !ok {
			return nil, false
		}
		l, isList := v.([]any)
		if !isList {
			errs = append(errs, op+" takes a JSON array")
			return nil, false
		}
		if nonEmpty && len(l) == 0 {
			errs = append(errs, op+" takes a non-empty JSON array")
			return nil, false
		}
		return l, true
	}
	oneOf, hasOneOf := arrayOp("one_of", true)
	subsetOf, hasSubset := arrayOp("subset_of", false)
	supersetOf, hasSuperset := arrayOp("superset_of", false)
	addList, hasAdd := arrayOp("add", false)
	value, hasValue := ops["value"]
	_, hasDefault := ops["default"]
	essential, hasEssential := ops["essential"]
	if hasEssential {
		if _, ok := essential.(bool); !ok {
			errs = append(errs, "essential takes true or false")
		}
	}
	if hasDefault && ops["default"] == nil {
		errs = append(errs, "default must not be null")
	}
	// Combinations.
	if hasOneOf && hasAdd {
		errs = append(errs, "one_of cannot be combined with add")
	}
	if hasOneOf && hasSubset {
		errs = append(errs, "one_of cannot be combined with subset_of")
	}
	if hasOneOf && hasSuperset {
		errs = append(errs, "one_of cannot be combined with superset_of")
	}
	if hasValue {
		vl, valueIsList := value.([]any)
		if value == nil && hasDefault {
			errs = append(errs, "value null cannot be combined with default")
		}
		if value == nil && essential == true {
			errs = append(errs, "value null cannot be combined with essential true")
		}
		if hasAdd && (!valueIsList || !subset(addList, vl)) {
			errs = append(errs, "the values of add must be a subset of value")
		}
		if hasOneOf && !contains(oneOf, value) {
			errs = append(errs, "value must be one of one_of")
		}
		if hasSubset && value != nil && (!valueIsList || !subset(vl, subsetOf)) {
			errs = append(errs, "value must be a subset of subset_of")
		}
		if hasSuperset && value != nil && (!valueIsList || !subset(supersetOf, vl)) {
			errs = append(errs, "value must be a superset of superset_of")
		}
	}
	if hasAdd && hasSubset && !subset(addList, subsetOf) {
		errs = append(errs, "the values of add must be a subset of subset_of")
	}
	if hasSubset && hasSuperset && !subset(supersetOf, subsetOf) {
		errs = append(errs, "superset_of must be a subset of subset_of")
	}
	sort.Strings(errs)
	return errs
}

func contains(list []any, v any) bool {
	for _, x := range list {
		if reflect.DeepEqual(x, v) {
			return true
		}
	}
	return false
}

func subset(a, b []any) bool {
	for _, x := range a {
		if !contains(b, x) {
			return false
		}
	}
	return true
}

func anyList(l []string) []any {
	out := make([]any, len(l))
	for i, s := range l {
		out[i] = s
	}
	return out
}

// duplicateMember returns the dotted path of the first object member whose
// name appears twice in the same object of raw (valid JSON), or "". The
// names leading to a member are kept as a list and joined only for the
// answer, so the walk's memory does not grow with the square of the depth.
func duplicateMember(raw []byte) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	var path []string
	var walk func() (bool, error)
	walk = func() (bool, error) {
		tok, err := dec.Token()
		if err != nil {
			return false, err
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return false, err
				}
				name, _ := kt.(string)
				path = append(path, name)
				if seen[name] {
					return true, nil
				}
				seen[name] = true
				if dup, err := walk(); dup || err != nil {
					return dup, err
				}
				path = path[:len(path)-1]
			}
			_, err = dec.Token() // the closing brace
			return false, err
		case json.Delim('['):
			for dec.More() {
				if dup, err := walk(); dup || err != nil {
					return dup, err
				}
			}
			_, err = dec.Token()
			return false, err
		}
		return false, nil
	}
	if dup, _ := walk(); dup {
		return strings.Join(path, ".")
	}
	return ""
}
