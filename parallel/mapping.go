package parallel

import "github.com/forkjoin/fj/pool"

// Map returns a new slice holding f(w, e) for every element e of s, in the
// same order, computed in parallel. Panics, Context and Stop are handled
// as in For (elements whose f did not run hold R's zero value), and so is
// an f that blocks in a blocking section (see For).
//
//	lengths := parallel.Map(p, words, func(_ *pool.Worker, s string) int { return len(s) })
func Map[S ~[]E, E, R any](r pool.Runner, s S, f func(w *pool.Worker, e E) R, opts ...Option) []R {
	if f == nil {
		panic("parallel: Map with a nil function")
	}
	out := make([]R, len(s))
	// A For body per element, not a ForRange body per piece: the loop
	// looks at the stop flag and at whether f blocked between elements.
	l := loop[struct{}, int]{body: func(w *pool.Worker, i int) { out[i] = f(w, s[i]) }}
	runLoop(r, "Map", optsLoop, 0, len(s), &l, opts)
	return out
}

// MapErr is Map for a function that can fail, with ForErr's semantics:
// the first error stops the call (pieces not started are skipped, running
// ones stop before their next element) and MapErr returns nil and that
// error once the running pieces have ended; with a Context option that
// ends before every element is done, it returns nil and
// context.Cause(ctx). Otherwise it returns the results in the order of s,
// and nil; after a Stop (a break) elements whose f did not run hold R's
// zero value, as in Map.
func MapErr[S ~[]E, E, R any](r pool.Runner, s S, f func(w *pool.Worker, e E) (R, error), opts ...Option) ([]R, error) {
	if f == nil {
		panic("parallel: MapErr with a nil function")
	}
	out := make([]R, len(s))
	l := loop[struct{}, int]{bodyErr: func(w *pool.Worker, i int) error {
		v, err := f(w, s[i])
		if err != nil {
			// Return the error before storing anything: the store may
			// be a first touch of fresh memory, and the other workers
			// must learn of the error first.
			return err
		}
		out[i] = v
		return nil
	}}
	_, err := runLoop(r, "MapErr", optsLoop, 0, len(s), &l, opts)
	if err != nil {
		return nil, err
	}
	return out, nil
}
