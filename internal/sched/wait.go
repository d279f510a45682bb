package sched

import "sync/atomic"

// waiter is one registration of a waiting goroutine on an event. What it
// wakes is a waker: a parked carrier, which the event's setter makes
// resumable on its worker (carrier.go), or a goroutine outside the pool
// blocked on a channel (chanWaker). A node is immutable once published (by
// the CAS that links it), except for claimed, so the setter can walk a
// list it swapped out while waiters come and go; every wait registers a
// fresh node. Waiting is the slow path, so the allocation does not matter.
type waiter struct {
	next *waiter
	w    waker
	// claimed decides between the setter (which then wakes w) and the
	// waiter itself cancelling its wait because it saw the event set.
	// Exactly one of them wins, so a carrier is never made resumable
	// twice, nor after it stopped waiting.
	claimed atomic.Bool
}

// A waker is what a waiter node wakes once its setter has claimed it.
type waker interface{ wake() }

// Event is something a task can wait for with Worker.WaitFor, or a
// goroutine outside the pool with Pool.wait: a *Latch, or a Group's end.
// The interface is sealed; the waiting protocol is private to this package
// (see carrier.md).
type Event interface {
	// IsSet reports whether the event has happened. Once it reports
	// true, everything written before the event was set is visible.
	IsSet() bool

	// addWaiter registers n to be signalled when the event happens. It
	// reports false, and does not register n, if it can already tell the
	// event has happened. Callers re-check IsSet after registering.
	addWaiter(n *waiter) bool
}

// chanWaker wakes a goroutine outside the pool (Pool.wait) with a token on
// a channel of capacity 1. A token already there means a wake-up is pending
// anyway; such waiters re-check their event, so extra tokens are harmless.
type chanWaker chan struct{}

func (ch chanWaker) wake() {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// signal wakes the node's goroutine without blocking, unless the waiter
// has cancelled its wait (C3: exactly one of the setter and the waiter
// wins the node).
func (n *waiter) signal() {
	if n.claim() {
		n.w.wake()
	}
}

// claim reports whether the caller won the node (see claimed).
func (n *waiter) claim() bool { return n.claimed.CompareAndSwap(false, true) }

// latchSet is the sentinel head of a set latch's waiter list.
var latchSet waiter

// Latch is a one-shot completion flag: it starts unset and is set once.
// Setting it wakes every goroutine sleeping on it. The zero value is an
// unset latch; a Latch must not be copied after first use.
type Latch struct {
	// head is nil (unset, nobody sleeping), &latchSet (set), or the most
	// recent waiter node of an unset latch.
	head atomic.Pointer[waiter]
}

// IsSet reports whether Set has been called.
func (l *Latch) IsSet() bool {
	// A plain load suffices for the fast path; it is sequentially
	// consistent, so it also orders the waiter's later reads of the
	// task's result after the setter's writes (Set's Swap releases them).
	return l.head.Load() == &latchSet
}

// Set sets the latch and wakes all goroutines sleeping on it. Calling it
// again has no effect.
func (l *Latch) Set() {
	// The Swap publishes everything written before Set (a result, a
	// captured panic) to any goroutine that later observes the latch set,
	// and atomically takes the list of sleepers registered so far. A
	// waiter that registers after the Swap finds the sentinel and does
	// not sleep.
	old := l.head.Swap(&latchSet)
	for n := old; n != nil && n != &latchSet; n = n.next {
		n.signal()
	}
}

// rearm makes a set latch unset again, for reuse. Nobody may be waiting on
// it or still setting it: the caller must own it exclusively (for example
// after observing it set, as the only goroutine that waits on it).
func (l *Latch) rearm() { l.head.Store(nil) }

func (l *Latch) addWaiter(n *waiter) bool {
	for {
		old := l.head.Load()
		if old == &latchSet {
			return false
		}
		n.next = old // n is not yet visible to anyone: a plain write is fine
		// Sequentially consistent CAS: either it lands before Set's
		// Swap (which then returns a list containing n and signals it),
		// or it fails against the sentinel and we see the latch set.
		if l.head.CompareAndSwap(old, n) {
			return true
		}
	}
}

// WaitFor returns once e is set. It must be called by the task running on
// w. If e is not set after a brief spin, the task parks: its goroutine
// blocks, with the task's frames on it, and w carries on running other
// tasks (its own deque's, then injected and stolen ones) on another
// goroutine. When e is set, the task becomes resumable and continues as
// soon as that goroutine reaches a point where it can hand w back (between
// tasks, or when it parks in turn). The worker thus never blocks while
// there is work, and no task ever runs on top of a waiting one, which is
// what makes any acyclic graph of joins deadlock-free (see carrier.md).
//
// Not inlined: its callers' code stays what it was before wait took
// count, and the extra call is on the path that parks.
//
//go:noinline
func (w *Worker) WaitFor(e Event) {
	if debugChecks {
		w.mustHold("wait")
	}
	for i := 0; !e.IsSet(); i++ {
		if i < waitSpins {
			// Most waits at the leaves of a computation end within
			// a microsecond or two; parking costs about as much. Spin
			// on the event's load: runtime.Gosched would take the Go
			// scheduler's global lock and queue us on its global run
			// queue, every time.
			continue
		}
		// C1 (carrier.md): register, then re-check. If e is set,
		// cancel the node, unless its setter claimed it first: then c
		// is (or is about to be) on the resumable list (C3) and must go
		// through the hand-off.
		c := w.cur
		n := &waiter{w: c}
		if !e.addWaiter(n) {
			return // a latch, set meanwhile
		}
		if e.IsSet() && n.claim() {
			return
		}
		// C2: hand the worker off and park until C4 hands it back.
		s := w.scope           // other carriers run other tasks meanwhile
		w.counts[countParks]++ // here, not in handOff: sections hand off too
		w.parked.Add(1)
		w.handOff(c, false)
		w.unpark(c)
		w.scope = s
	}
	raceHandOff(w) // stall.md, Y6: the program's code runs next
}

// waitSpins is the number of loads of the event WaitFor makes before it
// parks: about a microsecond.
const waitSpins = 512
