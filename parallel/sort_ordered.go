package parallel

import (
	"cmp"
	"slices"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/pool"
)

// The quicksort of sort.go for cmp.Ordered elements, with the comparisons
// written out instead of called through a function value, as slices.Sort
// does, and a faster partition (see splitOrdered). Apart from that it is
// sort.go's code with cmp(x, y) < 0 replaced by cmpLess(x, y); keep the
// two in step.

// orderedLeaf is the longest range Sort's quicksort hands to slices.Sort.
// Our branchless partition is much faster than slices.Sort's on random
// input, so Sort partitions ranges itself down to a few dozen elements
// (sequentially, below sortCutoff).
const orderedLeaf = 1 << 5

// cmpLess is cmp.Less: x < y, with NaNs ordered before every other value.
// For non-float types the NaN tests compile away.
func cmpLess[E cmp.Ordered](x, y E) bool {
	return (isNaN(x) && !isNaN(y)) || x < y
}

// isNaN reports whether x is a NaN; always false for non-float types.
func isNaN[E cmp.Ordered](x E) bool {
	return x != x
}

// quickOrdered is a quicksort of data.
type quickOrdered[E cmp.Ordered] struct {
	data   []E
	spread int // ranges at least this long are partitioned in parallel
}

// sort sorts data[a:b]. limit is the number of badly unbalanced
// partitions allowed before the range is handed to slices.Sort, whose
// own pdqsort falls back to heapsort: the whole sort is O(n log n) even on
// adversarial input. wasBalanced and wasPartitioned describe the
// partition that produced this range.
func (q *quickOrdered[E]) sort(w *pool.Worker, a, b, limit int, wasBalanced, wasPartitioned bool) {
	data := q.data
	for {
		length := b - a
		if length <= orderedLeaf || limit <= 0 {
			slices.Sort(data[a:b])
			return
		}

		// The last partition was badly unbalanced: shuffle a few elements
		// to break the pattern that caused it.
		if !wasBalanced {
			breakPatterns(data, a, b)
			limit--
		}

		pivot, hint := choosePivotOrdered(data, a, b)
		if hint == decreasingHint {
			reverseRange(data, a, b)
			pivot = (b - 1) - (pivot - a)
			hint = increasingHint
		}

		// The range is likely sorted already: check, fixing up to a few
		// misplaced elements on the way.
		if wasBalanced && wasPartitioned && hint == increasingHint {
			if partialInsertionSortOrdered(data, a, b) {
				return
			}
		}

		// The pivot equals the predecessor, the pivot of an enclosing
		// partition, which is <= every element here: the range holds many
		// copies of it. Move them to the front and carry on with the
		// elements greater than it, so duplicates cost linear time.
		if a > 0 && !cmpLess(data[a-1], data[pivot]) {
			a = partitionEqualOrdered(data, a, b, pivot)
			wasBalanced, wasPartitioned = true, true
			continue
		}

		// Partition around the pivot, moved to data[a] meanwhile.
		data[a], data[pivot] = data[pivot], data[a]
		var mid int
		var moved bool
		if length >= q.spread {
			mid, moved = q.split(w, a+1, b, data[a])
		} else {
			mid, moved = splitOrdered(data, a+1, b, data[a])
		}
		mid--
		data[a], data[mid] = data[mid], data[a]

		balanced := min(mid-a, b-mid-1) >= length/8
		if length > sortCutoff {
			lo, hi, lim := a, b, limit // not a, b, limit: captured, they would escape
			forkjoin.Join(w,
				func(w *pool.Worker) struct{} {
					q.sort(w, lo, mid, lim, balanced, !moved)
					return struct{}{}
				},
				func(w *pool.Worker) struct{} {
					q.sort(w, mid+1, hi, lim, balanced, !moved)
					return struct{}{}
				})
			return
		}
		// Too short to be worth a fork: recurse into the shorter side and
		// loop on the longer one, so the stack stays O(log n) deep.
		if mid-a < b-mid-1 {
			q.sort(w, a, mid, limit, balanced, !moved)
			a = mid + 1
		} else {
			q.sort(w, mid+1, b, limit, balanced, !moved)
			b = mid
		}
		wasBalanced, wasPartitioned = balanced, !moved
	}
}

// split is splitOrdered in parallel: the range is cut in pieces that are
// partitioned at the same time, and the pieces' halves are then put in
// order by swapping blocks, a step that moves about a quarter of the
// elements and compares none.
func (q *quickOrdered[E]) split(w *pool.Worker, lo, hi int, p E) (mid int, moved bool) {
	if hi-lo <= splitPiece {
		return splitOrdered(q.data, lo, hi, p)
	}
	m := lo + (hi-lo)/2
	l, r := forkjoin.Join(w,
		func(w *pool.Worker) splitResult {
			mid, moved := q.split(w, lo, m, p)
			return splitResult{mid, moved}
		},
		func(w *pool.Worker) splitResult {
			mid, moved := q.split(w, m, hi, p)
			return splitResult{mid, moved}
		})
	return mergeSplits(w, q.data, l, m, r)
}

// partitionEqualOrdered moves the elements of data[a:b] that are not greater
// than p = data[pivot] to the front and returns where the others start,
// which is at least a+1 (p itself goes first).
func partitionEqualOrdered[E cmp.Ordered](data []E, a, b, pivot int) (newpivot int) {
	data[a], data[pivot] = data[pivot], data[a]
	i, j := a+1, b-1
	for {
		for i <= j && !cmpLess(data[a], data[i]) {
			i++
		}
		for i <= j && cmpLess(data[a], data[j]) {
			j--
		}
		if i > j {
			break
		}
		data[i], data[j] = data[j], data[i]
		i++
		j--
	}
	return i
}

// partialInsertionSortOrdered reports whether data[a:b] is sorted, after
// moving at most a few out-of-place elements to where they belong. Unlike
// pdqsort's, its shifts stop at a: the elements before it are another
// worker's.
func partialInsertionSortOrdered[E cmp.Ordered](data []E, a, b int) bool {
	const maxSteps = 5 // adjacent out-of-order pairs fixed before giving up
	i := a + 1
	for step := 0; step < maxSteps; step++ {
		for i < b && !cmpLess(data[i], data[i-1]) {
			i++
		}
		if i == b {
			return true
		}
		data[i], data[i-1] = data[i-1], data[i]
		// Shift the smaller one to the left, the greater one to the right.
		for j := i - 1; j > a && cmpLess(data[j], data[j-1]); j-- {
			data[j], data[j-1] = data[j-1], data[j]
		}
		for j := i + 1; j < b && cmpLess(data[j], data[j-1]); j++ {
			data[j], data[j-1] = data[j-1], data[j]
		}
	}
	return false
}

// choosePivotOrdered returns the index of a pivot for data[a:b], b-a >= 9:
// Tukey's ninther (the median of three medians of three) of elements
// spread over the range (see samplePositions). hint tells whether the
// samples all came in increasing or all in decreasing order, which
// suggests a sorted or reversed range.
func choosePivotOrdered[E cmp.Ordered](data []E, a, b int) (pivot int, hint sortedHint) {
	const maxSwaps = 4 * 3
	var swaps int
	i, j, k := samplePositions(a, b-a)
	i = medianOrdered(data, i-1, i, i+1, &swaps)
	j = medianOrdered(data, j-1, j, j+1, &swaps)
	k = medianOrdered(data, k-1, k, k+1, &swaps)
	j = medianOrdered(data, i, j, k, &swaps)
	switch swaps {
	case 0:
		return j, increasingHint
	case maxSwaps:
		return j, decreasingHint
	default:
		return j, unknownHint
	}
}

// order2Ordered returns x, y with data[x] <= data[y], where {x, y} = {a, b}.
func order2Ordered[E cmp.Ordered](data []E, a, b int, swaps *int) (int, int) {
	if cmpLess(data[b], data[a]) {
		*swaps++
		return b, a
	}
	return a, b
}

// medianOrdered returns the index, a, b or c, of the median of data[a],
// data[b] and data[c].
func medianOrdered[E cmp.Ordered](data []E, a, b, c int, swaps *int) int {
	a, b = order2Ordered(data, a, b, swaps)
	b, _ = order2Ordered(data, b, c, swaps)
	_, b = order2Ordered(data, a, b, swaps)
	return b
}

// splitOrdered partitions data[lo:hi] around the value p: it returns mid
// such that data[i] < p for lo <= i < mid and data[j] >= p for
// mid <= j < hi, and whether any element had to move.
//
// Unlike splitFunc it is a branchless Lomuto partition: every element is
// moved, but whether it goes left is added to an index instead of being
// branched on, so the CPU does not mispredict on every other element of
// random input. For machine-word elements that makes it about three times
// as fast as the branchy Hoare partition of slices.Sort. (With a
// comparator called through a function value the Hoare partition wins.)
func splitOrdered[E cmp.Ordered](data []E, lo, hi int, p E) (mid int, moved bool) {
	// Skip what is in place at both ends: all of a sorted range, and a
	// range of elements all greater than a NaN pivot.
	i, j := lo, hi-1
	for i <= j && cmpLess(data[i], p) {
		i++
	}
	for i <= j && !cmpLess(data[j], p) {
		j--
	}
	if i > j {
		return i, false
	}
	// data[i] >= p > data[j]. Since something is less than p, p is not a
	// NaN, and then cmpLess(x, p) is !(p <= x), NaN or not.
	k := i // where the next element less than p goes
	for m, x := range data[i : j+1] {
		lt := !(p <= x)
		data[i+m] = data[k]
		data[k] = x
		k += b2i(lt)
	}
	return k, true
}

// b2i is 1 for true and 0 for false, without a branch.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
