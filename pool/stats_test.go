package pool_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/pool"
)

// sumWorkers adds up every counter, by reflection, so that a counter added
// to WorkerStats later is covered without touching this test.
func sumWorkers(ws []pool.WorkerStats) pool.WorkerStats {
	var s pool.WorkerStats
	sv := reflect.ValueOf(&s).Elem()
	for _, w := range ws {
		wv := reflect.ValueOf(w)
		for i := 0; i < sv.NumField(); i++ {
			sv.Field(i).SetUint(sv.Field(i).Uint() + wv.Field(i).Uint())
		}
	}
	return s
}

// allCounters returns WorkerStats with counter i set to base+i+1.
func allCounters(base uint64) pool.WorkerStats {
	var s pool.WorkerStats
	sv := reflect.ValueOf(&s).Elem()
	for i := 0; i < sv.NumField(); i++ {
		sv.Field(i).SetUint(base + uint64(i) + 1)
	}
	return s
}

// sameCounters returns WorkerStats with every counter set to d.
func sameCounters(d uint64) pool.WorkerStats {
	var s pool.WorkerStats
	sv := reflect.ValueOf(&s).Elem()
	for i := 0; i < sv.NumField(); i++ {
		sv.Field(i).SetUint(d)
	}
	return s
}

// checkStats checks the invariants of a snapshot of a closed pool.
func checkStats(t *testing.T, name string, s pool.Stats, workers int) {
	t.Helper()
	if len(s.Workers) != workers {
		t.Fatalf("%s: %d worker entries, want %d", name, len(s.Workers), workers)
	}
	if diff := cmp.Diff(sumWorkers(s.Workers), s.Total); diff != "" {
		t.Errorf("%s: Total is not the sum of the workers (-sum +Total):\n%s", name, diff)
	}
	for i, w := range s.Workers {
		if w.Wakeups > w.Sleeps {
			t.Errorf("%s: worker %d woke %d times but slept %d", name, i, w.Wakeups, w.Sleeps)
		}
	}
	// After Close every queue is empty: each task that went through the
	// injector (submitted from outside, or overflowed) was taken once.
	if s.Total.InjectorPops != s.Submitted+s.Total.Overflows {
		t.Errorf("%s: InjectorPops = %d, want Submitted + Overflows = %d + %d",
			name, s.Total.InjectorPops, s.Submitted, s.Total.Overflows)
	}
}

func TestStatsAfterClose(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	n := small(20, 15)
	const runs1, runs2 = 5, 7
	for _, workers := range []int{1, 2, 3} {
		p := pool.New(pool.WithWorkers(workers))
		// A fresh pool has run nothing (its workers may already have
		// searched and slept).
		fresh := p.Stats()
		if len(fresh.Workers) != workers {
			t.Fatalf("workers=%d: fresh Stats has %d worker entries", workers, len(fresh.Workers))
		}
		if f := fresh.Total; f.Executed != 0 || f.Steals != 0 || f.InjectorPops != 0 || f.Overflows != 0 || fresh.Submitted != 0 {
			t.Errorf("workers=%d: Stats of a fresh pool: %+v, submitted %d; want nothing executed, stolen, injected or submitted",
				workers, f, fresh.Submitted)
		}
		run := func(k int) {
			for i := 0; i < k; i++ {
				if got := forkjoin.Invoke(p, func(w *pool.Worker) int { return fibJoin(w, n) }); got != fibSeq(n) {
					t.Fatalf("workers=%d: fib(%d) = %d", workers, n, got)
				}
			}
		}
		run(runs1)
		mid := p.Stats()
		if mid.Submitted != runs1 {
			t.Errorf("workers=%d: Submitted = %d after %d Invokes, want %d", workers, mid.Submitted, runs1, runs1)
		}
		run(runs2)
		p.Close()
		s := p.Stats()
		checkStats(t, "after Close", s, workers)
		if s.Submitted != runs1+runs2 {
			t.Errorf("workers=%d: Submitted = %d, want %d", workers, s.Submitted, runs1+runs2)
		}
		// Each Invoke runs one task, and each Join forks one task that is
		// either taken back and run inline or run by whoever took it.
		if least := uint64((runs1 + runs2) * (joins(n) + 1)); s.Total.Executed < least {
			t.Errorf("workers=%d: Total.Executed = %d, want at least %d\n%v", workers, s.Total.Executed, least, s)
		}
		if workers == 1 && (s.Total.Steals != 0 || s.Total.FailedSteals != 0) {
			t.Errorf("1 worker: Steals = %d, FailedSteals = %d, want 0 (nobody to steal from)", s.Total.Steals, s.Total.FailedSteals)
		}

		d := s.Sub(mid)
		if d.Submitted != runs2 {
			t.Errorf("workers=%d: Sub: Submitted = %d, want %d", workers, d.Submitted, runs2)
		}
		if diff := cmp.Diff(sumWorkers(d.Workers), d.Total); diff != "" {
			t.Errorf("workers=%d: Sub: Total is not the sum of the workers (-sum +Total):\n%s", workers, diff)
		}
		if d.Total.Executed+mid.Total.Executed != s.Total.Executed {
			t.Errorf("workers=%d: Sub: Executed %d + earlier %d != %d", workers, d.Total.Executed, mid.Total.Executed, s.Total.Executed)
		}
		// ScratchBytes is the process's gauge: s's own, not a difference.
		if z := s.Sub(s); !cmp.Equal(z, pool.Stats{Workers: make([]pool.WorkerStats, workers), ScratchBytes: s.ScratchBytes}) {
			t.Errorf("workers=%d: s.Sub(s) = %+v, want all zero", workers, z)
		}

		str := s.String()
		for _, want := range []string{"total", "submitted", "executed", "SortByKey scratch"} {
			if !strings.Contains(str, want) {
				t.Errorf("workers=%d: Stats.String() does not mention %q:\n%s", workers, want, str)
			}
		}
		if lines := strings.Count(str, "\n"); lines != workers+6 {
			t.Errorf("workers=%d: Stats.String() has %d lines, want a header, %d workers, total, blocking sections, stalls, scratch and submitted:\n%s", workers, lines, workers, str)
		}
	}
}

func TestStatsSubArithmetic(t *testing.T) {
	ws := allCounters
	later := pool.Stats{Workers: []pool.WorkerStats{ws(100), ws(200)}, Submitted: 50,
		Blocking: 3, MostBlocking: 9, Spares: 2, SparesStarted: 7, Stalls: 5, ScratchBytes: 1 << 20}
	later.Total = sumWorkers(later.Workers)
	earlier := pool.Stats{Workers: []pool.WorkerStats{ws(10), ws(20)}, Submitted: 8,
		Blocking: 1, MostBlocking: 4, Spares: 1, SparesStarted: 3, Stalls: 2, ScratchBytes: 3 << 20}
	earlier.Total = sumWorkers(earlier.Workers)

	delta := sameCounters
	// Blocking, MostBlocking, Spares and ScratchBytes are gauges: the
	// later values.
	want := pool.Stats{Workers: []pool.WorkerStats{delta(90), delta(180)}, Total: delta(270), Submitted: 42,
		Blocking: 3, MostBlocking: 9, Spares: 2, SparesStarted: 4, Stalls: 3, ScratchBytes: 1 << 20}
	// Parked is a gauge: Sub keeps the later snapshot's value.
	want.Workers[0].Parked = later.Workers[0].Parked
	want.Workers[1].Parked = later.Workers[1].Parked
	want.Total.Parked = later.Workers[0].Parked + later.Workers[1].Parked
	if diff := cmp.Diff(want, later.Sub(earlier)); diff != "" {
		t.Errorf("Sub (-want +got):\n%s", diff)
	}
	// Against the zero snapshot, Sub is the identity.
	if diff := cmp.Diff(later, later.Sub(pool.Stats{})); diff != "" {
		t.Errorf("Sub of an empty snapshot (-want +got):\n%s", diff)
	}
}
