package sched

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin/fj/internal/fjtest"
)

type chanTask struct {
	task
	done chan struct{}
}

func (c *chanTask) Run(*Worker) { close(c.done) }

func newChanTask() *chanTask {
	c := &chanTask{done: make(chan struct{})}
	c.task.bind(c)
	return c
}

// U3a (found in review): a waker that finds nobody to claim gives its
// searching unit back, but a publisher whose P2 saw that unit woke nobody.
// On a 1-worker pool: A submits T0 and holds a unit while the only worker
// Z is between S1's count and its store of asleep, so A's scan finds
// nobody. Z then sees T0 in S2, runs it, and parks after an S2 that finds
// nothing. B submits T1: its P2 sees A's unit and wakes nobody. A gives
// the unit back. Without U3a's second look, T1 stays queued with Z parked
// until something else happens (here, nothing: the test would hang).
func TestU3aGiveBackLooksAgain(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	zInS1 := make(chan struct{})
	releaseZ := make(chan struct{})
	var armedZ atomic.Bool
	armedZ.Store(true)
	afterAnnounce := func(*Worker) {
		if armedZ.CompareAndSwap(true, false) {
			close(zInS1)
			<-releaseZ
		}
	}
	aInWindow := make(chan struct{})
	releaseA := make(chan struct{})
	var armedA atomic.Bool
	armedA.Store(true)
	beforeGiveBack := func() {
		if armedA.CompareAndSwap(true, false) {
			close(aInWindow)
			<-releaseA
		}
	}
	testHooks = &hooks{beforeGiveBack: beforeGiveBack, afterAnnounce: afterAnnounce}
	defer func() { testHooks = nil }()

	p := New(Config{Workers: 1, DequeCapacity: 16, Name: "u3a"})
	defer p.Close()
	<-zInS1 // Z is counted as sleeping, its state still awake

	t0 := newChanTask()
	go p.submit(&t0.task) // A
	<-aInWindow           // A holds a unit and found nobody to claim
	close(releaseZ)
	<-t0.done // Z ran T0 (its S2 saw it)

	// Z parks again: it publishes its sleep count after an S2 that found
	// nothing, just before it blocks on its token.
	for {
		ws := p.Snapshot().Workers
		if ws[0][countSleeps] >= 1 {
			break
		}
		time.Sleep(time.Millisecond) // polling a published counter, not a synchronisation by time
	}

	t1 := newChanTask()
	p.submit(&t1.task) // B: its P2 sees A's unit and wakes nobody
	close(releaseA)    // A gives its unit back, looks again, and wakes Z
	<-t1.done          // without U3a: a hang, turned into a failure by the deadline
}
