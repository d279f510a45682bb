package parallel_test

import (
	"context"
	"slices"
	"testing"

	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
)

// spin is a body of about a microsecond of CPU.
func spin(x int) int {
	for range 300 {
		x = x*1664525 + 1013904223
	}
	return x
}

var seqSink int

// BenchmarkForSeq: the cost of the Seq calls' puller and batches, per
// call over 100,000 items of a slice's sequence, with a trivial body and
// one of about a microsecond, and a task per item (Grain(1), WithContext)
// over 1,000 items.
func BenchmarkForSeq(b *testing.B) {
	p := pool.New()
	defer p.Close()
	items := make([]int, 100_000)
	for i := range items {
		items[i] = i
	}
	b.Run("trivial-100k", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			parallel.ForSeq(p, slices.Values(items), func(_ *pool.Worker, x int) {
				if x < 0 {
					seqSink++
				}
			})
		}
	})
	// MapSeq over the same items: its results are kept per batch and
	// joined at the end (MapSeqErr shares its body).
	b.Run("MapSeq-trivial-100k", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			out := parallel.MapSeq(p, slices.Values(items), func(_ *pool.Worker, x int) int { return x + 1 })
			seqSink += out[len(out)-1]
		}
	})
	b.Run("1us-10k", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			parallel.ForSeq(p, slices.Values(items[:10_000]), func(_ *pool.Worker, x int) {
				if spin(x) == 0 {
					seqSink++
				}
			})
		}
	})
	b.Run("Grain1-1k", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			parallel.ForSeq(p, slices.Values(items[:1000]), func(_ *pool.Worker, x int) {
				if x < 0 {
					seqSink++
				}
			}, parallel.Grain(1))
		}
	})
	b.Run("WithContext-1k", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			opt, _ := parallel.WithContext(context.Background())
			_ = parallel.ForSeqErr(p, slices.Values(items[:1000]), func(_ *pool.Worker, x int) error {
				if x < 0 {
					seqSink++
				}
				return nil
			}, opt)
		}
	})
}
