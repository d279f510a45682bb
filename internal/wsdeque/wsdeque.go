// Package wsdeque is the work-stealing deque of fj's scheduler: a bounded
// Chase–Lev deque whose newest items can stay private to the owner until
// it publishes them. wsdeque.md next to this file states the protocol,
// step by step (D1-D7), and argues why no item is lost or taken twice; the
// code cites its steps. The public package deque is this deque with every
// push published at once.
package wsdeque

import (
	"sync/atomic"
	"unsafe"
)

// cacheLine is the padding unit that keeps the three writers' fields
// apart. 128 bytes rather than 64 because x86 prefetches cache lines in
// adjacent pairs, so two counters 64 bytes apart still ping-pong between
// cores.
const cacheLine = 128

// wordSize is the size of a pointer or an int: 8 bytes on 64-bit
// platforms, 4 on 386 and arm. The padding below counts the fields
// whose size is a word in words, so that every line starts where the
// layout test says on both, and bottom, which thieves load atomically
// as a 64-bit word (D8), is 8-byte aligned: sync/atomic panics on a
// 64-bit word that is not, on 32-bit platforms.
const wordSize = unsafe.Sizeof(uintptr(0))

// MaxCap is the largest capacity New accepts.
const MaxCap = 1 << 30

// Deque is a bounded work-stealing deque of *T with a private end.
//
// One goroutine, the owner, calls the methods of Deque (Push, Pop,
// Publish, TakeOldest, Reusable, Private, Count, Exposed, ...): they work on
// the bottom end, last-in first-out. Other goroutines use its Stealer:
// Steal, which takes the oldest published item, and Len, the number of
// published items. Items are indices in an infinite
// array, [top, bottom), and index i lives in slot i mod Cap(). The items in
// [top, pub) are published: thieves may take them. Those in [pub, bottom)
// are private: only the owner knows they exist, and it pushes and pops
// them with plain memory operations, no fence and no atomic
// read-modify-write (D2, D3). Publish moves pub to bottom with one store
// (D4).
type Deque[T any] struct {
	// Thieves' line. top is the index of the oldest item: thieves (and
	// the owner, for the last published item) claim index top by CAS
	// top → top+1. It only ever grows.
	top atomic.Int64
	_   [cacheLine - 8]byte

	// The owner's published line: pub is one past the newest published
	// item, the "bottom" of the Chase–Lev deque that thieves see; only
	// the owner stores it, when it publishes (D4) and when it pops a
	// published item (D5), and thieves load it on every steal. mask and
	// slots never change after New; they sit here because both sides
	// read them right after pub.
	pub   atomic.Int64
	mask  int64
	slots []atomic.Pointer[T]
	_     [cacheLine - 16 - 3*wordSize]byte // a slice is three words

	// Owner-only lines: the first touched by every push and pop, the
	// second (moved) by pops by the top and forks that recycle them.
	bottom   int64 // one past the newest item, published or not
	pubOwn   int64 // the owner's copy of pub: it alone writes pub
	topCache int64 // a value top had at some point, so at most the current top
	// moved holds the last items that takes by the top (D5a, and D3's
	// last item) pushed out of the next push's slot, newest last, nmoved
	// of them: Reusable no longer finds them (Moved).
	moved  [movedMax]*T
	nmoved int
	_      [2*cacheLine - 24 - (movedMax+1)*wordSize]byte
}

// New returns an empty deque that holds up to capacity items. capacity is
// rounded up to a power of two (so that an index maps to its slot with a
// mask); a capacity below 1 becomes 1. It panics if capacity exceeds
// MaxCap.
func New[T any](capacity int) *Deque[T] {
	d := new(Deque[T])
	d.Init(capacity)
	return d
}

// Init makes d, a zero Deque (for instance a field of a larger struct), an
// empty deque as New does.
func (d *Deque[T]) Init(capacity int) {
	if capacity > MaxCap {
		panic("deque: capacity above 1<<30")
	}
	n := 1
	for n < capacity {
		n <<= 1
	}
	d.mask = int64(n - 1)
	d.slots = make([]atomic.Pointer[T], n)
}

// Cap returns the number of items the deque can hold.
func (d *Deque[T]) Cap() int { return len(d.slots) }

// room is D1: whether the slot of index b, the next push's, is free.
// topCache, and even a fresh load of top, may be stale (smaller than the
// real top), which only makes the deque look fuller than it is: slot
// b&mask last held index b-Cap(), and b-Cap() < top means a thief has
// already claimed that index. Most pushes find room against the cached
// value and never touch the thieves' line. Owner only.
func (d *Deque[T]) room(b int64) bool {
	if b-d.topCache >= int64(len(d.slots)) {
		d.topCache = d.top.Load()
		if b-d.topCache >= int64(len(d.slots)) {
			return false
		}
	}
	return true
}

// Push adds x at the bottom, as a private item: thieves cannot see it
// until the owner publishes it (D2). It reports false, leaving the deque
// unchanged, when the deque holds Cap() items; while thieves are stealing
// it may also report false slightly early, having read their progress
// late. It never reports false when Count() < Cap() and nobody steals.
// Owner only. x must not be nil: nil is how Pop and Steal say "nothing".
func (d *Deque[T]) Push(x *T) bool {
	if x == nil {
		panic("deque: Push of a nil item")
	}
	b := d.bottom
	if !d.room(b) {
		return false
	}
	// D2: the slot, then the private bottom, both plain stores. A thief
	// with a stale top may read this slot at the same time, and its CAS
	// then fails (D1), so what it read is never used (setSlot says why a
	// plain store is enough). The store is skipped when the slot already
	// holds x, which an owner that recycles its items makes the common
	// case: nothing needs publishing here, since no thief can claim index
	// b before a later store of pub (D4) publishes it and the item's
	// contents with it.
	s := &d.slots[b&d.mask]
	if s.Load() != x {
		d.setSlot(s, x) // plain (store_norace.go): no fence
	}
	d.setBottom(b + 1) // plain (store_norace.go): no fence
	return true
}

// movedMax is how many items Moved remembers: each pop by the top moves
// the indices, and so every deeper slot, one place on, and an owner that
// recycles its items needs as many of them as a call's recursion moved
// (a right spine of Joins moves them once per level it starts on an
// empty deque) to fill the slots that a deeper recursion reaches for the
// first time, until the ring wraps.
const movedMax = 16

// Moved removes and returns the newest of the items that takes by the
// top pushed out of their slots (takeByTop: the item taken moves to the
// next push's slot, and what that slot held comes here), or nil; up to
// movedMax of them are kept, newest first. Such an item left the deque a
// lap ago, and no slot the next pushes reach holds it any more. It may be
// in the deque again, or have left it long ago; whether it may be reused
// is for the owner to know, as with Reusable. Owner only.
func (d *Deque[T]) Moved() *T {
	if d.nmoved == 0 {
		return nil
	}
	d.nmoved--
	x := d.moved[d.nmoved]
	d.moved[d.nmoved] = nil // keep nothing alive that the owner dropped
	return x
}

// takeByTop returns the item at index b, which the owner has just claimed
// by the top (D5a, D3's last item), leaving the deque empty with bottom =
// top = b+1. Its slot is behind the indices now, so the item moves to the
// slot of index b+1, the next push's, where Reusable finds it, and slot b
// is cleared: an owner that forks and joins one item at a time, each
// taken back by the top, finds it again at every fork, and nothing the
// owner dropped stays in a slot behind the indices. What slot b+1 held,
// an item that left the deque a lap ago, goes to Moved (wsdeque.md, "What
// the slots keep"). A thief with a stale top may still load either slot;
// its CAS fails (D1). Owner only.
func (d *Deque[T]) takeByTop(b int64) *T {
	s, n := &d.slots[b&d.mask], &d.slots[(b+1)&d.mask]
	x := s.Load()
	if s != n { // with Cap() == 1 the item is where it goes
		if old := n.Load(); old != x {
			if old != nil {
				d.addMoved(old)
			}
			d.setSlot(n, x)
		}
		d.setSlot(s, nil)
	}
	return x
}

// Forget clears the slot of index i if it holds x, an item that has left
// the deque for good and will not be pushed again, or else the slot of
// index i+1, where a take by the top moved it (D5a): so that the slot,
// which keeps the last item pushed there for Reusable, does not keep x
// reachable. An owner that recycles its items forgets only those it will
// not recycle. Owner only.
func (d *Deque[T]) Forget(i int64, x *T) {
	// A plain store, as in Push: a thief with a stale top may load this
	// slot for index i; its CAS on top fails (D1). If the slot holds x, it
	// holds no live item: x has left, and it is never pushed again.
	if s := &d.slots[i&d.mask]; s.Load() == x {
		d.setSlot(s, nil)
	} else if s := &d.slots[(i+1)&d.mask]; s.Load() == x {
		d.setSlot(s, nil)
	}
}

// Bottom returns the index the next push will take: after a push, the
// pushed item's index is Bottom()-1, and after a pop, the popped item's is
// Bottom(). Owner only.
func (d *Deque[T]) Bottom() int64 { return d.bottom }

// DropMoved forgets the items Moved holds for which keep reports false:
// for an owner about to go idle, so that items it will not reuse do not
// stay reachable from the deque. Owner only.
func (d *Deque[T]) DropMoved(keep func(*T) bool) {
	n := 0
	for _, x := range d.moved[:d.nmoved] {
		if keep(x) {
			d.moved[n] = x
			n++
		}
	}
	clear(d.moved[n:d.nmoved])
	d.nmoved = n
}

// addMoved records x, just taken by the top, for Moved.
func (d *Deque[T]) addMoved(x *T) {
	if d.nmoved == movedMax {
		copy(d.moved[:], d.moved[1:])
		d.nmoved--
	}
	d.moved[d.nmoved] = x
	d.nmoved++
}

// SetReusable makes x the item that Reusable returns, and PushReusable pushes, by
// storing it in the slot of the next push, if the deque has room (D1); it
// reports whether it did. It is D2's slot store done ahead of the push:
// for an owner that recycles an item which is not in that slot (one
// claimed by D5a's CAS, which moves the indices past its slot). Owner only.
func (d *Deque[T]) SetReusable(x *T) bool {
	b := d.bottom
	if !d.room(b) {
		return false
	}
	// A plain store, as in Push: a thief with a stale top may read this
	// slot for its old index, and then fails its CAS (D1).
	if s := &d.slots[b&d.mask]; s.Load() != x {
		d.setSlot(s, x)
	}
	return true
}

// PushReusable pushes, privately, the item Reusable just returned: the slot
// already holds it and Reusable (or SetReusable) has checked for room (D1), so
// D2 has nothing left to do but advance the private bottom. No other owner operation may
// come between the two. It is small enough to be inlined into the owner's
// fork path. Owner only.
func (d *Deque[T]) PushReusable() { d.setBottom(d.bottom + 1) }

// PopPrivate pops the newest item if it is private and is x (D3), and
// reports whether it did: the owner's join of a fork nobody stole, with
// no fence and small enough to be inlined. It reports false, having
// changed nothing, when the newest item is published or not x, or when
// it may be the deque's last item, which Pop settles (D3, popLast). Owner
// only.
func (d *Deque[T]) PopPrivate(x *T) bool {
	b := d.bottom - 1
	if b < d.pubOwn || d.slots[b&d.mask].Load() != x {
		return false
	}
	// D3: lower bottom (a plain store), then load top (a plain MOV on
	// amd64). Nothing orders the two in hardware; a thief's heavy
	// barrier does (H2): it sees this bottom, or this load sees its
	// claim. Most pops find top well below b.
	d.setBottom(b)
	if d.top.Load() < b {
		return true
	}
	// Index b may be the last item, or gone to a D8 thief: undo, as if
	// this pop had not begun (a thief may still take index b, as before
	// it), and leave it to Pop.
	d.setBottom(b + 1)
	return false
}

// popLast is D3's rare end, out of line so that PopPrivate inlines: the
// owner lowered bottom to b and then loaded top >= b. If top == b, index b
// is the last item and owner and thieves claim it with the same CAS; if
// top > b, a private steal (D8) took it. Either way the deque is then
// empty, with bottom = top = b+1. It returns the item if the owner got it.
//
//go:noinline
func (d *Deque[T]) popLast(b int64) *T {
	var x *T
	if t := d.top.Load(); t == b {
		if d.top.CompareAndSwap(b, b+1) {
			x = d.takeByTop(b)
		}
	}
	// top is b+1 now: only index b could be claimed past bottom-1, and
	// it was, by us or by a thief. The deque is empty: pub goes up to
	// top, so that no item counts as private (thieves see top == pub).
	d.setBottom(b + 1)
	if d.pubOwn != b+1 {
		d.pubOwn = b + 1
		d.pub.Store(b + 1)
	}
	return x
}

// Private returns the number of private items: those above pub, less
// any that private steals (D8) took from below, which leave pub under top
// until the owner publishes or pops again. Owner only.
func (d *Deque[T]) Private() int { return int(d.bottom - max(d.pubOwn, d.top.Load())) }

// Exposed reports whether a published item is still in the deque, that
// is, whether a thief could find something here now: false when nothing
// was published since the deque was last empty of published items, or
// when thieves (or the owner's pops) have taken every published item.
// Owner only. It costs one load of top, a line that only steals write, so
// that while nobody steals it stays in the owner's cache.
func (d *Deque[T]) Exposed() bool {
	// Sequentially consistent load: a steal whose CAS precedes it is
	// seen, so after a thief took the last published item the owner's
	// next look says so (the policy that re-publishes, job.go E1-E2,
	// rests on that). Only the owner writes pub, so pubOwn is exact.
	return d.top.Load() < d.pubOwn
}

// Count returns the number of items, published and private, as the owner
// sees them: exact but for thieves' steals in progress. Owner only.
func (d *Deque[T]) Count() int { return span(d.top.Load(), d.bottom) }

// span is the number of indices in [t, b), 0 if b <= t: the items
// between a top and a bottom.
func span(t, b int64) int { return int(max(b-t, 0)) }

// Publish makes every private item stealable, with one store (D4). Owner
// only. It is a no-op when no item is private.
func (d *Deque[T]) Publish() {
	if d.bottom != d.pubOwn {
		d.pubOwn = d.bottom
		// Sequentially consistent: a thief that loads the new pub
		// also sees every slot stored before it, and the items'
		// contents (D4). The caller's later load of the pool's control
		// word is ordered after it (sleep.md, P1-P2).
		d.pub.Store(d.bottom)
	}
}

// Pop removes and returns the item at the bottom, the one pushed last, or
// nil if the deque is empty. A private item costs no fence (D3); a
// published one is claimed as in Chase–Lev (D5). Owner only.
func (d *Deque[T]) Pop() *T {
	b := d.bottom - 1
	if b >= d.pubOwn {
		// D3: a private item. D6's thieves claim only indices below
		// pub <= b; D8's claim index top after a heavy barrier, so lower
		// bottom, then look at top, as in PopPrivate (H2).
		d.setBottom(b)
		if d.top.Load() < b {
			return d.slots[b&d.mask].Load()
		}
		return d.popLast(b)
	}
	// D5a: the newest item is published and no item is private. If it is
	// also the oldest, it is the last item, and owner and thieves race
	// for it with the same CAS on top from b to b+1: whoever wins takes
	// it, and the deque is empty either way (top = pub = bottom = b+1),
	// with no store of pub at all. A fork published because its deque
	// exposed nothing (job.go, E1) is such a last item when its joiner
	// takes it back: one CAS instead of D5's three fenced writes. The
	// load of top may be stale only downwards (top never decreases), and
	// a stale t < b takes D5 below, which reloads it after its store.
	if t := d.top.Load(); t == b {
		if !d.top.CompareAndSwap(t, t+1) {
			return nil // a thief won it
		}
		return d.takeByTop(b)
	} else if t > b {
		return nil // empty
	}
	// D5: the newest item is published, and older ones too. Reserve
	// index b by lowering pub before looking at top: this store and the
	// load of top must not be reordered (a StoreLoad fence, implied by
	// the sequentially consistent atomics). A thief does the mirror
	// image, load top then pub, so at least one of the two sees the
	// other's write. bottom comes down with pub, before the load of
	// top: a D8 thief that loaded pub before this store looks at bottom
	// after its barrier and must not find index b there (H2).
	d.pubOwn = b
	d.setBottom(b)
	d.pub.Store(b)
	t := d.top.Load()
	if t > b {
		// Empty: undo the reservation (t == b+1: top never passes pub
		// by more than the index just taken back).
		d.pubOwn = b + 1
		d.setBottom(b + 1)
		d.pub.Store(b + 1)
		return nil
	}
	x := d.slots[b&d.mask].Load()
	if t < b {
		// At least two published items: thieves claim index top < b
		// first and, having seen pub == b (or bottom == b), none of
		// them will try b.
		return x
	}
	// t == b: the last item. A thief that loaded top == b before our
	// store of pub may still claim it, so decide by the same CAS thieves
	// use; exactly one CAS of top from b to b+1 succeeds.
	if !d.top.CompareAndSwap(t, t+1) {
		x = nil // a thief won it
	}
	// Either way index b is gone and the deque is empty: top == b+1.
	d.setBottom(b + 1)
	d.pubOwn = b + 1
	d.pub.Store(b + 1)
	return x
}

// Stealer is a Deque seen from a goroutine that does not own it: the
// operations any goroutine may call (Steal and Len; Peek and PeekPrivate,
// diagnostics). The owner's operations are the methods of Deque, and a
// thief holds a *Stealer (Deque.Stealer), the same memory under a type
// without them, so that the compiler says what a thief may call
// (crossbeam-deque's Worker and Stealer).
type Stealer[T any] Deque[T]

// Stealer returns d as its thieves see it. Any goroutine.
func (d *Deque[T]) Stealer() *Stealer[T] { return (*Stealer[T])(d) }

// Steal removes and returns the oldest published item. It returns nil if
// no item is published or if it lost a race for the top item to Pop or to
// another Steal; callers that need an answer retry. Without a concurrent
// Pop or Steal, Steal with a published item always succeeds. Any
// goroutine.
func (d *Stealer[T]) Steal() *T {
	// D6: load top before pub (see D5): with sequential consistency this
	// pairs with the owner's store of pub followed by its load of top.
	t := d.top.Load()
	b := d.pub.Load()
	if t >= b {
		return nil
	}
	return d.claim(t)
}

// claim is a single steal's last step (D6, D8): it takes index t, which
// the caller found in the deque, with a CAS of top from t to t+1, and
// returns its item, or nil if another thief, or the owner's Pop of the
// last item, won. It reads the slot before the CAS: once top moves past
// t, the owner may reuse the slot for index t+Cap(); if the CAS
// succeeds, top was still t, so index t+Cap() cannot have been pushed
// (D1) and x is the item at index t.
func (d *Stealer[T]) claim(t int64) *T {
	x := d.slots[t&d.mask].Load()
	if !d.top.CompareAndSwap(t, t+1) {
		return nil
	}
	return x
}

// Len returns the number of published items. Under concurrent use it is
// only a hint: top and pub are read one after the other, never together,
// so the result may be off in either direction for the moment other
// goroutines take to move them. With no concurrent operations it is
// exact. Any goroutine.
func (d *Stealer[T]) Len() int {
	// Two separate loads: the pair never existed at one instant, so the
	// result is only a hint. Callers that must not miss work (the pool's
	// sleep protocol) rely on the sequentially consistent order of these
	// loads after their own atomic writes, not on the value being exact.
	t := d.top.Load()
	b := d.pub.Load()
	if b <= t {
		return 0
	}
	return int(b - t)
}

// TakeOldest removes up to len(dst) of the oldest published items, at
// most half of them, stores them in dst oldest first and returns how
// many. It claims them all with one CAS on top, as a Steal of that many
// would one by one (D7). Owner only: an owner whose deque is full uses it
// to move a batch elsewhere at once, after publishing its private items.
// It never takes the newest published item, so it never competes with
// the owner's own Pop for it.
func (d *Deque[T]) TakeOldest(dst []*T) int {
	for {
		t := d.top.Load()
		b := d.pubOwn
		k := min(int64(len(dst)), (b-t)/2)
		if k <= 0 {
			return 0
		}
		// Read the slots before claiming them, as Steal does: once top
		// has moved past an index, its slot may be reused by a Push,
		// but only ours, and we are not pushing. If the CAS fails, a
		// thief took index t meanwhile; start again.
		for i := int64(0); i < k; i++ {
			dst[i] = d.slots[(t+i)&d.mask].Load()
		}
		if d.top.CompareAndSwap(t, t+k) {
			d.topCache = t + k
			return int(k)
		}
	}
}

// Reusable returns the item in the slot that the next Push will write: an
// item that has already left the deque (popped or stolen) but that the
// slot still points at. It returns nil if there is none or the deque is
// full (then the slot holds a live item). Owner only.
//
// It lets an owner that recycles its items find the one it last pushed at
// this position without keeping a free list, and pushing that same item
// again skips the slot store (D2). Whether the item may be reused, for
// instance whether a thief that took it is done with it, is for the owner
// to know; the deque only remembers the pointer.
func (d *Deque[T]) Reusable() *T {
	b := d.bottom
	// room's D1 check, written out: a call of room here would take
	// Reusable, and the fork path that inlines it, over the inliner's
	// budget.
	if b-d.topCache >= int64(len(d.slots)) {
		d.topCache = d.top.Load()
		if b-d.topCache >= int64(len(d.slots)) {
			return nil
		}
	}
	return d.slots[b&d.mask].Load()
}
