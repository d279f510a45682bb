package sched

import (
	"testing"
	"unsafe"
)

// The hot fields of a worker and of the pool are grouped into cache lines
// by who writes them (see the Worker and Pool types): a field added later
// must not move one group onto another's line. Every group starts at the
// same offset on 64- and 32-bit platforms; within a group, a field's
// offset counts the words before it (wordSize: 8 or 4 bytes).
func TestLayout(t *testing.T) {
	var w Worker
	var p Pool
	for _, f := range []struct {
		name      string
		off, want uintptr
	}{
		// Read by thieves and wakers, written by nobody after New.
		// The deque's four lines (wsdeque's layout test checks them).
		{"Worker.dq", unsafe.Offsetof(w.dq), 0},
		{"Worker.pool", unsafe.Offsetof(w.pool), 4 * cacheLine},
		{"Worker.id", unsafe.Offsetof(w.id), 4*cacheLine + 2*wordSize},
		// The holder's two lines: written on every fork or task.
		{"Worker.rng", unsafe.Offsetof(w.rng), 5 * cacheLine},
		// Written by the sleeper and by wakers.
		{"Worker.sleepState", unsafe.Offsetof(w.sleepState), 7 * cacheLine},
		// Rarely written.
		{"Worker.flushed", unsafe.Offsetof(w.flushed), 8 * cacheLine},

		// Loaded by every fork.
		{"Pool.ctl", unsafe.Offsetof(p.ctl), 0},
		{"Pool.wakeHint", unsafe.Offsetof(p.wakeHint), 8},
		// Bumped by publishers while searchers wait on it.
		{"Pool.news", unsafe.Offsetof(p.news), cacheLine},
		// Read-mostly.
		{"Pool.workers", unsafe.Offsetof(p.workers), 2 * cacheLine},
		{"Pool.closed", unsafe.Offsetof(p.closed), 2*cacheLine + 5*wordSize + unsafe.Sizeof(injector{})},
		// Written by every external submission.
		{"Pool.inflight", unsafe.Offsetof(p.inflight), 3 * cacheLine},
		{"Pool.closeOnce", unsafe.Offsetof(p.closeOnce), 4 * cacheLine},
	} {
		if f.off != f.want {
			t.Errorf("offset of %s = %d, want %d", f.name, f.off, f.want)
		}
	}
	if size := unsafe.Sizeof(w); size%cacheLine != 0 {
		t.Errorf("Sizeof(Worker) = %d, not a whole number of %d-byte lines: the next object on the heap would share its last line", size, cacheLine)
	}
	if end := unsafe.Offsetof(w.inProgress) + unsafe.Sizeof(w.inProgress); end > 7*cacheLine {
		t.Errorf("the holder's fields end at %d, past their lines", end)
	}
}

// The layout's main lines again, as constant expressions that fail to
// compile where they do not hold (an index out of [0, 1), or a negative
// uintptr): the tests are built for every platform CI names (.ci/run)
// but run only on some, so a layout wrong on 32-bit arm, say, fails the
// build there.
var layoutWorker Worker
var layoutPool Pool

var _ = [1]struct{}{}[unsafe.Offsetof(layoutWorker.pool)-4*cacheLine]
var _ = [1]struct{}{}[unsafe.Offsetof(layoutWorker.rng)-5*cacheLine]
var _ = [1]struct{}{}[unsafe.Offsetof(layoutWorker.sleepState)-7*cacheLine]
var _ = [1]struct{}{}[unsafe.Offsetof(layoutWorker.flushed)-8*cacheLine]
var _ = [1]struct{}{}[unsafe.Sizeof(layoutWorker)%cacheLine]
var _ = [1]struct{}{}[unsafe.Offsetof(layoutPool.news)-cacheLine]
var _ = [1]struct{}{}[unsafe.Offsetof(layoutPool.workers)-2*cacheLine]
var _ = [1]struct{}{}[unsafe.Offsetof(layoutPool.inflight)-3*cacheLine]
var _ = [1]struct{}{}[unsafe.Offsetof(layoutPool.closeOnce)-4*cacheLine]

// Plus adds every counter; Minus subtracts them all but the gauge.
func TestCountersPlusMinus(t *testing.T) {
	var c Counters
	c[countSteals], c[countParked] = 3, 5
	if d := c.Plus(c).Minus(c); d[countSteals] != 3 || d[countParked] != 10 {
		t.Errorf("(c+c)-c: Steals %d, Parked %d; want 3 and 10 (the gauge is the later value)", d[countSteals], d[countParked])
	}
}

// Every first fork of a recycled job type allocates its job, and so does
// every Fork whose job a join of another worker released (future.md,
// Q8): a field added to task that takes it past 48 bytes moves a
// Future job of a word-sized result from the 80-byte size class to 96 or
// 112 (issue 33's oneShot and idx fields did, until the fields were
// reordered, when every Fork allocated its job: Fib27's Fork rows
// allocated 38.8 MiB against 29.1 before).
func TestTaskSizes(t *testing.T) {
	for _, s := range []struct {
		name       string
		size, want uintptr
	}{
		{"task", unsafe.Sizeof(task{}), 48},
		{"job", unsafe.Sizeof(job{}), 64},
		{"Future[Worker, int]", unsafe.Sizeof(Future[Worker, int]{}), 80},
		{"spawnJob[Worker, int]", unsafe.Sizeof(spawnJob[Worker, int]{}), 96},
	} {
		if s.size > s.want {
			t.Errorf("Sizeof(%s) = %d, want at most %d", s.name, s.size, s.want)
		}
	}
}
