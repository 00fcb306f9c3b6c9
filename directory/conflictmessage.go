package directory

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// ParseConflict reads a conflict message as the API sends it,
// "summary|payload" (docs/design.md §4), for clients of the API: the
// summary and one line per record of the payload, kinds in name order,
// each record's members in name order ("Contact: ContactId c1, Name Ann
// Lee"). ok is false when the separator is missing or the payload is not a
// JSON object of lists of objects.
func ParseConflict(msg string) (summary string, items []string, ok bool) {
	summary, payload, found := strings.Cut(msg, "|")
	var kinds map[string][]map[string]any
	if !found || json.Unmarshal([]byte(payload), &kinds) != nil || len(kinds) == 0 {
		return "", nil, false
	}
	for _, kind := range slices.Sorted(maps.Keys(kinds)) {
		for _, rec := range kinds[kind] {
			parts := make([]string, 0, len(rec))
			for _, f := range slices.Sorted(maps.Keys(rec)) {
				parts = append(parts, fmt.Sprintf("%s %v", f, rec[f]))
			}
			items = append(items, strings.TrimSuffix(kind, "s")+": "+strings.Join(parts, ", "))
		}
	}
	return summary, items, true
}
