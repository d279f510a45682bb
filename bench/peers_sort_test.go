package bench

// The sorts, written once per library: 10M random int64 (Sort), and 4M
// 32-byte records ordered by an int64 key (SortFunc, SortStableFunc,
// SortByKey). Each library is called the way its documentation shows,
// with its parallelism set from GOMAXPROCS where it has a setting, so that
// go test -cpu sets it for all of them alike. Every sort computes what the
// sequential one computes: peers_verify_test.go checks that on small
// inputs (with many equal keys), the benchmarks on every run.

import (
	"runtime"
	"slices"

	pargosort "github.com/exascience/pargo/sort"
	"github.com/jfcg/sorty/v2"
	"github.com/rah-0/parsort"
	"github.com/twotwotwo/sorts"
	"github.com/twotwotwo/sorts/sortutil"

	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
)

// record is the 32-byte record of fj's root benchmarks, ordered by Key.
type record struct {
	Key     int64
	A, B, C int64
}

func cmpRecord(a, b record) int {
	switch {
	case a.Key < b.Key:
		return -1
	case a.Key > b.Key:
		return 1
	}
	return 0
}

func lessRecord(a, b record) bool { return a.Key < b.Key }

func recordKey(r record) int64 { return r.Key }

// setParallelism sets the package-level knobs of the peers that have one
// to GOMAXPROCS (twotwotwo/sorts and pargo read GOMAXPROCS themselves).
// sorty's MaxGor caps the goroutines of one sort, the caller's included;
// its default is 3, which is kept where GOMAXPROCS is smaller: a third
// goroutine on two cores lets sorty balance unequal partitions, and sorty
// is measured as its author ships it. parsort cuts the slice into
// CoreCount chunks (runtime.NumCPU() by default).
func setParallelism() {
	procs := runtime.GOMAXPROCS(0)
	sorty.MaxGor = uint64(max(3, procs))
	parsort.CoreCount = procs
}

// Sort, 10M int64.

func sortSlices(s []int64)              { slices.Sort(s) }
func sortFJ(p *pool.Pool) func([]int64) { return func(s []int64) { parallel.Sort(p, s) } }

// sortSorty uses sorty's type-specific sort of native slices.
func sortSorty(s []int64) { sorty.SortSlice(s) }

// sortParsort uses parsort's int64 sort: CoreCount chunks sorted at once,
// then merged pairwise.
func sortParsort(s []int64) { parsort.Int64Asc(s) }

// sortTwotwotwo uses twotwotwo/sorts' parallel radix sort of []int64.
func sortTwotwotwo(s []int64) { sortutil.Int64s(s) }

// sortPargo uses pargo's parallel quicksort. pargo has no []int64 type of
// its own (only []int, []float64 and []string), so this is the Sorter a
// user writes: sort.Interface plus the sequential sort of a sub-range,
// which pargo calls below 1,280 elements.
func sortPargo(s []int64) { pargosort.Sort(pargoInt64s(s)) }

type pargoInt64s []int64

func (s pargoInt64s) SequentialSort(i, j int) { slices.Sort(s[i:j]) }
func (s pargoInt64s) Len() int                { return len(s) }
func (s pargoInt64s) Less(i, j int) bool      { return s[i] < s[j] }
func (s pargoInt64s) Swap(i, j int)           { s[i], s[j] = s[j], s[i] }

// SortFunc, 4M records: an unstable sort by a comparison.

func sortFuncSlices(s []record) { slices.SortFunc(s, cmpRecord) }

func sortFuncFJ(p *pool.Pool) func([]record) {
	return func(s []record) { parallel.SortFunc(p, s, cmpRecord) }
}

// sortFuncSorty uses sorty's Sort with a less-and-swap function, written
// as sorty's documentation shows.
func sortFuncSorty(s []record) {
	lsw := func(i, k, r, t int) bool {
		if s[i].Key < s[k].Key {
			if r != t {
				s[r], s[t] = s[t], s[r]
			}
			return true
		}
		return false
	}
	sorty.Sort(len(s), lsw)
}

// sortFuncPargo uses pargo's parallel quicksort, with slices.SortFunc for
// the sub-ranges it sorts sequentially.
func sortFuncPargo(s []record) { pargosort.Sort(pargoRecords(s)) }

type pargoRecords []record

func (s pargoRecords) SequentialSort(i, j int) { slices.SortFunc(s[i:j], cmpRecord) }
func (s pargoRecords) Len() int                { return len(s) }
func (s pargoRecords) Less(i, j int) bool      { return s[i].Key < s[j].Key }
func (s pargoRecords) Swap(i, j int)           { s[i], s[j] = s[j], s[i] }

// sortFuncParsort uses parsort's generic struct sort.
func sortFuncParsort(s []record) { parsort.StructAsc(s, lessRecord) }

// SortStableFunc, 4M records: a stable sort by a comparison. sorty and
// twotwotwo/sorts have none.

func sortStableSlices(s []record) { slices.SortStableFunc(s, cmpRecord) }

func sortStableFJ(p *pool.Pool) func([]record) {
	return func(s []record) { parallel.SortStableFunc(p, s, cmpRecord) }
}

// sortStablePargo uses pargo's parallel merge sort (cilksort), stable
// since its sequential sort is slices.SortStableFunc.
func sortStablePargo(s []record) { pargosort.StableSort(pargoStableRecords(s)) }

type pargoStableRecords []record

func (s pargoStableRecords) SequentialSort(i, j int) { slices.SortStableFunc(s[i:j], cmpRecord) }
func (s pargoStableRecords) Len() int                { return len(s) }
func (s pargoStableRecords) Less(i, j int) bool      { return s[i].Key < s[j].Key }
func (s pargoStableRecords) NewTemp() pargosort.StableSorter {
	return make(pargoStableRecords, len(s))
}
func (s pargoStableRecords) Assign(src pargosort.StableSorter) func(i, j, n int) {
	from := src.(pargoStableRecords)
	return func(i, j, n int) { copy(s[i:i+n], from[j:j+n]) }
}

// sortStableParsort uses parsort's stable generic struct sort.
func sortStableParsort(s []record) { parsort.StructAscStable(s, lessRecord) }

// SortByKey, 4M records by their int64 key: fj's radix sort against the
// radix peer, twotwotwo/sorts (an MSD radix sort, in place and not
// stable), and against fj's own SortFunc. The sequential baseline is
// slices.SortStableFunc: SortByKey is stable.

func sortByKeyFJ(p *pool.Pool) func([]record) {
	return func(s []record) { parallel.SortByKey(p, s, recordKey) }
}

// sortByKeyTwotwotwo uses twotwotwo/sorts' ByInt64, which needs
// sort.Interface and the key of an element.
func sortByKeyTwotwotwo(s []record) { sorts.ByInt64(twotwotwoRecords(s)) }

type twotwotwoRecords []record

func (s twotwotwoRecords) Len() int           { return len(s) }
func (s twotwotwoRecords) Less(i, j int) bool { return s[i].Key < s[j].Key }
func (s twotwotwoRecords) Swap(i, j int)      { s[i], s[j] = s[j], s[i] }
func (s twotwotwoRecords) Key(i int) int64    { return s[i].Key }
