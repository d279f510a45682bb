package sched_test

import (
	"slices"
	"testing"
	"time"

	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/pool"
)

// BenchmarkInvokeLatency measures how long an outside Run on an idle pool
// takes to start: from just before p.Run to the first line of f, with every
// worker parked beforehand. It reports the median (the design's target is
// below 50 µs) and the 90th percentile. ns/op is the whole round trip,
// including f's completion being signalled back to the caller.
//
// Run it with a fixed count, e.g. -benchtime=200x: each sample waits for
// the pool to go idle first.
func BenchmarkInvokeLatency(b *testing.B) {
	fjtest.Deadline(b, 5*time.Minute)
	p := pool.New()
	defer p.Close()
	p.Run(func(*pool.Worker) {}) // start everything once

	samples := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		// Let the workers finish searching and park: the sleep is the
		// idle time between samples, waitParked makes sure of it.
		time.Sleep(200 * time.Microsecond)
		waitParked(p)
		b.StartTimer()

		var started time.Time
		t0 := time.Now()
		p.Run(func(*pool.Worker) { started = time.Now() })
		samples = append(samples, started.Sub(t0))
	}
	b.StopTimer()

	slices.Sort(samples)
	us := func(q float64) float64 {
		return float64(samples[int(q*float64(len(samples)-1))].Nanoseconds()) / 1e3
	}
	b.ReportMetric(us(0.5), "median-µs")
	b.ReportMetric(us(0.9), "p90-µs")
}
