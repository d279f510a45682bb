package sched

import "iter"

// search is the holder's idle sub-machine (sleep.md: searching, waiting,
// sleepy, asleep): it looks for work in the injector and other workers'
// deques, and sleeps when it finds none. It returns a task to run (with
// running), or nil with the state the holder goes to next: handingOff when
// a parked task of w's has become resumable, exiting when the pool has
// shut down and no work is left.
func (w *Worker) search() (*task, holderState) {
	p := w.pool
	w.flushCounters()
	// Idle: the deque keeps, of the tasks that takes by the top pushed
	// out of their slots, only w's recycled jobs (holding nothing of a
	// finished call);
	// futures and other workers' tasks go (issue 33: a finished call
	// leaves nothing reachable from an idle pool).
	w.dq.DropMoved(func(t *task) bool { return t.forker == w && t.recycled })
	look := false // whether to make a pass even when not searching
	for {
		w.startSearching()
		if w.searching {
			if t := w.searchPasses(); t != nil {
				w.stopSearching(true)
				return t, running
			}
		} else {
			// Searchers are at their cap: leave the deques to them.
			// The injector is cheap to look at, and a cancelled sleep
			// (S2 saw work) deserves one look everywhere: published
			// tasks, then private ones (M2), since S2a cancels a sleep
			// for a private task left behind, which no pass over the
			// published ones finds. Without M2 here, a worker refused a
			// unit while the searchers holding them were descheduled
			// (two cores, sixteen workers) went round S2a's cancel and
			// a pass that could not find the task until its owner ran
			// again: 12,572 failed steal attempts for one sleep
			// (TestScalingFailedStealsPerSleep).
			if t := w.popInjector(); t != nil {
				return t, running
			}
			if look {
				if t := w.steal(); t != nil {
					return t, running
				}
				if t := w.stealPrivate(); t != nil {
					return t, running
				}
			}
		}
		if w.resumePending() {
			w.stopSearching(false)
			return nil, handingOff
		}
		if p.closed.Load() && p.quiescent() {
			w.stopSearching(false)
			return nil, exiting
		}
		look = w.sleep()
	}
}

// searchRounds bounds a searcher's passes over the queues per search: the
// first at once, the others only when a publisher has announced new work
// meanwhile (awaitNews). A pass probes each of the n-1 other deques once,
// so a search makes at most searchRounds×(n-1) failed steal attempts, and
// an idle episode (search, then sleep) is O(n), like the Go scheduler's
// four passes over the other Ps.
const searchRounds = 4

// searchPasses makes up to searchRounds passes over the injector and the
// other workers' deques. It returns nil when they found nothing, or when a
// parked task of w's has become resumable.
func (w *Worker) searchPasses() *task {
	for r := 0; ; r++ {
		if w.resumePending() {
			return nil
		}
		if t := w.findWork(); t != nil {
			return t
		}
		if r+1 == searchRounds || !w.awaitNews() {
			return nil
		}
	}
}

// awaitNews is step N1: w, a searcher that found nothing, moves its unit
// from the searching count to the waiting count and spins on loads of
// pool.news until a publisher bumps it (P3: a publisher that sees nobody
// searching and somebody waiting does), for about a microsecond or two;
// then it moves back to searching. It reports whether news came, or a
// parked task became resumable, meanwhile. While a searcher waits, the
// first publisher pays one atomic add (P3) instead of nothing; while one
// searches, publishers pay nothing.
func (w *Worker) awaitNews() bool {
	p := w.pool
	// Read the epoch before registering, so that news that follows the
	// registration is seen.
	e := p.news.Load()
	p.ctl.Add(searchingToWaiting)
	got := false
	for i := 1; i <= newsSpins; i++ {
		if p.news.Load() != e || (i%64 == 0 && w.resumePending()) {
			got = true
			break
		}
	}
	p.ctl.Add(waitingToSearching)
	return got
}

// newsSpins is the number of loads of pool.news awaitNews makes: a
// microsecond or two, about what waking a parked worker costs the waker.
const newsSpins = 2048

// findWork makes one pass over the injector and the other workers' deques,
// published tasks first, then private ones (M1-M2 of wsdeque.md).
func (w *Worker) findWork() *task {
	if t := w.popInjector(); t != nil {
		return t
	}
	if t := w.steal(); t != nil {
		return t
	}
	return w.stealPrivate()
}

// popInjector takes a task from the injector for w, whose deque is empty,
// rotating the first bucket so that no bucket is always looked at last.
// It takes a batch when the bucket holds more (up to half of it, and of
// w's deque, see popBatch) and pushes the rest on w's deque, where w runs
// them next and other workers can steal them, instead of taking the
// bucket's lock once per task.
func (w *Worker) popInjector() *task {
	if w.pull == nil {
		w.pull = make([]*task, max(1, w.dq.Cap()/2))
	}
	room := max(1, min(len(w.pull), w.dq.Cap()-w.dq.Count()))
	k := w.pool.inj.popBatch(uint32(w.id)+uint32(w.tick), w.pull[:room])
	if k == 0 {
		return nil
	}
	t, back := w.keepBatch(k)
	w.counts[countInjectorPops] += uint64(k - back)
	return t
}

// keepBatch takes the batch of k tasks that w just took into w.pull (from
// the injector, or from a victim's deque): it returns the first, to run
// now, and pushes the others onto w's own deque, published, where w runs
// them next and other thieves can take them, and tells sleepers (P1 was
// the pushes; this is P2). A task the deque has no room for goes back to
// the injector rather than be lost (not expected: the caller checked the
// room, and only thieves touch the deque meanwhile, which make more);
// back counts those. Only w's holder calls it.
func (w *Worker) keepBatch(k int) (t *task, back int) {
	t = w.pull[0]
	if k > 1 {
		for _, x := range w.pull[1:k] {
			if !w.dq.Push(x) {
				back++
				w.pool.inj.push(uint32(w.id), x)
			}
		}
		w.dq.Publish()
		w.pool.notify(w)
	}
	clear(w.pull[:k])
	return t, back
}

// steal tries every other worker's deque once, the last victim that paid
// off first and then the others from a random starting point.
func (w *Worker) steal() *task {
	ws := w.victimWorkers()
	n := len(ws)
	if n == 0 {
		return nil
	}
	if v := w.lastVictim; v >= 0 {
		if t := w.stealFrom(ws[v]); t != nil {
			return t
		}
		w.counts[countFailedSteals]++
	}
	for v := range w.victims(n) {
		if v == w.id || v == w.lastVictim {
			continue
		}
		if t := w.stealFrom(ws[v]); t != nil {
			w.lastVictim = v
			return t
		}
		w.counts[countFailedSteals]++
	}
	return nil
}

// stealFrom takes from v's deque what M1 says: one task, the oldest, or,
// when the tasks w stole last time ran as leaves (nothing but themselves
// was executed since: no fork taken back inline, no other task), half of
// what v publishes (seed 004's steal-half), as many as w's own deque has
// room for. It returns the oldest to run and pushes the others on w's
// deque, published, where w runs them next and other thieves can take
// them. A generator loop that queued n leaves is thus spread in O(log n)
// steals, not n; a recursion, whose oldest fork is half its work and
// whose forks are taken back by their joins, loses one fork per steal as
// before (taking half of its spine made its joins park: fib on 2 workers
// ran 19% slower). It returns nil if v publishes nothing (or every race
// was lost).
func (w *Worker) stealFrom(v *remote) *task {
	if w.pull == nil {
		w.pull = make([]*task, max(1, w.dq.Cap()/2))
	}
	room := 1
	if w.counts[countExecuted]-w.stealExec <= w.stealLeaves {
		room = max(1, min(len(w.pull), w.dq.Cap()-w.dq.Count()))
	}
	k := v.dq.StealBatch(w.pull[:room])
	if k == 0 {
		return nil
	}
	w.counts[countSteals] += uint64(k)
	w.counts[countStealOps]++
	w.stealExec, w.stealLeaves = w.counts[countExecuted], uint64(k)
	t, _ := w.keepBatch(k) // room was checked: none goes back
	return t
}

// stealPrivate is M2: when no deque publishes anything, take the oldest
// private task of a worker that holds some (a fork made while every
// worker was busy, left behind when a thief took its forker's last
// published one). It is wsdeque.md's D8 for every victim at once: their
// tops first, then one heavy barrier, paid by this idle thief alone, then
// a claim. The owners' forks and pops pay nothing for it. A worker's
// tops and barrier are those of its last sleep attempt (S2a, which
// cancels the sleep for such a task): it runs no barrier here, so that an
// idle episode runs at most one (sleep.md, S2a), and claims with each
// barrier's tops once.
func (w *Worker) stealPrivate() *task {
	ws := w.victimWorkers()
	n := len(ws)
	if n == 0 || len(w.tops) < n {
		return nil // no sleep attempt has read tops and run a barrier
	}
	for v := range w.victims(n) {
		t := w.tops[v]
		if t < 0 {
			continue
		}
		w.tops[v] = -1 // one claim per barrier
		if t := ws[v].dq.StealPrivate(t); t != nil {
			w.lastVictim = v
			w.counts[countSteals]++
			w.counts[countStealOps]++
			w.counts[countPrivateSteals]++
			return t
		}
		w.counts[countFailedSteals]++
	}
	return nil
}

// victimWorkers returns the pool's workers for a steal pass, or none
// when w has nobody to steal from: a worker of a one-worker pool.
func (w *Worker) victimWorkers() []*remote {
	if ws := w.pool.workers; len(ws) > 1 {
		return ws
	}
	return nil
}

// victims yields 0 to n-1, the indices of a steal pass's victims, each
// once, in order from a random one, so that thieves do not all try the
// same victim first.
func (w *Worker) victims(n int) iter.Seq[int] {
	start := int(w.random() % uint64(n))
	return func(yield func(int) bool) {
		for i := range n {
			v := start + i
			if v >= n {
				v -= n
			}
			if !yield(v) {
				return
			}
		}
	}
}

// random returns the next value of w's xorshift64* generator.
func (w *Worker) random() uint64 {
	x := w.rng
	x ^= x >> 12
	x ^= x << 25
	x ^= x >> 27
	w.rng = x
	return x * 2685821657736338717
}
