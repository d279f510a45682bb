package parallel

import (
	"math/bits"
	"sync/atomic"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/internal/sched"
	"github.com/forkjoin/fj/pool"
	"golang.org/x/exp/constraints"
)

// The one core of the range-shaped calls: For, ForErr, ForRange,
// ForRangeErr and Reduce, ReduceErr (and, through them, Map, MapErr, the
// aggregates, the searches and Filter) are a loop value with one of its
// functions set, run by runLoop. Options are parsed once per call, in
// runLoop.
//
// Lazy splitting (Tzannes et al., "Lazy binary splitting", PPoPP 2010;
// oneTBB's auto_partitioner and Rayon's adaptive splitter are relatives):
// a piece of the range runs as a plain loop, in steps, and before each
// step asks the scheduler whether to split what remains (ShouldSplit,
// job.go E3): it does when another worker is idle, or when its worker
// exposes nothing a thief could take (no published task left in its
// deque) and more than one step remains, so that a worker that turns idle
// while the step runs, however long the step, finds half of the rest. A
// loop of one step on a busy pool (a Reduce of a few elements) runs whole:
// no task, no allocation. Then it splits what remains in halves,
// with forkjoin.JoinArgs: it runs the left half itself, lazily again, and
// an idle worker steals the right half (or, if nobody took it, the join
// takes it back and runs it the same way). While its worker exposes a
// task (the half split off before, not stolen yet, or a fork of an
// enclosing join) a loop makes no task at all, so a loop in a busy pool
// splits about once per steal. A loop nested in a step of an enclosing
// loop (Worker.LoopStep, one owner-only byte that run sets around each
// step) splits less: not at all while the enclosing loop has steps left
// (that loop exposes its own rest, a larger piece), and in its last step
// only while another worker is idle; so a small loop nested in a loop
// that keeps every worker busy costs about what the plain loop costs.
// split_test.go counts the tasks, and internal/sched/greedy_test.go the
// idle workers that slept while a loop hid work.
//
// A step is a few dozen iterations of For's body, or one call of a
// ForRange body or Reduce chunk on at most a fraction of the range (its
// pieces cannot be interrupted, so they must stay short enough for an
// idle worker not to wait long): see steps.
//
// The loop value lives on the caller's stack until the first split, which
// copies it to the heap (share): the pieces that run in parallel must
// reach it from other workers. Together with the control, made at the
// same time when the call has no options, that makes a loop that runs on
// its caller's worker without splitting allocation-free.
//
// The core works on offsets [0, n) from the range's lo, in uint64, so that
// no integer type and no range (an int8 range of 255 elements, an int64
// range spanning MinInt64..MaxInt64-1) can overflow: the length of any
// range of a 64-bit or narrower type fits in a uint64.
//
// In deterministic mode the split is eager and fixed: every piece of
// 2*grain or more is halved, so the tree depends on n and the grain alone.
// A call given WithContext splits the same way, down to its grain (one
// item by default): its bodies are expected to wait, on I/O with the
// context they were given, as errgroup's goroutines do, and a body that
// waits in a blocking section (pool.Blocking) then lets its worker start
// the next piece instead of holding up the rest of its own. That is
// errgroup's shape, a task per item, at the cost of a task per item.
//
// Any other loop turns eager the same way once one of its bodies has
// blocked in a section (blocked): leaf compares its goroutine's count of
// sections (sched.Worker.Sections) before and after the first body of a
// step, and after the step, and the piece runs the rest of its range with
// runEager; the shared copy's blocks flag turns every other piece of the
// call eager at its next step; an eager leaf whose first body did not
// block clears the flag, and the pieces not split yet run lazily again
// (runEager), so that a body that blocked once costs a loop of cheap
// bodies about log n tasks, not a task per item. So how many bodies of a
// loop wait at once depends on whether they block, not on the loop's
// options; WithContext
// keeps its eager split from the start, for bodies that wait for a later
// item (the errgroup idiom's wait on the context that item cancels), and
// for bodies that block without a section, which the stall watch finds
// only when their work is queued.

type loop[T any, I constraints.Integer] struct {
	lo I
	// Exactly one of these is set: the form of the call.
	body     func(w *pool.Worker, i I)
	bodyErr  func(w *pool.Worker, i I) error
	rng      func(w *pool.Worker, lo, hi I)
	rngErr   func(w *pool.Worker, lo, hi I) error
	chunk    func(w *pool.Worker, lo, hi I) T
	chunkErr func(w *pool.Worker, lo, hi I) (T, error)
	combine  func(a, b T) T // Reduce's

	grain uint64 // minimum piece length, >= 1
	step  uint64 // the length of a step, >= 1 (see steps)
	eager bool   // split down to the grain at once: Deterministic, WithContext
	// blocks is set, in the shared copy, once a body of the call has
	// blocked in a section: every piece splits eagerly from its next step
	// on (see blocked).
	blocks atomic.Bool

	// ctl is the call's control: nil while the loop runs on its
	// caller's stack with no options (nothing can stop it then, and no
	// other piece exists to tell of an error: err holds it).
	ctl *control
	err error
	// shared is the copy of the loop on the heap that the pieces share,
	// made at the first split; the copy's shared is itself.
	shared *loop[T, I]
	res    partial[T] // the result, for a loop run from outside the pool
	// split is runPiece[T, I], made once per shared loop: a generic
	// function value made inside generic code is a closure over its
	// dictionary, an allocation each time it is made.
	split func(w *pool.Worker, p piece[T, I]) partial[T]
}

// partial is a reduction's result for a piece, and whether there is one:
// a piece that was skipped (the call stopped) or failed has none, so that
// combine only ever sees values chunk produced or combine made from them.
type partial[T any] struct {
	v  T
	ok bool
}

// span returns hi-lo, for hi > lo, without overflow: conversion to uint64
// sign-extends, and the difference modulo 2^64 is the true one.
func span[I constraints.Integer](lo, hi I) uint64 { return uint64(hi) - uint64(lo) }

// at returns lo+off, the index at offset off (<= the range's span). The
// conversion and the addition wrap, and the wrapped result is the true
// one because it lies in [lo, hi].
func at[I constraints.Integer](lo I, off uint64) I { return lo + I(off) }

// runLoop runs l over [lo, hi) on r: the entry of every range-shaped call.
// It parses the options (call names the call in panics; accepts are the
// options it takes), and returns the combined result of the pieces and
// the call's error.
func runLoop[T any, I constraints.Integer](r pool.Runner, call string, accepts opt, lo, hi I, l *loop[T, I], opts []Option) (partial[T], error) {
	return runEntered(r, enter(r), call, accepts, lo, hi, l, opts)
}

// runEntered is runLoop for a call that has entered r already: w is what
// enter returned.
func runEntered[T any, I constraints.Integer](r pool.Runner, w *pool.Worker, call string, accepts opt, lo, hi I, l *loop[T, I], opts []Option) (partial[T], error) {
	var c *config // nil: no options
	if len(opts) > 0 {
		c = parseOpts(call, accepts, opts)
		if c.ctx != nil || c.stop != nil || c.body != nil {
			l.ctl = newControl(c)
			defer l.ctl.finish() // on a panic too (finish may run twice)
		}
	}
	if hi <= lo {
		if l.ctl != nil {
			return partial[T]{}, l.ctl.finish() // a context done already is reported all the same
		}
		return partial[T]{}, nil
	}
	n := span(lo, hi)
	l.lo = lo
	var workers int
	if w != nil {
		workers = w.Pool().Workers()
	} else {
		workers = r.Pool().Workers()
	}
	l.setup(workers, n, c)
	return l.start(r, w, n)
}

// setup sets the loop's grain and step for a range of n on a pool of
// the given number of workers, with the options in c (nil: none).
func (l *loop[T, I]) setup(workers int, n uint64, c *config) {
	l.grain = 1
	if c != nil {
		l.grain = uint64(max(c.grain, 1))
		if c.det {
			l.eager = true
			if c.grain == 0 {
				l.grain = detGrain
			}
		}
		if c.body != nil {
			l.eager = true
		}
	}
	l.step = l.steps(workers, n)
}

// steps returns the length of a step for a range of n on a pool of the
// given number of workers.
//
// For's steps are iterations between two looks at the stop flag and at
// ShouldSplit: a sixteenth of a worker's share, at most 64 (a look costs
// two loads; for trivial bodies even that per iteration would cost a
// quarter of the loop), so that a short loop of long iterations still
// splits when a worker turns idle. The other forms' steps are calls of
// their function on a piece: half a worker's share, and at least the
// grain, and at least minStep. On a pool of one worker, which never wants
// work, a loop that nothing can stop runs in one step.
func (l *loop[T, I]) steps(workers int, n uint64) uint64 {
	if workers == 1 && l.ctl == nil {
		return n
	}
	// A shift, not a division (tens of cycles): a share within a
	// factor of two is as good for a heuristic.
	share := n >> (bits.Len(uint(workers)) - 1)
	if l.body != nil || l.bodyErr != nil {
		return max(1, min(share/16, pollEvery))
	}
	return max(l.grain, share/2, minStep)
}

// minStep is the shortest step of the forms that call their function on
// a piece: a range that short runs in one call unless it is split (before
// its first step, if a worker is idle then), so that a Reduce of a few
// elements costs one call of chunk, as a plain loop would.
const minStep = 32

// pollEvery is the most iterations of For between two looks at the stop
// flag, the context and ShouldSplit: often enough that a loop stops, and
// hands work to an idle worker, within microseconds, rarely enough that
// the look costs nothing.
const pollEvery = 64

// start runs the loop over [0, n): here, on w, the caller's worker, or, if
// w is nil, submitted to r's pool. It returns the result and the call's
// error.
func (l *loop[T, I]) start(r pool.Runner, w *pool.Worker, n uint64) (partial[T], error) {
	var res partial[T]
	if w != nil {
		// Inline, with the panic reported as a *pool.PanicError, as from
		// a task. The closure does not escape: the loop stays on the
		// stack unless it splits.
		sw := sched.From[sched.Worker](w)
		outer := sw.LoopMark()
		g := sw.Holder() // sched's stall.md, Y6: the bodies may block
		returned := false
		defer func() {
			if !returned {
				sw.Regain(g)
				sw.LoopStepDone(outer) // the steps the panic unwound did not restore it
			}
			l.ctl.stopUnless(&returned)
		}()
		sched.RunHere(func() { res = l.runFirst(w, n) })
		returned = true
	} else {
		sh := l.share()
		outside(r, func(w *pool.Worker) { sh.res = sh.split(w, piece[T, I]{sh, 0, n}) }) // runPiece: a panic sets the flag
		res = sh.res
	}
	return res, l.result()
}

// runFirst runs the loop over [0, n) on w, its caller's worker.
func (l *loop[T, I]) runFirst(w *pool.Worker, n uint64) partial[T] { return l.run(w, 0, n) }

// result is the call's error once its work has ended.
func (l *loop[T, I]) result() error {
	if l.err != nil {
		return l.err
	}
	if l.shared != nil && l.shared.ctl != l.ctl {
		// The control made at the first split: errors, no context.
		if err := l.shared.ctl.finish(); err != nil {
			return err
		}
	}
	if l.ctl != nil {
		return l.ctl.finish()
	}
	return nil
}

// share returns the loop's copy on the heap, making it on the first call,
// with a control if the loop has none yet.
func (l *loop[T, I]) share() *loop[T, I] {
	if l.shared == nil {
		h := &loop[T, I]{
			lo: l.lo, body: l.body, bodyErr: l.bodyErr, rng: l.rng, rngErr: l.rngErr,
			chunk: l.chunk, chunkErr: l.chunkErr, combine: l.combine,
			grain: l.grain, step: l.step, eager: l.eager, ctl: l.ctl,
		}
		if h.ctl == nil {
			h.ctl = newControl(&config{})
		}
		h.shared = h
		h.split = runPiece[T, I]
		l.shared = h
	}
	return l.shared
}

// oneStep reports whether a call of the forms that hand their function a
// piece (Reduce and the aggregates: Sum, Min, Max, MinFunc, MaxFunc,
// CountFunc) over n elements, entered on w (nil: from outside) with opts,
// runs in one step, one call of its function on the whole range, here
// (an empty range too: the call then returns what its function makes of
// none, which for every caller is its result for no elements).
// It does when the loop is nested in a step of an enclosing loop that has
// steps left or the pool has one worker (Worker.WillNotSplit: steps and
// ShouldSplit would never split it), and when n is at most minStep and w
// should not split for an idle worker now (run would split it only
// then). Worker.RunsInOneStep is the one place that decides it (Reduce
// writes this line out, for a cost a Reduce of ten elements notices), and
// the callers ask before they make a loop or a closure that escapes:
// such a call then costs one call of its function and allocates nothing
// (the Reduce or Sum of a row, called once per row of a For, where the
// loop's setup would cost about a tenth of a 500-element row). A call
// with options goes the long way, as they can stop it before its first
// piece.
func oneStep(w *pool.Worker, n uint64, opts []Option) bool {
	return w != nil && len(opts) == 0 && sched.From[sched.Worker](w).RunsInOneStep(n, minStep)
}

// inOneStep runs chunk(w, lo, hi) on w, the caller's worker, as the one
// step that oneStep decided: a panic in it is re-raised as a
// *pool.PanicError. chunk does not escape, and this inlines: a caller's
// closure over its arguments stays on its stack, and a Reduce of ten
// elements costs a call of chunk and the check.
func inOneStep[T any, I constraints.Integer](w *pool.Worker, chunk func(w *pool.Worker, lo, hi I) T, lo, hi I) (v T) {
	sched.RunHere(func() { oneChunk(w, chunk, lo, hi, &v) })
	return v
}

// oneChunk stores chunk(w, lo, hi) in *v; it inlines.
func oneChunk[T any, I constraints.Integer](w *pool.Worker, chunk func(w *pool.Worker, lo, hi I) T, lo, hi I, v *T) {
	*v = chunk(w, lo, hi)
}

// piece is a part [lo, hi) of a shared loop, for JoinArgs.
type piece[T any, I constraints.Integer] struct {
	l      *loop[T, I]
	lo, hi uint64
}

// runPiece runs a piece on w. A panic in it stops the pieces that have not
// started yet.
func runPiece[T any, I constraints.Integer](w *pool.Worker, p piece[T, I]) partial[T] {
	returned := false
	defer func() {
		if !returned {
			p.l.ctl.flag.Stop()
		}
	}()
	res := p.l.run(w, p.lo, p.hi)
	returned = true
	return res
}

// run runs [lo, hi) on w, in steps, splitting what remains when another
// worker wants work, and returns the combination of the steps' results.
func (l *loop[T, I]) run(w *pool.Worker, lo, hi uint64) (acc partial[T]) {
	if l.eager || l.blocking() {
		return l.runEager(w, lo, hi)
	}
	sw := sched.From[sched.Worker](w)
	if l.ctl == nil && sw.WillNotSplit() {
		// Nothing can stop the loop and it will not split: its steps
		// would only cost their checks (a Reduce nested in a row of a
		// busy loop, in one call of chunk instead of four).
		p, next, end := l.leaf(w, lo, hi)
		if end == leafBlocked {
			return l.merge(p, l.blocked(w, next, hi))
		}
		return l.merge(acc, p)
	}
	for lo < hi {
		if l.ctl != nil && l.ctl.stopped() {
			l.ctl.skip()
			return acc
		}
		if l.blocking() {
			return l.merge(acc, l.runEager(w, lo, hi)) // another piece's body blocked
		}
		n := hi - lo
		if n/2 >= l.grain && sw.ShouldSplit(n > l.step) {
			mid := lo + n/2
			sh := l.share()
			a, b := forkjoin.JoinArgs(w, sh.split, piece[T, I]{sh, lo, mid}, piece[T, I]{sh, mid, hi})
			return l.merge(l.merge(acc, a), b)
		}
		end := lo + min(n, l.step)
		if hi-end < l.grain {
			end = hi // no step shorter than the grain at the end
		}
		outer := sw.LoopStep(end < hi)
		p, next, how := l.leaf(w, lo, end)
		sw.LoopStepDone(outer)
		acc = l.merge(acc, p)
		switch how {
		case leafStop:
			return acc
		case leafBlocked:
			return l.merge(acc, l.blocked(w, next, hi))
		}
		lo = end
	}
	return acc
}

// blocking reports whether a body of the call has blocked in a section.
func (l *loop[T, I]) blocking() bool { return l.shared != nil && l.shared.blocks.Load() }

// blocked runs [lo, hi), the rest of a piece whose body has just blocked
// in a blocking section, and tells every piece of the call to do the
// same from its next step: split eagerly, a task per grain. While a body
// waits in a section, its worker runs other tasks, but the rest of its
// piece waits on the body's goroutine: split lazily, a loop of blocking
// bodies would have only as many in flight as it had pieces, each in
// order. Split eagerly, the next body that waits lets the worker start
// the one after it, as under WithContext, whichever options the call got.
// A loop whose bodies never block never pays for this.
func (l *loop[T, I]) blocked(w *pool.Worker, lo, hi uint64) partial[T] {
	l.share().blocks.Store(true)
	if lo >= hi {
		return partial[T]{}
	}
	return l.runEager(w, lo, hi)
}

// runEager is run in deterministic mode and under WithContext: halves
// down to the grain, whatever the workers do.
func (l *loop[T, I]) runEager(w *pool.Worker, lo, hi uint64) partial[T] {
	if l.ctl != nil && l.ctl.stopped() {
		l.ctl.skip()
		return partial[T]{}
	}
	if !l.eager && !l.blocking() {
		// Split eagerly only because bodies blocked, and the last one
		// looked at did not: lazy again (a body that blocked once, on a
		// cache fill, must not cost a loop of cheap bodies a task each).
		return l.run(w, lo, hi)
	}
	n := hi - lo
	if n/2 >= l.grain {
		mid := lo + n/2
		sh := l.share()
		a, b := forkjoin.JoinArgs(w, sh.split, piece[T, I]{sh, lo, mid}, piece[T, I]{sh, mid, hi})
		return l.merge(a, b)
	}
	p, next, how := l.leaf(w, lo, hi)
	switch {
	case how == leafBlocked:
		l.share().blocks.Store(true)
		if next < hi {
			// A piece shorter than twice the grain: its rest is one piece.
			p = l.merge(p, l.runEager(w, next, hi))
		}
	case how == leafDone && !l.eager && l.blocking():
		// Its first body did not block: the pieces not split yet run
		// lazily again, until a body blocks once more.
		l.shared.blocks.Store(false)
	}
	return p
}

// merge combines the results of two adjacent pieces, a on the left.
func (l *loop[T, I]) merge(a, b partial[T]) partial[T] {
	switch {
	case a.ok && b.ok:
		return partial[T]{l.combine(a.v, b.v), true}
	case a.ok:
		return a
	default:
		return b
	}
}

// How a leaf ended.
type leafEnd uint8

const (
	leafDone    leafEnd = iota // it ran its range: the loop goes on
	leafStop                   // an error, or a stop noticed inside it: the loop ends
	leafBlocked                // a call of the function blocked in a section: the rest goes eager (blocked)
)

// leaf runs the call's function over [lo, hi), a step, and returns its
// result, how it ended, and, for leafBlocked, the offset where the rest
// begins: after the iteration whose body blocked (a For or ForErr body),
// or hi (a function called on the whole step).
//
// A body blocked if its goroutine's count of sections moved while it ran
// (sched.Worker.Sections: a word only that goroutine writes, counting
// the sections of what it ran inline, not of the tasks its worker ran on
// other goroutines while the body waited in a join).
//
// A body that blocked without a section may have had its worker handed
// to another goroutine meanwhile (sched's stall.md, Y6): leaf re-checks
// (Regain) before it reads the count again, and before it returns to a
// caller that touches the worker.
func (l *loop[T, I]) leaf(w *pool.Worker, lo, hi uint64) (partial[T], uint64, leafEnd) {
	sw := sched.From[sched.Worker](w)
	entered := sw.Sections()
	g := sw.Holder()
	var p partial[T]
	switch {
	case l.body != nil:
		// The count after the first body, then after the step: a look
		// per iteration would cost a trivial body a third of its time.
		// Bodies that block mostly block every time (a read per item),
		// which the first look catches; the rest of a step whose first
		// body did not block runs in order.
		body := l.body
		i, end := at(l.lo, lo), at(l.lo, hi)
		body(w, i)
		sw.Regain(g)
		if sw.Sections() != entered {
			return p, lo + 1, leafBlocked
		}
		for i++; i != end; i++ {
			body(w, i)
		}
	case l.bodyErr != nil:
		// The flag every iteration (bodies that return an error are
		// rarely trivial); the count after the first body only, as For
		// looks at it (a look per iteration would cost a trivial body a
		// fifth of its time).
		body := l.bodyErr
		start, end := at(l.lo, lo), at(l.lo, hi)
		for i := start; i != end; i++ {
			if l.ctl != nil && l.ctl.flag.f.Load() {
				l.ctl.skip()
				sw.Regain(g)
				return p, hi, leafStop
			}
			if err := body(w, i); err != nil {
				l.fail(err)
				sw.Regain(g)
				return p, hi, leafStop
			}
			if i == start {
				sw.Regain(g)
				if sw.Sections() != entered {
					return p, lo + 1, leafBlocked
				}
			}
		}
		sw.Regain(g)
		return p, hi, leafDone
	case l.rng != nil:
		l.rng(w, at(l.lo, lo), at(l.lo, hi))
	case l.rngErr != nil:
		if err := l.rngErr(w, at(l.lo, lo), at(l.lo, hi)); err != nil {
			l.fail(err)
			sw.Regain(g)
			return p, hi, leafStop
		}
	case l.chunk != nil:
		p = partial[T]{l.chunk(w, at(l.lo, lo), at(l.lo, hi)), true}
	default:
		v, err := l.chunkErr(w, at(l.lo, lo), at(l.lo, hi))
		if err != nil {
			l.fail(err)
			sw.Regain(g)
			return p, hi, leafStop
		}
		p = partial[T]{v, true}
	}
	sw.Regain(g)
	if sw.Sections() != entered {
		return p, hi, leafBlocked
	}
	return p, hi, leafDone
}

// fail records a body's error: in the control, or, on the caller's stack
// with none, in the loop (no other piece exists to be told).
func (l *loop[T, I]) fail(err error) {
	if l.ctl != nil {
		l.ctl.fail(err)
		return
	}
	l.err = err
}

// forPieces runs f over disjoint, non-empty pieces that cover [0, n), on
// w, the calling task's worker, split lazily as a ForRange is, under ctl:
// for calls made of several loops that share one control (Scan, Filter).
// grain is the call's Grain (0: the default).
func forPieces(w *pool.Worker, ctl *control, grain int, n uint64, f func(w *pool.Worker, lo, hi uint64)) {
	if n == 0 {
		return
	}
	l := loop[struct{}, uint64]{rng: f, ctl: ctl}
	l.setup(w.Pool().Workers(), n, &config{grain: grain})
	l.run(w, 0, n)
}
