package sched

//go:generate go run gen_joins.go

import (
	"sync/atomic"
	"unsafe"
)

// The job type: fork, take back, run inline, wait (park and resume),
// recycle and capture, for every layer above the pool. The second half of
// this file holds the typed forms built on it (Join, JoinArgs, JoinSlice,
// Future; group tasks are in group.go): forkjoin's functions, taskblock's
// tasks and the pool's external submissions are one-line users of them. The invariants that make fork and join cheap and recycling safe:
//
//	F1  A fork pushes the task at the bottom of its worker's deque,
//	    privately (wsdeque.md, D2): no thief can see it, and the push is
//	    plain stores. A full deque moves its oldest published half to the
//	    injector first (overflow).
//	E1  Exposure. A fork then publishes its worker's private tasks (one
//	    store, D4, then step P2 of sleep.md) if its deque exposes nothing
//	    (no published task is left in it: none was published since it
//	    last ran dry, or thieves and pops have taken them all) or another
//	    worker wants work (pool.ctl != 0: some worker is searching,
//	    waiting for news or asleep). Otherwise the fork stays private: no
//	    fence, no shared write. So a worker that holds forks exposes at
//	    least its oldest one, whatever it runs next, and only the deeper
//	    ones, which its own joins take back in the common case, skip the
//	    fence: Lazy Binary Splitting's rule (Tzannes, Caragea, Barua,
//	    Vishkin, PPoPP 2010) on the private deque. In a recursion that
//	    publishes O(depth) times per stolen subtree, not once per fork.
//	E2  The other points where the owner runs scheduler code but the
//	    fork-join fast path make the same test (publishDue) and publish if
//	    it holds: a join that had to pop a published task, the main loop
//	    between tasks (loop.go), a loop before each step (ShouldSplit), a
//	    block's wait before it runs a task inline. (A join that takes back
//	    its private task does not: it is a plain pop, inlined into the
//	    typed forms, and the task it then runs inline forks in turn, E1,
//	    or is a leaf.)
//	E3  A loop whose worker exposes nothing and holds no private task
//	    splits what remains of its range before its next step
//	    (ShouldSplit; parallel/split.go): the half it forks is published
//	    by E1. A loop thus exposes half of its rest before every step that
//	    could run long, as a recursion exposes its oldest fork.
//	E4  Code that hands control to something that may block, or run long
//	    without forking, publishes everything first (Expose): ForSeq's
//	    puller before it goes back to its sequence. A task that parks or
//	    enters a section hands its worker, private tasks included, to
//	    another carrier, which runs them or publishes them by E1-E2.
//
//	    No window: a thief finds the oldest queued fork of every worker
//	    that has one, published (E1-E3) or not. A worker's younger forks
//	    stay private after a thief took its last exposed one, but an idle
//	    worker takes them without their owner (wsdeque.md, D8: a heavy
//	    barrier paid by the thief; search.go, G2), and no worker sleeps
//	    while one is queued (sleep.md, S2a). The owner's fork and join stay
//	    fence-free. Where the platform has no heavy barrier (wsdeque.md,
//	    "Where there is no heavy barrier"), the window remains: between a
//	    steal of a worker's last exposed task and that worker's next fork,
//	    loop step or task boundary, its private forks wait for it.
//	J1  A join takes its task back if nobody else has it: a private or
//	    published task at the bottom of the deque is popped (D3, D5), one
//	    that overflowed to the injector is claimed (task.claimed). Then
//	    the joiner runs it inline, on its own stack, with no capture and
//	    no latch: nobody else can see the job any more.
//	J2  Only the task awaited is ever run on the joiner's stack: a
//	    different task found at the bottom (a younger fork not joined) is
//	    put back. Running an awaited task there is safe (it cannot wait
//	    for the joiner: the graph would have a cycle); running anything
//	    else could deadlock (carrier.md).
//	J3  Otherwise the job was taken by another worker, which runs it
//	    through complete (R1) and sets its latch last; the joiner waits
//	    for the latch with WaitFor: a short spin, then it parks and its
//	    worker goes on with other tasks on another carrier (carrier.md,
//	    C1-C4). Once the latch is set, the thief's last access to the job
//	    was the latch's Swap, which the joiner has observed: the job is
//	    the joiner's alone again.
//	J4  A job the joiner owns alone again (J1 or J3) may be recycled:
//	    recycle marks it free, and its forker's next fork at the same
//	    depth finds it in the very deque slot it pushes to (spare, then
//	    refork), so a recursion forks without allocating. Only the worker that forked a
//	    job reads or writes its free flag. A job that overflowed to the
//	    injector is never reused: a dead entry of it may remain there,
//	    and must keep finding it claimed.
//	R1  A job taken from a deque or the injector by any worker runs
//	    through complete: its body under Guard (capture.go), its outcome
//	    recorded, its latch set last, also when a runtime.Goexit unwinds
//	    through it.

// task is the unit a pool schedules: what sits in a worker's deque or in
// the injector. Every job type embeds a task (usually through a job) and
// points it at itself with bind, so that a fork costs one allocation, or
// none when the job is recycled (J4).
//
// A task must not be copied after bind. It may be scheduled again only
// after it has finished running and its owner got it back (J4).
type task struct {
	r runnable
	// free marks a finished task that its owner has recycled (J4). Only
	// the worker that forked the task reads or writes it.
	free bool
	// spilled marks a task that went to the injector because its deque
	// was full (directly, or moved there in a batch by overflow). It is
	// written before the injector push and read by whoever pops the task,
	// so the injector's lock orders the two. recycle never frees a spilled task,
	// so the flag never needs clearing.
	spilled bool
	// claimed decides, for a spilled task, between its owner taking it
	// back (J1) and whoever pops it from the injector: exactly one runs it.
	claimed atomic.Bool
	// scope is the Region the task was forked in, or nil. A fork sets it
	// from the forking worker; it is read by whoever runs the task, after
	// the deque or injector has published it.
	scope *scope
	// forker is the worker that forked the task, set by its first fork
	// and never changed (a task is only ever reforked from its forker's
	// own deque slots, J4). A deque slot may hold another worker's task
	// (a batch moved from another deque by a steal or from the injector):
	// spare recycles only the tasks whose forker is the caller, and reads
	// free, which only the forker writes, only then.
	forker *Worker
	// oneShot marks a task that is never recycled (a Future): once it
	// has run, the deque slot it was in must let go of it (Forget).
	oneShot bool
}

// runnable is what a task runs. Run is called exactly once, on the worker
// that took the task from a queue, and must not let a panic escape: a
// panic that escapes Run kills the process, because a worker goroutine has
// nobody to return it to. Job types run their body through complete, which
// captures it.
type runnable interface {
	Run(w *Worker)
}

// bind makes t run r. It is called as j.bind(j) right after j is
// allocated.
func (t *task) bind(r runnable) { t.r = r }

// job is a task that its forker joins: the latch its joiner waits on when
// another worker took it (J3), and how its body ended.
type job struct {
	task
	done  Latch
	panic *Panic
}

// complete runs f, the body of j, on w, which took j from a queue (R1):
// it records how f ended and sets j's latch last, after which the joiner
// owns j again (J3).
func (j *job) complete(w *Worker, f func()) {
	w.Guard(f, j.record)
}

// record stores how j's body ended and sets its latch (last): for a job
// run through complete, and for one its joiner ran inline but whose
// outcome other goroutines may still wait for (a Future joined again).
func (j *job) record(p *Panic) {
	j.panic = p
	j.done.Set()
}

// spare returns the recycled task in the deque slot that w's next fork
// fills, or nil (J4); refork forks it again. Only the goroutine holding w
// may call it. It is inlined into the typed forms below.
func (w *Worker) spare() *task {
	t := w.dq.Spare()
	if t == nil || t.forker != w || !t.free { // recycle never frees a spilled task
		return nil
	}
	return t
}

// spareMoved is spare for a fork that found no recycled task of its type
// in the slot it fills, before it allocates one: the newest free task
// that w took back by the top (D5a, D3's last item) is stored in that slot
// (SetSpare) and returned. That is where jobs claimed back by the top are
// (wsdeque.md, Moved): a fork published because its deque exposed nothing
// (E1), taken back as the deque's last item, moves the deque's indices,
// and so every deeper slot, one place on. A recursion moves them once per
// level of its right spine, and without this its deepest forks would
// meet slots that never held a job and allocate, call after call, until
// the indices went round the ring. Moved tasks that are not free yet (or
// not w's) are dropped: they are in another slot too. Not inlined: spare
// must be.
//
//go:noinline
func (w *Worker) spareMoved() *task {
	for {
		t := w.dq.Moved()
		if t == nil {
			return nil
		}
		if t.forker == w && t.free {
			if !w.dq.SetSpare(t) {
				return nil
			}
			return t
		}
	}
}

// recycle hands t, which w forked, back for reuse (J4). Nobody may use t
// any more: it must have been taken back by Join, or have finished
// elsewhere and been observed finished by its only joiner. Only the
// goroutine running w's current task may call it.
func (w *Worker) recycle(t *task) { t.free = !t.spilled }

// refork forks again t, the recycled task that spare has just returned
// (J4), as fork does: the common case of recursive code, where the slot
// the fork fills already holds t and nothing but the private bottom
// changes. No other operation on w may come between spare and refork. The
// common case of that common case, the scope unchanged and nothing to
// publish, is reforkFast, inlined into the caller; refork is its slow end:
//
//	if !w.reforkFast(t) {
//		w.refork(t)
//	}
func (w *Worker) refork(t *task) {
	if t.free {
		// reforkFast did not push it: its scope differs.
		t.free = false
		w.fork(t) // stores the scope, and pushes
		return
	}
	w.share() // E1 was due after the push
}

// reforkFast pushes t, recycled, when its scope is unchanged: plain loads
// and stores. E1's test comes after the push (the order matters: sleep.md,
// S2a, pairs E1's load of ctl with a sleeper's heavy barrier). It reports
// false when refork must finish: t was not pushed (its scope differs, and
// t.free is still set), or it was and E1 is due.
func (w *Worker) reforkFast(t *task) bool {
	if t.scope != w.scope {
		return false
	}
	t.free = false
	w.dq.PushSpare()
	return !w.publishDue() // E1
}

// fork schedules t on w's deque (F1), publishing w's private tasks if E1
// says so. Only the goroutine holding w may call it.
func (w *Worker) fork(t *task) {
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
		w.share()
	}
}

// wantsWork reports whether another worker of p wants work: some worker
// is searching, waiting for news or asleep, i.e. not running a task
// (sleep.md, S5: ctl == 0 means that every worker is busy). It is one
// load of the word every fork loads anyway.
func (p *Pool) wantsWork() bool { return p.ctl.Load() != 0 }

// publishDue is the test of E1 and E2: w's private tasks must be
// published now because its deque exposes nothing a thief could take, or
// because another worker wants work. Two loads: ctl, and the deque's top,
// which only steals write. Only the goroutine holding w may call it.
func (w *Worker) publishDue() bool { return w.pool.wantsWork() || !w.dq.Exposed() }

// exposeIfDue is E2 where the owner has nothing else to do: it publishes
// w's private tasks if publishDue says so. Only the goroutine holding w
// may call it.
func (w *Worker) exposeIfDue() {
	if w.dq.Private() != 0 && w.publishDue() {
		w.share()
	}
}

// Expose publishes every private task of w now, whoever wants work, and
// wakes a sleeper if nobody searches (E4): for code that is about to hand
// control to something that may block or run long without forking again
// (a ForSeq puller calling back into its sequence), after which nothing
// on this worker would publish them. Only the goroutine holding w may call
// it.
func (w *Worker) Expose() { w.share() }

// ShouldSplit reports whether a loop running a range sequentially on w
// should split what remains of it before its next step (E3); more says
// whether more than one step remains. It does when another worker wants
// work, or when w's deque exposes nothing a thief could take and more
// than one step remains (a single step is run whole whoever comes: it is
// as long as the loop's own split would leave it, and splitting it would
// only cost a task); and w holds no private task, and the pool has
// another worker to take the half. A private task left unexposed (by a
// steal of the last published one) is published instead (E2): it is
// older than the loop, and usually larger than half of it. While w's
// deque exposes a task, a loop does not split, so a loop nested in a step
// of a loop (or a join) that exposes its rest costs what the plain loop
// costs, and so does a loop of one step on a busy pool (a Reduce of a
// few elements: no task, no allocation).
//
// Loops nested in a step of an enclosing loop (LoopStep) split less, to
// keep small nested loops cheap: not at all while the enclosing loop has
// steps left (it exposes its own rest before each step, a larger piece,
// and splits for an idle worker at its next step), and in its last step
// only while another worker wants work, not merely because nothing is
// exposed. Without that, the rows of a busy outer loop would each split,
// a fork and a join per row, whenever a steal left their worker exposing
// nothing. (In the last step, an idle worker may still take halves of
// rows, one after another: the outer loop has nothing larger left, and a
// loop of one outer iteration must split its inner loop.) Only the
// goroutine holding w may call it.
func (w *Worker) ShouldSplit(more bool) bool {
	if w.dq.Private() != 0 {
		if w.publishDue() {
			w.share()
		}
		return false
	}
	if w.dq.Exposed() || len(w.pool.workers) == 1 {
		return false
	}
	switch w.loopNest {
	case notNested:
		return more || w.pool.wantsWork()
	case nestedLast:
		return w.pool.wantsWork()
	}
	return false
}

// The values of Worker.loopNest: where the code running on w stands
// relative to the loops that run on it (ShouldSplit).
const (
	notNested  = iota // in no step of a loop
	nestedLast        // in the last step of every enclosing loop
	nestedMore        // in a step of a loop that has steps after it
)

// LoopStep tells w that a loop on it is about to run a step, with more
// steps of that loop after it or not, and returns what to pass to
// LoopStepDone when the step has run: loops nested in the step then split
// less (ShouldSplit). The main loop clears the mark before each task, so a
// task parked mid-step leaves no stale mark for long; it is a hint, never
// a condition of correctness. Only the goroutine holding w may call it.
func (w *Worker) LoopStep(more bool) (outer uint8) {
	outer = w.loopNest
	mark := uint8(nestedLast)
	if more {
		mark = nestedMore
	}
	w.loopNest = max(outer, mark)
	return outer
}

// WillNotSplit reports whether ShouldSplit answers false for as long as
// the caller's loop runs: the loop is nested in a step of an enclosing
// loop that has steps left (a mark that the loop's own steps do not
// lower), or the pool has one worker. Such a loop may run its range in
// one step. Only the goroutine holding w may call it.
func (w *Worker) WillNotSplit() bool { return w.loopNest == nestedMore || len(w.pool.workers) == 1 }

// LoopMark returns w's loop mark, for LoopStepDone to restore when a
// panic unwinds steps that did not. Only the goroutine holding w may call
// it.
func (w *Worker) LoopMark() uint8 { return w.loopNest }

// LoopStepDone ends the step that LoopStep began: outer is what LoopStep
// returned. Only the goroutine holding w may call it.
func (w *Worker) LoopStepDone(outer uint8) { w.loopNest = outer }

// share publishes w's private tasks (step P1 of sleep.md) and then runs
// step P2: wake a sleeper if nobody searches. It is the slow path of the
// fork and join paths' E1 and E2, kept out of line so that they inline.
//
//go:noinline
func (w *Worker) share() {
	if w.dq.Private() == 0 {
		return
	}
	w.dq.Publish()
	w.pool.notify(w)
}

// join completes j, which w forked, and reports whether the caller must
// run it inline now (J1: it was taken back, and nobody else will run it);
// otherwise j has run elsewhere and finished (J3): j.panic tells how. It
// must be called by the goroutine holding w.
func (w *Worker) join(j *job) (inline bool) {
	if w.takeBack(&j.task) {
		w.counts[countExecuted]++
		return true
	}
	w.WaitFor(&j.done)
	return false
}

// takeBack is J1 and J2: it reports whether t, which w forked, was taken
// back, and the caller must run it inline now (and count it executed);
// if not, another worker took it. The common case, t private at the
// bottom of the deque, is takeBackFast, inlined into the caller:
//
//	if w.takeBackFast(t) || w.takeBack(t) {
//		w.counts[countExecuted]++
//		// run it inline
//	}
func (w *Worker) takeBack(t *task) bool {
	if w.takeBackFast(t) {
		return true
	}
	return w.takeBackSlow(t)
}

// takeBackFast pops t if it is the private task at the bottom of w's
// deque and not the last item there (D3): no fence, no call. It reports
// false, having changed nothing, otherwise.
func (w *Worker) takeBackFast(t *task) bool { return w.dq.PopPrivate(t) }

// takeBackSlow is takeBack for a task that is not the private bottom: a
// published one, one that overflowed to the injector (claimed instead,
// if nobody has started it), or one that is gone. A different task at the
// bottom is put back (J2).
func (w *Worker) takeBackSlow(t *task) bool {
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
				w.counts[countInjectorPops]++
			}
			return true
		}
		return false
	}
	x := w.dq.Pop()
	if x == t {
		w.exposeIfDue() // E2
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
func (w *Worker) putBack(x *task) {
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
func (w *Worker) takeBackUntil(e Event, keep func(r runnable) bool) {
	for !e.IsSet() {
		x := w.dq.Pop()
		if x == nil {
			return
		}
		if !keep(x.r) {
			w.putBack(x)
			return
		}
		w.exposeIfDue() // E2: the tasks left behind may be wanted elsewhere
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
func (w *Worker) overflow(t *task) {
	if w.spill == nil {
		w.spill = make([]*task, max(1, w.dq.Cap()/2))
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
	w.counts[countOverflows] += uint64(len(batch))
	w.pool.inj.pushBatch(uint32(w.id), batch)
	clear(batch)     // do not keep the tasks reachable from here
	w.pool.notify(w) // P2 for the injector's tasks, or W2 (stall.md)
}

// execute runs t on w, unless it is a spilled task its owner took back.
func (w *Worker) execute(t *task) {
	if t.spilled && !t.claimed.CompareAndSwap(false, true) {
		return
	}
	w.counts[countExecuted]++
	if w.counts[countExecuted]%4096 == 0 {
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

// The typed forms.

// The typed forms of the job type: the joins, futures and group tasks
// that forkjoin and taskblock offer users, wrapped there in one line
// each. Their job types are below; the functions that fork and join them
// (Join, JoinArgs, JoinSlice, Spawn and Spawned.Join, and a group task's
// fork) are generated into zjoin.go from the one skeleton in gen_joins.go,
// which states the steps below. They are generic in
// W, the public worker type (pool.Worker, which consists of a Worker
// alone: As converts at no cost), so that the functions users pass, which
// take a *pool.Worker, are called directly, with no adapter closure. Join
// and JoinArgs take the public worker itself, so that forkjoin's one-line
// wrappers around them cost the inliner little enough to be inlined into
// the user's code: a fork is then one call, not two.
//
// A join of two halves, in every form:
//
//	fork the second half (F1, E1), recycling the job found in the slot
//	    the fork fills if it is of the right type (J4);
//	defer the test that turns a panic or Goexit unwinding the join into
//	    the join's panic, after dropping or waiting for the forked half
//	    (unwound);
//	run the first half here;
//	take the second half back and run it here (J1, J2), or wait for it
//	    to finish elsewhere (J3) and read its outcome;
//	recycle the job (J4).

// joinState is where a join that forked a job stands, for unwound.
type joinState uint8

const (
	forked  joinState = iota // the job is forked and the join runs its own half
	joining                  // the job was taken back (and runs here) or has finished elsewhere
	joined                   // the join returned normally
)

// unwound is called by a join that forks j from the function it defers
// right after the fork:
//
//	state := forked
//	defer func() {
//		if state != joined {
//			w.unwound(&j.job, state, recover())
//		}
//	}()
//
// A join that returns normally sets state to joined first: on the fast
// path the deferred function is one test, no capture. Otherwise a panic or
// a runtime.Goexit is unwinding the join, r is what the deferred function
// recovered (recover works only there), and unwound captures it as Capture
// would. If j is still forked, it is dropped if nobody has started it, or
// waited for (no task of a join outlives it, J1-J3), and the error raised
// is the first of the two panics with the other attached (Combine). A nil r
// is either a Goexit or panic(nil) under GODEBUG=panicnil=1, which cannot
// be told apart here: it is raised as a panic either way; during a Goexit,
// the task's Guard recovers that and the Goexit, which no recover stops,
// goes on and is reported as such.
func (w *Worker) unwound(j *job, state joinState, r any) {
	p := recovered(r)
	if state == forked {
		if w.join(j) {
			// Taken back before it started: dropped. It is not
			// recycled: its fields still hold what was forked.
			panic(p.Err)
		}
		panic(Combine(p, j.panic))
	}
	panic(p.Err)
}

// stolen completes j after takeBack reported that another worker took it:
// it waits for j to finish there (J3), after which the job is the
// joiner's alone again, lets take read its result, and returns how the job
// ended, after resetting and recycling it (J4).
func (w *Worker) stolen(j *job, take func()) *Panic {
	w.WaitFor(&j.done)
	p := j.panic
	take()
	j.panic = nil
	j.done.reset()
	w.recycle(&j.task)
	return p
}

// funcJob is a forked closure: Join's fb.
type funcJob[W, R any] struct {
	job
	f   func(*W) R
	res R
}

func (j *funcJob[W, R]) Run(w *Worker) {
	j.complete(w, func() { j.res = j.f((*W)(unsafe.Pointer(w))) })
}

// argJob is a forked call f(w, arg): JoinArgs's second call. f is a plain
// function value and arg travels by value, so nothing is allocated.
type argJob[W, A, R any] struct {
	job
	f   func(*W, A) R
	arg A
	res R
}

func (j *argJob[W, A, R]) Run(w *Worker) {
	j.complete(w, func() { j.res = j.f((*W)(unsafe.Pointer(w)), j.arg) })
}

// sliceJob is a forked half of a JoinSlice: the calls f(w, args[i]), their
// results stored in out or folded with combine into res.
type sliceJob[W, A, R any] struct {
	job
	f       func(*W, A) R
	args    []A
	out     []R
	combine func(a, b R) R
	res     R
}

func (j *sliceJob[W, A, R]) Run(w *Worker) {
	j.complete(w, func() { j.res = JoinSlice(w, j.f, j.args, j.out, j.combine) })
}

// spawnJob is a forked closure that its forker joins exactly once, from
// the same worker (forkjoin.Spawn): Join's funcJob with the join apart
// from the fork, and so recycled as Join's is (J4). gen numbers its forks
// and joins: odd while forked, even once joined, so that a second join of
// one fork, which would find the job recycled or forked again, is caught.
// Only the worker that forked it reads or writes gen, f and owner between
// a fork and its join (a thief runs it, reading f; the fork's publication
// and the latch order that).
type spawnJob[W, T any] struct {
	job
	f     func(*W) T
	res   T
	owner *Worker
	gen   uint64
}

func (j *spawnJob[W, T]) Run(w *Worker) {
	j.complete(w, func() { j.res = j.f((*W)(unsafe.Pointer(w))) })
}

// Spawned is a fork of Spawn, to be joined once: forkjoin.Task.
type Spawned[W, T any] struct {
	j   *spawnJob[W, T]
	gen uint64
}

// Future is the job of a forkjoin.Future: a forked closure whose outcome
// stays readable, by any number of joins from any task, for as long as
// the Future is. It is not recycled: whoever holds it may join it again.
type Future[W, T any] struct {
	job
	f     func(*W) T
	res   T
	owner *Worker // the worker whose deque the job was pushed on
	idx   int64   // the index it was pushed at in owner's deque
}

func (f *Future[W, T]) Run(w *Worker) { f.complete(w, func() { f.res = f.f((*W)(unsafe.Pointer(w))) }) }

// Fork makes f the future of fn and forks it onto w (F1, E1). f must be
// new: a Future's zero value, allocated by the caller (forkjoin.Fork
// embeds one in its own type, so that a fork allocates once).
func (f *Future[W, T]) Fork(w *Worker, fn func(*W) T) {
	if w.checkDue() {
		w.checkFork("forkjoin.Fork") // panics, naming the mistake (debug.go)
	}
	f.f, f.owner, f.oneShot = fn, w, true
	f.bind(f)
	w.fork(&f.task)
	f.idx = w.dq.Bottom() - 1 // unless it overflowed (spilled): then no slot holds it
}

// Join returns the future's result, running it here if its forker joins it
// while it is still at the bottom of the forker's deque (J1), and waiting
// for it otherwise (J3); it re-raises the future's panic.
func (f *Future[W, T]) Join(w *Worker) T {
	if w.checkDue() {
		w.checkFork("forkjoin.Future.Join") // panics, naming the mistake (debug.go)
	}
	if !f.done.IsSet() {
		if w != f.owner {
			w.WaitFor(&f.done)
		} else {
			if w.join(&f.job) {
				// Taken back: run it here. Its outcome is recorded and
				// the latch set, as if it had run elsewhere, for other
				// joins of the same future. Guard, not Capture: a
				// Goexit in it is the future's own, recorded for its
				// other joiners, and the task running this join reports
				// that it was aborted by it.
				fn := f.f
				f.f = nil
				w.Guard(func() { f.res = fn((*W)(unsafe.Pointer(w))) }, f.record)
			}
		}
	}
	if w == f.owner {
		f.forget(w) // also when it finished elsewhere before this join
	}
	if p := f.panic; p != nil {
		panic(p.Err)
	}
	return f.res
}

// forget makes the slot of f's owner's deque that f was pushed to let go
// of it, once f has left the deque for good (taken back or run
// elsewhere): a future is never recycled, and the slot must not keep it,
// and its result, reachable after its joiner has dropped it. Only the
// goroutine holding f's owner may call it.
func (f *Future[W, T]) forget(w *Worker) {
	if !f.spilled {
		w.dq.Forget(f.idx, &f.task)
	}
}

// Done reports whether the future's task has finished.
func (f *Future[W, T]) Done() bool { return f.done.IsSet() }
