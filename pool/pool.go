package pool

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime/pprof"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/forkjoin/fj/deque"
)

// Pool is a fixed set of worker goroutines that run tasks with work
// stealing. Create one with New (or use Default), start work on it with the
// forkjoin, taskblock and parallel packages, and Close it when done.
//
// All methods are safe for concurrent use.
type Pool struct {
	// ctl is the sleep protocol's control word: the number of sleeping
	// workers in the high 32 bits, of searching workers in the low 32. It
	// is loaded by every fork, so it sits alone on its cache line.
	ctl atomic.Uint64
	_   [cacheLine - 8]byte

	workers      []*Worker
	inj          injector
	maxSearching uint32
	spinRounds   int
	name         string
	isDefault    bool

	// mu protects idle, each worker's idleIdx, and the sleeping half of
	// ctl (which is also updated atomically, for lock-free readers).
	mu   sync.Mutex
	idle []*Worker

	closed     atomic.Bool
	inflight   atomic.Int64  // external submissions between their closed check and their push
	active     atomic.Int64  // workers running a task from their main loop
	submitted  atomic.Uint64 // tasks submitted from outside (Stats)
	closeOnce  sync.Once
	goroutines sync.WaitGroup // every carrier goroutine of every worker
}

const cacheLine = 128

// New starts a pool. Without options it has runtime.GOMAXPROCS(0) workers,
// each with a deque of 1024 tasks.
func New(opts ...Option) *Pool {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.Workers < 1 || cfg.Workers > maxWorkers {
		panic(fmt.Sprintf("pool: %d workers: need 1 to %d", cfg.Workers, maxWorkers))
	}
	if cfg.DequeCapacity < 1 {
		panic(fmt.Sprintf("pool: deque capacity %d: must be at least 1", cfg.DequeCapacity))
	}
	n := cfg.Workers
	p := &Pool{
		workers:      make([]*Worker, n),
		maxSearching: uint32(max(1, n/2)),
		// About two passes over every queue (the injector and the n-1
		// other deques) per round of searching before yielding: enough to
		// catch work that is about to appear, short enough that an idle
		// worker gets off the CPU within microseconds.
		spinRounds: 2 * (n + 1),
		name:       cfg.Name,
		idle:       make([]*Worker, 0, n),
	}
	p.inj.init(min(n, 16))
	for i := range p.workers {
		p.workers[i] = &Worker{
			pool:       p,
			id:         i,
			dq:         deque.New[Task](cfg.DequeCapacity),
			wake:       make(chan struct{}, 1),
			rng:        rand.Uint64() | 1,
			lastVictim: -1,
			idleIdx:    -1,
			labels:     pprof.WithLabels(context.Background(), pprof.Labels("fj.pool", cfg.Name, "fj.worker", strconv.Itoa(i))),
			regionName: cfg.Name + " worker " + strconv.Itoa(i),
		}
	}
	for _, w := range p.workers {
		p.startCarrier(w.newCarrier(), true)
	}
	return p
}

var (
	defaultOnce sync.Once
	defaultPool *Pool
)

// Default returns the process-wide pool, creating it on first use with
// runtime.GOMAXPROCS(0) workers. It lives as long as the process; Close
// panics on it.
func Default() *Pool {
	defaultOnce.Do(func() {
		defaultPool = New(WithName("fj-default"))
		defaultPool.isDefault = true
	})
	return defaultPool
}

// Workers returns the number of workers.
func (p *Pool) Workers() int { return len(p.workers) }

// Name returns the pool's name (see WithName).
func (p *Pool) Name() string { return p.name }

// Pool returns p itself, so that a *Pool satisfies Runner.
func (p *Pool) Pool() *Pool { return p }

func (p *Pool) runner() {}

// Close shuts the pool down: it lets running and queued work finish, then
// stops every worker goroutine and returns. Calling Close again (also
// concurrently) waits for the same shutdown and returns. Submitting work
// from outside the pool after Close has begun panics.
//
// Close must not be called from inside one of the pool's own tasks: it
// waits for every worker to exit, including the one running the caller.
// It panics on the pool returned by Default.
func (p *Pool) Close() {
	if p.isDefault {
		panic("pool: Close of the Default pool (it lives as long as the process)")
	}
	p.closeOnce.Do(func() {
		p.closed.Store(true)
		// Wake every sleeper, so that idle workers can exit once no
		// work is running or queued (see sleep.md, Shutdown).
		p.wakeAll()
		p.goroutines.Wait()
	})
}

// Closed reports whether Close has been called.
func (p *Pool) Closed() bool { return p.closed.Load() }

// Run calls f on one of p's workers and blocks the calling goroutine until
// f has returned. A panic in f is re-raised in the caller as a
// *PanicError. Run panics if the pool is closed.
//
// Run is for code outside the pool. Inside a task, use the task's *Worker
// instead (Worker.Run, or pass the worker as the Runner): a task that
// blocks in Pool.Run occupies its worker, and if every worker does so,
// nobody is left to run the submitted work.
//
// A task of one pool may use another pool this way: it blocks its worker
// until the other pool's work is done. That work must not need the first
// pool back while all of the first pool's workers are blocked so: a cycle
// between pools can deadlock where a cycle of tasks within one pool cannot.
func (p *Pool) Run(f func(w *Worker)) {
	if p == nil {
		panic("pool: Run on a nil *Pool")
	}
	if f == nil {
		panic("pool: Run with a nil function")
	}
	j := &externalJob{f: f}
	j.Task.Init(j)
	p.Submit(&j.Task)
	p.Wait(&j.done)
	if j.err != nil {
		panic(j.err)
	}
}

type externalJob struct {
	Task
	f    func(w *Worker)
	done Latch
	err  *PanicError
}

func (j *externalJob) Run(w *Worker) {
	returned := false
	defer func() {
		j.err = w.Capture(recover(), returned)
		j.done.Set()
	}()
	j.f(w)
	j.f = nil
	returned = true
}

// Submit queues t on the pool's injector, from any goroutine, and wakes a
// worker if none is looking for work. It panics if the pool is closed.
// Code running on a worker should use Worker.Spawn instead.
func (p *Pool) Submit(t *Task) {
	// inflight and closed form a handshake with shutdown: a worker exits
	// only after it has seen closed, then inflight == 0, then no queued
	// work. All three are sequentially consistent, so a submission that
	// saw closed == false is either still counted in inflight or already
	// visible in the injector when an exiting worker looks.
	p.inflight.Add(1)
	if p.closed.Load() {
		p.inflight.Add(-1)
		panic("pool: use of a closed pool")
	}
	p.inj.push(rand.Uint32(), t)
	p.inflight.Add(-1)
	p.submitted.Add(1)
	p.notify()
}

// Wait blocks the calling goroutine until e is set. It is
// for goroutines that are not workers of p; a worker should use
// Worker.WaitFor, which runs other tasks meanwhile.
func (p *Pool) Wait(e Event) {
	if e.IsSet() {
		return
	}
	ch := make(chan struct{}, 1)
	for !e.IsSet() {
		// Register, re-check, park: the event's setter either sees our
		// node or we see it set (see Latch and Counter).
		if !e.addWaiter(&waiter{wake: ch}) || e.IsSet() {
			return
		}
		<-ch
	}
}
