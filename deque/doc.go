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
// # Guarantees
//
// Every item pushed is returned exactly once, by Pop or by Steal, or stays
// in the deque. An item a thief steals is seen with everything the owner
// wrote into it before pushing it. Push fails only when the deque is full
// (or looks full for a moment while thieves are taking items); Steal fails
// spuriously only when it lost a race for the top item to Pop or to another
// Steal. Nothing blocks and nothing allocates after New.
//
// # Protocol
//
// The deque is a ring of Cap() pointer slots and two indices into an
// infinite array: top (the oldest item) and bottom (one past the newest).
// Push stores the slot, then bottom+1. Steal loads top, then bottom, reads
// the slot and claims it by a compare-and-swap of top. Pop lowers bottom,
// then loads top: if top is below, the item is the owner's; if they meet,
// owner and thieves race for the last item with the same compare-and-swap
// of top, and exactly one wins. The order of all this rests only on Go's
// sequentially consistent sync/atomic operations on the indices (the
// classic algorithm: Chase and Lev, "Dynamic circular work-stealing
// deque", SPAA 2005); the owner stores a slot with a plain store, which
// the atomic store of bottom after it publishes, and a thief that reads a
// slot while the owner rewrites it has read a stale top, and its
// compare-and-swap fails.
//
// fj's scheduler uses the same deque with one addition: a push is private
// to the owner, which pops it back without any fence, until the owner
// publishes it because another worker is idle. This package is that deque
// with every push published at once. The step-by-step argument that no
// item is lost or taken twice, for both, is in the design note beside the
// scheduler's copy of the code, which docs/how-it-works.md in the source
// tree leads to.
package deque
