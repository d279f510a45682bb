package parallel

import (
	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/pool"
	"golang.org/x/exp/constraints"
)

// The adaptive splitter, after Rayon's: a range is halved recursively with
// forkjoin.Join. A piece is split while it still has "splits" to spend,
// which start at a few per worker, so a balanced loop ends up as about four
// pieces per worker. A piece that was stolen (it runs on another worker than
// the one that forked it) is evidence that some worker ran out of work, so
// it gets a fresh budget of splits: imbalanced work is split as finely as
// the imbalance requires, and no finer. Pieces are never split below the
// grain.
//
// The splitter works on offsets [0, n) from the range's lo, in uint64, so
// that no integer type and no range (an int8 range of 255 elements, an int64
// range spanning MinInt64..MaxInt64-1) can overflow: the length of any range
// of a 64-bit or narrower type fits in a uint64.
//
// In deterministic mode the budget is ignored: every piece of 2*grain or
// more is halved, so the tree depends on n and the grain alone.

type splitter struct {
	grain   uint64 // minimum piece length, >= 1
	refresh int    // the budget a piece starts with, and gets back when stolen
	det     bool
	ctl     *control
}

func newSplitter(w *pool.Worker, c *config, ctl *control) *splitter {
	g := uint64(max(c.grain, 1))
	if c.det && c.grain == 0 {
		g = detGrain
	}
	return &splitter{grain: g, refresh: 2 * w.Pool().Workers(), det: c.det, ctl: ctl}
}

// span returns hi-lo, for hi > lo, without overflow: conversion to uint64
// sign-extends, and the difference modulo 2^64 is the true one.
func span[I constraints.Integer](lo, hi I) uint64 { return uint64(hi) - uint64(lo) }

// at returns lo+off, the index at offset off (< the range's span). The
// conversion and the addition wrap, and the wrapped result is the true
// one because it lies in [lo, hi).
func at[I constraints.Integer](lo I, off uint64) I { return lo + I(off) }

// run runs one piece, unless the call is stopping; a panic in this one
// stops the pieces that have not started yet. It reports whether the
// piece ran to its end.
func (s *splitter) run(w *pool.Worker, lo, hi uint64, leaf func(w *pool.Worker, lo, hi uint64)) bool {
	if s.ctl.stopped() {
		s.ctl.skip()
		return false
	}
	returned := false
	defer func() {
		if !returned {
			s.ctl.flag.Stop()
		}
	}()
	leaf(w, lo, hi)
	returned = true
	return true
}

// split reports whether a piece of length n with budget splits should be
// halved, and the budget each half gets.
func (s *splitter) split(n uint64, splits int, stolen bool) (int, bool) {
	if n < 2*s.grain || n < 2 { // n < 2: 2*grain may have wrapped
		return 0, false
	}
	if s.det {
		return 0, true
	}
	if stolen {
		return max(s.refresh, splits/2), true
	}
	if splits > 0 {
		return splits / 2, true
	}
	return 0, false
}

// forEach runs leaf over disjoint, non-empty pieces that cover [lo, hi),
// in parallel; hi > lo. stolen tells whether this piece was stolen.
func (s *splitter) forEach(w *pool.Worker, lo, hi uint64, splits int, stolen bool, leaf func(w *pool.Worker, lo, hi uint64)) {
	if s.ctl.flag.f.Load() {
		s.ctl.skip()
		return // stopping: do not fork what would be skipped anyway
	}
	n := hi - lo
	next, ok := s.split(n, splits, stolen)
	if !ok {
		s.run(w, lo, hi, leaf)
		return
	}
	mid := lo + n/2
	forkjoin.Join(w,
		func(w *pool.Worker) struct{} {
			s.forEach(w, lo, mid, next, false, leaf)
			return struct{}{}
		},
		func(w2 *pool.Worker) struct{} {
			s.forEach(w2, mid, hi, next, w2 != w, leaf)
			return struct{}{}
		})
}

// partial is a reduction's result for a piece, and whether there is one:
// a piece that was skipped (the call stopped) or failed has none, so that
// combine only ever sees values chunk produced or combine made from them.
type partial[T any] struct {
	v  T
	ok bool
}

// reduce is forEach for a reduction: the halves' results are combined in
// index order. leaf computes a piece's result, or reports none.
func reduce[T any](s *splitter, w *pool.Worker, lo, hi uint64, splits int, stolen bool,
	leaf func(w *pool.Worker, lo, hi uint64) partial[T], combine func(a, b T) T) partial[T] {
	if s.ctl.flag.f.Load() {
		s.ctl.skip()
		return partial[T]{}
	}
	n := hi - lo
	next, ok := s.split(n, splits, stolen)
	if !ok {
		var res partial[T]
		s.run(w, lo, hi, func(w *pool.Worker, lo, hi uint64) { res = leaf(w, lo, hi) })
		return res
	}
	mid := lo + n/2
	a, b := forkjoin.Join(w,
		func(w *pool.Worker) partial[T] { return reduce(s, w, lo, mid, next, false, leaf, combine) },
		func(w2 *pool.Worker) partial[T] { return reduce(s, w2, mid, hi, next, w2 != w, leaf, combine) })
	switch {
	case a.ok && b.ok:
		return partial[T]{combine(a.v, b.v), true}
	case a.ok:
		return a
	default:
		return b
	}
}
