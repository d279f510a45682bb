package sched

// Held reports whether the calling goroutine holds w (identity.go).
func Held(w *Worker) bool { return w.held() }

// StallWatch returns what tests watch of p's stall monitor (stall.go):
// whether it is armed (its goroutine, with its timer, exists or is being
// started: W2, W3), the monitor goroutines started, their ticks, and the
// stack dumps they took (W4).
func StallWatch(p *Pool) (armed bool, starts, ticks, dumps int64) {
	m := &p.stall
	return p.stallState.Load() == stallArmed, m.starts.Load(), m.ticks.Load(), m.dumps.Load()
}

// Published returns the number of w's published tasks, for tests that
// depend on the publication policy (job.go, E1). Only w's holder may
// call it.
func (w *Worker) Published() int { return w.dq.Stealer().Len() }

// StallLookExact reports whether the monitor reads the holders' states
// from the runtime (stall.md, V1): where it cannot, the pool watches
// nothing.
func StallLookExact() bool { return gLook().ok }
