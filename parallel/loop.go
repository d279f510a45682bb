package parallel

import "github.com/forkjoin/fj/pool"

// For calls body(w, i) for every i in [lo, hi), in parallel, and returns
// when all calls have returned. w is the worker running the call: pass it
// to nested parallel calls. Calls for different i may run in any order and
// at the same time. hi <= lo runs nothing.
//
// Iterations are grouped into pieces that each worker runs as a plain loop;
// see Grain for how the range is split. If a call panics, pieces that have
// not started yet are skipped, and For panics, after the running pieces
// have finished, with a *pool.PanicError carrying the first panic.
//
//	parallel.For(p, 0, len(xs), func(w *pool.Worker, i int) {
//		xs[i] = math.Sqrt(xs[i])
//	})
func For(r pool.Runner, lo, hi int, body func(w *pool.Worker, i int), opts ...Option) {
	if body == nil {
		panic("parallel: For with a nil body")
	}
	ForRange(r, lo, hi, func(w *pool.Worker, lo, hi int) {
		for i := lo; i < hi; i++ {
			body(w, i)
		}
	}, opts...)
}

// ForRange calls body(w, lo', hi') for disjoint, non-empty pieces [lo', hi')
// that cover [lo, hi) exactly, in parallel, and returns when all calls have
// returned. It is For for bodies that do better with a whole piece at once
// (a tight inner loop, a buffer per piece). hi <= lo runs nothing. Panics
// are handled as in For.
func ForRange(r pool.Runner, lo, hi int, body func(w *pool.Worker, lo, hi int), opts ...Option) {
	if body == nil {
		panic("parallel: ForRange with a nil body")
	}
	if hi <= lo {
		return
	}
	c := makeConfig(opts)
	on(r, func(w *pool.Worker) {
		s := newSplitter(w, c)
		s.forEach(w, lo, hi, s.refresh, false, body)
	})
}
