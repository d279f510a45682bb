package sched

import (
	"math/rand/v2"
	"sync/atomic"
	"unsafe"
)

// Group is a join scope: the tasks forked in one task block, joined all
// at once. It is the job type's join (job.go) for a set of tasks instead
// of one:
//
//	G1  The group counts its tasks not yet finished, plus one for its
//	    opener (a block's body) until Close: the word n is
//	    2×pending + open, plus the bit canceledBit once canceled (kept in
//	    the same word so that a Block fits in 64 bytes; every count below
//	    is of n without that bit).
//	G2  A fork into the group (Add) is refused once n is 0: the opener has
//	    closed it and every task has finished, so its joiner may already
//	    have returned. Any legal forker is the opener (before Close) or a
//	    running task of the group, which is itself counted: n >= 1 for as
//	    long as either can call Add, so a legal fork is never refused and
//	    a fork after the end always is: no task runs after the group's
//	    join returned, and none is added to a group nobody waits for.
//	G3  A task's end (Done) takes 2 off n; the one that brings pending to
//	    0 wakes the waiters, as Latch.Set does (sleep.md, event setter).
//	G4  Wait (the opener's) takes back the group's own tasks from the
//	    bottom of its worker's deque and runs them inline (J1, J2: they
//	    are what it waits for), then waits for the rest (J3).
//	G5  A group opened with a home worker (OpenOn) may serve again, as a
//	    new group, once its opener's Wait has returned, if it was not
//	    canceled, every task ran on home and nobody waits: a task that
//	    runs elsewhere sets awayBit in n before its Done, and a task of
//	    home's runs on home's holder, which the opener is again only
//	    after that task's Done returned, so no goroutine but the opener's
//	    touches g any more. It is then left open (not Closed): its
//	    forkers must tell a fork meant for the old group apart
//	    themselves (taskblock: Add, check, Fork, and Undo if the count
//	    went to a later group).
//	G6  RunOpener runs the opener's body and its final Wait under one
//	    deferred capture, and the tasks that Wait takes back run inline
//	    without a Guard each: between such a task and RunOpener's frame
//	    there is only the scheduler's Wait, so a panic or Goexit of the
//	    task unwinds to RunOpener, which reports it as the running task's
//	    (inline set), cancels g, counts the task done and waits for the
//	    rest (their Guards back, skipping those not started). A Wait the
//	    body calls itself keeps the Guards: the body's own frames, which
//	    could recover a task's panic, lie between.
//	G7  A task that home's holder forks into a group with a home (AddOn)
//	    is counted in local, a plain count of home's holders, not in n:
//	    most are taken back and finish on home (local--), and a fork
//	    then costs no atomic operation. One that finishes elsewhere adds
//	    one to stolen instead. Before its opener registers as a waiter
//	    (addWaiter; the opener is the only one), it merges: n gets
//	    local, then stolen is swapped for mergedBit and n loses what it
//	    held, so that n never falls below the tasks it counts; from then
//	    on every fork and Done of g goes through n, which wakes the
//	    opener (G3). Pending is n's count plus local less stolen until
//	    then, and IsSet is the opener's.
type Group struct {
	n       atomic.Int64 // 2×pending + open, | canceledBit | awayBit (G1, G5)
	waiters atomic.Pointer[waiter]
	owner   GroupOwner
	home    *Worker // OpenOn's (G5), or nil
	// inliner is the carrier running RunOpener's final Wait, whose
	// tasks run inline without a Guard (G6), and inline is set while
	// one does. Only that carrier writes them, on g's home worker.
	inliner     *carrier
	inline      bool
	inlineLocal bool // the inline task's local (G7)
	// local and stolen are G7's counts: local is home's holders', stolen
	// (| mergedBit) is added to by other workers.
	local  int64
	stolen atomic.Int64
}

// GroupOwner is told how the tasks of a group failed (taskblock's Block,
// which collects the panics and keeps the first error).
type GroupOwner interface {
	// Failed is called, from the worker that ran the task, for a task
	// that panicked (p) or returned an error (err), before the group is
	// canceled (Go cancels it right after; an owner may cancel it
	// itself once it has recorded the failure).
	Failed(p *Panic, err error)
}

// groupTask is one function run in a group: exactly one of f and fe is
// set. They are the functions Go was given, of types func(*W) and
// func(*W) error, held as functions of *Worker: a *W is a *Worker's
// memory (As), and a function of one pointer is called the same way
// whatever the pointer's type, so no adapter is needed. (An adapter such
// as a generic callAs[W] would cost an allocation per Go: a generic
// function value made inside generic code carries its dictionary in a
// closure.)
type groupTask struct {
	task
	g     *Group
	f     func(*Worker)
	fe    func(*Worker) error
	owner *Worker // the worker whose deque it was pushed on
	local bool    // counted in g's local (G7)
}

// canceledBit marks a canceled group in n, far above any count; awayBit
// one that a task ran away from home (G5).
const (
	canceledBit = 1 << 62
	awayBit     = 1 << 61
	flagBits    = canceledBit | awayBit
	mergedBit   = 1 << 62 // in stolen (G7)
)

// Open makes g a group whose opener may fork into it (G1), reporting its
// tasks' failures to owner.
func (g *Group) Open(owner GroupOwner) {
	g.owner = owner
	g.n.Store(1)
}

// OpenOn is Open for a group whose tasks are forked on home (the opener's
// worker) and that its opener may reuse (G5).
func (g *Group) OpenOn(owner GroupOwner, home *Worker) {
	g.home = home
	g.Open(owner)
}

// Reusable reports whether g may serve again as a new group (G5): it is
// open, not canceled, no task is pending, all its tasks ran on its home
// worker, and nobody waits on it. Only its opener may ask, after its Wait
// returned.
func (g *Group) Reusable() bool {
	return g.home != nil && g.n.Load() == 1 && g.waiters.Load() == nil && g.stolen.Load() == 0 && g.local == 0
}

// Add counts a task about to be forked into g and reports whether g is
// open to it (G2); the forker then forks it (Fork) or withdraws it (Undo).
// It is Go in steps, for a forker that checks, once the task is counted,
// that g is still the group it meant (G5).
func (g *Group) Add() bool { return g.add() }

// AddOn is Add for a task that the holder of w forks: counted in local if
// w is g's home (G7), which it reports, and in n otherwise.
func (g *Group) AddOn(w *Worker) (ok, local bool) {
	if w == g.home && g.stolen.Load()&mergedBit == 0 {
		if g.n.Load()&^flagBits == 0 {
			return false, false // G2
		}
		g.local++
		return true, true
	}
	return g.add(), false
}

// UndoOn withdraws a task that AddOn counted (local as it reported).
func (g *Group) UndoOn(local bool) {
	if local {
		g.local--
		return
	}
	g.Undo()
}

// Undo withdraws a task that Add counted and that is not forked: as if it
// had run away from home and finished at once (G5: the group whose count
// it borrowed may be a newer one, which is then not reused).
func (g *Group) Undo() {
	g.n.Or(awayBit)
	g.done()
}

// Cancel cancels g: its tasks that have not started are skipped, and Go
// forks nothing more.
func (g *Group) Cancel() { g.n.Or(canceledBit) }

// Canceled reports whether g has been canceled.
func (g *Group) Canceled() bool { return g.n.Load()&canceledBit != 0 }

// Close is the opener's last word (G1): after it, only running tasks of
// the group may fork into it.
func (g *Group) Close() { g.addN(-1) }

// add counts a task about to be forked into g, and reports false if g has
// ended (G2).
func (g *Group) add() bool {
	for {
		n := g.n.Load()
		if n&^flagBits == 0 {
			return false
		}
		// Sequentially consistent CAS: a task's Done that brings n to
		// 0 comes before it in the order (and then we see 0) or after
		// it (and then it sees our +2).
		if g.n.CompareAndSwap(n, n+2) {
			return true
		}
	}
}

// done counts the end of a task of g (G3).
func (g *Group) done() { g.addN(-2) }

func (g *Group) addN(d int64) {
	v := g.n.Add(d) &^ flagBits
	// Below zero, a flagged group's count borrows a flag: v is then far
	// above any count instead of negative.
	if v < 0 || v >= awayBit/2 {
		panic("sched: Group below zero")
	}
	if v>>1 == 0 && g.waiters.Load() != nil {
		// As Latch.Set: whoever brings pending to zero swaps the
		// waiter list after it, so a waiter that saw pending tasks
		// before registering cannot be missed (sleep.md, "Why no
		// wake-up is lost": a counter's waiters).
		for n := g.waiters.Swap(nil); n != nil; n = n.next {
			n.signal()
		}
	}
}

// IsSet reports whether no task of g is pending.
func (g *Group) IsSet() bool {
	if (g.n.Load()&^flagBits)>>1 != 0 {
		return false
	}
	if g.home == nil {
		return true
	}
	// G7: the opener's; before the merge, local tasks may be pending.
	s := g.stolen.Load()
	return s&mergedBit != 0 || g.local == s
}

// finish counts the end of a task of g on w (G3), local if it was counted
// in local (G7).
func (g *Group) finish(w *Worker, local bool) {
	if local {
		if w == g.home {
			if g.stolen.Load()&mergedBit == 0 {
				// Not merged, so nobody waits: the opener merges first.
				g.local--
				return
			}
		} else {
			for {
				s := g.stolen.Load()
				if s&mergedBit != 0 {
					break // merged: n counts it
				}
				if g.stolen.CompareAndSwap(s, s+1) {
					return
				}
			}
		}
	}
	g.done()
}

// Ended reports whether g has ended (G2): closed, and every task finished.
func (g *Group) Ended() bool { return g.n.Load()&^flagBits == 0 }

func (g *Group) addWaiter(n *waiter) bool {
	if g.home != nil && g.stolen.Load()&mergedBit == 0 {
		// G7's merge, by the opener: n first, so that it never falls
		// below what it counts.
		g.n.Add(2 * g.local)
		g.local = 0
		if s := g.stolen.Swap(mergedBit) &^ mergedBit; s != 0 {
			g.addN(-2 * s)
		}
	}
	for {
		old := g.waiters.Load()
		n.next = old
		if g.waiters.CompareAndSwap(old, n) {
			return true
		}
	}
}

// Wait returns once every task of g has finished (G4): it runs inline g's
// tasks found at the bottom of w's deque (they are what it waits for),
// then waits for those other workers took. It must be called by the
// goroutine holding w.
func (g *Group) Wait(w *Worker) {
	w.takeBackUntil(g, func(r runnable) bool {
		t, ok := r.(*groupTask)
		return ok && t.g == g
	})
	w.WaitFor(g) // which ends with stall.md's Y6 release
}

// RunOpener runs body, the opener's part of g, on w, which the caller
// holds, then waits for g's tasks (G4), running those it takes back inline
// without a Guard each (G6). A panic or runtime.Goexit of the body is
// reported to bodyFailed, which must cancel g; one of a task run inline
// goes to g's owner, as a Guard would report it. Either way RunOpener then
// waits for the rest of g's tasks, which the cancellation skips if they
// have not started, and returns (a Goexit goes on unwinding instead).
func (g *Group) RunOpener(w *Worker, body func(), bodyFailed func(p *Panic)) {
	waiting, returned := false, false
	h := w.Holder() // stall.md, Y6: the program's code runs next
	defer func() {
		if !returned {
			w.Regain(h) // Y6
			g.unwound(w, waiting, recover(), bodyFailed)
		}
	}()
	body()
	w.Regain(h) // Y6: the body may have blocked
	waiting = true
	if !g.IsSet() { // no task pending (none forked, or all finished): no wait
		g.inliner = w.cur
		g.Wait(w)
		g.inliner = nil
	}
	returned = true
}

// unwound is RunOpener's capture (G6): r is what its deferred function
// recovered, nil for a Goexit, which unwindingGoexit tells apart from
// panic(nil) under GODEBUG=panicnil=1.
func (g *Group) unwound(w *Worker, waiting bool, r any, bodyFailed func(p *Panic)) {
	var p *Panic
	if r == nil && unwindingGoexit() {
		seq := panicSeq.Add(1)
		p = &Panic{Err: w.goexitReport(seq), Seq: seq}
	} else {
		p = recovered(r)
	}
	g.inliner = nil
	if waiting && g.inline {
		g.inline = false
		g.owner.Failed(p, nil)
		g.Cancel()
		g.finish(w, g.inlineLocal)
	} else {
		// The body's (or the scheduler's own, in Wait: the opener's).
		bodyFailed(p)
	}
	g.Wait(w)
}

// Go forks a task of g onto w, the worker the caller holds, that runs f(w')
// or fe(w') on whichever worker w' takes it (exactly one of them is
// non-nil), depth first like a fork (F1, E1), recycling the task object
// (J4). It reports false, forking nothing, if g has ended (G2); a canceled
// group forks nothing and reports true.
func Go[W any](g *Group, w *Worker, f func(*W), fe func(*W) error) bool {
	if fork, ok := g.admit(); !fork {
		return ok
	}
	// See groupTask: the same function values, typed for *Worker.
	Fork(g, w, f, fe, false)
	return true
}

// admit is Go's and GoOutside's decision: fork says whether to fork a
// task, which admit has counted (add); when not, ok is what the caller
// reports: true for a canceled group (nothing to run), false for one
// that has ended (G2).
func (g *Group) admit() (fork, ok bool) {
	if g.Canceled() {
		return false, true
	}
	if !g.add() {
		return false, false
	}
	return true, true
}

// Fork forks a task of g that Add counted onto w, the worker the caller
// holds, as Go does.
func Fork[W any](g *Group, w *Worker, f func(*W), fe func(*W) error, local bool) {
	// See groupTask: the same function values, typed for *Worker.
	af := *(*func(*Worker))(unsafe.Pointer(&f))
	afe := *(*func(*Worker) error)(unsafe.Pointer(&fe))
	forkGroupTask(w, g, af, afe, local)
}

// GoOutside queues a task of g that runs f(w') on whichever worker w' of p
// takes it, on p's injector: Go for a caller that holds no worker of p to
// fork onto (a sequence that yields from a goroutine of its own while a
// task of p pulls it). It reports false, queueing nothing, if g has ended
// (G2: the caller forks on behalf of the opener, before its Close, which
// keeps n >= 1); a canceled group queues nothing and reports true. g's opener must
// be a running task of p, which keeps p from being quiescent: unlike an
// external submission (Pool.Run) it is therefore accepted while p
// closes, as a fork of that task would be, and a worker runs it (at the
// latest the opener's, when its Wait parks).
func GoOutside[W any](g *Group, p *Pool, f func(*W)) bool {
	if fork, ok := g.admit(); !fork {
		return ok
	}
	t := &groupTask{g: g, f: *(*func(*Worker))(unsafe.Pointer(&f))} // see groupTask; not local (G7)
	t.bind(t)
	p.inj.push(rand.Uint32(), &t.task)
	p.submitted.Add(1)
	p.notify(nil)
	return true
}

// Run runs the task (R1): skipped if its group was canceled before it
// started; a panic or error cancels the group and goes to its owner; the
// group counts the task finished last (G3).
func (t *groupTask) Run(w *Worker) {
	g, f, fe, local := t.g, t.f, t.fe, t.local
	// Done with t itself. If it runs on the worker that pushed it, nobody
	// else can reach it any more (a thief that read its slot lost the race
	// to the pop), so hand it back now: the first Go inside f uses the same
	// deque slot and reuses t (J4). A stolen task is left to the garbage
	// collector; its recycled flag belongs to its owner.
	// Either way it lets go of what it carried: a recycled task sits in
	// its deque slot until the next Go there, and must not keep the
	// finished call's functions alive meanwhile (issue 33).
	t.g, t.f, t.fe = nil, nil, nil
	if t.owner == w {
		w.recycle(&t.task)
	}
	if w != g.home && g.home != nil {
		g.n.Or(awayBit) // G5: before Done
	}
	if g.Canceled() {
		g.finish(w, local) // not started: skipped
		return
	}
	if w == g.home && g.inliner == w.cur && g.inliner != nil { // inliner is home's holders'
		// G6: taken back by RunOpener's Wait, on its goroutine, which
		// captures a panic or Goexit for this task (g.inline).
		g.inline, g.inlineLocal = true, local
		h := w.Holder() // stall.md, Y6: the program's code runs next
		var err error
		if fe != nil {
			err = fe(w)
		} else {
			f(w)
		}
		w.Regain(h) // Y6: the task may have blocked
		if err != nil {
			g.owner.Failed(nil, err)
			g.Cancel()
		}
		g.inline = false
		g.finish(w, local)
		return
	}
	var err error
	w.Guard(func() {
		if fe != nil {
			err = fe(w)
		} else {
			f(w)
		}
	}, func(p *Panic) {
		if p != nil || err != nil {
			// Record first, then cancel: a task that sees the group
			// canceled and fails in turn must find the first failure
			// recorded already, or its later error could be taken for
			// the first.
			g.owner.Failed(p, err)
			g.Cancel()
		}
		g.finish(w, local) // last: the task counts as finished after everything above
	})
}
