package participants

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"time"
)

// Answer is one built participants answer, ready to send plain or
// gzipped; never changed once served.
type Answer struct {
	Version  int64     // the store version it was built from
	Modified time.Time // its Last-Modified: when the build that last changed its body began
	Body     []byte
	Gzip     []byte
	ETag     string // a hash of Body: the same for the same list
}

// gzipLevel compresses the answer. Level 5 makes the participants list
// of 100,000 organisations a fifth smaller than gzip.BestSpeed (11.4
// against 14.3 MB) in the same time (about half a second, in the
// background rebuild); every client that takes gzip gets fewer bytes.
// Levels above it cost more time for little (docs/design.md §5,
// docs/benchmarks.md).
const gzipLevel = 5

// NewAnswer is the answer of body, built from the store at version by a
// build that began to read at began. Last-Modified is that moment, not
// the build's end: every change the body lacks was committed after it.
// Stamped when the build ends, a slow build on one instance could carry a
// later date than a quicker one on another instance that holds a newer
// change, and that instance would answer the slow one's date with a 304
// for a body the client has not seen (docs/design.md §14).
func NewAnswer(version int64, began time.Time, body []byte) *Answer {
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzipLevel)
	_, _ = zw.Write(body)
	_ = zw.Close()
	sum := sha256.Sum256(body)
	return &Answer{Version: version, Modified: began, Body: body, Gzip: gz.Bytes(), ETag: `"` + hex.EncodeToString(sum[:12]) + `"`}
}

// Large reports whether a is the list of a large directory (tens of
// megabytes, built from several times that in rows).
func (a *Answer) Large() bool { return len(a.Body) >= 16<<20 }

// CarryFrom keeps old's Last-Modified when a rebuild found the same body:
// nothing a client holds has changed.
func (a *Answer) CarryFrom(old *Answer) {
	if old.ETag == a.ETag {
		a.Modified = old.Modified
	}
}
