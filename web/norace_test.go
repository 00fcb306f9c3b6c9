//go:build !race

package web_test

// raceDetector: this test binary runs without the race detector.
const raceDetector = false
