// Package pool is fj's scheduler: a fixed set of worker goroutines, each
// with its own lock-free work-stealing deque, a shared injector for work
// that comes from outside, and a sleep protocol that keeps an idle pool off
// the CPU.
//
// Most programs use the pool through the forkjoin, taskblock and parallel
// packages and need only this much of it:
//
//	p := pool.New()   // runtime.GOMAXPROCS(0) workers
//	defer p.Close()
//	parallel.Sort(p, xs)
//
// # How work is scheduled
//
// A task forked by a running task (Worker.Spawn) goes to the bottom of its
// worker's deque; the worker takes its own tasks back last-in first-out, so
// recursive work runs depth first, hot in cache. A task submitted from a
// goroutine that is not a worker (Pool.Run, Pool.Submit) goes to the
// injector. A worker that runs out of local work looks at the injector and
// then steals the oldest task from a random other worker, starting with
// the last one it stole from successfully. After a bounded number of empty
// rounds it yields, then sleeps; a worker that publishes work wakes one
// sleeper if no worker is searching (see sleep.md for the protocol and why
// no wake-up is lost).
//
// # Helping waits
//
// A task that waits for another (Worker.WaitFor, used by every join in fj)
// never blocks its worker while there is work anywhere: it runs its own
// deque's tasks, then stolen or injected ones, until the awaited event is
// set, and sleeps only when there is nothing to run, to be woken by new
// work or by the event. No arrangement of joins among tasks that do not
// wait for each other in a cycle can deadlock the pool.
//
// # The low-level API
//
// Task, Runnable, Latch, Counter, Event, Spawn, TakeBack, WaitFor, Submit,
// Wait and Capture are the primitives the higher layers are built from.
// They are exported for those packages and for users who build their own
// constructs; ordinary code does not need them.
package pool
