// Package fj is the root of a module for fork/join parallelism in Go:
// recursive, fine-grained parallel code on a fixed pool of workers with
// work stealing, at a cost per fork of tens of nanoseconds instead of the
// microsecond of a goroutine.
//
// The module is layered; each package imports only those above it:
//
//	deque      lock-free Chase–Lev work-stealing deque
//	pool       the scheduler: workers, deques, injector, stealing, sleeping, waits that never block a worker
//	forkjoin   Fork / Join / Invoke: futures on a pool
//	taskblock  fully strict scopes of tasks with collected panics (C++ N4411)
//	parallel   For, Reduce, Scan, Sort, ... built on the above
//
// Start with forkjoin for recursive code and parallel for loops and
// sorting; both take a pool.Runner, which is a *pool.Pool from ordinary
// code and the task's *pool.Worker from inside a task. That worker is passed
// to every function fj runs: pass it on, so nested parallel work forks onto
// the current worker instead of blocking it.
//
// This package itself holds no code; its tests are the module's benchmark
// suite, which measures every layer against its baseline (sequential code,
// a goroutine per fork, the slices package) in the same run.
package fj
