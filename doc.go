// Package fj is the root of a module for fork/join parallelism in Go:
// recursive, fine-grained parallel code on a fixed pool of workers with
// work stealing, at a cost per fork of tens of nanoseconds instead of the
// microsecond of a goroutine.
//
// The module is layered; each package imports only packages above it in
// this list (a test, TestImportsFollowTheLayers, checks it):
//
//	internal/wsdeque  the work-stealing deque, with a private end the owner publishes lazily
//	deque             the public Chase–Lev deque: internal/wsdeque, every push published
//	internal/sched    the scheduler (workers, sleep, carriers, identity) and the one job type
//	                  that owns fork, take-back, inline run, park, resume, recycle and capture
//	pool              the public face of the scheduler: New, Default, Close, Stats, Enter, ...
//	forkjoin          Join, JoinArgs, JoinAll, JoinReduce, Fork / Future, Invoke
//	taskblock         fully strict scopes of tasks with collected panics (C++ N4411)
//	parallel          For, Reduce, Scan, Sort, ... built on the above
//
// forkjoin, taskblock and parallel use internal/sched's job type directly;
// users cannot, and nothing they see links there.
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
