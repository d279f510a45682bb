//go:build !race

package fjtest

// RaceEnabled reports whether the race detector is on.
const RaceEnabled = false
