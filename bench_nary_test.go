package fj_test

import (
	"fmt"
	"testing"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/pool"
	"github.com/forkjoin/fj/taskblock"
)

// An n-ary tree of a million nodes, each with 0 to 6 children: "fork every
// child, join them all" is the natural shape of its walk. The walk forks
// at every node, so it measures what a fork per child costs: with a Future
// per child, with a task block per node, and with forkjoin.JoinAll, which
// forks the children with recycled jobs and allocates only the result
// slice (the design's target: within 4x of sequential on 1 worker, faster
// than sequential on 2; docs/performance.md has the figures).

type naryNode struct {
	value    int
	children []*naryNode
}

// buildNary builds a tree of exactly n nodes breadth first, with a
// deterministic pseudo-random number of children per node.
func buildNary(n int) *naryNode {
	root := &naryNode{value: 1}
	queue := []*naryNode{root}
	made, x := 1, uint32(12345)
	for len(queue) > 0 && made < n {
		p := queue[0]
		queue = queue[1:]
		x = x*1664525 + 1013904223
		k := int(x>>28) % 7
		for i := 0; i < k && made < n; i++ {
			c := &naryNode{value: made%97 + 1}
			p.children = append(p.children, c)
			queue = append(queue, c)
			made++
		}
		if len(queue) == 0 && made < n { // keep the tree growing
			c := &naryNode{value: 1}
			p.children = append(p.children, c)
			queue = append(queue, c)
			made++
		}
	}
	return root
}

func naryCount(n *naryNode) int {
	c := 1
	for _, ch := range n.children {
		c += naryCount(ch)
	}
	return c
}

func narySeq(n *naryNode) int {
	s := n.value
	for _, c := range n.children {
		s += narySeq(c)
	}
	return s
}

func naryJoinAll(w *pool.Worker, n *naryNode) int {
	s := n.value
	if len(n.children) == 0 {
		return s
	}
	for _, c := range forkjoin.JoinAll(w, naryJoinAll, n.children) {
		s += c
	}
	return s
}

func addInt(a, b int) int { return a + b }

func naryJoinReduce(w *pool.Worker, n *naryNode) int {
	return n.value + forkjoin.JoinReduce(w, naryJoinReduce, n.children, addInt)
}

func naryFork(w *pool.Worker, n *naryNode) int {
	s := n.value
	fs := make([]*forkjoin.Future[int], len(n.children))
	for i, c := range n.children {
		fs[i] = forkjoin.Fork(w, func(w *pool.Worker) int { return naryFork(w, c) })
	}
	for i := len(fs) - 1; i >= 0; i-- {
		s += fs[i].Join(w)
	}
	return s
}

func naryBlock(w *pool.Worker, n *naryNode) int {
	sums := make([]int, len(n.children))
	taskblock.Define(w, func(b *taskblock.Block) {
		for i, c := range n.children {
			b.Run(func(w *pool.Worker) { sums[i] = naryBlock(w, c) })
		}
	})
	s := n.value
	for _, x := range sums {
		s += x
	}
	return s
}

func BenchmarkTreeNary(b *testing.B) {
	tree := buildNary(1 << 20)
	if c := naryCount(tree); c != 1<<20 {
		b.Fatalf("%d nodes, want %d", c, 1<<20)
	}
	want := narySeq(tree)
	b.Run("impl=sequential", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if got := narySeq(tree); got != want {
				b.Fatalf("sum = %d, want %d", got, want)
			}
		}
	})
	for _, v := range []struct {
		name string
		f    func(*pool.Worker, *naryNode) int
	}{{"joinreduce", naryJoinReduce}, {"joinall", naryJoinAll}, {"fork", naryFork}, {"block", naryBlock}} {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("impl=fj-%s-%dw", v.name, workers), func(b *testing.B) {
				p := pool.New(pool.WithWorkers(workers))
				defer p.Close()
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					if got := forkjoin.Invoke(p, func(w *pool.Worker) int { return v.f(w, tree) }); got != want {
						b.Fatalf("sum = %d, want %d", got, want)
					}
				}
			})
		}
	}
}
