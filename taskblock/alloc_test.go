package taskblock_test

import (
	"testing"
	"time"
	"unsafe"

	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/pool"
	"github.com/forkjoin/fj/taskblock"
)

// A block's tasks reuse the task objects of the deque slots they fill
// (sched.Go, J4), so a Define from a task allocates its Block and nothing
// else for the tasks: a tree walk with a block per node makes 5
// allocations per node (the Block, the body's closure and the two it
// runs, and the variables they share), the count of the root benchmark
// TreeWalk20. A generic adapter stored per task once added two per node,
// 40% more garbage and a third more time.
func TestDefineAllocatesOnlyTheBlock(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	if fjtest.RaceEnabled {
		t.Skip("the race detector allocates")
	}
	p := noAsides(pool.New(pool.WithWorkers(1))) // a stand-in allocates
	defer p.Close()
	p.Run(func(w *pool.Worker) {
		n := testing.AllocsPerRun(100, func() {
			taskblock.Define(w, func(b *taskblock.Block) {
				b.Run(func(w *pool.Worker) {})
				b.Run(func(w *pool.Worker) {})
			})
		})
		if n != 1 {
			t.Errorf("Define with two Runs from a task: %v allocations, want 1 (the Block)", n)
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
		if n := testing.AllocsPerRun(5, func() { sumBlock(w, tree) }); n > 5*nodes {
			t.Errorf("a block per node of a %v-node tree: %v allocations, %.2f per node, want at most 5", nodes, n, n/nodes)
		}
	})
}

// A Block is 64 bytes, a size class of its own: a block per node of a
// tree allocates one per node, and at 88 bytes (the size class of 96) the
// tree walk of the root benchmarks made 20% more garbage and ran 10%
// slower on 2 workers.
func TestBlockIs64Bytes(t *testing.T) {
	if size := unsafe.Sizeof(taskblock.Block{}); size != 64 {
		t.Errorf("Sizeof(Block) = %d, want 64", size)
	}
}
