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
// A task forked by a running task goes to the bottom of its worker's
// deque; the worker takes its own tasks back last-in first-out, so
// recursive work runs depth first, hot in cache. Work started from a
// goroutine that is not a worker (a call on a *Pool from main, say) goes to
// the injector. A worker that runs out of local work looks at the injector
// and then steals the oldest task from a random other worker, starting
// with the last one it stole from successfully. After a bounded search it
// sleeps; a worker that publishes work wakes a sleeper if no worker is
// searching (internal/sched/sleep.md has the protocol and why no wake-up is
// lost).
//
// # Waiting
//
// A task that waits for another (every join in fj) first runs what it
// waits for itself if that is still on its worker's deque, the fast path.
// Otherwise it parks: its goroutine blocks, and the worker carries on with
// other work on another goroutine, so the worker never idles while there is
// work. When the awaited task finishes, the parked task gets its worker
// back and resumes. No task ever runs on top of a waiting one, which is
// what makes every acyclic graph of joins deadlock-free
// (internal/sched/carrier.md explains why).
//
// # Blocking
//
// A task that blocks (on I/O, a lock, a channel, a sleep) holds its worker
// for as long as it blocks. Wrapped in Blocking, the call lets the worker
// go on with other tasks on another goroutine meanwhile, as while a join
// waits, and the task resumes on its worker when the call returns. At most
// WithMaxBlocking tasks of a pool are in such sections at once; Stats
// counts them. In builds with the race detector or the fjdebug tag, each
// pool runs a watchdog that notices when every worker has been inside one
// blocked task for more than a threshold while work waits in the queues,
// and prints once, to stderr, the stacks of those tasks and the fix.
// FJ_WATCHDOG in the environment sets the threshold (a duration such as
// 500ms; default 5s) or turns it off (off). It never reports an idle pool,
// nor tasks that are running on the CPU.
//
// # Composing
//
// Every fj entry point takes a Runner: a *Pool or a *Worker, and decides
// where the call runs with Enter. Inside a task, pass the task's *Worker.
// A call on a *Pool from inside one of that pool's own tasks (a library
// helper that sorts with pool.Default(), say) is detected from the calling
// goroutine's id, in nanoseconds at any stack depth, and runs on the
// calling task's worker, as if the worker had been passed, so it never
// deadlocks. Close from inside a task of the pool panics. A *Worker used
// on a goroutine that does not hold it panics with a message naming the
// mistake, on every call that takes it, forks and joins included, in every
// build, before the call touches the worker (see Worker for the list and
// the one exception).
package pool
