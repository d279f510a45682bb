package taskblock_test

import (
	"runtime"
	"testing"
	"time"
	"unsafe"

	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/pool"
	"github.com/forkjoin/fj/taskblock"
)

// A block's tasks reuse the task objects of the deque slots they fill
// (sched.Go, J4), and a Define whose tasks all ran on its own worker hands
// its state back for the next Define there (sched.Group, G5), so a Define
// from a task whose tasks are not stolen allocates nothing but its 8-byte
// Block handle, from a batch of 512 (newBlock): one allocation per 512
// Defines. A tree walk with a block per node then makes 4 allocations per
// node (the body's closure and the two it runs, and the variables they
// share), one less than when each Block was allocated.
func TestDefineDoesNotAllocate(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	if fjtest.RaceEnabled {
		t.Skip("the race detector allocates")
	}
	// Without the stall watch, whose goroutine (an allocation) starts
	// now and then, as time passes, when a fork is published.
	p := pool.New(pool.WithWorkers(1), pool.WithStallThreshold(0))
	defer p.Close()
	p.Run(func(w *pool.Worker) {
		task := func(w *pool.Worker) {}
		bodies := map[string]func(b *taskblock.Block){
			"no task":   func(b *taskblock.Block) {},
			"one Run":   func(b *taskblock.Block) { b.Run(task) },
			"two Runs":  func(b *taskblock.Block) { b.Run(task); b.Run(task) },
			"a RunFrom": func(b *taskblock.Block) { b.RunFrom(b.Worker(), task) },
		}
		for name, body := range bodies {
			// Warm up: the first Define makes the worker's state and
			// batch; see below for the task objects.
			for range 4096 {
				taskblock.Define(w, body)
			}
			if n := testing.AllocsPerRun(100, func() { taskblock.Define(w, body) }); n != 0 {
				t.Errorf("Define with %s from a task: %v allocations, want 0", name, n)
			}
			// AllocsPerRun rounds down: count them all. A batch of
			// Blocks per 512 Defines, and now and then a task object
			// (when the deque's indices moved, J4 after D5a): far from
			// one per Define.
			const runs, most = 5120, 5120 / 256
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for range runs {
				taskblock.Define(w, body)
			}
			runtime.ReadMemStats(&after)
			if n := after.Mallocs - before.Mallocs; n > most {
				t.Errorf("%d Defines with %s from a task: %d allocations, want at most %d", runs, name, n, most)
			}
		}
		tree := buildTree(10)
		nodes := float64(1<<10 - 1)
		// Warm up: a fork published because its deque exposed nothing
		// (job.go, E1) and taken back as the last item moves the deque's
		// indices on by one slot (wsdeque.md, D5a), so tasks are reused
		// once every slot of the ring has held one.
		for range 256 {
			sumBlock(w, tree)
		}
		if n := testing.AllocsPerRun(5, func() { sumBlock(w, tree) }); n > 4*nodes+nodes/512+1 {
			t.Errorf("a block per node of a %v-node tree: %v allocations, %.2f per node, want at most 4 (and a batch of Blocks per 512)", nodes, n, n/nodes)
		}
	})
}

// A Block is a handle of one pointer, 8 bytes of a batch: the state it
// points to is reused (newBlock).
func TestBlockIsOnePointer(t *testing.T) {
	if size, want := unsafe.Sizeof(taskblock.Block{}), unsafe.Sizeof(uintptr(0)); size != want {
		t.Errorf("Sizeof(Block) = %d, want %d", size, want)
	}
}
