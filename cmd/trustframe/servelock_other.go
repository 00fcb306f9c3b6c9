//go:build !unix

package main

import "errors"

// servingLock is not kept where flock is missing: copy-database then
// relies on the README's "stop serve first" alone.
type servingLock struct{}

var errLockHeld = errors.New("held by another process")

func takeServingLock(string, bool) (*servingLock, error) { return &servingLock{}, nil }

func (l *servingLock) release() {}
