package forkjoin

import (
	"github.com/forkjoin/fj/internal/sched"
	"github.com/forkjoin/fj/pool"
)

// JoinArgs calls f(w, a) and f(w, b), potentially in parallel, and
// returns both results. It is Join for the common case where both halves
// are the same function on different arguments, and it needs no closure:
// f is a plain function value and the arguments travel by value, copied
// into a job object that the worker recycles, so a recursion written with
// it allocates nothing per fork.
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
// raised in the caller once both have finished. Arguments that carry
// several values are structs, passed by value.
func JoinArgs[A, R any](w *pool.Worker, f func(w *pool.Worker, a A) R, a, b A) (ra, rb R) {
	return sched.JoinArgs(w, f, a, b) // checks its arguments
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
// The calls are split in halves recursively, each half forked with a
// recycled job as JoinArgs forks, so a thief takes half of the calls not
// yet started at once, and the only allocation is the result slice. A
// panic in any call is raised in the caller once every call has finished
// or been dropped unstarted: the panic captured first, with the others in
// its Later (see pool.PanicError).
func JoinAll[A, R any](w *pool.Worker, f func(w *pool.Worker, a A) R, args []A) []R {
	if w == nil {
		panic("forkjoin: JoinAll with a nil *pool.Worker")
	}
	if f == nil {
		panic("forkjoin: JoinAll with a nil function")
	}
	if len(args) < 2 {
		// JoinSlice checks w where it forks; a call that forks nothing
		// (f runs on the caller for one argument) must be checked here,
		// or a captured worker passes while the slice is short.
		sw(w).Check(joinSliceOp)
	}
	res := make([]R, len(args))
	if len(args) > 0 {
		sched.JoinSlice(sw(w), f, args, res, nil)
	}
	return res
}

// joinSliceOp names JoinAll and JoinReduce in a misuse panic, as the
// check of sched.JoinSlice names them.
const joinSliceOp = "forkjoin.JoinAll or JoinReduce"

// JoinReduce calls f(w, a) for every element a of args, potentially in
// parallel, and combines the results in the order of args:
// combine(...combine(combine(r0, r1), r2)..., rn), up to the grouping of
// the calls, so combine must be associative (it need not be commutative).
// It returns R's zero value for no args. It is JoinAll for results that are
// folded into one, and it allocates nothing: each forked half carries its
// own partial result, in a job the worker recycles.
//
//	func sum(w *pool.Worker, n *Node) int {
//		return n.Value + forkjoin.JoinReduce(w, sum, n.Children, add)
//	}
//
// The calls are split in halves as JoinAll splits them, and panics are
// handled as JoinAll handles them. combine runs on whichever worker joins
// two halves, possibly at the same time as other combines: it must be safe
// for concurrent use (a pure function is).
func JoinReduce[A, R any](w *pool.Worker, f func(w *pool.Worker, a A) R, args []A, combine func(a, b R) R) R {
	if w == nil {
		panic("forkjoin: JoinReduce with a nil *pool.Worker")
	}
	if f == nil || combine == nil {
		panic("forkjoin: JoinReduce with a nil function")
	}
	if len(args) < 2 {
		sw(w).Check(joinSliceOp) // as in JoinAll
	}
	if len(args) == 0 {
		var zero R
		return zero
	}
	return sched.JoinSlice(sw(w), f, args, nil, combine)
}
