package parallel

import (
	"slices"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/pool"
)

// SortStableFunc sorts s in ascending order as determined by cmp, in
// parallel, keeping equal elements in their original order, and returns
// when it is sorted. The result is the one slices.SortStableFunc gives.
// cmp is as for SortFunc: a strict weak ordering, safe for concurrent use.
//
//	// By department; within a department, in the order of the input.
//	parallel.SortStableFunc(p, staff, func(a, b Employee) int {
//		return strings.Compare(a.Dept, b.Dept)
//	})
//
// SortStableFunc is a merge sort. It allocates one buffer as long as s,
// sorts pieces of a few dozen elements with slices.SortStableFunc, all at
// the same time, and merges them pairwise in rounds, moving the elements
// between s and the buffer in each round. Each merge is itself split in
// parallel (at the middle of the longer run and the matching place in
// the other, found by binary search), so the last merges, which handle
// the whole slice, keep every worker busy too. Input that is already
// sorted, or strictly descending, is recognised in one pass and needs no
// buffer. On random input SortStableFunc is faster than
// slices.SortStableFunc even on one worker (about 2.5 times for a few
// million elements), because slices.SortStableFunc, which needs no
// buffer, merges in place in O(n log² n) time.
//
// Slices of up to a thousand elements are sorted with
// slices.SortStableFunc on the calling goroutine, without a round trip
// through the pool and without the buffer; slices of length 0 and 1 are
// left alone.
//
// A cmp that is not a strict weak ordering leaves s in an unspecified
// order, but SortStableFunc still returns, and s still holds exactly the
// elements it held before. If cmp panics, the pieces that are running
// finish, those not started are dropped, and SortStableFunc panics in the
// caller with a *pool.PanicError carrying the original value and stack.
// s then holds exactly its original elements, in no particular order:
// where a merge into s was cut short, the elements are copied back from
// the buffer, which still holds the merge's input.
//
// SortStableFunc panics if cmp is nil.
//
// opts may be Context and Stop (other options panic): once the context
// ends or the flag is set, SortStableFunc stops before its next merge and returns, with s holding
// exactly the elements it held, in no particular order; check ctx.Err()
// or the flag afterwards. A call whose context is done, or whose flag is
// set, leaves s as it was.
func SortStableFunc[S ~[]E, E any](r pool.Runner, s S, cmp func(a, b E) int, opts ...Option) {
	if cmp == nil {
		panic("parallel: SortStableFunc with a nil cmp function")
	}
	n := len(s)
	w, ctl, big := sortStart(r, "SortStableFunc", opts, n, stableCutoff, func() { slices.SortStableFunc(s, cmp) })
	if !big {
		return
	}
	// The depth of the merge tree: even, so that the leaves, which sort in
	// place in s, are where the ping-pong between s and buf needs them.
	depth := 2
	for n>>depth > stableLeaf {
		depth += 2
	}
	runSort(r, w, ctl, func(w *pool.Worker) {
		// Sorted input needs no buffer, and strictly descending input
		// only a reversal (no two elements are equal, so that is
		// stable). On other input these scans stop at once.
		if runLength(s, cmp, false) == n {
			return
		}
		if runLength(s, cmp, true) == n {
			slices.Reverse(s)
			return
		}
		ms := mergeSorter[E]{s: s, buf: make([]E, n), cmp: cmp, ctl: ctl}
		ms.sort(w, 0, n, depth)
	})
}

const (
	// stableCutoff is the length up to which SortStableFunc simply calls
	// slices.SortStableFunc.
	stableCutoff = 1 << 10

	// stableLeaf is the longest piece the merge sort hands to
	// slices.SortStableFunc; pieces are between stableLeaf/4 and
	// stableLeaf long, short enough for its insertion sort. A round of
	// merges costs about half as much as one of slices.SortStableFunc's
	// in-place merge rounds, so it pays to merge from the smallest pieces
	// up.
	stableLeaf = 1 << 5

	// mergeCutoff is the length up to which a merge runs sequentially,
	// and the sort of a range does not fork.
	mergeCutoff = 1 << 13
)

// mergeSorter is a merge sort of s using buf, of the same length, as
// scratch space.
//
// A call of sort at an even depth leaves its range sorted in s, one at an
// odd depth leaves it sorted in buf: the two halves of a range are sorted
// into the other slice, and the range is merged from there into its own,
// so that each round moves the elements once, without copies. The leaves,
// at an even depth, sort in place in s.
//
// Where are the elements if cmp panics? Merges only read their input, and
// the input of a merge into buf is in s. So whenever a call of sort
// returns or panics, s holds the elements of its range (sorted, or as two
// sorted halves, or in some order), except while a merge from buf into s
// runs: if that merge panics, its range is copied back from buf before
// the panic goes on.
//
// A sort that stops (Context, Stop) skips the merges that have not
// started: a merge into buf leaves s as it was, and one into s that does
// not run leaves there what its halves' merges into buf read, so s holds
// the range's elements either way.
type mergeSorter[E any] struct {
	s, buf []E
	cmp    func(a, b E) int
	ctl    *control // the call's, if it has options; nil otherwise
}

// sort sorts the elements of s[lo:hi] into s (depth even) or buf (depth
// odd). The leaves of the recursion are depth levels down.
func (ms *mergeSorter[E]) sort(w *pool.Worker, lo, hi, depth int) {
	if depth == 0 {
		slices.SortStableFunc(ms.s[lo:hi], ms.cmp)
		return
	}
	mid := lo + (hi-lo)/2
	if hi-lo > mergeCutoff {
		forkjoin.Join(w,
			func(w *pool.Worker) struct{} {
				ms.sort(w, lo, mid, depth-1)
				return struct{}{}
			},
			func(w *pool.Worker) struct{} {
				ms.sort(w, mid, hi, depth-1)
				return struct{}{}
			})
	} else {
		ms.sort(w, lo, mid, depth-1)
		ms.sort(w, mid, hi, depth-1)
	}
	if ms.ctl != nil && ms.ctl.stopped() {
		ms.ctl.skip()
		return
	}
	src, dst := ms.s, ms.buf
	if depth%2 == 0 {
		src, dst = ms.buf, ms.s
		// On a panic the merge leaves dst[lo:hi] half written; src still
		// holds every element of the range.
		merged := false
		defer func() {
			if !merged {
				copy(dst[lo:hi], src[lo:hi])
			}
		}()
		ms.merge(w, src, dst, lo, mid, mid, hi, lo)
		merged = true
		return
	}
	ms.merge(w, src, dst, lo, mid, mid, hi, lo)
}

// merge merges the sorted runs src[a0:a1] and src[b0:b1] into dst[d:],
// stably: an element of the first run goes before an equal one of the
// second. Long merges are split in two independent merges that run in
// parallel.
func (ms *mergeSorter[E]) merge(w *pool.Worker, src, dst []E, a0, a1, b0, b1, d int) {
	cmp := ms.cmp
	if a1-a0+b1-b0 > mergeCutoff {
		// Split at the middle of the longer run, and where the element
		// there belongs in the other run, and fork the lower halves.
		var am, bm int
		if a1-a0 >= b1-b0 {
			am = a0 + (a1-a0)/2
			// The first element of the second run not less than
			// src[am]: equal ones go after it.
			x := src[am]
			bm = b0 + searchFunc(src[b0:b1], func(y E) bool { return !(cmp(y, x) < 0) })
		} else {
			bm = b0 + (b1-b0)/2
			// The first element of the first run greater than src[bm]:
			// equal ones go before it.
			y := src[bm]
			am = a0 + searchFunc(src[a0:a1], func(x E) bool { return cmp(y, x) < 0 })
		}
		a, b, dd := a0, b0, d
		forkjoin.Join(w,
			func(w *pool.Worker) struct{} {
				ms.merge(w, src, dst, a, am, b, bm, dd)
				return struct{}{}
			},
			func(w *pool.Worker) struct{} {
				ms.merge(w, src, dst, am, a1, bm, b1, dd+(am-a)+(bm-b))
				return struct{}{}
			})
		return
	}
	mergeSeq(src[a0:a1], src[b0:b1], dst[d:d+(a1-a0)+(b1-b0)], cmp)
}

// runLength returns the length of the longest prefix of s that is in
// order: non-descending, or strictly descending if descending is set.
func runLength[E any](s []E, cmp func(a, b E) int, descending bool) int {
	if len(s) == 0 {
		return 0
	}
	i := 1
	if descending {
		for i < len(s) && cmp(s[i], s[i-1]) < 0 {
			i++
		}
	} else {
		for i < len(s) && !(cmp(s[i], s[i-1]) < 0) {
			i++
		}
	}
	return i
}

// searchFunc returns the smallest index i in [0, len(x)] at which f(x[i])
// is true, assuming f is false and then true over x; like sort.Search,
// it returns some index in [0, len(x)] whatever f does.
func searchFunc[E any](x []E, f func(E) bool) int {
	i, j := 0, len(x)
	for i < j {
		h := int(uint(i+j) >> 1)
		if !f(x[h]) {
			i = h + 1
		} else {
			j = h
		}
	}
	return i
}

// mergeSeq merges the sorted slices a and b into dst, of length
// len(a)+len(b), stably. It writes every element of a and b to dst exactly
// once, whatever cmp returns.
func mergeSeq[E any](a, b, dst []E, cmp func(a, b E) int) {
	// Already in order (the common case for sorted input), or in reverse
	// order: copy the runs as they are, or swapped.
	if len(a) == 0 || len(b) == 0 || !(cmp(b[0], a[len(a)-1]) < 0) {
		copy(dst, a)
		copy(dst[len(a):], b)
		return
	}
	if cmp(b[len(b)-1], a[0]) < 0 {
		copy(dst, b)
		copy(dst[len(b):], a)
		return
	}
	i, j, k := 0, 0, 0
	for i < len(a) && j < len(b) {
		if cmp(b[j], a[i]) < 0 {
			dst[k] = b[j]
			j++
		} else {
			dst[k] = a[i]
			i++
		}
		k++
	}
	k += copy(dst[k:], a[i:])
	copy(dst[k:], b[j:])
}
