//go:build !race

package sched

const raceBuild = false

// See race_on.go: without the race detector, nothing to tell it.
func raceHandOff(*Worker) {}
func raceAcquire(*remote) {}
