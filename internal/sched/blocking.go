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
//	B1  The section finds its worker with Current: the calling goroutine
//	    is a task of some pool only if it holds one of its workers
//	    (identity.go). If it holds none (a goroutine outside every pool,
//	    or code already inside a section, whose carrier gave its worker
//	    away) the section just calls f.
//	B2  It takes a slot of the pool's cap (blockingSlots): at most
//	    MaxBlocking tasks run a section's f at once. Past the cap it waits
//	    for a slot holding its worker, as a blocking call without a
//	    section would; only slots make the number of carrier goroutines
//	    that sections create bounded.
//	B3  It hands the worker off as a parking WaitFor does (C2): to a
//	    resumable carrier, a spare or a new one, after unregistering from
//	    the holders table (I3). From then on the goroutine holds no worker:
//	    calls on a *Pool made in f behave as from outside, a nested section
//	    just calls f (B1), and the task's *Worker used in f fails the
//	    misuse check (debug.go).
//	B4  It runs f on its own goroutine, with nothing of the worker's
//	    touched: the task's frames below stay where they are, as a parked
//	    join's do.
//	B5  However f ends (it returns, panics, or calls runtime.Goexit) a
//	    deferred call gives the slot back, makes the carrier resumable on
//	    the same worker (C3, with itself as the setter) and waits for its
//	    turn (C4), then restores what the task's code expects of the
//	    worker (its Region). A panic or a Goexit then goes on unwinding
//	    from where it was, unchanged: nothing recovers it here, so the
//	    task's own capture sees exactly what f raised.
//
// Why it cannot deadlock where a parked join cannot: between B3 and B5 the
// worker has a holder, which runs its deque, the injector and stolen work
// (the task's own unjoined forks included, which is why a section fixes a
// producer and consumer forked on one worker); B5 is C3 and C4, so the
// task gets its worker back at the holder's next safe point. The only new
// wait is B2's, for a slot, which the cap documents.
//
// The slot is given back when f returns, not when the task has its worker
// again: a section waiting for a slot holds its worker, and a task whose f
// has returned may be waiting for that very worker. The goroutines stay
// bounded all the same: on one worker, the resumable carriers (sections
// whose f returned, joins whose event is set) plus the sections in f
// grow at an entry only if no carrier was resumable (a hand-off gives the
// worker to a resumable one first), and that entry leaves at most the
// cap's worth in f; joins add only the carriers they park anyway
// (carrier.md, Costs).
//
// Costs: a section that does not block costs two goroutine switches (the
// hand-off, and the hand-back at the new holder's first safe point), two
// locked sections of the worker's hmu and a CAS on the pool's slot count:
// 0.47 to 0.54 µs on the development machine, no allocation
// (BenchmarkBlockingEmpty), the price of a parked join without its spin.

// Blocking runs f as a blocking section of the task the calling goroutine
// runs, of any pool (B1-B5); see pool.Blocking, which documents it for
// users. Outside every task it just calls f.
func Blocking(f func()) {
	if w := current(); w != nil {
		w.blocking(f)
		return
	}
	f()
}

// blocking is B2-B5 for the task running on w. The calling goroutine
// holds w.
func (w *Worker) blocking(f func()) {
	p := w.pool
	p.slots.acquire() // B2
	c := w.cur
	s := w.scope
	w.handOff(c) // B3
	defer func() {
		// B5. Deferred, so that it runs however f ends; it recovers
		// nothing, so a panic or a Goexit unwinds on from here.
		p.slots.release()
		w.resume(c)
		c.awaitTurn()
		w.setHolder(c)
		w.scope = s
	}()
	f() // B4
}

// defaultMaxBlocking is the cap on sections (Config.MaxBlocking) of a pool
// of n workers that sets none: 64 per worker, and at least 256. A section
// blocked in f keeps a goroutine (a few kilobytes of stack at least); the
// cap keeps that memory bounded while leaving room for the usual case of
// many more blocked calls than cores.
func defaultMaxBlocking(workers int) int { return max(256, 64*workers) }

// blockingSlots is a pool's cap on tasks inside a section's f at once
// (B2): a counting semaphore whose fast path is one CAS, and whose slow
// path, past the cap, waits on a condition variable.
type blockingSlots struct {
	n     atomic.Int64 // slots taken: tasks in a section's f now
	most  atomic.Int64 // the most n has been
	limit int64
	// waiting counts goroutines in the slow path. release loads it after
	// its decrement, and wait increments it before its re-check of n,
	// both sequentially consistent: a release that sees no waiter comes
	// before the waiter's re-check, which then sees the slot free.
	waiting atomic.Int32
	mu      sync.Mutex
	free    sync.Cond // signalled (under mu) when a slot is given back
}

func (b *blockingSlots) init(limit int) {
	if limit < 1 {
		panic(fmt.Sprintf("pool: a cap of %d blocking sections: must be at least 1", limit))
	}
	b.limit = int64(limit)
	b.free.L = &b.mu
}

// acquire takes a slot, waiting for one past the cap.
func (b *blockingSlots) acquire() {
	for {
		n := b.n.Load()
		if n >= b.limit {
			b.wait()
			continue
		}
		if b.n.CompareAndSwap(n, n+1) {
			for m := b.most.Load(); n+1 > m && !b.most.CompareAndSwap(m, n+1); m = b.most.Load() {
			}
			return
		}
	}
}

// wait returns once a slot looks free; acquire then tries to take it, and
// comes back here if another section took it first.
func (b *blockingSlots) wait() {
	b.mu.Lock()
	b.waiting.Add(1)
	for b.n.Load() >= b.limit {
		b.free.Wait()
	}
	b.waiting.Add(-1)
	b.mu.Unlock()
}

// release gives a slot back and wakes a waiter, if any. Each release
// wakes one: a waiter that loses the slot to another acquirer waits again,
// and that acquirer's release wakes the next.
func (b *blockingSlots) release() {
	b.n.Add(-1)
	if b.waiting.Load() != 0 {
		b.mu.Lock()
		b.free.Signal()
		b.mu.Unlock()
	}
}

// blockingStats returns the number of tasks inside a section's f now and
// the most there have been at once since the pool started (Snapshot).
func (p *Pool) blockingStats() (now, most uint64) {
	return uint64(max(0, p.slots.n.Load())), uint64(p.slots.most.Load())
}

// maxBlocking returns the pool's cap on sections (Config.MaxBlocking).
func (p *Pool) maxBlocking() int { return int(p.slots.limit) }
