package sched

import (
	"context"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/forkjoin/fj/internal/wsdeque"
)

// Worker is one of a pool's workers, as seen by the task it is running: a
// deque of tasks and the goroutine that runs them. (When a task has to wait
// for another, its goroutine parks and another one carries the worker on,
// see carrier.md; a worker is always run by one goroutine at a time.)
// Every task receives the *Worker it runs on; pass it on to fork more work
// (forkjoin.Fork, forkjoin.Join, a nested taskblock.Define or parallel
// call), so that the work lands on this worker's deque instead of blocking
// it.
//
// A *Worker belongs to the task it was handed to: it must not be used from
// another goroutine, nor after that task has returned. Its methods are not
// safe for concurrent use.
type Worker struct {
	// Fixed at creation and read by other workers (thieves read dq,
	// wakers use wake): kept apart from the owner's hot fields so that a
	// searching thief does not pull the owner's cache line away on every
	// fork. layout_test.go checks the offsets.
	pool *Pool
	dq   *wsdeque.Deque[Task]
	wake chan struct{} // capacity 1; the holder parks on it when idle
	id   int
	_    [cacheLine - 32]byte

	// Owner-only state: touched only by the carrier holding the worker
	// (see carrier.go), written on every fork or task.
	rng        uint64        // xorshift state for victim selection
	lastVictim int           // worker index of the last successful steal, or -1
	tick       uint32        // counts lookups, for the periodic injector check
	debugTick  atomic.Uint32 // forks and joins of the current task, for the debug checks (debug.go)
	searching  bool          // holds a unit of the searching count (sleep.md, U1)
	cur        *carrier      // the carrier holding the worker
	scope      *scope        // the Region of the task running, or nil
	c          counters
	// inProgress counts the main-loop tasks started on w and not finished,
	// parked ones included. Only w's holders write it (one at a time, the
	// hand-offs order them), once before and once after each main-loop
	// task: a write to a line the owner has anyway, instead of to a
	// pool-global counter. Close (quiescent) and Caller sum it over the
	// workers.
	inProgress atomic.Int64
	_          [cacheLine - 48 - unsafe.Sizeof(counters{}) - 8]byte

	// sleepState is the worker's sleep state (awake, asleep, claimed; see
	// sleep.go), written by the worker and by wakers claiming it, on the
	// sleep and wake paths only: on a line of its own, so that neither
	// the owner's hot fields nor the thieves' reads above share it.
	sleepState atomic.Uint32
	// wakeDepth is the length of the chain of wake-ups that led to the
	// worker's first one (see recordWakeDepth), written by its waker.
	wakeDepth atomic.Uint32
	_         [cacheLine - 8]byte

	// Touched rarely, by other goroutines too.
	pub        publishedCounters // written by the owner, read by Stats
	spill      []*Task           // owner only: overflow's batch, max(1, cap/2) long
	pull       []*Task           // owner only: popInjector's batch, max(1, cap/2) long
	parked     atomic.Int64      // tasks of w parked now (Stats gauge), written by the holder
	nResumable atomic.Int32      // len(resumable), readable without hmu
	hmu        sync.Mutex        // protects the carriers fields
	carriers
	holder     atomic.Int64    // goroutine id of the holding carrier (see setHolder)
	labels     context.Context // profiler labels of its carriers: pool name, worker id
	regionName string          // its trace region while tracing: pool name, worker id
	// A whole number of lines, so that the next object on the heap does
	// not share the last one (layout_test.go).
	_ [32]byte
}

// ID returns the worker's index, 0 to Workers()-1.
func (w *Worker) ID() int { return w.id }

// Pool returns the pool w belongs to.
func (w *Worker) Pool() *Pool { return w.pool }

// Run calls f(w) on the calling goroutine, which must be the one running
// w's current task. A panic in f is re-raised as a *PanicError, as it
// would be had f run on another worker; a runtime.Goexit in f unwinds on,
// and the enclosing task reports it.
func (w *Worker) Run(f func(w *Worker)) {
	if pe := Protect(func() { f(w) }); pe != nil {
		panic(pe)
	}
}

// injectorEvery is how often (in task lookups) a worker looks at the
// injector before its own deque, so that work submitted from outside
// cannot starve behind a worker that always has local work.
const injectorEvery = 61

// Spawn schedules t on w's deque, or on the pool's injector if the deque is
// full, and wakes a sleeping worker if no worker is searching for work.
// Only the goroutine running w's current task may call it.
func (w *Worker) Spawn(t *Task) {
	if debugChecks {
		w.checkHolderSampled("fork")
	}
	if t.scope != w.scope {
		// Usually both are nil, or the same Region's: a recycled task
		// keeps its scope, and skipping the store skips its write
		// barrier while the GC runs, which fine-grained forking keeps
		// busy.
		t.scope = w.scope
	}
	if !w.dq.Push(t) {
		w.overflow(t)
	}
	w.dq.Publish()
	// P2, as in Pool.notify, written out so that the common case costs no
	// call.
	if c := w.pool.ctl.Load(); c != 0 && uint32(c)&searchingMask == 0 {
		w.pool.notifySlow(w)
	}
}

// overflow handles a fork that found w's deque full: it moves the oldest
// half of the deque to the injector in one batch (one CAS on the deque's
// top, one locked push), as the Go runtime's runqputslow does, and pushes
// t where they were. A full deque thus costs one locked operation per
// half a deque of forks, not one per fork, and the oldest, largest pieces
// become visible to every worker. The moved tasks are marked spilled
// before the injector publishes them: their owner's joins can still claim
// them back (see TakeBack), and they are never reused (see Reuse). A deque
// of capacity 1 has no half to move: t itself goes to the injector.
func (w *Worker) overflow(t *Task) {
	if w.spill == nil {
		w.spill = make([]*Task, max(1, w.dq.Cap()/2))
	}
	w.dq.Publish() // TakeOldest moves published items only
	k := w.dq.TakeOldest(w.spill)
	batch := w.spill[:k]
	for _, x := range batch {
		x.spilled = true
	}
	if k == 0 || !w.dq.Push(t) {
		t.spilled = true
		batch = append(batch, t) // k == 0 here: within w.spill
	}
	w.c.Overflows += uint64(len(batch))
	w.pool.inj.pushBatch(uint32(w.id), batch)
	clear(batch) // do not keep the tasks reachable from here
}

// TakeBack pops the task at the bottom of w's deque and reports whether it
// is t; the caller then runs t itself, inline. If the bottom task is
// another one (forked after t and not joined), TakeBack puts it back and
// reports false, as it does if t is no longer on the deque (stolen, or
// taken back already). A task that Spawn put on the injector because the
// deque was full is taken back if nobody has started it. When TakeBack
// reports false, the caller waits for t's completion with WaitFor.
//
// TakeBack never runs anything but t on the caller's stack: a task run
// there could wait for the caller, which could not resume until that task
// returned (see carrier.md). Because the deque is LIFO for its owner, a
// task forked just before a piece of work that joined all its own forks is
// at the bottom, so the fast path is one pop. t must have been spawned by w.
func (w *Worker) TakeBack(t *Task) bool {
	if t.spilled {
		// It overflowed to the injector: whoever claims it runs it.
		// Taking it back here keeps a full deque from turning every
		// join into a park.
		if t.claimed.CompareAndSwap(false, true) {
			// Ours. Drop its entry too if it is still the newest of
			// the bucket Spawn put it in (it usually is: joins come
			// back in reverse order of forks); an older one is
			// skipped when popped.
			if w.pool.inj.removeLast(uint32(w.id), t) {
				w.c.InjectorPops++
			}
			w.c.Executed++
			return true
		}
		return false
	}
	x := w.dq.Pop()
	if x == t {
		w.c.Executed++
		return true
	}
	if x != nil {
		w.putBack(x)
	}
	return false
}

// putBack returns a task that the owner popped but may not run to the
// bottom of the deque. It cannot fail: the pop made room. (If TakeBack's
// task overflowed to the injector, was stolen or was taken back already,
// this is whatever is at the bottom now, an older task included; it goes
// back untouched.)
func (w *Worker) putBack(x *Task) {
	w.dq.Push(x)
	w.dq.Publish()
}

// TakeBackUntil pops tasks from the bottom of w's deque and runs them
// inline until e is set, as long as keep reports true for them; it puts
// back the first task it would not run, and returns when the deque is
// empty. It is TakeBack for a set of awaited tasks, such as a task block's:
// keep must report true only for tasks whose completion e waits for, since
// only those are sure not to wait for the caller in turn.
func (w *Worker) TakeBackUntil(e Event, keep func(r Runnable) bool) {
	for !e.IsSet() {
		x := w.dq.Pop()
		if x == nil {
			return
		}
		if !keep(x.r) {
			w.putBack(x)
			return
		}
		w.execute(x)
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
func (w *Worker) WaitFor(e Event) {
	if debugChecks {
		w.checkHolderSampled("join")
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
		c := w.cur
		n := &waiter{w: c}
		if !e.addWaiter(n) {
			return // a latch, set meanwhile
		}
		// Re-check after registering. If e is set, cancel the node,
		// unless its setter claimed it first: then c is (or is about to
		// be) on the resumable list and must go through the hand-off.
		if e.IsSet() && n.claim() {
			return
		}
		s := w.scope // other carriers run other tasks meanwhile
		w.parked.Add(1)
		w.handOff(c)
		c.awaitTurn()
		w.setHolder(c)
		w.parked.Add(-1)
		w.scope = s
	}
}

// waitSpins is the number of loads of the event WaitFor makes before it
// parks: about a microsecond.
const waitSpins = 512

// execute runs t on w, unless it is a spilled task its owner took back.
func (w *Worker) execute(t *Task) {
	if t.spilled && !t.claimed.CompareAndSwap(false, true) {
		return
	}
	w.c.Executed++
	if w.c.Executed%4096 == 0 {
		w.publish()
	}

	if s := t.scope; s != w.scope {
		// The task belongs to another Region than the code running it
		// here (or to none): switch for its duration.
		prev := w.scope
		w.scope = s
		w.runScoped(s, prev, t)
		w.scope = prev
		return
	}
	t.r.Run(w)
}

// search is the holder's idle sub-machine (sleep.md: searching, waiting,
// sleepy, asleep): it looks for work in the injector and other workers'
// deques, and sleeps when it finds none. It returns a task to run (with
// running), or nil with the state the holder goes to next: handingOff when
// a parked task of w's has become resumable, exiting when the pool has
// shut down and no work is left.
func (w *Worker) search() (*Task, holderState) {
	p := w.pool
	w.publish()
	look := false // whether to make a pass even when not searching
	for {
		w.startSearching()
		if w.searching {
			if t := w.searchPasses(); t != nil {
				w.stopSearching(true)
				return t, running
			}
		} else {
			// Searchers are at their cap: leave the deques to them.
			// The injector is cheap to look at, and a cancelled sleep
			// (S2 saw work) deserves one look everywhere.
			if t := w.popInjector(); t != nil {
				return t, running
			}
			if look {
				if t := w.steal(); t != nil {
					return t, running
				}
			}
		}
		if w.resumePending() {
			w.stopSearching(false)
			return nil, handingOff
		}
		if p.closed.Load() && p.quiescent() {
			w.stopSearching(false)
			return nil, exiting
		}
		look = w.sleep()
	}
}

// searchRounds bounds a searcher's passes over the queues per search: the
// first at once, the others only when a publisher has announced new work
// meanwhile (awaitNews). A pass probes each of the n-1 other deques once,
// so a search makes at most searchRounds×(n-1) failed steal attempts, and
// an idle episode (search, then sleep) is O(n), like the Go scheduler's
// four passes over the other Ps.
const searchRounds = 4

// searchPasses makes up to searchRounds passes over the injector and the
// other workers' deques. It returns nil when they found nothing, or when a
// parked task of w's has become resumable.
func (w *Worker) searchPasses() *Task {
	for r := 0; ; r++ {
		if w.resumePending() {
			return nil
		}
		if t := w.findWork(); t != nil {
			return t
		}
		if r+1 == searchRounds || !w.awaitNews() {
			return nil
		}
	}
}

// awaitNews is step N1: w, a searcher that found nothing, moves its unit
// from the searching count to the waiting count and spins on loads of
// pool.news until a publisher bumps it (P3: a publisher that sees nobody
// searching and somebody waiting does), for about a microsecond or two;
// then it moves back to searching. It reports whether news came, or a
// parked task became resumable, meanwhile. While a searcher waits, the
// first publisher pays one atomic add (P3) instead of nothing; while one
// searches, publishers pay nothing.
func (w *Worker) awaitNews() bool {
	p := w.pool
	// Read the epoch before registering, so that news that follows the
	// registration is seen.
	e := p.news.Load()
	p.ctl.Add(searchingToWaiting)
	got := false
	for i := 1; i <= newsSpins; i++ {
		if p.news.Load() != e || (i%64 == 0 && w.resumePending()) {
			got = true
			break
		}
	}
	p.ctl.Add(waitingToSearching)
	return got
}

// newsSpins is the number of loads of pool.news awaitNews makes: a
// microsecond or two, about what waking a parked worker costs the waker.
const newsSpins = 2048

// findWork makes one pass over the injector and the other workers' deques.
func (w *Worker) findWork() *Task {
	if t := w.popInjector(); t != nil {
		return t
	}
	return w.steal()
}

// popInjector takes a task from the injector for w, whose deque is empty,
// rotating the first bucket so that no bucket is always looked at last.
// It takes a batch when the bucket holds more (up to half of it, and of
// w's deque, see popBatch) and pushes the rest on w's deque, where w runs
// them next and other workers can steal them, instead of taking the
// bucket's lock once per task.
func (w *Worker) popInjector() *Task {
	if w.pull == nil {
		w.pull = make([]*Task, max(1, w.dq.Cap()/2))
	}
	room := max(1, min(len(w.pull), w.dq.Cap()-w.dq.Count()))
	k := w.pool.inj.popBatch(uint32(w.id)+w.tick, w.pull[:room])
	if k == 0 {
		return nil
	}
	w.c.InjectorPops += uint64(k)
	t := w.pull[0]
	if k > 1 {
		for _, x := range w.pull[1:k] {
			if !w.dq.Push(x) {
				// Not expected (only thieves touch the deque, and
				// they make room): give it back rather than lose it.
				w.c.InjectorPops--
				w.pool.inj.push(uint32(w.id), x)
			}
		}
		w.dq.Publish()
		// P1 was the pushes: publish them to sleepers (P2).
		w.pool.notify(w)
	}
	clear(w.pull[:k])
	return t
}

// steal tries every other worker's deque once, the last victim that paid
// off first and then the others from a random starting point.
func (w *Worker) steal() *Task {
	ws := w.pool.workers
	n := len(ws)
	if n == 1 {
		return nil
	}
	if v := w.lastVictim; v >= 0 {
		if t := ws[v].dq.Steal(); t != nil {
			w.c.Steals++
			return t
		}
		w.c.FailedSteals++
	}
	start := int(w.random() % uint64(n))
	for i := 0; i < n; i++ {
		v := start + i
		if v >= n {
			v -= n
		}
		if v == w.id || v == w.lastVictim {
			continue
		}
		if t := ws[v].dq.Steal(); t != nil {
			w.lastVictim = v
			w.c.Steals++
			return t
		}
		w.c.FailedSteals++
	}
	return nil
}

// random returns the next value of w's xorshift64* generator.
func (w *Worker) random() uint64 {
	x := w.rng
	x ^= x >> 12
	x ^= x << 25
	x ^= x >> 27
	w.rng = x
	return x * 2685821657736338717
}

// Queued returns the number of tasks in w's deque: a snapshot, for tests
// that bound how much work a computation keeps queued.
func (w *Worker) Queued() int { return w.dq.Len() }
