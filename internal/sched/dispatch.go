package sched

import "unsafe"

// The one dispatch. Every entry point given a pool.Runner (pool.Pool.Run,
// pool.Worker.Run, forkjoin.Invoke, taskblock.Define, every parallel
// call) first asks pool.Enter, once, whether the call runs on the
// caller's own worker (identity.go, I4), and then dispatches here: Call
// (and Do, for effects) is the one place that chooses between running on
// that worker and submitting to the pool from outside.

// runner is what Call needs of a pool.Runner: its pool, on the outside
// path only.
type runner[P any] interface{ Pool() *P }

// Call returns f(w): on the calling goroutine if w, the caller's own
// worker that pool.Enter found, is not nil (RunHere), or else on one of
// r's pool's workers, submitted and waited for (runOutside). A panic in f
// is re-raised as a *PanicError either way. W and P are the public worker
// and pool types (As). The closure of the inside path does not escape,
// and f escapes as the caller's function value anyway: a call on the
// caller's own worker allocates nothing.
func Call[W, P, R any](r runner[P], w *W, f func(w *W) R) R {
	if w != nil {
		var res R
		RunHere(func() { res = f(w) })
		return res
	}
	return callOutside(From[Pool](r.Pool()), f)
}

// callOutside is Call's outside path, a function of its own so that only
// this path makes the closure that carries the result.
func callOutside[W, R any](p *Pool, f func(w *W) R) (res R) {
	p.runOutside(func(w *Worker) { res = f((*W)(unsafe.Pointer(w))) }) // a *W is a *Worker's memory (As)
	return res
}

// Do is Call for a function run for its effects.
func Do[W, P any](r runner[P], w *W, f func(w *W)) {
	if w != nil {
		RunHere(func() { f(w) })
		return
	}
	From[Pool](r.Pool()).runOutside(*(*func(*Worker))(unsafe.Pointer(&f))) // as in callOutside
}

// RunHere runs f on the calling goroutine, a task's, as a task of its own
// would run: a panic in f is re-raised as a *PanicError (Capture); a
// runtime.Goexit unwinds on and the enclosing task reports it.
func RunHere(f func()) {
	if p := Capture(f); p != nil {
		panic(p.Err)
	}
}

// runOutside runs f on one of p's workers for a goroutine that holds none
// of them, and returns once f has returned, re-raising its panic: it
// queues f on p's injector and waits for it. A task of another pool waits
// in a join's section (await), so that its own worker goes on meanwhile
// and chains between pools complete like joins. It panics if p is closed.
func (p *Pool) runOutside(f func(w *Worker)) {
	j := &externalJob{f: f}
	j.bind(j)
	p.await(func() {
		p.submit(&j.task)
		p.wait(&j.done)
	})
	if j.panic != nil {
		panic(j.panic.Err)
	}
}

// externalJob is a function submitted from outside the pool (runOutside).
type externalJob struct {
	job
	f func(w *Worker)
}

func (j *externalJob) Run(w *Worker) {
	j.complete(w, func() { j.f(w) })
}
