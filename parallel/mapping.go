package parallel

import "github.com/forkjoin/fj/pool"

// Map returns a new slice holding f(w, e) for every element e of s, in the
// same order, computed in parallel. Panics are handled as in For.
//
//	lengths := parallel.Map(p, words, func(_ *pool.Worker, s string) int { return len(s) })
func Map[S ~[]E, E, R any](r pool.Runner, s S, f func(w *pool.Worker, e E) R, opts ...Option) []R {
	if f == nil {
		panic("parallel: Map with a nil function")
	}
	out := make([]R, len(s))
	ForRange(r, 0, len(s), func(w *pool.Worker, lo, hi int) {
		for i, e := range s[lo:hi] {
			out[lo+i] = f(w, e)
		}
	}, opts...)
	return out
}
