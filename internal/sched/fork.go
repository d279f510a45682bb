package sched

// Fork and exposure (job.go, F1, E1-E4, J4): how a task gets onto its
// worker's deque, recycled or new, and when the deque's private tasks are
// published.

// reusable returns the recycled task in the deque slot that w's next fork
// fills, or nil (J4); refork forks it again. Only the goroutine holding w
// may call it. It is inlined into the typed forms below.
func (w *Worker) reusable() *task {
	t := w.dq.Reusable()
	if t == nil || t.forker != w || !t.recycled { // recycle never frees a spilled task
		return nil
	}
	return t
}

// reusableMoved is reusable for a fork that found no recycled task of its
// type in the slot it fills, before it allocates one: the newest recycled
// task that a take by the top (D5a, D3's last item) pushed out of its slot
// is stored in that slot (SetReusable) and returned. That is where such
// jobs are (wsdeque.md, Moved): a fork published because its deque exposed
// nothing (E1), taken back as the deque's last item, moves the deque's
// indices, and so every deeper slot, one place on; the job taken back
// moves with them, to the next fork's slot, and the job that slot held
// goes to Moved. A recursion moves them once per level of its right
// spine, and without this its deepest forks would meet slots that never
// held a job and allocate, call after call, until the indices went round
// the ring. Moved tasks that are not recycled yet (or not w's) are
// dropped: they are in another slot too. Not inlined: reusable must be.
//
//go:noinline
func (w *Worker) reusableMoved() *task {
	for {
		t := w.dq.Moved()
		if t == nil {
			return nil
		}
		if t.forker == w && t.recycled {
			if !w.dq.SetReusable(t) {
				return nil
			}
			return t
		}
	}
}

// recycle hands t, which w forked, back for reuse (J4). Nobody may use t
// any more: it must have been taken back by Join, or have finished
// elsewhere and been observed finished by its only joiner. Only the
// goroutine running w's current task may call it. The program's code
// runs next, wherever it is called: in race builds it tells the race
// detector so (stall.md, Y6).
func (w *Worker) recycle(t *task) {
	w.mustOwn()
	t.recycled = !t.spilled.Load()
	raceHandOff(w)
}

// refork forks again t, the recycled task that reusable has just returned
// (J4), as fork does: the common case of recursive code, where the slot
// the fork fills already holds t and nothing but the private bottom
// changes. No other operation on w may come between reusable and refork. The
// common case of that common case, the scope unchanged and nothing to
// publish, is reforkFast, inlined into the caller; refork is its slow end:
//
//	if !w.reforkFast(t) {
//		w.refork(t)
//	}
func (w *Worker) refork(t *task) {
	if t.recycled {
		// reforkFast did not push it: its scope differs.
		t.recycled = false
		w.fork(t) // stores the scope, and pushes
		return
	}
	w.publish() // E1 was due after the push
}

// reforkFast pushes t, recycled, when its scope is unchanged: plain loads
// and stores. E1's test comes after the push (the order matters: sleep.md,
// S2a, pairs E1's load of ctl with a sleeper's heavy barrier). It reports
// false when refork must finish: t was not pushed (its scope differs, and
// t.recycled is still set), or it was and E1 is due.
func (w *Worker) reforkFast(t *task) bool {
	w.mustOwn()
	if t.scope != w.scope {
		return false
	}
	t.recycled = false
	w.dq.PushReusable()
	return !w.publishDue() // E1
}

// fork schedules t on w's deque (F1), publishing w's private tasks if E1
// says so. Only the goroutine holding w may call it.
func (w *Worker) fork(t *task) {
	w.mustOwn()
	t.forker = w
	if t.scope != w.scope {
		// Usually both are nil, or the same Region's: a recycled task
		// keeps its scope, and skipping the store skips its write
		// barrier while the GC runs, which fine-grained forking keeps
		// busy.
		t.scope = w.scope
	}
	if !w.dq.Push(t) {
		w.overflow(t)
	}
	if w.publishDue() { // E1
		w.publish()
	}
}

// wantsWork reports whether another worker of p wants work: some worker
// is searching, waiting for news or asleep, i.e. not running a task
// (sleep.md, S5: ctl == 0 means that every worker is busy, or about to
// announce its sleep). It is one
// load of the word every fork loads anyway.
func (p *Pool) wantsWork() bool { return p.ctl.Load() != 0 }

// publishDue is the test of E1 and E2: w's private tasks must be
// published now because its deque exposes nothing a thief could take, or
// because another worker wants work. Two loads: ctl, and the deque's top,
// which only steals write. Only the goroutine holding w may call it.
func (w *Worker) publishDue() bool { return w.pool.wantsWork() || !w.dq.Exposed() }

// publishIfDue is E2 where the owner has nothing else to do: it publishes
// w's private tasks if publishDue says so. Only the goroutine holding w
// may call it.
func (w *Worker) publishIfDue() {
	if w.dq.Private() != 0 && w.publishDue() {
		w.publish()
	}
}

// Expose publishes every private task of w now, whoever wants work, and
// wakes a sleeper if nobody searches (E4): for code that is about to hand
// control to something that may block or run long without forking again
// (a ForSeq puller calling back into its sequence), after which nothing
// on this worker would publish them. It is publish for the other packages.
// Only the goroutine holding w may call it.
func (w *Worker) Expose() { w.publish() }

// publish publishes w's private tasks (step P1 of sleep.md) and then runs
// step P2: wake a sleeper if nobody searches. It is the slow path of the
// fork and join paths' E1 and E2, kept out of line so that they inline.
//
//go:noinline
func (w *Worker) publish() {
	w.mustOwn()
	if w.dq.Private() == 0 {
		return
	}
	w.dq.Publish()
	w.pool.notify(w)
	raceHandOff(w) // stall.md, Y6: the program's code may run next
}

// overflow handles a fork that found w's deque full (F1): it publishes the
// private tasks, moves the oldest half of the deque to the injector in one
// batch (one CAS on the deque's top, one locked push), as the Go
// runtime's runqputslow does, and pushes t where they were. A full deque
// thus costs one locked operation per half a deque of forks, not one per
// fork, and the oldest, largest pieces become visible to every worker.
// The moved tasks are marked spilled before the injector publishes them:
// their owner's joins can still claim them back (J1), and they are never
// reused (J4). A deque of capacity 1 has no half to move: t itself goes to
// the injector.
func (w *Worker) overflow(t *task) {
	if w.spill == nil {
		w.spill = make([]*task, max(1, w.dq.Cap()/2))
	}
	w.dq.Publish() // TakeOldest moves published tasks only
	k := w.dq.TakeOldest(w.spill)
	batch := w.spill[:k]
	for _, x := range batch {
		x.spilled.Store(true)
	}
	if k == 0 || !w.dq.Push(t) {
		t.spilled.Store(true)
		batch = append(batch, t) // k == 0 here: within w.spill
	}
	w.counts[countOverflows] += uint64(len(batch))
	w.pool.inj.pushBatch(uint32(w.id), batch)
	clear(batch)     // do not keep the tasks reachable from here
	w.pool.notify(w) // P2 for the injector's tasks, or W2 (stall.md)
}
