package anchor

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// fedError is an OpenID Federation error response.
type fedError struct {
	Status      int
	Code        string
	Description string
}

func (e *fedError) Error() string { return e.Code + ": " + e.Description }

func writeFedError(w http.ResponseWriter, e *fedError) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(e.Status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": e.Code, "error_description": e.Description})
}

func writeJWT(w http.ResponseWriter, typ, tok string, lifetime time.Duration) {
	w.Header().Set("Content-Type", "application/"+typ)
	w.Header().Set("Cache-Control", fmt.Sprintf("public, max-age=%d", int(min(lifetime, time.Hour).Seconds())))
	_, _ = w.Write([]byte(tok))
}

// WriteError writes an OpenID Federation error response (§8.9).
func WriteError(w http.ResponseWriter, status int, code, description string) {
	writeFedError(w, &fedError{status, code, description})
}

// WriteJWT writes a signed statement with its media type.
func WriteJWT(w http.ResponseWriter, typ, tok string, lifetime time.Duration) {
	writeJWT(w, typ, tok, lifetime)
}
