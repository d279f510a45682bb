package pool

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
type Runner interface {
	// Pool returns the pool the work runs on.
	Pool() *Pool

	// Run calls f with a worker of the pool and returns once f has
	// returned. On a *Worker it calls f directly; on a *Pool it submits f
	// and blocks. A panic in f reaches the caller of Run.
	Run(f func(w *Worker))

	runner()
}

var (
	_ Runner = (*Pool)(nil)
	_ Runner = (*Worker)(nil)
)
