package parallel

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
	"sort"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/internal/sched"
	"github.com/forkjoin/fj/pool"
)

// Sort sorts s in ascending order, in parallel, and returns when it is
// sorted. The result is the one slices.Sort gives: for floating-point
// elements NaNs come first and -0 and +0 are equal (their relative order,
// like that of any equal elements, is unspecified). The sort is not
// stable; use SortStableFunc to keep equal elements in their input order.
//
// Use it from ordinary code with a *pool.Pool (the call blocks until s is
// sorted), or from inside a task with the task's *pool.Worker (the work
// forks onto that worker, which keeps working while it waits):
//
//	parallel.Sort(p, xs)
//
//	parallel.For(p, 0, len(rows), func(w *pool.Worker, i int) {
//		parallel.Sort(w, rows[i]) // nested: forks onto w
//	})
//
// Sort is a parallel pattern-defeating quicksort (pdqsort, the algorithm
// of slices.Sort): every partition forks the sorting of its two sides
// with forkjoin.Join, so idle workers steal the largest pieces first, and
// the first partitions, which cover the whole slice, are themselves
// split among the workers. Its partition step is branchless, which makes
// it several times faster than slices.Sort's on random input, so Sort
// partitions down to a few dozen elements before it hands a piece to
// slices.Sort. Inputs that defeat a plain quicksort (sorted, reversed,
// many duplicates, sawtooth, "median-of-3 killer" sequences) still take
// O(n log n) time: Sort detects sorted runs, partitions runs of equal
// elements out in linear time, and after too many lopsided partitions
// finishes a piece with slices.Sort, which guarantees O(n log n). It
// allocates a few bytes per piece, never a copy of s.
//
// Slices of up to a few thousand elements are sorted with slices.Sort on
// the calling goroutine, without a round trip through the pool; slices
// of length 0 and 1 are left alone. Nobody else may modify s while Sort
// runs.
//
// opts may be Context and Stop (other options panic): once the context
// ends or the flag is set, Sort stops between two partitions and returns, with s holding
// exactly the elements it held, in no particular order; check ctx.Err()
// or the flag afterwards. A call whose context is done, or whose flag is
// set, leaves s as it was.
func Sort[S ~[]E, E cmp.Ordered](r pool.Runner, s S, opts ...Option) {
	n := len(s)
	if w, ctl, big := sortStart(r, "Sort", opts, n, sortCutoff, func() { slices.Sort(s) }); big {
		runSort(r, w, ctl, func(w *pool.Worker) {
			q := &quickOrdered[E]{data: s, spread: spreadFor(n, w.Pool().Workers()), ctl: ctl}
			q.sort(w, 0, n, bits.Len(uint(n)), true, true)
		})
	}
}

// SortFunc sorts s in ascending order as determined by cmp, in parallel,
// and returns when it is sorted. As for slices.SortFunc, cmp(a, b) must
// return a negative number when a < b, a positive number when a > b and
// zero when a and b are equal or incomparable, and it must be a strict
// weak ordering (cmp.Compare is one). The sort is not stable; see
// SortStableFunc.
//
//	parallel.SortFunc(p, people, func(a, b Person) int {
//		return strings.Compare(a.Name, b.Name)
//	})
//
// cmp is called from several workers at the same time, so it must be safe
// for concurrent use (a pure function of its arguments is); it should be
// cheap and must not block. Otherwise SortFunc works like Sort: a parallel
// pdqsort, O(n log n) on every input, that hands pieces of a few thousand
// elements to slices.SortFunc and sorts short slices on the calling
// goroutine.
//
// A cmp that is not a strict weak ordering (inconsistent or random
// results) leaves s in an unspecified order, but SortFunc still returns,
// and s still holds exactly the elements it held before. If cmp panics,
// the pieces that are running finish, those not started are dropped, and
// SortFunc panics in the caller with a *pool.PanicError carrying the
// original value and stack; s then holds its original elements in no
// particular order.
//
// SortFunc panics if cmp is nil.
//
// opts may be Context and Stop (other options panic): once the context
// ends or the flag is set, SortFunc stops between two partitions and returns, with s holding
// exactly the elements it held, in no particular order; check ctx.Err()
// or the flag afterwards. A call whose context is done, or whose flag is
// set, leaves s as it was.
func SortFunc[S ~[]E, E any](r pool.Runner, s S, cmp func(a, b E) int, opts ...Option) {
	if cmp == nil {
		panic("parallel: SortFunc with a nil cmp function")
	}
	n := len(s)
	if w, ctl, big := sortStart(r, "SortFunc", opts, n, funcCutoff, func() { slices.SortFunc(s, cmp) }); big {
		runSort(r, w, ctl, func(w *pool.Worker) {
			q := &quickFunc[E]{data: s, cmp: cmp, spread: spreadFor(n, w.Pool().Workers()), ctl: ctl}
			q.sort(w, 0, n, bits.Len(uint(n)), true, true)
		})
	}
}

const (
	// sortCutoff is the length up to which Sort sorts sequentially, on
	// the calling goroutine, and below which its quicksort stops forking.
	// Sorting 2^12 elements takes about 100 µs: a fork (tens of
	// nanoseconds) is noise next to it, and a round trip through the
	// pool, which may have to wake a sleeping worker, no longer is.
	sortCutoff = 1 << 12

	// funcCutoff is sortCutoff for SortFunc, which gains less from
	// parallelism on short slices: its partitions are no faster than
	// slices.SortFunc's.
	funcCutoff = 1 << 13
)

// sortStart is the start the sorts share: it enters r and makes the
// call's control from opts (Context and Stop; nil with neither). A slice
// of n < 2 elements, or a call whose control is stopping already, is
// done; one of at most cutoff elements is sorted by small, on the calling
// goroutine (inline). Either way sortStart has finished the control and
// reports big false. Otherwise the caller sorts the slice with runSort,
// which finishes it.
func sortStart(r pool.Runner, call string, opts []Option, n, cutoff int, small func()) (w *pool.Worker, ctl *control, big bool) {
	w = enter(r)
	ctl = sortControl(call, opts)
	done := n < 2 || ctl.stoppedNow()
	if !done && n > cutoff {
		return w, ctl, true
	}
	if ctl != nil {
		defer ctl.finish()
	}
	if !done {
		inline(ctl, small)
	}
	return w, ctl, false
}

// runSort runs f, a sort that sortStart left to its caller, on w or on a
// worker of r (run), and then finishes its control.
func runSort(r pool.Runner, w *pool.Worker, ctl *control, f func(w *pool.Worker)) {
	if ctl != nil {
		defer ctl.finish()
	}
	run(r, w, ctl, f)
}

// sortControl returns the control of a sort given opts, or nil if it has
// none (the sorts take Context and Stop only).
func sortControl(call string, opts []Option) *control {
	c := parse(call, optsSort, opts)
	if c.ctx == nil && c.stop == nil && c.body == nil {
		return nil
	}
	return newControl(&c)
}

// stoppedNow reports whether ctl, which may be nil, is stopping, and
// records that the call skips its work if so.
func (ctl *control) stoppedNow() bool {
	if ctl == nil || !ctl.stopped() {
		return false
	}
	ctl.skip()
	return true
}

// inline runs f, a sequential sort, on the calling goroutine and re-raises
// a panic in it as a *pool.PanicError, as if f had run on a worker
// (sched.RunHere), with the call's stop flag set (ctl may be nil).
func inline(ctl *control, f func()) {
	returned := false
	defer ctl.stopUnless(&returned)
	sched.RunHere(f)
	returned = true
}

//go:generate go run gen_sort_variants.go

// The quicksort behind Sort and SortFunc is pdqsort (Orson Peters,
// "Pattern-defeating Quicksort", https://arxiv.org/abs/2106.05123), the
// algorithm of slices.SortFunc, with the recursion on both sides of a
// partition forked with forkjoin.Join, and the first partitions, which
// would otherwise run on one worker while the others wait, split among
// the workers too. It is written once, as a template in
// gen_sort_variants.go, which generates zsortfunc.go (quickFunc, comparing
// with cmp) and zsortordered.go (quickOrdered, with the comparisons
// inlined for cmp.Ordered elements, as slices.Sort does). This file holds
// what both variants share, and splitFunc; sort_ordered.go holds what
// only the ordered one has.
//
// Every loop is bounded by indices, never by a sentinel comparison, and
// every element move is a swap, so that a comparator that is not a strict
// weak order (or that panics) cannot make an index run out of range or
// lose an element. No routine touches an element outside its own range
// [a, b): ranges are sorted by different workers at the same time. The
// only element outside it that is read is data[a-1], the pivot of an
// enclosing partition, which nobody moves any more.

const (
	// funcLeaf is the longest range SortFunc's quicksort hands to
	// slices.SortFunc, whose partitions are as fast as ours.
	funcLeaf = 1 << 12

	// splitMin is the length from which a range is partitioned in
	// parallel, if it is also long compared with the whole slice (see
	// spreadFor); splitPiece is the length of the pieces that are
	// partitioned sequentially then.
	splitMin   = 1 << 16
	splitPiece = 1 << 14
)

// spreadFor returns the length from which ranges of a slice of n elements
// are partitioned in parallel on a pool of the given size: the first
// partitions, until there are about as many ranges as workers; none on one
// worker. Past that point the forks of the ranges keep every worker busy,
// and a parallel partition would only add its extra moves (see
// gatherSplits).
func spreadFor(n, workers int) int {
	if workers < 2 {
		return math.MaxInt
	}
	return max(splitMin, n/workers)
}

// pieceBounds returns piece i of data[lo:hi] cut into the given number of
// pieces of nearly equal length.
func pieceBounds(lo, hi, pieces, i int) (a, b int) {
	n := hi - lo
	return lo + i*n/pieces, lo + (i+1)*n/pieces
}

// sortSpan is a range data[a:b].
type sortSpan struct{ a, b int }

// gatherSplits finishes a parallel partition of data[lo:hi]: the range
// was cut into len(mids) pieces (pieceBounds), and piece i partitioned
// on its own, its elements less than the pivot before mids[i]. The range
// is split at lo plus the number of those elements; gatherSplits swaps
// each element on the wrong side of that point with one on the wrong
// side across it, in parallel if there are many. Every element moves at
// most once: merging the pieces pairwise, as a tree, would move a
// quarter of the range at every level of the tree.
//
// That as many elements are misplaced on each side follows from the
// counts alone, whatever the comparisons said, so a comparator that is
// not a strict weak order still leaves a permutation.
func gatherSplits[E any](w *pool.Worker, data []E, lo, hi int, mids []int) (mid int, moved bool) {
	mid = lo
	for i, m := range mids {
		a, _ := pieceBounds(lo, hi, len(mids), i)
		mid += m - a
	}
	// Elements not less than the pivot left of mid, and elements less
	// than it from mid on, in index order.
	var left, right []sortSpan
	for i, m := range mids {
		a, b := pieceBounds(lo, hi, len(mids), i)
		if x, y := m, min(b, mid); x < y {
			left = append(left, sortSpan{x, y})
		}
		if x, y := max(a, mid), m; x < y {
			right = append(right, sortSpan{x, y})
		}
	}
	if len(left) == 0 {
		return mid, false
	}
	leftBefore, total := spansBefore(left)
	rightBefore, n := spansBefore(right)
	if n != total {
		panic("parallel: internal error: the two sides of a partition disagree")
	}
	swapSpans(w, data, left, right, leftBefore, rightBefore, 0, total)
	return mid, true
}

// spansBefore returns, for each of spans, how many misplaced elements
// the spans before it hold, and how many they hold in all.
func spansBefore(spans []sortSpan) (before []int, total int) {
	before = make([]int, len(spans))
	for i, s := range spans {
		before[i] = total
		total += s.b - s.a
	}
	return before, total
}

// swapSpans swaps the misplaced elements k0 to k1 of the left spans with
// those of the right spans, in parallel if there are many.
func swapSpans[E any](w *pool.Worker, data []E, left, right []sortSpan, leftBefore, rightBefore []int, k0, k1 int) {
	if k1-k0 > splitMin {
		h := k0 + (k1-k0)/2
		forkjoin.Join(w,
			func(w *pool.Worker) struct{} {
				swapSpans(w, data, left, right, leftBefore, rightBefore, k0, h)
				return struct{}{}
			},
			func(w *pool.Worker) struct{} {
				swapSpans(w, data, left, right, leftBefore, rightBefore, h, k1)
				return struct{}{}
			})
		return
	}
	// The spans that hold misplaced element k0 on each side.
	i := sort.SearchInts(leftBefore, k0+1) - 1
	j := sort.SearchInts(rightBefore, k0+1) - 1
	x := left[i].a + (k0 - leftBefore[i])
	y := right[j].a + (k0 - rightBefore[j])
	for k := k0; k < k1; {
		if x == left[i].b {
			i++
			x = left[i].a
		}
		if y == right[j].b {
			j++
			y = right[j].a
		}
		c := min(k1-k, left[i].b-x, right[j].b-y)
		a, b := data[x:x+c], data[y:y+c]
		for t := range a {
			a[t], b[t] = b[t], a[t]
		}
		k += c
		x += c
		y += c
	}
}

// splitFunc partitions data[lo:hi] around the value p: it returns mid such
// that data[i] < p for lo <= i < mid and data[j] >= p for mid <= j < hi,
// and whether any element had to move. It is Hoare's partition, which
// pdqsort uses too. A block partition (BlockQuicksort, which compares a
// block of elements before it moves any, so that no branch depends on a
// comparison) took 39% longer than this one on a million 32-byte records:
// the comparator is called through a function value, and the call, not
// the mispredicted branch after it, is what each comparison costs.
func splitFunc[E any](data []E, lo, hi int, p E, cmp func(a, b E) int) (mid int, moved bool) {
	i, j := lo, hi-1 // inclusive bounds of the elements not yet placed
	for {
		for i <= j && cmp(data[i], p) < 0 {
			i++
		}
		for i <= j && !(cmp(data[j], p) < 0) {
			j--
		}
		if i > j {
			return i, moved
		}
		data[i], data[j] = data[j], data[i]
		moved = true
		i++
		j--
	}
}

type sortedHint int

const (
	unknownHint sortedHint = iota
	increasingHint
	decreasingHint
)

// samplePositions returns the centres of the ninther's three groups of
// three for a range [a, a+l), l >= 9: one in each third of the range, at a
// pseudo-random place in it (a hash of a and l, so sorting is
// deterministic). pdqsort samples at the quarters, which inputs made of a
// power-of-two number of sorted runs (or any period dividing the length)
// defeat: each sample is the start of a run, and every partition is
// lopsided. Jittered samples still come in index order, so a sorted or
// reversed range is still recognised from them.
func samplePositions(a, l int) (i, j, k int) {
	r := uint64(a)*0x9e3779b97f4a7c15 + uint64(l)
	r ^= r >> 31
	r *= 0xbf58476d1ce4e5b9
	r ^= r >> 29
	third := l / 3
	m := uint64(third - 2) // centres at offsets 1 .. third-2 in their third
	off := func(x uint64) int { return 1 + int((x&0x1fffff)*m>>21) }
	return a + off(r), a + third + off(r>>21), a + 2*third + off(r>>42)
}

// breakPatterns swaps three elements in the middle of data[a:b] with
// pseudo-random others, so that a pattern that made the last partition
// unbalanced does not repeat.
func breakPatterns[E any](data []E, a, b int) {
	length := b - a
	if length < 8 {
		return
	}
	random := uint64(length)
	modulus := uint(1) << bits.Len(uint(length))
	for idx := a + (length/4)*2 - 1; idx <= a+(length/4)*2+1; idx++ {
		random ^= random << 13 // xorshift
		random ^= random >> 7
		random ^= random << 17
		other := int(uint(random) & (modulus - 1))
		if other >= length {
			other -= length
		}
		data[idx], data[a+other] = data[a+other], data[idx]
	}
}

// reverseRange reverses data[a:b].
func reverseRange[E any](data []E, a, b int) {
	for i, j := a, b-1; i < j; i, j = i+1, j-1 {
		data[i], data[j] = data[j], data[i]
	}
}
