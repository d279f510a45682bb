package parallel

import (
	"github.com/forkjoin/fj/pool"
	"golang.org/x/exp/constraints"
)

// For calls body(w, i) for every i in [lo, hi), in parallel, and returns
// when all calls have returned. w is the worker running the call: pass it
// to nested parallel calls. Calls for different i may run in any order and
// at the same time. hi <= lo runs nothing. The index may be of any integer
// type; ranges near the type's limits (an int8 range of -128..127, a uint64
// range across 2^63) work.
//
// Iterations are grouped into pieces that each worker runs as a plain loop;
// see Grain for how the range is split. If a call panics, pieces that have
// not started yet are skipped, running pieces stop within 64 iterations
// (For looks at its stop flag once per 64 iterations, which costs nothing
// even for trivial bodies), and For panics, after the running pieces have
// finished, with a *pool.PanicError carrying the first panic. With a Context option that
// ends, or a Stop flag that is set, For stops the same way and returns
// normally: check ctx.Err() afterwards.
//
// A body that blocks in a blocking section (pool.Blocking: I/O, a lock, a
// channel) lets its worker run other tasks meanwhile, but the rest of its
// piece waits for it. So once a body has blocked, the loop splits what
// remains of every piece eagerly, a task per Grain iterations (one by
// default), whatever its options: each later body that blocks lets its
// worker start the next, and the bodies wait together, as errgroup's
// goroutines do. The loop notices it after the first body of each step
// (and after the step), so bodies that block every time are caught at
// once; a loop whose bodies never block pays a load per step for it. The
// eager split ends where a body does not block: a loop whose bodies
// blocked once (a cache fill) splits lazily again, at the cost of a few
// dozen tasks.
//
//	parallel.For(p, 0, len(xs), func(w *pool.Worker, i int) {
//		xs[i] = math.Sqrt(xs[i])
//	})
func For[I constraints.Integer](r pool.Runner, lo, hi I, body func(w *pool.Worker, i I), opts ...Option) {
	if body == nil {
		panic("parallel: For with a nil body")
	}
	l := loop[struct{}, I]{body: body}
	runLoop(r, "For", optsLoop, lo, hi, &l, opts)
}

// ForErr is For for a body that can fail. The first non-nil error stops
// the call as a panic does (pieces not started are skipped, running ones
// stop before their next iteration: ForErr looks at its stop flag every
// iteration, as its bodies, which return an error, are rarely trivial),
// and ForErr returns it once the running
// pieces have ended, as errgroup.Group.Wait does. With a Context option,
// the end of ctx stops the call the same way and ForErr returns
// context.Cause(ctx), unless a body failed first; but if every iteration
// ran without error, ForErr returns nil whatever ctx did meanwhile, as
// errgroup does. A Stop flag that is set stops the call as a break: nil.
// With WithContext, the bodies get a context that the first error
// cancels, so that running ones return early too. A panic in body is
// re-raised as in For, whatever errors occurred.
func ForErr[I constraints.Integer](r pool.Runner, lo, hi I, body func(w *pool.Worker, i I) error, opts ...Option) error {
	if body == nil {
		panic("parallel: ForErr with a nil body")
	}
	l := loop[struct{}, I]{bodyErr: body}
	_, err := runLoop(r, "ForErr", optsLoop, lo, hi, &l, opts)
	return err
}

// ForRange calls body(w, lo', hi') for disjoint, non-empty pieces [lo', hi')
// that cover [lo, hi) exactly, in parallel, and returns when all calls have
// returned. It is For for bodies that do better with a whole piece at once
// (a tight inner loop, a buffer per piece). hi <= lo runs nothing. Panics,
// Context and Stop are handled as in For, except that a running piece is
// not interrupted: a long body can poll a StopFlag.
func ForRange[I constraints.Integer](r pool.Runner, lo, hi I, body func(w *pool.Worker, lo, hi I), opts ...Option) {
	if body == nil {
		panic("parallel: ForRange with a nil body")
	}
	l := loop[struct{}, I]{rng: body}
	runLoop(r, "ForRange", optsLoop, lo, hi, &l, opts)
}

// ForRangeErr is ForRange for a body that can fail, with ForErr's
// semantics: the first error stops the call and is returned once the
// running pieces have ended.
func ForRangeErr[I constraints.Integer](r pool.Runner, lo, hi I, body func(w *pool.Worker, lo, hi I) error, opts ...Option) error {
	if body == nil {
		panic("parallel: ForRangeErr with a nil body")
	}
	l := loop[struct{}, I]{rngErr: body}
	_, err := runLoop(r, "ForRangeErr", optsLoop, lo, hi, &l, opts)
	return err
}
