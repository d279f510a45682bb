package wsdeque

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/forkjoin/fj/internal/fjtest"
)

// model is the sequential reference for a Deque: a slice of the items,
// oldest first, whose first npub are published. It knows nothing of the
// deque's fences or cached indices; it keeps the index of its oldest item
// and what each slot last held only so that the test can compare them with
// the deque's fields and check Reusable.
type model struct {
	cap   int
	items []*int // oldest first
	npub  int    // items[:npub] are published, items[npub:] private
	top   int64  // index of items[0] in the infinite array
	slots []*int // slots[i]: the item last pushed at an index ≡ i mod cap
	moved []*int // what Moved returns, newest last, at most movedMax
}

// addMoved remembers x for Moved, forgetting the oldest beyond movedMax.
func (m *model) addMoved(x *int) {
	if len(m.moved) == movedMax {
		m.moved = m.moved[1:]
	}
	m.moved = append(m.moved, x)
}

// takeMoved is Moved.
func (m *model) takeMoved() *int {
	if len(m.moved) == 0 {
		return nil
	}
	x := m.moved[len(m.moved)-1]
	m.moved = m.moved[:len(m.moved)-1]
	return x
}

// setReusable is SetReusable: x goes to the next push's slot if there is
// room.
func (m *model) setReusable(x *int) bool {
	if len(m.items) == m.cap {
		return false
	}
	m.slots[m.slot(m.bottom())] = x
	return true
}

// modelCap is the capacity rule, written independently of Init: rounded up
// to a power of two, at least 1.
func modelCap(capacity int) int {
	if capacity <= 1 {
		return 1
	}
	return 1 << bits.Len(uint(capacity-1))
}

func newModel(capacity int, start int64) *model {
	c := modelCap(capacity)
	return &model{cap: c, top: start, slots: make([]*int, c)}
}

func (m *model) bottom() int64    { return m.top + int64(len(m.items)) }
func (m *model) private() int     { return len(m.items) - m.npub }
func (m *model) slot(i int64) int { return int(i % int64(m.cap)) }

func (m *model) push(x *int) bool {
	if len(m.items) == m.cap {
		return false
	}
	m.slots[m.slot(m.bottom())] = x
	m.items = append(m.items, x)
	return true
}

// pop takes the newest item, private or published. The last item, when it
// is the only item, leaves by the top, as a steal would: the owner claims
// it with the thieves' CAS (D5, D5a, and D3 since private steals, D8, may
// race for it), so the next push goes to the next index and slot, which
// Reusable shows.
func (m *model) pop() *int {
	if len(m.items) == 0 {
		return nil
	}
	if len(m.items) == 1 {
		// The item moves to the next push's slot, and the slot it
		// leaves behind the indices is cleared (takeByTop): the owner
		// finds it again at its next push, and nothing it dropped stays
		// reachable behind the indices. What the next slot held goes
		// to the moved list.
		i := m.top
		x := m.takeFirst()
		if m.cap > 1 {
			if old := m.slots[m.slot(i+1)]; old != nil && old != x {
				m.addMoved(old)
			}
			m.slots[m.slot(i)] = nil
			m.slots[m.slot(i+1)] = x
		}
		return x
	}
	x := m.items[len(m.items)-1]
	m.items = m.items[:len(m.items)-1]
	m.npub = min(m.npub, len(m.items))
	return x
}

// steal takes the oldest published item; private items do not count.
func (m *model) steal() *int {
	if m.npub == 0 {
		return nil
	}
	return m.takeFirst()
}

// takeFirst removes the oldest item, published or not, by the top.
func (m *model) takeFirst() *int {
	x := m.items[0]
	m.items = m.items[1:]
	m.npub = max(0, m.npub-1)
	m.top++
	return x
}

// stealPrivate is what a thief running D8 alone gets: the oldest
// published item if there is one, else the oldest private one where
// private steals exist.
func (m *model) stealPrivate() *int {
	if m.npub > 0 || !PrivateSteals() {
		return m.steal()
	}
	if len(m.items) == 0 {
		return nil
	}
	return m.takeFirst()
}

// stealBatch takes the oldest min(n, ceil(npub/2)) published items.
func (m *model) stealBatch(n int) []*int {
	k := min(n, (m.npub+1)/2)
	out := make([]*int, 0, k)
	for range k {
		out = append(out, m.takeFirst())
	}
	return out
}

func (m *model) publish() { m.npub = len(m.items) }

// takeOldest takes the oldest min(n, npub/2) items.
func (m *model) takeOldest(n int) []*int {
	k := min(n, m.npub/2)
	out := m.items[:k:k]
	m.items = m.items[k:]
	m.npub -= k
	m.top += int64(k)
	return out
}

// reusable is what the slot of the next push holds, unless the deque is full.
func (m *model) reusable() *int {
	if len(m.items) == m.cap {
		return nil
	}
	return m.slots[m.slot(m.bottom())]
}

// setIndices moves an empty deque's indices to i, as if i items had passed
// through it, so that tests reach indices far past Cap() without running
// that many operations.
func setIndices[T any](d *Deque[T], i int64) {
	d.top.Store(i)
	d.pub.Store(i)
	d.pubOwn, d.bottom, d.topCache = i, i, i
}

// opRec records one operation for the failure message. It is formatted only
// when a test fails, so that recording stays cheap over millions of
// operations.
type opRec struct {
	op   byte // see opNames
	x    *int // the pushed item, or the one returned
	ok   bool // Push's result
	n    int  // TakeOldest: len(dst); then how many it took
	took [maxTake]int
}

const maxTake = 8 // the most TakeOldest takes in these tests (half of 16)

const (
	recPush = iota
	recPushReusable
	recPop
	recSteal
	recPublish
	recTakeOldest
	recReusable
	recStealPrivate
	recStealBatch
	recMoved
	recSetReusable
)

var opNames = [...]string{"Push", "Push(reusable)", "Pop", "Steal", "Publish", "TakeOldest", "Reusable", "StealPrivate", "StealBatch", "Moved", "SetReusable"}

func (r opRec) String() string {
	switch r.op {
	case recPush, recPushReusable, recSetReusable:
		return fmt.Sprintf("%s(%s)=%v", opNames[r.op], show(r.x), r.ok)
	case recPublish:
		return "Publish()"
	case recTakeOldest, recStealBatch:
		return fmt.Sprintf("%s(len %d)=%v", opNames[r.op], r.n, r.took[:min(r.n, maxTake)])
	}
	return fmt.Sprintf("%s()=%s", opNames[r.op], show(r.x))
}

func show(p *int) string {
	if p == nil {
		return "nil"
	}
	return fmt.Sprint(*p)
}

// coverage counts the interesting cases a run reached, so that a test can
// insist that its random operations did reach them.
type coverage struct {
	fulls          int // Push on a full deque
	emptyPops      int // Pop on an empty deque
	privateOnly    int // Steal that found nothing published while private items existed
	privatePops    int // Pop of a private item while published ones existed below it
	publishedPops  int // Pop of a published item
	takes          int // TakeOldest that took something
	takesHalved    int // TakeOldest limited by half, not by len(dst)
	reusables      int // Reusable that returned an item
	reusableFull   int // Reusable that returned nil because the deque was full
	recycledPushes int // Push of the item Reusable returned
	movedPushes    int // Push of the item Moved returned
	privateSteals  int // StealPrivate that took a private item (D8)
	privateKept    int // StealPrivate that found only private items and, private steals off, took none
	batches        int // StealBatch that took more than one item
}

// checker drives a Deque and a model in lock step from one goroutine and
// fails at the first divergence in a result, a count, an index or a slot.
// Its methods do not call t.Helper, which costs more than the operations
// they check; the failure message's operation log says where a run failed.
type checker struct {
	t    testing.TB
	d    *Deque[int]
	m    *model
	what string // the run, for failure messages (capacity, seed)
	next int    // id of the next new item
	ops  []opRec
	nops int
	cov  coverage
}

const keepOps = 48 // operations the failure message shows

func newChecker(t testing.TB, capacity int, start int64, what string) *checker {
	c := &checker{t: t, d: New[int](capacity), m: newModel(capacity, start), what: what}
	setIndices(c.d, start)
	if got, want := c.d.Cap(), c.m.cap; got != want {
		t.Fatalf("%s: New(%d).Cap() = %d, want %d", what, capacity, got, want)
	}
	c.check()
	return c
}

func (c *checker) log(r opRec) {
	if len(c.ops) < keepOps {
		c.ops = append(c.ops, r)
	} else {
		c.ops[c.nops%keepOps] = r
	}
	c.nops++
}

func (c *checker) fail(format string, args ...any) {
	c.t.Helper()
	recent := c.ops
	if len(c.ops) == keepOps {
		i := c.nops % keepOps
		recent = append(append([]opRec(nil), c.ops[i:]...), c.ops[:i]...)
	}
	var b strings.Builder
	for _, r := range recent {
		fmt.Fprintf(&b, "\n  %v", r)
	}
	var items []string
	for i, x := range c.m.items {
		if i == c.m.npub {
			items = append(items, "|")
		}
		items = append(items, show(x))
	}
	c.t.Fatalf("%s: %s\ncap=%d, model top=%d, items (published | private) %v, after %d operations; the last %d (newest last):%s",
		c.what, fmt.Sprintf(format, args...), c.m.cap, c.m.top, items, c.nops, len(recent), b.String())
}

// check compares everything observable, and the deque's indices and slots,
// with the model.
func (c *checker) check() {
	d, m := c.d, c.m
	if got, want := d.Stealer().Len(), m.npub; got != want {
		c.fail("Len() = %d, want %d", got, want)
	}
	if got, want := d.Private(), m.private(); got != want {
		c.fail("Private() = %d, want %d", got, want)
	}
	if got, want := d.Count(), len(m.items); got != want {
		c.fail("Count() = %d, want %d", got, want)
	}
	if got, want := d.Exposed(), m.npub > 0; got != want {
		c.fail("Exposed() = %v with %d published items", got, m.npub)
	}
	// pub may lag below top after private steals (D8) until the owner
	// publishes or pops again: thieves then see nothing published, as
	// with pub == top.
	top, pub := d.top.Load(), d.pub.Load()
	if top != m.top || max(pub, top) != m.top+int64(m.npub) || d.bottom != m.bottom() {
		c.fail("top, pub, bottom = %d, %d, %d; want %d, %d, %d", top, pub, d.bottom, m.top, m.top+int64(m.npub), m.bottom())
	}
	if d.pubOwn != pub {
		c.fail("pubOwn = %d, pub = %d: the owner's copy differs", d.pubOwn, pub)
	}
	if d.topCache > top {
		c.fail("topCache = %d above top = %d", d.topCache, top)
	}
	for i := range d.slots {
		if got, want := d.slots[i].Load(), m.slots[i]; got != want {
			c.fail("slot %d holds %s, want %s", i, show(got), show(want))
		}
	}
	if d.nmoved != len(m.moved) {
		c.fail("%d items moved, want %d", d.nmoved, len(m.moved))
	}
	for i, x := range m.moved {
		if d.moved[i] != x {
			c.fail("moved item %d is %s, want %s", i, show(d.moved[i]), show(x))
		}
	}
	for i := d.nmoved; i < movedMax; i++ {
		if d.moved[i] != nil {
			c.fail("moved item %d is %s past the %d kept: it stays reachable", i, show(d.moved[i]), d.nmoved)
		}
	}
}

func (c *checker) newItem() *int {
	x := new(int)
	*x = c.next
	c.next++
	return x
}

func (c *checker) push() { c.pushItem(c.newItem(), recPush) }

// pushReusable pushes the item Reusable returns, as an owner that recycles its
// items does; if Reusable has none, the newest item Moved returns, stored
// in the slot by SetReusable, as the scheduler's forks do; if neither has
// one, a new one.
func (c *checker) pushReusable() {
	x := c.reusable()
	if x == nil {
		x = c.moved()
		if x == nil {
			c.push()
			return
		}
		got, want := c.d.SetReusable(x), c.m.setReusable(x)
		c.log(opRec{op: recSetReusable, x: x, ok: got})
		if got != want {
			c.fail("SetReusable(%d) = %v, want %v", *x, got, want)
		}
		c.check()
		if !got {
			return
		}
		c.cov.movedPushes++
	}
	c.cov.recycledPushes++
	c.pushItem(x, recPushReusable)
}

func (c *checker) moved() *int {
	got, want := c.d.Moved(), c.m.takeMoved()
	c.log(opRec{op: recMoved, x: got})
	if got != want {
		c.fail("Moved() = %s, want %s", show(got), show(want))
	}
	c.check()
	return got
}

func (c *checker) pushItem(x *int, op byte) {
	n := len(c.m.items)
	full := n == c.m.cap
	got, want := c.d.Push(x), c.m.push(x)
	c.log(opRec{op: op, x: x, ok: got})
	if got != want {
		c.fail("Push(%d) = %v with %d items in a deque of %d, want %v", *x, got, n, c.m.cap, want)
	}
	if full {
		c.cov.fulls++
	}
	c.check()
}

func (c *checker) pop() {
	npub, n := c.m.npub, len(c.m.items)
	got, want := c.d.Pop(), c.m.pop()
	c.log(opRec{op: recPop, x: got})
	if got != want {
		c.fail("Pop() = %s, want %s", show(got), show(want))
	}
	switch {
	case n == 0:
		c.cov.emptyPops++
	case npub == n:
		c.cov.publishedPops++
	case npub > 0:
		c.cov.privatePops++
	}
	c.check()
}

// steal also checks that a Steal running alone never fails spuriously: the
// model's answer is the only one acceptable.
func (c *checker) steal() {
	private := c.m.private()
	got, want := c.d.Stealer().Steal(), c.m.steal()
	c.log(opRec{op: recSteal, x: got})
	if got != want {
		c.fail("Steal() = %s, want %s", show(got), show(want))
	}
	if want == nil && private > 0 {
		c.cov.privateOnly++
	}
	c.check()
}

// stealPrivate runs D8 as the scheduler's thieves do: PrivateTop, the
// barrier, StealPrivate, or a plain Steal when something is published.
// Alone, it never fails spuriously either.
func (c *checker) stealPrivate() {
	npub, private := c.m.npub, c.m.private()
	s := c.d.Stealer()
	var got *int
	if t, ok := s.PrivateTop(); ok {
		Barrier()
		got = s.StealPrivate(t)
	} else {
		got = s.Steal()
	}
	want := c.m.stealPrivate()
	c.log(opRec{op: recStealPrivate, x: got})
	if got != want {
		c.fail("StealPrivate() = %s, want %s", show(got), show(want))
	}
	if got != nil && npub == 0 {
		c.cov.privateSteals++
	}
	if got == nil && npub == 0 && private > 0 {
		c.cov.privateKept++
	}
	c.check()
}

func (c *checker) stealBatch(n int) {
	dst := make([]*int, n)
	k := c.d.Stealer().StealBatch(dst)
	want := c.m.stealBatch(n)
	r := opRec{op: recStealBatch, n: n}
	for i := range min(k, maxTake) {
		r.took[i] = *dst[i]
	}
	c.log(r)
	if k != len(want) {
		c.fail("StealBatch(len %d) took %d, want %d", n, k, len(want))
	}
	for i := range min(k, len(want)) {
		if dst[i] != want[i] {
			c.fail("StealBatch(len %d)[%d] = %s, want %s", n, i, show(dst[i]), show(want[i]))
		}
	}
	if k > 1 {
		c.cov.batches++
	}
	c.check()
}

func (c *checker) publish() {
	c.d.Publish()
	c.m.publish()
	c.log(opRec{op: recPublish})
	c.check()
}

func (c *checker) takeOldest(n int) {
	dst := make([]*int, n)
	k := c.d.TakeOldest(dst)
	want := c.m.takeOldest(n)
	r := opRec{op: recTakeOldest, n: k}
	for i := 0; i < min(k, maxTake); i++ {
		if dst[i] != nil {
			r.took[i] = *dst[i]
		}
	}
	c.log(r)
	if k != len(want) {
		c.fail("TakeOldest(len %d) took %d items, want %d", n, k, len(want))
	}
	for i := range want {
		if dst[i] != want[i] {
			c.fail("TakeOldest(len %d): item %d is %s, want %s", n, i, show(dst[i]), show(want[i]))
		}
	}
	if k > 0 {
		c.cov.takes++
		if k < n {
			c.cov.takesHalved++
		}
	}
	c.check()
}

func (c *checker) reusable() *int {
	full := len(c.m.items) == c.m.cap
	got, want := c.d.Reusable(), c.m.reusable()
	c.log(opRec{op: recReusable, x: got})
	if got != want {
		c.fail("Reusable() = %s, want %s", show(got), show(want))
	}
	switch {
	case full:
		c.cov.reusableFull++
	case got != nil:
		c.cov.reusables++
	}
	c.check()
	return got
}

// drain empties both, by pops, steals and TakeOldest after publishing, and
// checks that every operation then reports an empty deque.
func (c *checker) drain(rng *rand.Rand) {
	for len(c.m.items) > 0 {
		switch rng.IntN(4) {
		case 0:
			c.pop()
		case 1:
			c.publish()
		case 2:
			c.stealPrivate()
		default:
			c.takeOldest(1 + rng.IntN(c.m.cap))
		}
	}
	c.pop()
	c.steal()
	c.stealPrivate()
	c.takeOldest(c.m.cap)
	c.publish()
}

// weights are the relative frequencies of the operations in one phase of a
// random run.
type weights struct{ push, pushReusable, pop, steal, publish, takeOldest, reusable int }

func randomWeights(rng *rand.Rand) weights {
	return weights{
		push:         rng.IntN(12),
		pushReusable: rng.IntN(6),
		pop:          rng.IntN(6),
		steal:        rng.IntN(6),
		publish:      rng.IntN(4),
		takeOldest:   rng.IntN(3),
		reusable:     rng.IntN(2),
	}
}

// randomOp applies one operation chosen with w.
func (c *checker) randomOp(rng *rand.Rand, w *weights) {
	total := w.push + w.pushReusable + w.pop + w.steal + w.publish + w.takeOldest + w.reusable
	if total == 0 {
		c.push()
		return
	}
	r := rng.IntN(total)
	switch {
	case r < w.push:
		c.push()
	case r < w.push+w.pushReusable:
		c.pushReusable()
	case r < w.push+w.pushReusable+w.pop:
		c.pop()
	case r < w.push+w.pushReusable+w.pop+w.steal:
		switch rng.IntN(3) {
		case 0:
			c.steal()
		case 1:
			c.stealPrivate()
		default:
			c.stealBatch(1 + rng.IntN(maxTake))
		}
	case r < w.push+w.pushReusable+w.pop+w.steal+w.publish:
		c.publish()
	case r < w.push+w.pushReusable+w.pop+w.steal+w.publish+w.takeOldest:
		c.takeOldest(1 + rng.IntN(c.m.cap))
	default:
		c.reusable()
	}
}

// randomRun applies nops random operations in phases of changing weights,
// so that runs alternate between filling up (and hitting full), draining
// (and hitting empty), and holding private items under published ones.
func (c *checker) randomRun(rng *rand.Rand, nops int) {
	phase := 2*c.m.cap + 8
	var w weights
	for i := range nops {
		if i%phase == 0 {
			w = randomWeights(rng)
		}
		c.randomOp(rng, &w)
	}
	c.drain(rng)
}

func (cv *coverage) add(o coverage) {
	cv.fulls += o.fulls
	cv.emptyPops += o.emptyPops
	cv.privateOnly += o.privateOnly
	cv.privatePops += o.privatePops
	cv.publishedPops += o.publishedPops
	cv.takes += o.takes
	cv.takesHalved += o.takesHalved
	cv.reusables += o.reusables
	cv.reusableFull += o.reusableFull
	cv.recycledPushes += o.recycledPushes
	cv.movedPushes += o.movedPushes
	cv.privateSteals += o.privateSteals
	cv.privateKept += o.privateKept
	cv.batches += o.batches
}

// requireAll fails unless every case possible with capacity capacity was
// reached: the runs are deterministic, so a miss means the generator no
// longer tests what it claims to.
func (cv coverage) requireAll(t *testing.T, capacity int) {
	t.Helper()
	if modelCap(capacity) == 1 {
		// One slot: never a private item above a published one, and
		// TakeOldest never has two published items to halve.
		// A take by the top moves its item to the slot it is in.
		cv.privatePops, cv.takes, cv.takesHalved, cv.movedPushes = -1, -1, -1, -1
	}
	if PrivateSteals() {
		// D8 takes the oldest private item whenever nothing is
		// published: a thief alone never leaves one behind.
		cv.privateKept = -1
	} else {
		// Without the heavy barrier (fjnoprivate, other platforms) D8
		// never takes a private item: the guarantee left is that the
		// thief takes nothing and the owner keeps it (wsdeque.md,
		// "Where there is no heavy barrier").
		cv.privateSteals = -1
	}
	if modelCap(capacity) <= 2 {
		// A batch takes half of the published items, rounded up:
		// more than one needs three.
		cv.batches = -1
	}
	for _, f := range []struct {
		name string
		n    int
	}{
		{"pushes on full", cv.fulls},
		{"pops on empty", cv.emptyPops},
		{"steals finding only private items", cv.privateOnly},
		{"pops of a private item above published ones", cv.privatePops},
		{"pops of a published item", cv.publishedPops},
		{"TakeOldest taking something", cv.takes},
		{"TakeOldest limited to half", cv.takesHalved},
		{"Reusable returning an item", cv.reusables},
		{"Reusable on full", cv.reusableFull},
		{"pushes of a recycled item", cv.recycledPushes},
		{"pushes of an item Moved returned", cv.movedPushes},
		{"private steals (D8)", cv.privateSteals},
		{"private steals finding only private items, private steals off", cv.privateKept},
		{"batch steals of more than one item", cv.batches},
	} {
		if f.n == 0 {
			t.Errorf("random runs never reached: %s", f.name)
		}
	}
	t.Logf("%+v", cv)
}

// modelCapacities are the capacities the model tests use; 0 and 3 check that
// rounded-up capacities are fully usable.
var modelCapacities = []int{0, 1, 2, 3, 4, 8}

func TestMatchesModelOnRandomOperations(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	seeds := fjtest.Small(1000, 100)
	for _, capacity := range modelCapacities {
		t.Run(fmt.Sprintf("cap=%d", capacity), func(t *testing.T) {
			var cov coverage
			nops := 60*modelCap(capacity) + 300
			for seed := range seeds {
				// Half the runs start at indices far past Cap() and
				// not a multiple of it.
				start := int64(0)
				if seed%2 == 1 {
					start = 1<<40 + int64(seed)
				}
				rng := rand.New(rand.NewPCG(uint64(seed), uint64(capacity)))
				c := newChecker(t, capacity, start, fmt.Sprintf("cap=%d seed=%d start=%d", capacity, seed, start))
				c.randomRun(rng, nops)
				cov.add(c.cov)
			}
			cov.requireAll(t, capacity)
		})
	}
}

// TestMatchesModelOverMillionsOfOperations runs each small capacity through
// millions of random operations, so that every slot is reused hundreds of
// thousands of times and the indices end far past Cap().
func TestMatchesModelOverMillionsOfOperations(t *testing.T) {
	fjtest.Deadline(t, 2*time.Minute)
	nops := fjtest.Small(1<<22, 1<<16)
	for _, capacity := range []int{1, 2, 4, 8} {
		t.Run(fmt.Sprintf("cap=%d", capacity), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(99, uint64(capacity)))
			c := newChecker(t, capacity, 0, fmt.Sprintf("cap=%d", capacity))
			c.randomRun(rng, nops)
			if top := c.d.top.Load(); top < int64(nops/32) {
				t.Errorf("top = %d after %d operations; want the indices far past Cap()", top, nops)
			}
			c.cov.requireAll(t, capacity)
		})
	}
}

func TestInitAndCapacity(t *testing.T) {
	for _, tc := range []struct{ in, want int }{
		{max(-1<<40, math.MinInt), 1}, {-1, 1}, {0, 1}, {1, 1}, {2, 2}, {3, 4}, {4, 4},
		{5, 8}, {1023, 1024}, {1024, 1024}, {1025, 2048},
	} {
		if got := New[int](tc.in).Cap(); got != tc.want {
			t.Errorf("New(%d).Cap() = %d, want %d", tc.in, got, tc.want)
		}
		var s struct {
			_ int
			d Deque[int]
		}
		s.d.Init(tc.in)
		if got := s.d.Cap(); got != tc.want {
			t.Errorf("Init(%d) then Cap() = %d, want %d", tc.in, got, tc.want)
		}
	}
	for _, capacity := range []int{MaxCap + 1, min(1<<40, math.MaxInt)} {
		r := fjtest.Catch(func() { New[int](capacity) })
		if msg := fjtest.PanicMessage(r); !strings.Contains(msg, "capacity") {
			t.Errorf("New(%d) panicked with %v, want a message about the capacity", capacity, r)
		}
	}
}

// A nil item panics, naming the mistake, and changes nothing, whether the
// deque is empty, holds private and published items, or is full.
func TestPushNilPanicsAndChangesNothing(t *testing.T) {
	for _, fill := range []int{0, 2, 4} {
		c := newChecker(t, 4, 0, fmt.Sprintf("fill=%d", fill))
		for range fill {
			c.push()
		}
		c.publish()
		if fill > 0 {
			c.pop()
			c.push() // one private item above the published ones
		}
		r := fjtest.Catch(func() { c.d.Push(nil) })
		if msg := fjtest.PanicMessage(r); !strings.Contains(msg, "nil") {
			t.Errorf("fill=%d: Push(nil) panicked with %v, want a message about nil", fill, r)
		}
		c.check()
		c.drain(rand.New(rand.NewPCG(1, 2)))
	}
}

// Private items are invisible to Steal and to TakeOldest and Len until
// Publish, which makes exactly them stealable, oldest first.
func TestPublishMakesExactlyThePrivateItemsStealable(t *testing.T) {
	c := newChecker(t, 8, 0, "cap=8")
	for range 3 {
		c.push()
	}
	c.steal() // nil: nothing published
	c.takeOldest(8)
	c.publish()
	for range 2 {
		c.push() // private, above three published
	}
	c.steal()       // item 0
	c.takeOldest(8) // item 1 only: half of the two published
	c.steal()       // item 2
	c.steal()       // nil: items 3 and 4 are private
	c.pop()         // item 4, private
	c.publish()
	c.publish() // no-op
	c.steal()   // item 3
	c.steal()   // nil
	if c.cov.privateOnly != 2 {
		t.Fatalf("%d steals found only private items, want 2", c.cov.privateOnly)
	}
}

// Reusable returns the item the slot of the next Push last held, whether it
// left by Pop, Steal or TakeOldest, and nil when the deque is full.
func TestReusable(t *testing.T) {
	c := newChecker(t, 4, 0, "cap=4")
	if c.reusable() != nil {
		t.Fatal("Reusable() on a new deque is not nil")
	}
	for range 4 {
		c.push()
	}
	c.reusable() // nil: full
	c.publish()
	c.steal()        // item 0: its slot is the next push's
	c.pushReusable() // item 0 again, at index 4
	c.pop()
	c.pop()
	c.pushReusable() // item 3 again, popped from index 3
	c.pushReusable() // item 0 again, stolen at index 0, pushed at 4, popped
	c.takeOldest(4)
	c.reusable()
	c.drain(rand.New(rand.NewPCG(3, 4)))
	if c.cov.recycledPushes != 3 || c.cov.reusableFull != 1 {
		t.Fatalf("coverage %+v: want 3 recycled pushes and 1 Reusable on full", c.cov)
	}
}

// A take by the top moves its item to the next push's slot, so that an
// owner forking and joining one item at a time finds it again at every
// push (the scheduler's one-worker fork and join, each taken back by the
// top), and the slot behind the indices lets go of it; what the next slot
// held goes to Moved.
func TestTakeByTopMovesItsItem(t *testing.T) {
	c := newChecker(t, 4, 0, "cap=4")
	for range 4 {
		c.push() // items 0-3 at indices 0-3: every slot holds one
	}
	c.publish()
	for range 4 {
		c.steal()
	}
	c.push() // item 4 at index 4, slot 0
	c.publish()
	c.pop() // item 4, by the top: to slot 1, and item 1 goes to Moved
	if c.d.slots[0].Load() != nil || *c.d.slots[1].Load() != 4 || c.d.nmoved != 1 || *c.d.moved[0] != 1 {
		t.Fatalf("after a take by the top at index 4: slots %v, %v, %d moved", show(c.d.slots[0].Load()), show(c.d.slots[1].Load()), c.d.nmoved)
	}
	for range 12 { // three laps of one item forked, published, taken back
		if x := c.reusable(); x == nil || *x != 4 {
			t.Fatalf("Reusable() = %s, want item 4, moved by the take", show(x))
		}
		c.pushReusable()
		c.publish()
		c.pop()
	}
	if c.d.nmoved != 3 {
		t.Fatalf("%d items moved, want 3: items 1, 2 and 3, met once each", c.d.nmoved)
	}
	if x := c.moved(); x == nil || *x != 3 {
		t.Fatalf("Moved() = %s, want item 3, the newest pushed out", show(x))
	}
	// One slot: the item stays where it is.
	c = newChecker(t, 1, 0, "cap=1")
	c.push()
	c.publish()
	c.pop()
	if x := c.reusable(); x == nil || *x != 0 || c.d.nmoved != 0 {
		t.Fatalf("cap=1: Reusable() = %s with %d moved, want item 0 and none", show(x), c.d.nmoved)
	}
}
