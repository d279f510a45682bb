package sched

import "sync/atomic"

// Group is a join scope: the tasks forked in one task block, joined all
// at once. It is the job type's join (job.go) for a set of tasks instead
// of one:
//
//	G1  The group counts its tasks not yet finished, plus one for its
//	    opener (a block's body) until Close: the word n is
//	    2×pending + open.
//	G2  A fork into the group (Add) is refused once n is 0: the opener has
//	    closed it and every task has finished, so its joiner may already
//	    have returned. Any legal forker is the opener (before Close) or a
//	    running task of the group, which is itself counted: n >= 1 for as
//	    long as either can call Add, so a legal fork is never refused and
//	    a fork after the end always is: no task runs after the group's
//	    join returned, and none is added to a group nobody waits for.
//	G3  A task's end (Done) takes 2 off n; the one that brings pending to
//	    0 wakes the waiters, as Counter does.
//	G4  Wait (the opener's) takes back the group's own tasks from the
//	    bottom of its worker's deque and runs them inline (J1, J2: they
//	    are what it waits for), then waits for the rest (J3).
type Group struct {
	n       atomic.Int64
	waiters atomic.Pointer[waiter]
}

// Open makes g a group whose opener may fork into it (G1).
func (g *Group) Open() { g.n.Store(1) }

// Close is the opener's last word (G1): after it, only running tasks of
// the group may fork into it.
func (g *Group) Close() { g.add(-1) }

// Add counts a task about to be forked into g, and reports false if g has
// ended (G2).
func (g *Group) Add() bool {
	for {
		n := g.n.Load()
		if n == 0 {
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

// Done counts the end of a task of g (G3).
func (g *Group) Done() { g.add(-2) }

func (g *Group) add(d int64) {
	v := g.n.Add(d)
	if v < 0 {
		panic("sched: Group below zero")
	}
	if v>>1 == 0 && g.waiters.Load() != nil {
		// As Counter.Add: whoever brings pending to zero swaps the
		// waiter list after it, so a waiter that saw pending tasks
		// before registering cannot be missed.
		for n := g.waiters.Swap(nil); n != nil; n = n.next {
			n.signal()
		}
	}
}

// IsSet reports whether no task of g is pending.
func (g *Group) IsSet() bool { return g.n.Load()>>1 == 0 }

func (g *Group) addWaiter(n *waiter) bool {
	for {
		old := g.waiters.Load()
		n.next = old
		if g.waiters.CompareAndSwap(old, n) {
			return true
		}
	}
}

// Wait returns once every task of g has finished (G4): it runs inline
// the tasks that keep reports as g's (keep must report true only for
// them) from the bottom of w's deque, then waits for those other workers
// took. It must be called by the goroutine holding w.
func (g *Group) Wait(w *Worker, keep func(r Runnable) bool) {
	w.takeBackUntil(g, keep)
	w.WaitFor(g)
}
