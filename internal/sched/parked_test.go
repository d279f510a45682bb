package sched_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/pool"
)

// Stats.Parked shows the tasks parked right now: a join that has to wait
// parks its task, and the gauge counts it until the task continues.
func TestStatsParkedGauge(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	p := pool.New(pool.WithWorkers(1))
	defer p.Close()
	if got := p.Stats().Total.Parked; got != 0 {
		t.Fatalf("fresh pool: Parked = %d, want 0", got)
	}
	release := make(chan struct{})
	done := make(chan int, 1)
	go func() {
		done <- forkjoin.Invoke(p, func(w *pool.Worker) int {
			// Join out of order: the first future is not at the bottom
			// of the deque (the second is), so the join parks, and the
			// worker runs both futures on another goroutine; the first
			// blocks until the test has seen the parked task.
			//fjvet:ignore blocking the fork holds its worker until the test has seen the parked task, on purpose
			f1 := forkjoin.Fork(w, func(*pool.Worker) int { <-release; return 1 })
			f2 := forkjoin.Fork(w, func(*pool.Worker) int { return 2 })
			return f1.Join(w) + f2.Join(w)
		})
	}()
	for p.Stats().Total.Parked != 1 {
		runtime.Gosched()
	}
	s := p.Stats()
	if s.Workers[0].Parked != 1 || s.Total.Parked != 1 {
		t.Errorf("while the join waits: Parked = %d (worker 0: %d), want 1\n%v", s.Total.Parked, s.Workers[0].Parked, s)
	}
	if d := s.Sub(s); d.Total.Parked != 1 {
		t.Errorf("Sub must keep the later Parked gauge: got %d, want 1", d.Total.Parked)
	}
	close(release)
	if got := <-done; got != 3 {
		t.Errorf("result = %d, want 3", got)
	}
	if got := p.Stats().Total.Parked; got != 0 {
		t.Errorf("after the join: Parked = %d, want 0", got)
	}
}
