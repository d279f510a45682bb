package sched

import "sync/atomic"

// The job type: fork, take back, run inline, wait (park and resume),
// recycle and capture, for every layer above the pool. forkjoin's Join,
// JoinArgs, JoinAll and Future, taskblock's tasks (through Group) and the
// pool's external submissions are thin typed wrappers around what is
// here. The invariants that make fork and join cheap and recycling safe:
//
//	F1  A fork pushes the task at the bottom of its worker's deque,
//	    privately (wsdeque.md, D2): no thief can see it, and the push is
//	    plain stores. A full deque moves its oldest published half to the
//	    injector first (overflow).
//	F2  Work-first: a fork publishes the worker's private tasks (one
//	    store, D4) only when another worker wants work, i.e. some worker is
//	    searching, waiting for news or asleep (pool.ctl != 0), and then
//	    runs step P2 of sleep.md. While every worker is busy, a fork and
//	    its join touch no shared cache line and execute no fence. The same
//	    check runs at every join that takes its task back (J2) and between
//	    tasks (loop.go), so a private task is published within one fork,
//	    join or task of the first worker going idle, or run by its owner.
//	J1  A join takes its task back if nobody else has it: a private or
//	    published task at the bottom of the deque is popped (D3, D5), one
//	    that overflowed to the injector is claimed (Task.claimed). Then
//	    the joiner runs it inline, on its own stack, with no capture and
//	    no latch: nobody else can see the job any more.
//	J2  Only the task awaited is ever run on the joiner's stack: a
//	    different task found at the bottom (a younger fork not joined) is
//	    put back. Running an awaited task there is safe (it cannot wait
//	    for the joiner: the graph would have a cycle); running anything
//	    else could deadlock (carrier.md).
//	J3  Otherwise the job was taken by another worker, which runs it
//	    through Complete (R1) and sets its latch last; the joiner waits
//	    for the latch with WaitFor: a short spin, then it parks and its
//	    worker goes on with other tasks on another carrier (carrier.md,
//	    C1-C4). Once the latch is set, the thief's last access to the job
//	    was the latch's Swap, which the joiner has observed: the job is
//	    the joiner's alone again.
//	J4  A job the joiner owns alone again (J1 or J3) may be recycled:
//	    Recycle marks it free, and its forker's next fork at the same
//	    depth finds it in the very deque slot it pushes to (Reuse), so a
//	    recursion forks without allocating. Only the worker that forked a
//	    job reads or writes its free flag. A job that overflowed to the
//	    injector is never reused: a dead entry of it may remain there,
//	    and must keep finding it claimed.
//	R1  A job taken from a deque or the injector by any worker runs
//	    through Complete: its body under Guard (capture.go), its outcome
//	    recorded, its latch set last, also when a runtime.Goexit unwinds
//	    through it.

// Task is the unit a pool schedules: what sits in a worker's deque or in
// the injector. The layers built on the pool embed a Task (usually through
// a Job) in their own job type and point it at that job with Init, so that
// a fork costs one allocation, or none when the job is recycled (J4).
//
// A Task must not be copied after Init. It may be scheduled again only
// after it has finished running and its owner got it back (J4).
type Task struct {
	r Runnable
	// free marks a finished task that its owner has recycled (J4). Only
	// the worker that forked the task reads or writes it.
	free bool
	// spilled marks a task that went to the injector because its deque
	// was full (directly, or moved there in a batch by overflow). It is
	// written before the injector push and read by whoever pops the task,
	// so the injector's lock orders the two. Reuse refuses spilled tasks,
	// so the flag never needs clearing.
	spilled bool
	// claimed decides, for a spilled task, between its owner taking it
	// back (J1) and whoever pops it from the injector: exactly one runs it.
	claimed atomic.Bool
	// scope is the Region the task was forked in, or nil. Fork sets it
	// from the forking worker; it is read by whoever runs the task, after
	// the deque or injector has published it.
	scope *scope
}

// Runnable is what a Task runs. Run is called exactly once, on the worker
// that took the task from a queue, and must not let a panic escape: a
// panic that escapes Run kills the process, because a worker goroutine has
// nobody to return it to. Job types run their body through Complete, which
// captures it.
type Runnable interface {
	Run(w *Worker)
}

// Init makes t run r. It is usually called as j.Init(j) right after j is
// allocated.
func (t *Task) Init(r Runnable) { t.r = r }

// Job is a task that its forker joins: the latch its joiner waits on when
// another worker took it (J3), and how its body ended.
type Job struct {
	Task
	done  Latch
	panic *Panic
}

// Panic returns how the job's body ended when it ran elsewhere (Join
// reported false): nil, or its captured panic or Goexit.
func (j *Job) Panic() *Panic { return j.panic }

// Done reports whether a job that another worker took has finished.
func (j *Job) Done() bool { return j.done.IsSet() }

// Complete runs f, the body of j, on w, which took j from a queue (R1):
// it records how f ended and sets j's latch last, after which the joiner
// owns j again (J3).
func (j *Job) Complete(w *Worker, f func()) {
	w.Guard(f, j.Record)
}

// Record stores how j's body ended and sets its latch (last): for a job
// run through Complete, and for one its joiner ran inline but whose
// outcome other goroutines may still wait for (a Future joined again).
func (j *Job) Record(p *Panic) {
	j.panic = p
	j.done.Set()
}

// Reset makes a job that ran elsewhere and was joined (J3) ready to be
// forked again. Its joiner must own it alone.
func (j *Job) Reset() {
	j.panic = nil
	j.done.Reset()
}

// Spare returns the recycled task in the deque slot that w's next Fork
// fills, or nil (J4). Its Runnable tells what job it is; Refork forks it
// again. Only the goroutine holding w may call it. (Reusing needs the
// job's type, which is the caller's: Spare, the type assertion and
// ReforkFast are all inlined into the caller's fork.)
func (w *Worker) Spare() *Task {
	t := w.dq.Spare()
	if t == nil || !t.free { // Recycle never frees a spilled task
		return nil
	}
	return t
}

// Runnable returns what t runs: the job that embeds it.
func (t *Task) Runnable() Runnable { return t.r }

// Recycle hands t, which w forked, back for Reuse (J4). Nobody may use t
// any more: it must have been taken back by Join, or have finished
// elsewhere and been observed finished by its only joiner. Only the
// goroutine running w's current task may call it.
func (w *Worker) Recycle(t *Task) { t.free = !t.spilled }

// Fork schedules t on w's deque (F1), publishing w's private tasks if another
// worker wants work (F2). Only the goroutine holding w may call it.
func (w *Worker) Fork(t *Task) { w.forkSlow(t) }

// Refork forks again t, the recycled task that Spare has just returned
// (J4), as Fork does: the common case of recursive code, where the slot
// the fork fills already holds t and nothing but the private bottom
// changes. No other operation on w may come between Spare and Refork. The
// common case of that common case, every worker busy, is ReforkFast,
// inlined into the caller:
//
//	if !s.ReforkFast(t) {
//		s.Refork(t)
//	}
func (w *Worker) Refork(t *Task) {
	t.free = false
	if t.scope != w.scope {
		w.forkSlow(t) // stores the scope, and pushes
		return
	}
	w.dq.PushSpare()
	// F2, written out so that the common case costs one load and no call.
	if w.pool.ctl.Load() != 0 {
		w.share()
	}
}

// ReforkFast is Refork when it costs nothing but plain loads and stores:
// the task's scope is unchanged and no worker wants work (F2 has nothing
// to do). It reports false, having changed nothing, otherwise.
func (w *Worker) ReforkFast(t *Task) bool {
	if t.scope != w.scope || w.pool.ctl.Load() != 0 {
		return false
	}
	t.free = false
	w.dq.PushSpare()
	return true
}

// forkSlow is Fork for a task whose scope or slot must be stored, or
// whose deque is full.
func (w *Worker) forkSlow(t *Task) {
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
	if w.pool.ctl.Load() != 0 {
		w.share()
	}
}

// Share is step F2 on demand: it publishes w's private tasks if another
// worker wants work. Forks, joins and the main loop do it themselves; a
// task that waits for one of its own forks without joining it (a test
// spinning until another worker has stolen it) calls it as it waits, or
// the fork may stay private (wsdeque.md) for as long as it waits. Only the
// goroutine holding w may call it.
func (w *Worker) Share() {
	if w.pool.ctl.Load() != 0 {
		w.share()
	}
}

// share publishes w's private tasks (F2: step P1 of sleep.md) and then
// runs step P2: wake a sleeper if nobody searches.
func (w *Worker) share() {
	if w.dq.Private() == 0 {
		return
	}
	w.dq.Publish()
	w.pool.notify(w)
}

// Join completes j, which w forked, and reports whether the caller must
// run it inline now (J1: it was taken back, and nobody else will run it);
// otherwise j has run elsewhere and finished (J3): Panic tells how. It
// must be called by the goroutine holding w.
func (w *Worker) Join(j *Job) (inline bool) {
	if w.TakeBack(&j.Task) {
		return true
	}
	w.WaitFor(&j.done)
	return false
}

// Await waits for j, which another worker may be running, to finish (J3),
// without trying to take it back: for a joiner that is not j's forker.
// It must be called by the goroutine holding w.
func (w *Worker) Await(j *Job) { w.WaitFor(&j.done) }

// TakeBack is J1 and J2: it reports whether t, which w forked, was taken
// back, and the caller must run it inline now; if not, another worker
// took it. The common case, t private at the bottom of the deque, is
// TakeBackFast, inlined into the caller:
//
//	if s.TakeBackFast(t) || s.TakeBack(t) {
//		// run it inline
//	}
func (w *Worker) TakeBack(t *Task) bool {
	if w.TakeBackFast(t) {
		return true
	}
	return w.takeBackSlow(t)
}

// TakeBackFast pops t if it is the private task at the bottom of w's
// deque (D3): no fence, no call. It reports false, having changed
// nothing, otherwise.
func (w *Worker) TakeBackFast(t *Task) bool {
	if !w.dq.PopPrivate(t) {
		return false
	}
	w.counts.Executed++
	return true
}

// takeBackSlow is TakeBack for a task that is not the private bottom: a
// published one, one that overflowed to the injector (claimed instead,
// if nobody has started it), or one that is gone. A different task at the
// bottom is put back (J2).
func (w *Worker) takeBackSlow(t *Task) bool {
	if t.spilled {
		// It overflowed to the injector: whoever claims it runs it.
		// Taking it back here keeps a full deque from turning every
		// join into a park.
		if t.claimed.CompareAndSwap(false, true) {
			// Ours. Drop its entry too if it is still the newest of
			// the bucket it was put in (it usually is: joins come
			// back in reverse order of forks); an older one is
			// skipped when popped.
			if w.pool.inj.removeLast(uint32(w.id), t) {
				w.counts.InjectorPops++
			}
			w.counts.Executed++
			return true
		}
		return false
	}
	x := w.dq.Pop()
	if x == t {
		w.counts.Executed++
		if w.pool.ctl.Load() != 0 {
			w.share()
		}
		return true
	}
	if x != nil {
		w.putBack(x)
	}
	return false
}

// putBack returns a task that the owner popped but may not run (J2) to
// the bottom of the deque, published (it may have been). It cannot fail:
// the pop made room. (If the joined task overflowed, was stolen or was
// taken back already, this is whatever is at the bottom now, an older
// task included; it goes back untouched.)
func (w *Worker) putBack(x *Task) {
	w.dq.Push(x)
	w.dq.Publish()
	w.pool.notify(w)
}

// takeBackUntil pops tasks from the bottom of w's deque and runs them
// inline until e is set, as long as keep reports true for them; it puts
// back the first task it would not run, and returns when the deque is
// empty. It is J1 for a set of awaited tasks, such as a task block's:
// keep must report true only for tasks whose completion e waits for, since
// only those are sure not to wait for the caller in turn (J2).
func (w *Worker) takeBackUntil(e Event, keep func(r Runnable) bool) {
	for !e.IsSet() {
		x := w.dq.Pop()
		if x == nil {
			return
		}
		if !keep(x.r) {
			w.putBack(x)
			return
		}
		w.Share() // F2: the tasks left behind may be wanted elsewhere
		w.execute(x)
	}
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
func (w *Worker) overflow(t *Task) {
	if w.spill == nil {
		w.spill = make([]*Task, max(1, w.dq.Cap()/2))
	}
	w.dq.Publish() // TakeOldest moves published tasks only
	k := w.dq.TakeOldest(w.spill)
	batch := w.spill[:k]
	for _, x := range batch {
		x.spilled = true
	}
	if k == 0 || !w.dq.Push(t) {
		t.spilled = true
		batch = append(batch, t) // k == 0 here: within w.spill
	}
	w.counts.Overflows += uint64(len(batch))
	w.pool.inj.pushBatch(uint32(w.id), batch)
	clear(batch) // do not keep the tasks reachable from here
}

// execute runs t on w, unless it is a spilled task its owner took back.
func (w *Worker) execute(t *Task) {
	if t.spilled && !t.claimed.CompareAndSwap(false, true) {
		return
	}
	w.counts.Executed++
	if w.counts.Executed%4096 == 0 {
		w.publish()
	}
	if s := t.scope; s != w.scope {
		// The task belongs to another Region than the code running it
		// here (or to none): switch for its duration.
		prev := w.scope
		w.scope = s
		w.runScoped(s, prev, t)
		w.scope = prev
		return
	}
	t.r.Run(w)
}
