package pool

import "github.com/forkjoin/fj/internal/sched"

// Runner is where a parallel operation starts: a *Pool, from any goroutine
// (the call blocks until the work is done), or a *Worker, from inside a task
// (the work is forked onto that worker, which keeps working while it waits).
// Only *Pool and *Worker implement it.
//
// The forkjoin, taskblock and parallel packages accept a Runner so that the
// same call works at the top level and nested inside a task:
//
//	parallel.Sort(p, xs)                 // from main: blocks until sorted
//	parallel.For(w, 0, n, body)          // inside a task: forks onto w
//
// A call on a *Pool made from inside one of that pool's own tasks runs on
// the calling task's worker, exactly as if the worker had been passed (see
// Enter).
type Runner interface {
	// Pool returns the pool the work runs on.
	Pool() *Pool

	// Run calls f with a worker of the pool and returns once f has
	// returned. On a *Worker it calls f directly; on a *Pool it runs f
	// on the caller's worker if the caller is a task of the pool, and
	// otherwise submits f and blocks. A panic in f reaches the caller of
	// Run as a *PanicError.
	Run(f func(w *Worker))

	runner()
}

var (
	_ Runner = (*Pool)(nil)
	_ Runner = (*Worker)(nil)
)

// Enter is how every operation on a Runner starts, in this module and in
// code that builds its own parallel operations on fj. It returns the
// worker the operation runs on when that is the calling goroutine's own:
// r itself for a *Worker (after checking that the calling goroutine holds
// it), or, for a *Pool, the worker of that pool whose task the calling
// goroutine is running, even while the pool closes. It returns nil when
// the caller is not a task of the pool: the operation must then be
// submitted with r.Run, which blocks until it is done.
//
// Enter panics, with a message that names the mistake, on a nil Runner, a
// nil *Pool or *Worker, a *Worker used on a goroutine that does not hold
// it (captured from an enclosing task, handed to another goroutine, or
// kept after its task returned), and a closed pool used from outside.
// Deciding these costs nanoseconds (a goroutine id read and a table
// lookup, whatever the depth of the stack), so every operation, however
// small, decides them the same way, here.
//
//	func sumAll(r pool.Runner, xs []float64) float64 {
//		if w := pool.Enter(r); w != nil {
//			return sum(w, xs) // already on a worker: fork from here
//		}
//		var s float64
//		r.Run(func(w *pool.Worker) { s = sum(w, xs) })
//		return s
//	}
func Enter(r Runner) *Worker {
	switch r := r.(type) {
	case *Worker:
		if r == nil {
			panic("pool: nil *pool.Worker given as the Runner")
		}
		r.sched().Check("a parallel operation")
		return r
	case *Pool:
		if r == nil {
			panic("pool: nil *Pool given as the Runner (use pool.New or pool.Default)")
		}
		sp := r.sched()
		if w := sp.Caller(); w != nil {
			return sched.As[Worker](w)
		}
		if sp.Closed() {
			panic(sched.ClosedMessage)
		}
		return nil
	case nil:
		panic("pool: nil pool.Runner (pass a *pool.Pool, or the *pool.Worker your function received)")
	}
	panic("pool: unknown Runner")
}
