package fj_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/forkjoin/fj/pool"
	"github.com/forkjoin/fj/taskblock"
)

// The N4411 tree walk: the sum of the values of a complete binary tree.

type treeNode struct {
	value       int
	left, right *treeNode
}

func buildTree(depth int) *treeNode {
	if depth == 0 {
		return nil
	}
	return &treeNode{value: depth, left: buildTree(depth - 1), right: buildTree(depth - 1)}
}

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

// sumBlock is the N4411 example as written: a block per node.
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

// sumBlockLeft is sumBlockCut as examples/treewalk writes it: the body
// walks the left subtree itself and runs only the right one as a task, so
// its worker visits the nodes in sumSeq's order (with two Runs it takes
// the right one back first, against the order the nodes were allocated
// in) and each block allocates one closure fewer. Its cut is the
// example's: subtrees of height cut or lower are summed sequentially.
func sumBlockLeft(w *pool.Worker, n *treeNode, depth, cut int) int {
	if depth <= cut {
		return sumSeq(n)
	}
	var left, right int
	taskblock.Define(w, func(b *taskblock.Block) {
		b.Run(func(w *pool.Worker) { right = sumBlockLeft(w, n.right, depth-1, cut) })
		left = sumBlockLeft(b.Worker(), n.left, depth-1, cut)
	})
	return n.value + left + right
}

// BenchmarkTreeWalk20 walks a tree of 2^20 nodes (32 MiB). That fits in
// the last-level cache of some machines (this one reports 480 MiB), and a
// walk over a resident tree is about twice as fast as over one that is not,
// so whether the tree is resident depends on whatever ran before. Every
// timed iteration therefore starts with an untimed sequential walk, for
// every variant alike: all of them are measured with the tree warm.
func BenchmarkTreeWalk20(b *testing.B) {
	const depth, cut = 20, 10
	tree := buildTree(depth)
	want := sumSeq(tree)
	check := func(b *testing.B, got int) {
		if got != want {
			b.Fatalf("sum = %d, want %d", got, want)
		}
		b.StopTimer()
		sumSeq(tree) // warm the tree for the next iteration, untimed
		b.StartTimer()
	}
	b.Run("impl=sequential", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			check(b, sumSeq(tree))
		}
	})
	b.Run("impl=goroutine", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			check(b, sumGoroutine(tree))
		}
	})
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("impl=fj-block-%dw", workers), func(b *testing.B) {
			p := pool.New(pool.WithWorkers(workers))
			defer p.Close()
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				var got int
				taskblock.Define(p, func(blk *taskblock.Block) { got = sumBlock(blk.Worker(), tree) })
				check(b, got)
			}
		})
	}
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("impl=fj-block-cut10-%dw", workers), func(b *testing.B) {
			p := pool.New(pool.WithWorkers(workers))
			defer p.Close()
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				var got int
				taskblock.Define(p, func(blk *taskblock.Block) { got = sumBlockCut(blk.Worker(), tree, depth, cut) })
				check(b, got)
			}
		})
	}
	// The example's form and cut-off (examples/treewalk): 255 blocks
	// instead of 1023, each walking its left subtree itself.
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("impl=fj-block-left-cut12-%dw", workers), func(b *testing.B) {
			p := pool.New(pool.WithWorkers(workers))
			defer p.Close()
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				var got int
				taskblock.Define(p, func(blk *taskblock.Block) { got = sumBlockLeft(blk.Worker(), tree, depth, 12) })
				check(b, got)
			}
		})
	}
}
