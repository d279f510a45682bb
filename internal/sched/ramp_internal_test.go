package sched

import (
	"math/bits"
	"testing"
)

// The wake-up ramp (sleep.md, S4) must wake n workers in O(log n) rounds
// of wake-up latency, not n. This plays the policy out in rounds: in each,
// every worker woken in the round before finds work, stops searching and
// wakes what rampWakes says. A policy where a worker that finds work only
// replaces itself would need n-1 rounds.
func TestRampWakesLogarithmic(t *testing.T) {
	for _, n := range []uint32{2, 8, 16, 32, 64, 1024} {
		searching, sleeping := uint32(1), n-1 // a publisher woke one
		rounds := 0
		for sleeping > 0 {
			rounds++
			if rounds > int(n) {
				t.Fatalf("n=%d: the ramp stalled with %d asleep", n, sleeping)
			}
			woken := uint32(0)
			for i := searching; i > 0; i-- {
				searching--
				k := uint32(rampWakes(uint64(searching)*searchingOne+uint64(sleeping)*sleepingOne, n))
				searching += k
				sleeping -= k
				woken += k
			}
			if woken == 0 {
				t.Fatalf("n=%d: round %d woke nobody with %d asleep", n, rounds, sleeping)
			}
			searching = woken
		}
		limit := 2*bits.Len32(n-1) + 2
		t.Logf("n=%d: every worker awake after %d rounds of wake-ups (limit %d)", n, rounds, limit)
		if rounds > limit {
			t.Errorf("n=%d: %d rounds of wake-ups to wake every worker, want at most %d", n, rounds, limit)
		}
	}
}
