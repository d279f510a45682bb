// Package cilk5 is fj's own suite of the programs that Frigo, Leiserson
// and Randall measured in "The Implementation of the Cilk-5 Multithreaded
// Language" (PLDI 1998, Figure 6), each written with fj beside its serial
// elision: the same code with the forks removed.
//
// The measure is the paper's. The work overhead c1 = T1/TS is the time
// of the parallel program on one worker over that of its serial elision:
// what forking costs when there is nobody to steal. TS/T2 is the speedup
// of the parallel program on two workers over the serial elision. Cilk-5
// reached c1 = 3.63 on fib, which forks at every level, and 0.99 to 1.21
// on the others.
//
// The programs, with the structure of Cilk-5's:
//
//	fib        fib(n), a fork at every level: FibArgs (forkjoin.JoinArgs),
//	           FibJoin (forkjoin.Join), FibFork (forkjoin.Fork + Future.Join)
//	blockedmul matrix multiply, eight products at once, four into a
//	           temporary, then an addition: BlockedMulFJ
//	notempmul  matrix multiply in two phases of four products, no
//	           temporary: NoTempMulFJ
//	queens     n queens, a task per legal column of every row:
//	           QueensJoinReduce (forkjoin.JoinReduce), QueensFork (a Future each)
//	knapsack   0/1 knapsack by branch and bound, a fork at every node:
//	           KnapsackArgs (forkjoin.JoinArgs), KnapsackJoin (forkjoin.Join)
//	cilksort   merge sort of four quarters with a divide-and-conquer merge,
//	           serial below 2048 elements: CilksortFJ
//	heat       2-D heat diffusion, Jacobi steps, each a divide and conquer
//	           over rows down to 16 rows: HeatFJ
//
// The paper's strassen, spacemul and lu are not in the suite.
//
// Suite returns the programs on inputs of a given size, with the checks
// that cmd/cilk5 and the benchmarks (BenchmarkCilk5) run after every run.
// From the bench directory:
//
//	go run ./cmd/cilk5                                   # the table, docs/data/cilk5.txt, docs/work-overhead.svg
//	go test -run='^$' -bench=Cilk5 -count=5 ./cilk5      # the same as Go benchmarks
package cilk5
