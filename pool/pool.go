package pool

import (
	"sync"

	"github.com/forkjoin/fj/internal/sched"
)

// Pool is a fixed set of worker goroutines that run tasks with work
// stealing. Create one with New (or use Default), start work on it with the
// forkjoin, taskblock and parallel packages, and Close it when done.
//
// All methods are safe for concurrent use. Every method panics on a nil
// *Pool, with a message that says so.
type Pool struct {
	// The scheduler's pool, the only field: a *Pool and a *sched.Pool
	// are the same memory (sched.As, layout_test.go).
	_ sched.Pool
}

// Worker is one of a pool's workers, as seen by the task it is running.
// Every function fj runs receives the *Worker it runs on; pass it on to fork
// more work (forkjoin.Fork, forkjoin.Join, a nested taskblock.Define or
// parallel call), so that the work lands on this worker's deque instead of
// blocking it.
//
// A *Worker belongs to the function it was handed to: it must not be used
// from another goroutine (one you start, the body of a parallel loop,
// which gets its own, or a task of another pool), nor after that function
// has returned. Every call given a *Worker checks this, on every call and
// in every build, before it touches the worker, and panics with a message
// that names the mistake: forkjoin.Join, JoinArgs, JoinAll, JoinReduce,
// Fork, Future.Join, Spawn and Task.Join; every call that takes the worker as its Runner
// (forkjoin.Invoke, taskblock.Define and DefineErr, Region, every parallel
// call); Worker.Run; taskblock's Block.RunFrom and GoFrom; and
// parallel.PerWorker.Get. The check compares the calling goroutine's id
// with the worker's holder: about a nanosecond, inlined into each fork.
// (Go's goroutine id is read fast on 386, amd64, arm, arm64 and s390x. On
// another platform, or a Go release whose runtime layout fj's id reader
// does not know, reading it parses a stack trace, and forks and joins then
// check only a sample, unless built with the race detector or the fjdebug
// tag; the other calls above still check every time.)
//
// A check sees only what the schedule shows it: on one worker nothing is
// stolen, a loop's bodies and a join's halves run on the caller's
// goroutine with the caller's worker, and a captured worker is the body's
// own, so the mistake passes unnoticed there, in every build (race and
// fjdebug builds run the schedule that ships). The fjvet analyzer
// (github.com/forkjoin/fj/fjvet) finds a captured worker before the
// program runs, whatever the schedule.
type Worker struct {
	// The scheduler's worker, the only field (see Pool).
	_ sched.Worker
}

// New starts a pool. Without options it has runtime.GOMAXPROCS(0) workers,
// each with a deque of 1024 tasks. Close it when done.
func New(opts ...Option) *Pool {
	return sched.As[Pool](sched.New(makeConfig(opts)))
}

var (
	defaultOnce sync.Once
	defaultPool *Pool
)

// Default returns the process-wide pool, creating it on first use with
// runtime.GOMAXPROCS(0) workers. It lives as long as the process; Close
// panics on it. Library code that wants parallelism without asking its
// callers for a pool can use it: called from inside a task of the Default
// pool, any call on it runs on the caller's worker (see Run).
func Default() *Pool {
	defaultOnce.Do(func() {
		defaultPool = New(WithName("fj-default"))
	})
	return defaultPool
}

func (p *Pool) sched() *sched.Pool { return sched.From[sched.Pool](p) }

func (w *Worker) sched() *sched.Worker { return sched.From[sched.Worker](w) }

// check panics if p is nil, naming the method.
func (p *Pool) check(method string) {
	if p == nil {
		panic("pool: " + method + " on a nil *Pool (use pool.New or pool.Default)")
	}
}

// Workers returns the number of workers.
func (p *Pool) Workers() int {
	p.check("Workers")
	return p.sched().Workers()
}

// Name returns the pool's name (see WithName).
func (p *Pool) Name() string {
	p.check("Name")
	return p.sched().Name()
}

// Pool returns p itself, so that a *Pool satisfies Runner.
func (p *Pool) Pool() *Pool {
	p.check("Pool")
	return p
}

func (p *Pool) runner() {}

// Close shuts the pool down: it lets running and queued work finish, then
// stops every worker goroutine and returns. Calling Close again (also
// concurrently) waits for the same shutdown and returns. Using the pool
// from outside after Close has begun panics.
//
// Close panics when called from inside one of the pool's own tasks, or
// from inside a blocking section of one (it would wait for that task to
// finish, forever), and on the pool returned by Default.
func (p *Pool) Close() {
	p.check("Close")
	if p == defaultPool {
		panic("pool: Close of the Default pool (it lives as long as the process)")
	}
	p.sched().Close()
}

// Closed reports whether Close has been called.
func (p *Pool) Closed() bool {
	p.check("Closed")
	return p.sched().Closed()
}

// Run calls f on one of p's workers and returns once f has returned. A
// panic in f is re-raised in the caller as a *PanicError. Run panics if the
// pool is closed.
//
// From a goroutine outside the pool, Run queues f and blocks until it is
// done. From inside a task of p (directly, or through a library that uses
// p), it runs f on the calling task's worker, exactly as if that worker had
// been passed: the caller is never blocked, so nothing can deadlock. Finding
// that out costs nanoseconds, at any depth of the caller's stack (a
// goroutine id read and a table lookup).
//
// A task of one pool may use another pool this way: it waits for the other
// pool's work in a blocking section (see Blocking), so its own worker goes
// on with other tasks meanwhile, and chains that go back and forth between
// pools (a task of A waiting for work of B that needs A) complete like
// joins within one pool, at any depth: such a wait takes no slot of the
// pool's cap on sections (WithMaxBlocking).
func (p *Pool) Run(f func(w *Worker)) {
	p.check("Run")
	if f == nil {
		panic("pool: Run with a nil function")
	}
	sched.Do(p, sched.As[Worker](p.sched().Caller()), f) // a task of p runs f here, on its worker
}

// ID returns the worker's index, 0 to Workers()-1. A worker handed to
// another goroutine while its task blocks without a blocking section
// (see StallReport) keeps its ID: per-worker state that a task indexes
// by ID and keeps across a call that blocks without a section may meet
// the tasks that goroutine runs meanwhile, as it may meet another task of
// the same worker across Blocking (parallel.PerWorker's value too).
func (w *Worker) ID() int { return w.sched().ID() }

// Pool returns the pool w belongs to.
func (w *Worker) Pool() *Pool { return sched.As[Pool](w.sched().Pool()) }

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
	w.sched().Check("Worker.Run")
	sched.Do(w, w, f)
}
