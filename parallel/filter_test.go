package parallel_test

import (
	"math/rand"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
)

func seqFilter[E any](s []E, keep func(E) bool) []E {
	var out []E
	for _, e := range s {
		if keep(e) {
			out = append(out, e)
		}
	}
	return out
}

func TestFilterMatchesSequential(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	algoPools(t, func(t *testing.T, p *pool.Pool) {
		rng := rand.New(rand.NewSource(7))
		algoCases(func(n int, opt parallel.Option, name string) {
			s := randInts(rng, n, 1000)
			orig := slices.Clone(s)
			// Keep none, few, half, most, all.
			for _, limit := range []int{0, 10, 500, 990, 1000} {
				keep := func(x int) bool { return x < limit }
				got := parallel.Filter(p, s, keep, opt)
				want := seqFilter(s, keep)
				if !slices.Equal(got, want) {
					t.Fatalf("%s limit %d: Filter differs from a sequential filter (len %d, want %d)", name, limit, len(got), len(want))
				}
				if len(want) == 0 && got != nil {
					t.Fatalf("%s limit %d: Filter kept nothing but returned %#v, want nil", name, limit, got)
				}
				if len(got) != cap(got) {
					t.Fatalf("%s limit %d: len %d, cap %d", name, limit, len(got), cap(got))
				}
				if len(got) > 0 && len(got) == len(s) && &got[0] == &s[0] {
					t.Fatalf("%s limit %d: the result shares s's array", name, limit)
				}
			}
			if !slices.Equal(s, orig) {
				t.Fatalf("%s: Filter modified its input", name)
			}
		})
	})
}

func TestFilterCallsKeepOnce(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	algoPools(t, func(t *testing.T, p *pool.Pool) {
		for _, n := range []int{1, 513, 100_000} {
			calls := make([]atomic.Int32, n)
			idx := make([]int, n)
			for i := range idx {
				idx[i] = i
			}
			got := parallel.Filter(p, idx, func(i int) bool { calls[i].Add(1); return i%3 == 0 }, parallel.Grain(1))
			for i := range calls {
				if c := calls[i].Load(); c != 1 {
					t.Fatalf("n=%d: keep called %d times for element %d", n, c, i)
				}
			}
			if want := (n + 2) / 3; len(got) != want {
				t.Fatalf("n=%d: kept %d, want %d", n, len(got), want)
			}
		}
	})
}

func TestFilterPanics(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	algoPools(t, func(t *testing.T, p *pool.Pool) {
		for _, n := range []int{10, 100_000} {
			s := make([]int, n)
			s[n/2] = 1
			keep := func(x int) bool {
				if x == 1 {
					panic(errBoom)
				}
				return true
			}
			for _, opt := range algoOpts() {
				pe := catchPanicError(t, "Filter", func() { parallel.Filter(p, s, keep, opt) })
				if pe.Value != errBoom {
					t.Errorf("n=%d: PanicError.Value = %v, want %v", n, pe.Value, errBoom)
				}
			}
		}
	})
}

func TestFilterBadInput(t *testing.T) {
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	s := []int{1, 2, 3}
	wantPanicMessage(t, "Filter nil keep", func() { parallel.Filter(p, s, nil) }, "Filter", "nil")
	yes := func(int) bool { return true }
	wantPanicMessage(t, "Filter nil runner", func() { parallel.Filter(nil, s, yes) }, "nil pool.Runner")
	wantPanicMessage(t, "Filter nil runner, empty", func() { parallel.Filter(nil, s[:0], yes) }, "nil pool.Runner")
}

// FuzzFilter compares Filter with a sequential filter. The input bytes are
// repeated to reach many blocks; keep looks at the bits of a mask.
func FuzzFilter(f *testing.F) {
	f.Add([]byte{}, uint8(0), uint16(1), uint8(1))
	f.Add([]byte{1, 2, 3}, uint8(0xff), uint16(1), uint8(2))
	f.Add([]byte{0, 255, 7, 8, 9, 10}, uint8(0x0f), uint16(300), uint8(3))
	f.Add([]byte("fork join"), uint8(0x55), uint16(4000), uint8(0))
	p := pool.New(pool.WithWorkers(3))
	f.Cleanup(p.Close)
	f.Fuzz(func(t *testing.T, data []byte, mask uint8, reps uint16, grain uint8) {
		s := make([]byte, 0, len(data)*int(reps%5000))
		for i := 0; i < int(reps%5000); i++ {
			s = append(s, data...)
		}
		keep := func(b byte) bool { return mask&(1<<(b%8)) != 0 }
		got := parallel.Filter(p, s, keep, parallel.Grain(int(grain)))
		if want := seqFilter(s, keep); !slices.Equal(got, want) {
			t.Fatalf("len %d, mask %#x: Filter kept %d, a sequential filter %d (or the order differs)", len(s), mask, len(got), len(want))
		}
	})
}
