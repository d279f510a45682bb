package parallel

import (
	"sync/atomic"

	"github.com/forkjoin/fj/pool"
)

// IndexFunc returns the first index i at which f(s[i]) is true, or -1 if
// there is none, as slices.IndexFunc does, testing the elements in
// parallel.
//
// The slice is cut into pieces as in For; every piece is scanned from its
// left end, and the leftmost hit found so far is shared between them. A
// piece stops as soon as it reaches that hit, and a piece that starts at or
// to the right of it is skipped, so work to the right of the answer ends
// early while everything to its left is still tested, as it must be. f may
// therefore be called for elements after the first hit, and in any order,
// but never for an element to the right of a hit already found by the time
// the element's block of a few hundred elements starts. Unlike
// slices.IndexFunc, IndexFunc may therefore panic for an element after the
// first hit, if f panics there.
//
// f may be called from several workers at once and must be safe for
// concurrent use. opts are as for ForRange. With a Context that ends or a
// Stop flag that is set before the answer is known, IndexFunc returns
// early with -1 or the index of an element that satisfies f, not
// necessarily the first: check ctx.Err() or the flag afterwards. A panic
// in f is re-raised as in For. IndexFunc panics if f is nil.
func IndexFunc[S ~[]E, E any](r pool.Runner, s S, f func(E) bool, opts ...Option) int {
	if f == nil {
		panic("parallel: IndexFunc with a nil function")
	}
	n := len(s)
	// best is the leftmost hit found so far, n while there is none.
	var best atomic.Int64
	best.Store(int64(n))
	l := loop[struct{}, int]{rng: func(_ *pool.Worker, lo, hi int) {
		for b := lo; b < hi; b += searchBlock {
			if int64(b) >= best.Load() {
				return
			}
			end := min(b+searchBlock, hi)
			for i := b; i < end; i++ {
				if f(s[i]) {
					// Lower best to i unless a hit to the left of i is
					// already known.
					for {
						cur := best.Load()
						if int64(i) >= cur || best.CompareAndSwap(cur, int64(i)) {
							return
						}
					}
				}
			}
		}
	}}
	runLoop(r, "IndexFunc", optsLoop, 0, n, &l, opts)
	if i := best.Load(); i < int64(n) {
		return int(i)
	}
	return -1
}

// ContainsFunc reports whether f(e) is true for at least one element e of
// s, as slices.ContainsFunc does, testing the elements in parallel. The
// first hit anywhere stops every piece, at the end of the block of a few
// hundred elements it is scanning, and pieces not started yet are skipped.
// Which elements f sees before that depends on the timing; a panic in f
// for any of them is raised even if another element satisfies f.
//
// f may be called from several workers at once and must be safe for
// concurrent use. opts are as for ForRange. With a Context that ends or a
// Stop flag that is set, ContainsFunc returns early: true is always right
// (an element satisfies f), but false then only says that none of the
// elements it looked at does: check ctx.Err() or the flag afterwards. A
// panic in f is re-raised as in For. ContainsFunc panics if f is nil.
func ContainsFunc[S ~[]E, E any](r pool.Runner, s S, f func(E) bool, opts ...Option) bool {
	if f == nil {
		panic("parallel: ContainsFunc with a nil function")
	}
	var found atomic.Bool
	l := loop[struct{}, int]{rng: func(_ *pool.Worker, lo, hi int) {
		for b := lo; b < hi; b += searchBlock {
			if found.Load() {
				return
			}
			for _, e := range s[b:min(b+searchBlock, hi)] {
				if f(e) {
					found.Store(true)
					return
				}
			}
		}
	}}
	runLoop(r, "ContainsFunc", optsLoop, 0, len(s), &l, opts)
	return found.Load()
}

// searchBlock is how many elements a search tests between two looks at
// the shared result: often enough that a hit stops the other workers
// within microseconds, rarely enough that the shared load costs nothing
// next to the calls of f.
const searchBlock = 256
