package sched

import "testing"

// popBatch takes the oldest task and up to half of the rest in one locked
// step, and never a spilled task beyond the first (their owner may claim
// them back; they must stay where it looks).
func TestInjectorPopBatch(t *testing.T) {
	var in injector
	in.init(1)
	tasks := make([]task, 10)
	for i := range tasks {
		in.push(0, &tasks[i])
	}
	dst := make([]*task, 8)
	if k := in.popBatch(0, dst); k != 5 {
		t.Fatalf("popBatch of 10 took %d, want 1 + half of the other 9 = 5", k)
	}
	for i := 0; i < 5; i++ {
		if dst[i] != &tasks[i] {
			t.Errorf("popBatch item %d is not task %d (oldest first)", i, i)
		}
	}
	if n := in.len(); n != 5 {
		t.Errorf("after popBatch: %d queued, want 5", n)
	}
	tasks[6].spilled.Store(true)
	if k := in.popBatch(0, dst); k != 1 || dst[0] != &tasks[5] {
		t.Errorf("popBatch before a spilled task took %d, want just the first", k)
	}
	if k := in.popBatch(0, dst[:1]); k != 1 || dst[0] != &tasks[6] {
		t.Errorf("popBatch of one slot took %d, want the oldest, spilled or not", k)
	}
	if k := in.popBatch(0, dst); k != 2 || in.len() != 1 {
		t.Errorf("popBatch of 3 took %d (left %d), want 1 + half of 2 = 2, leaving 1", k, in.len())
	}
	in.popBatch(0, dst)
	if k := in.popBatch(0, dst); k != 0 {
		t.Errorf("popBatch of an empty injector took %d", k)
	}
}
