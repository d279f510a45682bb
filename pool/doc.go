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
// # Waiting
//
// A task that waits for another (Worker.WaitFor, used by every join in fj)
// first runs what it waits for itself if that is still on its worker's
// deque, the fast path. Otherwise it parks: its goroutine blocks, and the
// worker carries on with other work on another goroutine (a carrier), so
// the worker never idles while there is work. When the awaited task
// finishes, the parked task gets its worker back and resumes. No task ever
// runs on top of a waiting one, which is what makes every acyclic graph of
// joins deadlock-free; carrier.md explains why running other tasks on the
// waiting goroutine (the classic helping join) is not enough.
//
// # The low-level API
//
// Task, Runnable, Latch, Counter, Event, Spawn, TakeBack, TakeBackUntil,
// WaitFor, Inject, Departures, Reuse, Recycle, Submit, Wait and Capture are
// the primitives the higher layers are built from.
// They are exported for those packages and for users who build their own
// constructs; ordinary code does not need them.
package pool
