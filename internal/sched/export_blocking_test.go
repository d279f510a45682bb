package sched

// Held reports whether the calling goroutine holds w (identity.go).
func Held(w *Worker) bool { return w.held() }

// Watchdog returns what tests watch of p's stall watchdog (watchdog.go):
// the ticks it has made, the times it found every worker stuck with work
// queued (W2, W3) and went on to check their goroutines (W4), and a
// channel closed once it has printed its report. ok is false when p has
// no watchdog (no debug checks, or FJ_WATCHDOG=off).
func Watchdog(p *Pool) (ticks, looked func() int64, fired <-chan struct{}, ok bool) {
	wd := p.watch
	if wd == nil {
		return nil, nil, nil, false
	}
	return wd.ticks.Load, wd.looked.Load, wd.fired, true
}
