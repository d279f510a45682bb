//go:build !race

package cilk5

const raceEnabled = false
