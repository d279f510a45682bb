package sched

import "fmt"

// StallState describes p's stall watch and queues, for a failure's message.
func StallState(p *Pool) string {
	s := fmt.Sprintf("stallState=%d ctl=%#x (search %d sleep %d wait %d) inj=%d live=%d starts=%d started=%d stalls=%d ticks=%d\n",
		p.stallState.Load(), p.ctl.Load(), searchingOf(p.ctl.Load()), sleepingOf(p.ctl.Load()), waitingOf(p.ctl.Load()),
		p.inj.len(), p.stall.live.Load(), p.stall.starts.Load(), p.stall.started.Load(), p.stall.stalls.Load(), p.stall.ticks.Load())
	for w := range p.made() {
		st := w.dq.Stealer()
		s += fmt.Sprintf("  slot %d spare=%v peek=%d len=%d private=%d bottom=%d holder=%d inProgress=%#x sleep=%d\n",
			w.index, w.asSpare != nil, st.Peek(), st.Len(), st.PeekPrivate(), st.PeekBottom(), w.holder.Load(), w.inProgress.Load(), w.sleepState.Load())
	}
	return s
}

// StallDisarmHooks installs hooks: beforeDisarm and afterDisarm
// around the monitor's W3 disarm, searchers at each searcher counted
// (U1, U2). stop removes them. No pool may be running while it starts or
// stops.
func StallDisarmHooks(beforeDisarm func(), afterDisarm func(bool), searchers func()) (stop func()) {
	testHooks = &hooks{
		searchers:      func(uint64) { searchers() },
		beforeGiveBack: func() {},
		afterAnnounce:  func(*Worker) {},
		beforeDisarm:   beforeDisarm,
		afterDisarm:    afterDisarm,
	}
	return func() { testHooks = nil }
}

// StallArmed reports whether p's stall monitor is armed (W2, W3).
func StallArmed(p *Pool) bool { return p.stallState.Load() == stallArmed }

// StallGiveBackHooks installs hooks on the sleep protocol's S1
// (afterAnnounce, with the worker's slot), U3 (beforeGiveBack) and S5
// (afterS5: the slot, and whether the worker took a searching unit).
// stop removes them. No pool may be running while it starts or stops.
func StallGiveBackHooks(afterAnnounce func(slot int), beforeGiveBack func(), afterS5 func(slot int, took bool)) (stop func()) {
	testHooks = &hooks{
		searchers:      func(uint64) {},
		beforeGiveBack: beforeGiveBack,
		afterAnnounce:  func(w *Worker) { afterAnnounce(w.index) },
		afterS5:        func(w *Worker, took bool) { afterS5(w.index, took) },
	}
	return func() { testHooks = nil }
}
