package pool

import (
	"runtime"
	"sync/atomic"

	"github.com/forkjoin/fj/deque"
)

// Worker is one of a pool's worker goroutines, as seen by the task it is
// running. Every task receives the *Worker it runs on; pass it on to fork
// more work (forkjoin.Fork, forkjoin.Join, a nested taskblock.Define or
// parallel call), so that the work lands on this worker's deque instead of
// blocking it.
//
// A *Worker belongs to the task it was handed to: it must not be used from
// another goroutine, nor after that task has returned. Its methods are not
// safe for concurrent use.
type Worker struct {
	// Fixed at creation and read by other workers (thieves read dq,
	// wakers use wake): kept apart from the owner's hot fields so that a
	// searching thief does not pull the owner's cache line away on every
	// fork.
	pool *Pool
	dq   *deque.Deque[Task]
	wake chan struct{} // capacity 1; the worker parks on it when idle
	id   int
	_    [cacheLine - 32]byte

	// Owner-only state, written on every fork or task.
	rng        uint64 // xorshift state for victim selection
	lastVictim int    // worker index of the last successful steal, or -1
	tick       uint32 // counts lookups, for the periodic injector check
	searching  bool   // counted in the searching half of pool.ctl
	goexiting  bool   // a task on this goroutine called runtime.Goexit; see Capture
	c          counters
	_          [cacheLine - 24 - 56]byte

	// Touched rarely, by other goroutines too.
	pub     publishedCounters // written by the owner, read by Stats
	idleIdx int               // w's index in pool.idle, or -1; under pool.mu
	spilled atomic.Uint64     // tasks w put on the injector; see Departures
}

// ID returns the worker's index, 0 to Workers()-1.
func (w *Worker) ID() int { return w.id }

// Pool returns the pool w belongs to.
func (w *Worker) Pool() *Pool { return w.pool }

func (w *Worker) runner() {}

// Run calls f(w) on the calling goroutine, which must be the one running
// w's current task. A panic in f is re-raised as a *PanicError, as it
// would be had f run on another worker.
func (w *Worker) Run(f func(w *Worker)) {
	if w == nil {
		panic("pool: Run on a nil *Worker")
	}
	if f == nil {
		panic("pool: Run with a nil function")
	}
	returned := false
	defer func() {
		if !returned {
			if r := recover(); r != nil {
				panic(w.Capture(r, false))
			}
			// recover() == nil without returning: runtime.Goexit is
			// unwinding. Let it; the enclosing task reports it.
		}
	}()
	f(w)
	returned = true
}

// injectorEvery is how often (in task lookups) a worker looks at the
// injector before its own deque, so that work submitted from outside
// cannot starve behind a worker that always has local work.
const injectorEvery = 61

// Spawn schedules t on w's deque, or on the pool's injector if the deque is
// full, and wakes a sleeping worker if no worker is searching for work.
// Only the goroutine running w's current task may call it.
func (w *Worker) Spawn(t *Task) {
	if w.dq.Push(t) {
		t.idx = w.dq.Bottom() - 1
	} else {
		t.idx = -1
		w.c.Overflows++
		w.spill(t)
	}
	w.pool.notify()
}

// spill puts a task spawned by w on the injector.
func (w *Worker) spill(t *Task) {
	// Counted before the push, so that whoever runs t observes it (the
	// injector's lock orders the two); see Departures.
	w.spilled.Add(1)
	w.pool.inj.push(uint32(w.id), t)
}

// Departures returns a number that grows whenever work spawned on w may
// have started to run on another goroutine: a steal from w's deque (or a
// pop of its last item, which looks the same), a Spawn that overflowed to
// the injector, an Inject. Any goroutine may call it, and code running on
// another goroutine as a result of such a departure (directly, or through
// further forks) sees the increase.
//
// So if it has not changed since some moment, all the work w spawned since
// then that is running is running on w's goroutine. taskblock uses this to
// decide, without knowing which goroutine calls it, whether a caller of
// Block.Run may push onto the block's worker's deque.
func (w *Worker) Departures() uint64 {
	return uint64(w.dq.Top()) + w.spilled.Load()
}

// Inject queues t on the pool's injector instead of w's deque, and wakes a
// worker if none is searching. Unlike Spawn it may be called from any
// goroutine, as long as w's current task (which owns the work) has not
// returned; unlike Pool.Submit it works while the pool is closing, because
// it adds to running work rather than starting new work. Higher layers use
// it when they cannot prove they run on w's goroutine.
func (w *Worker) Inject(t *Task) {
	w.spill(t)
	w.pool.notify()
}

// TakeBack pops tasks from the bottom of w's deque until it pops t, and
// reports whether it did; the caller then runs t itself, inline. Tasks
// popped before t (forked after t and not yet joined) are run on the way;
// nothing older than t is ever popped. It reports false if t is no longer
// on the deque: stolen, already run, or put on the injector because the
// deque was full. The caller then waits for t's completion with WaitFor.
//
// Because the deque is LIFO for its owner, a task forked just before a
// piece of work that joined all its own forks is found at the bottom; the
// loop only runs when tasks were forked and left unjoined in between.
// t must have been spawned by w.
func (w *Worker) TakeBack(t *Task) bool {
	// Items at indices above t.idx are younger than t. Once bottom is at
	// or below t.idx, t has left the deque (and whatever occupies its
	// index now, or below it, is not ours to run here).
	for t.idx >= 0 && w.dq.Bottom() > t.idx {
		x := w.dq.Pop()
		if x == t {
			w.c.Executed++
			return true
		}
		if x == nil {
			return false
		}
		w.execute(x)
	}
	return false
}

// WaitFor returns once e is set. Meanwhile it runs tasks: from w's own
// deque first, then from the injector and by stealing, and when it finds
// none it sleeps until either new work appears or e is set. This helping
// wait never blocks the worker while work is available, which is what
// makes joins deadlock-free for any acyclic graph of tasks.
func (w *Worker) WaitFor(e Event) {
	var reg *waiter // our registration on e, made the first time we sleep
	for !e.IsSet() {
		t := w.next(e, &reg)
		if t == nil {
			return // e is set
		}
		w.execute(t)
	}
}

// execute runs t on w.
func (w *Worker) execute(t *Task) {
	w.c.Executed++
	if w.c.Executed%4096 == 0 {
		w.publish()
	}
	t.r.Run(w)
}

// main is the body of the worker goroutine: run tasks until the pool
// shuts down.
func (w *Worker) main() {
	p := w.pool
	exited := false
	defer func() {
		if !exited {
			// A task called runtime.Goexit and its wrapper let the
			// unwinding through (it cannot be stopped). The task has
			// been reported as failed; carry on in a fresh goroutine,
			// which takes over w's deque: everything this goroutine did
			// to it happens before the go statement.
			w.goexiting = false
			p.taskDone()
			go w.main()
		}
	}()
	for {
		t := w.next(nil, nil)
		if t == nil {
			break
		}
		p.active.Add(1)
		w.execute(t)
		p.taskDone()
	}
	w.publish()
	exited = true
	p.exited.Done()
}

// next returns the next task for w: its own deque's newest, except every
// injectorEvery lookups when the injector comes first; otherwise it
// searches. It returns nil only when e (if non-nil) is set, or, for the
// main loop (e == nil), when the pool has shut down and no work is left.
// reg holds the waiter node registered on e, if any (see sleep).
func (w *Worker) next(e Event, reg **waiter) *Task {
	w.tick++
	if w.tick%injectorEvery == 0 {
		if t := w.pool.inj.pop(uint32(w.id) + w.tick); t != nil {
			w.c.InjectorPops++
			return t
		}
	}
	if t := w.dq.Pop(); t != nil {
		return t
	}
	return w.search(e, reg)
}

// search looks for work in the injector and other workers' deques, and
// sleeps when it finds none; see sleep.md for the protocol.
func (w *Worker) search(e Event, reg **waiter) *Task {
	p := w.pool
	w.publish()
	for {
		w.startSearching()
		// A worker that may not search (half the workers already do)
		// makes one pass and goes to sleep, unless it waits for an
		// event: a helping join keeps watching its event (and looking
		// for work) for the full rounds, because parking and being woken
		// costs microseconds, more than most joins wait.
		rounds := 1
		if w.searching || e != nil {
			rounds = p.spinRounds + yieldRounds
		}
		for r := 0; r < rounds; r++ {
			if e != nil && e.IsSet() {
				w.stopSearching(false)
				return nil
			}
			if t := w.findWork(); t != nil {
				w.stopSearching(true)
				return t
			}
			if r >= p.spinRounds {
				runtime.Gosched()
			}
		}
		if e == nil && p.closed.Load() && p.quiescent() {
			w.stopSearching(false)
			return nil // the pool is shutting down and no work is left
		}
		w.sleep(e, reg)
	}
}

// yieldRounds is the number of search rounds, after the spinning ones, that
// end with runtime.Gosched before the worker goes to sleep: a yield is
// cheap when nothing else wants the CPU and lets other goroutines (the
// submitter, often) run when something does.
const yieldRounds = 4

// findWork makes one pass over the injector and the other workers' deques.
func (w *Worker) findWork() *Task {
	p := w.pool
	// Rotate the first bucket, so that no bucket is always looked at last.
	if t := p.inj.pop(uint32(w.id) + w.tick); t != nil {
		w.c.InjectorPops++
		return t
	}
	return w.steal()
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
