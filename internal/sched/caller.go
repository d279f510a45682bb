package sched

import (
	"sync/atomic"
)

// The identity check, step I4 of identity.md: "which worker of this pool,
// if any, does the calling goroutine hold?", asked only about itself, on
// the holders table that identity.go keeps (I1-I3, I5, I6). It sits above
// the hand-over (handover.go), whose displaced holders it lets take their
// worker back (stall.md, Y5).

// Caller returns the worker of p whose task the calling goroutine is
// running, or nil: a goroutine outside the pool, a task of another pool,
// or a task of p inside a blocking section, which has given its worker
// up meanwhile. It is step I4: a goroutine id read (about a nanosecond)
// and at most eight loads, whatever the stack's depth or the number of
// workers.
func (p *Pool) Caller() *Worker {
	return p.holderOf(goid())
}

// holderOf returns the worker of p that goroutine g holds, or nil. Only g
// may ask (I4). A goroutine that a hand-over displaced (stall.md, Y4)
// finds its entry, which stays meanwhile, and takes its worker back
// (Y5).
func (p *Pool) holderOf(g int64) *Worker {
	w := p.entryOf(g)
	if w == nil || w.holder.Load() != g && !w.reclaim(g) {
		return nil
	}
	return w
}

// entryOf returns the worker of p whose holder g is, or was when a
// hand-over displaced it: the worker of g's entry in the holders table
// (I4), or, while entries overflowed (I5), the worker whose holder word
// is g. Only g may ask.
func (p *Pool) entryOf(g int64) *Worker {
	h := &p.holders
	if g > 0 && g < maxPackedGoid {
		key := uint64(g) << 16
		b1, b2 := h.bucketsOf(g)
		for _, b := range [2]*holderBucket{b1, b2} {
			for i := range b {
				v := b[i].Load()
				if countProbes {
					probes.Add(1)
				}
				if v&^0xffff == key {
					return p.workers[v&0xffff].asHolder() // g's own entry (I4)
				}
			}
		}
		if h.overflow.Load() == 0 {
			return nil
		}
	}
	for _, w := range p.workers {
		if w.holder.Load() == g {
			return w.asHolder() // g holds it (I4)
		}
	}
	return nil
}

// heldWorker returns the worker, of any pool, that the calling goroutine
// holds right now, or nil: its holder word is g, or -g while a hand-over
// decides (stall.md, Y2); a goroutine displaced by a hand-over holds none
// until it has taken its worker back (Y5). For V3's mark, on the path of
// a lock that must wait (reclaim's own wait for a decision included).
func heldWorker() *Worker {
	l := pools.list.Load()
	if l == nil {
		return nil
	}
	g := goid()
	for _, p := range *l {
		if w := p.entryOf(g); w != nil {
			if h := w.holder.Load(); h == g || h == -g {
				return w
			}
		}
	}
	return nil
}

// InSection reports whether the calling goroutine is inside a blocking
// section's f of a task of p, having given up its worker (identity.md,
// I6). It scans the sections of p's workers under their locks: for the
// checks that tell a section from a goroutine outside the pool (Close,
// Block.Wait, the misuse messages), never on a fast path.
func (p *Pool) InSection() bool {
	g := goid()
	for _, w := range p.workers {
		if w.inSection(g) {
			return true
		}
	}
	return false
}

// held reports whether the calling goroutine holds w: one id read and
// one load.
func (w *Worker) held() bool { return w.holder.Load() == goid() }

// Held reports whether the calling goroutine holds w (held).
func (w *Worker) Held() bool { return w.held() }

// HeldOrReclaimed is Held for a check that panics when it is false: a
// goroutine that does not hold w waits for a hand-over of w in progress
// to decide (stall.md, Y2-Y4: while the monitor decides, the holder word
// reads -g) and takes w back if a hand-over displaced it (Y5), as every
// identity check of the scheduler does (notHeld, holderOf). Without
// that, a holder that woke during the monitor's decision would be taken
// for a goroutine inside a blocking section.
func (w *Worker) HeldOrReclaimed() bool {
	g := goid()
	return w.holder.Load() == g || w.reclaim(g)
}

// pools lists the pools that are open or closing, for lookups that do not
// know the pool (current). Pools are created and closed rarely: a mutex
// orders the writers, and readers load the list without it.
var pools struct {
	mu   Lock
	list atomic.Pointer[[]*Pool]
}

func addPool(p *Pool) {
	pools.mu.Lock()
	defer pools.mu.Unlock()
	var l []*Pool
	if old := pools.list.Load(); old != nil {
		l = append(l, *old...)
	}
	l = append(l, p)
	pools.list.Store(&l)
}

func removePool(p *Pool) {
	pools.mu.Lock()
	defer pools.mu.Unlock()
	old := pools.list.Load()
	if old == nil {
		return
	}
	l := make([]*Pool, 0, len(*old))
	for _, q := range *old {
		if q != p {
			l = append(l, q)
		}
	}
	pools.list.Store(&l)
}

// current returns the worker, of any pool, whose task the calling
// goroutine is running, or nil. It costs a lookup per open pool.
func current() *Worker { return currentExcept(nil) }

// currentExcept is current for a caller known to hold none of skip's
// workers: skip's table is not looked up again.
func currentExcept(skip *Pool) *Worker {
	l := pools.list.Load()
	if l == nil {
		return nil
	}
	g := goid()
	for _, p := range *l {
		if p == skip {
			continue
		}
		if w := p.holderOf(g); w != nil {
			return w
		}
	}
	return nil
}
