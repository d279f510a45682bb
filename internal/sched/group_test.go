package sched

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin/fj/internal/fjtest"
)

// groupModel is the sequential reference for a Group's word and waiter
// list (G1-G3): the tasks pending, whether the opener has not closed it
// yet, whether it was canceled, and the waiter nodes registered since
// pending last reached 0, newest first (the real list's order).
type groupModel struct {
	pending  int
	open     bool
	canceled bool
	list     []*latchNode
	nodes    []*latchNode
}

// word is what G1 says n holds.
func (m *groupModel) word() int64 {
	n := 2*int64(m.pending) + b2i(m.open)
	if m.canceled {
		n |= canceledBit
	}
	return n
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// reached0 is G3: a change that leaves pending at 0 wakes the waiters
// registered so far (each node the setter wins, once).
func (m *groupModel) reached0() {
	if m.pending != 0 {
		return
	}
	for _, ln := range m.list {
		if !ln.self {
			ln.setter = true
		}
	}
	m.list = nil
}

// groupChecker drives a Group and its model in lock step.
type groupChecker struct {
	t     testing.TB
	desc  string
	g     Group
	m     groupModel
	step  int
	log   []string
	owner *groupOwner
}

func newGroupChecker(t testing.TB, desc string) *groupChecker {
	c := &groupChecker{t: t, desc: desc, owner: &groupOwner{}}
	c.g.Open(c.owner)
	c.m.open = true
	return c
}

func (c *groupChecker) fail(format string, args ...any) {
	c.t.Helper()
	c.t.Fatalf("%s, step %d (%v): %s", c.desc, c.step, c.log, fmt.Sprintf(format, args...))
}

func (c *groupChecker) note(op string) {
	c.step++
	c.log = append(c.log, op)
	if len(c.log) > 12 {
		c.log = c.log[1:]
	}
}

// add is G2: refused exactly when n (less the canceled bit) is 0, that is
// once the opener has closed the group and every task has finished.
// Canceling does not refuse it (Go checks Canceled itself).
func (c *groupChecker) add() {
	c.note("add")
	ok := c.g.add()
	if want := c.m.pending > 0 || c.m.open; ok != want {
		c.fail("add = %v, want %v (pending %d, open %v, canceled %v)", ok, want, c.m.pending, c.m.open, c.m.canceled)
	}
	if ok {
		c.m.pending++
	}
}

// done is G3, for a task the model counts as pending (a done without one
// is a misuse, tested by TestGroupBelowZeroPanics).
func (c *groupChecker) done() {
	if c.m.pending == 0 {
		return
	}
	c.note("done")
	c.m.pending--
	c.m.reached0()
	c.g.done()
}

func (c *groupChecker) close() {
	if !c.m.open {
		return // Close is the opener's last word: once
	}
	c.note("close")
	c.m.open = false
	c.m.reached0()
	c.g.Close()
}

func (c *groupChecker) cancel() {
	c.note("cancel")
	c.m.canceled = true
	c.g.Cancel()
}

// register is the first half of WaitFor on the group (C1): a Group never
// refuses a node; its waiter re-checks IsSet after pushing it.
func (c *groupChecker) register() {
	c.note("register")
	ln := &latchNode{wk: newCountWaker()}
	ln.n = &waiter{w: ln.wk}
	if !c.g.addWaiter(ln.n) {
		c.fail("a Group refused a waiter")
	}
	c.m.list = append([]*latchNode{ln}, c.m.list...)
	c.m.nodes = append(c.m.nodes, ln)
}

// cancelWait is the waiter's claim of its own node after its re-check
// (C3): it wins unless pending reached 0 meanwhile and the setter won it.
func (c *groupChecker) cancelWait(k int) {
	if len(c.m.nodes) == 0 {
		return
	}
	c.note(fmt.Sprintf("cancelWait %d", k))
	ln := c.m.nodes[k%len(c.m.nodes)]
	won := ln.n.claim()
	if want := !ln.setter && !ln.self; won != want {
		c.fail("the waiter's claim = %v, want %v", won, want)
	}
	if won {
		ln.self = true
	}
}

// reopen is Open on an ended group whose waiters have all returned (a
// group reused): n is 1 again, canceled cleared. Nodes registered after
// pending last reached 0 stay listed (their waiters cancelled them), and
// the next time it does the setter finds them claimed and wakes nobody.
func (c *groupChecker) reopen() {
	if c.m.pending != 0 || c.m.open {
		return
	}
	for _, ln := range c.m.list {
		if !ln.self {
			return // its waiter has not returned yet
		}
	}
	c.note("reopen")
	c.m.open, c.m.canceled = true, false
	c.g.Open(c.owner)
}

// check compares n bit for bit with G1's formula, IsSet, Canceled, the
// waiter list node by node, and every node's wake-ups.
func (c *groupChecker) check() {
	c.t.Helper()
	if got, want := c.g.n.Load(), c.m.word(); got != want {
		c.fail("n = %#x, want %#x (pending %d, open %v, canceled %v)", got, want, c.m.pending, c.m.open, c.m.canceled)
	}
	if got := c.g.IsSet(); got != (c.m.pending == 0) {
		c.fail("IsSet = %v with %d pending", got, c.m.pending)
	}
	if got := c.g.Canceled(); got != c.m.canceled {
		c.fail("Canceled = %v, model %v", got, c.m.canceled)
	}
	i := 0
	for n := c.g.waiters.Load(); n != nil; n = n.next {
		if i >= len(c.m.list) || n != c.m.list[i].n {
			c.fail("waiter %d is not the model's (model has %d)", i, len(c.m.list))
		}
		i++
	}
	if i != len(c.m.list) {
		c.fail("%d waiters listed, model %d", i, len(c.m.list))
	}
	for k, ln := range c.m.nodes {
		if got, want := ln.wk.n.Load(), int32(b2i(ln.setter)); got != want {
			c.fail("waiter %d woken %d times, want %d", k, got, want)
		}
	}
}

// Operation codes for FuzzGroup: the low three bits of a byte, the rest
// an argument (which node cancelWait names).
const (
	gzAdd = iota
	gzDone
	gzClose
	gzCancel
	gzRegister
	gzCancelWait
	gzReopen
	gzAddDone // add, then done at once (a task that ran to its end)
)

func (c *groupChecker) apply(b byte) {
	switch b & 7 {
	case gzAdd:
		c.add()
	case gzDone:
		c.done()
	case gzClose:
		c.close()
	case gzCancel:
		c.cancel()
	case gzRegister:
		c.register()
	case gzCancelWait:
		c.cancelWait(int(b >> 3))
	case gzReopen:
		c.reopen()
	case gzAddDone:
		c.add()
		c.done()
	}
	c.check()
}

// finish ends the sequence as a block does: Close, then every pending
// task's done. A waiter still listed then registered after pending last
// reached 0: its re-check (C1) sees the group set and wins its own node.
// Every waiter is then woken once or cancelled, and a further add is
// refused.
func (c *groupChecker) finish() {
	c.t.Helper()
	c.close()
	c.check()
	for c.m.pending > 0 {
		c.done()
		c.check()
	}
	for _, ln := range c.m.list {
		if !ln.self {
			if !c.g.IsSet() || !ln.n.claim() {
				c.fail("a waiter listed on an ended group: its re-check sees IsSet %v, or lost its own node", c.g.IsSet())
			}
			ln.self = true
		}
	}
	for k, ln := range c.m.nodes {
		if !ln.setter && !ln.self {
			c.fail("waiter %d lost: neither woken nor cancelled", k)
		}
	}
	if c.g.add() {
		c.fail("add accepted by an ended group")
	}
}

// TestGroupMatchesModel drives a Group and groupModel with random
// sequences of add, done, Close, Cancel, waiter registrations and
// cancellations, and reopening.
func TestGroupMatchesModel(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	seeds := fjtest.Small(2000, 200)
	if fjtest.Long() {
		seeds *= 20
	}
	for seed := range seeds {
		r := rand.New(rand.NewPCG(uint64(seed), 0x6a0))
		c := newGroupChecker(t, fmt.Sprintf("seed %d", seed))
		for range 1 + r.IntN(80) {
			var b byte
			switch x := r.IntN(20); {
			case x < 6:
				b = gzAdd
			case x < 11:
				b = gzDone
			case x < 12:
				b = gzClose
			case x < 13:
				b = gzCancel
			case x < 16:
				b = gzRegister
			case x < 18:
				b = gzCancelWait | byte(r.IntN(32))<<3
			case x < 19:
				b = gzReopen
			default:
				b = gzAddDone
			}
			c.apply(b)
		}
		c.finish()
	}
}

// FuzzGroup interprets its input as group operations (see gzAdd and
// after), applies them to a Group and to groupModel, and fails at the
// first difference in n, IsSet, Canceled, the waiter list or a waiter's
// wake-ups; then it ends the group and checks no waiter was lost.
func FuzzGroup(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{gzAdd, gzRegister, gzClose, gzDone, gzAdd})
	f.Add([]byte{gzAdd, gzAdd, gzCancel, gzRegister, gzDone, gzClose, gzDone, gzReopen, gzAddDone})
	f.Add([]byte{gzRegister, gzAdd, gzRegister, gzCancelWait | 1<<3, gzDone, gzCancelWait})
	f.Add([]byte{gzAdd, gzClose, gzAdd, gzDone, gzRegister, gzDone, gzAdd, gzReopen})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 256 {
			data = data[:256]
		}
		c := newGroupChecker(t, "fuzz")
		for _, b := range data {
			c.apply(b)
		}
		c.finish()
	})
}

// TestGroupSemantics walks G1-G3 by hand: IsSet ignores the opener's
// unit (a body's Wait before Close waits for the tasks so far), add is
// refused once n is 0 and only then, Cancel leaves the counts alone, and
// waiters are woken exactly when pending reaches 0.
func TestGroupSemantics(t *testing.T) {
	var g Group
	g.Open(&groupOwner{})
	if !g.IsSet() || g.Canceled() {
		t.Fatalf("opened: IsSet %v Canceled %v, want true false", g.IsSet(), g.Canceled())
	}
	for range 2 {
		if !g.add() {
			t.Fatal("an open group refused add")
		}
	}
	if g.IsSet() {
		t.Fatal("a group reports set with two tasks pending")
	}
	a := newCountWaker()
	g.addWaiter(&waiter{w: a})
	g.done()
	if a.n.Load() != 0 || g.IsSet() {
		t.Fatalf("one of two tasks done: waiter woken %d times, IsSet %v; want 0, false", a.n.Load(), g.IsSet())
	}
	g.Cancel()
	if got := g.n.Load(); got != canceledBit|3 {
		t.Fatalf("canceled with one task and the opener: n = %#x, want %#x", got, int64(canceledBit|3))
	}
	g.done() // pending reaches 0 while the group is open: a body's Wait returns
	if a.n.Load() != 1 || !g.IsSet() {
		t.Fatalf("last task done, group open: waiter woken %d times, IsSet %v; want 1, true", a.n.Load(), g.IsSet())
	}
	if !g.add() { // the opener forks again, canceled or not (Go checks Canceled)
		t.Fatal("add refused while the opener has not closed the group")
	}
	b := newCountWaker()
	g.addWaiter(&waiter{w: b})
	g.Close()
	if b.n.Load() != 0 || g.IsSet() {
		t.Fatalf("closed with a task pending: waiter woken %d times, IsSet %v; want 0, false", b.n.Load(), g.IsSet())
	}
	if !g.add() { // a running task of the group forks (G2)
		t.Fatal("add refused while a task of the group is pending")
	}
	g.done()
	if b.n.Load() != 0 {
		t.Fatal("waiter woken with a task still pending")
	}
	g.done()
	if b.n.Load() != 1 || a.n.Load() != 1 {
		t.Fatalf("ended: waiters woken %d and %d times, want 1 and 1", a.n.Load(), b.n.Load())
	}
	if got := g.n.Load(); got != canceledBit {
		t.Fatalf("ended: n = %#x, want only the canceled bit", got)
	}
	for range 2 { // a refused add changes nothing: refused again
		if g.add() {
			t.Fatal("add accepted by an ended group (G2)")
		}
	}
	if g.waiters.Load() != nil {
		t.Fatal("waiters still listed after the end")
	}
}

// TestGroupBelowZeroPanics: a done or a Close more than G1 counts is a
// bug in the caller, and panics, canceled or not.
func TestGroupBelowZeroPanics(t *testing.T) {
	for _, canceled := range []bool{false, true} {
		for _, extra := range []string{"done", "Close"} {
			var g Group
			g.Open(&groupOwner{})
			if canceled {
				g.Cancel()
			}
			g.Close()
			r := fjtest.Catch(func() {
				if extra == "done" {
					g.done()
				} else {
					g.Close()
				}
			})
			if msg := fjtest.PanicMessage(r); !strings.Contains(msg, "below zero") {
				t.Errorf("canceled=%v: an extra %s on an ended group: panic %#v, want one about going below zero", canceled, extra, r)
			}
		}
	}
}

// groupOwner records the failures reported to it (GroupOwner).
type groupOwner struct {
	mu     sync.Mutex
	panics []*Panic
	errs   []error
}

func (o *groupOwner) Failed(p *Panic, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if p != nil {
		o.panics = append(o.panics, p)
	}
	if err != nil {
		o.errs = append(o.errs, err)
	}
}

// TestGroupWaitRunsOwnTasksInline: on a one-worker pool, the opener's
// Wait takes its group's tasks back from the bottom of its deque, newest
// first, and runs them on its own goroutine without parking (G4), leaving
// another group's task below them where it is; that group's Wait then
// runs it.
func TestGroupWaitRunsOwnTasksInline(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := New(Config{Workers: 1, DequeCapacity: 64, Name: "group-inline"})
	defer p.Close()
	const k = 10
	var order []int
	var otherRan, wrongG int
	var parks uint64
	p.Run(func(w *Worker) {
		me := Goid()
		var g, other Group
		g.Open(&groupOwner{})
		other.Open(&groupOwner{})
		if !Go(&other, w, func(*Worker) { otherRan++ }, nil) {
			t.Error("Go into an open group refused")
		}
		for i := range k {
			if !Go(&g, w, func(*Worker) {
				if Goid() != me {
					wrongG++
				}
				order = append(order, i)
			}, nil) {
				t.Error("Go into an open group refused")
			}
		}
		g.Close()
		before := w.counts[countParks]
		g.Wait(w)
		parks = w.counts[countParks] - before
		if !g.IsSet() || otherRan != 0 {
			t.Errorf("after g.Wait: IsSet %v, the other group's task ran %d times; want true, 0", g.IsSet(), otherRan)
		}
		if Go(&g, w, func(*Worker) { t.Error("a task of an ended group ran") }, nil) {
			t.Error("Go into an ended group accepted (G2)")
		}
		other.Close()
		other.Wait(w)
		if otherRan != 1 {
			t.Errorf("the other group's task ran %d times, want 1", otherRan)
		}
	})
	if parks != 0 || wrongG != 0 {
		t.Errorf("Wait parked %d times, and %d tasks ran off the opener's goroutine; want 0, 0", parks, wrongG)
	}
	if len(order) != k {
		t.Fatalf("%d of %d tasks ran", len(order), k)
	}
	for j, i := range order {
		if i != k-1-j {
			t.Fatalf("tasks ran in order %v, want newest first (taken back from the bottom)", order)
		}
	}
}

// TestGroupFailureCancels: a task that panics or returns an error is
// reported to the owner, cancels the group, and the group's tasks that
// have not started are skipped, still counted finished; Go into a
// canceled group forks nothing and reports true.
func TestGroupFailureCancels(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := New(Config{Workers: 1, DequeCapacity: 64, Name: "group-fail"})
	defer p.Close()
	for _, mode := range []string{"panic", "error"} {
		o := &groupOwner{}
		var ran atomic.Int32
		boom := errors.New("boom")
		p.Run(func(w *Worker) {
			var g Group
			g.Open(o)
			for range 3 {
				Go(&g, w, func(*Worker) { ran.Add(1) }, nil) // runs after the failing one: skipped
			}
			if mode == "panic" {
				Go(&g, w, func(*Worker) { panic("boom") }, nil)
			} else {
				Go(&g, w, nil, func(*Worker) error { return boom })
			}
			g.Close()
			g.Wait(w)
			if !g.Canceled() || !g.IsSet() {
				t.Errorf("%s: Canceled %v IsSet %v, want true true", mode, g.Canceled(), g.IsSet())
			}
			if got := g.n.Load(); got != canceledBit {
				t.Errorf("%s: ended canceled group: n = %#x, want only the canceled bit", mode, got)
			}
		})
		if ran.Load() != 0 {
			t.Errorf("%s: %d tasks ran after the group was canceled, want 0", mode, ran.Load())
		}
		if mode == "panic" && (len(o.panics) != 1 || len(o.errs) != 0) {
			t.Errorf("panic: owner told %d panics, %d errors; want 1, 0", len(o.panics), len(o.errs))
		}
		if mode == "error" && (len(o.errs) != 1 || o.errs[0] != boom || len(o.panics) != 0) {
			t.Errorf("error: owner told %v and %d panics; want [boom], 0", o.errs, len(o.panics))
		}
	}
	p.Run(func(w *Worker) {
		var g Group
		g.Open(&groupOwner{})
		g.Cancel()
		if !Go(&g, w, func(*Worker) { t.Error("a task forked into a canceled group ran") }, nil) {
			t.Error("Go into a canceled, open group reported false")
		}
		if got := g.n.Load(); got != canceledBit|1 {
			t.Errorf("Go into a canceled group counted a task: n = %#x", got)
		}
		g.Close()
		g.Wait(w)
	})
}

// TestGroupStressForkingTasks: the opener and the group's own tasks fork
// into it recursively (a binary tree), on several workers, round after
// round. Every fork is accepted (its forker is counted, G2), Wait returns
// only after every task has finished, no task is still running or starts
// after it returned, and the ended group refuses further forks.
func TestGroupStressForkingTasks(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	workers := 4
	p := New(Config{Workers: workers, DequeCapacity: 32, Name: "group-stress"})
	defer p.Close()
	rounds, depth := fjtest.Small(200, 30), 7
	if fjtest.Long() {
		rounds, depth = rounds*10, 10
	}
	want := int64(1)<<(depth+1) - 2 // every node of the tree but its root, the opener
	var onWorker [4]atomic.Int64
	for round := range rounds {
		var g Group
		var ran, refused, late atomic.Int64
		var ended atomic.Bool
		var fork func(w *Worker, d int)
		fork = func(w *Worker, d int) {
			if d == depth {
				return
			}
			for range 2 {
				ok := Go(&g, w, func(w *Worker) {
					onWorker[w.id%len(onWorker)].Add(1)
					fork(w, d+1)
					if ended.Load() {
						late.Add(1) // still running after Wait returned
					}
					ran.Add(1)
				}, nil)
				if !ok {
					refused.Add(1)
				}
			}
		}
		p.Run(func(w *Worker) {
			g.Open(&groupOwner{})
			fork(w, 0)
			if round%2 == 0 {
				g.Wait(w) // a body's Wait before Close: the tasks so far
				if ran.Load() != want {
					t.Errorf("round %d: Wait before Close returned with %d of %d tasks finished", round, ran.Load(), want)
				}
				fork(w, depth-1) // two more, after the open Wait
				ran.Add(-2)
			}
			g.Close()
			g.Wait(w)
			ended.Store(true)
			if got := ran.Load(); got != want {
				t.Errorf("round %d: Wait returned with %d of %d tasks finished", round, got, want)
			}
			if Go(&g, w, func(*Worker) { late.Add(1) }, nil) {
				t.Errorf("round %d: Go into the ended group accepted", round)
			}
		})
		if refused.Load() != 0 || late.Load() != 0 || g.n.Load() != 0 {
			t.Fatalf("round %d: %d legal forks refused, %d tasks ran after Wait returned, n = %#x; want 0, 0, 0",
				round, refused.Load(), late.Load(), g.n.Load())
		}
	}
	var per []int64
	for i := range onWorker[:workers] {
		per = append(per, onWorker[i].Load())
	}
	t.Logf("tasks run per worker: %v", per)
}

// TestGroupLocalCounts walks G5 and G7 by hand: home's forks are counted in
// local, a local task that finishes elsewhere in stolen, another worker's
// forks in n; the opener's addWaiter merges them so that n wakes it, and
// from then on everything goes through n. Only a group whose tasks all
// finished at home, with nobody waiting, may serve again.
func TestGroupLocalCounts(t *testing.T) {
	home, other := &Worker{}, &Worker{}
	var g Group
	g.OpenOn(&groupOwner{}, home)
	for range 3 {
		if ok, local := g.AddOn(home); !ok || !local {
			t.Fatalf("a fork by home: AddOn = %v, %v, want true, true", ok, local)
		}
	}
	if g.n.Load() != 1 || g.local != 3 || g.IsSet() {
		t.Fatalf("three forks by home: n = %d, local = %d, IsSet %v; want 1, 3, false", g.n.Load(), g.local, g.IsSet())
	}
	g.finish(home, true)
	g.finish(other, true) // stolen
	if g.stolen.Load() != 1 || g.local != 2 || g.IsSet() {
		t.Fatalf("one done at home, one elsewhere: stolen %d, local %d, IsSet %v; want 1, 2, false", g.stolen.Load(), g.local, g.IsSet())
	}
	if ok, local := g.AddOn(other); !ok || local || g.n.Load() != 3 {
		t.Fatalf("a fork by another worker: AddOn = %v, %v, n = %d; want true, false, 3", ok, local, g.n.Load())
	}
	a := newCountWaker()
	g.addWaiter(&waiter{w: a}) // merges: n counts the local task left and the other's
	if g.n.Load() != 5 || g.local != 0 || g.stolen.Load() != mergedBit {
		t.Fatalf("merged: n = %d, local = %d, stolen = %#x; want 5, 0, mergedBit", g.n.Load(), g.local, g.stolen.Load())
	}
	if ok, local := g.AddOn(home); !ok || local || g.n.Load() != 7 {
		t.Fatalf("a fork by home after the merge: AddOn = %v, %v, n = %d; want true, false, 7", ok, local, g.n.Load())
	}
	g.finish(home, true)  // the local task, merged into n
	g.finish(home, false) // the fork after the merge
	if a.n.Load() != 0 || g.IsSet() {
		t.Fatalf("one task still pending: woken %d times, IsSet %v; want 0, false", a.n.Load(), g.IsSet())
	}
	g.finish(other, false) // the other worker's
	if a.n.Load() != 1 || !g.IsSet() {
		t.Fatalf("all done: woken %d times, IsSet %v; want 1, true", a.n.Load(), g.IsSet())
	}
	if g.Reusable() {
		t.Fatal("a group whose opener waited and whose task was stolen is reusable")
	}

	var h Group
	h.OpenOn(&groupOwner{}, home)
	for range 2 {
		h.AddOn(home)
	}
	h.finish(home, true)
	h.finish(home, true)
	if !h.IsSet() || !h.Reusable() {
		t.Fatalf("every task done at home: IsSet %v, Reusable %v; want true, true", h.IsSet(), h.Reusable())
	}
	h.AddOn(home)
	h.finish(other, true)
	if !h.IsSet() || h.Reusable() {
		t.Fatalf("a task done elsewhere: IsSet %v, Reusable %v; want true, false", h.IsSet(), h.Reusable())
	}
}
