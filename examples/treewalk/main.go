// Command treewalk sums the values of a binary tree in parallel with task
// blocks, the example of C++'s define_task_block proposal (N4411): each node
// opens a block, runs its two subtrees as tasks, and the block ends only
// when both are done, so reading their results after it is safe.
//
//	go run ./examples/treewalk [-depth 20] [-cut 10] [-workers N]
package main

import (
	"flag"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/forkjoin/fj/pool"
	"github.com/forkjoin/fj/taskblock"
)

type node struct {
	value       int
	left, right *node
}

func build(depth int) *node {
	if depth == 0 {
		return nil
	}
	return &node{value: depth, left: build(depth - 1), right: build(depth - 1)}
}

func sumSeq(n *node) int {
	if n == nil {
		return 0
	}
	return n.value + sumSeq(n.left) + sumSeq(n.right)
}

// sum is the N4411 traversal. Below cut levels from the leaves it stops
// opening blocks: a subtree that small is summed faster than a task starts.
func sum(w *pool.Worker, n *node, height, cut int) int {
	if height <= cut {
		return sumSeq(n)
	}
	var left, right int
	taskblock.Define(w, func(b *taskblock.Block) {
		b.Run(func(w *pool.Worker) { left = sum(w, n.left, height-1, cut) })
		b.Run(func(w *pool.Worker) { right = sum(w, n.right, height-1, cut) })
	})
	return n.value + left + right
}

// sumGo is the same traversal with a goroutine per subtree.
func sumGo(n *node) int {
	if n == nil {
		return 0
	}
	var left, right int
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); left = sumGo(n.left) }()
	go func() { defer wg.Done(); right = sumGo(n.right) }()
	wg.Wait()
	return n.value + left + right
}

func main() {
	depth := flag.Int("depth", 20, "tree depth (2^depth - 1 nodes)")
	cut := flag.Int("cut", 10, "subtrees this high or lower are summed sequentially (0: a block per node)")
	workers := flag.Int("workers", runtime.GOMAXPROCS(0), "pool workers")
	flag.Parse()

	tree := build(*depth)
	p := pool.New(pool.WithWorkers(*workers))
	defer p.Close()

	run := func(name string, f func() int) time.Duration {
		start := time.Now()
		got := f()
		d := time.Since(start)
		fmt.Printf("%-36s sum %d in %v\n", name, got, d.Round(time.Microsecond))
		return d
	}
	fmt.Printf("tree of depth %d (%d nodes), %d workers\n", *depth, 1<<*depth-1, p.Workers())
	seq := run("sequential", func() int { return sumSeq(tree) })
	gor := run("goroutine per node", func() int { return sumGo(tree) })
	var got int
	blk := run("task block per node", func() int {
		taskblock.Define(p, func(b *taskblock.Block) { got = sum(b.Worker(), tree, *depth, 0) })
		return got
	})
	cutT := run(fmt.Sprintf("task blocks above height %d", *cut), func() int {
		taskblock.Define(p, func(b *taskblock.Block) { got = sum(b.Worker(), tree, *depth, *cut) })
		return got
	})
	fmt.Printf("blocks vs goroutines: %.1fx faster; with the cut-off vs sequential: %.2fx\n",
		gor.Seconds()/blk.Seconds(), seq.Seconds()/cutT.Seconds())
}
