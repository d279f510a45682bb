package parallel

import (
	"math/bits"

	"github.com/forkjoin/fj/pool"
)

// Filter returns a new slice holding the elements e of s for which keep(e)
// is true, in their order in s, computed in parallel. s is not modified.
// The result has exactly the length and capacity it needs; it is nil if no
// element is kept.
//
// Filter is a two-pass parallel algorithm, like Scan. The first pass calls
// keep once for every element, in parallel, and records the answers in a
// bitmap (one bit per element) and the number kept per block of a few
// hundred elements; a short sequential pass turns the block counts into
// offsets in the result; the second pass copies the kept elements of every
// block to their place, in parallel. keep is therefore called exactly once
// per element, but from several workers at once and in no particular
// order: it must be safe for concurrent use. opts are as for ForRange; the
// grain counts elements.
//
// With a Context that ends, or a Stop flag that is set, before Filter has
// completed both passes, Filter returns nil: a result that leaves out
// elements it did not get to test would be wrong, and one holding zero
// values in their place would not even be made of elements of s. Check
// ctx.Err() or the flag to tell that nil from "no element kept". A
// panic in keep is re-raised as in For, and no result is returned.
// Filter panics if keep is nil.
//
//	evens := parallel.Filter(p, xs, func(x int) bool { return x%2 == 0 })
func Filter[S ~[]E, E any](r pool.Runner, s S, keep func(E) bool, opts ...Option) S {
	w := enter(r)
	if keep == nil {
		panic("parallel: Filter with a nil keep function")
	}
	// The options first, whatever the input: a WithContext option is
	// used up, and its context ends when Filter returns, also on an
	// empty slice.
	c, ctl := controlled("Filter", opts)
	defer ctl.finish()
	n := len(s)
	if n == 0 || ctl.stopped() {
		return nil
	}
	if c.grain > 0 {
		// The loops below run over blocks: translate the grain.
		c.grain = (c.grain + filterBlock - 1) / filterBlock
	}
	// Blocks are whole words of the bitmap, so that the workers never
	// write to the same word.
	nb := (n + filterBlock - 1) / filterBlock
	marks := make([]uint64, nb*filterBlock/64)
	counts := make([]int, nb)
	mark := func(b int) {
		lo, hi := b*filterBlock, min((b+1)*filterBlock, n)
		c := 0
		for i := lo; i < hi; i++ {
			if keep(s[i]) {
				marks[i/64] |= 1 << (i % 64)
				c++
			}
		}
		counts[b] = c
	}
	if nb == 1 {
		// One block: no task pays off. Run keep here, but report its
		// panic as the parallel path does.
		inline(ctl, func() { mark(0) })
		if counts[0] == 0 || ctl.stopped() {
			return nil
		}
		out := make(S, counts[0])
		gather(out, s, marks, 0, n)
		return out
	}

	var out S
	run(r, w, ctl, func(w *pool.Worker) {
		forPieces(w, ctl, c.grain, uint64(nb), func(_ *pool.Worker, blo, bhi uint64) {
			for b := blo; b < bhi; b++ {
				mark(int(b))
			}
		})
		if ctl.cut.Load() {
			return
		}
		// counts[b] becomes the offset of block b in the result.
		total := 0
		for b, c := range counts {
			counts[b] = total
			total += c
		}
		if total == 0 {
			return
		}
		out = make(S, total)
		forPieces(w, ctl, c.grain, uint64(nb), func(_ *pool.Worker, blo, bhi uint64) {
			for b := int(blo); b < int(bhi); b++ {
				gather(out[counts[b]:], s, marks, b*filterBlock, min((b+1)*filterBlock, n))
			}
		})
	})
	if ctl.cut.Load() {
		return nil
	}
	return out
}

// gather copies the elements of s[lo:hi] whose bits are set in marks to
// the front of out; lo is a multiple of 64.
func gather[E any](out, s []E, marks []uint64, lo, hi int) {
	j := 0
	for base := lo; base < hi; base += 64 {
		m := marks[base/64]
		for m != 0 {
			out[j] = s[base+bits.TrailingZeros64(m)]
			j++
			m &= m - 1
		}
	}
}

// filterBlock is the number of elements whose keep results are counted
// together: a multiple of 64, small enough that the blocks of a short slice
// spread over the workers, large enough that the per-block offsets are a
// small fraction of the work.
const filterBlock = 512
