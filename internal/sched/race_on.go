//go:build race

package sched

const raceBuild = true

// raceRelease and raceAcquire give the race detector the order between a
// holder's writes to its worker before it runs a task's code and the
// monitor's hand-over of that worker (stall.md, H5). The hardware has it
// from the runtime's own status change of the blocking goroutine, which
// the hand-over's dump reads; the race detector does not see that one.
func raceRelease(c *carrier) { c.race.Add(1) }
func raceAcquire(c *carrier) { c.race.Load() }
