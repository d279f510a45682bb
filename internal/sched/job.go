package sched

import (
	"context"
	"runtime/trace"
)

//go:generate go run gen_joins.go

// The job type: fork, take back, run inline, wait (park and resume),
// recycle and capture, for every layer above the pool. This file holds the
// job type, a task's run (execute) and the invariants below; the task
// type is in types.go with the Pool and the Worker, and the mechanisms
// are in files of their own: fork and exposure (fork.go: F1, E1-E2, E4, J4),
// loop hints (loophints.go: E3), take-back and join (join.go: J1-J3),
// and the typed forms built on it (typed.go: Join, JoinArgs, JoinSlice,
// Future; group tasks are in group.go): forkjoin's functions, taskblock's
// tasks and the pool's external submissions are one-line users of them.
// The invariants that make fork and join cheap and recycling safe:
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
//	    barrier paid by the thief; search.go, M2), and no worker sleeps
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
//	    recycle marks it recycled, and its forker's next fork at the same
//	    depth finds it in the very deque slot it pushes to (reusable, then
//	    refork), so a recursion forks without allocating. Only the worker that forked a
//	    job reads or writes its recycled flag. A job that overflowed to the
//	    injector is never reused: a dead entry of it may remain there,
//	    and must keep finding it claimed.
//	R1  A job taken from a deque or the injector by any worker runs
//	    through complete: its body under Guard (capture.go), its outcome
//	    recorded, its latch set last, also when a runtime.Goexit unwinds
//	    through it.

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

// execute runs t on w, unless it is a spilled task its owner took back.
func (w *Worker) execute(t *task) {
	w.mustOwn()
	if t.spilled.Load() && !t.claimed.CompareAndSwap(false, true) {
		return
	}
	w.counts[countExecuted]++
	if w.counts[countExecuted]%4096 == 0 {
		w.flushCounters()
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
	raceHandOff(w) // stall.md, Y6: after the last write above
	t.r.Run(w)
}

// executeTraced is execute inside a trace region named after the pool and
// the worker, so that go tool trace shows what each worker ran. Carriers
// use it for the tasks of their main loop while a trace is recorded.
func (w *Worker) executeTraced(t *task) {
	defer trace.StartRegion(context.Background(), w.regionName).End()
	w.execute(t)
}
