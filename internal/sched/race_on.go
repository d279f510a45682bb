//go:build race

package sched

const raceBuild = true

// The race detector and the hand-over (stall.md, H5). The hardware orders
// a displaced holder's writes to its worker before the next holder's by
// the runtime's status change of the blocking goroutine, which H2's dump
// reads; the race detector does not see that one. So in race builds a
// holder's carrier says, in an atomic word, whether its task has called
// fj since execute stored 0 there (after its own writes, a release that
// H1's load acquires): raceTouch marks it at every entry that may touch
// the worker (the identity checks and lookups). The monitor hands over
// only a holder whose word is 0, whose writes the race detector then sees
// ordered.
func raceTaskStart(c *carrier) { c.race.Store(0) }
func raceTouch(c *carrier) {
	if c != nil {
		c.race.Store(1)
	}
}
func raceClean(c *carrier) bool { return c.race.Load() == 0 }
