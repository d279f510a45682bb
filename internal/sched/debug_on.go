//go:build fjdebug || race

package sched

// debugChecks is on: built with -tags fjdebug, or with -race.
const debugChecks = true
