package views

import (
	"regexp"
	"sort"
	"strings"

	"github.com/trustframe/trustframe/store"
)

// GrantedBy says how someone is an administrator (docs/design.md §16):
// "via group G of provider P", or who invited or created them.
func GrantedBy(g store.Grant, by string) string {
	switch g.GrantedBy {
	case store.GrantedByGroup:
		return "via group " + g.Group + " of provider " + g.IdentityProvider
	case store.GrantedByInvitation:
		return "invited by " + by
	default:
		return "created by " + by
	}
}

// groupErrors joins the messages about GroupRoles and its mappings
// (GroupRoles[2].Role) for the one text area that edits them.
func groupErrors(errs map[string]string) string {
	var keys []string
	for k := range errs {
		if strings.HasPrefix(k, "GroupRoles") {
			keys = append(keys, k)
		}
	}
	// By line, then field: "GroupRoles[10]" sorts after "GroupRoles[2]".
	sort.Slice(keys, func(i, j int) bool {
		li, lj := indexOf(keys[i]), indexOf(keys[j])
		if li != lj {
			return li < lj
		}
		return keys[i] < keys[j]
	})
	var out []string
	for _, k := range keys {
		// A message that names another mapping by its index (GroupRoles[0])
		// names its line.
		msg := apiIndex.ReplaceAllStringFunc(errs[k], func(m string) string { return "line " + lineOf(m[len("GroupRoles["):]) })
		if i := strings.Index(k, "["); i >= 0 {
			msg = "Line " + lineOf(k[i+1:]) + ": " + msg
		}
		out = append(out, msg)
	}
	return strings.Join(out, " ")
}

var apiIndex = regexp.MustCompile(`GroupRoles\[\d+\]`)

// lineOf turns the index of "2].Role" into the form's line number "3".
func lineOf(s string) string {
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int(c-'0')
	}
	return itoa(n + 1)
}

// indexOf is the mapping index of a key "GroupRoles[12].Role" (12), or -1
// for a key about the whole list.
func indexOf(k string) int {
	i := strings.Index(k, "[")
	if i < 0 {
		return -1
	}
	n := 0
	for _, c := range k[i+1:] {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int(c-'0')
	}
	return n
}
