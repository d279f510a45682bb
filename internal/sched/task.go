package sched

import "sync/atomic"

// Task is the unit a pool schedules: what sits in a worker's deque or in
// the injector. The layers built on the pool (forkjoin, taskblock,
// parallel) embed a Task in their own job type and point it at that job
// with Init, so that a fork costs one allocation, not two.
//
// A Task must not be copied after Init. It may be scheduled again only
// after it has finished running and its owner got it back (see Reuse).
type Task struct {
	r Runnable
	// free marks a finished task that its owner has handed back with
	// Recycle. Only the worker that spawned the task reads or writes it.
	free bool
	// spilled marks a task that went to the injector because its deque
	// was full (directly, or moved there in a batch by TakeOldest, which
	// leaves its pointer in the old slot). It is written before the
	// injector push and read by whoever pops the task, so the injector's
	// lock orders the two. Reuse refuses spilled tasks, so the flag never
	// needs clearing.
	spilled bool
	// claimed decides, for a spilled task, between its owner taking it
	// back (TakeBack) and whoever pops it from the injector: exactly one
	// runs it.
	claimed atomic.Bool
	// scope is the Region the task was forked in, or nil. Spawn sets it
	// from the forking worker; it is read by whoever runs the task, after
	// the deque or injector has published it.
	scope *scope
}

// Runnable is what a Task runs. Run is called exactly once, on the worker
// that took the task, and must not let a panic escape: a panic that escapes
// Run kills the process, because a worker goroutine has nobody to return
// it to. Implementations record it (see Try) and hand it to whoever
// waits for the task.
type Runnable interface {
	Run(w *Worker)
}

// Init makes t run r. It is usually called as j.Task.Init(j) right after j
// is allocated.
func (t *Task) Init(r Runnable) { t.r = r }
