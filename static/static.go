// Package static holds the embedded front-end files: vendored htmx 2 and
// Pico CSS (their sha256 in vendor/SHA256SUMS) and the project's own CSS.
// Files are served under a fingerprinted path with a long cache lifetime.
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"strings"
)

//go:embed vendor/*.js vendor/*.css app.css app.js console.js favicon.svg
var files embed.FS

var fingerprints = func() map[string]string {
	m := map[string]string{}
	_ = fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := files.ReadFile(p)
		sum := sha256.Sum256(b)
		m[p] = hex.EncodeToString(sum[:])[:12]
		return nil
	})
	return m
}()

// Path returns the fingerprinted URL of an embedded file, e.g.
// Path("app.css") = "/static/3f2a…/app.css".
func Path(name string) string {
	return "/static/" + fingerprints[name] + "/" + name
}

// Handler serves /static/{fingerprint}/{name}. A stale fingerprint still
// serves the current file but without the immutable cache.
func Handler() http.Handler {
	fsrv := http.FileServerFS(files)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rest := strings.TrimPrefix(r.URL.Path, "/static/")
		fp, name, ok := strings.Cut(rest, "/")
		name = path.Clean(name)
		if _, known := fingerprints[name]; !ok || !known {
			http.NotFound(w, r)
			return
		}
		if fingerprints[name] == fp {
			w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		} else {
			w.Header().Set("Cache-Control", "no-cache")
		}
		r2 := r.Clone(r.Context())
		r2.URL.Path = "/" + name
		fsrv.ServeHTTP(w, r2)
	})
}
