package forkjoin_test

import (
	"fmt"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/pool"
)

// fibEx forks at every level with JoinArgs: both halves are fibEx itself on
// different arguments, so there is no closure to allocate, and a fork
// nobody steals costs a few plain loads and stores.
func fibEx(w *pool.Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := forkjoin.JoinArgs(w, fibEx, n-1, n-2)
	return a + b
}

func ExampleJoinArgs() {
	p := pool.New()
	defer p.Close()
	fmt.Println(forkjoin.Invoke(p, func(w *pool.Worker) int { return fibEx(w, 30) }))
	// Output: 832040
}

// Arguments that carry several values travel as a struct, by value: here
// a range to sum, halved at every level.
func ExampleJoinArgs_struct() {
	type span struct{ lo, hi int }
	// The sum needs more than 32 bits: int64, so that the example prints
	// the same on 386 and arm as on 64-bit platforms.
	var sum func(w *pool.Worker, s span) int64
	sum = func(w *pool.Worker, s span) int64 {
		if s.hi-s.lo <= 1000 {
			var t int64
			for i := s.lo; i < s.hi; i++ {
				t += int64(i)
			}
			return t
		}
		mid := (s.lo + s.hi) / 2
		a, b := forkjoin.JoinArgs(w, sum, span{s.lo, mid}, span{mid, s.hi})
		return a + b
	}
	p := pool.New()
	defer p.Close()
	fmt.Println(forkjoin.Invoke(p, func(w *pool.Worker) int64 { return sum(w, span{0, 1_000_000}) }))
	// Output: 499999500000
}

type node struct {
	name     string
	size     int
	children []*node
}

// sizes walks a tree forking every child and joining them all: JoinAll
// returns the children's results in order.
func sizes(w *pool.Worker, n *node) []string {
	out := []string{fmt.Sprintf("%s %d", n.name, total(n))}
	for _, sub := range forkjoin.JoinAll(w, sizes, n.children) {
		out = append(out, sub...)
	}
	return out
}

func total(n *node) int {
	t := n.size
	for _, c := range n.children {
		t += total(c)
	}
	return t
}

func ExampleJoinAll() {
	root := &node{"/", 1, []*node{
		{"/etc", 2, nil},
		{"/usr", 3, []*node{{"/usr/bin", 4, nil}, {"/usr/lib", 5, nil}}},
	}}
	p := pool.New()
	defer p.Close()
	for _, line := range forkjoin.Invoke(p, func(w *pool.Worker) []string { return sizes(w, root) }) {
		fmt.Println(line)
	}
	// Output:
	// / 15
	// /etc 2
	// /usr 12
	// /usr/bin 4
	// /usr/lib 5
}

// du sums a tree forking every child: JoinReduce folds the children's
// results as they are joined, and allocates nothing.
func du(w *pool.Worker, n *node) int {
	return n.size + forkjoin.JoinReduce(w, du, n.children, func(a, b int) int { return a + b })
}

func ExampleJoinReduce() {
	root := &node{"/", 1, []*node{
		{"/etc", 2, nil},
		{"/usr", 3, []*node{{"/usr/bin", 4, nil}, {"/usr/lib", 5, nil}}},
	}}
	p := pool.New()
	defer p.Close()
	fmt.Println(forkjoin.Invoke(p, func(w *pool.Worker) int { return du(w, root) }))
	// Output: 15
}
