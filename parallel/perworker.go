package parallel

import (
	"fmt"
	"iter"

	"github.com/forkjoin/fj/pool"
)

// PerWorker holds one value of type T per worker of a pool: an
// accumulator that the tasks running on a worker update without locks or
// atomics, because a worker runs one task at a time. After the parallel
// calls that use it have returned, All visits the values and Combine
// folds them into one.
//
//	counts := parallel.NewPerWorker(p, func() map[string]int { return map[string]int{} })
//	parallel.For(p, 0, len(words), func(w *pool.Worker, i int) {
//		(*counts.Get(w))[words[i]]++
//	})
//
// The value of a worker is created on the worker's first Get, by init.
// Entries are padded so that two workers' values never share a cache
// line (provided T holds its state inline or in memory of its own).
//
// A task that starts a nested parallel call may be suspended in it while
// its worker runs other tasks, which Get the same value: read and update
// the value between nested calls, not across one.
type PerWorker[T any] struct {
	pool  *pool.Pool
	init  func() T
	slots []perWorkerSlot[T]
}

// perWorkerSlot pads every value by two cache lines on each side (the
// adjacent-line prefetcher pulls lines in pairs), whatever the size of T.
type perWorkerSlot[T any] struct {
	_   [128]byte
	v   T
	set bool
	_   [128]byte
}

// NewPerWorker returns a PerWorker for r's pool (r.Pool()), whose values
// are made by init on first use; a nil init makes T's zero value.
func NewPerWorker[T any](r pool.Runner, init func() T) *PerWorker[T] {
	if r == nil {
		panic("parallel: NewPerWorker with a nil pool.Runner")
	}
	p := r.Pool()
	if p == nil {
		panic("parallel: NewPerWorker with a nil *pool.Pool")
	}
	return &PerWorker[T]{pool: p, init: init, slots: make([]perWorkerSlot[T], p.Workers())}
}

// Get returns the value of worker w, creating it on w's first call. Only
// the task running on w may use the pointer, and only until it returns or
// starts a nested parallel call. Get panics if w belongs to another pool.
func (pw *PerWorker[T]) Get(w *pool.Worker) *T {
	if w == nil {
		panic("parallel: PerWorker.Get with a nil *pool.Worker")
	}
	if w.Pool() != pw.pool {
		panic(fmt.Sprintf("parallel: PerWorker.Get with worker %d of another pool than the one given to NewPerWorker", w.ID()))
	}
	s := &pw.slots[w.ID()]
	if !s.set {
		if pw.init != nil {
			s.v = pw.init()
		}
		s.set = true
	}
	return &s.v
}

// All returns the values that have been created, with the ID of their
// worker, in increasing worker order. Call it only when no task uses pw
// any more (after the parallel calls that use it have returned).
func (pw *PerWorker[T]) All() iter.Seq2[int, *T] {
	return func(yield func(int, *T) bool) {
		for id := range pw.slots {
			if s := &pw.slots[id]; s.set && !yield(id, &s.v) {
				return
			}
		}
	}
}

// Combine folds the values that have been created, in increasing worker
// order, with combine, and returns identity if there is none. As All, it
// is for when no task uses pw any more.
func (pw *PerWorker[T]) Combine(identity T, combine func(a, b T) T) T {
	if combine == nil {
		panic("parallel: PerWorker.Combine with a nil combine function")
	}
	acc, first := identity, true
	for _, v := range pw.All() {
		if first {
			acc, first = *v, false
		} else {
			acc = combine(acc, *v)
		}
	}
	return acc
}
