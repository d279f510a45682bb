package wsdeque

import (
	"fmt"
	"testing"
)

// An exhaustive check of the private steal's handshake (wsdeque.md, D3,
// D5, D5a, D8, H1-H2) on a model of the hardware it relies on: x86-TSO,
// where a plain store waits in its thread's store buffer while the
// thread's later loads go ahead, a locked instruction (every Go atomic
// store and CAS on amd64) drains the buffer first, and the thief's heavy
// barrier (membarrier) drains the owner's buffer at one instant while the
// thief waits in it. The owner and one thief run the steps of wsdeque.md
// on a tiny deque, and every interleaving of their steps and of the
// buffer's drains is explored (states are remembered, so each is
// explored once). Every item must end up taken exactly once or still in
// the deque. The same check without the barrier must find a double take:
// the handshake is what the barrier buys, and this test can tell.
//
// This models the protocol, not the code: the stress tests run the code
// (TestStressPrivateSteals), and the model test checks its sequential
// behaviour step for step.

const ilCap = 4 // slots

type ilMem struct {
	top, pub, bottom int
	slots            [ilCap]int8 // item ids, 0 for nil
}

// ilOwner is the owner's thread: its program (ops), where it is in it, its
// plain copies (bottomOwn: what it last stored to bottom; pubOwn) and its
// store buffer of plain stores, to bottom and to the slots (setSlot).
type ilOwner struct {
	op, pc       int8
	b, t         int
	bottomOwn    int
	pubOwn       int
	buf          [12]ilStore // plain stores waiting to reach memory, oldest first
	nbuf         int8
	next         int8 // the next item id to push
	taken, empty uint16
}

// ilThief is the thief's thread: one private steal (D8), then, in some
// scenarios, one D6.
type ilThief struct {
	op, pc int8
	t, p   int
	x      int8
	taken  uint16
}

// ilStore is a plain store in the owner's buffer: of v to slot, or to
// bottom when slot is -1.
type ilStore struct{ slot, v int8 }

type ilState struct {
	m ilMem
	o ilOwner
	h [2]ilThief
}

// Owner operations.
const (
	opPush = iota
	opPublish
	opPop
	opPopPrivate // the join's inlined pop: D3, undone and left to Pop when top >= b
)

type ilScenario struct {
	name   string
	owner  []int8
	thief  [2][]int8 // each thief's program: 0 for D8, 1 for D6
	pushes int
}

type ilChecker struct {
	sc       ilScenario
	barrier  bool
	noD5Low  bool // D5 without its store of bottom (a mutation the check must catch)
	lateSlot bool // D2 storing bottom before the slot (a mutation the check must catch)
	seen     map[ilState]bool
	fail     string
	states   int
}

func (c *ilChecker) flush(s *ilState) {
	for s.o.nbuf > 0 {
		c.drainOne(s)
	}
}

// drainOne makes the oldest buffered store reach memory.
func (c *ilChecker) drainOne(s *ilState) {
	if st := s.o.buf[0]; st.slot < 0 {
		s.m.bottom = int(st.v)
	} else {
		s.m.slots[st.slot] = st.v
	}
	copy(s.o.buf[:], s.o.buf[1:s.o.nbuf])
	s.o.nbuf--
	s.o.buf[s.o.nbuf] = ilStore{}
}

func (c *ilChecker) storeBottom(s *ilState, v int) {
	s.o.buf[s.o.nbuf] = ilStore{-1, int8(v)}
	s.o.nbuf++
	s.o.bottomOwn = v
}

// storeSlot is setSlot: a plain store, buffered like bottom's.
func (c *ilChecker) storeSlot(s *ilState, i int, v int8) {
	s.o.buf[s.o.nbuf] = ilStore{int8(i % ilCap), v}
	s.o.nbuf++
}

// takeByTop takes the item at index o.b, just claimed by the top, and
// moves it to the next slot, clearing its own: plain stores (setSlot).
func (c *ilChecker) takeByTop(s *ilState) {
	b := s.o.b
	x := c.ownerSlot(s, b)
	c.ownerTake(s, x)
	if c.ownerSlot(s, b+1) != x {
		c.storeSlot(s, b+1, x)
	}
	c.storeSlot(s, b, 0)
}

// ownerSlot is the owner's load of slot i: its own newest buffered store
// to it if any (store forwarding), else memory.
func (c *ilChecker) ownerSlot(s *ilState, i int) int8 {
	for k := s.o.nbuf - 1; k >= 0; k-- {
		if st := s.o.buf[k]; st.slot == int8(i%ilCap) {
			return st.v
		}
	}
	return s.m.slots[i%ilCap]
}

func (c *ilChecker) ownerTake(s *ilState, x int8) {
	if x == 0 {
		c.fail = "owner took a nil item"
		return
	}
	bit := uint16(1) << x
	if s.o.taken&bit != 0 || (s.h[0].taken|s.h[1].taken)&bit != 0 {
		c.fail = fmt.Sprintf("item %d taken twice (by the owner)", x)
	}
	s.o.taken |= bit
}

func (c *ilChecker) thiefTake(s *ilState, i int, x int8) {
	if x == 0 {
		c.fail = "thief took a nil item"
		return
	}
	bit := uint16(1) << x
	if s.o.taken&bit != 0 || (s.h[0].taken|s.h[1].taken)&bit != 0 {
		c.fail = fmt.Sprintf("item %d taken twice (by thief %d)", x, i+1)
	}
	s.h[i].taken |= bit
}

func (c *ilChecker) ownerDone(s *ilState) { s.o.op++; s.o.pc = 0 }

// ownerStep runs one step of the owner's current operation. It reports
// false when the owner has finished its program.
func (c *ilChecker) ownerStep(s *ilState) bool {
	if int(s.o.op) >= len(c.sc.owner) {
		return false
	}
	o, m := &s.o, &s.m
	switch c.sc.owner[o.op] {
	case opPush:
		switch o.pc {
		case 0: // D2: the slot, a plain store (setSlot)
			o.next++
			if c.lateSlot {
				c.storeBottom(s, o.bottomOwn+1)
			} else {
				c.storeSlot(s, o.bottomOwn, o.next)
			}
			o.pc = 1
		case 1: // then bottom, a plain store
			if c.lateSlot {
				c.storeSlot(s, o.bottomOwn-1, o.next)
			} else {
				c.storeBottom(s, o.bottomOwn+1)
			}
			c.ownerDone(s)
		}
	case opPublish: // D4: pub = bottom, sequentially consistent
		if o.bottomOwn != o.pubOwn {
			c.flush(s)
			o.pubOwn = o.bottomOwn
			m.pub = o.pubOwn
		}
		c.ownerDone(s)
	case opPop, opPopPrivate:
		c.popStep(s)
	}
	return true
}

func (c *ilChecker) popStep(s *ilState) {
	o, m := &s.o, &s.m
	private := c.sc.owner[o.op] == opPopPrivate
	switch o.pc {
	case 0:
		o.b = o.bottomOwn - 1
		switch {
		case o.b >= o.pubOwn:
			o.pc = 10 // D3
		case private:
			c.ownerDone(s) // PopPrivate: published, left to Pop (not modelled further)
		default:
			o.pc = 20 // D5a
		}
	// D3.
	case 10:
		c.storeBottom(s, o.b)
		o.pc = 11
	case 11:
		o.t = m.top // a plain load: ahead of the buffered store
		switch {
		case o.t < o.b:
			c.ownerTake(s, c.ownerSlot(s, o.b))
			c.ownerDone(s)
		case private:
			o.pc = 19 // undo
		default:
			o.pc = 12 // popLast
		}
	case 19: // PopPrivate's undo: bottom back to b+1, as if the pop had not begun
		c.storeBottom(s, o.b+1)
		c.ownerDone(s)
	case 12: // popLast: reload top
		o.t = m.top
		if o.t == o.b {
			o.pc = 13
		} else {
			o.pc = 14
		}
	case 13: // CAS(top, b, b+1): locked, drains the buffer
		c.flush(s)
		if m.top == o.b {
			m.top = o.b + 1
			c.takeByTop(s)
		}
		o.pc = 14
	case 14:
		c.storeBottom(s, o.b+1)
		o.pc = 15
	case 15:
		if o.pubOwn != o.b+1 {
			c.flush(s)
			o.pubOwn = o.b + 1
			m.pub = o.b + 1
		}
		c.ownerDone(s)
	// D5a.
	case 20:
		o.t = m.top
		switch {
		case o.t == o.b:
			o.pc = 21
		case o.t > o.b:
			o.empty++
			c.ownerDone(s)
		default:
			o.pc = 22 // D5
		}
	case 21:
		c.flush(s)
		if m.top == o.b {
			m.top = o.b + 1
			c.takeByTop(s)
		}
		c.ownerDone(s)
	// D5: bottom and pub come down before the load of top.
	case 22:
		o.pubOwn = o.b
		if !c.noD5Low {
			c.storeBottom(s, o.b)
		}
		o.pc = 23
	case 23:
		c.flush(s)
		m.pub = o.b
		o.pc = 24
	case 24:
		o.t = m.top
		switch {
		case o.t > o.b:
			o.pc = 25
		case o.t < o.b:
			c.ownerTake(s, c.ownerSlot(s, o.b))
			c.ownerDone(s)
		default:
			o.pc = 27
		}
	case 25: // empty: undo
		o.pubOwn = o.b + 1
		c.storeBottom(s, o.b+1)
		o.pc = 26
	case 26:
		c.flush(s)
		m.pub = o.b + 1
		c.ownerDone(s)
	case 27:
		c.flush(s)
		if m.top == o.b {
			m.top = o.b + 1
			c.ownerTake(s, c.ownerSlot(s, o.b))
		}
		o.pc = 28
	case 28:
		c.storeBottom(s, o.b+1)
		o.pubOwn = o.b + 1
		o.pc = 29
	case 29:
		c.flush(s)
		m.pub = o.b + 1
		c.ownerDone(s)
	}
}

// thiefStep runs one step of the thief's current operation. It reports
// false when the thief has finished.
func (c *ilChecker) thiefStep(s *ilState, i int) bool {
	h, m := &s.h[i], &s.m
	prog := c.sc.thief[i]
	if int(h.op) >= len(prog) {
		return false
	}
	done := func() { h.op++; h.pc = 0 }
	switch {
	case prog[h.op] == 1 && h.pc < 10: // D6
		switch h.pc {
		case 0:
			h.t = m.top
			h.pc = 1
		case 1:
			h.p = m.pub
			if h.t >= h.p {
				done()
			} else {
				h.pc = 10
			}
		}
	default: // D8 (and D6's claim, from pc 10)
		switch h.pc {
		case 0: // step 1: top before the barrier
			h.t = m.top
			h.pc = 1
		case 1:
			h.p = m.pub
			if h.t < h.p {
				h.pc = 10 // published: D6
			} else {
				h.pc = 2
			}
		case 2: // the hint
			if m.bottom <= h.t {
				done()
			} else {
				h.pc = 3
			}
		case 3: // H1: the owner's buffer drains at one instant
			if c.barrier {
				c.flush(s)
			}
			h.pc = 4
		case 4:
			h.p = m.pub
			if h.t < h.p {
				h.pc = 10
			} else {
				h.pc = 5
			}
		case 5:
			if m.bottom <= h.t {
				done()
			} else {
				h.pc = 10
			}
		case 10:
			h.x = m.slots[h.t%ilCap]
			h.pc = 11
		case 11: // CAS(top, t, t+1)
			if m.top == h.t {
				m.top = h.t + 1
				c.thiefTake(s, i, h.x)
			}
			done()
		}
	}
	return true
}

// explore visits every state reachable from s.
func (c *ilChecker) explore(s ilState) {
	if c.fail != "" || c.seen[s] {
		return
	}
	c.seen[s] = true
	c.states++
	moved := false
	if t := s; c.ownerStep(&t) {
		moved = true
		c.explore(t)
	}
	for i := range s.h {
		if t := s; c.thiefStep(&t, i) {
			moved = true
			c.explore(t)
		}
	}
	if s.o.nbuf > 0 { // the oldest buffered store reaches memory
		t := s
		c.drainOne(&t)
		moved = true
		c.explore(t)
	}
	if !moved {
		c.final(s)
	}
}

// final checks a state where both threads have finished and the buffer
// has drained: every item pushed is taken once or still in the deque.
func (c *ilChecker) final(s ilState) {
	if c.fail != "" {
		return
	}
	left := uint16(0)
	for i := s.m.top; i < s.m.bottom; i++ {
		left |= 1 << s.m.slots[i%ilCap]
	}
	all := uint16(0)
	for x := 1; x <= c.sc.pushes; x++ {
		all |= 1 << x
	}
	taken := s.o.taken | s.h[0].taken | s.h[1].taken
	if taken&left != 0 {
		c.fail = fmt.Sprintf("an item both taken and still in the deque (taken %b, left %b)", taken, left)
	} else if taken|left != all {
		c.fail = fmt.Sprintf("items lost: taken %b, left %b, pushed %b", taken, left, all)
	}
}

var ilScenarios = []ilScenario{
	{"two private, two pops", []int8{opPush, opPush, opPop, opPop}, [2][]int8{{0, 0}}, 2},
	{"two private, PopPrivate then Pop", []int8{opPush, opPush, opPopPrivate, opPop, opPop}, [2][]int8{{0}}, 2},
	{"one published, one private", []int8{opPush, opPublish, opPush, opPop, opPop}, [2][]int8{{0, 1}}, 2},
	{"pop, push again, pop", []int8{opPush, opPush, opPop, opPush, opPop, opPop}, [2][]int8{{0, 0}}, 3},
	{"publish between pops", []int8{opPush, opPush, opPop, opPublish, opPop}, [2][]int8{{0, 1}}, 2},
	{"three private", []int8{opPush, opPush, opPush, opPop, opPop, opPop}, [2][]int8{{0, 0}}, 3},
	// Two thieves: one moves top while the other is in D8 and the owner
	// pops published items (D5 lowers bottom with pub for that thief).
	{"two thieves, three published", []int8{opPush, opPush, opPush, opPublish, opPop, opPop, opPop}, [2][]int8{{0}, {1}}, 3},
	{"two thieves, published and private", []int8{opPush, opPush, opPublish, opPush, opPop, opPop, opPop}, [2][]int8{{0}, {0}}, 3},
	{"two thieves, publish late", []int8{opPush, opPush, opPush, opPop, opPublish, opPop, opPop}, [2][]int8{{0}, {1}}, 3},
}

func TestInterleavingsOfPrivateSteals(t *testing.T) {
	for _, sc := range ilScenarios {
		t.Run(sc.name, func(t *testing.T) {
			c := &ilChecker{sc: sc, barrier: true, seen: map[ilState]bool{}}
			c.explore(ilState{})
			t.Logf("%d states", c.states)
			if c.fail != "" {
				t.Fatalf("%s: %s", sc.name, c.fail)
			}
		})
	}
	// Each of these mutations of the protocol must make some scenario
	// fail, or the model no longer checks what it claims to.
	for _, m := range []struct {
		what, checks string
		mutate       func(*ilChecker)
	}{
		// The handshake is what the barrier buys.
		{"without the heavy barrier", "the handshake", func(c *ilChecker) { c.barrier = false }},
		// D5 must lower bottom with pub: a D8 thief that loaded pub
		// before D5's store looks at bottom (wsdeque.md, D5).
		{"with D5 leaving bottom alone", "D5 against D8", func(c *ilChecker) { c.noD5Low = true }},
		// D2 must store the slot before bottom: the slots are plain
		// stores (setSlot), ordered for a D8 thief only by program order.
		{"with D2 storing bottom before the slot", "the slot's order", func(c *ilChecker) { c.lateSlot = true }},
	} {
		found := false
		for _, sc := range ilScenarios {
			c := &ilChecker{sc: sc, barrier: true, seen: map[ilState]bool{}}
			m.mutate(c)
			c.explore(ilState{})
			if c.fail != "" {
				t.Logf("%s, %q: %s", m.what, sc.name, c.fail)
				found = true
			}
		}
		if !found {
			t.Errorf("%s no interleaving failed: the model no longer checks %s", m.what, m.checks)
		}
	}
}
