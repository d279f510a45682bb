package parallel_test

import (
	"cmp"
	"encoding/binary"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
)

// The fuzz inputs are short, and the sorts only run their parallel code
// on slices of thousands of elements, so the targets stretch the input:
// size says how long the slice is, and shape how the input's values are
// laid out over it (repeated, in runs, sorted, reversed, ...).

// sortFuzzStretch lays the values of base out over n elements following
// shape. add(x, k) offsets a value by k, for shapes that build runs.
func sortFuzzStretch[E any](base []E, n int, shape uint8, add func(x E, k int) E) []E {
	if len(base) == 0 {
		return nil
	}
	s := make([]E, n)
	m := len(base)
	for i := range s {
		switch shape % 6 {
		case 0: // the input, repeated
			s[i] = base[i%m]
		case 1: // increasing runs of the input
			s[i] = add(base[i%m], i/m)
		case 2: // the input, repeated backwards
			s[i] = base[(n-1-i)%m]
		case 3: // each input value repeated in a block
			s[i] = base[i*m/n]
		case 4: // mostly sorted: the index, with the input mixed in
			s[i] = add(base[i%m], i)
		case 5: // organ pipe of the input
			s[i] = add(base[i%m], min(i, n-1-i))
		}
	}
	if shape&0x80 != 0 {
		slices.Reverse(s)
	}
	return s
}

// FuzzSort checks Sort (and SortFunc with cmp.Compare) against slices.Sort
// on int16 or float64 values decoded from the input: for floats, every bit
// pattern, NaNs with payloads, infinities and -0 included.
func FuzzSort(f *testing.F) {
	f.Add([]byte{3, 1, 4, 1, 5, 9, 2, 6}, uint8(0), uint16(20000), false)
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0xf8, 0x7f, 0, 0, 0, 0, 0, 0, 0, 0x80, 1, 2, 3, 4, 5, 6, 7, 8}, uint8(1), uint16(30000), true)
	f.Add([]byte("the quick brown fox jumps over the lazy dog"), uint8(4), uint16(65535), false)
	f.Add([]byte{1, 2}, uint8(3), uint16(9000), false)
	f.Add([]byte{}, uint8(0), uint16(0), true)
	p := pool.New(pool.WithWorkers(3))
	f.Cleanup(p.Close)
	f.Fuzz(func(t *testing.T, data []byte, shape uint8, size uint16, floats bool) {
		fjtest.Deadline(t, time.Minute)
		n := int(size)
		if floats {
			base := make([]float64, len(data)/8)
			for i := range base {
				base[i] = math.Float64frombits(binary.LittleEndian.Uint64(data[8*i:]))
			}
			orig := sortFuzzStretch(base, n, shape, func(x float64, k int) float64 { return x + float64(k) })
			want := slices.Clone(orig)
			slices.Sort(want)
			got := slices.Clone(orig)
			parallel.Sort(p, got)
			sortCheck(t, "Sort", orig, got, want, false)
			copy(got, orig)
			parallel.SortFunc(p, got, cmp.Compare[float64])
			sortCheck(t, "SortFunc", orig, got, want, false)
			return
		}
		base := make([]int16, len(data)/2)
		for i := range base {
			base[i] = int16(binary.LittleEndian.Uint16(data[2*i:]))
		}
		orig := sortFuzzStretch(base, n, shape, func(x int16, k int) int16 { return x + int16(k) })
		want := slices.Clone(orig)
		slices.Sort(want)
		got := slices.Clone(orig)
		parallel.Sort(p, got)
		sortCheck(t, "Sort", orig, got, want, false)
		copy(got, orig)
		parallel.SortFunc(p, got, cmp.Compare[int16])
		sortCheck(t, "SortFunc", orig, got, want, false)
	})
}

// FuzzSortStableFunc checks SortStableFunc against slices.SortStableFunc
// on (key, index) records, with keys from the input reduced modulo keys+1
// so that many are equal: the results must be identical.
func FuzzSortStableFunc(f *testing.F) {
	f.Add([]byte{3, 1, 4, 1, 5, 9, 2, 6}, uint8(0), uint16(20000), uint8(3))
	f.Add([]byte("the quick brown fox jumps over the lazy dog"), uint8(3), uint16(65535), uint8(255))
	f.Add([]byte{7}, uint8(1), uint16(5000), uint8(0))
	f.Add([]byte{}, uint8(0), uint16(0), uint8(0))
	p := pool.New(pool.WithWorkers(3))
	f.Cleanup(p.Close)
	f.Fuzz(func(t *testing.T, data []byte, shape uint8, size uint16, keys uint8) {
		fjtest.Deadline(t, time.Minute)
		keyOf := sortFuzzStretch(data, int(size), shape, func(x byte, k int) byte { return x + byte(k) })
		orig := make([]sortRec, len(keyOf))
		for i, k := range keyOf {
			orig[i] = sortRec{key: int(k) % (int(keys) + 1), idx: i}
		}
		want := slices.Clone(orig)
		slices.SortStableFunc(want, cmpSortRecKey)
		got := slices.Clone(orig)
		parallel.SortStableFunc(p, got, cmpSortRecKey)
		if !slices.Equal(got, want) {
			t.Fatalf("n=%d: SortStableFunc differs from slices.SortStableFunc", len(orig))
		}
	})
}
