package deque

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/forkjoin/fj/internal/fjtest"
)

// refDeque is the sequential reference model: a plain slice with the newest
// item at the end. Push and Pop work on the end, Steal on the front.
type refDeque struct {
	items []*int
	cap   int
}

// refCap is the capacity rule, written independently of New: capacity
// rounded up to a power of two, at least 1.
func refCap(capacity int) int {
	if capacity <= 1 {
		return 1
	}
	return 1 << bits.Len(uint(capacity-1))
}

func newRef(capacity int) *refDeque { return &refDeque{cap: refCap(capacity)} }

func (m *refDeque) push(x *int) bool {
	if len(m.items) == m.cap {
		return false
	}
	m.items = append(m.items, x)
	return true
}

func (m *refDeque) pop() *int {
	if len(m.items) == 0 {
		return nil
	}
	x := m.items[len(m.items)-1]
	m.items = m.items[:len(m.items)-1]
	return x
}

func (m *refDeque) steal() *int {
	if len(m.items) == 0 {
		return nil
	}
	x := m.items[0]
	m.items = m.items[1:]
	return x
}

// checked drives a Deque and a refDeque in lock step from one goroutine and
// fails the test at the first divergence in a return value or in Len.
type checked struct {
	t    testing.TB
	d    *Deque[int]
	m    *refDeque
	next int     // id of the next item to push
	ops  []opRec // ring of recent operations, for failure messages
	nops int     // operations so far

	fulls, empties int // Push calls that found the deque full, Pop/Steal calls that found it empty
}

// opRec records one operation for the failure message; it is formatted only
// when a test fails, so logging stays cheap.
type opRec struct {
	op  string
	arg *int // pushed or returned item
	ok  bool // Push result
}

func (r opRec) String() string {
	switch r.op {
	case "Push":
		return fmt.Sprintf("Push(%s)=%v", show(r.arg), r.ok)
	case "Len":
		return "Len()"
	}
	return fmt.Sprintf("%s()=%s", r.op, show(r.arg))
}

func newChecked(t testing.TB, capacity int) *checked {
	c := &checked{t: t, d: New[int](capacity), m: newRef(capacity)}
	if got, want := c.d.Cap(), c.m.cap; got != want {
		t.Fatalf("New(%d).Cap() = %d, want %d", capacity, got, want)
	}
	c.checkLen()
	return c
}

const keepOps = 16

func (c *checked) log(r opRec) {
	if len(c.ops) < keepOps {
		c.ops = append(c.ops, r)
	} else {
		c.ops[c.nops%keepOps] = r
	}
	c.nops++
}

func (c *checked) fail(format string, args ...any) {
	c.t.Helper()
	var recent []opRec
	if len(c.ops) < keepOps {
		recent = c.ops
	} else {
		i := c.nops % keepOps
		recent = append(append(recent, c.ops[i:]...), c.ops[:i]...)
	}
	c.t.Fatalf("%s\ncap=%d, model holds %d items after %d operations; the last ones (newest last):\n  %v",
		fmt.Sprintf(format, args...), c.m.cap, len(c.m.items), c.nops, recent)
}

func (c *checked) checkLen() {
	c.t.Helper()
	if got, want := c.d.Len(), len(c.m.items); got != want {
		c.fail("Len() = %d, want %d", got, want)
	}
}

// push pushes a fresh item to both and compares the results.
func (c *checked) push() {
	c.t.Helper()
	x := new(int)
	*x = c.next
	c.next++
	got, want := c.d.Push(x), c.m.push(x)
	c.log(opRec{"Push", x, got})
	if got != want {
		c.fail("Push(%d) = %v, want %v", *x, got, want)
	}
	if !want {
		c.fulls++
	}
	c.checkLen()
}

func (c *checked) pop() {
	c.t.Helper()
	got, want := c.d.Pop(), c.m.pop()
	c.log(opRec{op: "Pop", arg: got})
	if got != want {
		c.fail("Pop() = %s, want %s", show(got), show(want))
	}
	if want == nil {
		c.empties++
	}
	c.checkLen()
}

// steal also checks that Steal, running alone, never fails spuriously:
// the model's answer is the only acceptable one.
func (c *checked) steal() {
	c.t.Helper()
	got, want := c.d.Steal(), c.m.steal()
	c.log(opRec{op: "Steal", arg: got})
	if got != want {
		c.fail("Steal() = %s, want %s", show(got), show(want))
	}
	if want == nil {
		c.empties++
	}
	c.checkLen()
}

func (c *checked) len() {
	c.t.Helper()
	c.log(opRec{op: "Len"})
	c.checkLen()
}

// drain empties both by pops and steals (chosen by rng) and checks that the
// deque then reports empty from every operation.
func (c *checked) drain(rng *rand.Rand) {
	c.t.Helper()
	for len(c.m.items) > 0 {
		if rng.IntN(2) == 0 {
			c.pop()
		} else {
			c.steal()
		}
	}
	c.pop()
	c.steal()
	c.len()
}

func show(p *int) string {
	if p == nil {
		return "nil"
	}
	return fmt.Sprint(*p)
}

// modelCapacities are the requested capacities the model tests run with;
// 3 checks that a rounded-up capacity is fully usable.
var modelCapacities = []int{0, 1, 2, 3, 5, 16, 1024}

func TestDequeMatchesModelOnRandomOperations(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	seeds := 200
	if testing.Short() {
		seeds = 20
	}
	for _, capacity := range modelCapacities {
		t.Run(fmt.Sprintf("cap=%d", capacity), func(t *testing.T) {
			// Enough operations to fill and empty the deque several times.
			nops := 40*refCap(capacity) + 400
			seeds := seeds
			if refCap(capacity) >= 1024 {
				seeds /= 10 // each run is long already
			}
			var fulls, empties int
			for seed := range seeds {
				rng := rand.New(rand.NewPCG(uint64(seed), uint64(capacity)))
				c := newChecked(t, capacity)
				// The push probability changes every phase, so runs
				// alternate between filling up (and hitting full) and
				// draining (and hitting empty).
				var pushPct int
				for i := range nops {
					if i%(2*refCap(capacity)+8) == 0 {
						pushPct = rng.IntN(101)
					}
					r := rng.IntN(100)
					switch {
					case r < pushPct:
						c.push()
					case r%3 == 0:
						c.pop()
					case r%3 == 1:
						c.steal()
					default:
						c.len()
					}
				}
				c.drain(rng)
				fulls += c.fulls
				empties += c.empties
			}
			// The runs are deterministic; make sure they reach both ends.
			if fulls == 0 || empties == 0 {
				t.Fatalf("random runs hit full %d times and empty %d times; want both > 0", fulls, empties)
			}
			t.Logf("%d seeds x %d operations: %d pushes on full, %d pops/steals on empty", seeds, nops, fulls, empties)
		})
	}
}

func TestNewRoundsCapacityUpToPowerOfTwo(t *testing.T) {
	cases := []struct{ in, want int }{
		{max(-1<<40, math.MinInt), 1}, {-1, 1}, {0, 1}, {1, 1}, {2, 2}, {3, 4}, {4, 4},
		{5, 8}, {1000, 1024}, {1023, 1024}, {1024, 1024}, {1025, 2048},
	}
	for _, tc := range cases {
		if got := New[int](tc.in).Cap(); got != tc.want {
			t.Errorf("New(%d).Cap() = %d, want %d", tc.in, got, tc.want)
		}
	}
}

func TestNewPanicsAboveMaxCapacity(t *testing.T) {
	for _, capacity := range []int{1<<30 + 1, min(1<<31, math.MaxInt), math.MaxInt} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("New(%d) did not panic", capacity)
				}
			}()
			New[int](capacity)
		}()
	}
}

func TestNewDequeIsEmpty(t *testing.T) {
	d := New[int](8)
	if n := d.Len(); n != 0 {
		t.Errorf("Len() = %d, want 0", n)
	}
	if x := d.Pop(); x != nil {
		t.Errorf("Pop() = %v, want nil", x)
	}
	if x := d.Steal(); x != nil {
		t.Errorf("Steal() = %v, want nil", x)
	}
	if n := d.Len(); n != 0 {
		t.Errorf("Len() after Pop and Steal on empty = %d, want 0", n)
	}
}

func TestPushReturnsFalseExactlyWhenFullAndLeavesContentsUnchanged(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	for _, capacity := range []int{1, 2, 3, 16, 1024} {
		t.Run(fmt.Sprintf("cap=%d", capacity), func(t *testing.T) {
			d := New[int](capacity)
			n := d.Cap()
			items := make([]int, n+2)
			for i := range items {
				items[i] = i
			}
			// Every push below Cap succeeds.
			for i := 0; i < n; i++ {
				if d.Len() != i {
					t.Fatalf("Len() = %d before push %d", d.Len(), i)
				}
				if !d.Push(&items[i]) {
					t.Fatalf("Push #%d returned false with Len()=%d < Cap()=%d", i, i, n)
				}
			}
			if d.Len() != n {
				t.Fatalf("Len() = %d after %d pushes, want Cap()=%d", d.Len(), n, n)
			}
			// Full: pushes fail, repeatedly, without changing anything.
			for range 3 {
				if d.Push(&items[n]) {
					t.Fatalf("Push on a full deque (Len()=Cap()=%d) returned true", n)
				}
				if d.Len() != n {
					t.Fatalf("Len() = %d after a failed Push, want %d", d.Len(), n)
				}
			}
			// Stealing one makes room for exactly one more.
			if x := d.Steal(); x != &items[0] {
				t.Fatalf("Steal() after failed Push = %s, want 0", show(x))
			}
			if !d.Push(&items[n]) {
				t.Fatalf("Push after a Steal from a full deque returned false (Len()=%d)", d.Len())
			}
			if d.Push(&items[n+1]) {
				t.Fatalf("Push on a refilled full deque returned true")
			}
			// Contents: items 1..n, unchanged by the failed pushes.
			// Pop half of them from the bottom, steal the rest from the top.
			want := items[1 : n+1]
			for len(want) > 0 {
				if len(want)%2 == 0 {
					if x := d.Pop(); x != &want[len(want)-1] {
						t.Fatalf("Pop() = %s, want %d", show(x), want[len(want)-1])
					}
					want = want[:len(want)-1]
				} else {
					if x := d.Steal(); x != &want[0] {
						t.Fatalf("Steal() = %s, want %d", show(x), want[0])
					}
					want = want[1:]
				}
			}
			if x, y := d.Pop(), d.Steal(); x != nil || y != nil || d.Len() != 0 {
				t.Fatalf("after draining: Pop()=%s Steal()=%s Len()=%d, want nil nil 0", show(x), show(y), d.Len())
			}
		})
	}
}

func TestPushNilPanicsAndLeavesDequeUnchanged(t *testing.T) {
	for _, fill := range []int{0, 1, 4} { // empty, partly full, full
		d := New[int](4)
		items := make([]int, fill)
		for i := range items {
			items[i] = i
			d.Push(&items[i])
		}
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Push(nil) with %d items did not panic", fill)
				}
			}()
			d.Push(nil)
		}()
		if d.Len() != fill {
			t.Errorf("Len() = %d after Push(nil) panicked, want %d", d.Len(), fill)
		}
		for i := fill - 1; i >= 0; i-- {
			if x := d.Pop(); x != &items[i] {
				t.Errorf("Pop() after Push(nil) panicked = %s, want %d", show(x), i)
			}
		}
		if x := d.Pop(); x != nil {
			t.Errorf("Pop() on drained deque = %s, want nil", show(x))
		}
	}
}

// TestWrapAroundKeepsOrder runs the indices far past Cap() so that every slot
// is reused many times, with the deque full, empty, and with a sliding
// window of resident items that straddles the end of the ring.
func TestWrapAroundKeepsOrder(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	for _, capacity := range []int{1, 2, 4, 16} {
		t.Run(fmt.Sprintf("cap=%d", capacity), func(t *testing.T) {
			rounds := 1000
			rng := rand.New(rand.NewPCG(1, uint64(capacity)))

			// Fill completely, then empty by steals.
			c := newChecked(t, capacity)
			for range rounds {
				for range capacity + 1 { // the last push fails
					c.push()
				}
				for range capacity + 1 { // the last steal finds it empty
					c.steal()
				}
			}
			// Sliding window: keep k items resident, push one, steal one.
			for k := 0; k < capacity; k++ {
				for range k {
					c.push()
				}
				for range rounds {
					c.push()
					c.steal()
				}
				c.drain(rng)
			}
			// Fill, then empty by pops.
			for range rounds {
				for range capacity + 1 {
					c.push()
				}
				for range capacity + 1 {
					c.pop()
				}
			}
			if min := rounds * capacity; c.next < min {
				t.Fatalf("only %d pushes, want at least %d", c.next, min)
			}
		})
	}
}

// TestWrapAroundIndicesFarPastCap checks the index arithmetic directly: after
// millions of operations, top and bottom are far past Cap() and Len, Push and
// Steal still agree with each other.
func TestWrapAroundIndicesFarPastCap(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	d := New[int](4)
	items := make([]int, 6)
	rounds := 1 << 20
	if testing.Short() || fjtest.RaceEnabled {
		rounds = 1 << 14
	}
	for r := 0; r < rounds; r++ {
		for i := 0; i < 3; i++ {
			if !d.Push(&items[i]) {
				t.Fatalf("round %d: Push %d failed with Len()=%d", r, i, d.Len())
			}
		}
		for i := 0; i < 3; i++ {
			if x := d.Steal(); x != &items[i] {
				t.Fatalf("round %d: Steal() returned %p, want &items[%d]", r, x, i)
			}
		}
	}
	if got := d.d.Private() + d.d.Stealer().Len(); got != 0 {
		t.Fatalf("%d items left, want none", got)
	}
	// Now fill to capacity and check fullness still works at large indices.
	for i := 0; i < 4; i++ {
		if !d.Push(&items[i]) {
			t.Fatalf("Push %d failed at large index", i)
		}
	}
	if d.Push(&items[4]) || d.Len() != 4 {
		t.Fatalf("Push on full deque at large index succeeded or Len()=%d != 4", d.Len())
	}
	for i := 3; i >= 0; i-- {
		if x := d.Pop(); x != &items[i] {
			t.Fatalf("Pop() at large index returned %p, want &items[%d]", x, i)
		}
	}
}

// TestStealAloneNeverFailsOnNonEmptyDeque checks the documented guarantee:
// without a concurrent Pop or Steal, Steal on a non-empty deque succeeds.
func TestStealAloneNeverFailsOnNonEmptyDeque(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	rng := rand.New(rand.NewPCG(7, 7))
	for _, capacity := range []int{1, 2, 4, 16, 1024} {
		d := New[int](capacity)
		items := make([]int, capacity)
		for round := 0; round < 200; round++ {
			n := 1 + rng.IntN(capacity)
			for i := 0; i < n; i++ {
				items[i] = round*capacity + i
				if !d.Push(&items[i]) {
					t.Fatalf("cap=%d round %d: Push %d of %d failed", capacity, round, i, n)
				}
			}
			// Pop a few first, so steals also run after pops moved bottom.
			popped := rng.IntN(n)
			for i := 0; i < popped; i++ {
				if d.Pop() == nil {
					t.Fatalf("cap=%d round %d: Pop on non-empty deque returned nil", capacity, round)
				}
			}
			for i := 0; i < n-popped; i++ {
				if d.Len() == 0 {
					t.Fatalf("cap=%d round %d: Len()=0 with %d items left", capacity, round, n-popped-i)
				}
				if x := d.Steal(); x != &items[i] {
					t.Fatalf("cap=%d round %d: Steal #%d on non-empty deque = %s, want %d",
						capacity, round, i, show(x), items[i])
				}
			}
			if x := d.Steal(); x != nil {
				t.Fatalf("cap=%d round %d: Steal on empty deque = %s, want nil", capacity, round, show(x))
			}
		}
	}
}
