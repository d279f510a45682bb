package parallel

import "github.com/forkjoin/fj/pool"

// on calls f on a worker of r: inline on a *pool.Worker (the work forks onto
// that worker), submitted and waited for on a *pool.Pool. A panic in f
// reaches the caller as a *pool.PanicError.
func on(r pool.Runner, f func(w *pool.Worker)) {
	switch r := r.(type) {
	case *pool.Worker:
		if r == nil {
			panic("parallel: nil *pool.Worker")
		}
		r.Run(f)
	case nil:
		panic("parallel: nil pool.Runner")
	default:
		r.Run(f)
	}
}
