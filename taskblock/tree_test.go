package taskblock_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/pool"
	"github.com/forkjoin/fj/taskblock"
)

// The N4411 tree walk: the sum of the values of a complete binary tree,
// with a block per node.

type treeNode struct {
	value       int
	left, right *treeNode
}

// buildTree returns a complete binary tree of the given depth (0: empty)
// whose nodes hold distinct values, so that a lost or doubled subtree
// result changes the sum.
func buildTree(depth int) *treeNode {
	next := 0
	var build func(d int) *treeNode
	build = func(d int) *treeNode {
		if d == 0 {
			return nil
		}
		next++
		n := &treeNode{value: next}
		n.left = build(d - 1)
		n.right = build(d - 1)
		return n
	}
	return build(depth)
}

// tree20 is the depth-20 tree (about a million nodes), built once for the
// test and the benchmark that need it.
var tree20 = sync.OnceValue(func() *treeNode { return buildTree(20) })

func sumSeq(n *treeNode) int {
	if n == nil {
		return 0
	}
	return n.value + sumSeq(n.left) + sumSeq(n.right)
}

func sumGoroutine(n *treeNode) int {
	if n == nil {
		return 0
	}
	var left, right int
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); left = sumGoroutine(n.left) }()
	go func() { defer wg.Done(); right = sumGoroutine(n.right) }()
	wg.Wait()
	return n.value + left + right
}

// sumBlock is the N4411 example as written: a block per node, whose two
// tasks write into the enclosing function's variables.
func sumBlock(w *pool.Worker, n *treeNode) int {
	if n == nil {
		return 0
	}
	var left, right int
	taskblock.Define(w, func(b *taskblock.Block) {
		b.Run(func(w *pool.Worker) { left = sumBlock(w, n.left) })
		b.Run(func(w *pool.Worker) { right = sumBlock(w, n.right) })
	})
	return n.value + left + right
}

// sumBlockCut batches: subtrees of depth below cut are summed sequentially.
func sumBlockCut(w *pool.Worker, n *treeNode, depth, cut int) int {
	if depth < cut {
		return sumSeq(n)
	}
	var left, right int
	taskblock.Define(w, func(b *taskblock.Block) {
		b.Run(func(w *pool.Worker) { left = sumBlockCut(w, n.left, depth-1, cut) })
		b.Run(func(w *pool.Worker) { right = sumBlockCut(w, n.right, depth-1, cut) })
	})
	return n.value + left + right
}

// sumBlockGoroutines is sumBlock that also records, at every node, the
// largest number of goroutines seen, to check that deep nesting does not
// pile up parked goroutines; a count above over is made exact
// (fjtest.NumGoroutine).
func sumBlockGoroutines(w *pool.Worker, n *treeNode, maxG *atomic.Int64, over int64) int {
	if n == nil {
		return 0
	}
	// Once over (an exact count), stop counting: the test fails anyway,
	// and every further count would stop the world.
	if maxG.Load() <= over {
		if g := int64(fjtest.NumGoroutine(int(over))); g > maxG.Load() {
			maxG.Store(g) // racy maximum: good enough for a bound
		}
	}
	var left, right int
	taskblock.Define(w, func(b *taskblock.Block) {
		b.Run(func(w *pool.Worker) { left = sumBlockGoroutines(w, n.left, maxG, over) })
		b.Run(func(w *pool.Worker) { right = sumBlockGoroutines(w, n.right, maxG, over) })
	})
	return n.value + left + right
}

func TestTreeWalk(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	depth := small(16, 10)
	tree := buildTree(depth)
	want := sumSeq(tree)
	for _, workers := range workerCounts {
		p := pool.New(pool.WithWorkers(workers))
		for round := 0; round < small(5, 2); round++ {
			// From the pool (the caller blocks) ...
			var got int
			taskblock.Define(p, func(b *taskblock.Block) { got = sumBlock(b.Worker(), tree) })
			if got != want {
				t.Fatalf("workers=%d depth=%d: sumBlock = %d, want %d", workers, depth, got, want)
			}
			// ... and with a cut-off, blocks at the top only.
			taskblock.Define(p, func(b *taskblock.Block) { got = sumBlockCut(b.Worker(), tree, depth, depth/2) })
			if got != want {
				t.Fatalf("workers=%d depth=%d: sumBlockCut = %d, want %d", workers, depth, got, want)
			}
		}
		t.Logf("workers=%d: %v", workers, p.Stats())
		p.Close()
	}
}

// TestTreeWalkDepth20 is the deep case: about a million nested blocks,
// each recursion level a Define inside a task of the level above.
func TestTreeWalkDepth20(t *testing.T) {
	if fjtest.RaceEnabled || testing.Short() {
		t.Skip("a million nested blocks: too slow under -race or -short (TestTreeWalk covers the logic)")
	}
	fjtest.Deadline(t, 60*time.Second)
	tree := tree20()
	want := sumSeq(tree)
	counts := []int{2} // 11 s on two cores for all of workerCounts: with FJ_LONG
	if fjtest.Long() {
		counts = workerCounts
	}
	for _, workers := range counts {
		p := pool.New(pool.WithWorkers(workers))
		before := fjtest.NumGoroutine(0) // exact
		limit := int64(workers * 20 * 10)
		var maxG atomic.Int64
		var got int
		taskblock.Define(p, func(b *taskblock.Block) {
			got = sumBlockGoroutines(b.Worker(), tree, &maxG, int64(before)+limit)
		})
		if got != want {
			t.Fatalf("workers=%d depth=20: sum = %d, want %d", workers, got, want)
		}
		// A waiting block parks at most one goroutine per nesting level
		// and worker; a goroutine per node (or per block) would be a
		// million. The bound is loose on purpose.
		extra := maxG.Load() - int64(before)
		if extra > limit {
			t.Errorf("workers=%d depth=20: up to %d goroutines beyond the %d before the walk, want at most %d",
				workers, extra, before, limit)
		}
		t.Logf("workers=%d depth=20: at most %d extra goroutines; %v", workers, extra, p.Stats())
		p.Close()
	}
}

func TestTreeWalkEmptyAndLeaf(t *testing.T) {
	fjtest.Deadline(t, 10*time.Second)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	for depth := 0; depth <= 3; depth++ {
		tree := buildTree(depth)
		var got int
		taskblock.Define(p, func(b *taskblock.Block) { got = sumBlock(b.Worker(), tree) })
		if want := sumSeq(tree); got != want {
			t.Errorf("depth %d: sum = %d, want %d", depth, got, want)
		}
	}
	// A body that runs nothing returns at once, from the pool and nested.
	ran := false
	taskblock.Define(p, func(b *taskblock.Block) {
		taskblock.Define(b.Worker(), func(*taskblock.Block) {})
		ran = true
	})
	if !ran {
		t.Error("the body of an empty block did not run")
	}
}
