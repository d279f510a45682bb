package sched

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin/fj/internal/fjtest"
)

// countWaker is a waker that counts its wake-ups and leaves a token on a
// channel of capacity 1, as chanWaker does.
type countWaker struct {
	n  atomic.Int32
	ch chan struct{}
}

func newCountWaker() *countWaker { return &countWaker{ch: make(chan struct{}, 1)} }

func (c *countWaker) wake() {
	c.n.Add(1)
	select {
	case c.ch <- struct{}{}:
	default:
	}
}

// latchNode is one registration the model knows of: the real node, and
// who won it (C3 in carrier.md: the setter, which wakes it, or the waiter,
// which cancels its wait).
type latchNode struct {
	n       *waiter
	wk      *countWaker
	setter  bool // the setter claimed and woke it
	self    bool // the waiter claimed it itself
	refused bool // addWaiter refused it: the latch was set
}

// latchModel is the sequential reference for a Latch: set or not, and the
// nodes registered on it since it was last set or reset, newest first
// (the order of the real list, which the model compares node by node).
type latchModel struct {
	set   bool
	list  []*latchNode // registered while unset, newest first
	nodes []*latchNode // every node ever made, for the final checks
}

// latchChecker drives a Latch and its model in lock step.
type latchChecker struct {
	t    testing.TB
	desc string
	l    Latch
	m    latchModel
	step int
	log  []string
}

func (c *latchChecker) fail(format string, args ...any) {
	c.t.Helper()
	c.t.Fatalf("%s, step %d (%v): %s", c.desc, c.step, c.log, fmt.Sprintf(format, args...))
}

func (c *latchChecker) note(op string) {
	c.step++
	c.log = append(c.log, op)
	if len(c.log) > 12 {
		c.log = c.log[1:]
	}
}

// register is a waiter's registration (C1): a fresh node, pushed unless
// the latch is set.
func (c *latchChecker) register() {
	c.note("register")
	ln := &latchNode{wk: newCountWaker()}
	ln.n = &waiter{w: ln.wk}
	ok := c.l.addWaiter(ln.n)
	if ok != !c.m.set {
		c.fail("addWaiter = %v on a latch whose model is set=%v", ok, c.m.set)
	}
	ln.refused = !ok
	if ok {
		c.m.list = append([]*latchNode{ln}, c.m.list...)
	}
	c.m.nodes = append(c.m.nodes, ln)
}

// cancel is a waiter's claim of its own node (WaitFor, after its re-check
// saw the latch set): it wins unless the setter claimed the node first.
func (c *latchChecker) cancel(k int) {
	c.note(fmt.Sprintf("cancel %d", k))
	if len(c.m.nodes) == 0 {
		return
	}
	ln := c.m.nodes[k%len(c.m.nodes)]
	if ln.refused {
		return // never registered: its waiter returned at once
	}
	won := ln.n.claim()
	if want := !ln.setter && !ln.self; won != want {
		c.fail("the waiter's claim = %v, want %v (setter won %v, waiter won %v)", won, want, ln.setter, ln.self)
	}
	if won {
		ln.self = true
	}
}

func (c *latchChecker) set() {
	c.note("set")
	for _, ln := range c.m.list {
		if !ln.self {
			ln.setter = true
		}
	}
	c.m.list = nil
	c.m.set = true
	c.l.Set()
}

// reset is only legal while nobody waits: on a set latch (its list went
// with the Set), or on an unset one nobody registered on.
func (c *latchChecker) reset() {
	if len(c.m.list) != 0 {
		return
	}
	c.note("reset")
	c.m.set = false
	c.l.rearm()
}

// check compares everything observable: IsSet, the real list node by node
// against the model's, and every node's wake count (exactly one wake-up
// for a node the setter won, none for the others).
func (c *latchChecker) check() {
	c.t.Helper()
	if got := c.l.IsSet(); got != c.m.set {
		c.fail("IsSet = %v, model %v", got, c.m.set)
	}
	head := c.l.head.Load()
	if c.m.set {
		if head != &latchSet {
			c.fail("a set latch's head is %p, not the sentinel", head)
		}
	} else {
		i := 0
		for n := head; n != nil; n = n.next {
			if n == &latchSet {
				c.fail("the sentinel inside an unset latch's list")
			}
			if i >= len(c.m.list) || n != c.m.list[i].n {
				c.fail("list node %d is not the model's (model has %d nodes)", i, len(c.m.list))
			}
			i++
		}
		if i != len(c.m.list) {
			c.fail("list has %d nodes, model %d", i, len(c.m.list))
		}
	}
	for k, ln := range c.m.nodes {
		want := int32(0)
		if ln.setter {
			want = 1
		}
		if got := ln.wk.n.Load(); got != want {
			c.fail("node %d woken %d times, want %d (setter won %v, waiter won %v)", k, got, want, ln.setter, ln.self)
		}
		if ln.setter && ln.self {
			c.fail("node %d won by both the setter and its waiter", k)
		}
		if (ln.setter || ln.self) != ln.n.claimed.Load() && !ln.refused {
			c.fail("node %d: claimed = %v, model setter %v waiter %v", k, ln.n.claimed.Load(), ln.setter, ln.self)
		}
	}
}

// done checks what holds at the end of any sequence: no node registered
// before the last Set was lost (each was woken once or cancelled), and
// those registered since are still on the list.
func (c *latchChecker) done() {
	c.t.Helper()
	c.check()
	for k, ln := range c.m.nodes {
		listed := false
		for _, x := range c.m.list {
			listed = listed || x == ln
		}
		if !ln.refused && !ln.setter && !ln.self && !listed {
			c.fail("node %d lost: registered, never woken nor cancelled, and not on the list", k)
		}
	}
}

// Operation codes for the latch model: the low three bits of a byte, the
// rest an argument (which node a cancel names).
const (
	lzRegister = iota
	lzRegister2
	lzCancel
	lzSet
	lzReset
	lzIsSet
	lzRegisterCancel // register, then cancel that node at once
	lzSetTwice
)

func (c *latchChecker) apply(b byte) {
	arg := int(b >> 3)
	switch b & 7 {
	case lzRegister, lzRegister2:
		c.register()
	case lzCancel:
		c.cancel(arg)
	case lzSet:
		c.set()
	case lzReset:
		c.reset()
	case lzIsSet:
		c.note("check")
	case lzRegisterCancel:
		c.register()
		c.cancel(len(c.m.nodes) - 1)
	case lzSetTwice:
		c.set()
		c.set()
	}
	c.check()
}

// TestLatchMatchesModel drives a Latch and latchModel with random
// operations: registrations before and after Set (refused once set),
// waiters cancelling their own nodes (C3), repeated Sets and resets.
func TestLatchMatchesModel(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	seeds := fjtest.Small(2000, 200)
	if fjtest.Long() {
		seeds *= 20
	}
	for seed := range seeds {
		r := rand.New(rand.NewPCG(uint64(seed), 0x1a7c))
		c := &latchChecker{t: t, desc: fmt.Sprintf("seed %d", seed)}
		for range 1 + r.IntN(80) {
			// Registrations and cancels are common, Set and reset rare,
			// so that lists grow before a Set takes them.
			var b byte
			switch x := r.IntN(16); {
			case x < 7:
				b = lzRegister
			case x < 10:
				b = lzCancel | byte(r.IntN(32))<<3
			case x < 12:
				b = lzRegisterCancel
			case x < 13:
				b = lzSet
			case x < 14:
				b = lzReset
			case x < 15:
				b = lzSetTwice
			default:
				b = lzIsSet
			}
			c.apply(b)
		}
		c.done()
	}
}

// FuzzLatch interprets its input as latch operations (see lzRegister and
// after), applies them to a Latch and to latchModel, and fails at the
// first difference in IsSet, in the waiter list, or in a node's wake-ups.
func FuzzLatch(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{lzSet, lzRegister, lzIsSet})
	f.Add([]byte{lzRegister, lzRegister, lzSet, lzRegister, lzReset, lzRegister, lzSet})
	f.Add([]byte{lzRegister, lzRegister, lzCancel | 1<<3, lzSet, lzCancel, lzCancel | 1<<3})
	f.Add([]byte{lzRegisterCancel, lzRegister, lzSetTwice, lzReset, lzRegister, lzCancel | 4<<3, lzSet})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 256 {
			data = data[:256]
		}
		c := &latchChecker{t: t, desc: "fuzz"}
		for _, b := range data {
			c.apply(b)
		}
		c.done()
	})
}

// latchWait is WaitFor's protocol (C1, C3) for a goroutine that blocks on
// a channel instead of parking a carrier: register, re-check, cancel if
// set and still ours, else wait for the setter's token. It reports how
// the wait ended.
func latchWait(l *Latch) (how int) {
	wk := newCountWaker()
	n := &waiter{w: wk}
	if !l.addWaiter(n) {
		return waitRefused
	}
	if l.IsSet() && n.claim() {
		return waitCancelled
	}
	<-wk.ch
	if c := wk.n.Load(); c != 1 {
		panic(fmt.Sprintf("a waiter's node was woken %d times", c))
	}
	return waitWoken
}

const (
	waitRefused   = iota // addWaiter saw the latch set
	waitCancelled        // registered, then saw it set and won its own node
	waitWoken            // the setter won the node and woke it
)

// TestLatchStressOneSetter starts many waiters and one setter at once,
// round after round on the same latch (reset between rounds, by its
// owner, once every waiter has returned): every waiter returns exactly
// once, after the latch was set, seeing what the setter wrote before
// Set; no waiter that registers concurrently with Set is lost (that would
// hang, and the deadline turns the hang into a failure with stacks).
func TestLatchStressOneSetter(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	rounds, waiters := fjtest.Small(300, 40), 16
	if fjtest.Long() {
		rounds *= 30
	}
	var l Latch
	var payload int // written before Set, read by every waiter after it
	var hows [3]int
	for round := range rounds {
		start := make(chan struct{})
		var wg sync.WaitGroup
		var bad atomic.Int32
		res := make([]int, waiters)
		for i := range waiters {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				if i%4 == 0 {
					runtime.Gosched()
				}
				res[i] = latchWait(&l)
				if !l.IsSet() || payload != round {
					bad.Add(1)
				}
			}()
		}
		wg.Add(1)
		go func() {
			defer wg.Done() // reset below needs the setter gone too
			<-start
			if round%2 == 0 {
				runtime.Gosched() // let some waiters register first
			}
			payload = round
			l.Set()
		}()
		close(start)
		wg.Wait()
		if n := bad.Load(); n != 0 {
			t.Fatalf("round %d: %d waiters returned before the latch was set, or without the setter's write", round, n)
		}
		for _, h := range res {
			hows[h]++
		}
		l.rearm() // every waiter has returned, and the setter with them
	}
	t.Logf("waits: %d refused, %d cancelled, %d woken", hows[waitRefused], hows[waitCancelled], hows[waitWoken])
}

// TestLatchStressWaitForInPool has tasks of a pool wait for a latch with
// WaitFor (spinning, then parking their carriers) while another task sets
// it, round after round: every waiting task resumes exactly once, after
// the Set.
func TestLatchStressWaitForInPool(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	p := New(Config{Workers: 4, DequeCapacity: 64, Name: "latch-stress"})
	defer p.Close()
	rounds, waiters := fjtest.Small(200, 30), 12
	if fjtest.Long() {
		rounds *= 20
	}
	for round := range rounds {
		var l Latch
		var left Counter
		var resumed, early atomic.Int32
		left.Add(int64(waiters) + 1)
		for i := range waiters {
			Submit(p, func(w *Worker) {
				if i == waiters/2 {
					l.Set() // one setter among the waiters
				} else {
					w.WaitFor(&l)
					if !l.IsSet() {
						early.Add(1)
					}
				}
				resumed.Add(1)
				left.Done()
			})
		}
		Submit(p, func(*Worker) { left.Done() })
		p.wait(&left)
		if early.Load() != 0 || resumed.Load() != int32(waiters) {
			t.Fatalf("round %d: %d tasks ended, %d of them before the latch was set; want %d, 0",
				round, resumed.Load(), early.Load(), waiters)
		}
	}
}
