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
	if s.CheckDue() {
		s.Check("forkjoin.JoinArgs") // panics, naming the mistake
	}
	var j *argJob[A, R]
	if t := s.Spare(); t != nil {
		j, _ = t.Runnable().(*argJob[A, R])
	}
	if j == nil {
		j = &argJob[A, R]{f: f, arg: b}
		j.Init(j)
		s.Fork(&j.Task)
	} else {
		j.f, j.arg = f, b
		if !s.ReforkFast(&j.Task) { // J4
			s.Refork(&j.Task)
		}
	}
	state := sched.Forked
	defer func() {
		if state != sched.Joined {
			s.Unwound(&j.Job, state, recover())
		}
	}()
	ra = f(w, a)
	if s.TakeBackFast(&j.Task) || s.TakeBack(&j.Task) {
		state = sched.Joining
		arg := j.arg
		s.Recycle(&j.Task) // J4, before the nested forks that reuse j
		rb = f(w, arg)
	} else {
		state = sched.Joining
		if p := stolen(s, &j.Job, func() { rb, j.res = j.res, *new(R) }); p != nil {
			panic(p.Err)
		}
	}
	state = sched.Joined
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
		joinAll(w, f, args, res)
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
	if s.CheckDue() {
		s.Check("forkjoin.JoinAll") // panics, naming the mistake
	}
	var j *rangeJob[A, R]
	if t := s.Spare(); t != nil {
		j, _ = t.Runnable().(*rangeJob[A, R])
	}
	if j == nil {
		j = new(rangeJob[A, R])
		j.Init(j)
		j.f, j.args, j.res = f, args[mid:], res[mid:]
		s.Fork(&j.Task)
	} else {
		j.f, j.args, j.res = f, args[mid:], res[mid:]
		if !s.ReforkFast(&j.Task) {
			s.Refork(&j.Task)
		}
	}
	state := sched.Forked
	defer func() {
		if state != sched.Joined {
			s.Unwound(&j.Job, state, recover())
		}
	}()
	joinAll(w, f, args[:mid], res[:mid])
	drop := func() { j.args, j.res = nil, nil }
	state = sched.Joining
	if s.TakeBackFast(&j.Task) || s.TakeBack(&j.Task) {
		rargs, rres := j.args, j.res
		drop()
		s.Recycle(&j.Task)
		joinAll(w, f, rargs, rres)
	} else if p := stolen(s, &j.Job, drop); p != nil {
		panic(p.Err)
	}
	state = sched.Joined
}

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
	if len(args) == 0 {
		var zero R
		return zero
	}
	return joinReduce(w, f, args, combine)
}

// joinReduce folds f over args, of length >= 1: the right half forked, the
// left half here.
func joinReduce[A, R any](w *pool.Worker, f func(*pool.Worker, A) R, args []A, combine func(a, b R) R) (r R) {
	if len(args) == 1 {
		return f(w, args[0])
	}
	mid := len(args) / 2
	s := sw(w)
	if s.CheckDue() {
		s.Check("forkjoin.JoinReduce") // panics, naming the mistake
	}
	var j *reduceJob[A, R]
	if t := s.Spare(); t != nil {
		j, _ = t.Runnable().(*reduceJob[A, R])
	}
	if j == nil {
		j = &reduceJob[A, R]{f: f, args: args[mid:], combine: combine}
		j.Init(j)
		s.Fork(&j.Task)
	} else {
		j.f, j.args, j.combine = f, args[mid:], combine
		if !s.ReforkFast(&j.Task) {
			s.Refork(&j.Task)
		}
	}
	state := sched.Forked
	defer func() {
		if state != sched.Joined {
			s.Unwound(&j.Job, state, recover())
		}
	}()
	left := joinReduce(w, f, args[:mid], combine)
	var right R
	state = sched.Joining
	if s.TakeBackFast(&j.Task) || s.TakeBack(&j.Task) {
		rargs := j.args
		j.args = nil
		s.Recycle(&j.Task)
		right = joinReduce(w, f, rargs, combine)
	} else if p := stolen(s, &j.Job, func() { right, j.args, j.res = j.res, nil, *new(R) }); p != nil {
		panic(p.Err)
	}
	r = combine(left, right)
	state = sched.Joined
	return r
}
