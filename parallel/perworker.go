package parallel

import (
	"fmt"
	"iter"

	"github.com/forkjoin/fj/internal/sched"
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
// The value of a worker is created on the worker's first Get, by init,
// exactly once: if init itself waits (a parallel call inside init lets
// its worker run other tasks meanwhile), a Get from one of those tasks
// waits for init to return instead of running it again. init must
// therefore not Get the value it is making, directly or from the tasks of
// a parallel call it makes: that would wait for itself. Entries are padded so that two workers' values never share a cache
// line (provided T holds its state inline or in memory of its own).
//
// A task that starts a nested parallel call may be suspended in it while
// its worker runs other tasks, which Get the same value: read and update
// the value between nested calls, not across one. The same holds across
// a call that blocks without a blocking section (see pool.StallReport):
// while it blocks, the pool may hand its worker to another goroutine,
// whose tasks may Get the value, until the blocked task gets its worker
// back at its next call of fj's.
type PerWorker[T any] struct {
	pool  *pool.Pool
	init  func() T
	slots []perWorkerSlot[T]
}

// perWorkerSlot pads every value by two cache lines on each side (the
// adjacent-line prefetcher pulls lines in pairs), whatever the size of T.
//
// Only the task holding the slot's worker touches it, so its fields need
// no atomics: a task that waits hands the worker over, and the hand-over
// orders what it wrote before what the next holder reads.
type perWorkerSlot[T any] struct {
	_   [128]byte
	v   T
	set bool
	// making is non-nil while init runs for this slot: a Get that finds
	// it waits for it (init has parked, and the worker runs other tasks).
	making *sched.Latch
	_      [128]byte
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
// starts a nested parallel call. Get panics if w belongs to another pool,
// and, as every call given a *pool.Worker does, if the calling goroutine
// does not hold w (a worker captured from an enclosing task, or handed to
// a goroutine you started): the value it would return is another task's.
func (pw *PerWorker[T]) Get(w *pool.Worker) *T {
	if w == nil {
		panic("parallel: PerWorker.Get with a nil *pool.Worker")
	}
	if w.Pool() != pw.pool {
		panic(fmt.Sprintf("parallel: PerWorker.Get with worker %d of another pool than the one given to NewPerWorker", w.ID()))
	}
	sw := sched.From[sched.Worker](w)
	sw.Check("parallel.PerWorker.Get")
	s := &pw.slots[sw.ID()]
	if !s.set {
		pw.make(w, s)
		sw.Release() // sched's stall.md, Y6: the caller's code runs next
	}
	return &s.v
}

// make runs init for s, w's slot, unless it is running already: then it
// waits for it. If init panics, the slot is left unset, and a waiting Get
// runs init itself.
func (pw *PerWorker[T]) make(w *pool.Worker, s *perWorkerSlot[T]) {
	sw := sched.From[sched.Worker](w)
	for !s.set {
		if l := s.making; l != nil {
			sw.WaitFor(l)
			continue
		}
		l := new(sched.Latch)
		s.making = l
		func() {
			g := sw.Holder()
			defer func() {
				sw.Regain(g) // init may have blocked (stall.md, Y6)
				s.making = nil
				l.Set()
			}()
			var v T
			if pw.init != nil {
				v = pw.init()
			}
			sw.Regain(g)
			s.v, s.set = v, true
		}()
	}
}

// All returns the values that have been created, with the ID of their
// worker, in increasing worker order. Call it only when no task uses pw
// any more (after the parallel calls that use it have returned).
func (pw *PerWorker[T]) All() iter.Seq2[int, *T] {
	return func(yield func(int, *T) bool) {
		for i := range pw.slots {
			if s := &pw.slots[i]; s.set && !yield(i, &s.v) {
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
