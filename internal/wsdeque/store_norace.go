//go:build !race

package wsdeque

import (
	"sync/atomic"
	"unsafe"
)

// The owner's stores that other goroutines read without synchronising
// with them: bottom, and the slots. Both are plain stores here, one MOV
// each (with the write barrier's test for a slot); under the race
// detector they are atomic (store_race.go).

// setBottom is the owner's store of bottom: a plain store, no fence (D2,
// D3). Thieves load bottom only after the heavy barrier (D8, H1), which
// makes this store visible to them or the owner's next load of top see
// their claim; a plain aligned 64-bit store is one MOV on the platforms
// where that barrier exists (barrier_linux_amd64.go), so it is never torn.
// Under the race detector the store is atomic instead (store_race.go): a
// race build then checks the private steal as an ordinary sequentially
// consistent Chase–Lev deque, with the happens-before edge from the
// owner's push to the thief that the hardware gives here.
func (d *Deque[T]) setBottom(b int64) { d.bottom = b }

// setSlot is the owner's store of a slot (D2, and the clears of "What
// the slots keep"): a plain pointer store, not an atomic exchange, which
// on amd64 is a full fence and cost a fork and its join on one worker a
// quarter of their time. Nothing needs it to be atomic:
//   - A thief reads a slot only for an index it found published (D6: it
//     loaded pub, a sequentially consistent load, after the owner's store
//     of pub that follows this store in program order, so the store
//     happens before its read) or below bottom after the heavy barrier
//     (D8, H1: every store of the owner's before its barrier point is
//     visible, and amd64 keeps stores in program order).
//   - A thief with a stale top may read the slot while the owner stores
//     it: a race on one pointer-sized word, so it reads the old or the
//     new pointer, never a torn one (the Go memory model's rule for
//     word-sized locations), and its CAS on top then fails, as its index
//     is already claimed (D1), so it never uses what it read.
//
// atomic.Pointer[T] is a single unsafe.Pointer after zero-sized fields
// (layout_test.go checks it), so the slot's word is written directly.
func (d *Deque[T]) setSlot(s *atomic.Pointer[T], x *T) {
	*(*unsafe.Pointer)(unsafe.Pointer(s)) = unsafe.Pointer(x)
}
