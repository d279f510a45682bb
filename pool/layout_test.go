package pool

import (
	"testing"
	"unsafe"

	"github.com/forkjoin/fj/internal/sched"
)

// Pool and Worker consist of the scheduler's types alone, so that
// sched.As and sched.From convert between them at no cost.
func TestPublicTypesAreTheSchedulersAlone(t *testing.T) {
	if unsafe.Sizeof(Pool{}) != unsafe.Sizeof(sched.Pool{}) || unsafe.Alignof(Pool{}) != unsafe.Alignof(sched.Pool{}) {
		t.Errorf("pool.Pool is not a sched.Pool alone")
	}
	if unsafe.Sizeof(Worker{}) != unsafe.Sizeof(sched.Worker{}) || unsafe.Alignof(Worker{}) != unsafe.Alignof(sched.Worker{}) {
		t.Errorf("pool.Worker is not a sched.Worker alone")
	}
}

// WorkerStats is the scheduler's Counters with names: uint64 fields only,
// as many as it has counters, so that workerStats and counters convert by
// memory; and the conversion keeps every counter in its place.
func TestWorkerStatsIsTheSchedulersCounters(t *testing.T) {
	var c sched.Counters
	if unsafe.Sizeof(WorkerStats{}) != unsafe.Sizeof(c) {
		t.Fatalf("WorkerStats: %d bytes, sched.Counters: %d", unsafe.Sizeof(WorkerStats{}), unsafe.Sizeof(c))
	}
	for i := range c {
		c[i] = uint64(i + 1)
	}
	w := workerStats(c)
	got := []uint64{w.Executed, w.Steals, w.FailedSteals, w.InjectorPops, w.Overflows, w.Sleeps, w.Wakeups, w.Parks, w.StealOps, w.PrivateSteals, w.Barriers, w.Parked}
	for i, v := range got {
		if v != uint64(i+1) {
			t.Errorf("field %d of WorkerStats holds counter %d", i, v)
		}
	}
	if w.counters() != c {
		t.Errorf("counters(workerStats(c)) = %v, want %v", w.counters(), c)
	}
}
