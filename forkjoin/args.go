package forkjoin

import "github.com/forkjoin/fj/pool"

// JoinArgs calls f(w, a) and f(w, b), potentially in parallel, and
// returns both results. It is Join for the common case where both halves
// are the same function on different arguments, and it needs no closure:
// f is a plain function value and its arguments travel by value, so a
// recursion written with it allocates nothing per fork.
//
//	func fib(w *pool.Worker, n int) int {
//		if n < 2 {
//			return n
//		}
//		a, b := forkjoin.JoinArgs(w, fib, n-1, n-2)
//		return a + b
//	}
//
// Everything Join documents holds: f(w, b) is forked onto w's deque, f(w,
// a) runs at once on the calling goroutine, and a panic in either is
// raised in the caller once both have finished.
func JoinArgs[A, R any](w *pool.Worker, f func(w *pool.Worker, a A) R, a, b A) (R, R) {
	if f == nil {
		panic("forkjoin: JoinArgs with a nil function")
	}
	return Join(w,
		func(w *pool.Worker) R { return f(w, a) },
		func(w *pool.Worker) R { return f(w, b) })
}

// JoinAll calls f(w, a) for every element a of args, potentially in
// parallel, and returns the results in the order of args. It is the n-ary
// form of JoinArgs: the natural shape of a tree walk, which forks every
// child and joins them all, without a Future per child.
//
//	func sum(w *pool.Worker, n *Node) int {
//		s := n.Value
//		for _, c := range forkjoin.JoinAll(w, sum, n.Children) {
//			s += c
//		}
//		return s
//	}
//
// All but the first call are forked onto w's deque, and the first runs at
// once; the calling task then takes back, last forked first, every call
// nobody stole. A panic in any call is raised in the caller once every
// call has finished or been dropped unstarted.
func JoinAll[A, R any](w *pool.Worker, f func(w *pool.Worker, a A) R, args []A) []R {
	if f == nil {
		panic("forkjoin: JoinAll with a nil function")
	}
	if w == nil {
		panic("forkjoin: JoinAll with a nil *pool.Worker")
	}
	res := make([]R, len(args))
	if len(args) == 0 {
		return res
	}
	fs := make([]*Future[R], len(args))
	for i := len(args) - 1; i > 0; i-- {
		a := args[i]
		fs[i] = Fork(w, func(w *pool.Worker) R { return f(w, a) })
	}
	res[0] = f(w, args[0])
	for i := 1; i < len(args); i++ {
		res[i] = fs[i].Join(w)
	}
	return res
}
