//go:build race

package wsdeque

import "sync/atomic"

// setBottom is the owner's store of bottom (see store_norace.go): in a
// race build an atomic store, so that the private steal (D8), which loads
// bottom atomically, is a synchronised access the race detector accepts
// and the thief's reads of the item it takes are ordered after the
// owner's writes into it.
func (d *Deque[T]) setBottom(b int64) { atomic.StoreInt64(&d.bottom, b) }

// setSlot is the owner's store of a slot (see store_norace.go): atomic
// in a race build, so that a thief's read of a slot with a stale top,
// whose CAS then fails, is not reported as a race.
func (d *Deque[T]) setSlot(s *atomic.Pointer[T], x *T) { s.Store(x) }
