package parallel_test

import (
	"math"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
	"golang.org/x/exp/constraints"
)

// checkRange runs For, ForRange and Reduce over [lo, hi) of type I and
// checks that every index in the range is visited once and nothing else.
// The ranges are small (at most a few thousand indices) but placed at the
// limits of the type.
func checkRange[I constraints.Integer](t *testing.T, p *pool.Pool, lo, hi I, g grainCase) {
	opts, redOpts := []parallel.Option{g.loop}, []parallel.Option{g.reduce}
	t.Helper()
	want := 0
	if hi > lo {
		want = int(uint64(hi) - uint64(lo))
	}
	var mu sync.Mutex
	seen := map[I]int{}
	parallel.For(p, lo, hi, func(_ *pool.Worker, i I) {
		mu.Lock()
		seen[i]++
		mu.Unlock()
	}, opts...)
	check := func(what string) {
		t.Helper()
		if len(seen) != want {
			t.Fatalf("%s [%d, %d): %d distinct indices, want %d", what, lo, hi, len(seen), want)
		}
		for i, k := range seen {
			if k != 1 || i < lo || i >= hi {
				t.Fatalf("%s [%d, %d): index %d visited %d times", what, lo, hi, i, k)
			}
		}
		clear(seen)
	}
	check("For")
	parallel.ForRange(p, lo, hi, func(_ *pool.Worker, a, b I) {
		if a >= b || a < lo || b > hi {
			t.Errorf("ForRange [%d, %d): bad piece [%d, %d)", lo, hi, a, b)
			return
		}
		mu.Lock()
		for i := a; ; i++ {
			seen[i]++
			if i == b-1 {
				break // i++ would overflow at the type's maximum
			}
		}
		mu.Unlock()
	}, opts...)
	check("ForRange")
	// Pieces chain in order: each starts where the previous one ended.
	type piece struct{ lo, hi I }
	got := parallel.Reduce(p, lo, hi, []piece(nil), func(_ *pool.Worker, a, b I) []piece {
		return []piece{{a, b}}
	}, func(x, y []piece) []piece { return append(append([]piece(nil), x...), y...) }, redOpts...)
	if want == 0 {
		if got != nil {
			t.Fatalf("Reduce on empty [%d, %d) = %v", lo, hi, got)
		}
		return
	}
	next, n := lo, 0
	for _, pc := range got {
		if pc.lo != next || pc.hi <= pc.lo || pc.hi > hi {
			t.Fatalf("Reduce [%d, %d): pieces %v do not chain", lo, hi, got)
		}
		n += int(uint64(pc.hi) - uint64(pc.lo))
		next = pc.hi
	}
	if n != want || got[len(got)-1].hi != hi {
		t.Fatalf("Reduce [%d, %d): pieces %v cover %d indices, want %d", lo, hi, got, n, want)
	}
}

// grainCase is an option for the loops and one for Reduce.
type grainCase struct{ loop, reduce parallel.Option }

func TestGenericIndexTypesAtTheirLimits(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	for _, workers := range []int{1, 3} {
		p := pool.New(pool.WithWorkers(workers))
		for _, g := range []grainCase{
			{nil, nil}, {parallel.Grain(1), parallel.Grain(1)}, {parallel.Grain(7), parallel.Grain(7)},
			{nil, parallel.Deterministic()}, // For and ForRange do not take it
		} {
			checkRange[int8](t, p, math.MinInt8, math.MaxInt8, g)
			checkRange[int8](t, p, -5, 5, g)
			checkRange[int8](t, p, 5, -5, g)
			checkRange[uint8](t, p, 0, math.MaxUint8, g)
			checkRange[uint8](t, p, 200, 255, g)
			checkRange[int16](t, p, math.MaxInt16-300, math.MaxInt16, g)
			checkRange[int64](t, p, math.MaxInt64-1000, math.MaxInt64, g)
			checkRange[int64](t, p, math.MinInt64, math.MinInt64+1000, g)
			checkRange[int64](t, p, -500, 500, g)
			checkRange[uint64](t, p, math.MaxUint64-1000, math.MaxUint64, g)
			checkRange[uint64](t, p, 1<<63-500, 1<<63+500, g) // across 2^63
			checkRange[uint32](t, p, math.MaxUint32-100, math.MaxUint32, g)
			checkRange[uintptr](t, p, 10, 20, g)
		}
		p.Close()
	}
}

// A range of a type's whole span cannot be visited index by index in a
// test, but its length must not overflow: ForRange over all of int64 (and
// all of uint64 but one) must cut it into pieces that add up to 2^64-1.
func TestGenericFullSpanLengthDoesNotOverflow(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	sum := func(a, b uint64) uint64 { return a + b }
	gotI := parallel.Reduce(p, int64(math.MinInt64), int64(math.MaxInt64), uint64(0),
		func(_ *pool.Worker, lo, hi int64) uint64 { return uint64(hi) - uint64(lo) }, sum)
	// The deterministic splitter cuts the span into pieces of the grain:
	// 64 of them with a grain of 2^58. An int of 32 bits cannot hold that
	// grain, and 2^33 pieces of the largest one it can would take hours,
	// so there the adaptive splitter alone cuts the unsigned span.
	var uopts []parallel.Option
	if strconv.IntSize == 64 {
		uopts = append(uopts, parallel.Deterministic(), parallel.Grain(min(1<<58, math.MaxInt)))
	}
	gotU := parallel.Reduce(p, uint64(0), uint64(math.MaxUint64), uint64(0),
		func(_ *pool.Worker, lo, hi uint64) uint64 { return hi - lo }, sum, uopts...)
	if gotI != math.MaxUint64 || gotU != math.MaxUint64 {
		t.Errorf("full-span pieces add up to %d and %d, want %d", gotI, gotU, uint64(math.MaxUint64))
	}
}

// Calls written for the int-only API compile unchanged: untyped constant
// bounds with a typed body, int variables, explicit instantiation of
// Reduce's first type parameter (T).
func TestIntCallsCompileUnchanged(t *testing.T) {
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	n := 10
	parallel.For(p, 0, 10, func(_ *pool.Worker, i int) {})
	parallel.For(p, 0, n, func(*pool.Worker, int) {})
	parallel.ForRange(p, 0, 10, func(_ *pool.Worker, lo, hi int) {})
	got := parallel.Reduce[int](p, 0, n, 0, func(_ *pool.Worker, lo, hi int) int { return hi - lo }, func(a, b int) int { return a + b })
	if got != n {
		t.Errorf("Reduce = %d, want %d", got, n)
	}
}
