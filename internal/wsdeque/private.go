package wsdeque

import "sync/atomic"

// privateSteals is whether thieves may take private items (D8): the heavy
// barrier (H1) exists on this platform and the process registered for it
// at start-up. Tests turn it off to run the scheduler as it is where the
// barrier does not exist.
var privateSteals = registerBarrier()

// PrivateSteals reports whether thieves can take private items on this
// platform (D8): where they cannot, a private item waits for its owner to
// publish it (wsdeque.md, "Where there is no heavy barrier").
func PrivateSteals() bool { return privateSteals }

// SetPrivateSteals turns private steals on or off and returns the previous
// setting; on is ignored where the barrier does not exist. For tests that
// check the scheduler without them: no thief may be running D8 when it is
// called.
func SetPrivateSteals(on bool) (was bool) {
	was = privateSteals
	privateSteals = on && registerBarrier()
	return was
}

// Barrier is the heavy barrier (H1) for a caller that has stored a word
// the owners load on their fork path and must then see the owners'
// private pushes (the pool's sleep re-check, sleep.md S2): after it
// returns, every owner either saw the caller's store or made its earlier
// pushes visible. It reports false where private steals are off, in which
// case the caller learns nothing from it.
func Barrier() bool { return privateSteals && heavyBarrier() }

// PrivateTop is D8's first step for a thief: it loads top and reports it
// with ok when nothing is published and the owner seems to hold private
// items (a load of bottom that no barrier orders, only a hint). The caller
// then runs Barrier once, for every deque it looked at, and calls
// StealPrivate with the t it got here. Any goroutine.
func (d *Stealer[T]) PrivateTop() (t int64, ok bool) {
	if !privateSteals {
		return 0, false
	}
	// D8, step 1: top before the barrier. Sequentially consistent: the
	// owner's loads of top after its barrier point see this value or a
	// later one (H2).
	t = d.top.Load()
	if t < d.pub.Load() {
		return t, false // something is published: D6 takes it
	}
	return t, atomic.LoadInt64(&d.bottom) > t
}

// StealPrivate is the rest of D8: after PrivateTop gave t and the caller
// ran Barrier, it claims index t if it is still in the deque, private or
// published by now, and returns the item, or nil. Any goroutine.
func (d *Stealer[T]) StealPrivate(t int64) *T {
	// D8, step 3: pub first. If the owner published index t meanwhile,
	// this is D6 at index t (its loads of top and pub come in D6's
	// order, and the CAS decides).
	if p := d.pub.Load(); t >= p {
		// Still private: claim it only if the owner's bottom, as the
		// barrier lets us see it, is above t (H2: otherwise the owner
		// may have popped it without a CAS).
		if atomic.LoadInt64(&d.bottom) <= t {
			return nil
		}
	}
	return d.claim(t)
}

// StealBatch takes up to len(dst) of the oldest published items, at most
// half of those published when it starts (rounded up), one D6 at a time,
// and stores them in dst oldest first; it returns how many. Each is
// claimed with its own CAS, as a lone Steal would: a batch claimed with
// one CAS could overlap the items the owner pops meanwhile without a CAS
// (D5, t < b), so it is not safe here (crossbeam-deque's LIFO flavour
// steals its batches one by one for the same reason). Any goroutine.
func (d *Stealer[T]) StealBatch(dst []*T) int {
	n := min(len(dst), (d.Len()+1)/2)
	k := 0
	for k < n {
		x := d.Steal()
		if x == nil {
			break
		}
		dst[k] = x
		k++
	}
	return k
}

// HasPrivate reports whether the owner holds items that are not
// published: exact for what the owner did before the caller's last
// Barrier, a hint otherwise. Any goroutine.
func (d *Stealer[T]) HasPrivate() bool {
	_, ok := d.PrivateMark()
	return ok
}

// PrivateMark reports whether the owner holds items that are not
// published (as HasPrivate), and the value of pub it saw, for
// StillPrivate. Any goroutine.
func (d *Stealer[T]) PrivateMark() (pub int64, ok bool) {
	pub = d.pub.Load()
	return pub, atomic.LoadInt64(&d.bottom) > max(d.top.Load(), pub)
}

// StillPrivate reports whether the owner still holds items that are not
// published and has published nothing since PrivateMark saw pub: private
// items left behind rather than about to be published. Any goroutine.
func (d *Stealer[T]) StillPrivate(pub int64) bool {
	p, ok := d.PrivateMark()
	return ok && p == pub
}
