package sched

import "sync/atomic"

// WatchSearchers records, until stop is called, the most workers counted
// as searching or waiting at once, as seen each time one is added (U1,
// U2); most reports it. No pool may be running while it starts or stops.
func WatchSearchers() (most func() uint32, stop func()) {
	var m atomic.Uint32
	testHooks = &hooks{
		searchers: func(c uint64) {
			s := searchingOf(c) + waitingOf(c)
			for {
				old := m.Load()
				if s <= old || m.CompareAndSwap(old, s) {
					return
				}
			}
		},
		beforeGiveBack: func() {},
		afterAnnounce:  func(*Worker) {},
	}
	return m.Load, func() { testHooks = nil }
}
