package parallel

import "github.com/forkjoin/fj/pool"

// on calls f on a worker of r: inline on the caller's worker if it runs a
// task of r's pool (pool.Enter decides, as for every fj call), submitted
// and waited for otherwise. A panic in f reaches the caller as a
// *pool.PanicError.
func on(r pool.Runner, f func(w *pool.Worker)) {
	if w := pool.Enter(r); w != nil {
		w.Run(f)
		return
	}
	r.Pool().Run(f)
}
