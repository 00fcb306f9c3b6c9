package formats

// MaxJSONDepth is how deeply the JSON a client sends may nest objects and
// arrays (docs/design.md §4, docs/decisions.md). A body of the API with a
// JWK set as a policy operator's value nests 7 levels; JSON nested deeper
// is refused before anything walks or decodes it, so that neither the
// time nor the memory of a request grows with its depth.
const MaxJSONDepth = 32

// JSONTooDeep reports whether the JSON text b nests objects and arrays
// deeper than MaxJSONDepth, and the byte offset of the bracket that goes
// one level too deep. It reads b once and allocates nothing; brackets in
// strings do not count, and text that is not JSON is left to the decoder.
func JSONTooDeep(b []byte) (offset int, tooDeep bool) {
	depth := 0
	inString, escaped := false, false
	for i, c := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			if depth > MaxJSONDepth {
				return i, true
			}
		case (c == '}' || c == ']') && depth > 0:
			depth--
		}
	}
	return 0, false
}
