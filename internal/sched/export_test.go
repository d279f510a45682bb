package sched

// MaxWakeDepth returns the longest chain of first wake-ups in sequence the
// pool has seen (see recordWakeDepth), and how many workers were woken.
func MaxWakeDepth(p *Pool) (depth uint32, woken int) {
	for _, w := range p.workers {
		if w.wakeDepth.Load() != 0 {
			woken++
		}
	}
	return p.maxWakeDepth.Load(), woken
}
