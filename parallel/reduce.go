package parallel

import "github.com/forkjoin/fj/pool"

// Reduce splits [lo, hi) into disjoint pieces, computes chunk(w, lo', hi')
// for each in parallel, and combines the results with combine in index
// order: the result is combine(...combine(combine(c0, c1), c2)..., ck) up to
// the grouping of the combine calls, where ci is the chunk result for the
// i-th piece from the left. combine must therefore be associative; it need
// not be commutative (concatenation works). Reduce returns identity for
// an empty range (hi <= lo) and never combines identity with anything
// otherwise, so identity need only be the result for "no elements".
//
//	sum := parallel.Reduce(p, 0, len(xs), 0.0,
//		func(w *pool.Worker, lo, hi int) float64 {
//			s := 0.0
//			for _, x := range xs[lo:hi] {
//				s += x
//			}
//			return s
//		},
//		func(a, b float64) float64 { return a + b })
//
// Floating-point sums computed this way differ from a sequential sum in
// the last bits, as any reassociation does. Panics are handled as in For.
func Reduce[T any](r pool.Runner, lo, hi int, identity T,
	chunk func(w *pool.Worker, lo, hi int) T, combine func(a, b T) T, opts ...Option) T {
	if chunk == nil {
		panic("parallel: Reduce with a nil chunk function")
	}
	if combine == nil {
		panic("parallel: Reduce with a nil combine function")
	}
	if hi <= lo {
		return identity
	}
	c := makeConfig(opts)
	var res T
	on(r, func(w *pool.Worker) {
		s := newSplitter(w, c)
		res = reduce(s, w, lo, hi, s.refresh, false, chunk, combine)
	})
	return res
}
