//go:build unix

package main

import (
	"errors"
	"os"
	"syscall"
)

// servingLock is a lock file beside a SQLite database: serve holds it
// shared while it runs (several may), copy-database exclusively while it
// copies, so a copy never runs beside a serve that goes on writing rows the
// copy would leave behind (docs/decisions.md). A separate file, never the
// database: closing another descriptor of the database file would drop the
// locks SQLite itself holds in this process.
type servingLock struct{ f *os.File }

// errLockHeld: another process holds the lock in the other mode.
var errLockHeld = errors.New("held by another process")

// takeServingLock takes the lock of the database at dbPath, shared or
// exclusive, without waiting. A lock file that cannot be made (a
// read-only directory) is no lock, not an error: the database's own
// checks say what is wrong there.
func takeServingLock(dbPath string, exclusive bool) (*servingLock, error) {
	f, err := os.OpenFile(dbPath+"-serve.lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return &servingLock{}, nil
	}
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	if err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errLockHeld
		}
		return &servingLock{}, nil
	}
	return &servingLock{f: f}, nil
}

// release lets the lock go (closing the file drops it).
func (l *servingLock) release() {
	if l != nil && l.f != nil {
		l.f.Close()
	}
}
