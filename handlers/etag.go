package handlers

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
)

// versioned is a resource that lists its own fields for its ETag, which
// costs less than encoding it as JSON only to hash it (the organisation,
// read most).
type versioned interface{ AppendVersion([]byte) []byte }

// ETagOf is a strong validator of a resource: a hash of every field.
func ETagOf(v any) string {
	var sum [sha256.Size]byte
	if x, ok := v.(versioned); ok {
		var buf [512]byte
		sum = sha256.Sum256(x.AppendVersion(buf[:0]))
	} else {
		b, _ := json.Marshal(v)
		sum = sha256.Sum256(b)
	}
	return `"` + base64.RawURLEncoding.EncodeToString(sum[:16]) + `"`
}

// SetETag sets the ETag header of a single resource.
func SetETag(w http.ResponseWriter, v any) { w.Header().Set("ETag", ETagOf(v)) }

// CheckIfMatch answers 412 when If-Match names another version of cur.
func CheckIfMatch(r *http.Request, cur any) error {
	im := r.Header.Get("If-Match")
	if im == "" || strings.TrimSpace(im) == "*" {
		return nil
	}
	want := ETagOf(cur)
	for _, t := range strings.Split(im, ",") {
		if strings.TrimSpace(t) == want {
			return nil
		}
	}
	return CodeStaleETag.New("the resource changed since you read it (If-Match does not match its ETag)")
}
