//go:build race

package web_test

// raceDetector: this test binary runs under the race detector, which
// allocates beside every allocation it watches (mustAllocateUnder).
const raceDetector = true
