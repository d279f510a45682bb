package parallel

import (
	"sync/atomic"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/pool"
)

// The adaptive splitter, after Rayon's: a range is halved recursively with
// forkjoin.Join. A piece is split while it still has "splits" to spend,
// which start at a few per worker, so a balanced loop ends up as about four
// pieces per worker. A piece that was stolen (it runs on another worker than
// the one that forked it) is evidence that some worker ran out of work, so
// it gets a fresh budget of splits: imbalanced work is split as finely as
// the imbalance requires, and no finer. Pieces are never split below the
// grain.

type splitter struct {
	grain   int // minimum piece length, >= 1
	refresh int // the budget a piece starts with, and gets back when stolen
	// stop is set when a piece panics: pieces that have not started by
	// then are skipped, so a failing loop ends promptly.
	stop *atomic.Bool
}

func newSplitter(w *pool.Worker, c config) splitter {
	g := c.grain
	if g < 1 {
		g = 1
	}
	return splitter{grain: g, refresh: 2 * w.Pool().Workers(), stop: new(atomic.Bool)}
}

// run runs one piece, unless an earlier piece panicked; a panic in this one
// stops the pieces that have not started yet.
func (s splitter) run(w *pool.Worker, lo, hi int, leaf func(w *pool.Worker, lo, hi int)) {
	if s.stop.Load() {
		return
	}
	returned := false
	defer func() {
		if !returned {
			s.stop.Store(true)
		}
	}()
	leaf(w, lo, hi)
	returned = true
}

// split reports whether a piece of length n with budget splits should be
// halved, and the budget each half gets.
func (s splitter) split(n uint, splits int, stolen bool) (int, bool) {
	if n < 2*uint(s.grain) {
		return 0, false
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
func (s splitter) forEach(w *pool.Worker, lo, hi, splits int, stolen bool, leaf func(w *pool.Worker, lo, hi int)) {
	n := uint(hi) - uint(lo) // no overflow, even for a range spanning all ints
	next, ok := s.split(n, splits, stolen)
	if !ok {
		s.run(w, lo, hi, leaf)
		return
	}
	mid := lo + int(n/2)
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

// reduce is forEach for a reduction: the halves' results are combined in
// index order.
func reduce[T any](s splitter, w *pool.Worker, lo, hi, splits int, stolen bool,
	chunk func(w *pool.Worker, lo, hi int) T, combine func(a, b T) T) T {
	n := uint(hi) - uint(lo)
	next, ok := s.split(n, splits, stolen)
	if !ok {
		var res T
		s.run(w, lo, hi, func(w *pool.Worker, lo, hi int) { res = chunk(w, lo, hi) })
		return res
	}
	mid := lo + int(n/2)
	a, b := forkjoin.Join(w,
		func(w *pool.Worker) T { return reduce(s, w, lo, mid, next, false, chunk, combine) },
		func(w2 *pool.Worker) T { return reduce(s, w2, mid, hi, next, w2 != w, chunk, combine) })
	return combine(a, b)
}
