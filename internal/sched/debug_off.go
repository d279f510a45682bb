//go:build !fjdebug && !race

package sched

// debugChecks is off: see debug.go for how to turn it on.
const debugChecks = false

// DebugChecks tells the layers above whether to run their own debug
// checks (see debug.go).
const DebugChecks = debugChecks
