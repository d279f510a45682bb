//go:build !race

package sched

// See race_on.go: without the race detector, nothing to tell it.
func raceHandOff(*Worker) {}
func raceAcquire(*remote) {}
