package cilk5

import (
	"fmt"
	"slices"
	"sort"

	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
)

// The grain of cilksort, Cilk's own: sequences shorter than sortGrain are
// sorted serially, merges of fewer than mergeGrain elements in all are
// done serially.
const (
	sortGrain  = 2048
	mergeGrain = 2048
)

func checkSortArgs(xs, tmp []int64) {
	if len(tmp) < len(xs) {
		panic(fmt.Sprintf("cilk5: cilksort of %d elements with %d of scratch space: need as many", len(xs), len(tmp)))
	}
}

// Cilksort is the serial elision of the cilksort program: it sorts xs in
// increasing order, with tmp (at least as long) as scratch space. It
// splits xs in four, sorts the quarters, merges them pairwise into tmp and
// merges the two halves back into xs; below sortGrain elements it calls
// slices.Sort.
func Cilksort(xs, tmp []int64) {
	checkSortArgs(xs, tmp)
	cilksort(xs, tmp[:len(xs)])
}

func cilksort(xs, tmp []int64) {
	if len(xs) < sortGrain {
		slices.Sort(xs)
		return
	}
	q := len(xs) / 4
	a, b, c, d := xs[:q], xs[q:2*q], xs[2*q:3*q], xs[3*q:]
	cilksort(a, tmp[:q])
	cilksort(b, tmp[q:2*q])
	cilksort(c, tmp[2*q:3*q])
	cilksort(d, tmp[3*q:])
	merge(a, b, tmp[:2*q])
	merge(c, d, tmp[2*q:])
	merge(tmp[:2*q], tmp[2*q:], xs)
}

// merge merges the sorted sequences x and y into dst, of length
// len(x)+len(y), by divide and conquer: the middle element of the longer
// sequence splits both, and the two halves are merged independently.
func merge(x, y, dst []int64) {
	if len(x) < len(y) {
		x, y = y, x
	}
	if len(x)+len(y) < mergeGrain {
		mergeSerial(x, y, dst)
		return
	}
	i, j := splitMerge(x, y)
	dst[i+j] = x[i]
	merge(x[:i], y[:j], dst[:i+j])
	merge(x[i+1:], y[j:], dst[i+j+1:])
}

// splitMerge returns where a merge of x and y splits: x[i], the middle of
// the longer x, goes to dst[i+j]; x[:i] and y[:j] hold nothing larger,
// x[i+1:] and y[j:] nothing smaller.
func splitMerge(x, y []int64) (i, j int) {
	i = len(x) / 2
	j = sort.Search(len(y), func(k int) bool { return y[k] >= x[i] })
	return i, j
}

// mergeSerial merges the sorted x and y into dst.
func mergeSerial(x, y, dst []int64) {
	i, j, k := 0, 0, 0
	for i < len(x) && j < len(y) {
		if y[j] < x[i] {
			dst[k] = y[j]
			j++
		} else {
			dst[k] = x[i]
			i++
		}
		k++
	}
	k += copy(dst[k:], x[i:])
	copy(dst[k:], y[j:])
}

// CilksortFJ is Cilksort with the four quarters sorted in parallel, the
// two pairwise merges done in parallel and every merge split in parallel,
// as Cilk's cilksort spawns them.
func CilksortFJ(w *pool.Worker, xs, tmp []int64) {
	checkSortArgs(xs, tmp)
	cilksortFJ(w, xs, tmp[:len(xs)])
}

func cilksortFJ(w *pool.Worker, xs, tmp []int64) {
	if len(xs) < sortGrain {
		slices.Sort(xs)
		return
	}
	q := len(xs) / 4
	a, b, c, d := xs[:q], xs[q:2*q], xs[2*q:3*q], xs[3*q:]
	parallel.Do(w,
		func(w *pool.Worker) { cilksortFJ(w, a, tmp[:q]) },
		func(w *pool.Worker) { cilksortFJ(w, b, tmp[q:2*q]) },
		func(w *pool.Worker) { cilksortFJ(w, c, tmp[2*q:3*q]) },
		func(w *pool.Worker) { cilksortFJ(w, d, tmp[3*q:]) })
	parallel.Do(w,
		func(w *pool.Worker) { mergeFJ(w, a, b, tmp[:2*q]) },
		func(w *pool.Worker) { mergeFJ(w, c, d, tmp[2*q:]) })
	mergeFJ(w, tmp[:2*q], tmp[2*q:], xs)
}

func mergeFJ(w *pool.Worker, x, y, dst []int64) {
	if len(x) < len(y) {
		x, y = y, x
	}
	if len(x)+len(y) < mergeGrain {
		mergeSerial(x, y, dst)
		return
	}
	i, j := splitMerge(x, y)
	dst[i+j] = x[i]
	parallel.Do(w,
		func(w *pool.Worker) { mergeFJ(w, x[:i], y[:j], dst[:i+j]) },
		func(w *pool.Worker) { mergeFJ(w, x[i+1:], y[j:], dst[i+j+1:]) })
}
