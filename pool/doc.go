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
// searching (docs/how-it-works.md, in the source tree, leads to the
// protocol and why no wake-up is lost).
//
// # Greedy
//
// No worker sleeps while another holds a task it could run. A fork is
// private to its worker while every worker is busy (no fence: that is
// what makes it cheap) and is published when another worker is idle. A
// thief takes half of what a deque publishes (StealOps counts the
// steals, Steals the tasks), and when nothing is published it takes the
// oldest private fork of a busy worker itself, whatever that worker runs
// meanwhile: Cilk's spawn, spawn, compute, sync keeps both workers busy
// even when a thief took the first spawn and the forker is in a long
// computation. The thief pays for it (a process-wide memory barrier,
// Linux's membarrier: about 2-3 µs, and up to tens of microseconds, for
// the thief and for the interrupted worker alike, in a virtual machine
// whose host takes the interrupt it sends); the forker's fork and join
// pay nothing (WorkerStats.PrivateSteals counts these steals). An idle
// worker runs at most one such barrier per attempt to sleep, the one that
// makes sure no fork waits unpublished while it sleeps, and the private
// steal that follows uses it: the interrupts a busy worker takes grow
// with the idle episodes, of which one is in progress at a time while one
// worker forks, not with the idle workers (WorkerStats.Barriers counts
// them). Where that
// barrier does not exist (systems other than Linux, architectures other
// than amd64, kernels that refuse it), a private fork waits for its
// forker's next fork, join, loop step or task boundary once a thief took
// the forks older than it (the deque's design note, "Where there is no
// heavy barrier", reached from docs/how-it-works.md).
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
// (docs/how-it-works.md leads to the argument).
//
// # Blocking
//
// A task that blocks (on I/O, a lock, a channel, a sleep) holds its worker
// for as long as it blocks. Wrapped in Blocking, the call lets the worker
// go on with other tasks on another goroutine meanwhile, as while a join
// waits, and the task resumes on its worker when the call returns. A task
// in a section costs a goroutine, as in errgroup; WithMaxBlocking limits
// how many are in sections at once, as errgroup's SetLimit does, and
// Stats counts them. A section of a task of the pool is not where to
// close it: Close from there panics, as from the task itself.
//
// Forgetting a section costs time, never a hang on a wait, in every
// build. About a millisecond after a task starts to wait without a
// section, in the program's own code (a channel operation or select,
// sync.Cond, WaitGroup, a sleep, network I/O; a sync.Mutex or RWMutex
// once it has waited a second), while work waits for its worker (in the
// worker's deque, private forks included, a parked task of the worker's
// ready to resume, or the pool's queues with no other worker free), the
// pool hands the worker to another goroutine, which runs that work; the
// task gets its worker back at its next call of fj's once its wait has
// ended. At most 64 tasks of one worker are handed over at once: a
// program whose tasks on one worker all wait, more than 64 at once, for
// work queued behind them hangs, and the report says so. Stats counts
// the hand-overs. The first such block is reported once, a threshold
// later (50 ms by default, WithStallThreshold), with the task's own
// frames, how long it waited, the rule broken and the fix (to standard
// error, or to WithStallHandler's function). The pool tells waiting
// tasks from running ones by their goroutines' states, a few loads per
// worker, only while work is queued: an idle pool runs no timer; a task
// that computes, two tasks that share a lock for microseconds, or a task
// waiting in fj's own code are never reported.
//
// What is not caught: a system call (a file read), which ends by itself
// and costs its time; and a task that spins (polls a flag or an atomic)
// until a task queued behind it on its own worker runs. It runs, as far
// as the pool can tell, and if what it polls for waits behind it, the
// program hangs; see forkjoin's package documentation on forks waited
// for without a join. That includes work the spinning task did not
// queue: two calls submitted from outside, one spinning until the other
// ends, can hang when the other parked a join on the worker that then
// started the spinner (its stolen half done, the join resumes only on its
// own worker). Wait for another task's result with a join, a channel or
// a sync primitive, which the stall watch sees. A plain loop (For
// without WithContext) keeps the rest of its range while a body runs:
// bodies that wait for later items of the same loop need WithContext or
// a section. Where the pool cannot read goroutine states (a platform
// where github.com/petermattis/goid has no assembly), it watches nothing.
// See StallReport.
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
//
// # Misuse
//
// Caught before the program runs, by fjvet, the analyzer in this
// repository's fjvet module (go vet -vettool=$(command -v fjvet) ./...,
// in CI): a *Worker captured from an enclosing task, or used in a
// section or a goroutine; a blocking call in a task outside Blocking (a
// channel operation, a select without default, a sleep, a WaitGroup or
// Cond wait, the standard library's file, network and HTTP calls); a
// sync.Mutex held across a join; a taskblock.Block that escapes its
// Define; Close from inside a task; a forkjoin.Spawn never joined. It
// sees one package at a time, as written: not through interfaces,
// function values, struct fields or helpers of other packages.
//
// Caught at run time, in every build, by a panic that names the mistake
// before it touches anything: a *Worker used on a goroutine that does not
// hold it, when the schedule puts it there (on one worker nothing is
// stolen: a loop's bodies and a join's halves run on the caller's
// goroutine, where a captured worker is held and passes, even under the
// race detector); Close from inside a task of the pool or a section of
// one, and Close of Default; Block.Wait from a task of its own block,
// Block.Run from a goroutine that runs no task of the block's pool, and
// a Block or a closed pool used afterwards. Noticed at run time and
// worked around, not prevented: a blocking call without a section (the
// stall watch hands the worker to another goroutine, which runs the work
// queued behind it, and reports it; see Blocking).
//
// Not caught: a task that spins until work queued behind it on its own
// worker runs (see Blocking); a captured worker fjvet cannot see (kept in
// a struct, passed through another package) on a schedule that never
// steals; a Future or Task never joined where fjvet cannot see it (its
// panic is lost); data races between tasks, which are the race
// detector's.
package pool
