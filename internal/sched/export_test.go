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

// MaxSearchers returns the most workers counted as searching or waiting at
// once, as seen when one was added (see noteSearchers).
func MaxSearchers(p *Pool) uint32 { return p.maxSearchers.Load() }
