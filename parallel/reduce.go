package parallel

import (
	"github.com/forkjoin/fj/internal/sched"
	"github.com/forkjoin/fj/pool"
	"golang.org/x/exp/constraints"
)

// Reduce splits [lo, hi) into disjoint pieces, computes chunk(w, lo', hi')
// for each in parallel, and combines the results with combine in index
// order: the result is combine(...combine(combine(c0, c1), c2)..., ck) up to
// the grouping of the combine calls, where ci is the chunk result for the
// i-th piece from the left. combine must therefore be associative; it need
// not be commutative (concatenation works). Reduce returns identity for
// an empty range (hi <= lo) and never combines identity with anything
// otherwise, so identity need only be the result for "no elements".
// combine only ever sees values that chunk returned or that combine made
// from them: never a zero value standing for a piece that did not run.
// chunk and combine are called from several workers at once (combine
// runs as the pieces' results come in, on whichever worker finished
// them), so both must be safe for concurrent use: a pure function of its
// arguments is.
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
// the last bits, as any reassociation does, and by default the grouping
// depends on the workers and on stealing: the Deterministic option fixes
// it. Panics are handled as in For. With a Context that ends or a Stop
// flag that is set, Reduce returns early with an unspecified result (the
// combination of the pieces that ran, or identity if none did); check
// ctx.Err() afterwards.
//
// The type parameters come in the order T, I, so that a call written for
// an int-only Reduce with T explicit, Reduce[T](...), still compiles.
func Reduce[T any, I constraints.Integer](r pool.Runner, lo, hi I, identity T,
	chunk func(w *pool.Worker, lo, hi I) T, combine func(a, b T) T, opts ...Option) T {
	if chunk == nil {
		panic("parallel: Reduce with a nil chunk function")
	}
	if combine == nil {
		panic("parallel: Reduce with a nil combine function")
	}
	w := enter(r)
	if w != nil && len(opts) == 0 && hi > lo && sched.From[sched.Worker](w).RunsInOneStep(span(lo, hi), minStep) {
		// oneStep and inOneStep, written out: neither inlines, and a call
		// of either costs a Reduce of ten elements a tenth of its time.
		var v T
		sched.RunHere(func() { oneChunk(w, chunk, lo, hi, &v) })
		return v
	}
	l := loop[T, I]{chunk: chunk, combine: combine}
	res, _ := runEntered(r, w, "Reduce", optsReduce, lo, hi, &l, opts)
	if !res.ok {
		return identity
	}
	return res.v
}

// ReduceErr is Reduce for a chunk function that can fail. The first
// non-nil error stops the call (pieces not started are skipped) and
// ReduceErr returns identity and that error once the running pieces have
// ended; a chunk's result that comes with an error is never combined. With
// a Context option, the end of ctx stops the call the same way and
// ReduceErr returns identity and context.Cause(ctx), unless a chunk
// failed first or every chunk had already run (then it is as if ctx had
// not ended, as errgroup has it). Otherwise it returns Reduce's result and
// nil. It honours Deterministic.
func ReduceErr[T any, I constraints.Integer](r pool.Runner, lo, hi I, identity T,
	chunk func(w *pool.Worker, lo, hi I) (T, error), combine func(a, b T) T, opts ...Option) (T, error) {
	if chunk == nil {
		panic("parallel: ReduceErr with a nil chunk function")
	}
	if combine == nil {
		panic("parallel: ReduceErr with a nil combine function")
	}
	l := loop[T, I]{chunkErr: chunk, combine: combine}
	res, err := runLoop(r, "ReduceErr", optsReduce, lo, hi, &l, opts)
	if err != nil || !res.ok {
		return identity, err
	}
	return res.v, nil
}
