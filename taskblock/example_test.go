package taskblock_test

import (
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/forkjoin/fj/pool"
	"github.com/forkjoin/fj/taskblock"
)

// The tree walk of N4411: the sum of a binary tree's values, with a block
// per node whose two tasks sum the subtrees in parallel. The tasks write
// into the enclosing function's variables, which is safe because Define
// returns only when both have finished.
func ExampleDefine() {
	type Node struct {
		Value       int
		Left, Right *Node
	}
	var sum func(w *pool.Worker, n *Node) int
	sum = func(w *pool.Worker, n *Node) int {
		if n == nil {
			return 0
		}
		var left, right int
		taskblock.Define(w, func(b *taskblock.Block) {
			b.Run(func(w *pool.Worker) { left = sum(w, n.Left) })
			b.Run(func(w *pool.Worker) { right = sum(w, n.Right) })
		})
		return n.Value + left + right
	}

	//        1
	//      /   \
	//     2     3
	//    / \     \
	//   4   5     6
	tree := &Node{1,
		&Node{2, &Node{Value: 4}, &Node{Value: 5}},
		&Node{3, nil, &Node{Value: 6}}}

	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	var total int
	// From outside the pool, Define blocks until the block is done; the
	// body passes its worker on to the nested blocks.
	taskblock.Define(p, func(b *taskblock.Block) { total = sum(b.Worker(), tree) })
	fmt.Println("sum:", total)
	// Output: sum: 21
}

// Tasks that validate inputs in parallel, in the manner of errgroup: the
// first error cancels the block (tasks that have not started are skipped,
// running ones can poll Canceled) and is what DefineErr returns.
func ExampleDefineErr() {
	inputs := []string{"alpha", "beta", "", "delta"}

	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	err := taskblock.DefineErr(p, func(b *taskblock.Block) error {
		for i, in := range inputs {
			b.Go(func(*pool.Worker) error {
				if in == "" {
					return fmt.Errorf("input %d is empty", i)
				}
				return nil
			})
		}
		return nil
	})
	fmt.Println("error:", err)
	// Output: error: input 2 is empty
}

// Wait is a join point inside the body: when it returns, every task run so
// far has finished and the body can use their results, here to start a
// second round of tasks.
func ExampleBlock_Wait() {
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	squares := make([]int, 5)
	var sums []int
	taskblock.Define(p, func(b *taskblock.Block) {
		for i := range squares {
			b.Run(func(*pool.Worker) { squares[i] = i * i })
		}
		b.Wait()
		fmt.Println("squares:", squares)

		sums = make([]int, len(squares)-1)
		for i := range sums {
			b.Run(func(*pool.Worker) { sums[i] = squares[i] + squares[i+1] })
		}
	})
	fmt.Println("sums of neighbours:", sums)
	// Output:
	// squares: [0 1 4 9 16]
	// sums of neighbours: [1 5 13 25]
}

// When the body or tasks panic, Define waits for the tasks that started,
// then panics once with Panics: every captured panic, in the order they
// happened, with its value, its stack and whether the body raised it.
func ExamplePanics() {
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()

	defer func() {
		r := recover()
		var ps taskblock.Panics
		if err, ok := r.(error); ok && errors.As(err, &ps) {
			for _, pe := range ps {
				// pe.Stack holds where it panicked.
				fmt.Printf("body=%v: %v\n", pe.Body, pe.Value)
			}
		}
	}()
	taskblock.Define(p, func(b *taskblock.Block) {
		b.Run(func(w *pool.Worker) { panic("task failed") })
		b.Wait() // the task has run (and panicked) when Wait returns
		panic("body failed")
	})
	// Output:
	// body=false: task failed
	// body=true: body failed
}

// A task that starts more tasks of its block passes the worker it runs on:
// the new tasks go on that worker's deque, depth first, like forks. Here a
// single block walks a whole tree.
func ExampleBlock_RunFrom() {
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()

	type node struct {
		value    int
		children []*node
	}
	leaf := func(v int) *node { return &node{value: v} }
	root := &node{1, []*node{{2, []*node{leaf(4), leaf(5)}}, {3, []*node{leaf(6)}}}}

	var sum atomic.Int64
	taskblock.Define(p, func(b *taskblock.Block) {
		var walk func(w *pool.Worker, n *node)
		walk = func(w *pool.Worker, n *node) {
			for _, c := range n.children {
				b.RunFrom(w, func(w *pool.Worker) { walk(w, c) })
			}
			sum.Add(int64(n.value))
		}
		b.Run(func(w *pool.Worker) { walk(w, root) })
	})
	fmt.Println(sum.Load())
	// Output: 21
}

// GoFrom is RunFrom for tasks that return errors, in a block from
// DefineErr: the first error cancels the block and is returned.
func ExampleBlock_GoFrom() {
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()

	errTooDeep := errors.New("too deep")
	var visit func(b *taskblock.Block, w *pool.Worker, depth int) error
	visit = func(b *taskblock.Block, w *pool.Worker, depth int) error {
		if depth == 3 {
			return errTooDeep
		}
		b.GoFrom(w, func(w *pool.Worker) error { return visit(b, w, depth+1) })
		return nil
	}
	err := taskblock.DefineErr(p, func(b *taskblock.Block) error {
		b.Go(func(w *pool.Worker) error { return visit(b, w, 0) })
		return nil
	})
	fmt.Println(err)
	// Output: too deep
}
