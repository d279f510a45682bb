package deque

import "sync/atomic"

// cacheLine is the padding unit that keeps top and bottom apart. 128 bytes
// rather than 64 because x86 prefetches cache lines in adjacent pairs, so two
// counters 64 bytes apart still ping-pong between cores.
const cacheLine = 128

// Deque is a bounded, lock-free Chase–Lev work-stealing deque of *T.
//
// One goroutine, the owner, calls Push and Pop; they work on the bottom end,
// so the owner sees its items last-in first-out. Any goroutine may call Steal,
// which takes from the top end, oldest item first. Len may be called by
// anyone. The zero value is not usable; call New.
//
// The deque holds pointers and never dereferences them. A slot keeps its
// pointer after the item has been stolen until the owner's next Push reuses
// it, so up to Cap() taken items may stay reachable; store small handles
// (or drop what they reference when done) if that matters.
type Deque[T any] struct {
	// The fields fall into three cache lines by who writes them, so that
	// no write by one side evicts what the other side reads more than the
	// algorithm demands, and, since the struct is a whole number of lines,
	// no neighbouring object shares them (layout_test.go checks this).

	// Thieves' line. top is the index of the oldest item: thieves (and
	// the owner, for the last item) claim index top by CAS top → top+1.
	// It only ever grows.
	top atomic.Int64
	_   [cacheLine - 8]byte

	// The owner's published line: bottom is one past the newest item;
	// only the owner stores it, on every push and pop, and thieves load
	// it on every steal. mask and slots never change after New; they sit
	// here because both sides read them right after bottom.
	bottom atomic.Int64
	mask   int64
	slots  []atomic.Pointer[T]
	_      [cacheLine - 40]byte

	// Owner-only line. topCache is a value top had at some point, so at
	// most the current top: Push checks for room against it and loads
	// the thieves' line only when it says full.
	topCache int64
	_        [cacheLine - 8]byte
}

// New returns an empty deque that holds up to capacity items. capacity is
// rounded up to a power of two (so that an index maps to its slot with a
// mask); a capacity below 1 becomes 1. It panics if capacity exceeds 1<<30.
func New[T any](capacity int) *Deque[T] {
	if capacity > 1<<30 {
		panic("deque: capacity too large")
	}
	n := 1
	for n < capacity {
		n <<= 1
	}
	return &Deque[T]{mask: int64(n - 1), slots: make([]atomic.Pointer[T], n)}
}

// Cap returns the number of items the deque can hold.
func (d *Deque[T]) Cap() int { return len(d.slots) }

// Push adds x at the bottom. It reports false, leaving the deque unchanged,
// when the deque holds Cap() items; while thieves are stealing it may also
// report false slightly early, having read their progress late. It never
// reports false when Len() < Cap() and nobody steals. Owner only. x must
// not be nil: nil is how Pop and Steal say "nothing".
func (d *Deque[T]) Push(x *T) bool {
	if x == nil {
		panic("deque: Push of a nil item")
	}
	// Only the owner stores bottom, so this load sees our own last store.
	b := d.bottom.Load()
	// topCache, and even a fresh load of top, may be stale (smaller than
	// the real top) because thieves move top concurrently. A stale top
	// only makes the deque look fuller than it is, so the worst outcome is
	// a spurious "full" – never an overwrite of a slot a thief may still
	// claim: slot b&mask last held index b-cap, and b-cap < top means that
	// index has already been claimed. Most pushes find room against the
	// cached value and never touch the line that thieves write.
	if b-d.topCache >= int64(len(d.slots)) {
		d.topCache = d.top.Load()
		if b-d.topCache >= int64(len(d.slots)) {
			return false
		}
	}
	// The slot store must be visible to any thief that sees the new bottom.
	// Both stores are sequentially consistent (all sync/atomic operations
	// are), so a thief that loads bottom == b+1 also loads this pointer.
	//
	// A slot that already holds x (a caller that recycles its items
	// tends to push the same one at the same depth) is not written again:
	// the store of a pointer is the costliest step of a push, and it
	// publishes nothing here. What a thief must see, the item's current
	// contents, is published by the store of bottom below, which comes
	// after them in program order.
	s := &d.slots[b&d.mask]
	if s.Load() != x {
		s.Store(x)
	}
	d.bottom.Store(b + 1)
	return true
}

// Pop removes and returns the item at the bottom, the one pushed last, or
// nil if the deque is empty. Owner only.
func (d *Deque[T]) Pop() *T {
	b := d.bottom.Load() - 1
	// Reserve index b before looking at top. This store and the load of top
	// below must not be reordered (a StoreLoad fence): a thief does the
	// mirror image (load top, then bottom), and sequential consistency
	// guarantees that at least one of the two sees the other's write, so
	// owner and thief can never both believe they own index b.
	d.bottom.Store(b)
	t := d.top.Load()
	if t > b {
		// Empty: undo the reservation. (t == b+1 here: top never passes
		// bottom by more than the one index we just took back.)
		d.bottom.Store(b + 1)
		return nil
	}
	x := d.slots[b&d.mask].Load()
	if t < b {
		// At least two items were present: thieves claim index top < b
		// first and, having seen bottom == b, none of them will try b.
		return x
	}
	// t == b: the last item. A thief that loaded top == b before our
	// bottom store may still claim it, so decide by the same CAS thieves
	// use; exactly one CAS of top from b to b+1 succeeds.
	if !d.top.CompareAndSwap(t, t+1) {
		x = nil // a thief won it
	}
	// Either way index b is gone and the deque is empty: top == b+1.
	d.bottom.Store(b + 1)
	return x
}

// Steal removes and returns the item at the top, the oldest one. It returns
// nil if the deque is empty or if it lost a race for the top item to Pop or
// to another Steal; callers that need an answer retry. Without a concurrent
// Pop or Steal, Steal on a non-empty deque always succeeds.
func (d *Deque[T]) Steal() *T {
	// Load top before bottom (see Pop): with sequential consistency this
	// pairs with the owner's store of bottom followed by its load of top.
	t := d.top.Load()
	b := d.bottom.Load()
	if t >= b {
		return nil
	}
	// Read the slot before claiming it: once top moves past t, the owner
	// may reuse the slot for index t+cap. If the CAS below succeeds, top was
	// still t, so index t+cap cannot have been pushed (Push requires
	// index-top < cap) and x is the item at index t.
	x := d.slots[t&d.mask].Load()
	if !d.top.CompareAndSwap(t, t+1) {
		return nil // another thief, or the owner's Pop of the last item, won
	}
	return x
}

// TakeOldest removes up to len(dst) of the oldest items, at most half of
// those in the deque, stores them in dst oldest first and returns how
// many. It claims them all with one CAS on top, as a Steal of that many
// would one by one. Owner only: an owner whose deque is full uses it to
// move a batch elsewhere at once. It never takes the newest item, so it
// never competes with the owner's own Pop for it.
func (d *Deque[T]) TakeOldest(dst []*T) int {
	for {
		t := d.top.Load()
		b := d.bottom.Load()
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

// Spare returns the item in the slot that the next Push will write: an item
// that has already left the deque (popped or stolen) but that the slot still
// points at. It returns nil if there is none or the deque is full (then the
// slot holds a live item). Owner only.
//
// It lets an owner that recycles its items find the one it last pushed at
// this position without keeping a free list, and pushing that same item
// again skips the slot store (see Push). Whether the item may be reused,
// for instance whether a thief that took it is done with it, is for the
// owner to know; the deque only remembers the pointer.
func (d *Deque[T]) Spare() *T {
	b := d.bottom.Load()
	if b-d.topCache >= int64(len(d.slots)) {
		d.topCache = d.top.Load() // as in Push
		if b-d.topCache >= int64(len(d.slots)) {
			return nil
		}
	}
	return d.slots[b&d.mask].Load()
}

// Top returns the number of items taken from the top end so far: one for
// every successful Steal, and one for every Pop that took the deque's last
// item. It never decreases. Any goroutine may call it; one that runs an
// item it stole (or that was stolen and handed on to it) observes a value
// at least as large as that Steal left.
func (d *Deque[T]) Top() int64 { return d.top.Load() }

// Len returns the number of items in the deque. Under concurrent use it is
// only a hint: top and bottom are read one after the other, never together,
// so the result may be off in either direction (even above Cap()) for the
// moment the other goroutines take to move them. With no concurrent
// operations it is exact.
func (d *Deque[T]) Len() int {
	// Two separate loads: the pair never existed at one instant, so the
	// result is only a hint. Callers that must not miss work (the pool's
	// sleep protocol) rely on the sequentially consistent order of these
	// loads after their own atomic writes, not on the value being exact.
	t := d.top.Load()
	b := d.bottom.Load()
	if b <= t {
		return 0
	}
	return int(b - t)
}
