package pool_test

import (
	"bytes"
	"runtime/pprof"
	"runtime/trace"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/pool"
)

// regionOf returns the fj.region profiler label of the calling goroutine,
// read from a goroutine profile (the runtime offers no other way).
func regionOf(t *testing.T) string {
	t.Helper()
	var buf bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&buf, 1); err != nil {
		t.Fatal(err)
	}
	// The calling goroutine is the one whose stack shows regionOf.
	for _, rec := range strings.Split(buf.String(), "\n\n") {
		if !strings.Contains(rec, "pool_test.regionOf") {
			continue
		}
		i := strings.Index(rec, `"fj.region":"`)
		if i < 0 {
			return ""
		}
		rest := rec[i+len(`"fj.region":"`):]
		return rest[:strings.Index(rest, `"`)]
	}
	t.Fatal("calling goroutine not found in the goroutine profile")
	return ""
}

func fibIn(w *pool.Worker, n int, check func(w *pool.Worker)) int {
	if n < 2 {
		check(w)
		return n
	}
	a, b := forkjoin.Join(w,
		func(w *pool.Worker) int { return fibIn(w, n-1, check) },
		func(w *pool.Worker) int { return fibIn(w, n-2, check) })
	return a + b
}

// Every task forked inside a Region, on whichever worker it runs, carries
// the region's profiler label; tasks outside carry none.
func TestRegionLabelsEveryTaskForkedInside(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	var seen, wrong atomic.Int64
	var workersSeen [2]atomic.Bool
	pool.Region(p, "outer", func(w *pool.Worker) {
		if got := regionOf(t); got != "outer" {
			t.Errorf("Region's own function runs with fj.region=%q", got)
		}
		forkjoin.Invoke(w, func(w *pool.Worker) int {
			return fibIn(w, 18, func(w *pool.Worker) {
				// Checking the label is slow (a goroutine profile);
				// do it for a sample of the leaves.
				if seen.Add(1)%97 == 0 && regionOf(t) != "outer" {
					wrong.Add(1)
				}
				workersSeen[w.ID()].Store(true)
			})
		})
		pool.Region(w, "inner", func(w *pool.Worker) {
			fibIn(w, 12, func(*pool.Worker) {
				if seen.Add(1)%31 == 0 && regionOf(t) != "inner" {
					wrong.Add(1)
				}
			})
		})
		if got := regionOf(t); got != "outer" {
			t.Errorf("after the inner Region: fj.region=%q, want outer", got)
		}
	})
	if n := wrong.Load(); n != 0 {
		t.Errorf("%d sampled tasks ran without their region's label", n)
	}
	p.Run(func(w *pool.Worker) {
		if got := regionOf(t); got != "" {
			t.Errorf("a task outside any Region runs with fj.region=%q", got)
		}
	})
	t.Logf("tasks ran on worker 0: %v, worker 1: %v", workersSeen[0].Load(), workersSeen[1].Load())
}

// With an execution trace recording, a Region is a trace task and the
// work forked in it shows up as regions named after it, as do the
// workers' own regions.
func TestRegionAppearsInExecutionTrace(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	if trace.IsEnabled() {
		t.Skip("a trace is already being recorded")
	}
	p := pool.New(pool.WithWorkers(2), pool.WithName("traced"))
	defer p.Close()
	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		t.Fatal(err)
	}
	pool.Region(p, "fj-region-under-test", func(w *pool.Worker) {
		forkjoin.Invoke(w, func(w *pool.Worker) int { return fibIn(w, 15, func(*pool.Worker) {}) })
	})
	p.Run(func(*pool.Worker) {}) // a main-loop task, in its worker's region
	trace.Stop()
	for _, want := range []string{"fj-region-under-test", "traced worker"} {
		if !bytes.Contains(buf.Bytes(), []byte(want)) {
			t.Errorf("the trace does not mention %q", want)
		}
	}
}

func TestRegionPanicsAndNil(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New(pool.WithWorkers(1))
	defer p.Close()
	func() {
		defer func() {
			if r := recover(); r == nil {
				t.Error("a panic inside Region did not reach the caller")
			}
		}()
		pool.Region(p, "boom", func(*pool.Worker) { panic("boom") })
	}()
	p.Run(func(w *pool.Worker) {
		if got := regionOf(t); got != "" {
			t.Errorf("after a panic in a Region, tasks run with fj.region=%q", got)
		}
	})
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "nil function") {
			t.Errorf("Region with a nil function: panic %v", r)
		}
	}()
	pool.Region(p, "x", nil)
}

// Tasks that switch regions are counted like any other.
func TestRegionTasksAreCounted(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New(pool.WithWorkers(1))
	var ran atomic.Int64
	const n = 50
	pool.Region(p, "counted", func(w *pool.Worker) {
		fs := make([]*forkjoin.Future[int], n)
		for i := range fs {
			fs[i] = forkjoin.Fork(w, func(*pool.Worker) int { ran.Add(1); return 0 })
		}
		for i := range fs {
			fs[i].Join(w) // forward order: the first join parks, and the others run as stolen-like tasks
		}
	})
	p.Close()
	// The Region's own function is one task, and all n futures ran
	// (inline or not); Executed counts every task the worker ran.
	if got, want := p.Stats().Total.Executed, uint64(n+1); got < want {
		t.Errorf("Executed = %d, want at least %d", got, want)
	}
	if ran.Load() != n {
		t.Errorf("%d futures ran, want %d", ran.Load(), n)
	}
}
