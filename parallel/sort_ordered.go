package parallel

import "cmp"

// What Sort's quicksort (quickOrdered, generated into zsortordered.go)
// does differently from SortFunc's: the comparison, which is cmp.Less
// written out, and a faster partition (see splitOrdered) that hands much
// shorter ranges to slices.Sort.

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
