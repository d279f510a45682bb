package sched

import (
	"context"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/forkjoin/fj/internal/wsdeque"
)

// remote is a worker as a goroutine that does not hold it sees it: the
// same memory as the Worker, through a type whose fields and methods are
// the only ones such a goroutine may touch, as wsdeque.Stealer is a Deque
// seen by a thief. The pool's slot table (Pool.workers) and a carrier's
// worker (carrier.w) are remotes: the monitor, wakers, thieves and event
// setters reach the holder's state only through asHolder's cast, which
// names the reason it is sound (the caller holds the worker, or is about
// to; TestAsHolderCallers pins its callers).
//
// Its fields are the Worker's, in the same order and of the same types,
// so that its layout is the Worker's (TestRemoteLayout checks every
// offset): those other goroutines read or write keep their names, the
// deque is its Stealer, and the holder's own state (rng to checks, scope,
// counts, the batches, labels, regionName, blocks) is blank: a remote
// cannot name it. Named
// here: the fields fixed at creation, the holder's carrier, mark and id
// that the net reads (stall.md, V2, W1), the sleep state, the counts
// other goroutines read, and the carriers' lists under hmu.
type remote struct {
	dq wsdeque.Stealer[task]

	pool *Pool
	wake chan struct{}
	id   int
	_    [cacheLine - 3*wordSize]byte

	_          uint64   // rng
	_          int      // lastVictim
	_          uint16   // tick
	_          bool     // searching
	_          bool     // handedOver
	_          uint8    // loopNest
	_          uint16   // checks
	cur        *carrier // stored before holder (stall.md, V2)
	_          *scope   // scope
	_          counters // counts
	inProgress atomic.Int64
	holder     atomic.Int64
	_          [2*cacheLine - (16+3*wordSize+7)&^7 - unsafe.Sizeof(counters{}) - 16]byte

	sleepState atomic.Uint32
	_          [cacheLine - 4]byte

	flushed    flushedCounters
	_          []*task // spill
	_          []*task // pull
	_          []int64 // tops
	_, _       uint64  // stealExec, stealLeaves
	parked     atomic.Int64
	nResumable atomic.Int32
	fjWaits    atomic.Uint32
	nDisplaced atomic.Int32
	hmu        Lock
	carriers
	_        context.Context // labels: its holder's
	_        string          // regionName: its holder's
	holderG  atomic.Pointer[gHandle]
	_        unsafe.Pointer // blocks
	raceSync uint8          //lint:ignore U1000 used in race builds
	_        [4*wordSize - 8]byte
}

// remote returns w seen from another goroutine.
func (w *Worker) remote() *remote { return (*remote)(unsafe.Pointer(w)) }

// asHolder returns r seen by its holder: the one cast from a remote to the
// holder's type. Only the goroutine holding r (its current carrier,
// carrier.go), or the one about to take it over with nothing on its stack
// yet (a carrier starting, or handed r by a turn token: C2, C4, stall.md Y4),
// calls it.
func (r *remote) asHolder() *Worker { return (*Worker)(unsafe.Pointer(r)) }

// signal gives w a wake-up token; see waiter.signal.
func (w *remote) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// carrierGroup is the WaitGroup that counts w's carrier goroutines: the
// pool's.
func (w *remote) carrierGroup() *sync.WaitGroup { return &w.pool.goroutines }

// resume makes c, parked in WaitFor, resumable: its event is set (C3,
// carrier.md). Any goroutine may call it (it runs in the event's setter). The holder is
// woken in case it sleeps; it hands the worker back at its next safe point
// (see run, search and sleep).
func (w *remote) resume(c *carrier) {
	w.hmu.Lock()
	w.resumeLocked(c)
}

// resumeLocked is the step every resume ends with (C3: resume, a
// section's end, a hand-over's reclaim, stall.md Y5), with w.hmu held,
// which it unlocks: c joins the resumable list, counted after the append
// and before the wake-up token (a holder that re-checks nResumable after
// announcing its sleep sees it, or else finds the token: sleep.md, S2),
// and the stall watch is armed (stall.md, W2: while w's holder is
// blocked, only a hand-over gives c its worker).
func (w *remote) resumeLocked(c *carrier) {
	w.resumable = append(w.resumable, c)
	w.nResumable.Add(1)
	w.hmu.Unlock()
	w.signal()
	w.pool.armOnResume()
}

// resumeSection is resume for c, whose goroutine leaves a blocking
// section's f (blocking.go, B5): it takes c off w.sections (I6) and makes
// it resumable in one locked step.
func (w *remote) resumeSection(c *carrier) {
	w.hmu.Lock()
	i, last := c.section, len(w.sections)-1
	w.sections[i] = w.sections[last]
	w.sections[i].section = i
	w.sections[last] = nil
	w.sections = w.sections[:last]
	c.section = -1
	w.resumeLocked(c)
}

// inSection reports whether goroutine g is in a blocking section's f of
// a task of w's, having given w up (I6). Only g may ask about itself, as
// in I4: its own entry was written by itself, and no other entry can
// carry its id.
func (w *remote) inSection(g int64) bool {
	w.hmu.Lock()
	defer w.hmu.Unlock()
	for _, c := range w.sections {
		if c.goid == g {
			return true
		}
	}
	return false
}

// popResumable takes the most recently resumed carrier; w.hmu is held,
// by the holder (C2, C4) or by the monitor handing w over (stall.md, Y4).
func (w *remote) popResumable() *carrier {
	n := len(w.resumable)
	if n == 0 {
		return nil
	}
	c := w.resumable[n-1]
	w.resumable[n-1] = nil
	w.resumable = w.resumable[:n-1]
	w.nResumable.Add(-1)
	return c
}

// newCarrier makes a carrier for w: the monitor's hand-over (stall.md,
// Y4) makes them too, not only w's holder.
func (w *remote) newCarrier() *carrier {
	return &carrier{w: w, turn: make(chan struct{}, 1), section: -1}
}

// nextCarrier is who C2's hand-off gives w to, with w.hmu held (by the
// holder, or by the monitor handing w over: stall.md, Y4): the most
// recently resumed carrier, else an idle one, else nil (a new one then).
func (w *remote) nextCarrier() *carrier {
	if c := w.popResumable(); c != nil {
		return c
	}
	if n := len(w.idle); n > 0 {
		c := w.idle[n-1]
		w.idle = w.idle[:n-1]
		return c
	}
	return nil
}
