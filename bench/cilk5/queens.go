package cilk5

import (
	"fmt"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/pool"
)

// MaxQueens is the largest board Queens and its parallel forms accept.
const MaxQueens = 16

// board is a partial placement of queens: rows[r] is the column of the
// queen in row r, for the first n rows. It is a value: a task gets its own
// copy, as Cilk's nqueens copies its array for every child.
type board struct {
	rows [MaxQueens]int8
	n    int8
}

// place returns b with a queen added in the next row, at column col.
func (b board) place(col int) board {
	b.rows[b.n] = int8(col)
	b.n++
	return b
}

// ok reports whether no two queens of b attack each other. Like Cilk's
// nqueens, it checks every pair, not only the pairs with the new queen:
// the cost of a task is the paper's, which is what makes c1 comparable.
//
// It is kept out of line so that the serial elision and every fj form
// run the same machine code for it. Inlined, it compiled 1.5x slower into
// queensFork than into queens (its loops' registers spill around the
// closure), and c1 measured the compiler instead of the fork: 1.45 with
// it inlined, about 1.3 without, while the serial elision ran as fast
// either way.
//
//go:noinline
func (b board) ok() bool {
	for i := int8(0); i < b.n; i++ {
		p := b.rows[i]
		for j := i + 1; j < b.n; j++ {
			q := b.rows[j]
			if q == p || q == p-(j-i) || q == p+(j-i) {
				return false
			}
		}
	}
	return true
}

func checkQueens(n int) {
	if n < 0 || n > MaxQueens {
		panic(fmt.Sprintf("cilk5: queens(%d): n must be in [0, %d]", n, MaxQueens))
	}
}

// Queens is the serial elision of the queens program: the number of ways
// to place n non-attacking queens on an n×n board, by trying every legal
// column of each row in turn. It panics unless 0 <= n <= MaxQueens.
func Queens(n int) int {
	checkQueens(n)
	return queens(n, board{})
}

func queens(n int, b board) int {
	if int(b.n) == n {
		return 1
	}
	count := 0
	for col := range n {
		c := b.place(col)
		if c.ok() {
			count += queens(n, c)
		}
	}
	return count
}

// QueensJoinReduce is Queens with a task per legal column of every row,
// forked together with forkjoin.JoinReduce: the n-ary fork, one call for
// all the children of a node, which folds their counts as it joins them.
func QueensJoinReduce(w *pool.Worker, n int) int {
	checkQueens(n)
	return queensJoinReduce(w, queensArg{n, board{}})
}

// queensArg is the argument of a queens task: the board size and the
// placement so far.
type queensArg struct {
	n int
	b board
}

func queensJoinReduce(w *pool.Worker, a queensArg) int {
	if int(a.b.n) == a.n {
		return 1
	}
	next := make([]queensArg, 0, a.n)
	for col := range a.n {
		c := a.b.place(col)
		if c.ok() {
			next = append(next, queensArg{a.n, c})
		}
	}
	return forkjoin.JoinReduce(w, queensJoinReduce, next, sumCounts)
}

func sumCounts(a, b int) int { return a + b }

// QueensFork is Queens with a task per legal column of every row, each
// forked with forkjoin.Fork and joined through its Future, last forked
// first, as Cilk spawns one child per column and syncs.
func QueensFork(w *pool.Worker, n int) int {
	checkQueens(n)
	return queensFork(w, n, board{})
}

func queensFork(w *pool.Worker, n int, b board) int {
	if int(b.n) == n {
		return 1
	}
	var children [MaxQueens]*forkjoin.Future[int]
	forked := children[:0]
	for col := range n {
		c := b.place(col)
		if c.ok() {
			forked = append(forked, forkjoin.Fork(w, func(w *pool.Worker) int {
				return queensFork(w, n, c)
			}))
		}
	}
	count := 0
	for i := len(forked) - 1; i >= 0; i-- {
		count += forked[i].Join(w)
	}
	return count
}

// queensForks returns the number of forks QueensJoinReduce and QueensFork
// make for n: JoinReduce forks all but the first of a node's children, Fork
// every child.
func queensForks(n int) (joinAll, fork int64) {
	var walk func(b board)
	walk = func(b board) {
		if int(b.n) == n {
			return
		}
		children := int64(0)
		for col := range n {
			c := b.place(col)
			if c.ok() {
				children++
				walk(c)
			}
		}
		fork += children
		joinAll += max(children-1, 0)
	}
	walk(board{})
	return joinAll, fork
}

// queensSolutions holds the known number of solutions for n = 0 ..
// MaxQueens (OEIS A000170), an independent check of every form.
var queensSolutions = [MaxQueens + 1]int{
	1, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596, 2279184, 14772512,
}
