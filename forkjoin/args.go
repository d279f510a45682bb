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
	if w == nil {
		panic("forkjoin: JoinArgs with a nil *pool.Worker")
	}
	if f == nil {
		panic("forkjoin: JoinArgs with a nil function")
	}
	s := sw(w)
	j := sched.Reuse[argJob[A, R]](s)
	if j == nil {
		j = new(argJob[A, R])
		j.Init(j)
	}
	j.f, j.arg = f, b
	s.Fork(&j.Task)
	pending := true
	if p := sched.Capture(func() {
		ra = f(w, a)
		if s.Join(&j.Job) {
			pending = false
			arg := j.arg
			s.Recycle(&j.Task) // J4, before the nested forks that reuse j
			rb = f(w, arg)
			return
		}
		pending = false
		res := j.res
		if p := finish(s, &j.Job, func() { j.res = *new(R) }); p != nil {
			panic(p.Err)
		}
		rb = res
	}); p != nil {
		if pending {
			panic(abandon(s, &j.Job, p, func() { j.res = *new(R) }))
		}
		panic(p.Err)
	}
	return ra, rb
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
	res := make([]R, len(args))
	if len(args) > 0 {
		if p := sched.Capture(func() { joinAll(w, f, args, res) }); p != nil {
			panic(p.Err)
		}
	}
	return res
}

// joinAll runs f on args, of length >= 1, into res: the right half forked,
// the left half here.
func joinAll[A, R any](w *pool.Worker, f func(*pool.Worker, A) R, args []A, res []R) {
	if len(args) == 1 {
		res[0] = f(w, args[0])
		return
	}
	mid := len(args) / 2
	s := sw(w)
	j := sched.Reuse[rangeJob[A, R]](s)
	if j == nil {
		j = new(rangeJob[A, R])
		j.Init(j)
	}
	j.f, j.args, j.res = f, args[mid:], res[mid:]
	s.Fork(&j.Task)
	drop := func() { j.args, j.res = nil, nil }
	pending := true
	if p := sched.Capture(func() {
		joinAll(w, f, args[:mid], res[:mid])
		if s.Join(&j.Job) {
			pending = false
			rargs, rres := j.args, j.res
			drop()
			s.Recycle(&j.Task)
			joinAll(w, f, rargs, rres)
			return
		}
		pending = false
		if p := finish(s, &j.Job, drop); p != nil {
			panic(p.Err)
		}
	}); p != nil {
		if pending {
			panic(abandon(s, &j.Job, p, drop))
		}
		panic(p.Err)
	}
}
