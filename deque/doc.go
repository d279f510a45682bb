// Package deque provides a bounded, lock-free Chase–Lev work-stealing deque.
//
// A work-stealing scheduler gives every worker one Deque. The worker (the
// owner) pushes the tasks it forks at the bottom and pops them from the
// bottom again, last-in first-out, so a recursive computation runs depth
// first with its data hot in cache. Idle workers steal from the top, first-in
// first-out, which hands them the oldest and usually largest pieces of work.
//
//	d := deque.New[task](1024)
//	d.Push(t)      // owner
//	t = d.Pop()    // owner; nil when empty
//	t = d.Steal()  // any goroutine; nil when empty or when it lost a race
//
// # Protocol
//
// The deque is a ring of Cap() atomic pointer slots and two indices that only
// ever name positions in an infinite array: top (the oldest item) and bottom
// (one past the newest). Index i lives in slot i mod Cap(). Items are the
// indices in [top, bottom).
//
//   - Push (owner): if bottom-top < Cap() (checked against a copy of top
//     the owner keeps, which is never above the real one, and against
//     the real one only when the copy says full), store the item in slot bottom
//     (skipped if the slot already holds that very pointer, see below), then
//     store bottom+1. Publishing bottom after the slot means a thief that
//     sees the new bottom also sees the item.
//   - Steal (anyone): load top t, then bottom b; if t < b, load slot t, then
//     claim index t with CAS(top, t, t+1). Only the CAS winner returns the
//     item; losers return nil.
//   - Pop (owner): store bottom = b-1 to reserve index b-1, then load top t.
//     If t < b-1, index b-1 is the owner's without further ado. If t == b-1
//     it is the last item: the owner claims it with the same CAS on top that
//     thieves use. If t > b-1 the deque was empty; restore bottom.
//
// Every index is therefore handed out by exactly one of two mechanisms: the
// CAS that moves top past it (thieves, and the owner for the last item), or
// the owner's reservation of bottom while top is known to be below it.
//
// # Why no item is lost or taken twice
//
// All operations of sync/atomic are sequentially consistent: there is a
// single order of all of them that every goroutine agrees on. Consider an
// index i, the owner's Pop reserving it (store bottom=i; load top) and a
// thief's Steal aiming at it (load top=i; load bottom).
//
//   - Two thieves never both get index i: both would need CAS(top, i, i+1)
//     to succeed, and top never goes back.
//   - Owner and thief never both get index i when i is not the last item:
//     the owner takes i without a CAS only if its load of top returned t < i.
//     The thief needs to load top == i, which happens after the owner's load
//     (top only grows), and then load bottom, which happens after the owner's
//     store of bottom = i (it precedes the owner's load in program order).
//     So the thief sees bottom == i and gives up, or sees a later bottom
//     from a Push that put a new item at index i, and then loads and may
//     steal that new item, never the one the owner popped.
//   - The last item (t == i in Pop): the owner does not trust its
//     reservation and claims i by CAS, so owner and thieves compete in the
//     same CAS and exactly one wins. This is the race the Chase–Lev paper
//     resolves this way; without it a thief that loaded bottom before the
//     owner's store would take the item the owner also returns. After the
//     race the owner sets bottom = i+1 = top: empty, whoever won.
//   - No item is lost: an item leaves the deque only through one of the
//     successful claims above, each of which returns it to its caller. A
//     failed CAS returns nil and leaves the item for the next claimant.
//   - A slot is never overwritten while its item is still claimable: Push
//     writes slot index bottom only if bottom-top < Cap(), i.e. the previous
//     occupant, index bottom-Cap(), is below top and already claimed. A
//     thief that read that slot before the overwrite then fails its CAS
//     (top has moved past the index it read), so the value it read is
//     discarded.
//
// Steal's "nil on a lost race" is the only spurious failure: with no
// concurrent Pop or Steal, top cannot move between the thief's load and its
// CAS, so the CAS succeeds.
//
// The indices are int64 and only grow by one per operation; they cannot
// wrap in any realistic lifetime (2^63 operations).
//
// # Memory ordering, in Go's terms
//
// The Go memory model makes atomic operations sequentially consistent and
// makes an atomic write synchronized before any atomic read that observes
// it. The one fence the algorithm needs, StoreLoad between Pop's store of
// bottom and its load of top, is therefore implied (on amd64 the store is
// an XCHG).
//
// What a successful thief needs to see is the item: the pointer in slot t
// and everything the owner wrote into the item before pushing it. Let P be
// the last Push at index t before the thief's CAS; it is P's item the thief
// gets. Lemma: the thief's load of bottom read P's store of bottom, or a
// later one (which follows P in the owner's program order). Suppose it read
// an earlier store instead, of some b' > t. For P to push at index t after
// that, bottom must first come down to t: a Pop Q stores bottom = t,
// after the store the thief read, so after the thief's load of bottom, and
// then loads top. Top is t from the thief's load of top until its CAS. If
// Q loads top before that CAS, Q sees t == its index and races the thief
// with the same CAS(top, t, t+1): if Q wins, the thief's CAS fails; if the
// thief wins, Q fails and restores bottom to t+1 = top, so there is no
// Push at index t before the thief's CAS. If Q loads top after the CAS, Q
// and therefore P come after the CAS. Each case contradicts the choice of P.
//
// The same lemma justifies skipping the slot store when the slot already
// holds the item's pointer (an owner that recycles items pushes the same
// one at the same index again and again): only the owner writes slots, so
// the slot's value is unchanged, and the contents are published by P's
// store of bottom, which the thief has read.
package deque
