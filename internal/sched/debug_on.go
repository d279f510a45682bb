//go:build fjdebug || race

package sched

// debugChecks is on: built with -tags fjdebug, or with -race.
const debugChecks = true

// DebugChecks tells the layers above whether to run their own debug
// checks (see debug.go).
const DebugChecks = debugChecks
