package fj_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/forkjoin/fj/forkjoin"
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
	// The example's form and cut-off on 2 workers (examples/treewalk): 31 blocks
	// instead of 1023, each walking its left subtree itself.
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("impl=fj-block-left-cut15-%dw", workers), func(b *testing.B) {
			p := pool.New(pool.WithWorkers(workers))
			defer p.Close()
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				var got int
				taskblock.Define(p, func(blk *taskblock.Block) { got = sumBlockLeft(blk.Worker(), tree, depth, 15) })
				check(b, got)
			}
		})
	}
}

var pieceSink *[4]int // where sumPiecesAlloc's allocations escape to

// sumPiecesAlloc is the walk sumBlockLeft makes, with no fj: the same
// pieces in the same order, each preceded by one small heap allocation
// when alloc is set. It isolates what the task-block walk pays that is
// not fj's code (issue 32 item 4): this walk is a stream of dependent
// loads through memory laid out in visiting order, and on the machine
// this was measured on one allocation between two pieces (a few lines of
// the allocator's memory touched) slows the next piece by about 8 µs,
// while plain stores elsewhere do not (an allocation per piece of 4,095
// nodes: about 1.3 times the sequential walk; the same allocations made
// before the walk: no change). A fork touches its deque slot and job in
// the same way, which is why the example opens blocks only down to about
// 16 subtrees per worker.
func sumPiecesAlloc(n *treeNode, depth, cut int, alloc bool) int {
	if depth <= cut {
		return sumSeq(n)
	}
	if alloc {
		pieceSink = new([4]int)
	}
	right := func() int { return sumPiecesAlloc(n.right, depth-1, cut, alloc) }
	left := sumPiecesAlloc(n.left, depth-1, cut, alloc)
	return n.value + left + right()
}

// BenchmarkTreeWalk20Paired measures the tree walk's speedups on a
// machine whose load changes from second to second: every iteration
// walks the tree sequentially and with task blocks, one version right
// after the other (each after the same untimed warm-up walk), so that all
// see about the same load, and reports each version's time per walk and
// its speedup over the sequential walk of the same iterations
// (seq/<version>: above 1, faster). form=left-cut15 is examples/treewalk
// (the body walks the left subtree, a task runs the right one, blocks
// above height 15); form=two-runs-cut10 is the example before issue 32
// (both subtrees as tasks, blocks above height 10), whose worker walked
// the right subtree first. The example now opens blocks above height 16
// on one worker (16 subtrees a worker): form=left-cut16-1w. The rest
// split the one-worker walk's cost into what is not fj's: seq-in-pool is
// the sequential walk as one task of the one-worker pool (the call from
// outside: two wake-ups), pieces-cut12 and pieces-alloc-cut12 the same
// 256 pieces with no fj, without and with one allocation before each
// (sumPiecesAlloc), beside left-cut12-1w, the task blocks that make them.
func BenchmarkTreeWalk20Paired(b *testing.B) {
	const depth = 20
	tree := buildTree(depth)
	want := sumSeq(tree)
	p1 := pool.New(pool.WithWorkers(1))
	defer p1.Close()
	p2 := pool.New(pool.WithWorkers(2))
	defer p2.Close()
	blocks := func(p *pool.Pool, sum func(w *pool.Worker, n *treeNode) int) func() int {
		return func() int {
			var got int
			taskblock.Define(p, func(blk *taskblock.Block) { got = sum(blk.Worker(), tree) })
			return got
		}
	}
	left := func(w *pool.Worker, n *treeNode) int { return sumBlockLeft(w, n, depth, 15) }
	// sumBlockCut's depth < cut is height <= cut - 1: cut 11 is the old
	// example's blocks above height 10.
	twoRuns := func(w *pool.Worker, n *treeNode) int { return sumBlockCut(w, n, depth, 11) }
	versions := []struct {
		name string
		walk func() int
		t    time.Duration
	}{
		{"seq", func() int { return sumSeq(tree) }, 0},
		{"left-cut15-1w", blocks(p1, left), 0},
		{"left-cut15-2w", blocks(p2, left), 0},
		{"two-runs-cut10-1w", blocks(p1, twoRuns), 0},
		{"two-runs-cut10-2w", blocks(p2, twoRuns), 0},
		{"left-cut16-1w", blocks(p1, func(w *pool.Worker, n *treeNode) int { return sumBlockLeft(w, n, depth, 16) }), 0},
		{"seq-in-pool-1w", func() int {
			var got int
			p1.Run(func(*pool.Worker) { got = sumSeq(tree) })
			return got
		}, 0},
		{"pieces-cut12", func() int { return sumPiecesAlloc(tree, depth, 12, false) }, 0},
		{"pieces-alloc-cut12", func() int { return sumPiecesAlloc(tree, depth, 12, true) }, 0},
		{"left-cut12-1w", blocks(p1, func(w *pool.Worker, n *treeNode) int { return sumBlockLeft(w, n, depth, 12) }), 0},
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := range versions {
			v := &versions[j]
			b.StopTimer()
			sumSeq(tree)
			b.StartTimer()
			t0 := time.Now()
			got := v.walk()
			v.t += time.Since(t0)
			if got != want {
				b.Fatalf("%s: sum = %d, want %d", v.name, got, want)
			}
		}
	}
	for _, v := range versions {
		b.ReportMetric(float64(v.t.Nanoseconds())/float64(b.N), v.name+"-ns/op")
	}
	for _, v := range versions[1:] {
		b.ReportMetric(float64(versions[0].t)/float64(v.t), "seq/"+v.name)
	}
}

// The fork's cost in code shaped as users write it (issue 32): the sum of
// a random binary tree of 1M nodes behind pointers, with two closures per
// Join as a newcomer writes it, beside the same walk with JoinArgs (no
// closure), the sequential walk, and the sequential walk through the same
// two closures made to escape to the heap as Join's second one does (what
// the closures cost without fj: an allocation each node, and the
// collections that a heap holding the tree makes costly). ns/fork is per
// inner node.

type randNode struct {
	value       int
	left, right *randNode
}

// buildRandTree builds a random binary tree of n nodes: each node splits
// its remaining nodes at a random point between its two subtrees.
func buildRandTree(n int, seed *uint64) *randNode {
	if n == 0 {
		return nil
	}
	*seed = *seed*6364136223846793005 + 1442695040888963407
	k := int((*seed >> 33) % uint64(n))
	return &randNode{value: n, left: buildRandTree(k, seed), right: buildRandTree(n-1-k, seed)}
}

func randSumSeq(n *randNode) int {
	if n == nil {
		return 0
	}
	return n.value + randSumSeq(n.left) + randSumSeq(n.right)
}

var escaped func() int // where randSumClosuresSeq's closures escape to

// randSumClosuresSeq is the sequential walk through two closures per
// node, one of which escapes (as Join's second function does, into its
// job): the closures' own cost, with no fj.
func randSumClosuresSeq(n *randNode) int {
	if n == nil {
		return 0
	}
	fa := func() int { return randSumClosuresSeq(n.left) }
	fb := func() int { return randSumClosuresSeq(n.right) }
	escaped = fb
	return n.value + fa() + fb()
}

func randSumJoin(w *pool.Worker, n *randNode) int {
	if n == nil {
		return 0
	}
	a, b := forkjoin.Join(w,
		func(w *pool.Worker) int { return randSumJoin(w, n.left) },
		func(w *pool.Worker) int { return randSumJoin(w, n.right) })
	return n.value + a + b
}

func randSumArgs(w *pool.Worker, n *randNode) int {
	if n == nil {
		return 0
	}
	a, b := forkjoin.JoinArgs(w, randSumArgs, n.left, n.right)
	return n.value + a + b
}

func BenchmarkTreeSumRandom1M(b *testing.B) {
	const n = 1 << 20
	seed := uint64(1)
	tree := buildRandTree(n, &seed)
	want := randSumSeq(tree)
	perFork := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/fork")
	}
	b.Run("impl=sequential", func(b *testing.B) {
		for range b.N {
			if randSumSeq(tree) != want {
				b.Fatal("wrong sum")
			}
		}
		perFork(b)
	})
	b.Run("impl=closures-no-fj", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if randSumClosuresSeq(tree) != want {
				b.Fatal("wrong sum")
			}
		}
		perFork(b)
	})
	for _, workers := range []int{1, 2} {
		p := pool.New(pool.WithWorkers(workers))
		for _, v := range []struct {
			name string
			f    func(w *pool.Worker, n *randNode) int
		}{{"join", randSumJoin}, {"args", randSumArgs}} {
			b.Run(fmt.Sprintf("impl=fj-%s-%dw", v.name, workers), func(b *testing.B) {
				b.ReportAllocs()
				for range b.N {
					if forkjoin.Invoke(p, func(w *pool.Worker) int { return v.f(w, tree) }) != want {
						b.Fatal("wrong sum")
					}
				}
				perFork(b)
			})
		}
		p.Close()
	}
}
