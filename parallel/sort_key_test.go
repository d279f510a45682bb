package parallel_test

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
)

// rec is a record sorted by key; idx is its place in the input, which
// shows whether the sort was stable.
type rec[K any] struct {
	key K
	idx int
	_   [2]int64 // a record larger than its key, as records are
}

func recKey[K any](r rec[K]) K { return r.key }

func makeRecs[K any](keys []K) []rec[K] {
	rs := make([]rec[K], len(keys))
	for i, k := range keys {
		rs[i] = rec[K]{key: k, idx: i}
	}
	return rs
}

// checkSortByKey sorts keys' records with SortByKey on every pool and
// compares the order with slices.SortStableFunc by cmp.Compare.
func checkSortByKey[K int8 | uint16 | int32 | int64 | uint64 | float32 | float64](t *testing.T, name string, pools []*pool.Pool, keys []K) {
	t.Helper()
	want := makeRecs(keys)
	byKey := func(a, b rec[K]) int { return cmp.Compare(a.key, b.key) }
	if len(keys) <= 1<<17 {
		slices.SortStableFunc(want, byKey)
	} else {
		// The same order, from a faster sort: ties broken by input order.
		slices.SortFunc(want, func(a, b rec[K]) int {
			return cmp.Or(byKey(a, b), cmp.Compare(a.idx, b.idx))
		})
	}
	for _, p := range pools {
		got := makeRecs(keys)
		parallel.SortByKey(p, got, recKey[K])
		for i := range got {
			if got[i].idx != want[i].idx {
				t.Fatalf("%s, %d workers: at %d got record %d (key %v), want record %d (key %v)",
					name, p.Workers(), i, got[i].idx, got[i].key, want[i].idx, want[i].key)
			}
		}
	}
}

func specialFloat(rng *rand.Rand) float64 {
	return []float64{math.NaN(), math.Float64frombits(0xfff8000000000001), math.Copysign(0, -1), 0,
		math.Inf(1), math.Inf(-1), math.SmallestNonzeroFloat64, -math.MaxFloat64}[rng.Intn(8)]
}

func TestSortByKeyMatchesSortStableFunc(t *testing.T) {
	fjtest.Deadline(t, 120*time.Second)
	var pools []*pool.Pool
	for _, w := range []int{1, 2, 8} {
		p := pool.New(pool.WithWorkers(w))
		defer p.Close()
		pools = append(pools, p)
	}
	rng := rand.New(rand.NewSource(8))
	sizes := append(slices.Clone(algoSizes), 30_000, algoBig())
	for _, n := range sizes {
		n = fjtest.Small(n, min(n, 1<<15))
		name := func(what string) string { return fmt.Sprintf("n=%d %s", n, what) }
		i64 := make([]int64, n)
		for i := range i64 {
			i64[i] = rng.Int63() - rng.Int63()
		}
		checkSortByKey(t, name("int64"), pools, i64)
		f64 := make([]float64, n)
		for i := range f64 {
			f64[i] = rng.NormFloat64() * 1e6
			if rng.Intn(20) == 0 {
				f64[i] = specialFloat(rng)
			}
		}
		checkSortByKey(t, name("float64"), pools, f64)
		if n > 100_000 {
			continue // the cases below add nothing at this size
		}
		for i := range i64 {
			i64[i] = int64(rng.Intn(100)) - 50 // one digit, many ties
		}
		checkSortByKey(t, name("small int64"), pools, i64)
		for i := range i64 {
			// Skewed: most keys in one top bucket, a few far away.
			i64[i] = int64(rng.Intn(1 << 20))
			if rng.Intn(100) == 0 {
				i64[i] = math.MinInt64 + int64(rng.Intn(10))
			}
		}
		checkSortByKey(t, name("skewed int64"), pools, i64)
		u64 := make([]uint64, n)
		i8 := make([]int8, n)
		u16 := make([]uint16, n)
		i32 := make([]int32, n)
		f32 := make([]float32, n)
		for i := range u64 {
			u64[i] = rng.Uint64()
			i8[i] = int8(rng.Intn(256) - 128)
			u16[i] = uint16(rng.Intn(1 << 16))
			i32[i] = int32(rng.Int63())
			f32[i] = float32(f64[i])
		}
		checkSortByKey(t, name("uint64"), pools, u64)
		checkSortByKey(t, name("int8"), pools, i8)
		checkSortByKey(t, name("uint16"), pools, u16)
		checkSortByKey(t, name("int32"), pools, i32)
		checkSortByKey(t, name("float32"), pools, f32)
		for i := range u64 {
			u64[i] = 42
		}
		checkSortByKey(t, name("equal keys"), pools, u64)
		for i := range u64 {
			u64[i] = uint64(i)
		}
		checkSortByKey(t, name("sorted"), pools, u64)
		for i := range i32 {
			i32[i] = int32(n - i)
		}
		checkSortByKey(t, name("reversed"), pools, i32)
	}
}

// Sorting plain numbers by themselves: the result of slices.SortStableFunc
// bit for bit, so NaNs with different payloads and the two zeros keep
// their order.
func TestSortByKeyValues(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	rng := rand.New(rand.NewSource(12))
	for _, n := range []int{3, 4097, fjtest.Small(100_000, 1<<15)} {
		fs := make([]float64, n)
		for i := range fs {
			fs[i] = float64(rng.Intn(1000) - 500)
			if rng.Intn(10) == 0 {
				fs[i] = specialFloat(rng)
			}
		}
		want := slices.Clone(fs)
		slices.SortStableFunc(want, cmp.Compare[float64])
		parallel.SortByKey(p, fs, func(x float64) float64 { return x })
		for i := range fs {
			if math.Float64bits(fs[i]) != math.Float64bits(want[i]) {
				t.Fatalf("n=%d: at %d got %v (%#x), want %v (%#x)", n, i, fs[i], math.Float64bits(fs[i]), want[i], math.Float64bits(want[i]))
			}
		}
		is := make([]int64, n)
		for i := range is {
			is[i] = rng.Int63() >> rng.Intn(64)
		}
		want2 := slices.Clone(is)
		slices.Sort(want2)
		parallel.SortByKey(p, is, func(x int64) int64 { return x })
		if !slices.Equal(is, want2) {
			t.Fatalf("n=%d: int64 values not sorted", n)
		}
	}
}

// A defined key type and a defined slice type sort as their underlying
// types do, and SortByKey works from inside a task.
func TestSortByKeyDefinedTypesOnWorker(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	type celsius float32
	type reading struct {
		t  celsius
		id int
	}
	type readings []reading
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	rng := rand.New(rand.NewSource(9))
	s := make(readings, 50_000)
	for i := range s {
		s[i] = reading{celsius(rng.Intn(80) - 40), i}
	}
	want := slices.Clone(s)
	slices.SortStableFunc(want, func(a, b reading) int { return cmp.Compare(a.t, b.t) })
	p.Run(func(w *pool.Worker) {
		parallel.SortByKey(w, s, func(r reading) celsius { return r.t })
	})
	if !slices.Equal(s, want) {
		t.Fatal("SortByKey on a worker differs from slices.SortStableFunc")
	}
}

func TestSortByKeyPanics(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	algoPools(t, func(t *testing.T, p *pool.Pool) {
		for _, n := range []int{10, 100_000} {
			s := makeRecs(randInts(rand.New(rand.NewSource(10)), n, 1000))
			orig := slices.Clone(s)
			s[n/2].key = -1
			orig[n/2].key = -1
			pe := catchPanicError(t, "SortByKey", func() {
				parallel.SortByKey(p, s, func(r rec[int]) int {
					if r.key < 0 {
						panic(errBoom)
					}
					return r.key
				})
			})
			if pe.Value != errBoom {
				t.Errorf("n=%d: PanicError.Value = %v, want %v", n, pe.Value, errBoom)
			}
			if !slices.Equal(s, orig) {
				t.Errorf("n=%d: a panic in key left s changed", n)
			}
		}
	})
}

func TestSortByKeyBadInput(t *testing.T) {
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	s := []int{3, 1, 2}
	id := func(x int) int { return x }
	wantPanicMessage(t, "SortByKey nil key", func() { parallel.SortByKey[[]int, int, int](p, s, nil) }, "SortByKey", "nil")
	wantPanicMessage(t, "SortByKey nil runner", func() { parallel.SortByKey(nil, s, id) }, "nil pool.Runner")
	wantPanicMessage(t, "SortByKey nil runner, empty", func() { parallel.SortByKey(nil, s[:0], id) }, "nil pool.Runner")
	var w *pool.Worker
	wantPanicMessage(t, "SortByKey nil worker", func() { parallel.SortByKey(w, s, id) }, "nil *pool.Worker")
}

// FuzzSortByKey compares SortByKey with slices.SortStableFunc on int64 and
// float64 keys read from the input, eight bytes each (so NaNs with any
// payload, ±0 and ±Inf all occur), repeated to reach the parallel paths
// and to make ties.
func FuzzSortByKey(f *testing.F) {
	le := binary.LittleEndian
	var specials []byte
	for _, x := range []float64{math.NaN(), math.Copysign(0, -1), 0, math.Inf(1), math.Inf(-1), -1, 1, math.NaN()} {
		specials = le.AppendUint64(specials, math.Float64bits(x))
	}
	f.Add(specials, uint16(1))
	f.Add(specials, uint16(9000))
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9}, uint16(3))
	f.Add(le.AppendUint64(le.AppendUint64(nil, 1<<63), 1), uint16(40000))
	f.Add([]byte("a longer run of bytes for the radix sort to read"), uint16(1500))
	p := pool.New(pool.WithWorkers(3))
	f.Cleanup(p.Close)
	f.Fuzz(func(t *testing.T, data []byte, reps uint16) {
		m := len(data) / 8
		n := m * int(reps%50000)
		if n > 1<<18 {
			n = 1 << 18
		}
		i64 := make([]int64, n)
		f64 := make([]float64, n)
		for i := range i64 {
			u := le.Uint64(data[8*(i%m):])
			i64[i] = int64(u)
			f64[i] = math.Float64frombits(u)
		}
		checkSortByKey(t, "int64", []*pool.Pool{p}, i64)
		checkSortByKey(t, "float64", []*pool.Pool{p}, f64)
	})
}
