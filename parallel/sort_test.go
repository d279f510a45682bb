package parallel_test

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
)

// The sorts switch from slices' sequential sorts to their parallel
// algorithms at a few thousand elements, so the sizes here include some
// well above that; 2^20 runs outside -short and -race only.

func sortSizes() []int {
	s := []int{0, 1, 2, 3, 7, 31, 1000, 12345, 1<<16 + 3}
	if !testing.Short() && !fjtest.RaceEnabled && fjtest.Long() {
		s = append(s, 1<<20)
	}
	return s
}

// sortBig is n, or something smaller but still parallel under -race and
// -short.
func sortBig(n int) int {
	if (fjtest.RaceEnabled || testing.Short()) && n > 1<<16 {
		return 1 << 16
	}
	return n
}

// sortPools returns pools of 1, 2 and 3 workers, closed when t ends.
func sortPools(t *testing.T) []*pool.Pool {
	var ps []*pool.Pool
	for _, n := range []int{1, 2, 3} {
		p := pool.New(pool.WithWorkers(n))
		t.Cleanup(p.Close)
		ps = append(ps, p)
	}
	return ps
}

// sortShapes are the input patterns the sorts are tested on: the easy,
// the adversarial for quicksort, and the duplicate-heavy.
var sortShapes = []struct {
	name string
	gen  func(n int, rng *rand.Rand) []int64
}{
	{"random", func(n int, rng *rand.Rand) []int64 {
		return sortGen(n, func(int) int64 { return rng.Int63() - math.MaxInt64/2 })
	}},
	{"sorted", func(n int, _ *rand.Rand) []int64 { return sortGen(n, func(i int) int64 { return int64(i) }) }},
	{"reversed", func(n int, _ *rand.Rand) []int64 { return sortGen(n, func(i int) int64 { return int64(n - i) }) }},
	{"allEqual", func(n int, _ *rand.Rand) []int64 { return sortGen(n, func(int) int64 { return 42 }) }},
	{"twoKeys", func(n int, rng *rand.Rand) []int64 { return sortGen(n, func(int) int64 { return rng.Int63n(2) }) }},
	{"sixteenKeys", func(n int, rng *rand.Rand) []int64 { return sortGen(n, func(int) int64 { return rng.Int63n(16) }) }},
	{"sqrtKeys", func(n int, rng *rand.Rand) []int64 {
		k := int64(math.Sqrt(float64(n))) + 1
		return sortGen(n, func(int) int64 { return rng.Int63n(k) })
	}},
	{"sawtooth", func(n int, _ *rand.Rand) []int64 {
		period := max(1, n/37)
		return sortGen(n, func(i int) int64 { return int64(i % period) })
	}},
	{"organPipe", func(n int, _ *rand.Rand) []int64 {
		return sortGen(n, func(i int) int64 { return int64(min(i, n-1-i)) })
	}},
	{"median3Killer", func(n int, _ *rand.Rand) []int64 { return median3Killer(n) }},
	{"nearlySorted", func(n int, rng *rand.Rand) []int64 {
		s := sortGen(n, func(i int) int64 { return int64(i) })
		for k := 0; k < n/100+1 && n > 0; k++ {
			i, j := rng.Intn(n), rng.Intn(n)
			s[i], s[j] = s[j], s[i]
		}
		return s
	}},
	{"sortedSmallLast", func(n int, _ *rand.Rand) []int64 {
		return sortGen(n, func(i int) int64 {
			if i == n-1 {
				return -1
			}
			return int64(i)
		})
	}},
	{"sortedRuns", func(n int, _ *rand.Rand) []int64 {
		run := max(1, n/8)
		return sortGen(n, func(i int) int64 { return int64((i%run)*8 + i/run) })
	}},
}

func sortGen(n int, f func(i int) int64) []int64 {
	s := make([]int64, n)
	for i := range s {
		s[i] = f(i)
	}
	return s
}

// median3Killer is Musser's sequence that drives a quicksort with a
// median-of-3 pivot to quadratic time.
func median3Killer(n int) []int64 {
	s := make([]int64, n)
	k := n / 2
	for i := 1; i <= k; i++ {
		if i%2 == 1 {
			s[i-1] = int64(i)
		} else {
			s[i-1] = int64(k + i - 1)
		}
		s[k+i-1] = int64(2 * i)
	}
	if n%2 == 1 {
		s[n-1] = int64(n)
	}
	return s
}

// sortCheck compares got, the result of one of the parallel sorts on a
// copy of orig, with want, slices.Sort's result: the same order, and the
// same elements (for floats, bit for bit, so -0 and +0 are told apart).
// If stable, equal elements that can be told apart (±0 for floats) must
// be in their input order.
func sortCheck[E cmp.Ordered](t *testing.T, what string, orig, got, want []E, stable bool) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: length %d, want %d", what, len(got), len(want))
	}
	for i := range want {
		if cmp.Compare(got[i], want[i]) != 0 {
			t.Fatalf("%s: [%d] = %v, want %v (slices.Sort)", what, i, got[i], want[i])
		}
	}
	fo, ok := any(orig).([]float64)
	if !ok {
		return // == on the elements is identity: got is want
	}
	fg := any(got).([]float64)
	if stable {
		// The zeros, in order, must be the input's zeros in order.
		zeros := func(s []float64) (z []uint64) {
			for _, x := range s {
				if x == 0 {
					z = append(z, math.Float64bits(x))
				}
			}
			return z
		}
		if !slices.Equal(zeros(fo), zeros(fg)) {
			t.Fatalf("%s: -0 and +0 are not in their input order", what)
		}
		return
	}
	if !slices.Equal(sortedBits(fo), sortedBits(fg)) {
		t.Fatalf("%s: not a permutation of the input (bit for bit)", what)
	}
}

func sortedBits(s []float64) []uint64 {
	b := make([]uint64, len(s))
	for i, x := range s {
		b[i] = math.Float64bits(x)
	}
	slices.Sort(b)
	return b
}

// sortAllThree runs Sort, SortFunc and SortStableFunc on copies of orig
// on every pool and checks them against slices.Sort.
func sortAllThree[E cmp.Ordered](t *testing.T, pools []*pool.Pool, what string, orig []E) {
	t.Helper()
	want := slices.Clone(orig)
	slices.Sort(want)
	for _, p := range pools {
		if len(orig) > 1<<16 && p.Workers() != 2 {
			continue // the largest sizes on one pool only, to save time
		}
		s := slices.Clone(orig)
		parallel.Sort(p, s)
		sortCheck(t, fmt.Sprintf("%s, %d workers: Sort", what, p.Workers()), orig, s, want, false)
		copy(s, orig)
		parallel.SortFunc(p, s, cmp.Compare[E])
		sortCheck(t, fmt.Sprintf("%s, %d workers: SortFunc", what, p.Workers()), orig, s, want, false)
		copy(s, orig)
		parallel.SortStableFunc(p, s, cmp.Compare[E])
		sortCheck(t, fmt.Sprintf("%s, %d workers: SortStableFunc", what, p.Workers()), orig, s, want, true)
	}
}

// sortFloat turns a shape into floats, sprinkled with NaN, ±Inf and ±0.
func sortFloat(v []int64) []float64 {
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 0}
	f := make([]float64, len(v))
	for i, x := range v {
		f[i] = float64(x)
		if (i*7919)%13 == 0 {
			f[i] = specials[(i/13)%len(specials)]
		}
	}
	return f
}

// sortString turns a shape into strings in the same order.
func sortString(v []int64) []string {
	const hex = "0123456789abcdef"
	s := make([]string, len(v))
	var b [16]byte
	for i, x := range v {
		u := uint64(x) ^ 1<<63 // order-preserving
		for k := 15; k >= 0; k-- {
			b[k] = hex[u&15]
			u >>= 4
		}
		s[i] = string(b[:])
	}
	return s
}

func TestSortMatchesSlicesOnEveryShape(t *testing.T) {
	fjtest.Deadline(t, 5*time.Minute)
	pools := sortPools(t)
	for _, sh := range sortShapes {
		for _, n := range sortSizes() {
			v := sh.gen(n, rand.New(rand.NewSource(int64(n))))
			what := fmt.Sprintf("%s n=%d", sh.name, n)
			sortAllThree(t, pools, what+" int64", v)
			if n > 1<<16 {
				// The other types at the largest size on two shapes only.
				if sh.name != "random" && sh.name != "sixteenKeys" {
					sortAllThree(t, pools, what+" float64", sortFloat(v))
					continue
				}
			}
			ints := make([]int, n)
			bytes := make([]uint8, n)
			for i, x := range v {
				ints[i] = int(x)
				bytes[i] = uint8(x)
			}
			sortAllThree(t, pools, what+" int", ints)
			sortAllThree(t, pools, what+" uint8", bytes)
			sortAllThree(t, pools, what+" float64", sortFloat(v))
			sortAllThree(t, pools, what+" string", sortString(v))
		}
	}
}

func TestSortFloatsNaNsFirstZerosEqual(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	pools := sortPools(t)
	n := sortBig(1 << 18)
	rng := rand.New(rand.NewSource(1))
	for _, nanFrac := range []int{1, 2, 10, 1000} { // every nanFrac-th element is a NaN
		f := make([]float64, n)
		for i := range f {
			switch {
			case rng.Intn(nanFrac) == 0:
				f[i] = math.NaN()
			case rng.Intn(4) == 0:
				f[i] = math.Copysign(0, float64(rng.Intn(2)*2-1))
			default:
				f[i] = rng.NormFloat64()
			}
		}
		sortAllThree(t, pools, fmt.Sprintf("1 in %d NaN", nanFrac), f)
		s := slices.Clone(f)
		parallel.Sort(pools[1], s)
		nans := 0
		for nans < len(s) && math.IsNaN(s[nans]) {
			nans++
		}
		for _, x := range s[nans:] {
			if math.IsNaN(x) {
				t.Fatalf("1 in %d NaN: a NaN after the first non-NaN", nanFrac)
			}
		}
	}
}

// sortRec is a record with a key that many share and its input position.
type sortRec struct {
	key, idx int
}

func cmpSortRecKey(a, b sortRec) int { return cmp.Compare(a.key, b.key) }

func TestSortStableFuncKeepsInputOrder(t *testing.T) {
	fjtest.Deadline(t, 3*time.Minute)
	pools := sortPools(t)
	sizes := sortSizes()
	for _, keys := range []int{1, 2, 16, 1000, 1 << 30} {
		for _, sh := range []string{"random", "sorted", "reversed", "sawtooth"} {
			for _, n := range sizes {
				rng := rand.New(rand.NewSource(int64(n + keys)))
				orig := make([]sortRec, n)
				for i := range orig {
					var k int
					switch sh {
					case "random":
						k = rng.Intn(keys)
					case "sorted":
						k = int(int64(i) * int64(keys) / int64(n))
					case "reversed":
						k = int(int64(n-1-i) * int64(keys) / int64(n))
					case "sawtooth":
						k = i % keys % max(1, n/37)
					}
					orig[i] = sortRec{k, i}
				}
				want := slices.Clone(orig)
				slices.SortStableFunc(want, cmpSortRecKey)
				for _, p := range pools {
					if n > 1<<16 && p.Workers() != 2 {
						continue
					}
					s := slices.Clone(orig)
					parallel.SortStableFunc(p, s, cmpSortRecKey)
					for i := range s {
						if i > 0 && s[i-1].key == s[i].key && s[i-1].idx > s[i].idx {
							t.Fatalf("%s keys=%d n=%d workers=%d: equal keys out of input order at %d: %v, %v",
								sh, keys, n, p.Workers(), i, s[i-1], s[i])
						}
					}
					if !slices.Equal(s, want) {
						t.Fatalf("%s keys=%d n=%d workers=%d: differs from slices.SortStableFunc", sh, keys, n, p.Workers())
					}
				}
			}
		}
	}
}

// TestSortComparisonsAreNLogN counts comparisons on every shape: a
// quadratic case would need thousands of times more than n log2 n.
func TestSortComparisonsAreNLogN(t *testing.T) {
	fjtest.Deadline(t, 3*time.Minute)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	n := sortBig(1 << 18)
	limit := int64(4 * float64(n) * math.Log2(float64(n)))
	for _, sh := range sortShapes {
		v := sh.gen(n, rand.New(rand.NewSource(3)))
		for _, fn := range []struct {
			name string
			sort func(r pool.Runner, s []int64, cmp func(a, b int64) int, opts ...parallel.Option)
		}{
			{"SortFunc", parallel.SortFunc[[]int64, int64]},
			{"SortStableFunc", parallel.SortStableFunc[[]int64, int64]},
		} {
			var count atomic.Int64
			s := slices.Clone(v)
			fn.sort(p, s, func(a, b int64) int { count.Add(1); return cmp.Compare(a, b) })
			t.Logf("%s %s: %.2f n log2 n", fn.name, sh.name, float64(count.Load())/(float64(n)*math.Log2(float64(n))))
			if c := count.Load(); c > limit {
				t.Errorf("%s on %s, n=%d: %d comparisons, more than 4 n log2 n = %d", fn.name, sh.name, n, c, limit)
			}
			if !slices.IsSorted(s) {
				t.Errorf("%s on %s: not sorted", fn.name, sh.name)
			}
		}
	}
}

// TestSortFuncKillerAdversary runs SortFunc against McIlroy's adversary
// ("A Killer Adversary for Quicksort", 1999), a comparator that decides
// the input while the sort runs so as to make every partition as
// unbalanced as it can. The sort must still finish in O(n log n)
// comparisons.
func TestSortFuncKillerAdversary(t *testing.T) {
	fjtest.Deadline(t, 2*time.Minute)
	n := sortBig(1 << 18)
	limit := int64(4 * float64(n) * math.Log2(float64(n)))
	for _, workers := range []int{1, 2} {
		p := pool.New(pool.WithWorkers(workers))
		gas := n
		val := make([]int, n)
		for i := range val {
			val[i] = gas
		}
		var (
			mu        sync.Mutex
			nsolid    int
			candidate int
			count     int64
		)
		freeze := func(x int) { val[x] = nsolid; nsolid++ }
		adversary := func(a, b int) int {
			mu.Lock()
			defer mu.Unlock()
			count++
			if val[a] == gas && val[b] == gas {
				if a == candidate {
					freeze(a)
				} else {
					freeze(b)
				}
			}
			if val[a] == gas {
				candidate = a
			} else if val[b] == gas {
				candidate = b
			}
			return cmp.Compare(val[a], val[b])
		}
		s := make([]int, n)
		for i := range s {
			s[i] = i
		}
		parallel.SortFunc(p, s, adversary)
		p.Close()
		t.Logf("adversary %d workers: %.2f n log2 n", workers, float64(count)/(float64(n)*math.Log2(float64(n))))
		if count > limit {
			t.Errorf("%d workers: %d comparisons against the adversary, more than 4 n log2 n = %d", workers, count, limit)
		}
		for i := 1; i < n; i++ {
			if val[s[i-1]] > val[s[i]] {
				t.Fatalf("%d workers: not sorted by the adversary's values at %d", workers, i)
			}
		}
	}
}

// sortBadComparators are comparators that are not strict weak orders.
func sortBadComparators() map[string]func(a, b int64) int {
	var calls atomic.Uint64
	return map[string]func(a, b int64) int{
		"random":    func(a, b int64) int { return rand.Intn(3) - 1 },
		"always1":   func(a, b int64) int { return 1 },
		"alwaysM1":  func(a, b int64) int { return -1 },
		"always0":   func(a, b int64) int { return 0 },
		"flipFlop":  func(a, b int64) int { return int(calls.Add(1)%2)*2 - 1 },
		"hashOrder": func(a, b int64) int { return int(bits.RotateLeft64(uint64(a)*0x9e3779b97f4a7c15^uint64(b), 7)%3) - 1 },
		"rockPaperScissors": func(a, b int64) int { // not transitive
			switch (a%3 - b%3 + 3) % 3 {
			case 1:
				return 1
			case 2:
				return -1
			}
			return 0
		},
		"lessOrEqual": func(a, b int64) int { // not irreflexive
			if a <= b {
				return -1
			}
			return 1
		},
	}
}

func sortSameElements(a, b []int64) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

var sortFuncs = []struct {
	name string
	sort func(r pool.Runner, s []int64, cmp func(a, b int64) int, opts ...parallel.Option)
}{
	{"SortFunc", parallel.SortFunc[[]int64, int64]},
	{"SortStableFunc", parallel.SortStableFunc[[]int64, int64]},
}

func TestSortBadComparatorsLeaveAPermutation(t *testing.T) {
	fjtest.Deadline(t, 3*time.Minute)
	pools := sortPools(t)
	sizes := []int{2, 3, 31, 1000, 12345, 1<<16 + 3, 1 << 18}
	if fjtest.RaceEnabled {
		sizes = []int{2, 31, 12345, 1<<16 + 3}
	}
	for name, bad := range sortBadComparators() {
		for _, n := range sizes {
			for _, shape := range []string{"random", "sorted", "fewKeys"} {
				rng := rand.New(rand.NewSource(int64(n)))
				orig := make([]int64, n)
				for i := range orig {
					switch shape {
					case "random":
						orig[i] = rng.Int63()
					case "sorted":
						orig[i] = int64(i)
					case "fewKeys":
						orig[i] = rng.Int63n(4)
					}
				}
				for _, p := range pools {
					if n > 1<<16 && p.Workers() != 2 {
						continue
					}
					for _, fn := range sortFuncs {
						s := slices.Clone(orig)
						fn.sort(p, s, bad)
						if !sortSameElements(s, orig) {
							t.Fatalf("%s with %s comparator, %s n=%d, %d workers: not a permutation of the input",
								fn.name, name, shape, n, p.Workers())
						}
					}
				}
			}
		}
	}
}

// sortCatch runs f and returns what it panicked with, or nil.
func sortCatch(f func()) (r any) {
	defer func() { r = recover() }()
	f()
	return nil
}

// errSortBoom is the value the panicking comparators panic with.
var errSortBoom = errors.New("sort: comparator boom")

func TestSortComparatorPanicLeavesAPermutation(t *testing.T) {
	fjtest.Deadline(t, 3*time.Minute)
	pools := sortPools(t)
	sizes := []int{2, 1000, 12345, 1<<16 + 3}
	if fjtest.Long() {
		sizes = append(sizes, 1<<18)
	}
	if fjtest.RaceEnabled || testing.Short() {
		sizes = []int{2, 12345, 1<<16 + 3}
	}
	fracs := []float64{0, 0.001, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99, 0.9999}
	if fjtest.RaceEnabled {
		fracs = []float64{0, 0.3, 0.7, 0.99}
	}
	// lateAll counts comparisons that ran after their sort had returned,
	// over the whole test: read once every pool is closed, when no task
	// of any sort can still be running or queued.
	var lateAll atomic.Int64
	for _, n := range sizes {
		rng := rand.New(rand.NewSource(int64(n)))
		orig := make([]int64, n)
		for i := range orig {
			orig[i] = rng.Int63n(int64(n))
		}
		for _, p := range pools {
			for _, fn := range sortFuncs {
				// A dry run counts the comparisons; then panic at points
				// spread over the sort: leaves, partitions, merges.
				var total atomic.Int64
				fn.sort(p, slices.Clone(orig), func(a, b int64) int { total.Add(1); return cmp.Compare(a, b) })
				for _, frac := range fracs {
					at := int64(frac * float64(total.Load()))
					var calls atomic.Int64
					var returned atomic.Bool
					var late atomic.Int64
					s := slices.Clone(orig)
					r := sortCatch(func() {
						defer returned.Store(true)
						fn.sort(p, s, func(a, b int64) int {
							if returned.Load() {
								late.Add(1)
								lateAll.Add(1)
							}
							if calls.Add(1) == at+1 {
								panic(errSortBoom)
							}
							return cmp.Compare(a, b)
						})
					})
					what := fmt.Sprintf("%s n=%d, %d workers, panic at comparison %d of %d", fn.name, n, p.Workers(), at, total.Load())
					if calls.Load() > at {
						pe, ok := r.(*pool.PanicError)
						if !ok || pe.Value != errSortBoom || !errors.Is(pe, errSortBoom) {
							t.Fatalf("%s: recovered %T %v, want a *pool.PanicError carrying the comparator's value", what, r, r)
						}
					} else if r != nil {
						t.Fatalf("%s: panic %v without a panicking comparison", what, r)
					}
					if !sortSameElements(s, orig) {
						t.Fatalf("%s: the slice is no longer a permutation of the input", what)
					}
					if l := late.Load(); l > 0 {
						t.Fatalf("%s: %d comparisons ran after the sort returned", what, l)
					}
				}
			}
		}
		// Sort on an ordered type cannot panic in a comparison: check the
		// pool still works after all this.
		s := slices.Clone(orig)
		parallel.Sort(pools[2], s)
		if !slices.IsSorted(s) {
			t.Fatalf("n=%d: Sort after the panics did not sort", n)
		}
	}
	// A sort's tasks have all ended when it returns (the checks above
	// see one still running); a task left queued would run later, by
	// Close at the latest, and count here.
	for _, p := range pools {
		p.Close()
	}
	if l := lateAll.Load(); l > 0 {
		t.Fatalf("%d comparisons ran after their sort had returned", l)
	}
}

func TestSortNestedInTasks(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	p := pool.New(pool.WithWorkers(3))
	defer p.Close()
	rng := rand.New(rand.NewSource(9))
	mk := func(n int) []int64 {
		s := make([]int64, n)
		for i := range s {
			s[i] = rng.Int63n(1000)
		}
		return s
	}
	a, b, c, d := mk(sortBig(200000)), mk(50000), mk(100), mk(sortBig(300000))
	oa, ob, oc, od := slices.Clone(a), slices.Clone(b), slices.Clone(c), slices.Clone(d)
	forkjoin.Invoke(p, func(w *pool.Worker) struct{} {
		forkjoin.Join(w,
			func(w *pool.Worker) struct{} {
				forkjoin.Join(w,
					func(w *pool.Worker) struct{} { parallel.Sort(w, a); return struct{}{} },
					func(w *pool.Worker) struct{} { parallel.SortFunc(w, b, cmp.Compare[int64]); return struct{}{} })
				return struct{}{}
			},
			func(w *pool.Worker) struct{} {
				forkjoin.Join(w,
					func(w *pool.Worker) struct{} { parallel.Sort(w, c); return struct{}{} },
					func(w *pool.Worker) struct{} { parallel.SortStableFunc(w, d, cmp.Compare[int64]); return struct{}{} })
				return struct{}{}
			})
		return struct{}{}
	})
	for i, x := range []struct{ got, orig []int64 }{{a, oa}, {b, ob}, {c, oc}, {d, od}} {
		if !slices.IsSorted(x.got) || !sortSameElements(x.got, x.orig) {
			t.Errorf("slice %d: not sorted, or not a permutation", i)
		}
	}
}

func TestSortConcurrentCallersShareAPool(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	var wg sync.WaitGroup
	for g := 0; g < 6; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(g)))
			s := make([]int64, sortBig(100000)+g)
			for i := range s {
				s[i] = rng.Int63()
			}
			orig := slices.Clone(s)
			switch g % 3 {
			case 0:
				parallel.Sort(p, s)
			case 1:
				parallel.SortFunc(p, s, cmp.Compare[int64])
			case 2:
				parallel.SortStableFunc(p, s, cmp.Compare[int64])
			}
			if !slices.IsSorted(s) || !sortSameElements(s, orig) {
				t.Errorf("caller %d: not sorted, or not a permutation", g)
			}
		}(g)
	}
	wg.Wait()
}

func TestSortNamedSliceTypes(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	type myFloat float64
	type myFloats []myFloat
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	s := make(myFloats, 20000)
	for i := range s {
		s[i] = myFloat(math.Sin(float64(i)))
	}
	s[7] = myFloat(math.NaN())
	parallel.Sort(p, s)
	if !math.IsNaN(float64(s[0])) || !slices.IsSorted(s[1:]) {
		t.Errorf("named float slice not sorted with the NaN first")
	}
}

func TestSortArgumentChecks(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	p := pool.New(pool.WithWorkers(1))
	defer p.Close()
	expect := func(name, want string, f func()) {
		t.Helper()
		r := sortCatch(f)
		if s := fmt.Sprint(r); r == nil || !strings.Contains(s, want) {
			t.Errorf("%s: panic %q, want one mentioning %q", name, s, want)
		}
	}
	expect("SortFunc", "parallel: SortFunc with a nil cmp function", func() { parallel.SortFunc[[]int](p, []int{2, 1}, nil) })
	expect("SortFunc empty", "parallel: SortFunc with a nil cmp function", func() { parallel.SortFunc[[]int](p, nil, nil) })
	expect("SortStableFunc", "parallel: SortStableFunc with a nil cmp function", func() { parallel.SortStableFunc[[]int](p, []int{2, 1}, nil) })
	expect("Sort nil runner", "nil pool.Runner", func() { parallel.Sort(nil, []int{2, 1}) })
	var nilWorker *pool.Worker
	expect("Sort nil worker", "nil *pool.Worker", func() { parallel.Sort(nilWorker, make([]int, 100000)) })

	// Nothing to do still checks the runner first, as every entry point
	// does (see TestEveryEntryPointChecksItsRunner).
	expect("Sort nil runner, empty", "nil pool.Runner", func() { parallel.Sort(nil, []int{}) })
	expect("Sort nil runner, one", "nil pool.Runner", func() { parallel.Sort(nil, []int{1}) })
	expect("SortFunc nil runner, one", "nil pool.Runner", func() { parallel.SortFunc(nil, []int{1}, cmp.Compare[int]) })
	expect("SortStableFunc nil runner, nil", "nil pool.Runner", func() { parallel.SortStableFunc(nil, []int(nil), cmp.Compare[int]) })

	closed := pool.New(pool.WithWorkers(1))
	closed.Close()
	for _, n := range []int{2, 100000} {
		expect(fmt.Sprintf("Sort on a closed pool, n=%d", n), "closed", func() { parallel.Sort(closed, make([]int, n)) })
		expect(fmt.Sprintf("SortFunc on a closed pool, n=%d", n), "closed", func() { parallel.SortFunc(closed, make([]int, n), cmp.Compare[int]) })
		expect(fmt.Sprintf("SortStableFunc on a closed pool, n=%d", n), "closed", func() { parallel.SortStableFunc(closed, make([]int, n), cmp.Compare[int]) })
	}
}
