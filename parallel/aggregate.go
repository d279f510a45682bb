package parallel

import (
	"cmp"

	"golang.org/x/exp/constraints"

	"github.com/forkjoin/fj/pool"
)

// Min returns the minimal value in s, as slices.Min does, computed in
// parallel: the result of the built-in min over all elements, so for
// floating-point numbers it is a NaN if any element is a NaN, and -0 if the
// minimum is a zero and any minimal zero is -0. opts are as for Reduce
// (see the table in the package documentation): with a Context that ends
// or a Stop flag that is set, Min returns early with the minimum of the
// elements it looked at, an unspecified part of s (s[0] if none): check
// ctx.Err() or the flag afterwards. Min panics if s is empty.
func Min[S ~[]E, E cmp.Ordered](r pool.Runner, s S, opts ...Option) E {
	return extreme(r, "Min", s, false, opts)
}

// Max returns the maximal value in s, as slices.Max does, computed in
// parallel: the result of the built-in max over all elements, so for
// floating-point numbers it is a NaN if any element is a NaN. opts are as
// for Reduce; a call that stops early returns the maximum of the elements
// it looked at, as Min does. Max panics if s is empty.
func Max[S ~[]E, E cmp.Ordered](r pool.Runner, s S, opts ...Option) E {
	return extreme(r, "Max", s, true, opts)
}

// extreme is Min (largest false) and Max (largest true). The built-in min
// and max are associative and commutative, NaNs and zeros included, so
// pieces may be reduced and combined in any grouping; the choice between
// them is made once per piece, not per element.
func extreme[S ~[]E, E cmp.Ordered](r pool.Runner, call string, s S, largest bool, opts []Option) E {
	w, one := extremeStart(r, call, len(s), opts)
	if one {
		return inOneStep(w, func(_ *pool.Worker, lo, hi int) E { return extremeOf(s[lo:hi], largest) }, 0, len(s))
	}
	return reduceSlice(r, w, call, len(s), s[0], func(_ *pool.Worker, lo, hi int) E {
		return extremeOf(s[lo:hi], largest)
	}, func(a, b E) E {
		if largest {
			return max(a, b)
		}
		return min(a, b)
	}, opts)
}

// extremeStart is the start of extreme and extremeFunc, of a slice of n
// elements: it panics if there are none, and returns the caller's worker
// (enter) and whether the call runs in one step there (oneStep).
func extremeStart(r pool.Runner, call string, n int, opts []Option) (w *pool.Worker, one bool) {
	if n == 0 {
		panic("parallel: " + call + " of an empty slice")
	}
	w = enter(r)
	return w, oneStep(w, uint64(n), opts)
}

// extremeOf is the built-in min (largest false) or max of the elements of
// s, which is not empty.
func extremeOf[E cmp.Ordered](s []E, largest bool) E {
	m := s[0]
	if largest {
		for _, e := range s[1:] {
			m = max(m, e)
		}
	} else {
		for _, e := range s[1:] {
			m = min(m, e)
		}
	}
	return m
}

// MinFunc returns the minimal element of s by cmp, computed in parallel;
// if several elements are minimal, it returns the first, as
// slices.MinFunc does. cmp is called as slices.MinFunc calls it, with a
// later element first: cmp(later, earlier) < 0 makes the later element
// the new minimum. It may be called from several workers at once and must
// be safe for concurrent use. opts are as for Reduce; a call that stops
// early returns the first minimal element of those it looked at, as Min
// does. A panic in cmp is re-raised as in For. MinFunc panics if s is
// empty or cmp is nil.
func MinFunc[S ~[]E, E any](r pool.Runner, s S, cmp func(a, b E) int, opts ...Option) E {
	return extremeFunc(r, "MinFunc", s, cmp, false, opts)
}

// MaxFunc returns the maximal element of s by cmp, computed in parallel;
// if several elements are maximal, it returns the first, as
// slices.MaxFunc does. cmp is called as slices.MaxFunc calls it, with a
// later element first: cmp(later, earlier) > 0 makes the later element
// the new maximum. It may be called from several workers at once and must
// be safe for concurrent use. opts are as for Reduce; a call that stops
// early returns the first maximal element of those it looked at, as Min
// does. A panic in cmp is re-raised as in For. MaxFunc panics if s is
// empty or cmp is nil.
func MaxFunc[S ~[]E, E any](r pool.Runner, s S, cmp func(a, b E) int, opts ...Option) E {
	return extremeFunc(r, "MaxFunc", s, cmp, true, opts)
}

// extremeFunc is MinFunc (largest false: a later element wins when
// cmp(later, earlier) < 0) and MaxFunc (largest true: when it is > 0).
// Pieces combine in index order, so keeping the left one on ties keeps the
// first extreme element overall.
func extremeFunc[S ~[]E, E any](r pool.Runner, call string, s S, cmp func(a, b E) int, largest bool, opts []Option) E {
	if cmp == nil {
		panic("parallel: " + call + " with a nil cmp function")
	}
	w, one := extremeStart(r, call, len(s), opts)
	if one {
		return inOneStep(w, func(_ *pool.Worker, lo, hi int) E { return extremeFuncOf(s[lo:hi], cmp, largest) }, 0, len(s))
	}
	return reduceSlice(r, w, call, len(s), s[0], func(_ *pool.Worker, lo, hi int) E {
		return extremeFuncOf(s[lo:hi], cmp, largest)
	}, func(a, b E) E { return pick(a, b, cmp, largest) }, opts)
}

// extremeFuncOf is the first extreme element of s, which is not empty, by
// cmp (extremeFunc).
func extremeFuncOf[E any](s []E, cmp func(a, b E) int, largest bool) E {
	m := s[0]
	for _, e := range s[1:] {
		m = pick(m, e, cmp, largest)
	}
	return m
}

// pick is the extreme of a and b, a earlier, by cmp: b only if it is
// strictly more extreme.
func pick[E any](a, b E, cmp func(a, b E) int, largest bool) E {
	if c := cmp(b, a); c < 0 && !largest || c > 0 && largest {
		return b
	}
	return a
}

// Sum returns the sum of the elements of s, 0 if s is empty, computed in
// parallel with Reduce: every piece is summed in order, and the piece sums
// are added in index order. E may be any integer, floating-point or
// complex type (or a type defined over one). Integer sums wrap around on
// overflow exactly as a sequential sum does. Floating-point sums are
// grouped differently from a sequential loop, so they may differ from it
// in the last bits, and from run to run as the split adapts to the load;
// opts are as for Reduce, so Deterministic fixes the sum too. With a
// Context that ends or a Stop flag that is set, Sum returns early with the
// sum of the elements it looked at, an unspecified part of s (0 if none):
// check ctx.Err() or the flag afterwards.
func Sum[S ~[]E, E constraints.Integer | constraints.Float | constraints.Complex](r pool.Runner, s S, opts ...Option) E {
	w := enter(r)
	if oneStep(w, uint64(len(s)), opts) {
		return inOneStep(w, func(_ *pool.Worker, lo, hi int) E { return sumOf(s[lo:hi]) }, 0, len(s))
	}
	return reduceSlice(r, w, "Sum", len(s), 0, func(_ *pool.Worker, lo, hi int) E {
		return sumOf(s[lo:hi])
	}, func(a, b E) E { return a + b }, opts)
}

// sumOf is the sequential sum of s.
func sumOf[E constraints.Integer | constraints.Float | constraints.Complex](s []E) E {
	var t E
	for _, e := range s {
		t += e
	}
	return t
}

// CountFunc returns the number of elements e of s for which f(e) is true,
// computed in parallel. f is called exactly once per element, from several
// workers at once, and must be safe for concurrent use. opts are as for
// Reduce; a call that stops early (Context, Stop) returns the count among
// the elements it looked at, as Sum does. A panic in f is re-raised as in
// For. CountFunc panics if f is nil.
func CountFunc[S ~[]E, E any](r pool.Runner, s S, f func(E) bool, opts ...Option) int {
	if f == nil {
		panic("parallel: CountFunc with a nil function")
	}
	w := enter(r)
	if oneStep(w, uint64(len(s)), opts) {
		return inOneStep(w, func(_ *pool.Worker, lo, hi int) int { return countOf(s[lo:hi], f) }, 0, len(s))
	}
	return reduceSlice(r, w, "CountFunc", len(s), 0, func(_ *pool.Worker, lo, hi int) int {
		return countOf(s[lo:hi], f)
	}, func(a, b int) int { return a + b }, opts)
}

// countOf is the number of elements e of s for which f(e) is true.
func countOf[E any](s []E, f func(E) bool) int {
	c := 0
	for _, e := range s {
		if f(e) {
			c++
		}
	}
	return c
}

// reduceSlice is Reduce over [0, n) for the aggregates, entered on w
// (what enter returned; the one-step case decided already), with the
// call's name in the panics about its options.
func reduceSlice[T any](r pool.Runner, w *pool.Worker, call string, n int, identity T,
	chunk func(w *pool.Worker, lo, hi int) T, combine func(a, b T) T, opts []Option) T {
	l := loop[T, int]{chunk: chunk, combine: combine}
	res, _ := runEntered(r, w, call, optsReduce, 0, n, &l, opts)
	if !res.ok {
		return identity
	}
	return res.v
}
