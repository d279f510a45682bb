// Command nqueens counts the ways to place n queens on an n×n board so that
// no two attack each other, exploring the search tree in parallel with
// forkjoin: every placement in the first few rows is a task.
//
//	go run ./examples/nqueens [-n 12] [-workers N]
package main

import (
	"flag"
	"fmt"
	"runtime"
	"time"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/pool"
)

// count returns the number of solutions that extend a board whose rows
// above row are filled. cols, d1 and d2 are bitmasks of the attacked
// columns and diagonals. Rows above cut fork a task per candidate column;
// below it, the search is sequential (a task per node would cost more
// than the node).
func count(w *pool.Worker, n, row, cut int, cols, d1, d2 uint32) int {
	if row == n {
		return 1
	}
	free := ^(cols | d1 | d2) & (1<<n - 1)
	if row >= cut || w == nil {
		total := 0
		for ; free != 0; free &= free - 1 {
			bit := free & -free
			total += count(nil, n, row+1, cut, cols|bit, (d1|bit)<<1, (d2|bit)>>1)
		}
		return total
	}
	var futures []*forkjoin.Future[int]
	for ; free != 0; free &= free - 1 {
		bit := free & -free
		futures = append(futures, forkjoin.Fork(w, func(w *pool.Worker) int {
			return count(w, n, row+1, cut, cols|bit, (d1|bit)<<1, (d2|bit)>>1)
		}))
	}
	total := 0
	for i := len(futures) - 1; i >= 0; i-- { // newest first: each one is at the bottom of the deque
		total += futures[i].Join(w)
	}
	return total
}

func main() {
	n := flag.Int("n", 12, "board size (1..16)")
	workers := flag.Int("workers", runtime.GOMAXPROCS(0), "pool workers")
	flag.Parse()
	if *n < 1 || *n > 16 {
		fmt.Println("n must be between 1 and 16")
		return
	}

	start := time.Now()
	seq := count(nil, *n, 0, 0, 0, 0, 0)
	tSeq := time.Since(start)

	p := pool.New(pool.WithWorkers(*workers))
	defer p.Close()
	start = time.Now()
	par := forkjoin.Invoke(p, func(w *pool.Worker) int { return count(w, *n, 0, 3, 0, 0, 0) })
	tPar := time.Since(start)

	if par != seq {
		panic(fmt.Sprintf("parallel count %d != sequential %d", par, seq))
	}
	fmt.Printf("%d-queens: %d solutions\n", *n, par)
	fmt.Printf("sequential %v, fj on %d workers %v (%.2fx)\n",
		tSeq.Round(time.Microsecond), p.Workers(), tPar.Round(time.Microsecond), tSeq.Seconds()/tPar.Seconds())
}
