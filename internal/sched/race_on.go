//go:build race

package sched

import (
	"runtime"
	"unsafe"
)

// The race detector and the hand-over (stall.md, Y6). The hardware orders
// a displaced holder's writes to its worker before the next holder's by
// the runtime's status change of the blocking goroutine, which the
// monitor reads (Y3); the race detector does not see that one. So in race
// builds the holder releases, on the worker's raceSync, right before it
// runs the program's code, and the monitor acquires it before it hands
// the worker over: the holder's writes then come before the next
// holder's, for the race detector too.
func raceHandOff(w *Worker) { runtime.RaceReleaseMerge(unsafe.Pointer(&w.raceSync)) }
func raceAcquire(w *remote) { runtime.RaceAcquire(unsafe.Pointer(&w.raceSync)) }
