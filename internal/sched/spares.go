package sched

// Spares (stall.md, X1-X6): the stand-in workers the stall monitor starts
// for holders blocked while work waits for them, as the monitor sees
// them: their slots, their start (X1) and their retirement (X4). stall.go
// decides when; a spare's own turns between tasks (X2, X4, X5) are its
// holder loop's, in loop.go, and its steals search.go's.

// slotWorker returns the worker or live spare at slot h, or nil.
func (p *Pool) slotWorker(h int) *remote {
	w := p.slot(h)
	if w != nil && w.asSpare != nil && !w.asSpare.live.Load() {
		return nil
	}
	return w
}

// standInLive reports whether the spare at slot k is live.
func (p *Pool) standInLive(k int) bool {
	s := p.slot(k)
	return s != nil && s.asSpare.live.Load()
}

// retireStandIn is X4 for the spare standing in for slot h, whose holder
// is not blocked (any more): it retires at its next task boundary.
func (p *Pool) retireStandIn(v *stallView, h int) {
	k := v.standIn[h]
	if k < 0 {
		return
	}
	v.standIn[h] = -1
	s := p.slot(k)
	if s != nil && s.asSpare.live.Load() {
		s.asSpare.retire.Store(true)
		s.signal()
	}
}

// startStandIn is X1 for the holder of slot h: a spare in a free slot of
// h's worker, unless the bound is reached (counted instead).
func (p *Pool) startStandIn(v *stallView, h int) {
	m := &p.stall
	// Slot h's worker: a spare's slot is n+k, k ≡ its worker.
	_, full := p.startSpare(h%len(p.workers), h, func(s *remote) {
		m.stealable.Add(1)
		m.started.Add(1)
		v.standIn[h] = s.index
		v.seen[s.index] = stallSeen{}
	})
	if full {
		m.atLimit.Add(1)
	}
}

// startSpare is X1's start, under stall.mu: unless the pool is
// closing (X6), it claims a free spare slot of worker root's for slot
// principal (claimSpare), lets ready write what the spare or the monitor
// reads first, and starts the spare's carrier. It returns the spare, or
// nil, with full set when every slot of root's is live.
func (p *Pool) startSpare(root, principal int, ready func(s *remote)) (s *remote, full bool) {
	m := &p.stall
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stopped {
		return nil, false
	}
	if s = p.claimSpare(root, principal); s == nil {
		return nil, true
	}
	ready(s)
	p.startCarrier(s.newCarrier(), true)
	return s, false
}

// claimSpare is X1's choice of a slot, with stall.mu held: the
// first spare slot of worker root's that is not live, made if it is new,
// marked live and standing in for slot principal; or nil if they are all live.
func (p *Pool) claimSpare(root, principal int) *remote {
	n := len(p.workers)
	for k := root; n+k < p.Slots(); k += n {
		s := p.slot(n + k)
		if s == nil {
			s = p.newSpare(k)
		}
		if s.asSpare.live.Load() {
			continue
		}
		s.asSpare.retire.Store(false)
		s.asSpare.principal = principal
		s.asSpare.live.Store(true)
		p.stall.live.Add(1)
		return s
	}
	return nil
}

// newSpare makes spare slot k (X1), at slot Workers()+k: it stands in
// for worker k mod Workers(), whose ID it reports, or for a spare of that
// worker's. The monitor calls it under stall.mu.
func (p *Pool) newSpare(k int) *remote {
	n := len(p.workers)
	s := p.newWorker(k%n, n+k, new(spareState), p.workers[0].dq.Cap()).remote()
	p.slots.all[n+k].Store(s)
	if made := int32(n + k + 1); made > p.slots.made.Load() {
		p.slots.made.Store(made) // after the entry (slots.go)
	}
	p.stall.made.Add(1)
	return s
}
