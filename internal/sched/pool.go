package sched

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime/pprof"
	"strconv"
)

// A pool's life: New, Close and the calls from outside. The Pool type is
// in types.go, with the Worker and the task.

// New starts a pool configured by cfg.
func New(cfg Config) *Pool {
	cfg.check()
	n := cfg.Workers
	p := &Pool{
		workers: make([]*remote, n),
		name:    cfg.Name,
	}
	p.holders.init(n)
	p.sections.init(cfg.MaxBlocking)
	p.inj.init(min(n, 16))
	for i := range p.workers {
		w := p.newWorker(i, cfg.DequeCapacity)
		// Every worker starts counted as searching (U1, without the
		// cap: it is about to make its first search and sleep), so that
		// ctl is never 0 while a worker is idle (E1 in job.go relies on
		// that). No carrier runs yet: New is its holder until then.
		w.searching = true
		p.workers[i] = w.remote()
	}
	p.ctl.Store(uint64(n) * searchingOne)
	p.initStalls(cfg)
	addPool(p) // before the carriers: heldWorker finds their pool (stall.md, V3)
	for _, w := range p.workers {
		p.startCarrier(w.newCarrier(), true)
	}
	return p
}

// Workers returns the number of workers.
func (p *Pool) Workers() int { return len(p.workers) }

// Name returns the pool's name.
func (p *Pool) Name() string { return p.name }

// Close shuts the pool down: it lets running and queued work finish, then
// stops every worker goroutine and returns. Calling Close again (also
// concurrently) waits for the same shutdown and returns. It panics when
// called from inside one of the pool's own tasks: it would wait for the
// worker running the caller to exit.
func (p *Pool) Close() {
	if p.Caller() != nil {
		panic("pool: Close called from inside a task of the same pool: it waits for every worker to exit, " +
			"including the one running the caller, and would never return; call Close from outside the pool " +
			"(for example with defer right after pool.New)")
	}
	if g := p.stall.handlerG.Load(); g != 0 && g == goid() {
		panic("pool: Close called from the pool's stall handler (WithStallHandler): Close waits for the " +
			"handler to return, and would never return; close the pool from another goroutine")
	}
	if p.InSection() {
		panic(fmt.Sprintf("pool: Close called from inside a blocking section (pool.Blocking) of a task of the "+
			"same pool %q: the section's goroutine holds no worker while f runs, but the task waits for its "+
			"worker when f returns, and Close waits for every task to finish, so it would never return; call "+
			"Close from outside the pool (for example with defer right after pool.New)", p.name))
	}
	p.closeOnce.Do(func() {
		p.closed.Store(true)
		// Wake every sleeper, so that idle workers can exit once no
		// work is running or queued (see sleep.md, Shutdown).
		p.wakeAll()
		p.goroutines.Wait()
		p.stopStalls()
		removePool(p)
	})
}

// ClosedMessage is what every use of a closed pool from outside panics
// with.
const ClosedMessage = "pool: use of a closed pool (Close has been called; the pool runs no new work from outside)"

// Closed reports whether Close has been called.
func (p *Pool) Closed() bool { return p.closed.Load() }

// submit queues t on the pool's injector, from any goroutine, and wakes a
// worker if none is looking for work. It panics if the pool is closed.
// Code running on a worker forks instead (job.go, F1).
func (p *Pool) submit(t *task) {
	// inflight and closed form a handshake with shutdown: a worker exits
	// only after it has seen closed, then inflight == 0, then no queued
	// work. All three are sequentially consistent, so a submission that
	// saw closed == false is either still counted in inflight or already
	// visible in the injector when an exiting worker looks.
	p.inflight.Add(1)
	if p.closed.Load() {
		p.inflight.Add(-1)
		panic(ClosedMessage)
	}
	p.inj.push(rand.Uint32(), t)
	p.inflight.Add(-1)
	p.submitted.Add(1)
	p.notify(nil)
}

// wait blocks the calling goroutine until e is set. It is
// for goroutines that are not workers of p; a worker should use
// Worker.WaitFor, which runs other tasks meanwhile.
func (p *Pool) wait(e Event) {
	if e.IsSet() {
		return
	}
	ch := make(chan struct{}, 1)
	for !e.IsSet() {
		// Register, re-check, park: the event's setter either sees our
		// node or we see it set (see Latch and Group).
		if !e.addWaiter(&waiter{w: chanWaker(ch)}) || e.IsSet() {
			return
		}
		<-ch
	}
}

// newWorker makes worker id, with a deque of capacity tasks.
func (p *Pool) newWorker(id, capacity int) *Worker {
	labels := pprof.Labels("fj.pool", p.name, "fj.worker", strconv.Itoa(id))
	w := &Worker{
		pool:       p,
		id:         id,
		wake:       make(chan struct{}, 1),
		rng:        rand.Uint64() | 1,
		lastVictim: -1,
		labels:     pprof.WithLabels(context.Background(), labels),
		regionName: p.name + " worker " + strconv.Itoa(id),
	}
	w.dq.Init(capacity)
	return w
}
