package store

import (
	"testing"
	"time"
)

// SetBusyTimeoutForTest shortens the busy timeout of databases opened by
// the test.
func SetBusyTimeoutForTest(t *testing.T, d time.Duration) {
	old := busyTimeout
	busyTimeout = d
	t.Cleanup(func() { busyTimeout = old })
}
