//go:build !fjdebug && !race

package sched

// debugChecks is off: see debug.go for how to turn it on.
const debugChecks = false
