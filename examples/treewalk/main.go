// Command treewalk sums the values of a binary tree in parallel with task
// blocks, the example of C++'s define_task_block proposal (N4411): each node
// opens a block, runs one subtree as a task and walks the other itself, and
// the block ends only when both are done, so reading their results after it
// is safe.
//
//	go run ./examples/treewalk [-depth 20] [-cut 15] [-workers N] [-runs 7]
//
// A walk of a tree this size is bound by memory, not by arithmetic, so
// its time depends on what the caches and the heap hold when it starts:
// every timed walk below starts from the same state (a collection, then
// an untimed sequential walk), the versions are interleaved, and each
// time shown is the median of -runs walks.
package main

import (
	"flag"
	"fmt"
	"math/bits"
	"runtime"
	"slices"
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
// Here a block costs more than its own tens of nanoseconds: the walk of
// the subtree after it runs slower, by up to about 8 µs. The time goes to
// sumSeq's own loads, not to fj's code (a CPU profile puts under 2% of
// it in fj), and plain Go pays the same with no fj at all: the walk is a
// stream of dependent loads through memory laid out in visiting order,
// and one small heap allocation between two subtrees slows the next one
// as much, while the same allocations made before the walk cost nothing
// (BenchmarkTreeWalk20Paired at the module's root, pieces-alloc-cut12). A
// block touches its job and deque slot in the same way. On one worker the
// walk with blocks above height 10 (1,023 of them) took 1.7 times the
// sequential walk, above 12 (255) 1.3 times, above 14 (63) 1.07 times,
// above 16 (15) 1.01 times. So by default the blocks stop where about 16
// subtrees per worker are left: above height 16 on one worker, 15 on two.
//
// The body walks the left subtree itself and runs only the right one as a
// task (N4411 lets a body work; Cilk's spawn-one, call-one). With two
// b.Run calls the worker would take back the last one first, walking the
// right subtree before the left: the nodes were allocated left first, and
// on one worker that reversed order alone made the walk about 1.3× slower
// than sumSeq over the same memory. This way a worker visits nodes in
// sumSeq's order, and a thief takes the other half whole.
func sum(w *pool.Worker, n *node, height, cut int) int {
	if height <= cut {
		return sumSeq(n)
	}
	var left, right int
	taskblock.Define(w, func(b *taskblock.Block) {
		b.Run(func(w *pool.Worker) { right = sum(w, n.right, height-1, cut) })
		left = sum(b.Worker(), n.left, height-1, cut)
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
	cut := flag.Int("cut", -1, "subtrees this high or lower are summed sequentially (0: a block per node; -1: about 16 subtrees per worker)")
	workers := flag.Int("workers", runtime.GOMAXPROCS(0), "pool workers")
	runs := flag.Int("runs", 7, "timed walks per version; each time shown is their median")
	flag.Parse()

	// cutFor is the cut-off for a pool of n workers: the largest pieces
	// that still leave about 16 per worker, so that they balance; the
	// fewer the blocks, the faster the walk (see sum). -cut sets one for
	// every pool.
	cutFor := func(n int) int {
		if *cut >= 0 {
			return *cut
		}
		return max(0, *depth-4-bits.Len(uint(max(n, 1)-1)))
	}
	tree := build(*depth)
	want := sumSeq(tree)
	p := pool.New(pool.WithWorkers(*workers))
	defer p.Close()
	p1 := pool.New(pool.WithWorkers(1))
	defer p1.Close()

	blocks := func(p *pool.Pool, cut int) func() int {
		return func() int {
			var got int
			taskblock.Define(p, func(b *taskblock.Block) { got = sum(b.Worker(), tree, *depth, cut) })
			return got
		}
	}
	// timed walks the tree once with f, from the state every walk starts
	// from: without the collection and the warm-up walk, a version run
	// after one that allocates (the goroutine per node leaves a garbage
	// heap behind) or that left the tree's other end in the cache is
	// measured against a sequential walk that was not.
	timed := func(f func() int) time.Duration {
		runtime.GC()
		sumSeq(tree)
		start := time.Now()
		got := f()
		d := time.Since(start)
		if got != want {
			panic(fmt.Sprintf("sum %d, want %d", got, want))
		}
		return d
	}
	type version struct {
		name string
		f    func() int
		ds   []time.Duration
	}
	vs := []*version{
		{name: "sequential", f: func() int { return sumSeq(tree) }},
		{name: fmt.Sprintf("task blocks above height %d, 1 worker", cutFor(1)), f: blocks(p1, cutFor(1))},
		{name: fmt.Sprintf("task blocks above height %d, %d workers", cutFor(p.Workers()), p.Workers()), f: blocks(p, cutFor(p.Workers()))},
	}
	for range max(*runs, 1) {
		for _, v := range vs {
			v.ds = append(v.ds, timed(v.f))
		}
	}
	median := func(ds []time.Duration) time.Duration {
		ds = slices.Clone(ds)
		slices.Sort(ds)
		return ds[len(ds)/2]
	}
	fmt.Printf("tree of depth %d (%d nodes), sum %d, %d workers, median of %d walks\n",
		*depth, 1<<*depth-1, want, p.Workers(), len(vs[0].ds))
	seq := median(vs[0].ds)
	for _, v := range vs {
		m := median(v.ds)
		fmt.Printf("%-40s %10v  %.2fx sequential\n", v.name, m.Round(time.Microsecond), seq.Seconds()/m.Seconds())
	}

	// A block or a goroutine per node: what a task costs when nothing
	// amortises it (one walk each; the goroutines' walk comes last, as it
	// leaves the most garbage behind).
	blk := timed(blocks(p, 0))
	gor := timed(func() int { return sumGo(tree) })
	fmt.Printf("%-40s %10v\n%-40s %10v\nblocks vs goroutines: %.1fx faster\n",
		"task block per node", blk.Round(time.Microsecond),
		"goroutine per node", gor.Round(time.Microsecond), gor.Seconds()/blk.Seconds())
}
