package sched

import (
	"context"
	"iter"
	"math/rand/v2"
	"runtime/pprof"
	"strconv"
	"sync/atomic"
)

// init sizes the table for n workers and spares spare slots, and stores
// the workers.
func (t *slotTable) init(workers []*remote, spares int) {
	t.all = make([]atomic.Pointer[remote], len(workers)+spares)
	for i, w := range workers {
		t.all[i].Store(w)
	}
	t.made.Store(int32(len(workers)))
}

// made yields the workers, then the spares made so far (live or retired),
// in slot order. A retired spare's deque is empty and it has no task in
// progress (stall.md, X4, X5), so that loops that look for work or tasks
// need not tell it from a live one.
func (p *Pool) made() iter.Seq[*remote] { return p.madeFrom(0) }

// madeSpares yields the spares made so far, as made does.
func (p *Pool) madeSpares() iter.Seq[*remote] { return p.madeFrom(len(p.workers)) }

func (p *Pool) madeFrom(first int) iter.Seq[*remote] {
	return func(yield func(*remote) bool) {
		all := p.slots.all[:p.slots.made.Load()]
		for i := first; i < len(all); i++ {
			if w := all[i].Load(); w != nil && !yield(w) {
				return
			}
		}
	}
}

// slot returns the worker or spare at slot i, or nil.
func (p *Pool) slot(i int) *remote {
	if i < 0 || i >= len(p.slots.all) {
		return nil
	}
	return p.slots.all[i].Load()
}

// Slots returns the number of slots (Worker.Slot) of p: its workers and
// the spares it may start.
func (p *Pool) Slots() int { return len(p.slots.all) }

// newWorker makes the worker, or with spare the spare, at slot index
// standing in for worker id (X1), with a deque of capacity tasks.
func (p *Pool) newWorker(id, index int, spare *spareState, capacity int) *Worker {
	labels := pprof.Labels("fj.pool", p.name, "fj.worker", strconv.Itoa(id))
	region := p.name + " worker " + strconv.Itoa(id)
	if spare != nil {
		k := strconv.Itoa((index - len(p.workers)) / len(p.workers))
		labels = pprof.Labels("fj.pool", p.name, "fj.worker", strconv.Itoa(id), "fj.spare", k)
		region = p.name + " spare " + strconv.Itoa(id) + "." + k
	}
	w := &Worker{
		pool:       p,
		id:         id,
		index:      index,
		asSpare:    spare,
		wake:       make(chan struct{}, 1),
		rng:        rand.Uint64() | 1,
		lastVictim: -1,
		labels:     pprof.WithLabels(context.Background(), labels),
		regionName: region,
	}
	w.dq.Init(capacity)
	return w
}
