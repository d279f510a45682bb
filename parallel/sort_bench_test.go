package parallel_test

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
)

// The sort benchmarks compare each parallel sort with its slices
// counterpart in the same run, on a pool with a worker per CPU:
//
//	go test -run='^$' -bench='Sort' -count=6 ./parallel | tee sortbench.txt
//	benchstat -col /impl sortbench.txt

// benchRecord is a 32-byte record sorted by Key.
type benchRecord struct {
	Key     int64
	A, B, C int64
}

func cmpBenchRecord(a, b benchRecord) int {
	switch {
	case a.Key < b.Key:
		return -1
	case a.Key > b.Key:
		return 1
	}
	return 0
}

// benchSort runs sort on a fresh copy of orig in every iteration; the copy
// is not timed.
func benchSort[E any](b *testing.B, orig []E, sort func(s []E)) {
	s := make([]E, len(orig))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		copy(s, orig)
		b.StartTimer()
		sort(s)
	}
}

func BenchmarkSort(b *testing.B) {
	const n = 10_000_000
	rng := rand.New(rand.NewSource(1))
	orig := make([]int64, n)
	for i := range orig {
		orig[i] = rng.Int63()
	}
	p := pool.New()
	defer p.Close()
	b.Run("impl=slices", func(b *testing.B) {
		benchSort(b, orig, func(s []int64) { slices.Sort(s) })
	})
	b.Run("impl=fj", func(b *testing.B) {
		benchSort(b, orig, func(s []int64) { parallel.Sort(p, s) })
	})
}

func benchRecords(n int) []benchRecord {
	rng := rand.New(rand.NewSource(2))
	orig := make([]benchRecord, n)
	for i := range orig {
		orig[i] = benchRecord{Key: rng.Int63(), A: int64(i)}
	}
	return orig
}

func BenchmarkSortFunc(b *testing.B) {
	orig := benchRecords(4 << 20)
	p := pool.New()
	defer p.Close()
	b.Run("impl=slices", func(b *testing.B) {
		benchSort(b, orig, func(s []benchRecord) { slices.SortFunc(s, cmpBenchRecord) })
	})
	b.Run("impl=fj", func(b *testing.B) {
		benchSort(b, orig, func(s []benchRecord) { parallel.SortFunc(p, s, cmpBenchRecord) })
	})
}

func BenchmarkSortStableFunc(b *testing.B) {
	orig := benchRecords(4 << 20)
	p := pool.New()
	defer p.Close()
	b.Run("impl=slices", func(b *testing.B) {
		benchSort(b, orig, func(s []benchRecord) { slices.SortStableFunc(s, cmpBenchRecord) })
	})
	b.Run("impl=fj", func(b *testing.B) {
		benchSort(b, orig, func(s []benchRecord) { parallel.SortStableFunc(p, s, cmpBenchRecord) })
	})
}
