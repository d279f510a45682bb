package sched

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// Blocking sections (managed blocking): a task that must block (I/O, a
// lock, a channel) wraps the call in a section, and its worker goes on
// with other tasks on another carrier meanwhile, exactly as while a join
// is parked (carrier.md). Java's ForkJoinPool.managedBlock and the Go
// runtime's hand-off of a P around a system call are the models. The
// steps, cited in the code:
//
//	B1  The section finds its worker with current: the calling goroutine
//	    is a task of some pool only if it holds one of its workers
//	    (identity.go). If it holds none (a goroutine outside every pool,
//	    or code already inside a section, whose carrier gave its worker
//	    away) the section just calls f.
//	B2  It hands the worker off as a parking WaitFor does (C2): to a
//	    resumable carrier, an idle one or a new one, after unregistering from
//	    the holders table (I3), and it enters itself in the worker's list
//	    of sections (I6) in the same locked step. From then on the
//	    goroutine holds no worker: calls on a *Pool made in f behave as
//	    from outside, a nested section just calls f (B1), and the task's
//	    *Worker used in f, Close of the pool and Block.Wait fail their
//	    checks with a message that names the section (I6). The hand-off
//	    comes first, before anything that may wait: a section never holds
//	    its worker while it waits, so ready work (the task's own forks
//	    included) never waits behind it.
//	B3  If the pool caps sections (Config.MaxBlocking) and this is a
//	    user's section, it takes a slot of the cap (blockingSlots),
//	    waiting for one off-worker, on its own goroutine, as errgroup's Go
//	    waits past SetLimit. Waits that fj makes itself on another pool
//	    (await: a task calling another pool) take no slot: they are joins,
//	    and a join is never capped, so a chain of calls A→B→A… completes
//	    whatever the caps.
//	B4  It runs f on its own goroutine, with nothing of the worker's
//	    touched: the task's frames below stay where they are, as a parked
//	    join's do.
//	B5  However f ends (it returns, panics, or calls runtime.Goexit) a
//	    deferred call gives the slot back (if B3 took one), leaves the
//	    list of sections and makes the carrier resumable on the same
//	    worker in one locked step (C3, with itself as the setter), waits
//	    for its turn (C4), then restores what the task's code expects of
//	    the worker (its Region). A panic or a Goexit then goes on unwinding
//	    from where it was, unchanged: nothing recovers it here, so the
//	    task's own capture sees exactly what f raised.
//
// Why it cannot deadlock where a parked join cannot: between B2 and B5 the
// worker has a holder, which runs its deque, the injector and stolen work
// (the task's own unjoined forks included, which is why a section fixes a
// producer and consumer forked on one worker); B5 is C3 and C4, so the
// task gets its worker back at the holder's next safe point. The only new
// wait is B3's, for a slot, and it holds no worker: a section in f
// releases its slot when f returns, whatever the workers do, so the
// sections waiting for slots wait only for the sections in f, which is
// the program's own dependency (as with errgroup's SetLimit). Without a
// cap (the default) there is no such wait at all: every shape that
// goroutines complete (barriers of any size, hand-off chains, bodies
// waiting on a context that a later item cancels) completes.
//
// Costs: a section that does not block costs two goroutine switches (the
// hand-off, and the hand-back at the new holder's first safe point), two
// locked sections of the worker's hmu (which also keep the list of I6)
// and two atomic adds on the pool's gauge (three with a cap): about
// 0.5 µs on the development machine, no allocation once the worker's
// lists have grown (BenchmarkBlockingEmpty), the price of a parked join
// without its spin. A task in a section keeps its goroutine, as a task in
// errgroup does; Stats shows how many there are.

// sectionGauge counts a pool's tasks inside a section's f, and caps the
// user's sections if the pool has a cap (B3): a counting semaphore whose
// fast path is one CAS, and whose slow path, past the cap, waits on a
// condition variable on the section's own goroutine, which holds no
// worker (B2).
type sectionGauge struct {
	in   atomic.Int64 // tasks in a section's f now (Stats.Blocking)
	most atomic.Int64 // the most in has been
	// limit is the cap (0: none), and taken the slots taken: user
	// sections in f.
	limit int64
	taken atomic.Int64
	// waiting counts goroutines in the slow path. release loads it after
	// its decrement, and wait increments it before its re-check of
	// taken, both sequentially consistent: a release that sees no waiter
	// comes before the waiter's re-check, which then sees the slot free.
	waiting atomic.Int32
	mu      sync.Mutex
	free    sync.Cond // signalled (under mu) when a slot is given back
}

// Blocking runs f as a blocking section of the task the calling goroutine
// runs, of any pool (B1-B5); see pool.Blocking, which documents it for
// users. Outside every task it just calls f.
func Blocking(f func()) {
	if w := current(); w != nil {
		w.blocking(f, true)
		return
	}
	f()
}

// await is Blocking for fj's own waits on p from outside it (a task of
// another pool calling p: callOutside): a join, which takes no slot of
// the pool's cap (B3). The caller holds none of p's workers (pool.Enter
// looked), so only the other pools are looked up.
func (p *Pool) await(f func()) {
	if w := currentExcept(p); w != nil {
		w.blocking(f, false)
		return
	}
	f()
}

// blocking is B2-B5 for the task running on w; capped says whether the
// section counts against the pool's cap (B3). The calling goroutine holds
// w.
func (w *Worker) blocking(f func(), capped bool) {
	p := w.pool
	c := w.cur
	s := w.scope
	c.entered++
	w.handOff(c, true) // B2
	slot := capped && p.sections.limit != 0
	p.sections.enter(slot) // B3: cannot fail, so the deferred call below balances it
	defer func() {
		// B5. Deferred, so that it runs however f ends; it recovers
		// nothing, so a panic or a Goexit unwinds on from here.
		p.sections.leave(slot)
		w.remote().resumeSection(c) // as a goroutine holding no worker
		c.awaitTurn()
		w.setHolder(c)
		w.scope = s
		raceHandOff(w) // stall.md, Y6: the program's code runs next
	}()
	f() // B4
}

// Sections returns how many blocking sections the calling goroutine, the
// carrier holding w, has entered. A loop compares it before and after a
// body to learn that the body blocked in a section (a task that the body
// ran inline included, but no task that w ran on another carrier while
// the body waited in a join: that one's carrier counts it): the loop's
// rest, held on the body's goroutine meanwhile, is then split a task per
// piece of its grain, so that later bodies that block wait together
// (parallel/split.go). Only the goroutine holding w may call it.
func (w *Worker) Sections() uint32 {
	w.mustOwn()
	return w.cur.entered
}

func (g *sectionGauge) init(limit int) {
	if limit < 0 {
		panic(fmt.Sprintf("pool: a cap of %d blocking sections: must be at least 1, or 0 for none", limit))
	}
	g.limit = int64(limit)
	g.free.L = &g.mu
}

// enter counts a task entering f, after taking a slot if slot is set (B3).
func (g *sectionGauge) enter(slot bool) {
	if slot {
		g.acquire()
	}
	n := g.in.Add(1)
	for m := g.most.Load(); n > m && !g.most.CompareAndSwap(m, n); m = g.most.Load() {
	}
}

// leave counts a task leaving f, and gives its slot back if it took one.
func (g *sectionGauge) leave(slot bool) {
	g.in.Add(-1)
	if slot {
		g.release()
	}
}

// acquire takes a slot, waiting for one past the cap.
func (g *sectionGauge) acquire() {
	for {
		n := g.taken.Load()
		if n >= g.limit {
			g.wait()
			continue
		}
		if g.taken.CompareAndSwap(n, n+1) {
			return
		}
	}
}

// wait returns once a slot looks free; acquire then tries to take it, and
// comes back here if another section took it first.
func (g *sectionGauge) wait() {
	g.mu.Lock()
	g.waiting.Add(1)
	for g.taken.Load() >= g.limit {
		g.free.Wait()
	}
	g.waiting.Add(-1)
	g.mu.Unlock()
}

// release gives a slot back and wakes a waiter, if any. Each release
// wakes one: a waiter that loses the slot to another acquirer waits again,
// and that acquirer's release wakes the next.
func (g *sectionGauge) release() {
	g.taken.Add(-1)
	if g.waiting.Load() != 0 {
		g.mu.Lock()
		g.free.Signal()
		g.mu.Unlock()
	}
}

// maxBlocking returns the pool's cap on sections (Config.MaxBlocking), 0
// for none.
func (p *Pool) maxBlocking() int { return int(p.sections.limit) }
