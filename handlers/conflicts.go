package handlers

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// A conflict (409) names what is in the way as data (store.ConflictError,
// Error.InTheWay). The API sends it as the message "summary|payload"
// (conflictWire, docs/design.md §4); the console lists it (conflictList).

// conflictList is a conflict as a page shows it: the summary and one line
// per record in the way. Without anything named it says the item is in use.
func conflictList(e *Error) (string, []string) {
	if items := inTheWayItems(e.InTheWay); len(items) > 0 {
		return e.Message, items
	}
	if e.Message != "" {
		return e.Message, nil
	}
	return "This item is in use and cannot be changed or deleted.", nil
}

// inTheWayItems lists what a conflict names, kinds in name order, one line
// per record: "Contact: ContactId c1, Name Ann Lee, OrganisationId o1".
func inTheWayItems(inTheWay map[string]any) []string {
	raw := make(map[string]json.RawMessage, len(inTheWay))
	for k, v := range inTheWay {
		b, err := json.Marshal(v)
		if err != nil {
			continue
		}
		raw[k] = b
	}
	items, _ := listRecords(raw)
	return items
}

// listRecords formats each kind's list of records; ok is false when a kind
// is not a list of objects.
func listRecords(m map[string]json.RawMessage) (items []string, ok bool) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	ok = true
	for _, k := range keys {
		var list []map[string]any
		if err := json.Unmarshal(m[k], &list); err != nil {
			ok = false
			continue
		}
		for _, it := range list {
			fields := make([]string, 0, len(it))
			for f := range it {
				fields = append(fields, f)
			}
			sort.Strings(fields)
			parts := make([]string, 0, len(fields))
			for _, f := range fields {
				parts = append(parts, fmt.Sprintf("%s %v", f, it[f]))
			}
			items = append(items, strings.TrimSuffix(k, "s")+": "+strings.Join(parts, ", "))
		}
	}
	return items, ok
}

// ParseConflict reads a conflict message as the API sends it,
// "summary|payload" (docs/design.md §4), for clients of the API: the
// summary and the records of the payload. ok is false when the separator
// or a payload that is a JSON object of lists is missing.
func ParseConflict(msg string) (summary string, items []string, ok bool) {
	summary, payload, found := strings.Cut(msg, "|")
	if !found {
		return "", nil, false
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(payload), &m); err != nil || len(m) == 0 {
		return "", nil, false
	}
	items, ok = listRecords(m)
	if !ok {
		return "", nil, false
	}
	return summary, items, true
}
